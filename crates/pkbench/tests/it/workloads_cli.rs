//! Command-line tests of the workloads beyond insert-growth.

use assert_cmd::Command;
use predicates::prelude::*;
use serde_json::Value;

fn pkbench() -> Command {
    Command::cargo_bin("pkbench").expect("pkbench binary")
}

#[test]
fn file_baseline_runs_once_and_writes_every_method() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("out");
    pkbench()
        .args(["run", "--workload", "file-baseline", "--rows", "2k", "--quiet", "--out"])
        .arg(&out)
        .assert()
        .success()
        .stdout(predicate::str::contains("buffered-write-fsync").and(predicate::str::contains("sqlite-sync-extra")))
        .stderr(predicate::str::contains("int: 8 timed steps in"));
    let doc: Value = serde_json::from_slice(&std::fs::read(out.join("results.json")).unwrap()).unwrap();
    let runs = doc["runs"].as_array().unwrap();
    assert_eq!(runs.len(), 1);
    assert_eq!(runs[0]["workload"], "file-baseline");
    let phases = runs[0]["phases"].as_array().unwrap();
    assert_eq!(phases.len(), 8);
    assert!(phases.iter().all(|p| p["figures"]["ratio_to_fastest"].as_f64().unwrap() >= 1.0));
    // phases.csv: a header and one row per step, with the step's figures as columns.
    let csv = std::fs::read_to_string(out.join("phases.csv")).unwrap();
    let lines: Vec<&str> = csv.lines().collect();
    assert_eq!(lines.len(), 1 + 8, "{csv}");
    assert!(lines[0].starts_with("engine,workload,strategy,step,operations,rows,elapsed_ns,latency_count"), "{csv}");
    assert!(lines[0].contains("ratio_to_fastest"), "{csv}");
    assert!(lines[1..].iter().all(|l| l.starts_with("sqlite,file-baseline,int,") && l.ends_with(",true")), "{csv}");
    // The HTML report lists the same steps.
    let html = std::fs::read_to_string(out.join("report.html")).unwrap();
    assert!(
        html.contains("<h2>Timed steps</h2>") && html.contains("sqlite-sync-extra"),
        "no timed steps in the report"
    );
}

#[test]
fn workload_flags_are_checked_before_anything_runs() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("out");
    for (args, needle) in [
        (vec!["--workload", "file-baseline", "--strategies", "uuid4"], "takes no --strategies"),
        (vec!["--workload", "remedy", "--presort"], "--presort applies to --workload insert-growth"),
        (vec!["--workload", "remedy", "--strategies", "uuid7", "--batch", "1k"], "has none"),
        (vec!["--workload", "file-baseline", "--engine", "postgres"], "use --engine sqlite"),
        (vec!["--workload", "app", "--users", "0"], "--users 0 is out of range"),
        (vec!["--workload", "churn", "--warmup", "1s"], "--warmup applies to --workload concurrent and app"),
        (vec!["--workload", "app", "--keep-db"], "--keep-db applies to"),
        (vec!["--workload", "churn", "--payload", "0", "--batch", "3k"], "exceeds --rows"),
    ] {
        pkbench()
            .arg("run")
            .args(&args)
            .args(["--rows", "2k", "--quiet", "--out"])
            .arg(&out)
            .assert()
            .failure()
            .stderr(predicate::str::contains(needle));
    }
}

#[test]
fn list_names_every_workload() {
    pkbench()
        .arg("list")
        .assert()
        .success()
        .stdout(predicate::str::contains("file-baseline").and(predicate::str::contains("remedy")));
}

