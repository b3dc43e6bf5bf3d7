//! A server the test owns, for `pkbench run --url`: PostgreSQL or MariaDB on 127.0.0.1 with a
//! password user `pk` and a database `appdb`, which the test can kill, restart on the same port
//! and data, lock tables on, and search for pkbench's scratch schemas.

use mysql::prelude::Queryable;
use pkbench_core::engines::mariadb::ManagedMariaDb;
use pkbench_core::engines::postgres::ManagedPostgres;
use pkbench_core::engines::server::{ManagedOptions, TcpListen, free_port};
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::time::Duration;

/// The password of user `pk`, given to pkbench through the environment.
pub const PASSWORD: &str = "Fault-pw-7";

/// Which server.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    /// PostgreSQL.
    Postgres,
    /// MariaDB.
    MariaDb,
}

/// A running test-owned server.
pub struct UrlServer {
    kind: Kind,
    port: u16,
    postgres: Option<ManagedPostgres>,
    mariadb: Option<ManagedMariaDb>,
    /// The server started again by [`UrlServer::restart`] (the managed one is gone then).
    restarted: Option<std::process::Child>,
}

impl UrlServer {
    /// Starts a server of `kind` whose folder goes in `data_dir` (the temp folder if `None`).
    pub fn start(kind: Kind, data_dir: Option<&Path>) -> Self {
        let port = free_port().unwrap();
        let options = ManagedOptions {
            tcp: Some(TcpListen { port, tls: None }),
            data_dir: data_dir.map(Path::to_path_buf),
            ..Default::default()
        };
        let mut server = UrlServer { kind, port, postgres: None, mariadb: None, restarted: None };
        match kind {
            Kind::Postgres => {
                let pg =
                    ManagedPostgres::start(&options, 16).expect("could not start a PostgreSQL server for the test");
                let mut admin = pg.config().connect(postgres::NoTls).unwrap();
                for sql in [&format!("CREATE ROLE pk LOGIN PASSWORD '{PASSWORD}'"), "CREATE DATABASE appdb OWNER pk"] {
                    admin.batch_execute(sql).unwrap();
                }
                server.postgres = Some(pg);
            }
            Kind::MariaDb => {
                let db =
                    ManagedMariaDb::start(&options, 16, false).expect("could not start a MariaDB server for the test");
                let mut admin = mysql::Conn::new(db.opts()).unwrap();
                admin.query_drop(format!("CREATE USER 'pk'@'127.0.0.1' IDENTIFIED BY '{PASSWORD}'")).unwrap();
                admin.query_drop("GRANT ALL ON *.* TO 'pk'@'127.0.0.1'").unwrap();
                admin.query_drop("CREATE DATABASE appdb").unwrap();
                server.mariadb = Some(db);
            }
        }
        server
    }

    /// The server's TCP port.
    pub fn port(&self) -> u16 {
        self.port
    }

    /// pkbench's `--url` for user `pk` through `port` (the server's, or a proxy's).
    pub fn url(&self, port: u16) -> String {
        match self.kind {
            Kind::Postgres => format!("postgres://pk@127.0.0.1:{port}/appdb"),
            Kind::MariaDb => format!("mysql://pk@127.0.0.1:{port}/appdb"),
        }
    }

    /// The variable that gives pkbench the password, and its value.
    pub fn password_env(&self) -> (&'static str, &'static str) {
        match self.kind {
            Kind::Postgres => ("PGPASSWORD", PASSWORD),
            Kind::MariaDb => ("MYSQL_PWD", PASSWORD),
        }
    }

    /// The server's folder (socket, data).
    pub fn dir(&self) -> PathBuf {
        match (&self.postgres, &self.mariadb) {
            (Some(pg), _) => pg.dir().to_path_buf(),
            (_, Some(db)) => db.dir().to_path_buf(),
            _ => unreachable!("a server of one kind"),
        }
    }

    /// The server's process id now.
    pub fn pid(&self) -> u32 {
        match (&self.restarted, &self.postgres, &self.mariadb) {
            (Some(child), _, _) => child.id(),
            (None, Some(pg), _) => pg.pid(),
            (None, _, Some(db)) => db.pid(),
            _ => unreachable!("a server of one kind"),
        }
    }

    /// Runs `sql` as the superuser, through the socket (in `appdb`).
    pub fn admin(&self, sql: &str) {
        match self.kind {
            Kind::Postgres => self.pg_admin().batch_execute(sql).unwrap(),
            Kind::MariaDb => self.my_admin().query_drop(sql).unwrap(),
        }
    }

    /// The superuser's side door (in `appdb` on PostgreSQL).
    pub fn side_door(&self) -> super::admin::Admin {
        match (&self.postgres, &self.mariadb) {
            (Some(pg), _) => super::admin::Admin::Postgres(Box::new(pg.config().dbname("appdb").clone())),
            (_, Some(db)) => super::admin::Admin::MariaDb(db.opts()),
            _ => unreachable!("a server of one kind"),
        }
    }

    fn pg_admin(&self) -> postgres::Client {
        let pg = self.postgres.as_ref().unwrap();
        pg.config().dbname("appdb").connect(postgres::NoTls).unwrap()
    }

    fn my_admin(&self) -> mysql::Conn {
        mysql::Conn::new(self.mariadb.as_ref().unwrap().opts()).unwrap()
    }

