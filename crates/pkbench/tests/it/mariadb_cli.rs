//! `pkbench run --engine mariadb`: a managed server end to end, and the refusals a user can hit.

use crate::common;

use assert_cmd::Command;
use serde_json::Value;
use std::time::Duration;

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

/// The managed servers of pkbench process `pid` still running (their command lines); MyRocks'
/// are MariaDB servers too.
pub(crate) fn servers_left(pid: u32) -> Vec<String> {
    let mark = format!("pkbench-mariadb-{pid}-");
    let ps = std::process::Command::new("ps").args(["-eo", "args"]).output().unwrap();
    String::from_utf8_lossy(&ps.stdout)
        .lines()
        .filter(|l| l.contains(&mark) && !l.contains("ps -eo"))
        .map(String::from)
        .collect()
}

/// Whether a server folder of pkbench process `pid` is in `parent`.
pub(crate) fn folder_left(parent: &std::path::Path, pid: u32) -> bool {
    let mark = format!("pkbench-mariadb-{pid}-");
    std::fs::read_dir(parent)
        .unwrap()
        .filter_map(|e| e.ok())
        .any(|e| e.file_name().to_string_lossy().starts_with(&mark))
}

/// A managed run of many rows on `engine` (a MariaDB server), its server's folder in `data_dir`,
/// results in `out`.
fn long_run(engine: &str, data_dir: &std::path::Path, out: &std::path::Path) -> std::process::Child {
    std::process::Command::new(assert_cmd::cargo::cargo_bin("pkbench"))
        .env_remove("PKBENCH_PG_URL")
        .env_remove("PKBENCH_MYSQL_URL")
        .args(["run", "--engine", engine, "-s", "int", "-n", "50M", "-b", "20k", "--cache-mb", "16", "-q"])
        .arg("--data-dir")
        .arg(data_dir)
        .arg("--out")
        .arg(out)
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap()
}

/// Sends `signal` to a managed run on `engine` once rows flow; checks the exit status, the
/// batches kept, and that no server and no server folder is left.
pub(crate) fn a_signal_keeps_results_and_leaves_no_server(engine: &str, signal: &str, code: i32) {
    let dir = tempfile::tempdir().unwrap();
    let mut child = long_run(engine, dir.path(), &dir.path().join("out"));
    common::wait_for_a_batch(&dir.path().join("out"));
    assert!(std::process::Command::new("kill").args([signal, &child.id().to_string()]).status().unwrap().success());
    let started = std::time::Instant::now();
    let status = loop {
        if let Some(s) = child.try_wait().unwrap() {
            break s;
        }
        assert!(started.elapsed().as_secs() < 60, "pkbench did not stop after {signal}");
        std::thread::sleep(std::time::Duration::from_millis(100));
    };
    assert_eq!(status.code(), Some(code));
    assert_eq!(servers_left(child.id()), Vec::<String>::new(), "managed servers left running");
    assert!(!folder_left(dir.path(), child.id()), "the managed server's directory was left behind");
    let doc: Value = serde_json::from_slice(&std::fs::read(dir.path().join("out/results.json")).unwrap()).unwrap();
    let batches = doc["runs"][0]["batches"].as_array().unwrap();
    assert!(!batches.is_empty(), "batches measured before {signal} are kept");
    assert!(batches.iter().enumerate().all(|(i, b)| b["index"] == i), "every batch up to the signal, in order");
    let report = pkbench()
        .arg("report")
        .arg(dir.path().join("out"))
        .args(["--format", "md", "-o"])
        .arg(dir.path().join("r.md"))
        .output()
        .unwrap();
    assert!(report.status.success(), "the kept results render: {}", String::from_utf8_lossy(&report.stderr));
}

#[test]
fn sigterm_and_sighup_during_a_managed_run_keep_results_and_leave_no_server() {
    a_signal_keeps_results_and_leaves_no_server("mariadb", "-TERM", 143);
    a_signal_keeps_results_and_leaves_no_server("mariadb", "-HUP", 129);
}

#[test]
fn sigkill_keeps_the_journal_and_the_next_run_removes_the_server_folder() {
    let dir = tempfile::tempdir().unwrap();
    let killed = dir.path().join("killed");
    let mut child = long_run("mariadb", dir.path(), &killed);
    common::wait_for_a_batch(&killed);
    child.kill().unwrap(); // SIGKILL: no handler runs
    child.wait().unwrap();
    // The server dies with its parent (parent-death signal).
    common::wait_until("the managed servers of a killed run stop", Duration::from_secs(30), || {
        servers_left(child.id()).is_empty()
    });
    assert_eq!(servers_left(child.id()), Vec::<String>::new(), "managed servers left running");
    assert!(folder_left(dir.path(), child.id()), "a SIGKILLed run cannot remove its server folder itself");
    let report = pkbench()
        .arg("report")
        .arg(&killed)
        .args(["--format", "md", "-o"])
        .arg(dir.path().join("k.md"))
        .output()
        .unwrap();
    assert!(report.status.success(), "{}", String::from_utf8_lossy(&report.stderr));
    let stderr = String::from_utf8_lossy(&report.stderr);
    // "1 batch" or "N batches": as many as were journaled before the kill.
    assert!(stderr.contains(" batch") && stderr.contains(" of 'int' recovered"), "{stderr}");
    let out = pkbench()
        .args(["run", "--engine", "mariadb", "-s", "int", "-n", "1k", "-b", "1k", "-q", "--data-dir"])
        .arg(dir.path())
        .arg("--out")
        .arg(dir.path().join("next"))
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    assert!(String::from_utf8_lossy(&out.stderr).contains("left by a pkbench run that was killed"));
    assert!(!folder_left(dir.path(), child.id()), "the next run removes the killed run's server folder");
}

#[test]
fn server_settings_reach_the_server_and_results_and_reserved_ones_are_refused() {
    let dir = tempfile::tempdir().unwrap();
    pkbench()
        .args(["run", "--engine", "mariadb", "-s", "int", "-n", "2k", "-b", "1k", "-q"])
        .args(["--server-setting", "innodb-log-file-size=256M", "--server-setting", "innodb_doublewrite=OFF", "-o"])
        .arg(dir.path().join("out"))
        .assert()
        .success();
    let doc: Value = serde_json::from_slice(&std::fs::read(dir.path().join("out/results.json")).unwrap()).unwrap();
    let engine = &doc["runs"][0]["settings"]["engine"];
    assert_eq!(engine["innodb_log_file_size"], "268435456", "{engine}");
    assert_eq!(engine["innodb_doublewrite"], "OFF", "{engine}");
    assert_eq!(engine["given_with_server_setting"], "innodb_log_file_size,innodb_doublewrite", "{engine}");
    let out = pkbench()
        .args(["run", "--engine", "mariadb", "-n", "10", "--server-setting", "no_such_thing=1"])
        .output()
        .unwrap();
    assert!(!out.status.success());
    assert!(last_line(&out).contains("unknown variable 'no_such_thing=1'"), "{}", last_line(&out));
    let out = pkbench()
        .args(["run", "--engine", "mariadb", "-n", "10", "--server-setting", "innodb_page_size=4k"])
        .output()
        .unwrap();
    assert!(last_line(&out).contains("cannot be changed on a managed MariaDB server"), "{}", last_line(&out));
}
