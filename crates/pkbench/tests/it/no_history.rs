//! `scripts/check-no-history`, which CI runs: it passes on the repository's own docs and help,
//! and fails on a development-history marker planted in a copy of them.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn repository() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

fn check(root: &Path) -> Output {
    Command::new(repository().join("scripts/check-no-history"))
        .arg("--root")
        .arg(root)
        .arg("--pkbench")
        .arg(env!("CARGO_BIN_EXE_pkbench"))
        .output()
        .expect("python3 runs scripts/check-no-history")
}

/// A copy of the documents the check reads: README.md, CHANGELOG.md and docs/.
fn copy_of_the_documents() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    for file in ["README.md", "CHANGELOG.md"] {
        std::fs::copy(repository().join(file), dir.path().join(file)).unwrap();
    }
    std::fs::create_dir(dir.path().join("docs")).unwrap();
    for entry in std::fs::read_dir(repository().join("docs")).unwrap() {
        let path = entry.unwrap().path();
        if path.extension().is_some_and(|e| e == "md") {
            std::fs::copy(&path, dir.path().join("docs").join(path.file_name().unwrap())).unwrap();
        }
    }
    dir
}

#[test]
fn the_documents_and_help_carry_no_development_history() {
    let out = check(&repository());
    assert!(out.status.success(), "{}{}", String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr));
}

#[test]
fn a_planted_sitting_a_session_a_hash_or_a_seed_number_fails_the_check() {
    for (file, line, marker) in [
        ("README.md", "Sitting R measured 5 ms per batch.", "a sitting"),
        ("docs/guide.md", "As of session 17 the cache is warmed.", "a development session"),
        ("CHANGELOG.md", "Fixed in 76d9213, the canary's first build.", "a commit hash"),
        ("docs/guide.md", "The shape of seed 003's run.", "a write-up by number"),
    ] {
        let dir = copy_of_the_documents();
        assert!(check(dir.path()).status.success(), "the clean copy fails");
        let path = dir.path().join(file);
        let text = std::fs::read_to_string(&path).unwrap_or_default();
        std::fs::write(&path, format!("{text}\n{line}\n")).unwrap();
        let out = check(dir.path());
        let stdout = String::from_utf8_lossy(&out.stdout);
        assert_eq!(out.status.code(), Some(1), "{file}: {line}: {stdout}");
        assert!(stdout.contains(&format!("{file}:")) && stdout.contains(marker), "{file}: {stdout}");
    }
}

#[test]
fn hashes_in_code_and_uuids_are_not_history() {
    let dir = copy_of_the_documents();
    let guide = "`pkbench ids inspect 0190b1c2d3e4`\n\n```\n76d9213abc\n```\n\n0190b1c2-d3e4-7f00-8000-000000000000 and 1288834974657\n";
    std::fs::write(dir.path().join("docs/guide.md"), guide).unwrap();
    let out = check(dir.path());
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stdout));
}
