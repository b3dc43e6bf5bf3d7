//! Running a throwaway server process: its own process group (so a terminal's Ctrl-C reaches
//! pkbench, which then stops the server in order), a parent-death signal (so the server never
//! outlives pkbench), and a stop-on-drop that removes the temporary directory.

use crate::Error;
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::Mutex;
use std::time::{Duration, Instant};

/// The OS user a managed server runs as (PostgreSQL refuses to run as root).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ServerUser {
    /// User id.
    pub uid: u32,
    /// Group id.
    pub gid: u32,
}

impl ServerUser {
    /// `None` when pkbench does not run as root (the server then runs as the current user);
    /// otherwise the system user `name`, which must exist.
    pub fn for_root(name: &str, package: &str) -> Result<Option<Self>, Error> {
        if !crate::platform::is_root() {
            return Ok(None);
        }
        let passwd = std::fs::read_to_string("/etc/passwd").map_err(|e| Error::io("read", "/etc/passwd", e))?;
        passwd
            .lines()
            .find_map(|l| {
                let f: Vec<&str> = l.split(':').collect();
                (f.first() == Some(&name) && f.len() > 3).then(|| Some(ServerUser { uid: f[2].parse().ok()?, gid: f[3].parse().ok()? }))
            })
            .flatten()
            .map(Some)
            .ok_or_else(|| Error::NotFound(format!("running as root, pkbench starts the server as user '{name}', which does not exist: install the '{package}' package")))
    }

    /// Gives `path` to this user.
    pub fn own(&self, path: &Path) -> Result<(), Error> {
        std::os::unix::fs::chown(path, Some(self.uid), Some(self.gid))
            .map_err(|e| Error::io("change the owner of", path, e))
    }

    /// Makes `cmd` run as this user.
    pub fn apply(&self, cmd: &mut Command) {
        cmd.uid(self.uid).gid(self.gid);
    }

    /// The first folder on the way to `path` this user may not enter (no search permission for
    /// it as owner, group or other), if any; `None` when the path is reachable.
    pub fn blocked_at(&self, path: &Path) -> Option<PathBuf> {
        use std::os::unix::fs::MetadataExt;
        let path = std::fs::canonicalize(path).ok()?;
        path.ancestors().skip(1).collect::<Vec<_>>().into_iter().rev().find_map(|dir| {
            let m = std::fs::metadata(dir).ok()?;
            let mode = m.mode();
            let enters = if m.uid() == self.uid {
                mode & 0o100 != 0
            } else if m.gid() == self.gid {
                mode & 0o010 != 0
            } else {
                mode & 0o001 != 0
            };
            (!enters).then(|| dir.to_path_buf())
        })
    }
}

/// Managed servers alive in this process: (process id, directory). Lets [`abort_all`] clean up
/// when pkbench must exit at once (a second Ctrl-C), without running destructors.
static LIVE: Mutex<Vec<(u32, PathBuf)>> = Mutex::new(Vec::new());

/// Kills every managed server of this process (SIGKILL to its process group) and removes its
/// directory. For an immediate exit; normal shutdown happens when each server is dropped.
pub fn abort_all() {
    let live = std::mem::take(&mut *LIVE.lock().unwrap_or_else(|e| e.into_inner()));
    for (pid, dir) in live {
        // The group may be gone already; the folder goes either way.
        let _ = crate::platform::signal_process_group(pid, libc::SIGKILL);
        // A killed child stays a zombie until reaped, so /proc cannot tell when it is gone.
        std::thread::sleep(Duration::from_millis(100));
        let _ = std::fs::remove_dir_all(dir);
    }
}

/// Prefixes of the temporary folders of managed servers.
pub const SERVER_DIR_PREFIXES: [&str; 2] = ["pkbench-postgres-", "pkbench-mariadb-"];

