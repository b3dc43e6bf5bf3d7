//! One managed PostgreSQL cluster and one managed MariaDB server per test binary, for the tests
//! that need *a* server rather than one of their own: each such test works in a database of its
//! own. Each server starts on first use and stops, its folder removed, when the test binary exits.
//!
//! A managed server gets a parent-death signal tied to the thread that starts it, and every test
//! runs on a thread of its own that ends with it: so the shared servers are started on one thread
//! that lives as long as the process.

use pkbench_core::engines::mariadb::ManagedMariaDb;
use pkbench_core::engines::postgres::ManagedPostgres;
use std::sync::mpsc::{Sender, channel};
use std::sync::{Mutex, OnceLock};

/// A job for the servers' thread.
type Job = Box<dyn FnOnce() + Send>;

/// The shared servers, once started; taken and dropped (stopped) at exit.
static POSTGRES: Mutex<Option<ManagedPostgres>> = Mutex::new(None);
static MARIADB: Mutex<Option<ManagedMariaDb>> = Mutex::new(None);

/// Runs `job` on the thread that starts the shared servers, and returns what it returns.
fn on_servers_thread<T: Send + 'static>(job: impl FnOnce() -> T + Send + 'static) -> T {
    static THREAD: OnceLock<Mutex<Sender<Job>>> = OnceLock::new();
    let sender = THREAD.get_or_init(|| {
        let (sender, jobs) = channel::<Job>();
        std::thread::Builder::new()
            .name("shared-servers".into())
            .spawn(move || jobs.into_iter().for_each(|job| job()))
            .expect("spawn the shared servers' thread");
        // SAFETY: registers a plain function with no arguments; it runs once, at exit.
        unsafe { libc::atexit(stop_shared_servers) };
        Mutex::new(sender)
    });
    let (reply, answer) = channel();
    let job: Job = Box::new(move || {
        let _ = reply.send(job());
    });
    sender.lock().unwrap_or_else(|e| e.into_inner()).send(job).expect("the shared servers' thread runs");
    answer.recv().expect("the shared servers' thread answers")
}

/// Stops the shared servers (each stops on drop and removes its folder).
extern "C" fn stop_shared_servers() {
    drop(POSTGRES.lock().unwrap_or_else(|e| e.into_inner()).take());
    drop(MARIADB.lock().unwrap_or_else(|e| e.into_inner()).take());
}

/// Starts the shared PostgreSQL cluster if it is not running, then creates database `name` on it
/// and returns the superuser's connection settings for that database, through the cluster's
/// socket. A cluster that cannot start fails the test.
pub fn postgres_database(name: &str) -> postgres::Config {
    let started = on_servers_thread(|| {
        let mut shared = POSTGRES.lock().unwrap_or_else(|e| e.into_inner());
        if shared.is_none() {
            *shared = Some(ManagedPostgres::start(&Default::default(), 32).map_err(|e| e.to_string())?);
        }
        Ok::<_, String>(shared.as_ref().map(ManagedPostgres::config).expect("started"))
    });
    let mut config = started.unwrap_or_else(|e| panic!("could not start the shared PostgreSQL cluster: {e}"));
    let mut client = config.connect(postgres::NoTls).expect("connect to the shared PostgreSQL cluster");
    client.batch_execute(&format!("CREATE DATABASE {name}")).unwrap_or_else(|e| panic!("database {name}: {e}"));
    config.dbname(name);
    config
}

/// A URL to database `name` on the shared PostgreSQL cluster for `user`, through its socket.
pub fn postgres_url(config: &postgres::Config, user: &str) -> String {
    let host = match config.get_hosts() {
        [postgres::config::Host::Unix(dir)] => dir.display().to_string(),
        other => panic!("the shared cluster listens on its socket only: {other:?}"),
    };
    let (port, db) = (config.get_ports()[0], config.get_dbname().unwrap_or("postgres"));
    format!("postgresql://{user}@/{db}?host={host}&port={port}")
}

/// Starts the shared MariaDB server if it is not running, then creates database `name` on it and
/// returns root's connection options for that database, through the server's socket, with the
/// socket's path. A server that cannot start fails the test.
pub fn mariadb_database(name: &str) -> (mysql::OptsBuilder, std::path::PathBuf) {
    use mysql::prelude::Queryable;
    let started = on_servers_thread(|| {
        let mut shared = MARIADB.lock().unwrap_or_else(|e| e.into_inner());
        if shared.is_none() {
            *shared = Some(ManagedMariaDb::start(&Default::default(), 32, false).map_err(|e| e.to_string())?);
        }
        let server = shared.as_ref().expect("started");
        Ok::<_, String>((server.opts(), server.dir().join("mariadb.sock")))
    });
    let (opts, socket) = started.unwrap_or_else(|e| panic!("could not start the shared MariaDB server: {e}"));
    let mut conn = mysql::Conn::new(opts.clone()).expect("connect to the shared MariaDB server");
    conn.query_drop(format!("CREATE DATABASE {name}")).unwrap_or_else(|e| panic!("database {name}: {e}"));
    (opts.db_name(Some(name)), socket)
}
