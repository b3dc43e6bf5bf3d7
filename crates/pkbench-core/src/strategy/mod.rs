//! Strategies: a key generator, how the key is stored, and the table layout around it.
//!
//! A [`Strategy`] is engine-neutral: it says *what* the table holds (an engine-assigned integer,
//! a Snowflake, a UUID as 16 bytes or 36 characters; clustered on the key or a heap plus a
//! unique index; an optional second, external key). Each engine renders its own SQL from it.

mod catalog;
mod encoding;
mod lookup;

pub use catalog::CATALOG;
pub use encoding::{swap_time_fields, unswap_time_fields};
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
    /// The server generates it with its own function on insert (`gen_random_uuid()`, `UUID()`);
    /// the client sends no key. The scheme names the UUID version the server produces.
    Server(Scheme),
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
    /// 32 hex digits in a fixed-width column (`CHAR(32)`).
    Hex32,
    /// 32 hex digits in a variable-width column (`VARCHAR(32)`).
    VarHex32,
    /// 36-character hyphenated text in a variable-width column (`VARCHAR(36)`).
    VarText36,
    /// MariaDB's native `UUID` type (10.7+), which reorders a v1–v5 UUID's fields on disk so
    /// that v1 sorts by time; rejected by engines without it.
    MariaDbUuid,
    /// 16 raw bytes with a UUIDv1's time fields swapped to high-mid-low, as MySQL's
    /// `UUID_TO_BIN(u, 1)` stores them (see [`swap_time_fields`]): time-ordered bytes.
    Binary16TimeSwapped,
}

impl Storage {
    /// The text form of a 16-byte key in this storage; `None` for binary and integer storage.
    pub fn text_encoding(self) -> Option<crate::generators::TextEncoding> {
        use crate::generators::TextEncoding;
        match self {
            Storage::Integer | Storage::Binary16 | Storage::Binary16TimeSwapped => None,
            Storage::Text36 | Storage::VarText36 | Storage::MariaDbUuid => Some(TextEncoding::Hyphenated),
            Storage::Hex32 | Storage::VarHex32 => Some(TextEncoding::Hex),
            Storage::Text26 => Some(TextEncoding::Base32),
        }
    }

    /// Bytes one key value takes stored this way: 8 for an integer, 16 for the binary forms and
    /// MariaDB's `UUID` type (16 bytes on disk, though sent as text), the characters of a text
    /// form.
    pub fn value_bytes(self) -> u32 {
        match self {
            Storage::Integer => 8,
            Storage::Binary16 | Storage::Binary16TimeSwapped | Storage::MariaDbUuid => 16,
            Storage::Text36 | Storage::VarText36 => 36,
            Storage::Hex32 | Storage::VarHex32 => 32,
            Storage::Text26 => 26,
        }
    }

    /// Whether keys stored this way sort as the key does: every storage but those that move a
    /// UUID's fields ([`Storage::MariaDbUuid`], [`Storage::Binary16TimeSwapped`]).
    pub fn keeps_order(self) -> bool {
        !matches!(self, Storage::MariaDbUuid | Storage::Binary16TimeSwapped)
    }

    /// The 16 bytes a binary storage holds for `key` (swapped for
    /// [`Storage::Binary16TimeSwapped`]).
    #[inline]
    pub fn binary_form(self, key: [u8; 16]) -> [u8; 16] {
        match self {
            Storage::Binary16TimeSwapped => swap_time_fields(key),
            _ => key,
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
    /// Other accepted names (the CamelCase names of "SQLite ID Benchmarks"; matched
    /// case-sensitively).
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
            KeySource::Client(s) | KeySource::Server(s) => s.is_ordered(),
        }
    }

    /// Whether every index of the table receives its keys in increasing order: the primary key
    /// ordered and stored in order, and a second key, if indexed or mapped, too. Such a table's
    /// inserts all go to the right edge of each index (and of an LSM memtable's key range).
    /// Conservative: a storage that moves a UUID's fields ([`Storage::keeps_order`]) counts as
    /// out of order whatever the scheme.
    pub fn inserts_in_key_order(&self) -> bool {
        let primary = self.primary_is_ordered() && self.primary.storage.keeps_order();
        let secondary = self
            .secondary
            .is_none_or(|s| s.lookup == SecondaryLookup::NoIndex || (s.scheme.is_ordered() && s.storage.keeps_order()));
        primary && secondary
    }

