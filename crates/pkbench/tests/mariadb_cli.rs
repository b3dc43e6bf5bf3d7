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

#[test]
fn sigterm_during_a_managed_run_keeps_results_and_leaves_no_server() {
    let dir = tempfile::tempdir().unwrap();
    let mut child = std::process::Command::new(assert_cmd::cargo::cargo_bin("pkbench"))
        .env_remove("PKBENCH_PG_URL")
        .env_remove("PKBENCH_MYSQL_URL")
        .args(["run", "--engine", "mariadb", "-s", "int", "-n", "50M", "-b", "20k", "--cache-mb", "16", "-q", "--out"])
        .arg(dir.path())
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    // Wait until the server is up and rows are flowing.
    std::thread::sleep(std::time::Duration::from_secs(8));
    assert!(std::process::Command::new("kill").args(["-TERM", &child.id().to_string()]).status().unwrap().success());
    let started = std::time::Instant::now();
    let status = loop {
        if let Some(s) = child.try_wait().unwrap() {
            break s;
        }
        assert!(started.elapsed().as_secs() < 60, "pkbench did not stop after SIGTERM");
        std::thread::sleep(std::time::Duration::from_millis(100));
    };
    assert_eq!(status.code(), Some(143));
    let mark = format!("pkbench-mariadb-{}-", child.id());
    let ps = std::process::Command::new("ps").args(["-eo", "args"]).output().unwrap();
    let left: Vec<String> = String::from_utf8_lossy(&ps.stdout)
        .lines()
        .filter(|l| l.contains(&mark) && !l.contains("ps -eo"))
        .map(String::from)
        .collect();
    assert!(left.is_empty(), "managed servers left running: {left:?}");
    let dirs_left = std::fs::read_dir(std::env::temp_dir())
        .unwrap()
        .filter_map(|e| e.ok())
        .any(|e| e.file_name().to_string_lossy().starts_with(&mark));
    assert!(!dirs_left, "the managed server's directory was left behind");
    let doc: Value = serde_json::from_slice(&std::fs::read(dir.path().join("results.json")).unwrap()).unwrap();
    assert!(!doc["runs"][0]["batches"].as_array().unwrap().is_empty(), "batches measured before SIGTERM are kept");
}
