//! The engine a report is about, and how advice names its remedies there.

use serde::{Deserialize, Serialize};

/// The engine doctor examined; advice and `--sql` speak its dialect.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Dialect {
    /// A SQLite file.
    Sqlite,
    /// A PostgreSQL server.
    Postgres,
    /// A MariaDB or MySQL server (InnoDB).
    Mariadb,
}

impl Dialect {
    /// The `engine` field of a report.
    pub fn name(self) -> &'static str {
        match self {
            Dialect::Sqlite => "sqlite",
            Dialect::Postgres => "postgres",
            Dialect::Mariadb => "mariadb",
        }
    }

    /// The engine named for people.
    pub fn label(self) -> &'static str {
        match self {
            Dialect::Sqlite => "SQLite",
            Dialect::Postgres => "PostgreSQL",
            Dialect::Mariadb => "MariaDB/MySQL",
        }
    }

    /// The 16-byte storage advice recommends instead of text.
    pub fn binary_type(self) -> &'static str {
        match self {
            Dialect::Sqlite => "a 16-byte BLOB",
            Dialect::Postgres => "the native 16-byte uuid type",
            Dialect::Mariadb => "BINARY(16) (or the 16-byte UUID type on MariaDB 10.7+)",
        }
    }

    /// The one-off rebuild that repacks half-empty pages.
    pub fn repack(self) -> &'static str {
        match self {
            Dialect::Sqlite => "VACUUM once to repack",
            Dialect::Postgres => "REINDEX the sparse indexes once (REINDEX … CONCURRENTLY avoids blocking writes)",
            Dialect::Mariadb => "OPTIMIZE TABLE once to rebuild the table and its indexes",
        }
    }

    /// What the rebuild needs while it runs, given the bytes of what it rebuilds.
    pub fn repack_needs(self, bytes: u64) -> String {
        let size = super::advice::human_bytes(bytes);
        match self {
            Dialect::Sqlite => format!("needs ~{size} free disk space while it runs"),
            Dialect::Postgres => format!("needs room for a new copy of each index rebuilt, up to ~{size}"),
            Dialect::Mariadb => format!("copies the table: needs ~{size} free disk space while it runs"),
        }
    }
}
