//! `predict --schema`: the key table of a user's schema laid out tree by tree as the engine
//! `run --schema` would make it — SQLite's table and indexes ([`sqlite`]), PostgreSQL's heap,
//! primary-key index and secondary indexes ([`postgres`]), InnoDB's clustered index and
//! secondary indexes ([`innodb`]) — and filled with the rows `run --schema` would insert.
//!
//! Every model takes two passes over the rows: the first measures each tree's entries in the
//! engine's record format, value by value (the heap of PostgreSQL is laid out exactly, row by
//! row), the second inserts every row's key into each tree, in the row's order, with entries of
//! the tree's mean size. Index keys are the indexed values in an order-preserving 96-bit prefix
//! ([`prefix`]), ties broken by the row's number or key.

mod feed;
mod innodb;
mod postgres;
mod prefix;
mod sqlite;

use crate::Error;
use crate::engines::EngineKind;
use crate::predict::server::tree::Buffers;
use crate::results::BtreeStats;
use crate::schema::{Plan, Source, Table, ext_index};
use crate::strategy::{Storage, Strategy};
use crate::values::Param;
use crate::values::SqlType;
use crate::workloads::OwnSchema;

pub use feed::IndexFeed;
pub use postgres::time_indexes;
pub use sqlite::predict_sqlite;

/// The engines `predict --schema` models.
pub const SCHEMA_ENGINES: [EngineKind; 3] = [EngineKind::Sqlite, EngineKind::Postgres, EngineKind::MariaDb];

/// The key table's trees after `workload`'s rows for `strategy` on `engine`, as the engine's
/// own statistics would report them (`run --schema`'s names: `table`, `table.index`);
/// `page_size` is SQLite's (the servers' pages are fixed).
pub fn predict_schema(
    workload: &OwnSchema,
    strategy: &Strategy,
    engine: EngineKind,
    page_size: u32,
) -> Result<Vec<BtreeStats>, Error> {
    match engine {
        EngineKind::Sqlite => sqlite::predict_sqlite(workload, strategy, page_size),
        EngineKind::Postgres => postgres::predict(workload, strategy),
        EngineKind::MariaDb => innodb::predict(workload, strategy),
        EngineKind::Spider | EngineKind::PostgresFdw | EngineKind::MyRocks => Err(Error::InvalidInput(format!(
            "predict --schema models sqlite, postgres and mariadb, not {}: use --engine with one of them",
            engine.name()
        ))),
    }
}

/// No cache for the server models' trees: the layout does not depend on it.
struct Unbuffered;

impl Buffers for Unbuffered {
    fn fetch(&mut self, _: u32, _: bool) {}
    fn modify(&mut self, _: u32, _: u32) {}
}

/// What the models need of the key table.
struct KeyTable<'a> {
    table: &'a Table,
    /// The key column's position.
    key_column: usize,
    /// Columns of a row: the table's, and a strategy's second key after them
    /// ([`crate::schema::ext_column`]).
    width: usize,
    /// Each column's type as generated (`None`: the key, or always NULL).
    types: Vec<Option<SqlType>>,
    /// Secondary indexes: name as the engines report it, and columns (the second key's unique
    /// index last).
    indexes: Vec<IndexShape>,
}

/// A secondary index of the key table.
struct IndexShape {
    name: String,
    columns: Vec<usize>,
}

impl<'a> KeyTable<'a> {
    fn new(plan: &'a Plan, strategy: &Strategy) -> Self {
        let table = plan.key_table();
        let sources = &plan.fills[plan.key].sources;
        let key_column = sources.iter().position(|s| *s == Source::Key).unwrap_or(0);
        let mut types: Vec<Option<SqlType>> = sources
            .iter()
            .map(|s| match *s {
                Source::Value(ty) | Source::Sequence(ty) => Some(ty),
                // An ancestor's key is its row number, in its key column's type.
                Source::Parent(n) => plan.fills[n].sources.iter().find_map(|s| match s {
                    Source::Sequence(ty) => Some(*ty),
                    _ => None,
                }),
                Source::Key | Source::Null | Source::Computed => None,
            })
            .collect();
        let mut indexes: Vec<IndexShape> = table
            .indexes
            .iter()
            .enumerate()
            .map(|(n, index)| IndexShape {
                // As `schema::render` names an index the file leaves unnamed.
                name: index.name.clone().unwrap_or_else(|| format!("{}_idx{}", table.name, n + 1)),
                columns: index.columns.iter().filter_map(|c| column_position(table, c)).collect(),
            })
            .collect();
        let mut width = table.columns.len();
        if let Some(second) = strategy.secondary {
            types.push((second.storage == Storage::Binary16).then_some(SqlType::Uuid));
            indexes.push(IndexShape { name: ext_index(table), columns: vec![width] });
            width += 1;
        }
        KeyTable { table, key_column, width, types, indexes }
    }

    /// Whether column `c` may be NULL (the second key may not).
    fn nullable(&self, c: usize) -> bool {
        self.table.columns.get(c).is_some_and(|x| x.nullable)
    }

    /// The name `run --schema` gives a tree of this table (`table.index`).
    fn tree_name(&self, index: &str) -> String {
        format!("{}.{index}", self.table.name)
    }
}

fn column_position(table: &Table, name: &str) -> Option<usize> {
    table.columns.iter().position(|x| x.name.eq_ignore_ascii_case(name))
}

/// Column `c`'s parameter in a row handed over by [`OwnSchema::key_rows`] (`None`: the column
/// is not sent, as an engine-assigned key).
fn value<'p>(columns: &[usize], params: &[Param<'p>], c: usize) -> Option<Param<'p>> {
    columns.iter().position(|x| *x == c).map(|i| params[i])
}

/// `sum / rows`, rounded, as a model's entry size.
fn mean(sum: u64, rows: u64) -> u32 {
    (sum as f64 / rows.max(1) as f64).round() as u32
}

/// Every row's key in the engine's order, sorted: a row's place in it (its rank) breaks ties
/// between index entries that carry the key, in the key's order, within the 32 bits a model's
/// index key leaves for it.
struct KeyRanks {
    sorted: Vec<u128>,
}

impl KeyRanks {
    /// The keys `workload` makes for `strategy`, ordered by `order(key, rowid)`.
    fn new(
        workload: &OwnSchema,
        strategy: &Strategy,
        order: impl Fn(Option<crate::generators::Key>, i64) -> u128,
    ) -> Result<Self, Error> {
        let mut sorted = Vec::with_capacity(workload.rows() as usize);
        workload.key_rows(strategy, &mut |rowid, key, _, _| sorted.push(order(key, rowid)))?;
        sorted.sort_unstable();
        Ok(KeyRanks { sorted })
    }

    /// The rank of `key`.
    fn rank(&self, key: u128) -> u32 {
        self.sorted.partition_point(|k| *k < key) as u32
    }
}
