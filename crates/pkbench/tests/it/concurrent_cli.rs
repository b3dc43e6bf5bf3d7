//! `pkbench run --workload concurrent` end to end on SQLite, its flag errors, and `list`.

use crate::common;

use assert_cmd::Command;
use predicates::prelude::*;
use serde_json::Value;
use std::time::Duration;

fn pkbench() -> Command {
    Command::cargo_bin("pkbench").expect("pkbench binary")
}

#[test]
fn concurrent_run_writes_a_phase_with_intervals_and_latency() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("out");
    pkbench()
        .args(["run", "--workload", "concurrent", "--threads", "2", "--duration", "2s", "--warmup", "0.5s"])
        .args(["-s", "int", "--sync", "normal", "--quiet", "--out"])
        .arg(&out)
        .assert()
        .success()
        .stdout(predicate::str::contains("concurrent-insert").and(predicate::str::contains("lock_wait_ns=")))
        .stderr(predicate::str::contains("concurrent-insert operations in"));
    let doc: Value = serde_json::from_slice(&std::fs::read(out.join("results.json")).unwrap()).unwrap();
    let run = &doc["runs"][0];
    assert_eq!(run["workload"], "concurrent");
    assert_eq!(run["complete"], true);
    assert_eq!(run["settings"]["workload_options"]["threads"], "2");
    assert_eq!(run["settings"]["workload_options"]["duration_s"], "2");
    assert_eq!(run["settings"]["workload_options"]["warmup_s"], "0.5");
    let phase = &run["phases"][0];
    assert_eq!(phase["name"], "concurrent-insert");
    let ops = phase["operations"].as_u64().unwrap();
    let warmup = phase["figures"]["warmup_rows"].as_f64().unwrap() as u64;
    assert_eq!(run["verified_rows"].as_u64(), Some(ops + warmup));
    let intervals = phase["intervals"].as_array().unwrap();
    assert_eq!(intervals.iter().map(|i| i["operations"].as_u64().unwrap()).sum::<u64>(), ops);
    assert!(phase["latency"]["p99_ns"].as_u64().unwrap() > 0);
    let schema: Value = serde_json::from_str(include_str!("../../../../schema/results.schema.json")).unwrap();
    let validator = jsonschema::validator_for(&schema).unwrap();
    assert!(validator.is_valid(&doc), "results.json follows the committed schema");
    let html = std::fs::read_to_string(out.join("report.html")).unwrap();
    assert!(html.contains("Operations per second over time"), "the HTML report charts the intervals");
}

#[test]
fn bad_concurrent_flags_are_one_line_errors_before_anything_runs() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("never");
    for (flags, needle) in [
        (&["--threads", "0"][..], "--threads 0 is out of range: use 1 to 40"),
        (&["--duration", "0s"][..], "--duration 0s is out of range"),
        (&["-s", "uuid7+uuid4-map"][..], "a mapping table needs two"),
        (&["--rate", "0"][..], "--rate 0 sends nothing"),
    ] {
        let output = pkbench()
            .args(["run", "--workload", "concurrent", "--quiet", "--out"])
            .arg(&out)
            .args(flags)
            .output()
            .unwrap();
        assert!(!output.status.success());
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert_eq!(stderr.lines().count(), 1, "{stderr}");
        assert!(stderr.starts_with("Error: ") && stderr.contains(needle), "{stderr}");
        assert!(!out.exists(), "nothing is created for bad flags");
    }
    pkbench()
        .args(["run", "--workload", "concurrent", "--duration", "ten"])
        .assert()
        .failure()
        .stderr(predicate::str::contains("is not a duration: use a number with s, m or h"));
}

#[test]
fn list_mentions_the_concurrent_workload() {
    pkbench().arg("list").assert().success().stdout(predicate::str::contains("concurrent "));
}

