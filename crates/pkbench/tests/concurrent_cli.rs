//! `pkbench run --workload concurrent` end to end on SQLite, its flag errors, and `list`.

use assert_cmd::Command;
use predicates::prelude::*;
use serde_json::Value;

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
    let schema: Value = serde_json::from_str(include_str!("../../../schema/results.schema.json")).unwrap();
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
