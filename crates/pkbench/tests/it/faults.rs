//! Faults injected into `pkbench run`: the server killed mid-batch, the connection cut, the
//! server restarted, its disk full, a statement timeout — on managed PostgreSQL and MariaDB, on a
//! `--url` server the test starts itself, and on SQLite where they apply. Every case ends with
//! one line naming the fault, a non-zero exit, every committed batch kept and verified, the kept
//! results rendering, and nothing left behind; each prints its row of the fault matrix
//! (`cargo test --features server-tests --test it -- faults --nocapture`).

use crate::common::faults::admin::Admin;
use crate::common::faults::proxy::CutProxy;
use crate::common::faults::run::{
    Committed, FaultRun, managed_dir, managed_dirs_left, managed_processes_left, read_doc,
};
use crate::common::faults::url_server::{Kind, UrlServer, signal};
use crate::common::tmpfs::Tmpfs;
use crate::common::wait_until;
use std::path::Path;
use std::time::Duration;

/// A run long enough that a fault lands mid-way, in batches small enough to commit often.
const RUN: [&str; 6] = ["-n", "200k", "-b", "5k", "-s", "int,uuid4"];
/// A run that fills a small data folder.
const FILL: [&str; 6] = ["-n", "2M", "-b", "5k", "-s", "int,uuid4"];
/// The statement timeout of the timeout cases.
const TIMEOUT: Duration = Duration::from_secs(1);

const GONE: &[&str] = &["closed the connection"];
const DISK_FULL: &[&str] = &["disk full"];
const TIMED_OUT: &[&str] = &["statement timeout"];

fn engine(kind: Kind) -> &'static str {
    match kind {
        Kind::Postgres => "postgres",
        Kind::MariaDb => "mariadb",
    }
}

fn label(kind: Kind, managed: bool) -> &'static str {
    match (kind, managed) {
        (Kind::Postgres, true) => "managed PostgreSQL",
        (Kind::MariaDb, true) => "managed MariaDB",
        (Kind::Postgres, false) => "--url PostgreSQL",
        (Kind::MariaDb, false) => "--url MariaDB",
    }
}

fn path(p: &Path) -> &str {
    p.to_str().unwrap()
}

/// A managed run of `kind` with its server's folder in `data`, plus `extra` flags.
fn managed_run(kind: Kind, data: &Path, run: &[&str], extra: &[&str], out: &Path) -> FaultRun {
    let args = [&["--engine", engine(kind), "--data-dir", path(data)][..], run, extra].concat();
    FaultRun::start(&args, &[], out)
}

/// A `--url` run on `server` through `port` (the server's, or a proxy's).
fn url_run(server: &UrlServer, port: u16, run: &[&str], out: &Path) -> FaultRun {
    let url = server.url(port);
    FaultRun::start(&[&["--url", &url][..], run].concat(), &[server.password_env()], out)
}

/// What a managed run left in `data`: processes (a killed server's last sessions end as
/// pkbench's connections close, so they get a moment) and folders.
fn managed_leftovers(data: &Path, pid: u32) -> Vec<String> {
    let deadline = std::time::Instant::now() + Duration::from_secs(10);
    while !managed_processes_left(pid).is_empty() && std::time::Instant::now() < deadline {
        std::thread::sleep(Duration::from_millis(100));
    }
    let mut left = managed_processes_left(pid);
    left.extend(managed_dirs_left(data, pid));
    left
}

/// The process id of the managed server in `dir`, from its pid file.
fn managed_server_pid(kind: Kind, dir: &Path) -> u32 {
    let file = match kind {
        Kind::Postgres => dir.join("data/postmaster.pid"),
        Kind::MariaDb => dir.join("mariadb.pid"),
    };
    let mut pid = None;
    wait_until("the server's pid file", Duration::from_secs(30), || {
        pid = std::fs::read_to_string(&file).ok().and_then(|t| t.lines().next()?.trim().parse().ok());
        pid.is_some()
    });
    pid.unwrap()
}

fn managed_admin(kind: Kind, dir: &Path) -> Admin {
    match kind {
        Kind::Postgres => Admin::managed_postgres(dir),
        Kind::MariaDb => Admin::managed_mariadb(dir),
    }
}