#[test]
fn ctrl_c_stops_every_thread_promptly_and_keeps_the_verified_phase() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("out");
    let mut child = std::process::Command::new(assert_cmd::cargo::cargo_bin("pkbench"))
        .args(["run", "--workload", "concurrent", "--threads", "8", "--duration", "10m", "--warmup", "0.5s"])
        .args(["-s", "uuid4,int", "--sync", "normal", "-q", "--out"])
        .arg(&out)
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    // Rows committed after the warm-up are measured: wait for the first row, then for the
    // warm-up (0.5 s, with as much again for the clients' head start on its clock), then for
    // more rows than there were at that point.
    let rows = || stored_rows(&out.join("uuid4.sqlite"));
    common::wait_until("the first row", Duration::from_secs(120), || rows() > 0);
    std::thread::sleep(Duration::from_secs(1));
    let warm = rows();
    common::wait_until("a row after the warm-up", Duration::from_secs(120), || rows() > warm);
    let status = std::process::Command::new("kill").args(["-INT", &child.id().to_string()]).status().unwrap();
    assert!(status.success());
    let started = std::time::Instant::now();
    let output = loop {
        if child.try_wait().unwrap().is_some() {
            break child.wait_with_output().unwrap();
        }
        assert!(started.elapsed() < Duration::from_secs(10), "pkbench did not stop after Ctrl-C");
        std::thread::sleep(Duration::from_millis(50));
    };
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(130), "stderr: {stderr}");
    assert!(stderr.contains("Interrupted"), "{stderr}");
    let doc: Value = serde_json::from_slice(&std::fs::read(out.join("results.json")).unwrap()).unwrap();
    let runs = doc["runs"].as_array().unwrap();
    assert_eq!(runs.len(), 1, "the second strategy never starts");
    let run = &runs[0];
    assert_eq!(run["complete"], false);
    let phase = &run["phases"][0];
    let ops = phase["operations"].as_u64().unwrap();
    assert!(ops > 0, "what was measured before Ctrl-C is kept");
    let warmup = phase["figures"]["warmup_rows"].as_f64().unwrap() as u64;
    assert_eq!(run["verified_rows"].as_u64(), Some(ops + warmup), "and verified");
    assert!(!out.join("uuid4.sqlite").exists(), "database left behind");
}

/// Rows in the `bench` table of the SQLite database at `path` that a run is writing (0 while
/// there is no database or no table yet).
fn stored_rows(path: &std::path::Path) -> i64 {
    let flags = rusqlite::OpenFlags::SQLITE_OPEN_READ_ONLY;
    let Ok(conn) = rusqlite::Connection::open_with_flags(path, flags) else { return 0 };
    conn.query_row("SELECT count(*) FROM bench", [], |r| r.get(0)).unwrap_or(0)
}

#[test]
fn the_concurrent_header_gives_each_strategy_its_rows_and_the_summary_its_figures() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("out");
    pkbench()
        .args(["run", "--workload", "concurrent", "--threads", "2", "--duration", "1s", "--warmup", "0s"])
        .args(["-s", "int,uuid4", "--sync", "normal", "--quiet", "--out"])
        .arg(&out)
        .assert()
        .success();
    let doc: Value = serde_json::from_slice(&std::fs::read(out.join("results.json")).unwrap()).unwrap();
    let rows = |i: usize| doc["runs"][i]["phases"][0]["rows"].as_u64().unwrap();
    let md = std::fs::read_to_string(out.join("results.md")).unwrap();
    let header = md.lines().find(|l| l.contains(" · concurrent · ")).unwrap();
    assert!(header.contains(&format!("rows int {}, uuid4 {}", rows(0), rows(1))), "{header}");
    assert!(!header.contains("in batches of"), "no batches in a concurrent run: {header}");
    // The summary shows the measured rate, not dashes.
    let int_row = md.lines().find(|l| l.starts_with("| int |")).unwrap();
    let rate = int_row.split('|').map(str::trim).nth(7).unwrap();
    assert!(rate.ends_with('k') || rate.parse::<f64>().is_ok(), "rows/s of int: {int_row}");
    assert!(int_row.contains("1.00×"), "int is the baseline: {int_row}");
}
