//! How much of each tree of a schema run is the key: the bytes of the run's key in each entry
//! (in a key column, a foreign key holding it, or the primary key a secondary index entry
//! carries), times the entries, over the tree's size.
//!
//! What an entry carries follows each engine's layout:
//! * InnoDB clusters every table by its primary key, and every secondary index entry carries the
//!   primary key after its own columns.
//! * PostgreSQL's tables are heaps; an index entry carries a 6-byte heap pointer, never the key.
//! * SQLite's rowid tables are clustered by rowid, and index entries carry the rowid; a
//!   `WITHOUT ROWID` table is clustered by its key, and its index entries carry the key.

use super::names::{ext_column, ext_index};
use super::plan::{Plan, Role, Source};
use crate::engine_kind::EngineKind;
use crate::results::BtreeStats;
use crate::strategy::{KeySource, PrimaryIndex, Storage, Strategy};

/// What a run's trees carry of the key, and why, in one sentence per engine.
pub fn carried_note(engine: EngineKind) -> &'static str {
    match engine {
        EngineKind::MariaDb | EngineKind::Spider => {
            "InnoDB: every secondary index entry carries the table's primary key, so a wider key widens every index of the table, not only the primary one."
        }
        EngineKind::MyRocks => {
            "RocksDB: every secondary index entry's key ends with the table's primary key, so a wider key widens every index of the table, not only the primary one."
        }
        EngineKind::Postgres | EngineKind::PostgresFdw => {
            "PostgreSQL: tables are heaps and index entries point at heap tuples (6 bytes), so only the key's own index and the indexes of foreign keys holding it grow with the key."
        }
        EngineKind::Sqlite => {
            "SQLite: index entries carry the rowid, or the key of a WITHOUT ROWID table, so a table clustered by a wide key widens every index on it."
        }
    }
}

/// The share of `tree`'s bytes that is the run's key, where the plan says what its entries
/// hold; `rows[f]` is the rows of `plan.fills[f]`.
pub fn key_share(plan: &Plan, strategy: &Strategy, engine: EngineKind, rows: &[u64], tree: &BtreeStats) -> Option<f64> {
    let (table, index) = match tree.name.split_once('.') {
        Some((t, i)) => (t, Some(i)),
        None => (tree.name.as_str(), None),
    };
    let f = plan.fills.iter().position(|f| f.table.name.eq_ignore_ascii_case(table))?;
    let fill = &plan.fills[f];
    let key = key_bytes(strategy.primary.storage, strategy.primary.source, engine, rows[plan.key]);
    let is_key_table = fill.role == Role::Key;
    // The second key beside the key (`int+uuid4`), in its own column of the key table.
    let second = strategy
        .secondary
        .filter(|_| is_key_table)
        .map(|s| (ext_column(&fill.table), key_bytes(s.storage, KeySource::Client(s.scheme), engine, rows[plan.key])));
    // Bytes of the run's keys a column holds.
    let held =
        |c: &str| {
            let own =
                fill.table.columns.iter().position(|x| x.name.eq_ignore_ascii_case(c)).is_some_and(|i| {
                    matches!(fill.sources[i], Source::Key) || fill.sources[i] == Source::Parent(plan.key)
                });
            match &second {
                Some((ext, bytes)) if ext.eq_ignore_ascii_case(c) => *bytes,
                _ if own => key,
                _ => 0.0,
            }
        };
    let per_entry = match index {
        // The table's own tree: every key-holding column of the row.
        None => fill.table.columns.iter().map(|c| held(&c.name)).sum::<f64>() + second.as_ref().map_or(0.0, |s| s.1),
        Some(name) => {
            let columns = match &second {
                Some((ext, _)) if name.eq_ignore_ascii_case(&ext_index(&fill.table)) => vec![ext.clone()],
                _ => index_columns(fill, name)?,
            };
            let own: f64 = columns.iter().map(|c| held(c)).sum();
            let carries_key = match engine {
                EngineKind::MariaDb | EngineKind::Spider | EngineKind::MyRocks => is_key_table,
                EngineKind::Postgres | EngineKind::PostgresFdw => false,
                EngineKind::Sqlite => is_key_table && sqlite_clustered_by_key(strategy),
            };
            // An index on the key itself does not carry it twice.
            let already = columns.iter().any(|c| fill.table.primary_key.iter().any(|k| k.eq_ignore_ascii_case(c)));
            own + if carries_key && !already { key } else { 0.0 }
        }
    };
    (tree.size_bytes > 0).then(|| (per_entry * rows[f] as f64 / tree.size_bytes as f64).min(1.0))
}

/// The columns of index `name` of a filled table: a user's index by its name, the primary key's
/// index by the engine's name for it, or an index InnoDB made for a foreign key (named after its
/// column).
fn index_columns(fill: &super::Fill, name: &str) -> Option<Vec<String>> {
    let t = &fill.table;
    if let Some(i) = t
        .indexes
        .iter()
        .enumerate()
        .find(|(n, i)| i.name.as_deref().unwrap_or(&format!("{}_idx{}", t.name, n + 1)).eq_ignore_ascii_case(name))
    {
        return Some(i.1.columns.clone());
    }
    if name.ends_with("_pkey") || name.starts_with("sqlite_autoindex_") || name == "PRIMARY" {
        return Some(t.primary_key.clone());
    }
    t.column(name).map(|c| vec![c.name.clone()])
}

/// Whether SQLite clusters the key table by the strategy's key (an integer key is the rowid;
/// another clustered key makes it `WITHOUT ROWID`).
fn sqlite_clustered_by_key(strategy: &Strategy) -> bool {
    strategy.primary.storage == Storage::Integer || strategy.index == PrimaryIndex::Clustered
}

/// Bytes of one of `strategy`'s keys as `engine` stores it in a row or an index entry, for a
/// key table of `rows` rows: what each column holding the key (its own, or a foreign key's)
/// keeps per row.
pub fn stored_key_bytes(strategy: &Strategy, engine: EngineKind, rows: u64) -> f64 {
    key_bytes(strategy.primary.storage, strategy.primary.source, engine, rows)
}

/// Bytes of one key stored as `storage` (from `source`) as `engine` stores it in a row or an
/// index entry, for a table of `rows` rows.
fn key_bytes(storage: Storage, source: KeySource, engine: EngineKind, rows: u64) -> f64 {
    match storage {
        Storage::Integer => match engine {
            // A record's integer: 1, 2, 3, 4, 6 or 8 bytes by its size (the rowid is the key).
            EngineKind::Sqlite if source == KeySource::EngineAssigned => match rows {
                0..=127 => 1.0,
                128..=32_767 => 2.0,
                32_768..=8_388_607 => 3.0,
                8_388_608..=2_147_483_647 => 4.0,
                _ => 6.0,
            },
            // An integer column: 8 bytes (so is SQLite's for a key the client generates).
            EngineKind::Sqlite
            | EngineKind::Postgres
            | EngineKind::MariaDb
            | EngineKind::Spider
            | EngineKind::PostgresFdw
            | EngineKind::MyRocks => 8.0,
        },
        // Binary keys (MariaDB's UUID type among them) are 16 bytes; text keys their
        // characters and a length byte.
        Storage::Binary16 | Storage::Binary16TimeSwapped | Storage::MariaDbUuid => 16.0,
        s => s.value_bytes() as f64 + 1.0,
    }
}