/// Removes `prefix<pid>-…` directories in `parent` left by pkbench processes that no longer
/// exist (killed before they could clean up); returns the folders removed.
pub fn remove_stale_dirs(parent: &Path, prefix: &str) -> Vec<PathBuf> {
    let mut removed = Vec::new();
    let Ok(entries) = std::fs::read_dir(parent) else { return removed };
    for entry in entries.filter_map(|e| e.ok()) {
        let name = entry.file_name().to_string_lossy().into_owned();
        let Some(pid) =
            name.strip_prefix(prefix).and_then(|rest| rest.split('-').next()).and_then(|p| p.parse::<u32>().ok())
        else {
            continue;
        };
        if pid != std::process::id()
            && !crate::platform::process_exists(pid)
            && std::fs::remove_dir_all(entry.path()).is_ok()
        {
            removed.push(entry.path());
        }
    }
    removed
}

/// [`remove_stale_dirs`] for every managed server's folder in `parent`.
pub fn remove_stale_server_dirs(parent: &Path) -> Vec<PathBuf> {
    SERVER_DIR_PREFIXES.iter().flat_map(|p| remove_stale_dirs(parent, p)).collect()
}

/// Whether managed servers' folders (in `parent`) live in memory (tmpfs or ramfs): then a run's
/// figures leave the disk out.
pub fn server_dirs_in_memory(parent: &Path) -> bool {
    crate::platform::in_memory_fs(parent).unwrap_or(false)
}

/// Creates `dir` readable and writable by its owner only (0700).
pub fn private_dir(dir: &Path) -> Result<(), Error> {
    use std::os::unix::fs::DirBuilderExt;
    std::fs::DirBuilder::new().mode(0o700).create(dir).map_err(|e| Error::io("create", dir, e))
}

/// A suffix that makes temporary names unique within this process.
pub fn unique_suffix() -> u128 {
    std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map_or(0, |d| d.as_nanos())
}

/// A loopback TCP port that was free a moment ago.
pub fn free_port() -> Result<u16, Error> {
    let listener =
        std::net::TcpListener::bind(("127.0.0.1", 0)).map_err(|e| Error::io("bind a free port on", "127.0.0.1", e))?;
    listener.local_addr().map(|a| a.port()).map_err(|e| Error::io("bind a free port on", "127.0.0.1", e))
}

/// The lines of a setup tool's output (initdb, mariadb-install-db) that say what went wrong: the
/// lines mentioning an error (up to three), else the last line — "Aborting" alone says nothing.
pub fn failure_summary(output: &[u8]) -> String {
    let text = String::from_utf8_lossy(output);
    let errors: Vec<&str> = text
        .lines()
        .map(str::trim)
        .filter(|l| l.contains("ERROR") || l.contains("error") || l.contains("FATAL"))
        .filter(|l| !l.ends_with("Aborting"))
        .take(3)
        .collect();
    if errors.is_empty() { text.lines().last().unwrap_or_default().trim().to_string() } else { errors.join(" / ") }
}

/// Polls `ready` every 100 ms until it returns true or `timeout` passes.
pub fn wait_until(timeout: Duration, mut ready: impl FnMut() -> bool) -> bool {
    let start = Instant::now();
    while start.elapsed() < timeout {
        if ready() {
            return true;
        }
        std::thread::sleep(Duration::from_millis(100));
    }
    false
}

/// A running server process and the temporary directory it lives in. Dropping it stops the
/// server (`stop_signal`, then SIGKILL after a grace period) and removes the directory.
#[derive(Debug)]
pub struct ManagedProcess {
    child: Child,
    dir: PathBuf,
    log: PathBuf,
    stop_signal: i32,
    name: &'static str,
}

