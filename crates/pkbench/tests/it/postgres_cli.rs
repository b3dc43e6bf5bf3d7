//! `pkbench run --engine postgres`: a managed cluster end to end, and the user-server paths
//! (wrong password, unreachable URL, a database holding a table named like ours, the password
//! never shown). A throwaway cluster with password authentication is started by the test.

use crate::common;

use assert_cmd::Command;
use pkbench_core::engines::postgres::ManagedPostgres;
use serde_json::Value;
use std::time::Duration;

fn pkbench() -> Command {
    let mut cmd = Command::cargo_bin("pkbench").expect("pkbench binary");
    // A managed run must not pick up a server from the environment.
    cmd.env_remove("PKBENCH_PG_URL").env_remove("PKBENCH_MYSQL_URL");
    cmd
}

/// No PostgreSQL server started by pkbench process `pid` is left running.
fn assert_no_managed_server_left(pid: u32) {
    let left = managed_servers_left(pid);
    assert!(left.is_empty(), "managed servers left running: {left:?}");
}

/// The command lines of the PostgreSQL servers pkbench process `pid` started that still run.
fn managed_servers_left(pid: u32) -> Vec<String> {
    let ps = std::process::Command::new("ps").args(["-eo", "args"]).output().unwrap();
    let text = String::from_utf8_lossy(&ps.stdout);
    let mark = format!("pkbench-postgres-{pid}-");
    text.lines().filter(|l| l.contains(&mark) && !l.contains("ps -eo")).map(String::from).collect()
}

/// Rows in `pkbench.bench` on the managed cluster that pkbench process `pid` runs in `data_dir`
/// (through its Unix socket there); 0 while there is no cluster or no table yet.
fn managed_rows(data_dir: &std::path::Path, pid: u32) -> i64 {
    let mark = format!("pkbench-postgres-{pid}-");
    let Some(server) = std::fs::read_dir(data_dir)
        .unwrap()
        .filter_map(|e| e.ok())
        .find(|e| e.file_name().to_string_lossy().starts_with(&mark))
    else {
        return 0;
    };
    let mut config = postgres::Config::new();
    config.host_path(server.path()).port(5432).user("postgres").dbname("postgres");
    let Ok(mut client) = config.connect(postgres::NoTls) else { return 0 };
    client.query_one("SELECT count(*) FROM pkbench.bench", &[]).map_or(0, |r| r.get(0))
}

/// Whether a managed-server directory of process `pid` is left in the temp folder.
fn temp_dir_left(pid: u32) -> bool {
    server_dir_left(&std::env::temp_dir(), pid)
}

/// Whether a managed-server directory of process `pid` is left in `parent`.
fn server_dir_left(parent: &std::path::Path, pid: u32) -> bool {
    std::fs::read_dir(parent)
        .unwrap()
        .filter_map(|e| e.ok())
        .any(|e| e.file_name().to_string_lossy().starts_with(&format!("pkbench-postgres-{pid}-")))
}

#[test]
fn managed_postgres_run_end_to_end() {
    let dir = tempfile::tempdir().unwrap();
    let child = std::process::Command::new(assert_cmd::cargo::cargo_bin("pkbench"))
        .env_remove("PKBENCH_PG_URL")
        .env_remove("PKBENCH_MYSQL_URL")
        .args(["run", "--engine", "postgres", "-s", "int,uuid4", "-n", "5k", "-b", "1k", "-q", "--out"])
        .arg(dir.path())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let pid = child.id();
    let out = child.wait_with_output().unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    assert!(String::from_utf8_lossy(&out.stdout).contains("uuid4"));
    let doc: Value = serde_json::from_slice(&std::fs::read(dir.path().join("results.json")).unwrap()).unwrap();
    assert_eq!(doc["environment"]["engine"], "postgres");
    for run in doc["runs"].as_array().unwrap() {
        assert_eq!(run["verified_rows"], 5000);
        assert!(run["batches"][0]["counters"]["wal_bytes"].as_u64().unwrap() > 0);
        let scope = run["settings"]["engine"]["counter_scope"].as_str().unwrap();
        assert!(scope.contains("exact here: the managed server runs only this case's statements"), "{scope}");
    }
    assert_no_managed_server_left(pid);
    assert!(!temp_dir_left(pid), "the managed server's directory was left behind");
}

