//! Database engines behind one trait. Every engine has the same shape: open or start, create a
//! strategy's schema in a fresh database, insert batches, read counters, verify and measure,
//! tear down.
//!
//! - [`kind`]: the registry ([`EngineKind`]) every list of engines reads; no wildcard arms.
//! - [`dialect`]: one [`dialect::Dialect`] per engine, every SQL spelling difference;
//!   [`sql`] renders the insert-growth and app tables once over it.
//! - [`wire`]: one connection layer per wire protocol (PostgreSQL, MySQL), owning the driver
//!   calls and mapping driver errors onto [`ServerErrorKind`](crate::ServerErrorKind)s.
//! - [`distributed`]: CockroachDB, YugabyteDB and TiDB as flavours of the PostgreSQL and
//!   MariaDB engines (recognised from their version text), with their dialects and catalogs.
//! - [`server`]: the engine core, written once ([`server::ServerEngine`]) over a
//!   [`server::Backend`] — what one engine truly has of its own: SQLite's (`sqlite/`) provisions a
//!   file per case, reads `sqlite3_db_status` and `dbstat`; each server's starts or reaches its
//!   server, reads its statistics views and measures its trees.
//! - Optional operations are capabilities the types say: [`InsertCase::maintenance`] (churn,
//!   remedy), [`Engine::app`], [`Engine::own_schema`].
//!
//! A new PostgreSQL-wire or MySQL-wire engine adds one [`EngineKind`] variant and one folder
//! like `postgres/`: `mod.rs`, `dialect.rs`, `backend.rs`, `server.rs` (plus `counters.rs` and
//! `physical.rs` where its statistics need code of their own), and arms in [`dialect::of`],
//! [`open_server`] and [`schema_of`] (the compiler lists every `match` that needs one).

pub mod app;
pub mod dialect;
pub mod distributed;
pub mod mariadb;
pub mod mock;
pub mod myrocks;
pub mod own_schema;
pub mod postgres;
pub mod postgres_fdw;
pub mod schema_sql;
pub mod server;
pub mod sharded;
pub mod spider;
pub mod sql;
pub mod sqlite;
pub mod txn;
pub mod wire;

/// The registry of engines (the crate's [`crate::engine_kind`]), under the engines.
pub use crate::engine_kind as kind;
pub use crate::engine_kind::EngineKind;
use crate::engine_kind::Wire;

use crate::keys::KeyRow;
// The engines' own files still name it here.

use crate::Error;
use crate::control::RunControl;
use crate::generators::Key;
use crate::keys::KeySettings;
use crate::metrics::budget::CounterAccount;
use crate::results::{BtreeStats, Counters};
use crate::strategy::Strategy;
use std::collections::BTreeMap;
use std::path::PathBuf;

/// The tables `kind` creates for `strategy` (in a namespace named `pkbench` on servers), or
/// why it refuses the strategy. Needs no driver: flags are checked before anything starts.
pub fn schema_of(kind: EngineKind, strategy: &Strategy) -> Result<Vec<String>, Error> {
    match kind {
        EngineKind::Sqlite => sqlite::render_schema(strategy).map(|s| s.create),
        EngineKind::Postgres | EngineKind::MariaDb | EngineKind::MyRocks => {
            sql::bench::render(kind.dialect(), strategy, "pkbench").map(|s| s.create)
        }
        EngineKind::Spider | EngineKind::PostgresFdw => match crate::sharding::refusal(strategy) {
            Some(reason) => {
                Err(Error::Unsupported { strategy: strategy.name.into(), engine: kind.name().into(), reason })
            }
            None => sql::bench::render(kind.dialect(), strategy, "pkbench").map(|s| s.create),
        },
    }
}

