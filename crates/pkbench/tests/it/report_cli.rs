//! `pkbench report`: re-render and compare results files, and one-line errors for files that
//! are not pkbench results.

use assert_cmd::Command;
use std::path::{Path, PathBuf};

fn pkbench() -> Command {
    Command::cargo_bin("pkbench").expect("pkbench binary")
}

fn fixture(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../pkbench-core/tests/fixtures").join(name)
}

/// Runs `pkbench report` on `file` and returns its single stderr line, after checking it failed.
fn one_line_error(file: &Path) -> String {
    let dir = tempfile::tempdir().unwrap();
    let output = pkbench().arg("report").arg(file).arg("--out").arg(dir.path().join("r.html")).output().unwrap();
    assert!(!output.status.success(), "expected failure");
    let stderr = String::from_utf8_lossy(&output.stderr).into_owned();
    let lines: Vec<&str> = stderr.lines().filter(|l| !l.trim().is_empty()).collect();
    assert_eq!(lines.len(), 1, "one line expected: {stderr}");
    assert!(lines[0].starts_with("Error: "), "{stderr}");
    assert!(!dir.path().join("r.html").exists(), "nothing is written on error");
    lines[0].to_string()
}

#[test]
fn report_renders_one_file_and_compares_several() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("nested/compare.html");
    pkbench()
        .arg("report")
        .args([fixture("sqlite-small.json"), fixture("incomplete.json"), fixture("v1-no-wal-size.json")])
        .arg("--out")
        .arg(&out)
        .assert()
        .success()
        .stderr(predicates::str::contains(format!("Report written to {}", out.display())));
    let html = std::fs::read_to_string(&out).unwrap();
    for label in ["uuid4 · sqlite-small", "uuid4 · incomplete (incomplete)", "uuid4 · v1-no-wal-size"] {
        assert!(html.contains(label), "missing {label}");
    }
}

#[test]
fn markdown_is_written_with_its_key_chart_beside_it() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("report.md");
    pkbench()
        .arg("report")
        .arg(fixture("sqlite-small.json"))
        .arg("--format")
        .arg("md")
        .arg("--out")
        .arg(&out)
        .assert()
        .success();
    let md = std::fs::read_to_string(&out).unwrap();
    assert!(md.contains("](batch-times.svg)"), "{md}");
    assert!(std::fs::read_to_string(dir.path().join("batch-times.svg")).unwrap().starts_with("<svg"));
}

#[test]
fn malformed_json_is_named_with_its_position() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("broken.json");
    std::fs::write(&file, "{\"schema_version\": 1, \"runs\": [").unwrap();
    let line = one_line_error(&file);
    assert!(line.contains("broken.json' is not valid JSON") && line.contains("line 1"), "{line}");
}

/// The library keeps an error's cause in its chain and quotes it in the message: the line
/// names it once.
#[test]
fn a_wrapped_cause_is_printed_once() {
    let line = one_line_error(Path::new("/nonexistent/results.json"));
    assert_eq!(line, "Error: could not read '/nonexistent/results.json': No such file or directory (os error 2)");
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("broken.json");
    std::fs::write(&file, "{\"schema_version\": 1, \"runs\": [").unwrap();
    let line = one_line_error(&file);
    let cause = "EOF while parsing a list at line 1 column 31";
    assert_eq!(line, format!("Error: '{}' is not valid JSON: {cause}", file.display()));
}

#[test]
fn foreign_json_says_it_is_not_a_results_file() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("foo.json");
    std::fs::write(&file, r#"{"foo":1}"#).unwrap();
    let line = one_line_error(&file);
    assert!(line.contains("foo.json' is not a pkbench results file"), "{line}");
    assert!(line.contains("\"schema_version\""), "{line}");
}

#[test]
fn a_missing_file_and_an_input_as_output_are_refused() {
    let line = one_line_error(Path::new("/nonexistent/results.json"));
    assert!(line.contains("could not read '/nonexistent/results.json'"), "{line}");
    let dir = tempfile::tempdir().unwrap();
    let input = dir.path().join("results.json");
    std::fs::copy(fixture("sqlite-small.json"), &input).unwrap();
    let before = std::fs::read(&input).unwrap();
    pkbench()
        .arg("report")
        .arg(&input)
        .arg("--out")
        .arg(&input)
        .assert()
        .failure()
        .stderr(predicates::str::contains("is one of the results files"));
    assert_eq!(std::fs::read(&input).unwrap(), before);
}

/// Without --out the report goes to the current folder, and the line says where in full.
#[test]
fn a_report_without_out_names_its_whole_path() {
    let dir = tempfile::tempdir().unwrap();
    let out = pkbench().current_dir(dir.path()).arg("report").arg(fixture("sqlite-small.json")).output().unwrap();
    assert!(out.status.success());
    let stderr = String::from_utf8_lossy(&out.stderr);
    let whole = std::path::absolute(dir.path().join("report.html")).unwrap();
    assert!(stderr.contains(&format!("Report written to {}", whole.display())), "{stderr}");
}
