//! `pkbench run --engine myrocks`: a managed MariaDB server with RocksDB tables end to end, its
//! counters in results.json and the table, and signals that leave no server behind.

use super::mariadb_cli::{a_signal_keeps_results_and_leaves_no_server, folder_left, servers_left};
use serde_json::Value;

#[test]
fn managed_myrocks_run_end_to_end() {
    let dir = tempfile::tempdir().unwrap();
    let child = std::process::Command::new(assert_cmd::cargo::cargo_bin("pkbench"))
        .env_remove("PKBENCH_MYSQL_URL")
        .env_remove("PKBENCH_MYROCKS_URL")
        .args(["run", "--engine", "myrocks", "-s", "int,uuid4", "-n", "20k", "-b", "5k", "-q"])
        .args(["--server-setting", "rocksdb_default_cf_options=write_buffer_size=256k", "--data-dir"])
        .arg(dir.path())
        .arg("--out")
        .arg(dir.path().join("out"))
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let pid = child.id();
    let out = child.wait_with_output().unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    assert!(stdout.contains("write amplification") && stdout.contains("compaction bytes written /row"), "{stdout}");
    assert!(stdout.contains("LSM levels after the run") && stdout.contains("L0: files, MiB (score)"), "{stdout}");
    let doc: Value = serde_json::from_slice(&std::fs::read(dir.path().join("out/results.json")).unwrap()).unwrap();
    assert_eq!(doc["environment"]["engine"], "myrocks");
    for run in doc["runs"].as_array().unwrap() {
        assert_eq!(run["verified_rows"], 20_000);
        assert!(run["size_bytes"].as_u64().unwrap() > 0);
        // Within the counter budget a batch's counts may go to a later batch (span 0).
        let read = run["batches"].as_array().unwrap().iter().filter(|b| b["counters_span"] != 0);
        for batch in read {
            for name in
                ["wal_bytes", "ingest_bytes", "flush_bytes", "compaction_write_bytes", "bloom_checks", "keys_read"]
            {
                assert!(batch["counters"][name].is_u64(), "{name} in {}", batch["counters"]);
            }
            assert!(batch["lsm_levels"].is_array(), "{batch}");
        }
    }
    let schema: Value = serde_json::from_str(include_str!("../../../../schema/results.schema.json")).unwrap();
    let validator = jsonschema::validator_for(&schema).unwrap();
    assert!(validator.is_valid(&doc), "results.json follows the committed schema");
    assert!(!folder_left(dir.path(), pid), "the managed server's folder was left behind");
    assert_eq!(servers_left(pid), Vec::<String>::new(), "managed servers left running");
}

#[test]
fn sigterm_and_ctrl_c_during_a_managed_run_keep_results_and_leave_no_server() {
    a_signal_keeps_results_and_leaves_no_server("myrocks", "-TERM", 143);
    a_signal_keeps_results_and_leaves_no_server("myrocks", "-INT", 130);
}
