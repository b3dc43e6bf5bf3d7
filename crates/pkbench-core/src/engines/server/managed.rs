//! How pkbench starts a throwaway server: where its folder goes and which settings the user
//! adds to pkbench's own.

use crate::Error;
use std::path::PathBuf;

/// A server setting given with `--server-setting NAME=VALUE`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ServerSetting {
    /// The name, lower case, `-` written as `_` (both servers take either).
    pub name: String,
    /// The value, as given; the server validates it.
    pub value: String,
}

impl ServerSetting {
    /// Parses `NAME=VALUE`. The name may hold letters, digits, `_`, `-` and `.` (a PostgreSQL
    /// extension's settings); the value is the server's to check.
    pub fn parse(text: &str) -> Result<Self, Error> {
        let bad = |why: &str| {
            Error::InvalidInput(format!("--server-setting '{text}' {why}: write NAME=VALUE, e.g. max_wal_size=10GB"))
        };
        let (name, value) = text.split_once('=').ok_or_else(|| bad("has no '='"))?;
        let name = name.trim();
        let starts_well = name.chars().next().is_some_and(|c| c.is_ascii_alphabetic() || c == '_');
        if !starts_well || !name.chars().all(|c| c.is_ascii_alphanumeric() || matches!(c, '_' | '-' | '.')) {
            return Err(bad("has no valid setting name"));
        }
        if value.is_empty() {
            return Err(bad("has no value"));
        }
        Ok(ServerSetting { name: name.to_ascii_lowercase().replace('-', "_"), value: value.to_string() })
    }

    /// Refuses this setting if it is one of `reserved` (name, what to do instead).
    pub fn check_allowed(&self, engine: &str, reserved: &[(&str, &str)]) -> Result<(), Error> {
        match reserved.iter().find(|(name, _)| *name == self.name) {
            Some((name, instead)) => Err(Error::InvalidInput(format!(
                "--server-setting {name} cannot be changed on a managed {engine} server: {instead}"
            ))),
            None => Ok(()),
        }
    }
}

/// How to start a managed server.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ManagedOptions {
    /// Folder holding the server binaries, if not found automatically.
    pub server_bin: Option<PathBuf>,
    /// Folder in which the server's own temporary folder is made (default: the temp folder,
    /// `TMPDIR`).
    pub data_dir: Option<PathBuf>,
    /// Settings given by the user, applied at start after pkbench's own, so they win.
    pub settings: Vec<ServerSetting>,
    /// Also listen on TCP at 127.0.0.1 (for tests of `--url`, TLS and passwords); `None`, the
    /// default, keeps the server on its private Unix socket only.
    pub tcp: Option<TcpListen>,
    /// Writes its changes out to files after 1/k of what it otherwise waits for (a calibration
    /// run at 1/k of its target's rows, whose cache is scaled the same way). PostgreSQL
    /// checkpoints after 1/k of the WAL: its WAL segments (`initdb --wal-segsize`),
    /// `max_wal_size` and `min_wal_size` shrink by k, a power of two up to
    /// [`MAX_CHECKPOINT_SCALE`]. MyRocks flushes and compacts a tree 1/k the size: its
    /// memtable, files and level targets shrink by k, up to
    /// [`MAX_TREE_SCALE`](crate::engine_facts::myrocks::MAX_TREE_SCALE). The other engines
    /// ignore it. `None` or 1 keeps the engine's own.
    pub checkpoint_scale: Option<u64>,
}

/// Largest [`ManagedOptions::checkpoint_scale`]: PostgreSQL's 16 MiB WAL segment cannot be
/// smaller than 1 MiB.
pub const MAX_CHECKPOINT_SCALE: u64 = 16;

/// A managed server's TCP listener on 127.0.0.1, for tests: PostgreSQL then asks TCP clients for
/// a password (scram-sha-256); MariaDB's root is reachable only through the socket.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct TcpListen {
    /// The port (e.g. from [`super::free_port`]).
    pub port: u16,
    /// TLS with this PEM certificate chain and key; `None` for a server without TLS.
    pub tls: Option<(PathBuf, PathBuf)>,
}

impl ManagedOptions {
    /// The folder that holds managed servers' folders.
    pub fn parent_dir(&self) -> PathBuf {
        self.data_dir.clone().unwrap_or_else(std::env::temp_dir)
    }

    /// Checks every user setting against `reserved`.
    pub fn check_settings(&self, engine: &str, reserved: &[(&str, &str)]) -> Result<(), Error> {
        self.settings.iter().try_for_each(|s| s.check_allowed(engine, reserved))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn settings_parse_to_one_spelling_and_bad_ones_say_how_to_write_them() {
        let s = ServerSetting::parse("Max-WAL_size=10GB").unwrap();
        assert_eq!((s.name.as_str(), s.value.as_str()), ("max_wal_size", "10GB"));
        let s = ServerSetting::parse("auto_explain.log_min_duration=0").unwrap();
        assert_eq!(s.name, "auto_explain.log_min_duration");
        assert_eq!(ServerSetting::parse("a=b=c").unwrap().value, "b=c");
        for bad in ["max_wal_size", "=1", "max_wal_size=", "x; DROP TABLE t=1", "1abc=2"] {
            let e = ServerSetting::parse(bad).unwrap_err().to_string();
            assert!(e.contains("write NAME=VALUE"), "{bad}: {e}");
        }
    }

    #[test]
    fn reserved_settings_say_what_to_use_instead() {
        let opts = ManagedOptions {
            settings: vec![ServerSetting::parse("shared_buffers=1GB").unwrap()],
            ..Default::default()
        };
        let e = opts.check_settings("PostgreSQL", &[("shared_buffers", "use --cache-mb")]).unwrap_err().to_string();
        assert_eq!(
            e,
            "--server-setting shared_buffers cannot be changed on a managed PostgreSQL server: use --cache-mb"
        );
    }
}