#[test]
fn a_cache_larger_than_the_machine_is_refused_before_any_server_starts() {
    let out = pkbench().args(["run", "--engine", "postgres", "--cache-mb", "1000000", "-q"]).output().unwrap();
    assert!(!out.status.success());
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("does not fit in this machine's memory") && stderr.contains("lower --cache-mb"),
        "{stderr}"
    );
    assert!(!stderr.contains("Starting a throwaway"), "{stderr}");
}

/// As root, PostgreSQL runs as 'postgres': a private temporary folder (as `mktemp -d` makes
/// them, mode 0700) is refused in one line that says what to do, and nothing is left in it.
#[test]
fn a_private_temporary_folder_gets_one_line_saying_what_to_do() {
    use std::os::unix::fs::PermissionsExt;
    let root = tempfile::tempdir().unwrap();
    let private = root.path().join("private");
    std::fs::create_dir(&private).unwrap();
    std::fs::set_permissions(&private, std::fs::Permissions::from_mode(0o700)).unwrap();
    let out = pkbench()
        .env("TMPDIR", &private)
        .args(["run", "--engine", "postgres", "-s", "int", "-n", "1k", "-b", "1k", "-q", "--out"])
        .arg(root.path().join("r"))
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success(), "{stderr}");
    let error: Vec<&str> = stderr.lines().filter(|l| l.starts_with("Error")).collect();
    assert_eq!(error.len(), 1, "{stderr}");
    assert!(
        error[0].contains("cannot enter") && error[0].contains("--data-dir") && error[0].contains("chmod o+x"),
        "{stderr}"
    );
    assert!(std::fs::read_dir(&private).unwrap().next().is_none(), "a server folder was left in {}", private.display());
}

#[test]
fn a_server_folder_in_memory_is_pointed_out() {
    let shm = std::path::Path::new("/dev/shm");
    assert!(shm.is_dir(), "this test needs /dev/shm (a tmpfs on Linux)");
    let tmp = tempfile::tempdir_in(shm).unwrap();
    let dir = tempfile::tempdir().unwrap();
    let out = pkbench()
        .env("TMPDIR", tmp.path())
        .args(["run", "--engine", "postgres", "-s", "int", "-n", "1k", "-b", "1k", "-q", "--out"])
        .arg(dir.path().join("r"))
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{stderr}");
    assert!(stderr.contains("in memory (tmpfs): its figures leave the disk out"), "{stderr}");
    // Where the temp folder is on disk, nothing is said.
    let kind = std::process::Command::new("stat").args(["-f", "-c", "%T"]).arg(std::env::temp_dir()).output().unwrap();
    if !String::from_utf8_lossy(&kind.stdout).contains("tmpfs") {
        let out = pkbench()
            .args(["run", "--engine", "postgres", "-s", "int", "-n", "1k", "-b", "1k", "-q", "--out"])
            .arg(dir.path().join("disk"))
            .output()
            .unwrap();
        assert!(!String::from_utf8_lossy(&out.stderr).contains("in memory (tmpfs)"));
    }
}

#[test]
fn sqlite_only_flags_are_rejected_for_postgres() {
    let out = pkbench().args(["run", "--engine", "postgres", "--keep-db", "-n", "10"]).output().unwrap();
    assert!(!out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains("--keep-db applies to --engine sqlite only"));
}

