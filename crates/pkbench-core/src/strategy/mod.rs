//! Strategies: a key generator, how the key is stored, and the table layout around it.
//!
//! A [`Strategy`] is engine-neutral: it says *what* the table holds (an engine-assigned integer,
//! a Snowflake, a UUID as 16 bytes or 36 characters; clustered on the key or a heap plus a
//! unique index; an optional second, external key). Each engine renders its own SQL from it.

mod catalog;
mod lookup;

pub use catalog::CATALOG;
pub use lookup::{find, parse_list};

use crate::generators::Scheme;

/// Where a key's values come from.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "snake_case")]
pub enum KeySource {
    /// The engine assigns it on insert (SQLite rowid, `IDENTITY`, `AUTO_INCREMENT`).
    EngineAssigned,
    /// The client generates it with a scheme.
    Client(Scheme),
}

/// How a key is stored in its column.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Storage {
    /// A 64-bit integer.
    Integer,
    /// 16 raw bytes (BLOB, `BINARY(16)`, `uuid`).
    Binary16,
    /// 36-character hyphenated text.
    Text36,
    /// 26-character Crockford base32 text (ULID's canonical form).
    Text26,
}

impl Storage {
    /// The text form of a 16-byte key in this storage; `None` for binary and integer storage.
    pub fn text_encoding(self) -> Option<crate::generators::TextEncoding> {
        use crate::generators::TextEncoding;
        match self {
            Storage::Integer | Storage::Binary16 => None,
            Storage::Text36 => Some(TextEncoding::Hyphenated),
            Storage::Text26 => Some(TextEncoding::Base32),
        }
    }
}

/// How the table's rows are organised relative to the primary key.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "snake_case")]
pub enum PrimaryIndex {
    /// Rows live in the primary key's B-tree (SQLite `INTEGER PRIMARY KEY` or `WITHOUT
    /// ROWID`, InnoDB): the key decides where each row lands.
    Clustered,
    /// Rows live in a table ordered by a hidden row id, and the primary key is a separate unique
    /// index (an SQLite rowid table with a non-integer key, a PostgreSQL heap).
    HeapWithIndex,
}

/// How the optional external (secondary) key can be looked up.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "snake_case")]
pub enum SecondaryLookup {
    /// A UNIQUE index on the column.
    UniqueIndex,
    /// No index: the control for measuring what the index costs.
    NoIndex,
    /// No index on the column; a separate mapping table keyed by it points to the primary key.
    MappingTable,
}

/// A key column's definition.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize)]
pub struct KeyColumn {
    /// Where values come from.
    pub source: KeySource,
    /// How values are stored.
    pub storage: Storage,
}

/// The optional second key column (an external/public id beside the primary key).
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize)]
pub struct SecondaryKey {
    /// The scheme generating its values.
    pub scheme: Scheme,
    /// How values are stored.
    pub storage: Storage,
    /// How it is indexed.
    pub lookup: SecondaryLookup,
}

/// A primary-key strategy: what pkbench compares.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize)]
pub struct Strategy {
    /// Canonical lowercase name, e.g. `uuid4-text`.
    pub name: &'static str,
    /// Other accepted names (seed 001's CamelCase names; matched case-sensitively).
    pub aliases: &'static [&'static str],
    /// One-line description for `pkbench list`.
    pub description: &'static str,
    /// The primary key.
    pub primary: KeyColumn,
    /// Clustered on the key, or a heap plus a unique index.
    pub index: PrimaryIndex,
    /// An optional external key column.
    pub secondary: Option<SecondaryKey>,
}

impl Strategy {
    /// Whether primary keys arrive in increasing order (engine-assigned or an ordered scheme).
    pub fn primary_is_ordered(&self) -> bool {
        match self.primary.source {
            KeySource::EngineAssigned => true,
            KeySource::Client(s) => s.is_ordered(),
        }
    }

    /// Whether inserts must carry a client-generated primary key.
    pub fn client_primary(&self) -> Option<Scheme> {
        match self.primary.source {
            KeySource::EngineAssigned => None,
            KeySource::Client(s) => Some(s),
        }
    }
}
