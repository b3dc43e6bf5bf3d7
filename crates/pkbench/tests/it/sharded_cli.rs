//! `pkbench run --engine spider | postgres-fdw`: the sharded engines end to end, their flags'
//! errors, and Ctrl-C during a run leaving no server and no folder (head and every shard).

use crate::common;

use assert_cmd::Command;
use predicates::str::contains;
use serde_json::Value;
use std::path::Path;

fn pkbench() -> Command {
    let mut cmd = Command::cargo_bin("pkbench").expect("pkbench binary");
    cmd.env_remove("PKBENCH_PG_URL").env_remove("PKBENCH_MYSQL_URL");
    cmd
}

/// Server processes and folders of pkbench process `pid` (any engine) left in `parent`.
fn leftovers(parent: &Path, pid: u32) -> (Vec<String>, Vec<String>) {
    let marks = [format!("pkbench-postgres-{pid}-"), format!("pkbench-mariadb-{pid}-")];
    let ps = std::process::Command::new("ps").args(["-eo", "args"]).output().unwrap();
    let procs = String::from_utf8_lossy(&ps.stdout)
        .lines()
        .filter(|l| marks.iter().any(|m| l.contains(m)) && !l.contains("ps -eo"))
        .map(String::from)
        .collect();
    let dirs = std::fs::read_dir(parent)
        .unwrap()
        .filter_map(|e| e.ok())
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .filter(|n| marks.iter().any(|m| n.starts_with(m)))
        .collect();
    (procs, dirs)
}

#[test]
fn a_sharded_run_writes_every_shards_rows_and_the_skew_table() {
    for engine in ["spider", "postgres-fdw"] {
        let dir = tempfile::tempdir().unwrap();
        pkbench()
            .args([
                "run",
                "--engine",
                engine,
                "--shards",
                "3",
                "-s",
                "int,uuid4",
                "-n",
                "6k",
                "-b",
                "2k",
                "--cache-mb",
                "16",
            ])
            .arg("--out")
            .arg(dir.path())
            .assert()
            .success()
            .stdout(contains("Where each batch's rows landed, by shard"))
            .stdout(contains("hottest shard's share"));
        let doc: Value = serde_json::from_slice(&std::fs::read(dir.path().join("results.json")).unwrap()).unwrap();
        let schema: Value = serde_json::from_str(include_str!("../../../../schema/results.schema.json")).unwrap();
        let validator = jsonschema::validator_for(&schema).unwrap();
        let errors: Vec<String> =
            validator.iter_errors(&doc).map(|e| format!("{e} at {}", e.instance_path())).collect();
        assert!(errors.is_empty(), "{engine}: results.json follows the schema: {errors:?}");
        for run in doc["runs"].as_array().unwrap() {
            assert_eq!(run["engine"], engine);
            assert_eq!(run["verified_rows"], 6000);
            for batch in run["batches"].as_array().unwrap() {
                let shards = batch["shards"].as_array().unwrap();
                assert_eq!(shards.len(), 3);
                let rows: u64 = shards.iter().map(|s| s["rows"].as_u64().unwrap()).sum();
                assert_eq!(rows, 2000, "{engine}: {batch}");
            }
        }
        let md = std::fs::read_to_string(dir.path().join("results.md")).unwrap_or_default();
        let report = std::fs::read_to_string(dir.path().join("report.html")).unwrap();
        assert!(report.contains("Where each batch"), "{engine}: the report has the shard chart{md}");
    }
}

#[test]
fn sharded_flags_say_what_to_do() {
    let cases: [(&[&str], &str); 5] = [
        (&["--engine", "postgres", "--shards", "4"], "--shards applies to the sharded engines"),
        (&["--engine", "sqlite", "--sharding", "hash"], "--sharding applies to the sharded engines"),
        (&["--engine", "spider", "--shards", "1"], "--shards 1 is out of range: use 2 to 16"),
        (&["--engine", "postgres-fdw", "--url", "postgres://localhost/x"], "leave out --url"),
        (&["--engine", "spider", "-s", "int+uuid4"], "needs an index across all shards"),
    ];
    for (args, message) in cases {
        let dir = tempfile::tempdir().unwrap();
        pkbench()
            .arg("run")
            .args(args)
            .args(["-n", "1k", "-b", "1k", "--out"])
            .arg(dir.path().join("out"))
            .assert()
            .failure()
            .stderr(contains(message));
    }
}

#[test]
fn ctrl_c_during_a_sharded_run_leaves_no_server_and_no_folder() {
    for engine in ["spider", "postgres-fdw"] {
        let dir = tempfile::tempdir().unwrap();
        let out = dir.path().join("out");
        let mut child = std::process::Command::new(assert_cmd::cargo::cargo_bin("pkbench"))
            .env_remove("PKBENCH_PG_URL")
            .env_remove("PKBENCH_MYSQL_URL")
            .args(["run", "--engine", engine, "-s", "uuid4", "-n", "50M", "-b", "20k", "-q", "--cache-mb", "16"])
            .arg("--data-dir")
            .arg(dir.path())
            .arg("--out")
            .arg(&out)
            .stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::null())
            .spawn()
            .unwrap();
        common::wait_for_a_batch(&out);
        let (procs, _) = leftovers(dir.path(), child.id());
        assert!(procs.len() >= 5, "{engine}: a head and four shards run: {procs:?}");
        assert!(std::process::Command::new("kill").args(["-INT", &child.id().to_string()]).status().unwrap().success());
        let started = std::time::Instant::now();
        let status = loop {
            if let Some(s) = child.try_wait().unwrap() {
                break s;
            }
            assert!(started.elapsed().as_secs() < 60, "{engine}: pkbench did not stop after Ctrl-C");
            std::thread::sleep(std::time::Duration::from_millis(100));
        };
        assert_eq!(status.code(), Some(130), "{engine}");
        assert_eq!(leftovers(dir.path(), child.id()), (vec![], vec![]), "{engine}: nothing is left");
        let doc: Value = serde_json::from_slice(&std::fs::read(out.join("results.json")).unwrap()).unwrap();
        assert!(!doc["runs"][0]["batches"].as_array().unwrap().is_empty(), "{engine}: measured batches are kept");
    }
}