#[test]
fn unreachable_url_is_one_clear_line_without_the_password() {
    let port = pkbench_core::engines::server::free_port().unwrap();
    let url = format!("postgres://bob:topsecret@127.0.0.1:{port}/app?connect_timeout=3");
    let dir = tempfile::tempdir().unwrap();
    let out = pkbench()
        .args(["run", "--engine", "postgres", "-n", "10", "--url", &url, "--out"])
        .arg(dir.path())
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success());
    assert!(stderr.contains("could not connect to postgres://bob:***@127.0.0.1"), "{stderr}");
    assert!(!stderr.contains("topsecret"), "{stderr}");
    assert_eq!(stderr.lines().filter(|l| l.starts_with("Error")).count(), 1, "{stderr}");
}

/// A password-protected cluster holding a user table named like pkbench's.
fn user_server() -> (ManagedPostgres, String) {
    let server =
        ManagedPostgres::start(&Default::default(), 16).expect("could not start a PostgreSQL server for the test");
    let mut client = server.config().connect(postgres::NoTls).unwrap();
    // One statement per call: CREATE DATABASE cannot run inside the implicit transaction of a batch.
    for sql in ["CREATE ROLE app LOGIN PASSWORD 'Sw0rdfish'", "CREATE DATABASE appdb OWNER app"] {
        client.batch_execute(sql).unwrap();
    }
    let mut app = server.config().dbname("appdb").connect(postgres::NoTls).unwrap();
    app.batch_execute("CREATE TABLE bench (id int PRIMARY KEY, note text); INSERT INTO bench VALUES (1, 'mine'); ALTER TABLE bench OWNER TO app;")
        .unwrap();
    // Require passwords from now on (the test cluster starts with trust authentication).
    let hba: String = client.query_one("SHOW hba_file", &[]).unwrap().get(0);
    std::fs::write(&hba, "local all postgres trust\nlocal all all scram-sha-256\n").unwrap();
    client.batch_execute("SELECT pg_reload_conf()").unwrap();
    // The managed cluster listens only on its Unix socket: the URL's host is the socket folder.
    let socket = server.dir().display().to_string().replace('/', "%2F");
    let url = format!("postgres://app:Sw0rdfish@{socket}:{}/appdb", server.port());
    (server, url)
}

#[test]
fn a_user_server_is_used_only_inside_our_own_schema() {
    let (server, url) = user_server();
    let dir = tempfile::tempdir().unwrap();
    let out = pkbench()
        .args(["run", "--engine", "postgres", "-s", "int,uuid7", "-n", "2k", "-b", "1k", "-q", "--url", &url, "--out"])
        .arg(dir.path())
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let all = format!(
        "{}{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr),
        std::fs::read_to_string(dir.path().join("results.json")).unwrap()
    );
    assert!(!all.contains("Sw0rdfish"), "the password leaked");
    assert!(all.contains("app:***@%2Ftmp"), "the redacted URL is recorded");
    let doc: Value = serde_json::from_slice(&std::fs::read(dir.path().join("results.json")).unwrap()).unwrap();
    let scope = doc["runs"][0]["settings"]["engine"]["counter_scope"].as_str().unwrap();
    assert!(scope.contains("on this shared server they include other sessions' work"), "{scope}");
    let mut client = server.config().dbname("appdb").connect(postgres::NoTls).unwrap();
    let note: String = client.query_one("SELECT note FROM public.bench WHERE id = 1", &[]).unwrap().get(0);
    assert_eq!(note, "mine", "the user's table was touched");
    let ours: i64 =
        client.query_one("SELECT count(*) FROM pg_namespace WHERE nspname LIKE 'pkbench%'", &[]).unwrap().get(0);
    assert_eq!(ours, 0, "pkbench's schema was not dropped");

    let wrong = url.replace("Sw0rdfish", "wrong-pass");
    let out = pkbench()
        .args(["run", "--engine", "postgres", "-n", "10", "--url", &wrong, "--out"])
        .arg(dir.path().join("w"))
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success());
    assert!(stderr.contains("password authentication failed"), "{stderr}");
    assert!(!stderr.contains("wrong-pass"), "{stderr}");
}

