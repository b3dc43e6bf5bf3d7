//! One connection layer per wire protocol (and one for SQLite, linked in). Each file owns its
//! driver's calls and maps the driver's errors onto [`crate::ServerErrorKind`]s, so the rest of
//! pkbench — the engine core, doctor, calibration — runs SQL without naming a driver (as sqlx's
//! `Database` backends do).
//!
//! Parameters go in as [`Param`]s borrowed from the caller's buffers (no allocation per row on
//! PostgreSQL's wire), rows come back as [`Value`]s.

mod value;

pub mod connect;
pub mod credentials;
#[cfg(feature = "mysql")]
pub mod mysql;
#[cfg(feature = "mysql")]
pub mod mysql_target;
#[cfg(feature = "postgres")]
pub mod postgres;
#[cfg(feature = "postgres")]
pub mod postgres_target;
#[cfg(feature = "sqlite")]
pub mod sqlite;
pub mod tls;

pub use value::{KeySlot, Value};

use crate::values::Param;
// The concurrent workload still names it here.
// The own-schema files still name it here.

use crate::ServerError;
use crate::control::RunControl;
use crate::generators::Key;
use crate::keys::KeyRow;
use crate::strategy::Storage;

/// The SQL of a multi-row statement, rendered by the dialect for the wire that runs it:
/// PostgreSQL binds each column as one array parameter, MySQL's wire appends literal rows.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BulkSql {
    /// The statement (PostgreSQL: complete, with array parameters; MySQL: the text rows are
    /// appended to, e.g. `INSERT INTO t (cols) VALUES ` or `DELETE FROM t WHERE id IN (`).
    pub sql: String,
    /// Client-side key columns in parameter order: which key of a row each takes, and its
    /// storage.
    pub keys: Vec<(KeyField, Storage)>,
    /// Whether a payload column follows the keys.
    pub payload: bool,
}

/// Which key of a [`KeyRow`] a column takes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum KeyField {
    /// The primary key.
    Primary,
    /// The external (secondary) key.
    Secondary,
}

impl KeyField {
    /// This key of `row`.
    #[inline]
    pub fn of(self, row: &KeyRow) -> Option<Key> {
        match self {
            KeyField::Primary => row.primary,
            KeyField::Secondary => row.secondary,
        }
    }
}

/// Adds a statement's `rows` to `control`'s counter; `false` once the run is cancelled.
#[cfg_attr(not(any(feature = "postgres", feature = "mysql", feature = "sqlite")), allow(dead_code))]
fn counted(control: &RunControl, rows: usize) -> bool {
    control.add_rows(rows as u64);
    !control.is_cancelled()
}

/// A connection on one wire protocol.
pub trait Connection: Send + Sized {
    /// A prepared statement.
    type Statement: Clone + Send;
    /// A prepared multi-row INSERT or key-list DELETE, with its reusable buffers.
    type Bulk: Send;