#[test]
fn repeat_runs_each_case_again_and_prints_medians_with_intervals() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("out");
    pkbench()
        .args(["run", "--repeat", "3", "--strategies", "int,uuid4", "--rows", "2k", "--batch", "1k", "--quiet"])
        .arg("--out")
        .arg(&out)
        .assert()
        .success()
        .stdout(predicate::str::contains("Repeated runs").and(predicate::str::contains("insert rows/s")));
    let doc: Value = serde_json::from_slice(&std::fs::read(out.join("results.json")).unwrap()).unwrap();
    let strategies: Vec<&str> =
        doc["runs"].as_array().unwrap().iter().map(|r| r["strategy"].as_str().unwrap()).collect();
    assert_eq!(strategies, ["int", "int", "int", "uuid4", "uuid4", "uuid4"]);
    pkbench()
        .args(["run", "--repeat", "0", "--quiet", "--out"])
        .arg(dir.path().join("never"))
        .assert()
        .failure()
        .stderr(predicate::str::contains("--repeat 0 is out of range"));
    assert!(!dir.path().join("never").exists());
}

#[test]
fn progress_and_tables_say_what_app_and_file_baseline_do() {
    let dir = tempfile::tempdir().unwrap();
    let out = pkbench()
        .args(["run", "-w", "app", "--users", "2k", "--orders-per-user", "2", "-s", "int", "-q", "-o"])
        .arg(dir.path().join("app"))
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("[1/1] int: inserting 2000 users and 4000 orders, then timed queries"), "{stderr}");
    let out = pkbench()
        .args(["run", "-w", "file-baseline", "-n", "2k", "-q", "-o"])
        .arg(dir.path().join("fb"))
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("writing 2000 lines to a file 4 ways, then inserting 2000 rows"), "{stderr}");
    assert!(!stderr.contains("inserting 16000 rows"), "{stderr}");
    // No batch summary of dashes for a workload without batches: its steps carry the figures.
    let table = String::from_utf8_lossy(&out.stdout);
    assert!(!table.contains("first batch ms"), "{table}");
    assert!(table.contains("Timed steps:"), "{table}");
    // One buffered write is one operation: it has a duration and a row rate, not an op rate.
    let cells: Vec<&str> = table
        .lines()
        .find(|l| l.contains("buffered-write ") || l.contains("buffered-write┆"))
        .unwrap_or_else(|| panic!("{table}"))
        .split('┆')
        .map(|c| c.trim_matches(|ch: char| ch.is_whitespace() || ch == '│'))
        .collect();
    assert_eq!((cells[1], cells[2], cells[3]), ("buffered-write", "1", "2000"), "{cells:?}");
    assert_eq!(cells[4], "–", "no ops/s for a single operation: {cells:?}");
    assert!(cells[5] != "–" && !cells[5].is_empty(), "rows/s shown: {cells:?}");
}

#[test]
fn a_key_beside_an_integer_is_looked_up_both_ways_and_each_step_says_which() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("out");
    pkbench()
        .args([
            "run",
            "-w",
            "app",
            "--users",
            "2k",
            "--orders-per-user",
            "2",
            "-s",
            "int+uuid4-noindex,int",
            "-q",
            "-o",
        ])
        .arg(&out)
        .assert()
        .success();
    let doc: Value = serde_json::from_slice(&std::fs::read(out.join("results.json")).unwrap()).unwrap();
    let step = |run: usize, name: &str| {
        doc["runs"][run]["phases"].as_array().unwrap().iter().find(|p| p["name"] == name).cloned()
    };
    let by_ext = step(0, "point-select").unwrap();
    let by_id = step(0, "point-select-by-id").unwrap();
    assert!(by_ext["note"].as_str().unwrap().contains("external key ext_id"), "{by_ext}");
    assert!(by_id["note"].as_str().unwrap().contains("primary key id"), "{by_id}");
    assert_eq!(by_ext["rows"], by_ext["operations"]);
    assert_eq!(by_id["rows"], by_id["operations"]);
    assert!(step(1, "point-select").unwrap()["note"].as_str().unwrap().contains("the primary key"));
    assert!(step(1, "point-select-by-id").is_none(), "int's public id is its primary key: one lookup");
}
