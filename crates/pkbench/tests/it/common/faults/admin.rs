//! The superuser's side door into a server pkbench is using (a managed server's socket, or a
//! test-owned server's): end pkbench's sessions, or hold a lock until one of its statements has
//! waited past the statement timeout.

use mysql::prelude::Queryable;
use std::path::Path;
use std::time::Duration;

/// A superuser connection's settings.
#[derive(Clone)]
pub enum Admin {
    /// PostgreSQL, through its socket.
    Postgres(Box<postgres::Config>),
    /// MariaDB, through its socket.
    MariaDb(mysql::OptsBuilder),
}

impl Admin {
    /// The superuser of the managed PostgreSQL cluster in `dir` (its database `postgres`).
    pub fn managed_postgres(dir: &Path) -> Self {
        let mut config = postgres::Config::new();
        config.host_path(dir).port(5432).user("postgres").dbname("postgres");
        Admin::Postgres(Box::new(config))
    }

    /// root of the managed MariaDB server in `dir`.
    pub fn managed_mariadb(dir: &Path) -> Self {
        let socket = dir.join("mariadb.sock").display().to_string();
        Admin::MariaDb(mysql::OptsBuilder::new().socket(Some(socket)).user(Some("root")).prefer_socket(true))
    }

    /// Ends every client session but its own, as a dropped connection would.
    pub fn end_sessions(&self) {
        match self {
            Admin::Postgres(config) => {
                let mut c = config.connect(postgres::NoTls).unwrap();
                c.batch_execute(
                    "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE backend_type = 'client backend' AND pid <> pg_backend_pid()",
                )
                .unwrap();
            }
            Admin::MariaDb(opts) => {
                let mut c = mysql::Conn::new(opts.clone()).unwrap();
                let ids: Vec<u64> = c
                    .query("SELECT id FROM information_schema.processlist WHERE id <> CONNECTION_ID() AND command NOT IN ('Daemon', 'Killed') AND user <> 'system user'")
                    .unwrap();
                for id in ids {
                    let _ = c.query_drop(format!("KILL CONNECTION {id}"));
                }
            }
        }
    }

    /// Locks `table` (qualified) against writes on a thread of its own, and holds the lock until
    /// a session has waited for it past `timeout` (plus a margin), then releases it.
    pub fn hold_lock_past(&self, table: &str, timeout: Duration) -> std::thread::JoinHandle<()> {
        let (admin, table) = (self.clone(), table.to_string());
        let (locked, is_locked) = std::sync::mpsc::channel();
        let holder = std::thread::spawn(move || match admin {
            Admin::Postgres(config) => {
                let mut c = config.connect(postgres::NoTls).unwrap();
                c.batch_execute(&format!("BEGIN; LOCK TABLE {table} IN ACCESS EXCLUSIVE MODE")).unwrap();
                locked.send(()).unwrap();
                let mut watch = config.connect(postgres::NoTls).unwrap();
                let waiting = "SELECT count(*) FROM pg_stat_activity WHERE wait_event_type = 'Lock'";
                wait_for_a_waiter(|| watch.query_one(waiting, &[]).unwrap().get::<_, i64>(0) > 0, timeout);
                c.batch_execute("COMMIT").unwrap();
            }
            Admin::MariaDb(opts) => {
                let mut c = mysql::Conn::new(opts.clone()).unwrap();
                c.query_drop(format!("LOCK TABLES {table} WRITE")).unwrap();
                locked.send(()).unwrap();
                let mut watch = mysql::Conn::new(opts).unwrap();
                let waiting =
                    "SELECT count(*) FROM information_schema.processlist WHERE state LIKE 'Waiting for table%lock'";
                wait_for_a_waiter(|| watch.query_first::<u64, _>(waiting).unwrap().unwrap_or(0) > 0, timeout);
                c.query_drop("UNLOCK TABLES").unwrap();
            }
        });
        is_locked.recv_timeout(Duration::from_secs(30)).expect("the table is locked");
        holder
    }
}

/// Waits until `waiting` holds, then a while past `timeout`: the waiting statement started no
/// later than it was seen, so its timeout has fired by then.
fn wait_for_a_waiter(mut waiting: impl FnMut() -> bool, timeout: Duration) {
    crate::common::wait_until("a statement waiting for the lock", Duration::from_secs(60), &mut waiting);
    std::thread::sleep(timeout + Duration::from_millis(400));
}