    /// pkbench's scratch schemas (PostgreSQL, in `appdb`) or databases (MariaDB) on the server.
    pub fn scratch_left(&self) -> Vec<String> {
        match self.kind {
            Kind::Postgres => self
                .pg_admin()
                .query("SELECT nspname FROM pg_namespace WHERE nspname LIKE 'pkbench%'", &[])
                .unwrap()
                .iter()
                .map(|r| r.get(0))
                .collect(),
            Kind::MariaDb => self.my_admin().query("SHOW DATABASES LIKE 'pkbench%'").unwrap(),
        }
    }

    /// Kills the server outright (SIGKILL) and waits until it and its processes are gone.
    pub fn kill(&mut self) {
        let pid = self.pid();
        signal(pid, "KILL");
        self.wait_gone(pid);
    }

    /// Stops the server (a fast shutdown), then starts it again on the same port and data, and
    /// waits until it answers.
    pub fn restart(&mut self) {
        let pid = self.pid();
        let cmdline = std::fs::read(format!("/proc/{pid}/cmdline")).unwrap();
        let (uid, gid) = owner(pid);
        // A fast shutdown: SIGINT for PostgreSQL, SIGTERM for MariaDB.
        signal(pid, if self.kind == Kind::Postgres { "INT" } else { "TERM" });
        self.wait_gone(pid);
        self.start_again(&cmdline, uid, gid);
    }

    /// Starts the server again after [`UrlServer::kill`], with the command line it had.
    pub fn start_after_kill(&mut self, cmdline: &[u8], owner: (u32, u32)) {
        if self.kind == Kind::Postgres {
            // The killed postmaster is the managed handle's child, unreaped: its pid still
            // answers, so PostgreSQL would take its lock files for a running server's.
            let dir = self.dir();
            let socket_locks = std::fs::read_dir(&dir).unwrap().filter_map(|e| e.ok()).map(|e| e.path());
            for lock in socket_locks.filter(|p| p.to_string_lossy().ends_with(".lock")) {
                std::fs::remove_file(lock).unwrap();
            }
            std::fs::remove_file(dir.join("data/postmaster.pid")).unwrap();
        }
        self.start_again(cmdline, owner.0, owner.1);
    }

    /// The server's command line and owner (uid, gid), to start it again after a kill.
    pub fn command(&self) -> (Vec<u8>, (u32, u32)) {
        let pid = self.pid();
        (std::fs::read(format!("/proc/{pid}/cmdline")).unwrap(), owner(pid))
    }

    fn start_again(&mut self, cmdline: &[u8], uid: u32, gid: u32) {
        let args: Vec<String> =
            cmdline.split(|b| *b == 0).filter(|a| !a.is_empty()).map(|a| String::from_utf8_lossy(a).into()).collect();
        let log = std::fs::File::create(self.dir().join("restarted.log")).unwrap();
        let child = std::process::Command::new(&args[0])
            .args(&args[1..])
            .uid(uid)
            .gid(gid)
            .process_group(0)
            .stdin(std::process::Stdio::null())
            .stdout(log.try_clone().unwrap())
            .stderr(log)
            .spawn()
            .unwrap();
        self.restarted = Some(child);
        crate::common::wait_until("the restarted server answers", Duration::from_secs(60), || self.answers());
    }

    /// Whether the server accepts the superuser's connection.
    fn answers(&self) -> bool {
        match self.kind {
            Kind::Postgres => self.postgres.as_ref().unwrap().config().connect(postgres::NoTls).is_ok(),
            Kind::MariaDb => mysql::Conn::new(self.mariadb.as_ref().unwrap().opts()).is_ok(),
        }
    }

    /// Waits until process `pid` has exited and no process works in the server's folder.
    fn wait_gone(&mut self, pid: u32) {
        if let Some(child) = self.restarted.as_mut().filter(|c| c.id() == pid) {
            child.wait().unwrap();
        }
        let dir = self.dir();
        crate::common::wait_until("the server's processes exit", Duration::from_secs(30), || {
            !alive(pid) && super::run::processes_in(&dir).is_empty()
        });
    }
}

impl Drop for UrlServer {
    fn drop(&mut self) {
        // A server started again is the test's own child: stop it before its folder goes.
        if let Some(mut child) = self.restarted.take() {
            signal(child.id(), "KILL");
            let _ = child.wait();
            let dir = self.dir();
            crate::common::wait_until("the restarted server's processes exit", Duration::from_secs(30), || {
                super::run::processes_in(&dir).is_empty()
            });
        }
    }
}

/// Sends signal `name` (`KILL`, `INT`, …) to process `pid`.
pub fn signal(pid: u32, name: &str) {
    let status = std::process::Command::new("kill").arg(format!("-{name}")).arg(pid.to_string()).status().unwrap();
    assert!(status.success(), "kill -{name} {pid}");
}

/// Whether `pid` runs (a zombie, exited but not reaped, does not).
pub fn alive(pid: u32) -> bool {
    std::fs::read_to_string(format!("/proc/{pid}/stat"))
        .is_ok_and(|s| s.rsplit_once(')').is_some_and(|(_, rest)| !rest.trim_start().starts_with('Z')))
}

/// The (uid, gid) process `pid` runs as.
fn owner(pid: u32) -> (u32, u32) {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).unwrap();
    let field = |name: &str| -> u32 {
        let line = status.lines().find(|l| l.starts_with(name)).unwrap();
        line.split_whitespace().nth(1).unwrap().parse().unwrap()
    };
    (field("Uid:"), field("Gid:"))
}
