//! SQLite settings: what the user asks for, how they are applied, and what SQLite reports back.

use crate::Error;
#[cfg(feature = "sqlite")]
use rusqlite::Connection;
#[cfg(feature = "sqlite")]
use std::collections::BTreeMap;
use std::path::PathBuf;

/// `PRAGMA synchronous` levels.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Synchronous {
    /// No syncs.
    Off,
    /// Sync at checkpoints (WAL) — SQLite's usual WAL choice.
    Normal,
    /// Sync every commit.
    Full,
    /// FULL plus a directory sync.
    Extra,
}

impl Synchronous {
    /// The `PRAGMA synchronous` value.
    pub fn pragma(self) -> &'static str {
        match self {
            Synchronous::Off => "OFF",
            Synchronous::Normal => "NORMAL",
            Synchronous::Full => "FULL",
            Synchronous::Extra => "EXTRA",
        }
    }
}

/// `PRAGMA journal_mode` choices.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Journal {
    /// Write-ahead log.
    Wal,
    /// Rollback journal, deleted at commit.
    Delete,
}

/// Settings for every SQLite case of a run.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SqliteSettings {
    /// Folder the database files are created in.
    pub dir: PathBuf,
    /// Page cache size, MiB (`PRAGMA cache_size = -KiB`).
    pub cache_mb: u64,
    /// Page cache size in KiB instead of `cache_mb`, when set (`pkbench predict`'s calibration
    /// scales the cache below 1 MiB).
    pub cache_kib: Option<u64>,
    /// Page size in bytes, a power of two from 512 to 65536.
    pub page_size: u32,
    /// `PRAGMA synchronous`.
    pub sync: Synchronous,
    /// `PRAGMA journal_mode`.
    pub journal: Journal,
    /// Keep each case's database file instead of removing it.
    pub keep_db: bool,
}

impl SqliteSettings {
    /// The experiment of "Your SQLite Inserts Got 10× Slower — and a Random UUID Did It" (Arthur):
    /// WAL, `synchronous=FULL`, 4 KiB pages, 64 MB cache.
    pub fn seed_000(dir: PathBuf) -> Self {
        SqliteSettings {
            dir,
            cache_mb: 64,
            cache_kib: None,
            page_size: 4096,
            sync: Synchronous::Full,
            journal: Journal::Wal,
            keep_db: false,
        }
    }

    /// Checks ranges; the message says what is allowed.
    pub fn validate(&self) -> Result<(), Error> {
        check_page_size_and_cache(self.page_size, self.cache_mb)
    }

    /// The page cache, KiB: `cache_kib` if set, else `cache_mb` × 1024.
    pub fn cache_size_kib(&self) -> u64 {
        self.cache_kib.unwrap_or(self.cache_mb * 1024)
    }

    /// Applies the settings to a fresh, empty database (page size must precede any table).
    #[cfg(feature = "sqlite")]
    pub(crate) fn apply(&self, conn: &Connection) -> rusqlite::Result<()> {
        conn.pragma_update(None, "page_size", self.page_size)?;
        let mode = match self.journal {
            Journal::Wal => "WAL",
            Journal::Delete => "DELETE",
        };
        let _: String = conn.query_row(&format!("PRAGMA journal_mode = {mode}"), [], |r| r.get(0))?;
        self.apply_to_connection(conn)
    }

    /// Applies the per-connection settings (`synchronous`, `cache_size`) to one more
    /// connection of an existing database.
    #[cfg(feature = "sqlite")]
    pub(crate) fn apply_to_connection(&self, conn: &Connection) -> rusqlite::Result<()> {
        conn.pragma_update(None, "synchronous", self.sync.pragma())?;
        conn.pragma_update(None, "cache_size", -(self.cache_size_kib() as i64))?;
        Ok(())
    }
}

/// The settings as SQLite reports them.
#[cfg(feature = "sqlite")]
pub(crate) fn read_back(conn: &Connection) -> rusqlite::Result<BTreeMap<String, String>> {
    let mut out = BTreeMap::new();
    for pragma in ["page_size", "journal_mode", "synchronous", "cache_size", "wal_autocheckpoint", "cache_spill"] {
        let value: rusqlite::types::Value = conn.query_row(&format!("PRAGMA {pragma}"), [], |r| r.get(0))?;
        let text = match value {
            rusqlite::types::Value::Integer(i) => i.to_string(),
            rusqlite::types::Value::Text(t) => t,
            other => format!("{other:?}"),
        };
        out.insert(pragma.to_string(), text);
    }
    out.insert("sqlite_version".into(), rusqlite::version().to_string());
    Ok(out)
}

/// Checks a page size and a cache size against what SQLite accepts (shared with the SQLite
/// model of `pkbench predict`); the message says what is allowed.
pub fn check_page_size_and_cache(page_size: u32, cache_mb: u64) -> Result<(), Error> {
    if !(512..=65536).contains(&page_size) || !page_size.is_power_of_two() {
        return Err(Error::InvalidInput(format!(
            "--page-size {page_size} is not valid: use a power of two from 512 to 65536 (e.g. 4096)"
        )));
    }
    if cache_mb == 0 || cache_mb > 1 << 20 {
        return Err(Error::InvalidInput(format!("--cache-mb {cache_mb} is out of range: use 1 to 1048576 MiB")));
    }
    Ok(())
}