impl ManagedProcess {
    /// Spawns `cmd` in its own process group with stdout/stderr to `dir/server.log`; the
    /// kernel sends `death_signal` to it if pkbench dies without stopping it. The signal is tied
    /// to the *thread* that spawns the server: start servers from a thread that outlives them.
    pub fn spawn(
        name: &'static str,
        mut cmd: Command,
        dir: PathBuf,
        stop_signal: i32,
        death_signal: i32,
    ) -> Result<Self, Error> {
        let log = dir.join("server.log");
        let file = std::fs::File::create(&log).map_err(|e| Error::io("create", &log, e))?;
        let file2 = file.try_clone().map_err(|e| Error::io("create", &log, e))?;
        cmd.stdin(Stdio::null()).stdout(file).stderr(file2).process_group(0);
        crate::platform::set_parent_death_signal(&mut cmd, death_signal);
        let child = cmd.spawn().map_err(|e| Error::io("start", format!("{name} server"), e))?;
        LIVE.lock().unwrap_or_else(|e| e.into_inner()).push((child.id(), dir.clone()));
        Ok(ManagedProcess { child, dir, log, stop_signal, name })
    }

    /// The server's temporary directory.
    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// Whether the process is still running.
    pub fn is_running(&mut self) -> bool {
        matches!(self.child.try_wait(), Ok(None))
    }

    /// The server log's first error line (or its last lines), for error messages.
    pub fn log_tail(&self) -> String {
        let text = std::fs::read_to_string(&self.log).unwrap_or_default();
        if let Some(error) = text.lines().find(|l| l.contains("ERROR") || l.contains("FATAL") || l.contains("PANIC")) {
            return error.trim().to_string();
        }
        let lines: Vec<&str> = text.lines().rev().take(3).collect();
        lines.into_iter().rev().collect::<Vec<_>>().join(" | ")
    }

    /// An error saying the server did not come up, with its log's last lines.
    pub fn startup_error(&self, what: &str) -> Error {
        Error::System(format!("the {} server {what}; its log says: {}", self.name, self.log_tail()))
    }

    /// Process id.
    pub fn pid(&self) -> u32 {
        self.child.id()
    }
}

impl Drop for ManagedProcess {
    fn drop(&mut self) {
        let pid = self.child.id();
        if matches!(self.child.try_wait(), Ok(None)) {
            // Our own child, not reaped yet: a failed signal means it has just exited.
            let _ = crate::platform::signal_process(pid, self.stop_signal);
            let stopped = wait_until(Duration::from_secs(20), || !matches!(self.child.try_wait(), Ok(None)));
            if !stopped {
                // Kill the whole process group the server leads.
                let _ = crate::platform::signal_process_group(pid, libc::SIGKILL);
                let _ = self.child.wait();
            }
        }
        let _ = std::fs::remove_dir_all(&self.dir);
        LIVE.lock().unwrap_or_else(|e| e.into_inner()).retain(|(p, _)| *p != pid);
    }
}

#[cfg(test)]
mod failure_tests {
    use super::failure_summary;

    #[test]
    fn failure_summary_names_the_error_not_just_aborting() {
        let out = b"Installing MariaDB/MySQL system tables\n2026 0 [ERROR] InnoDB: No space left on device\n2026 0 [ERROR] Aborting\n";
        assert_eq!(failure_summary(out), "2026 0 [ERROR] InnoDB: No space left on device");
        assert_eq!(failure_summary(b"one\nlast words\n"), "last words");
        assert_eq!(failure_summary(b""), "");
    }
}

#[cfg(test)]
mod user_tests {
    use super::ServerUser;
    use std::os::unix::fs::PermissionsExt;

    #[test]
    fn a_folder_others_cannot_enter_is_found_on_the_way() {
        let root = tempfile::tempdir().unwrap();
        std::fs::set_permissions(root.path(), std::fs::Permissions::from_mode(0o755)).unwrap();
        let home = root.path().join("home");
        let bin = home.join("bin");
        std::fs::create_dir_all(&bin).unwrap();
        std::fs::set_permissions(&home, std::fs::Permissions::from_mode(0o700)).unwrap();
        let nobody = ServerUser { uid: 65534, gid: 65534 };
        assert_eq!(nobody.blocked_at(&bin), Some(std::fs::canonicalize(&home).unwrap()));
        std::fs::set_permissions(&home, std::fs::Permissions::from_mode(0o755)).unwrap();
        assert_eq!(nobody.blocked_at(&bin), None);
    }
}
