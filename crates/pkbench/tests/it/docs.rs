//! The book's checks, which CI runs too: every relative link and anchor of README.md and docs/
//! resolves (`scripts/check-links`), the generated reference pages match the code
//! (`scripts/gen-reference --check`), and every findings plan runs and renders
//! (`scripts/findings --check`); each check also fails on a planted fault.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn repository() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

fn script(name: &str, args: &[&str], root: &Path) -> Output {
    Command::new(repository().join("scripts").join(name))
        .args(args)
        .arg("--root")
        .arg(root)
        .output()
        .unwrap_or_else(|e| panic!("python3 runs scripts/{name}: {e}"))
}

fn gen_reference(root: &Path, check: bool) -> Output {
    let mut args = vec!["--pkbench", env!("CARGO_BIN_EXE_pkbench")];
    if check {
        args.push("--check");
    }
    script("gen-reference", &args, root)
}

fn text(out: &Output) -> String {
    format!("{}{}", String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr))
}

#[test]
fn every_link_of_the_readme_and_the_book_resolves() {
    let out = script("check-links", &[], &repository());
    assert!(out.status.success(), "{}", text(&out));
}

#[test]
fn a_missing_page_or_anchor_fails_the_link_check() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir(dir.path().join("docs")).unwrap();
    std::fs::write(dir.path().join("docs/page.md"), "# A page\n\n## Your own table (`run --schema`)\n").unwrap();
    let good = "[a](docs/page.md) [b](docs/page.md#your-own-table-run---schema) [c](#top) [d](https://example.invalid/x)\n\n# Top\n\n`[e](missing.md)`\n";
    std::fs::write(dir.path().join("README.md"), good).unwrap();
    let out = script("check-links", &[], dir.path());
    assert!(out.status.success(), "{}", text(&out));
    for (bad, says) in [("[x](docs/gone.md)", "no such file"), ("[x](docs/page.md#nowhere)", "no heading #nowhere")] {
        std::fs::write(dir.path().join("README.md"), format!("{good}\n{bad}\n")).unwrap();
        let out = script("check-links", &[], dir.path());
        assert_eq!(out.status.code(), Some(1), "{bad}: {}", text(&out));
        assert!(text(&out).contains(says) && text(&out).contains("README.md:"), "{bad}: {}", text(&out));
    }
}

#[test]
fn the_reference_pages_match_the_help_and_the_schemas() {
    let out = gen_reference(&repository(), true);
    assert!(out.status.success(), "{}", text(&out));
}

#[test]
fn a_changed_schema_makes_the_reference_stale() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir(dir.path().join("schema")).unwrap();
    for name in ["results.schema.json", "doctor.schema.json", "advice.schema.json"] {
        std::fs::copy(repository().join("schema").join(name), dir.path().join("schema").join(name)).unwrap();
    }
    let out = gen_reference(dir.path(), false);
    assert!(out.status.success(), "{}", text(&out));
    assert!(gen_reference(dir.path(), true).status.success(), "a page just written is stale");
    let schema = dir.path().join("schema/results.schema.json");
    let changed = std::fs::read_to_string(&schema).unwrap().replacen("One entry per strategy", "One entry per case", 1);
    std::fs::write(&schema, changed).unwrap();
    let out = gen_reference(dir.path(), true);
    assert_eq!(out.status.code(), Some(1), "{}", text(&out));
    assert!(text(&out).contains("docs/reference/results-json.md"), "{}", text(&out));
}

/// Every plan a findings page names runs, at small sizes, and renders its results table (the
/// plans on servers with the second tier); every plan file is named by a page.
#[test]
fn every_findings_plan_runs_and_renders() {
    let tier = if cfg!(feature = "server-tests") { "all" } else { "sqlite" };
    let out = Command::new(repository().join("scripts/findings"))
        .args(["--check", "--tier", tier, "--pkbench", env!("CARGO_BIN_EXE_pkbench")])
        .env("PKBENCH_DOC_ROWS", "2k")
        .output()
        .expect("python3 runs scripts/findings");
    assert!(out.status.success(), "{}", text(&out));
    assert!(text(&out).contains("plans/sqlite-uuid-10x.toml runs"), "{}", text(&out));
    assert!(text(&out).contains("commands/advise-sqlite.sh runs"), "{}", text(&out));
}

#[test]
fn a_findings_part_without_its_file_fails_the_check() {
    let dir = tempfile::tempdir().unwrap();
    let findings = dir.path().join("docs/findings");
    std::fs::create_dir_all(findings.join("plans")).unwrap();
    std::fs::write(findings.join("page.md"), "# A page\n\n<!-- findings: plans/gone.toml -->\n<!-- /findings -->\n")
        .unwrap();
    std::fs::write(findings.join("plans/loose.toml"), "[run]\nrows = \"2k\"\n").unwrap();
    std::fs::create_dir_all(findings.join("commands")).unwrap();
    std::fs::write(findings.join("commands/loose.sh"), "pkbench ids gen uuid7 -n 3\n").unwrap();
    let out = script("findings", &["--check", "--pkbench", env!("CARGO_BIN_EXE_pkbench")], dir.path());
    assert_eq!(out.status.code(), Some(1), "{}", text(&out));
    assert!(text(&out).contains("page.md:3: no file plans/gone.toml"), "{}", text(&out));
    assert!(text(&out).contains("plans/loose.toml is named by no findings page"), "{}", text(&out));
    assert!(text(&out).contains("commands/loose.sh is named by no findings page"), "{}", text(&out));
}

/// Every command of the README's and the guide's `sh` blocks, run with small sizes
/// (`PKBENCH_DOC_ROWS`), on SQLite and on the managed servers pkbench starts itself.
#[cfg(feature = "server-tests")]
#[test]
fn every_documented_command_runs() {
    let out = Command::new(repository().join("scripts/run-doc-commands"))
        .args(["--tier", "all", "--pkbench", env!("CARGO_BIN_EXE_pkbench")])
        .env("PKBENCH_DOC_ROWS", "2k")
        .output()
        .expect("python3 runs scripts/run-doc-commands");
    assert!(out.status.success(), "{}", text(&out));
}