/// Sends `signal` to a managed PostgreSQL run once rows flow, and checks it stops with `code`,
/// keeps the batches measured so far, and leaves no server and no server folder.
fn a_signal_during_a_managed_run_leaves_no_server_and_no_directory(signal: &str, code: i32) {
    let dir = tempfile::tempdir().unwrap();
    let mut child = std::process::Command::new(assert_cmd::cargo::cargo_bin("pkbench"))
        .env_remove("PKBENCH_PG_URL")
        .env_remove("PKBENCH_MYSQL_URL")
        .args(["run", "--engine", "postgres", "-s", "uuid4", "-n", "50M", "-b", "20k", "-q", "--out"])
        .arg(dir.path())
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    common::wait_for_a_batch(dir.path());
    assert!(std::process::Command::new("kill").args([signal, &child.id().to_string()]).status().unwrap().success());
    let started = std::time::Instant::now();
    let status = loop {
        if let Some(s) = child.try_wait().unwrap() {
            break s;
        }
        assert!(started.elapsed().as_secs() < 30, "pkbench did not stop after {signal}");
        std::thread::sleep(std::time::Duration::from_millis(100));
    };
    assert_eq!(status.code(), Some(code));
    assert_no_managed_server_left(child.id());
    assert!(!temp_dir_left(child.id()), "the managed server's directory was left behind");
    if signal != "-INT" {
        let doc: Value = serde_json::from_slice(&std::fs::read(dir.path().join("results.json")).unwrap()).unwrap();
        let batches = doc["runs"][0]["batches"].as_array().unwrap();
        assert!(!batches.is_empty(), "batches measured before {signal} are kept");
        assert!(batches.iter().enumerate().all(|(i, b)| b["index"] == i), "every batch up to the signal, in order");
        let report = pkbench()
            .arg("report")
            .arg(dir.path())
            .args(["--format", "md", "-o"])
            .arg(dir.path().join("r.md"))
            .output()
            .unwrap();
        assert!(report.status.success(), "the kept results render: {}", String::from_utf8_lossy(&report.stderr));
    }
}

#[test]
fn sigkill_leaves_no_server_and_the_next_run_removes_its_folder_and_says_so() {
    let dir = tempfile::tempdir().unwrap();
    let mut child = std::process::Command::new(assert_cmd::cargo::cargo_bin("pkbench"))
        .env_remove("PKBENCH_PG_URL")
        .env_remove("PKBENCH_MYSQL_URL")
        .args(["run", "--engine", "postgres", "-s", "uuid4", "-n", "50M", "-b", "20k", "-q", "--out"])
        .arg(dir.path().join("killed"))
        // Its own folder for the server: other tests' runs sweep the temp folder of dead runs.
        .arg("--data-dir")
        .arg(dir.path())
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    common::wait_for_a_batch(&dir.path().join("killed"));
    child.kill().unwrap(); // SIGKILL: no handler runs
    assert_eq!(child.wait().unwrap().code(), None, "killed by a signal");
    // The server dies with its parent (parent-death signal).
    common::wait_until("the managed server of a killed run stops", Duration::from_secs(30), || {
        managed_servers_left(child.id()).is_empty()
    });
    assert_no_managed_server_left(child.id());
    assert!(server_dir_left(dir.path(), child.id()), "a SIGKILLed run cannot remove its server folder itself");
    let md = dir.path().join("killed.md");
    let report = pkbench()
        .arg("report")
        .arg(dir.path().join("killed"))
        .args(["--format", "md", "-o"])
        .arg(&md)
        .output()
        .unwrap();
    assert!(report.status.success(), "{}", String::from_utf8_lossy(&report.stderr));
    let stderr = String::from_utf8_lossy(&report.stderr);
    // "1 batch" or "N batches": as many as were journaled before the kill.
    assert!(stderr.contains(" batch") && stderr.contains(" of 'uuid4' recovered"), "{stderr}");
    let out = pkbench()
        .args(["run", "--engine", "postgres", "-s", "int", "-n", "1k", "-b", "1k", "-q", "--out"])
        .arg(dir.path().join("next"))
        .arg("--data-dir")
        .arg(dir.path())
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("left by a pkbench run that was killed"), "{stderr}");
    assert!(!server_dir_left(dir.path(), child.id()), "the next run removes the killed run's server folder");
}