    /// Runs SQL without parameters (several statements where the protocol allows).
    fn execute(&mut self, sql: &str) -> Result<(), ServerError>;
    /// Prepares one statement.
    fn prepare(&mut self, sql: &str) -> Result<Self::Statement, ServerError>;
    /// Runs a prepared data change; returns rows affected.
    fn exec(&mut self, stmt: &Self::Statement, params: &[Param<'_>]) -> Result<u64, ServerError>;
    /// Runs a prepared query, handing each row to `row`; returns rows read.
    fn query(
        &mut self,
        stmt: &Self::Statement,
        params: &[Param<'_>],
        row: &mut dyn FnMut(&[Value]),
    ) -> Result<u64, ServerError>;
    /// Runs SQL text (catalog and settings reads) and returns every row.
    fn query_text(&mut self, sql: &str) -> Result<Vec<Vec<Value>>, ServerError>;
    /// Prepares a multi-row statement; `payload_bytes` is the payload every inserted row carries.
    fn bulk(&mut self, sql: &BulkSql, payload_bytes: usize) -> Result<Self::Bulk, ServerError>;
    /// Inserts `rows` with a bulk INSERT, as many statements as the wire needs; adds to
    /// `control`'s row counter and stops with `Ok(false)` once it is cancelled.
    fn insert_rows(
        &mut self,
        bulk: &mut Self::Bulk,
        rows: &[KeyRow],
        control: &RunControl,
    ) -> Result<bool, ServerError>;
    /// Runs a bulk DELETE with `keys`, `per_statement` keys at a time; returns rows affected
    /// and stops early (`None`) once `control` is cancelled.
    fn delete_keys(
        &mut self,
        bulk: &mut Self::Bulk,
        keys: &[Key],
        per_statement: usize,
        control: &RunControl,
    ) -> Result<Option<u64>, ServerError>;
    /// Most bytes one statement may carry (MySQL's `max_allowed_packet`); `None` for no limit.
    fn max_statement_bytes(&mut self) -> Result<Option<u64>, ServerError>;

    /// Nanoseconds this connection has spent waiting for the database's write lock so far,
    /// where writers serialise on one lock and the connection times it (SQLite's clients);
    /// `None` where there is no such lock to time.
    fn lock_wait_ns(&self) -> Option<u64> {
        None
    }

    /// The rowid the connection's last INSERT assigned, where the engine keeps it for the
    /// connection to read at no cost (SQLite's `sqlite3_last_insert_rowid`); `None` elsewhere.
    fn last_insert_rowid(&self) -> Option<i64> {
        None
    }

    /// The first column of the first row of `sql`, if any.
    fn query_one_text(&mut self, sql: &str) -> Result<Option<Value>, ServerError> {
        Ok(self.query_text(sql)?.into_iter().next().and_then(|r| r.into_iter().next()))
    }
}

/// What an I/O error under a driver's error says: no server at the address, or the connection
/// lost (reset, cut, closed mid-answer); `None` for anything else.
#[cfg(any(feature = "mysql", feature = "postgres"))]
pub(crate) fn io_fault(kind: std::io::ErrorKind) -> Option<crate::ServerErrorKind> {
    use std::io::ErrorKind as Io;
    match kind {
        Io::ConnectionRefused | Io::NotFound | Io::TimedOut | Io::HostUnreachable | Io::NetworkUnreachable => {
            Some(crate::ServerErrorKind::Unreachable)
        }
        Io::ConnectionReset | Io::ConnectionAborted | Io::BrokenPipe | Io::UnexpectedEof => {
            Some(crate::ServerErrorKind::ServerGone)
        }
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ServerErrorKind;
    use crate::engines::EngineKind;

    #[test]
    fn server_errors_show_their_message() {
        let e = ServerError {
            engine: EngineKind::Postgres.label(),
            kind: ServerErrorKind::UniqueViolation,
            message: "ERROR: duplicate key".into(),
        };
        assert_eq!(e.to_string(), "ERROR: duplicate key");
        let wrapped = crate::Error::server("INSERT failed", e);
        assert_eq!(wrapped.server_kind(), Some(ServerErrorKind::UniqueViolation));
        assert_eq!(wrapped.to_string(), "INSERT failed: ERROR: duplicate key");
    }

    #[test]
    fn a_full_disk_is_named_first_with_where_to_free_space() {
        let full = ServerError {
            engine: EngineKind::MariaDb.label(),
            kind: ServerErrorKind::DiskFull,
            message: "1114".into(),
        };
        let e = crate::Error::server("INSERT failed", full);
        assert_eq!(e.server_kind(), Some(ServerErrorKind::DiskFull));
        assert!(e.to_string().starts_with("disk full where the MariaDB/MySQL data is (free space there"), "{e}");
        assert!(e.to_string().ends_with("INSERT failed: 1114"), "{e}");
    }

    #[test]
    fn a_lost_connection_and_a_timeout_are_named_first() {
        let error = |kind| ServerError { engine: EngineKind::Postgres.label(), kind, message: "FATAL: x".into() };
        let gone = crate::Error::server("INSERT failed", error(ServerErrorKind::ServerGone));
        assert_eq!(gone.to_string(), "the PostgreSQL server closed the connection: INSERT failed: FATAL: x");
        let slow = crate::Error::server("INSERT failed", error(ServerErrorKind::Timeout));
        assert_eq!(slow.to_string(), "statement timeout on the PostgreSQL server: INSERT failed: FATAL: x");
    }
}
