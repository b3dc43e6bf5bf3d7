//! A user's own schema as an engine extension (`run --schema`): the workload renders every
//! statement ([`crate::engines::schema_sql::run_sql`]) and makes every row; the engine creates the tables in
//! a fresh database, runs the prepared statements it is handed by position, and verifies and
//! measures at the end. The engine core implements it once for SQLite and the one-server engines.

use crate::Error;
use crate::engines::schema_sql::RunSql;
use crate::generators::Key;
use crate::metrics::budget::CounterAccount;
use crate::results::{BtreeStats, Counters};
use crate::schema::Plan;
use crate::strategy::Strategy;
use crate::values::Param;
use std::collections::BTreeMap;
use std::path::PathBuf;

/// An engine that can host a user's schema.
pub trait SchemaEngine {
    /// Creates a fresh database holding `plan`'s empty tables keyed by `strategy`, and prepares
    /// their statements ([`crate::engines::schema_sql::run_sql`] in the engine's dialect and namespace).
    fn create_schema_case(&mut self, strategy: &Strategy, plan: &Plan) -> Result<Box<dyn SchemaCase + '_>, Error>;
}

/// A read of the workload mix.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Read {
    /// `RunSql::by_key`.
    ByKey,
    /// `RunSql::by_index[n]`.
    ByIndex(usize),
    /// `RunSql::children_of[n]`.
    ChildrenOf(usize),
}

/// One strategy's copy of the user's schema.
pub trait SchemaCase {
    /// The statements this case runs, in its engine's dialect.
    fn sql(&self) -> &RunSql;

    /// Settings as the engine reports them.
    fn effective_settings(&mut self) -> Result<BTreeMap<String, String>, Error>;

    /// Runs one statement of the run's own (DDL or a setting), outside a transaction.
    fn execute(&mut self, sql: &str) -> Result<(), Error>;

    /// Starts a transaction.
    fn begin(&mut self) -> Result<(), Error>;

    /// Commits the transaction, or rolls it back if `ok` is false.
    fn end(&mut self, ok: bool) -> Result<(), Error>;

    /// Inserts one row into filled table `table` (`RunSql::inserts[table]`); returns the key
    /// the engine assigned, where the statement returns it.
    fn insert(&mut self, table: usize, params: &[Param<'_>]) -> Result<Option<Key>, Error>;

    /// Runs one read; returns rows read.
    fn read(&mut self, read: Read, params: &[Param<'_>]) -> Result<u64, Error>;

    /// Engine counters accumulated since the previous call (or since the case was created);
    /// counters that cost more than the cheap statistics are read only if `account` affords
    /// them (the caller debits the call's time).
    fn take_counters(&mut self, account: &CounterAccount) -> Result<Counters, Error>;

    /// On an LSM engine, its sorted files by level when the last counters were read; `None`
    /// on a B-tree engine.
    fn take_levels(&mut self) -> Option<Vec<crate::results::LsmLevel>> {
        None
    }

    /// Each tree's counters (`table`, `table.index`) since the case was created, where the
    /// engine counts them per tree; empty where it does not.
    fn tree_counters(&mut self) -> Result<BTreeMap<String, TreeCounters>, Error> {
        Ok(BTreeMap::new())
    }

    /// Counts every filled table's rows and each foreign key's missing parents, measures size
    /// and B-trees (named `table` and `table.index`), then, where `rebuild`, rebuilds the tables
    /// as the remedy workload does (SQLite `VACUUM`, PostgreSQL `VACUUM FULL`, MariaDB `OPTIMIZE
    /// TABLE`) and times it, and removes the database unless kept.
    fn finish(self: Box<Self>, rebuild: bool) -> Result<SchemaReport, Error>;
}

/// One tree's cumulative counters, where the engine keeps them per tree.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct TreeCounters {
    /// Blocks read into the engine's cache (cache misses).
    pub misses: Option<u64>,
    /// Distinct index pages each counted span of WAL modified, summed over the spans
    /// (`Counters::index_blocks_touched`, per index).
    pub index_blocks_touched: Option<u64>,
}

/// What an engine found at the end of a schema run.
#[derive(Clone, Debug, PartialEq)]
pub struct SchemaReport {
    /// Rows per filled table, as `RunSql::counts`.
    pub rows: Vec<u64>,
    /// Rows whose parent is missing, per foreign key, as `RunSql::orphans`.
    pub orphans: Vec<u64>,
    /// Size on disk, bytes.
    pub size_bytes: u64,
    /// Of `size_bytes`, the write-ahead log's share, if the engine keeps one in a file.
    pub wal_size_bytes: Option<u64>,
    /// Per-B-tree statistics.
    pub btrees: Vec<BtreeStats>,
    /// Where the database was kept, if it was.
    pub kept: Option<PathBuf>,
    /// The rebuild after the measurements, where one was asked for: its figures, or why it
    /// failed (the measurements stand either way).
    pub rebuild: Option<Result<Rebuild, String>>,
}

/// One rebuild of a case's tables, after they were measured.
#[derive(Clone, Debug, PartialEq)]
pub struct Rebuild {
    /// How long the rebuild took.
    pub elapsed_ns: u64,
    /// How long `finish` spent on it, the size measured after it included.
    pub spent_ns: u64,
    /// Size on disk after it, bytes.
    pub size_after_bytes: u64,
    /// Which command ran and what room it needs.
    pub note: &'static str,
}