#[test]
fn ctrl_c_during_a_managed_run_leaves_no_server_and_no_directory() {
    a_signal_during_a_managed_run_leaves_no_server_and_no_directory("-INT", 130);
}

#[test]
fn sigterm_and_sighup_during_a_managed_run_stop_it_like_ctrl_c() {
    a_signal_during_a_managed_run_leaves_no_server_and_no_directory("-TERM", 143);
    a_signal_during_a_managed_run_leaves_no_server_and_no_directory("-HUP", 129);
}

#[test]
fn server_settings_reach_the_server_and_results_and_the_folder_goes_in_data_dir() {
    let dir = tempfile::tempdir().unwrap();
    let data = dir.path().join("data");
    std::fs::create_dir(&data).unwrap();
    pkbench()
        .args(["run", "--engine", "postgres", "-s", "int", "-n", "2k", "-b", "1k", "-q"])
        .args(["--server-setting", "max_wal_size=10GB", "--server-setting", "checkpoint-timeout=30min", "--data-dir"])
        .arg(&data)
        .arg("-o")
        .arg(dir.path().join("out"))
        .assert()
        .success();
    let doc: Value = serde_json::from_slice(&std::fs::read(dir.path().join("out/results.json")).unwrap()).unwrap();
    let engine = &doc["runs"][0]["settings"]["engine"];
    assert_eq!(engine["max_wal_size"], "10GB", "{engine}");
    assert_eq!(engine["checkpoint_timeout"], "30min", "{engine}");
    assert_eq!(engine["given_with_server_setting"], "max_wal_size,checkpoint_timeout", "{engine}");
    let server = engine["server"].as_str().unwrap();
    assert!(server.contains(&data.display().to_string()), "the cluster lived in --data-dir: {server}");
    assert_eq!(std::fs::read_dir(&data).unwrap().count(), 0, "and was removed from it");

    let out = pkbench()
        .args(["run", "--engine", "postgres", "-n", "10", "--server-setting", "max_wal_size=lots"])
        .output()
        .unwrap();
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("invalid value for parameter \"max_wal_size\": \"lots\""), "{err}");
    for (args, needle) in [
        (vec!["--server-setting", "shared_buffers=1GB"], "set the cache with --cache-mb"),
        (vec!["--server-setting", "max_wal_size"], "write NAME=VALUE"),
        (vec!["--url", "postgres://u@127.0.0.1:1/db", "--server-setting", "a=1"], "pkbench never changes your server"),
        (vec!["--data-dir", "/no/such/folder"], "--data-dir /no/such/folder is not a folder"),
    ] {
        let out = pkbench().args(["run", "--engine", "postgres", "-n", "10"]).args(&args).output().unwrap();
        assert!(!out.status.success());
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(err.contains(needle), "{args:?}: {err}");
    }
}