/// Opens the server engine `kind` (starting a managed server if `settings` asks for one): the one
/// factory of server engines. Returns it and the managed server's folder, if any.
#[cfg_attr(not(any(feature = "postgres", feature = "mysql")), allow(unused_variables, dead_code))]
pub fn open_server(
    kind: EngineKind,
    settings: &server::ServerSettings,
) -> Result<(Box<dyn Engine>, Option<PathBuf>), Error> {
    fn opened<B: server::Backend>(engine: server::ServerEngine<B>) -> (Box<dyn Engine>, Option<PathBuf>) {
        let dir = engine.managed_dir().map(|d| d.to_path_buf());
        (Box::new(engine), dir)
    }
    match kind {
        EngineKind::Sqlite => {
            Err(Error::InvalidInput("SQLite is embedded, not a server: use --engine sqlite without --url".into()))
        }
        #[cfg(feature = "postgres")]
        EngineKind::Postgres => Ok(opened(postgres::PostgresEngine::open(settings)?)),
        #[cfg(not(feature = "postgres"))]
        EngineKind::Postgres => Err(not_built(kind, "postgres")),
        #[cfg(feature = "mysql")]
        EngineKind::MariaDb => Ok(opened(mariadb::MariaDbEngine::open(settings)?)),
        #[cfg(not(feature = "mysql"))]
        EngineKind::MariaDb => Err(not_built(kind, "mysql")),
        #[cfg(feature = "mysql")]
        EngineKind::Spider => Ok(opened(spider::SpiderEngine::open(settings)?)),
        #[cfg(not(feature = "mysql"))]
        EngineKind::Spider => Err(not_built(kind, "mysql")),
        #[cfg(feature = "mysql")]
        EngineKind::MyRocks => Ok(opened(myrocks::MyRocksEngine::open(settings)?)),
        #[cfg(not(feature = "mysql"))]
        EngineKind::MyRocks => Err(not_built(kind, "mysql")),
        #[cfg(feature = "postgres")]
        EngineKind::PostgresFdw => Ok(opened(postgres_fdw::PostgresFdwEngine::open(settings)?)),
        #[cfg(not(feature = "postgres"))]
        EngineKind::PostgresFdw => Err(not_built(kind, "postgres")),
    }
}

/// The error of an engine whose driver this build left out.
#[cfg_attr(all(feature = "postgres", feature = "mysql"), allow(dead_code))]
fn not_built(kind: EngineKind, feature: &str) -> Error {
    Error::InvalidInput(format!(
        "this pkbench was built without the '{feature}' feature: rebuild with --features {feature} to use --engine {kind}"
    ))
}

/// An engine's name and version.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct EngineInfo {
    /// Short lowercase name (`sqlite`).
    pub name: &'static str,
    /// Version as the engine reports it.
    pub version: String,
}

/// What a case needs besides the strategy.
#[derive(Clone, Copy, Debug)]
pub struct CaseSpec<'a> {
    /// The strategy whose schema to create.
    pub strategy: &'a Strategy,
    /// Bytes of payload in every row (identical in every row).
    pub payload_bytes: usize,
    /// Rows the case will insert (a sharded engine lays its range bounds over them).
    pub rows: u64,
    /// What the case's keys are made from (the same keys a range-sharded layout is cut from).
    pub keys: KeySettings,
}

/// A database engine pkbench can measure.
pub trait Engine {
    /// Name and version.
    fn info(&self) -> EngineInfo;

    /// `strategy`'s description as this engine stores it, for results: the key, then where the
    /// engine puts the rows ([`dialect::Dialect::layout`]).
    fn describe(&self, strategy: &Strategy) -> String {
        strategy.description.to_string()
    }

    /// How rows reach the engine, for results (e.g. "prepared single-row INSERT").
    fn insert_path(&self) -> &'static str;

    /// `Ok` if this engine can run `strategy`, else [`Error::Unsupported`] saying why.
    fn check(&self, strategy: &Strategy) -> Result<(), Error>;

    /// Creates a fresh database holding `spec.strategy`'s empty tables.
    fn create_case(&mut self, spec: &CaseSpec<'_>) -> Result<Box<dyn InsertCase + '_>, Error>;

    /// The application workload on this engine, if the engine runs it.
    fn app(&mut self) -> Option<&mut dyn app::AppEngine> {
        None
    }

    /// What opening the engine found and did besides, one line each, for the person running
    /// it (the leftovers of killed runs on a user's server); each line is given once.
    fn take_notices(&mut self) -> Vec<String> {
        Vec::new()
    }

    /// A user's own schema's SQL for this engine (`run --schema`), if it runs one.
    fn own_schema(&mut self) -> Option<&mut dyn own_schema::SchemaEngine> {
        None
    }
}

/// One strategy's database while a workload inserts into it. Dropping it removes the database
/// unless it was kept.
pub trait InsertCase {
    /// Settings as the engine reports them (e.g. `journal_mode = wal`).
    fn effective_settings(&mut self) -> Result<BTreeMap<String, String>, Error>;

    /// Inserts `rows` in one transaction and commits. Adds to `control`'s row counter as it
    /// goes and stops with [`Error::Interrupted`] (rolling back) when `control` is cancelled.
    fn insert_batch(&mut self, rows: &[KeyRow], control: &RunControl) -> Result<(), Error>;

    /// Counters accumulated since the previous call (or since the case was created).
    fn take_counters(&mut self) -> Result<Counters, Error>;

    /// Like [`InsertCase::take_counters`], but reads a counter that costs more than the cheap
    /// statistics (e.g. reading the span's WAL back) only if `account` affords it; the caller
    /// debits the whole call's time. Counters left out are `None` for this span.
    fn take_counters_within(&mut self, account: &CounterAccount) -> Result<Counters, Error> {
        let _ = account;
        self.take_counters()
    }