/// The managed server is killed (SIGKILL) mid-batch.
fn managed_server_killed(kind: Kind) {
    let (data, out) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
    let run = managed_run(kind, data.path(), &RUN, &[], &out.path().join("r"));
    run.wait_for_batches_of("uuid4", 2);
    let dir = managed_dir(data.path(), run.pid());
    signal(managed_server_pid(kind, &dir), "KILL");
    let ended = run.end();
    let left = managed_leftovers(data.path(), ended.pid);
    ended.check("server killed (SIGKILL)", label(kind, true), GONE, Committed::Gone, &left);
}

/// pkbench's session on the managed server ends mid-batch (the server terminates it).
fn managed_session_ended(kind: Kind) {
    let (data, out) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
    let run = managed_run(kind, data.path(), &RUN, &[], &out.path().join("r"));
    run.wait_for_batches_of("uuid4", 2);
    managed_admin(kind, &managed_dir(data.path(), run.pid())).end_sessions();
    let ended = run.end();
    let left = managed_leftovers(data.path(), ended.pid);
    ended.check("connection ended by the server", label(kind, true), GONE, Committed::Counted, &left);
}

/// The managed server's data folder is a small tmpfs that fills mid-run.
fn managed_disk_full(kind: Kind, size: &str) {
    let (data, out) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
    let _fs = Tmpfs::mount(data.path(), size);
    let ended = managed_run(kind, data.path(), &FILL, &[], &out.path().join("r")).end();
    let left = managed_leftovers(data.path(), ended.pid);
    ended.check("data folder full (tmpfs)", label(kind, true), DISK_FULL, Committed::Counted, &left);
}

/// A statement of the managed server waits on a lock past its statement timeout.
fn managed_statement_timeout(kind: Kind) {
    let (data, out) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
    let setting = match kind {
        Kind::Postgres => format!("statement_timeout={}ms", TIMEOUT.as_millis()),
        Kind::MariaDb => format!("max_statement_time={}", TIMEOUT.as_secs()),
    };
    let run = managed_run(kind, data.path(), &RUN, &["--server-setting", &setting], &out.path().join("r"));
    run.wait_for_batches_of("uuid4", 2);
    let admin = managed_admin(kind, &managed_dir(data.path(), run.pid()));
    let holder = admin.hold_lock_past("pkbench.bench", TIMEOUT);
    let ended = run.end();
    holder.join().unwrap();
    let left = managed_leftovers(data.path(), ended.pid);
    ended.check("statement timeout (a lock held)", label(kind, true), TIMED_OUT, Committed::Counted, &left);
}

/// The `--url` server is killed mid-batch (its last COMMIT may get no answer though it went
/// through) and comes back while pkbench tries to reach it again: pkbench counts what was
/// committed, keeps a batch whose answer was lost if its rows are there, and drops its schema.
fn url_server_killed(kind: Kind) {
    let out = tempfile::tempdir().unwrap();
    let mut server = UrlServer::start(kind, None);
    let run = url_run(&server, server.port(), &RUN, &out.path().join("r"));
    run.wait_for_batches_of("uuid4", 2);
    let (cmdline, owner) = server.command();
    server.kill();
    server.start_after_kill(&cmdline, owner);
    let ended = run.end();
    let left = server.scratch_left();
    ended.check("server killed (SIGKILL), back at once", label(kind, false), GONE, Committed::Counted, &left);
}

/// The connection to the `--url` server is cut mid-batch by a proxy.
fn url_connection_cut(kind: Kind) {
    let out = tempfile::tempdir().unwrap();
    let server = UrlServer::start(kind, None);
    let proxy = CutProxy::start(server.port());
    let run = url_run(&server, proxy.port(), &RUN, &out.path().join("r"));
    run.wait_for_batches_of("uuid4", 2);
    let sent = proxy.bytes_up();
    wait_until("a batch on its way", Duration::from_secs(30), || proxy.bytes_up() > sent + 64 * 1024);
    proxy.cut();
    let ended = run.end();
    ended.check("connection cut (TCP proxy)", label(kind, false), GONE, Committed::Counted, &server.scratch_left());
}

/// The `--url` server is stopped and started again on the same port mid-run.
fn url_server_restarted(kind: Kind) {
    let out = tempfile::tempdir().unwrap();
    let mut server = UrlServer::start(kind, None);
    let run = url_run(&server, server.port(), &RUN, &out.path().join("r"));
    run.wait_for_batches_of("uuid4", 2);
    server.restart();
    let ended = run.end();
    ended.check("server restarted", label(kind, false), GONE, Committed::Counted, &server.scratch_left());
}