    /// Whether inserts must carry a client-generated primary key.
    pub fn client_primary(&self) -> Option<Scheme> {
        match self.primary.source {
            KeySource::EngineAssigned | KeySource::Server(_) => None,
            KeySource::Client(s) => Some(s),
        }
    }

    /// Whether this strategy's rows land in the key's tree as `other`'s do: the same source of
    /// keys (or two client schemes whose keys both arrive in strictly increasing order, so each
    /// new row goes to the right edge of the key's tree), in the same column type, in a table
    /// organised alike with the same second key. Their pages fill in the same order and split
    /// alike; only a value's bytes may differ (SQLite's integers take as many bytes as their
    /// size needs), which a page model counts for each key.
    pub fn places_rows_like(&self, other: &Strategy) -> bool {
        let storage = self.primary.storage;
        let source = match (self.primary.source, other.primary.source) {
            (KeySource::Client(a), KeySource::Client(b)) => {
                a == b || (a.is_ordered() && b.is_ordered() && storage.keeps_order())
            }
            (a, b) => a == b,
        };
        source && storage == other.primary.storage && self.index == other.index && self.secondary == other.secondary
    }

    /// The UUID version the server generates for the primary key, if it does.
    pub fn server_primary(&self) -> Option<Scheme> {
        match self.primary.source {
            KeySource::Server(s) => Some(s),
            _ => None,
        }
    }
}

/// The strategies whose calibration can be another's: each one whose rows land where an earlier
/// strategy's do ([`Strategy::places_rows_like`]: snowflake's where int-client's, ulid's where
/// uuid7's), paired with the first such strategy. None where that would leave a single run: the
/// costs are fitted over the batches of every run, and one run's are too few to tell them apart.
pub fn stand_ins(strategies: &[&'static Strategy]) -> Vec<(&'static Strategy, &'static Strategy)> {
    let pairs: Vec<_> = strategies
        .iter()
        .enumerate()
        .filter_map(|(i, &s)| strategies[..i].iter().find(|c| c.places_rows_like(s)).map(|&c| (s, c)))
        .collect();
    if strategies.len() - pairs.len() < 2 { Vec::new() } else { pairs }
}

#[cfg(test)]
mod tests {
    use super::find;

    fn like(a: &str, b: &str) -> bool {
        find(a).unwrap().places_rows_like(find(b).unwrap())
    }

    #[test]
    fn only_ordered_keys_in_every_index_insert_in_key_order() {
        for ordered in ["int", "uuid7", "uuid7-text", "snowflake", "ulid"] {
            assert!(find(ordered).unwrap().inserts_in_key_order(), "{ordered}");
        }
        for scattered in ["uuid4", "uuid4-text", "int+uuid4", "snowflake+uuid4"] {
            assert!(!find(scattered).unwrap().inserts_in_key_order(), "{scattered}");
        }
    }

    #[test]
    fn ordered_client_keys_stored_alike_place_rows_alike() {
        assert!(like("int-client", "snowflake"));
        assert!(like("uuid7", "ulid"));
        assert!(like("uuid4", "uuid4"));
        // An engine-assigned key is not a client's; random keys land elsewhere each time.
        assert!(!like("int", "int-client"));
        assert!(!like("uuid4", "uuid7"));
        // Stored differently: 36 characters against 26, text against bytes.
        assert!(!like("uuid7-text", "ulid-text"));
        assert!(!like("uuid7", "uuid7-text"));
        // A second key beside the same integer key.
        assert!(!like("int", "int+uuid4"));
        assert!(!like("int-client", "snowflake+uuid4"));
        // Ordered only per worker or not at all; generated by the server; in a heap.
        assert!(!like("snowflake", "snowflake-workers"));
        assert!(!like("int-client", "hash-seq"));
        assert!(!like("uuid7", "uuid7-server"));
        assert!(!like("uuid7", "uuid7-rowid"));
        // One class, whichever member is asked.
        assert!(like("uuid6", "ulid") && like("ulid", "uuid7") && like("uuid6", "uuid7"));
    }
}