    /// On a sharded engine, each shard's part of what the last counter read covered; `None`
    /// on one server.
    fn take_shards(&mut self) -> Option<Vec<crate::results::ShardCounters>> {
        None
    }

    /// On an LSM engine, its sorted files by level when the last counters were read; `None`
    /// on a B-tree engine.
    fn take_levels(&mut self) -> Option<Vec<crate::results::LsmLevel>> {
        None
    }

    /// Whether counters must be read after every batch, whatever the counter budget: a sharded
    /// engine's rows per shard per batch are what it measures (their cost is still reported).
    fn counters_every_batch(&self) -> bool {
        false
    }

    /// Opens one more connection to this case's database for a concurrent workload: each
    /// client inserts one row per autocommit statement through a prepared statement.
    fn connect(&mut self) -> Result<Box<dyn InsertClient + Send>, Error> {
        self.connect_with(&txn::ClientOptions::default())
    }

    /// Opens one more connection whose transactions follow `options` (`--txn`, `--isolation`).
    /// Engines that only run single-row autocommit inserts refuse other options in one line.
    fn connect_with(&mut self, options: &txn::ClientOptions) -> Result<Box<dyn InsertClient + Send>, Error>;

    /// Opens a connection that samples what this case's sessions wait for (the concurrent
    /// workload's wait evidence); `None` on engines without such a view (SQLite reports its lock
    /// waits through [`InsertClient::lock_wait_ns`]).
    fn wait_sampler(&mut self) -> Result<Option<Box<dyn WaitSampler>>, Error> {
        Ok(None)
    }

    /// Deleting, compacting and measuring mid-case (churn, remedy), on engines that can.
    fn maintenance(&mut self) -> Option<&mut dyn Maintenance> {
        None
    }

    /// Counts the rows, measures size and B-tree state, and removes or keeps the database.
    fn finish(self: Box<Self>) -> Result<CaseReport, Error>;

    /// After a batch failed: the rows the case's tables hold (the fewest of any table), counted
    /// on a fresh connection if the case's own is lost; `None` where they cannot be counted (the
    /// server gone).
    fn committed_rows(&mut self) -> Option<u64> {
        None
    }
}

/// What a case can do besides inserting, on engines that implement it: measure itself,
/// delete rows and compact (the churn and remedy workloads).
pub trait Maintenance {
    /// Size on disk and B-tree state now, without ending the case (remedy, churn).
    fn physical(&mut self) -> Result<Physical, Error>;

    /// Deletes the rows with these primary keys in one transaction; returns rows deleted (churn).
    /// Engine-assigned keys are passed as the integers the engine gave them (1, 2, … in a fresh
    /// table).
    fn delete_by_primary(&mut self, keys: &[Key], control: &RunControl) -> Result<u64, Error>;

    /// What else [`delete_by_primary`](Self::delete_by_primary) runs besides the DELETE (e.g. a
    /// plain VACUUM where autovacuum is off), for the churn phases' note; `None` if nothing.
    fn delete_note(&self) -> Option<&'static str>;

    /// Rebuilds the database to give free pages back (SQLite `VACUUM`, PostgreSQL `VACUUM FULL`,
    /// MariaDB `OPTIMIZE TABLE`; remedy). Returns a note saying which command ran and what
    /// free space it needs.
    fn compact(&mut self) -> Result<&'static str, Error>;
}

/// `case`'s [`Maintenance`], or the error of `workload`, which needs it, on an engine without it.
pub fn maintained<'a>(case: &'a mut dyn InsertCase, workload: &str) -> Result<&'a mut dyn Maintenance, Error> {
    case.maintenance().ok_or_else(|| {
        Error::InvalidInput(format!(
            "the {workload} workload deletes, compacts and measures mid-run, which this engine cannot do; use --engine sqlite, postgres or mariadb"
        ))
    })
}

/// A case's size on disk and B-tree state at one moment.
#[derive(Clone, Debug, PartialEq)]
pub struct Physical {
    /// Size on disk, bytes (all of the database's files).
    pub size_bytes: u64,
    /// Of `size_bytes`, the write-ahead log's share, if the engine keeps one in a file.
    pub wal_size_bytes: Option<u64>,
    /// Per-B-tree physical statistics.
    pub btrees: Vec<BtreeStats>,
}

impl Physical {
    /// Leaf pages of every B-tree.
    pub fn leaf_pages(&self) -> u64 {
        self.btrees.iter().map(|b| b.leaf_pages).sum()
    }

    /// Average leaf fill over the leaves of every B-tree, or `None` when the engine could not
    /// read any leaf (e.g. InnoDB on a server whose files pkbench cannot see).
    pub fn leaf_fill(&self) -> Option<f64> {
        let used: f64 = self.btrees.iter().map(|b| b.leaf_fill * b.leaf_pages as f64).sum();
        crate::metrics::stats::ratio(used, self.leaf_pages() as f64)
    }
}

