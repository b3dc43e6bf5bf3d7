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
    /// Something the input names does not exist: a table, a file, a server's binary.
    #[error("{0}")]
    NotFound(String),
    /// A file pkbench would create is already there; pkbench never overwrites it.
    #[error("{0}")]
    AlreadyExists(String),
    /// A database answered in a shape pkbench cannot read (a missing row, column or value):
    /// neither the user's input nor, as far as pkbench can tell, a bug of its own.
    #[error("{0}")]
    UnexpectedResponse(String),
    /// The machine or a program pkbench runs failed: a server that would not start, its
    /// set-up tool, a signal, a device that cannot be timed.
    #[error("{0}")]
    System(String),
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
    #[cfg(feature = "sqlite")]
    #[error("{context}: {cause}")]
    Sqlite {
        /// What pkbench was doing.
        context: String,
        /// SQLite's error.
        #[source]
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
        #[source]
        cause: std::io::Error,
    },
    /// An error returned by a server (PostgreSQL, MariaDB/MySQL) or its client library; a lost
    /// connection, a full disk or a statement timeout is named first.
    #[error("{}{context}: {error}", error.fault())]
    Server {
        /// What pkbench was doing (any URL in it is redacted).
        context: String,
        /// The server's error, with its kind.
        #[source]
        error: ServerError,
    },
    /// Results could not be serialised or parsed.
    #[error("{context}: {cause}")]
    Json {
        /// What pkbench was doing.
        context: String,
        /// The serde error.
        #[source]
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
    /// A broken invariant inside pkbench: a bug, not the user's input or the engine's answer.
    #[error("internal error: {0} (a bug in pkbench: please report it with the command that ran)")]
    Internal(String),
    /// The user interrupted the run (Ctrl-C).
    #[error("interrupted")]
    Interrupted,
}

/// What went wrong on a server, in terms pkbench can act on without reading driver types.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ServerErrorKind {
    /// A unique or primary key already holds the value.
    UniqueViolation,
    /// The server refused the user name or password.
    AuthenticationFailed,
    /// No server answered at the address (refused, timed out, no such host or socket).
    Unreachable,
    /// The server's disk or a table's size limit is full.
    DiskFull,
    /// The connection was lost, or the server shut down.
    ServerGone,
    /// A transaction lost a serialization or deadlock conflict and may be retried.
    Conflict,
    /// A statement ran longer than the server's statement timeout and was cancelled.
    Timeout,
    /// The login lacks a privilege the statement needs (SELECT on a table or a column).
    PermissionDenied,
    /// The statement is not valid on this server (syntax, unknown object, missing right).
    Rejected,
    /// Anything else.
    Other,
}

/// An error from a server or its client library: its kind and the message to show.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ServerError {
    /// The engine whose wire reported it, as messages name it ("PostgreSQL").
    pub engine: &'static str,
    /// What kind of failure it is.
    pub kind: ServerErrorKind,
    /// The server's own message (severity, code and text) or the client library's.
    pub message: String,
}

impl std::fmt::Display for ServerError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.message)
    }
}

// The driver's own error is reduced to the message: the server error ends the chain.
impl std::error::Error for ServerError {}

impl ServerError {
    /// The fault, named for the user ahead of the server's own words (empty for an error the
    /// statement itself caused): a lost connection, a full disk, a statement timeout.
    fn fault(&self) -> String {
        let engine = self.engine;
        match self.kind {
            ServerErrorKind::ServerGone => format!("the {engine} server closed the connection: "),
            ServerErrorKind::DiskFull => format!(
                "disk full where the {engine} data is (free space there: SQLite's is in --out, a managed server's under --data-dir): "
            ),
            ServerErrorKind::Timeout => format!("statement timeout on the {engine} server: "),
            _ => String::new(),
        }
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

    /// Wraps a server's error.
    pub fn server(context: impl Into<String>, error: ServerError) -> Self {
        Error::Server { context: context.into(), error }
    }

    /// The kind of server error this is, if a server reported it.
    pub fn server_kind(&self) -> Option<ServerErrorKind> {
        match self {
            Error::Server { error, .. } => Some(error.kind),
            _ => None,
        }
    }

    /// Wraps an SQLite error, recognising a full disk (`SQLITE_FULL`).
    #[cfg(feature = "sqlite")]
    pub fn sqlite(context: impl Into<String>, path: &std::path::Path, source: rusqlite::Error) -> Self {
        if source.sqlite_error_code() == Some(rusqlite::ErrorCode::DiskFull) {
            Error::DiskFull { path: path.to_path_buf() }
        } else {
            Error::Sqlite { context: context.into(), cause: source }
        }
    }
}

#[cfg(test)]
mod tests;