/// The `--url` server's data folder is a small tmpfs that fills mid-run.
fn url_disk_full(kind: Kind, size: &str) {
    let (data, out) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
    let _fs = Tmpfs::mount(data.path(), size);
    let server = UrlServer::start(kind, Some(data.path()));
    let ended = url_run(&server, server.port(), &FILL, &out.path().join("r")).end();
    ended.check("data folder full (tmpfs)", label(kind, false), DISK_FULL, Committed::Counted, &server.scratch_left());
}

/// A statement on the `--url` server waits on a lock past the user's statement timeout.
fn url_statement_timeout(kind: Kind) {
    let out = tempfile::tempdir().unwrap();
    let server = UrlServer::start(kind, None);
    server.admin(&match kind {
        Kind::Postgres => format!("ALTER ROLE pk SET statement_timeout = '{}ms'", TIMEOUT.as_millis()),
        Kind::MariaDb => format!("ALTER USER 'pk'@'127.0.0.1' WITH MAX_STATEMENT_TIME {}", TIMEOUT.as_secs()),
    });
    let run = url_run(&server, server.port(), &RUN, &out.path().join("r"));
    run.wait_for_batches_of("uuid4", 2);
    let scratch = server.scratch_left();
    assert_eq!(scratch.len(), 1, "{scratch:?}");
    let holder = server.side_door().hold_lock_past(&format!("{}.bench", scratch[0]), TIMEOUT);
    let ended = run.end();
    holder.join().unwrap();
    let left = server.scratch_left();
    ended.check("statement timeout (a lock held)", label(kind, false), TIMED_OUT, Committed::Counted, &left);
}

#[test]
fn managed_postgres_server_killed() {
    managed_server_killed(Kind::Postgres);
}

#[test]
fn managed_mariadb_server_killed() {
    managed_server_killed(Kind::MariaDb);
}

#[test]
fn managed_postgres_session_ended() {
    managed_session_ended(Kind::Postgres);
}

#[test]
fn managed_mariadb_session_ended() {
    managed_session_ended(Kind::MariaDb);
}

#[test]
fn managed_postgres_disk_full() {
    managed_disk_full(Kind::Postgres, "64m");
}

#[test]
fn managed_mariadb_disk_full() {
    // InnoDB's redo log alone takes 96 MiB.
    managed_disk_full(Kind::MariaDb, "150m");
}

#[test]
fn managed_postgres_statement_timeout() {
    managed_statement_timeout(Kind::Postgres);
}

#[test]
fn managed_mariadb_statement_timeout() {
    managed_statement_timeout(Kind::MariaDb);
}

#[test]
fn url_postgres_server_killed() {
    url_server_killed(Kind::Postgres);
}

#[test]
fn url_mariadb_server_killed() {
    url_server_killed(Kind::MariaDb);
}

#[test]
fn url_postgres_connection_cut() {
    url_connection_cut(Kind::Postgres);
}

#[test]
fn url_mariadb_connection_cut() {
    url_connection_cut(Kind::MariaDb);
}

#[test]
fn url_postgres_server_restarted() {
    url_server_restarted(Kind::Postgres);
}

#[test]
fn url_mariadb_server_restarted() {
    url_server_restarted(Kind::MariaDb);
}

#[test]
fn url_postgres_disk_full() {
    url_disk_full(Kind::Postgres, "64m");
}

#[test]
fn url_mariadb_disk_full() {
    url_disk_full(Kind::MariaDb, "150m");
}

#[test]
fn url_postgres_statement_timeout() {
    url_statement_timeout(Kind::Postgres);
}

#[test]
fn url_mariadb_statement_timeout() {
    url_statement_timeout(Kind::MariaDb);
}

/// SQLite's results folder (which holds its database files) is a small tmpfs that fills.
#[test]
fn sqlite_disk_full() {
    let dir = tempfile::tempdir().unwrap();
    let _fs = Tmpfs::mount(dir.path(), "8m");
    let out = dir.path().join("r");
    let ended = FaultRun::start(&FILL, &[], &out).end();
    let doc = read_doc(&out).unwrap();
    let left: Vec<String> = std::fs::read_dir(&out)
        .unwrap()
        .filter_map(|e| e.ok())
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .filter(|n| n.contains(".sqlite") || n == "journal.jsonl")
        .collect();
    assert!(doc["runs"].as_array().unwrap().iter().any(|r| r["complete"] == false));
    ended.check("results folder full (tmpfs)", "SQLite", DISK_FULL, Committed::Counted, &left);
}