/// Samples, from the engine's own activity view, what a case's sessions are doing at one
/// moment: many samples a second make a profile of where the time goes.
pub trait WaitSampler {
    /// Adds one sample to `tally`: one count per session of the case busy in a statement, under
    /// what it waits for (`LWLock:BufferContent`, `Lock:transactionid`, `IO:WALSync`; `CPU`
    /// when the engine names no wait).
    fn sample(&mut self, tally: &mut BTreeMap<String, u64>) -> Result<(), Error>;
}

/// One extra connection to a case's database, used by one thread of a concurrent workload.
/// Dropping it closes the connection; close every client before the case's `finish`.
pub trait InsertClient {
    /// Inserts `row` in its own autocommit statement (a prepared single-row INSERT).
    fn insert_one(&mut self, row: &KeyRow) -> Result<(), Error>;

    /// Nanoseconds this client has spent waiting for the database's write lock so far, on
    /// engines where writers serialise on one lock (SQLite); `None` where the engine has no such
    /// lock to time.
    fn lock_wait_ns(&self) -> Option<u64> {
        None
    }

    /// Runs one transaction of the client's shape: inserts `row` and, for the shapes that touch
    /// a recent row, reads or updates the row with key `recent` (skipped when `None`). A lost
    /// serialization or deadlock conflict is an [`Error::Server`] of kind `Conflict`, after
    /// which the transaction has been rolled back and may be retried.
    fn transact(&mut self, row: &KeyRow, recent: Option<Key>) -> Result<(), Error> {
        let _ = recent;
        self.insert_one(row)
    }
}

/// What an engine measured after a case.
#[derive(Clone, Debug, PartialEq)]
pub struct CaseReport {
    /// Rows found in the strategy's table.
    pub verified_rows: u64,
    /// Size on disk, bytes (all of the database's files).
    pub size_bytes: u64,
    /// Of `size_bytes`, the write-ahead log's share, if the engine keeps one in a file.
    pub wal_size_bytes: Option<u64>,
    /// Size on disk after a full compaction of the case's tables, bytes (an LSM engine's).
    pub compacted_size_bytes: Option<u64>,
    /// Per-B-tree physical statistics.
    pub btrees: Vec<BtreeStats>,
    /// Where the database was kept, if it was.
    pub kept: Option<PathBuf>,
}

impl EngineKind {
    /// The engine a server on `wire` is, from the version text it reports (PostgreSQL's
    /// `version()`, MySQL's `VERSION()`), or why pkbench does not support it: a server that
    /// speaks PostgreSQL's or MySQL's protocol is not always PostgreSQL or MySQL, and its
    /// catalogs, counters and storage differ. CockroachDB, YugabyteDB and TiDB are accepted as
    /// flavours of the engine whose wire they speak ([`distributed`]).
    pub fn identify(wire: Wire, version: &str) -> Result<EngineKind, String> {
        // Distributed SQL systems pkbench has dialects for are flavours of these engines.
        if let Some(system) = distributed::DistributedSql::recognise(wire, version) {
            return Ok(system.kind());
        }
        let lower = version.to_ascii_lowercase();
        let other = |names: &[(&'static str, &'static str)]| -> Option<&'static str> {
            names.iter().find(|(mark, _)| lower.contains(mark)).map(|(_, name)| *name)
        };
        match wire {
            Wire::Embedded => Ok(EngineKind::Sqlite),
            Wire::Postgres => {
                let foreign = other(&[
                    ("cockroachdb", "CockroachDB"),
                    ("yugabyte", "YugabyteDB"),
                    ("redshift", "Amazon Redshift"),
                    ("greenplum", "Greenplum"),
                    ("materialize", "Materialize"),
                ]);
                match foreign {
                    None if lower.starts_with("postgresql") => Ok(EngineKind::Postgres),
                    found => Err(format!(
                        "the server speaks PostgreSQL's protocol but is {} ('{version}'); pkbench supports PostgreSQL itself",
                        found.unwrap_or("not PostgreSQL")
                    )),
                }
            }
            Wire::Mysql => {
                let foreign = other(&[
                    ("tidb", "TiDB"),
                    ("vitess", "Vitess"),
                    ("singlestore", "SingleStore"),
                    ("memsql", "SingleStore"),
                    ("clickhouse", "ClickHouse"),
                    ("manticore", "Manticore"),
                ]);
                match foreign {
                    None => Ok(EngineKind::MariaDb),
                    Some(found) => Err(format!(
                        "the server speaks MySQL's protocol but is {found} ('{version}'); pkbench supports MariaDB and MySQL with InnoDB"
                    )),
                }
            }
        }
    }
}