#[test]
fn server_binaries_the_postgres_user_cannot_reach_are_one_line_with_the_fix() {
    use std::os::unix::fs::{MetadataExt, PermissionsExt};
    let home = tempfile::tempdir().unwrap();
    // Mode 0700, owned by this user: like root's home.
    std::fs::set_permissions(home.path(), std::fs::Permissions::from_mode(0o700)).unwrap();
    let uid = std::fs::metadata(home.path()).unwrap().uid();
    assert_eq!(uid, 0, "this test needs root (as CI runs it): only then does the server run as 'postgres'");
    let bin = home.path().join("site-packages/pginstall/bin");
    std::fs::create_dir_all(&bin).unwrap();
    for name in ["postgres", "initdb"] {
        std::fs::write(bin.join(name), b"").unwrap();
    }
    let out = pkbench().args(["run", "--engine", "postgres", "-n", "10", "--server-bin"]).arg(&bin).output().unwrap();
    assert!(!out.status.success());
    let stderr = String::from_utf8_lossy(&out.stderr);
    let err = stderr.lines().last().unwrap_or_default();
    assert!(err.starts_with("Error: ") && !stderr.contains("os error"), "{stderr}");
    assert!(err.contains("runs as user 'postgres' (it refuses root), which cannot enter"), "{err}");
    assert!(err.contains("install the server outside root's home"), "{err}");
}

#[test]
fn pg_version_picks_the_installed_major_and_says_how_to_install_a_missing_one() {
    let dir = tempfile::tempdir().unwrap();
    pkbench()
        .args([
            "run",
            "--engine",
            "postgres",
            "--pg-version",
            "18",
            "-s",
            "int,uuid7-server",
            "-n",
            "2k",
            "-b",
            "1k",
            "-q",
            "-o",
        ])
        .arg(dir.path().join("out"))
        .assert()
        .success();
    let doc: Value = serde_json::from_slice(&std::fs::read(dir.path().join("out/results.json")).unwrap()).unwrap();
    assert!(doc["environment"]["engine_version"].as_str().unwrap().starts_with("18."), "{}", doc["environment"]);
    assert_eq!(doc["runs"][1]["verified_rows"], 2000);
    let out = pkbench().args(["run", "--engine", "postgres", "--pg-version", "9", "-n", "10"]).output().unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success());
    assert!(err.contains("PostgreSQL 9 is not installed in /usr/lib/postgresql/9/bin"), "{err}");
}

#[test]
fn ctrl_c_during_an_open_loop_serializable_run_leaves_nothing_running_and_keeps_the_phase() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("out");
    let child = std::process::Command::new(assert_cmd::cargo::cargo_bin("pkbench"))
        .env_remove("PKBENCH_PG_URL")
        .env_remove("PKBENCH_MYSQL_URL")
        .args(["run", "--engine", "postgres", "--workload", "concurrent", "--threads", "4", "--rate", "500"])
        .args(["--txn", "insert-read-recent", "--isolation", "serializable", "--duration", "10m", "--warmup", "0.5s"])
        .args(["-s", "int-client", "-q", "--data-dir"])
        .arg(dir.path())
        .arg("--out")
        .arg(&out)
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let pid = child.id();
    // The 0.5 s warm-up at 500 rows/s sends about 250 statements (the schedule starts a moment
    // before the warm-up's clock): 400 rows means statements due after the warm-up committed.
    common::wait_until("rows measured after the warm-up", Duration::from_secs(120), || {
        managed_rows(dir.path(), pid) > 400
    });
    let status = std::process::Command::new("kill").args(["-INT", &pid.to_string()]).status().unwrap();
    assert!(status.success());
    let output = child.wait_with_output().unwrap();
    assert_eq!(output.status.code(), Some(130), "{}", String::from_utf8_lossy(&output.stderr));
    assert_no_managed_server_left(pid);
    assert!(!server_dir_left(dir.path(), pid), "the server's folder is removed");
    let doc: serde_json::Value = serde_json::from_slice(&std::fs::read(out.join("results.json")).unwrap()).unwrap();
    let phase = &doc["runs"][0]["phases"][0];
    let ops = phase["operations"].as_u64().unwrap();
    let warmup = phase["figures"]["warmup_rows"].as_f64().unwrap() as u64;
    assert!(ops > 0);
    assert_eq!(doc["runs"][0]["verified_rows"].as_u64(), Some(ops + warmup), "committed rows only, verified");
    assert!(phase["figures"].get("conflicts").is_some(), "{phase}");
}

