//! Page-level models of the server engines pkbench runs: PostgreSQL (heap + nbtree, shared
//! buffers) and InnoDB (clustered B-tree, buffer pool LRU). Both split an overflowing page in
//! two, so they share one tree ([`tree`]); each engine brings its page layout and split rule
//! ([`nbtree`], [`innodb_page`]) and its cache ([`clock`], [`lru`]).

pub mod clock;
pub mod innodb;
pub mod innodb_page;
pub mod lru;
pub mod nbtree;
pub(crate) mod pg_heap;
pub mod postgres;
pub mod tree;

use crate::Error;
use crate::engine_facts::innodb::uuid_sort_key;
use crate::generators::Key;
use crate::keys::KeyRow;
use crate::predict::layout::{bytes_key, int_key};
use crate::strategy::{KeySource, SecondaryLookup, Storage, Strategy};

/// Which of a row's keys orders an index.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ServerKey {
    /// The primary key (an engine-assigned counter when the client sends none).
    Primary(Storage),
    /// The external key.
    Secondary(Storage),
}

impl ServerKey {
    /// The order-preserving 128-bit form of this key of `row`; `counter` is the row's number
    /// (what an identity / auto-increment column assigns: 1, 2, 3, …).
    pub fn value(self, row: &KeyRow, counter: i64) -> u128 {
        let (key, storage) = match self {
            ServerKey::Primary(s) => (row.primary, s),
            ServerKey::Secondary(s) => (row.secondary, s),
        };
        match key {
            Some(Key::Int(v)) => int_key(v),
            // MariaDB's UUID type compares its groups reversed (v1–v5).
            Some(Key::Uuid(b)) if storage == Storage::MariaDbUuid => bytes_key(uuid_sort_key(b)),
            // Text forms (hex, hyphenated, base32) sort as their bytes do.
            Some(Key::Uuid(b)) => bytes_key(storage.binary_form(b)),
            None => int_key(counter),
        }
    }
}

/// Refuses a strategy whose rows live apart from its key (a rowid table) on `store`, which
/// always clusters rows by the primary key.
pub fn refuse_heap(strategy: &Strategy, engine: &str, store: &str) -> Result<(), Error> {
    match strategy.index {
        crate::strategy::PrimaryIndex::Clustered => Ok(()),
        crate::strategy::PrimaryIndex::HeapWithIndex => Err(Error::Unsupported {
            strategy: strategy.name.into(),
            engine: engine.into(),
            reason: format!(
                "{store} always clusters rows by the primary key; there is no rowid table (use the strategy without -rowid)"
            ),
        }),
    }
}

/// Refuses strategies the server models do not cover, with the reason.
pub fn refuse_unmodelled(strategy: &Strategy, engine: &str) -> Result<(), Error> {
    let reason = if matches!(strategy.primary.source, KeySource::Server(_)) {
        Some("the server generates these keys, so the model has no key stream for them")
    } else if engine != innodb::ENGINE
        && std::iter::once(strategy.primary.storage)
            .chain(strategy.secondary.map(|s| s.storage))
            .any(|s| s == Storage::MariaDbUuid)
    {
        Some(
            "the reordered UUID column type is MariaDB's; PostgreSQL's uuid type is what the strategy without -mariadb-uuid uses",
        )
    } else if strategy.secondary.is_some_and(|s| s.lookup == SecondaryLookup::MappingTable) {
        Some("mapping tables are not modelled")
    } else {
        None
    };
    match reason {
        Some(r) => Err(Error::Unsupported { strategy: strategy.name.into(), engine: engine.into(), reason: r.into() }),
        None => Ok(()),
    }
}
