//! A throwaway MariaDB server: `mariadb-install-db` into a temporary directory, `mariadbd`
//! listening only on a Unix socket in that directory (mode 0700, `--skip-networking`: no other
//! local user can reach its password-less root), with a capped InnoDB buffer pool, stopped and
//! removed on drop.

use crate::Error;
use crate::engine_facts::innodb::{MIN_POOL_MB, lru_scan_depth};
use crate::engines::server::{
    ManagedOptions, ManagedProcess, failure_summary, find_binary, private_dir, remove_stale_dirs, unique_suffix,
    wait_until,
};
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Duration;

/// Settings a user may not change on a managed server, and what to do instead.
pub const RESERVED_SETTINGS: &[(&str, &str)] = &[
    ("innodb_buffer_pool_size", "set the cache with --cache-mb"),
    ("innodb_flush_log_at_trx_commit", "pkbench sets it from --sync (off → 2, otherwise 1)"),
    ("innodb_page_size", "pkbench's InnoDB page figures and models assume its 16 KiB pages"),
    ("socket", "a managed server listens only on its private Unix socket"),
    ("port", "a managed server listens only on its private Unix socket"),
    ("skip_networking", "a managed server listens only on its private Unix socket"),
    ("bind_address", "a managed server listens only on its private Unix socket"),
    ("datadir", "choose where the server's folder goes with --data-dir"),
    ("tmpdir", "choose where the server's folder goes with --data-dir"),
    ("pid_file", "pkbench owns the managed server's folder"),
    ("secure_file_priv", "pkbench owns the managed server's folder"),
    ("user", "pkbench runs the server as itself (root: as root)"),
];

/// A running managed MariaDB server.
#[derive(Debug)]
pub struct ManagedMariaDb {
    process: ManagedProcess,
    lru_scan_depth: u64,
}

fn binary(name: &str, server_bin: Option<&Path>) -> Result<PathBuf, Error> {
    find_binary(name, server_bin, None, "mariadb-server").or_else(|e| {
        // /usr/sbin is not on every user's PATH.
        let sbin = Path::new("/usr/sbin").join(name);
        if server_bin.is_none() && sbin.is_file() { Ok(sbin) } else { Err(e) }
    })
}

impl ManagedMariaDb {
    /// Creates and starts a server with `innodb_buffer_pool_size = cache_mb` MiB (at least
    /// [`MIN_POOL_MB`]);
    /// `durable_commits` sets `innodb_flush_log_at_trx_commit` to 1 (else 2).
    /// The user's settings (`options.settings`) come after pkbench's, so they win.
    pub fn start(options: &ManagedOptions, cache_mb: u64, durable_commits: bool) -> Result<Self, Error> {
        options.check_settings("MariaDB", RESERVED_SETTINGS)?;
        let server_bin = options.server_bin.as_deref();
        if cache_mb < MIN_POOL_MB {
            return Err(Error::InvalidInput(format!(
                "--cache-mb {cache_mb} is below InnoDB's minimum buffer pool of {MIN_POOL_MB} MiB (with 16 KiB pages): use --cache-mb {MIN_POOL_MB} or more"
            )));
        }
        let install = binary("mariadb-install-db", server_bin)?;
        let mariadbd = binary("mariadbd", server_bin)?;
        let parent = options.parent_dir();
        let _ = remove_stale_dirs(&parent, "pkbench-mariadb-");
        let dir = parent.join(format!("pkbench-mariadb-{}-{}", std::process::id(), unique_suffix()));
        private_dir(&dir)?;
        let data = dir.join("data");
        // Its own temporary folder: parallel servers sharing /tmp lost each other's temporary
        // tables during mariadb-install-db ("Could not remove temporary table").
        let tmp = dir.join("tmp");
        std::fs::create_dir(&tmp).map_err(|e| Error::io("create", &tmp, e))?;
        let user = if crate::platform::is_root() {
            "root".to_string()
        } else {
            std::env::var("USER").unwrap_or_else(|_| "nobody".into())
        };
        let out = Command::new(&install)
            .arg("--no-defaults")
            .arg(format!("--user={user}"))
            .arg(format!("--datadir={}", data.display()))
            .args(["--auth-root-authentication-method=normal", "--skip-test-db"])
            .arg(format!("--tmpdir={}", tmp.display()))
            .output()
            .map_err(|e| {
                let _ = std::fs::remove_dir_all(&dir);
                Error::io("run", &install, e)
            })?;
        if !out.status.success() {
            let _ = std::fs::remove_dir_all(&dir);
            let msg = failure_summary(&out.stderr);
            return Err(Error::System(format!("mariadb-install-db failed: {msg}")));
        }
        let pool_mb = cache_mb;
        let depth = lru_scan_depth(pool_mb);
        let mut cmd = Command::new(&mariadbd);
        cmd.arg("--no-defaults")
            .arg(format!("--user={user}"))
            .arg(format!("--datadir={}", data.display()))
            .arg(format!("--socket={}", dir.join("mariadb.sock").display()))
            .arg(format!("--pid-file={}", dir.join("mariadb.pid").display()))
            .arg(format!("--tmpdir={}", tmp.display()))
            .args(["--skip-name-resolve", "--innodb-monitor-enable=module_index"])
            .arg(format!("--secure-file-priv={}", dir.display()))
            .arg(format!("--innodb-buffer-pool-size={pool_mb}M"))
            .arg(format!("--innodb-lru-scan-depth={depth}"))
            .arg(format!("--innodb-flush-log-at-trx-commit={}", if durable_commits { 1 } else { 2 }))
            .args(options.settings.iter().map(|s| format!("--{}={}", s.name, s.value)));
        match &options.tcp {
            // Tests only: TCP on 127.0.0.1, where root (root@localhost) cannot log in.
            Some(tcp) => {
                cmd.arg(format!("--port={}", tcp.port)).arg("--bind-address=127.0.0.1");
                match &tcp.tls {
                    Some((cert, key)) => {
                        cmd.arg(format!("--ssl-cert={}", cert.display())).arg(format!("--ssl-key={}", key.display()))
                    }
                    None => cmd.arg("--skip-ssl"),
                };
            }
            None => {
                cmd.arg("--skip-networking");
            }
        }
        // SIGTERM = clean shutdown; SIGKILL if pkbench dies.
        let mut process = ManagedProcess::spawn("MariaDB", cmd, dir, libc::SIGTERM, libc::SIGKILL)?;
        let socket = process.dir().join("mariadb.sock");
        let ready = wait_until(Duration::from_secs(60), || {
            !process.is_running() || mysql::Conn::new(Self::opts_for(&socket)).is_ok()
        });
        if !ready || !process.is_running() {
            return Err(process.startup_error("did not start"));
        }
        Ok(ManagedMariaDb { process, lru_scan_depth: depth })
    }

    /// Connection options for the server's root user, through its Unix socket.
    pub fn opts(&self) -> mysql::OptsBuilder {
        Self::opts_for(&self.process.dir().join("mariadb.sock"))
    }

    fn opts_for(socket: &Path) -> mysql::OptsBuilder {
        mysql::OptsBuilder::new().socket(Some(socket.display().to_string())).user(Some("root")).prefer_socket(true)
    }

    /// The `innodb_lru_scan_depth` it was started with.
    pub fn lru_scan_depth(&self) -> u64 {
        self.lru_scan_depth
    }

    /// The server's process id.
    pub fn pid(&self) -> u32 {
        self.process.pid()
    }

    /// The temporary directory holding the server.
    pub fn dir(&self) -> &Path {
        self.process.dir()
    }
}