/// `run --like URL --table T`: the table's shape read from the user's server (read-only,
/// statistics only) and benchmarked on a throwaway SQLite database; no row value reaches the
/// results, and the user's table is untouched.
#[test]
fn run_like_benchmarks_a_servers_table_shape_without_its_rows() {
    let server =
        ManagedPostgres::start(&Default::default(), 16).expect("could not start a PostgreSQL server for the test");
    let mut client = server.config().connect(postgres::NoTls).unwrap();
    client
        .batch_execute(
            "CREATE TABLE accounts (id bigint PRIMARY KEY, email text NOT NULL, note text);
             CREATE UNIQUE INDEX accounts_email ON accounts (email);
             CREATE TABLE orders (id bigint PRIMARY KEY, account_id bigint NOT NULL REFERENCES accounts (id));
             INSERT INTO accounts SELECT g, 'user' || g || '@example.com', CASE WHEN g % 3 = 0 THEN NULL ELSE 'SECRET-NOTE-' || g END
                 FROM generate_series(1, 500) g;",
        )
        .unwrap();
    let url = format!("postgresql://postgres@/postgres?host={}&port={}", server.dir().display(), server.port());
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("r");
    pkbench()
        .args(["run", "--like", &url, "--table", "accounts", "--engine", "sqlite", "-s", "int,uuid7", "-n", "1k"])
        .args(["-b", "500", "--reads", "50", "--quiet", "-o"])
        .arg(&out)
        .assert()
        .success();
    let json = std::fs::read_to_string(out.join("results.json")).unwrap();
    assert!(!json.contains("SECRET-NOTE"), "a row value reached the results");
    let doc: Value = serde_json::from_str(&json).unwrap();
    for run in doc["runs"].as_array().unwrap() {
        assert_eq!(run["workload"], "schema");
        // 1,000 accounts and 2 orders each.
        assert_eq!(run["verified_rows"], 3_000);
        assert!(run["settings"]["workload_options"]["schema"].as_str().unwrap().starts_with("like postgresql://"));
    }
    let n: i64 = client.query_one("SELECT count(*) FROM accounts", &[]).unwrap().get(0);
    assert_eq!(n, 500, "the user's table is untouched");
}

/// On a terminal, while the server starts and between cases, the view says so instead of a
/// full bar reading "0/0 rows".
#[test]
fn the_terminal_view_never_shows_a_full_bar_of_no_rows() {
    let dir = tempfile::tempdir().unwrap();
    let command = format!(
        "{} run --engine postgres -s int,uuid4 -n 20k -b 5k -o {}",
        assert_cmd::cargo::cargo_bin("pkbench").display(),
        dir.path().join("r").display()
    );
    // `script` gives pkbench a terminal and copies what it draws.
    let out = std::process::Command::new("script").args(["-qfec", &command, "/dev/null"]).output().unwrap();
    let drawn = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "{drawn}");
    assert!(drawn.contains("starting…"), "{drawn}");
    assert!(!drawn.contains("0/0 rows"), "{drawn}");
}

/// A user the server does not know is said so, not answered with where to give a password.
#[test]
fn a_role_that_does_not_exist_is_named_as_the_problem() {
    let server =
        ManagedPostgres::start(&Default::default(), 16).expect("could not start a PostgreSQL server for the test");
    let socket = server.dir().display().to_string().replace('/', "%2F");
    let url = format!("postgres://nobody@{socket}:{}/postgres", server.port());
    let out = pkbench().args(["run", "--engine", "postgres", "-n", "1k", "-q", "--url", &url]).output().unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{stderr}");
    assert!(stderr.contains("role \"nobody\" does not exist") && stderr.contains("no such user"), "{stderr}");
    assert!(!stderr.contains("PGPASSWORD"), "{stderr}");
}
