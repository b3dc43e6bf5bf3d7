//! The library's error type. Every message is one line that says what to do.

use std::path::PathBuf;

/// Everything that can go wrong in pkbench's library.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// A strategy name that matches nothing.
    #[error("unknown strategy '{name}'{}; valid strategies: {valid}", did_you_mean(*suggestion))]
    UnknownStrategy {
        /// What the user typed.
        name: String,
        /// The closest known name, if any is close.
        suggestion: Option<&'static str>,
        /// All canonical names, comma-separated.
        valid: String,
    },
    /// An invalid setting or argument; the message says which and what is allowed.
    #[error("{0}")]
    InvalidInput(String),
    /// The engine cannot run a strategy.
    #[error("strategy '{strategy}' is not supported on {engine}: {reason}")]
    Unsupported {
        /// Strategy name.
        strategy: String,
        /// Engine name.
        engine: String,
        /// Why, in one line.
        reason: String,
    },
    /// The disk (or the database's size cap) filled up.
    #[error("disk full while writing '{}': free some space or pass --out on a disk with more room", path.display())]
    DiskFull {
        /// The file being written.
        path: PathBuf,
    },
    /// An error returned by SQLite.
    #[error("{context}: {cause}")]
    Sqlite {
        /// What pkbench was doing.
        context: String,
        /// SQLite's error.
        cause: rusqlite::Error,
    },
    /// A file could not be read or written.
    #[error("could not {action} '{}': {cause}", path.display())]
    Io {
        /// "write", "create", "read", …
        action: &'static str,
        /// The path concerned.
        path: PathBuf,
        /// The OS error.
        cause: std::io::Error,
    },
    /// An error returned by PostgreSQL or its client library.
    #[error("{context}: {}", postgres_message(cause))]
    Postgres {
        /// What pkbench was doing (any URL in it is redacted).
        context: String,
        /// The client library's error.
        cause: postgres::Error,
    },
    /// An error returned by MariaDB/MySQL or its client library.
    #[error("{context}: {}", mysql_message(cause))]
    MariaDb {
        /// What pkbench was doing (any URL in it is redacted).
        context: String,
        /// The client library's error.
        cause: mysql::Error,
    },
    /// Results could not be serialised or parsed.
    #[error("{context}: {cause}")]
    Json {
        /// What pkbench was doing.
        context: String,
        /// The serde error.
        cause: serde_json::Error,
    },
    /// The engine holds a different number of rows than the run inserted.
    #[error("verification failed for '{strategy}': inserted {expected} rows but the table holds {found}")]
    Verification {
        /// Strategy name.
        strategy: String,
        /// Rows inserted.
        expected: u64,
        /// Rows found.
        found: u64,
    },
    /// The user interrupted the run (Ctrl-C).
    #[error("interrupted")]
    Interrupted,
}

/// PostgreSQL's own message (severity, text, detail) where the server sent one.
fn postgres_message(e: &postgres::Error) -> String {
    match e.as_db_error() {
        Some(db) => format!("{}: {}", db.severity(), db.message()),
        None => {
            // Client-side errors keep the cause (e.g. "Connection refused") in their source chain.
            let mut text = e.to_string();
            let mut source = std::error::Error::source(e);
            while let Some(s) = source {
                let part = s.to_string();
                if !text.contains(&part) {
                    text.push_str(": ");
                    text.push_str(&part);
                }
                source = s.source();
            }
            text
        }
    }
}

/// The server's error code and message, or the client's error.
fn mysql_message(e: &mysql::Error) -> String {
    match e {
        mysql::Error::MySqlError(m) => format!("ERROR {} ({}): {}", m.code, m.state, m.message),
        other => other.to_string(),
    }
}

fn did_you_mean(s: Option<&str>) -> String {
    s.map(|s| format!(" (did you mean '{s}'?)")).unwrap_or_default()
}

impl Error {
    /// Wraps an I/O error, recognising a full disk.
    pub fn io(action: &'static str, path: impl Into<PathBuf>, source: std::io::Error) -> Self {
        let path = path.into();
        if source.kind() == std::io::ErrorKind::StorageFull {
            Error::DiskFull { path }
        } else {
            Error::Io { action, path, cause: source }
        }
    }

    /// Wraps a PostgreSQL error, recognising a full disk (SQLSTATE 53100).
    pub fn postgres(context: impl Into<String>, cause: postgres::Error) -> Self {
        if cause.code() == Some(&postgres::error::SqlState::DISK_FULL) {
            Error::DiskFull { path: "the PostgreSQL data directory".into() }
        } else {
            Error::Postgres { context: context.into(), cause }
        }
    }

    /// Wraps a MariaDB/MySQL error, recognising a full disk or table (errors 1021, 1114).
    pub fn mariadb(context: impl Into<String>, cause: mysql::Error) -> Self {
        match &cause {
            mysql::Error::MySqlError(m) if m.code == 1021 || m.code == 1114 => {
                Error::DiskFull { path: "the MariaDB data directory".into() }
            }
            _ => Error::MariaDb { context: context.into(), cause },
        }
    }

    /// Wraps an SQLite error, recognising a full disk (`SQLITE_FULL`).
    pub fn sqlite(context: impl Into<String>, path: &std::path::Path, source: rusqlite::Error) -> Self {
        if source.sqlite_error_code() == Some(rusqlite::ErrorCode::DiskFull) {
            Error::DiskFull { path: path.to_path_buf() }
        } else {
            Error::Sqlite { context: context.into(), cause: source }
        }
    }
}
