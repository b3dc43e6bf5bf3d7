//! `pkbench run --engine mariadb`: a managed server end to end, and the refusals a user can hit.

use assert_cmd::Command;
use serde_json::Value;

fn pkbench() -> Command {
    let mut cmd = Command::cargo_bin("pkbench").expect("pkbench binary");
    // A managed run must not pick up a server from the environment.
    cmd.env_remove("PKBENCH_PG_URL").env_remove("PKBENCH_MYSQL_URL");
    cmd
}

fn last_line(out: &std::process::Output) -> String {
    String::from_utf8_lossy(&out.stderr).lines().last().unwrap_or_default().to_string()
}

#[test]
fn managed_mariadb_run_end_to_end() {
    let dir = tempfile::tempdir().unwrap();
    let child = std::process::Command::new(assert_cmd::cargo::cargo_bin("pkbench"))
        .env_remove("PKBENCH_PG_URL")
        .env_remove("PKBENCH_MYSQL_URL")
        .args(["run", "--engine", "mariadb", "-s", "int,uuid4-text", "-n", "4k", "-b", "2k", "-q", "--out"])
        .arg(dir.path())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let pid = child.id();
    let out = child.wait_with_output().unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let doc: Value = serde_json::from_slice(&std::fs::read(dir.path().join("results.json")).unwrap()).unwrap();
    assert_eq!(doc["environment"]["engine"], "mariadb");
    for run in doc["runs"].as_array().unwrap() {
        assert_eq!(run["verified_rows"], 4000);
        assert!(run["batches"][0]["counters"]["cache_hits"].as_u64().unwrap() > 0);
    }
    let left = std::fs::read_dir(std::env::temp_dir())
        .unwrap()
        .filter_map(|e| e.ok())
        .any(|e| e.file_name().to_string_lossy().starts_with(&format!("pkbench-mariadb-{pid}-")));
    assert!(!left, "the managed server's directory was left behind");
}

#[test]
fn rowid_strategies_and_tiny_pools_are_refused_in_one_line() {
    let out = pkbench().args(["run", "--engine", "mariadb", "-s", "uuid4-rowid", "-n", "10"]).output().unwrap();
    assert!(!out.status.success());
    assert!(last_line(&out).contains("InnoDB always clusters rows by the primary key"), "{}", last_line(&out));
    let out = pkbench().args(["run", "--engine", "mysql", "--cache-mb", "2", "-n", "10"]).output().unwrap();
    assert!(!out.status.success());
    assert!(last_line(&out).contains("below InnoDB's minimum buffer pool of 6 MiB"), "{}", last_line(&out));
}

#[test]
fn an_unreachable_url_never_shows_the_password() {
    let port = pkbench_core::engines::server::free_port().unwrap();
    let url = format!("mysql://root:hunter22@127.0.0.1:{port}/app");
    let out = pkbench().args(["run", "--engine", "mariadb", "-n", "10", "--url", &url]).output().unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success());
    assert!(stderr.contains("could not connect to mysql://root:***@127.0.0.1"), "{stderr}");
    assert!(!stderr.contains("hunter22"), "{stderr}");
}
