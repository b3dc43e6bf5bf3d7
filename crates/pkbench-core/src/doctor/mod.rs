//! `doctor`: whether an existing database's keys are what slows it down, and what to do.
//!
//! Reads a SQLite file strictly read-only (`SQLITE_OPEN_READ_ONLY` plus `PRAGMA query_only`),
//! finds each table's primary key and layout ([`schema`]), samples key values and names their
//! scheme ([`sample`]), compares key order with insertion order and embedded time ([`order`]),
//! measures the b-trees with `dbstat` ([`physical`]), and ranks advice ([`advice`]). [`migration_sql`]
//! writes a migration script for the user to review; doctor never executes it.

pub mod advice;
pub mod export;
pub mod key_range;
pub mod lsm;
#[cfg(feature = "mysql")]
pub mod mariadb;
pub mod order;
pub mod physical;
#[cfg(feature = "postgres")]
pub mod postgres;
pub mod remedies;
pub mod render;
pub mod sample;
pub mod schema;
pub mod server_sql;
#[cfg(feature = "sqlite")]
pub mod sqlite;
pub mod value;

use crate::Error;
use crate::engines::EngineKind;
use serde::{Deserialize, Serialize};

pub use advice::{Advice, AdviceKind};
pub use order::OrderReport;
pub use physical::BtreeReport;
pub use sample::{KeyScheme, KeyStorage, SchemeReport};
pub use schema::Layout;
#[cfg(feature = "sqlite")]
pub use sqlite::{diagnose, migration_sql, open_for_doctor, open_read_only, page_sample};

/// SQLite files larger than this get b-tree statistics from sampled descents by default.
pub const SAMPLE_ABOVE_BYTES: u64 = 256 << 20;

/// Keys sampled per column unless `full` is set.
pub const DEFAULT_SAMPLES: usize = 512;

/// What doctor looks at.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DoctorOptions {
    /// Only this table (all user tables when `None`).
    pub table: Option<String>,
    /// Servers: only this PostgreSQL schema / MariaDB database (default: every non-system one).
    pub schema: Option<String>,
    /// Read every key instead of a bounded sample.
    pub full: bool,
    /// Keys sampled per column when not `full`.
    pub max_samples: usize,
    /// SQLite files larger than this get b-tree statistics from sampled descents, not `dbstat`.
    pub page_sample_above_bytes: u64,
    /// How to reach a server: the connect timeout, a password given apart from the URL.
    pub connect: crate::engines::wire::connect::ConnectOptions,
}

impl Default for DoctorOptions {
    fn default() -> Self {
        DoctorOptions {
            table: None,
            schema: None,
            full: false,
            max_samples: DEFAULT_SAMPLES,
            page_sample_above_bytes: SAMPLE_ABOVE_BYTES,
            connect: Default::default(),
        }
    }
}

/// Everything doctor found in one database.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct DoctorReport {
    /// The file examined, or the server URL with its password hidden.
    pub target: String,
    /// `sqlite`, `postgres` or `mariadb`.
    pub engine: String,
    /// SQLite library version used to read it, or the server's version.
    pub engine_version: String,
    /// Database page size.
    pub page_size_bytes: u64,
    /// Pages in the database (SQLite `page_count`; servers: the examined tables and indexes).
    pub page_count: u64,
    /// Pages on the free list (SQLite; InnoDB `DATA_FREE`; 0 on PostgreSQL).
    pub freelist_pages: u64,
    /// Servers: how the session was kept read-only, as the server reported it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub read_only: Option<String>,
    /// Servers: the engine's page cache, bytes (PostgreSQL `shared_buffers`, InnoDB
    /// `innodb_buffer_pool_size`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cache_bytes: Option<u64>,
    /// What doctor could not measure directly and estimated instead, and why.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub notes: Vec<String>,
    /// One entry per table examined.
    pub tables: Vec<TableReport>,
}

impl DoctorReport {
    /// The engine of the registry the report is about (`None` for a name it does not know,
    /// e.g. a report written by a newer pkbench).
    pub fn engine_kind(&self) -> Option<EngineKind> {
        EngineKind::from_name(&self.engine)
    }
}

/// One table: its key, layout, key values, b-trees and advice.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct TableReport {
    /// Table name.
    pub name: String,
    /// Rows (`count(*)`, or the server's estimate when `rows_estimated`).
    pub rows: u64,
    /// `rows` is the server's catalog estimate (a large table, without `--full`).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub rows_estimated: bool,
    /// How rows are stored and found.
    pub layout: Layout,
    /// One line describing the layout.
    pub layout_description: String,
    /// The primary key, if the table declares one.
    pub primary_key: Option<KeyColumnReport>,
    /// Single-column UNIQUE indexes other than the primary key.
    pub unique_keys: Vec<KeyColumnReport>,
    /// The table's b-tree and its indexes.
    pub btrees: Vec<BtreeReport>,
    /// Of a table in an LSM tree (MyRocks): its sorted files and its column family's levels.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub lsm: Option<lsm::LsmReport>,
    /// Ranked advice, most gain first; empty when the key is fine.
    pub advice: Vec<Advice>,
    /// One-line verdict.
    pub verdict: String,
    /// The single-column foreign keys that hold its primary key, its own included, and through a
    /// chain the ones that hold those, parents first (servers).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub referenced_by: Vec<schema::ReferencingColumn>,
    /// The column its primary key references through a single-column foreign key (servers).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub key_references: Option<schema::ReferencedColumn>,
    /// MariaDB: the key column's DEFAULT and COMMENT clauses, which the script repeats.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub key_attributes: Option<String>,
}

/// One key column (or composite key): declaration, stored values and their order.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct KeyColumnReport {
    /// Column names, in key order.
    pub columns: Vec<String>,
    /// Declared type of the first column.
    pub declared_type: String,
    /// The index that enforces it (`None` for a rowid alias or a WITHOUT ROWID primary key).
    pub index: Option<String>,
    /// What the sampled values are (absent for composite keys).
    pub scheme: Option<SchemeReport>,
    /// Key order against insertion order and embedded time.
    pub order: Option<OrderReport>,
}

/// What was measured about one table, before advice.
#[derive(Clone, Debug)]
pub struct TableFacts<'a> {
    /// Its schema.
    pub schema: &'a schema::TableSchema,
    /// Rows.
    pub rows: u64,
    /// `rows` is an estimate.
    pub rows_estimated: bool,
    /// The primary key, sampled.
    pub primary_key: Option<KeyColumnReport>,
    /// Single-column unique keys, sampled.
    pub unique_keys: Vec<KeyColumnReport>,
    /// The table's b-trees (or heap) and indexes.
    pub btrees: Vec<BtreeReport>,
    /// Of a table in an LSM tree: its sorted files and levels.
    pub lsm: Option<lsm::LsmReport>,
}

/// Ranks advice for one table and writes its verdict (shared by every engine).
pub fn assemble(facts: TableFacts<'_>, database_bytes: u64, engine: EngineKind) -> TableReport {
    let TableFacts { schema: table, rows, rows_estimated, primary_key, unique_keys, btrees, lsm } = facts;
    let mut advice = advice::advise(table, rows, primary_key.as_ref(), &unique_keys, &btrees, database_bytes, engine);
    if let Some(lsm) = &lsm {
        advice::add_lsm_evidence(&mut advice, lsm);
    }
    let verdict = advice::verdict(&advice, primary_key.as_ref(), table.layout);
    TableReport {
        name: table.name.clone(),
        rows,
        rows_estimated,
        layout: table.layout,
        layout_description: table.layout.describe().into(),
        primary_key,
        unique_keys,
        btrees,
        lsm,
        advice,
        verdict,
        referenced_by: table.referenced_by.clone(),
        key_references: table.key_references.clone(),
        key_attributes: table.key_attributes.clone(),
    }
}

/// The engine a TARGET names: a URL whose scheme the registry knows (`postgres://`,
/// `mysql://`, …), else a SQLite file. A URL of any other scheme is refused. The scheme only
/// picks the wire protocol: doctor then asks the server what it is ([`EngineKind::identify`]).
pub fn target_kind(target: &str) -> Result<EngineKind, Error> {
    match (EngineKind::from_url(target), target.trim_start().split_once("://")) {
        (Some(kind), _) => Ok(kind),
        (None, Some((scheme, _)))
            if !scheme.is_empty() && scheme.chars().all(|c| c.is_ascii_alphanumeric() || "+-.".contains(c)) =>
        {
            let schemes: Vec<&str> = EngineKind::ALL.iter().flat_map(|k| k.url_schemes().iter().copied()).collect();
            Err(Error::InvalidInput(format!(
                "doctor does not know the URL scheme '{scheme}://': give a SQLite file or a {}:// URL",
                schemes.join("://, ")
            )))
        }
        (None, _) => Ok(EngineKind::Sqlite),
    }
}

/// Examines TARGET: a SQLite file or a server URL (see [`target_kind`]). A read the server
/// refuses for lack of a privilege says what to grant.
pub fn diagnose_target(target: &str, options: &DoctorOptions) -> Result<DoctorReport, Error> {
    diagnose_kind(target, options).map_err(grant_hint(options.table.as_deref()))
}

/// A read the server refused for lack of a privilege, as one line that says what to grant.
fn grant_hint(table: Option<&str>) -> impl Fn(Error) -> Error + '_ {
    move |e| {
        if e.server_kind() != Some(crate::ServerErrorKind::PermissionDenied) {
            return e;
        }
        let grant = match table {
            Some(t) => format!("grant this login SELECT on {t}"),
            None => "grant this login SELECT on the tables, or name one with --table".into(),
        };
        Error::InvalidInput(format!(
            "{e}: pkbench reads a table's row count, a sample of its keys and its column statistics, read-only: {grant}"
        ))
    }
}

/// Examines TARGET with its engine's doctor.
#[cfg_attr(not(all(feature = "sqlite", feature = "postgres", feature = "mysql")), allow(unused_variables))]
fn diagnose_kind(target: &str, options: &DoctorOptions) -> Result<DoctorReport, Error> {
    match target_kind(target)? {
        #[cfg(feature = "postgres")]
        EngineKind::Postgres => postgres::diagnose(target, options),
        #[cfg(feature = "mysql")]
        EngineKind::MariaDb => mariadb::diagnose(target, options),
        #[cfg(feature = "sqlite")]
        EngineKind::Sqlite => diagnose(std::path::Path::new(target), options),
        #[cfg(not(feature = "postgres"))]
        EngineKind::Postgres => Err(not_built(EngineKind::Postgres)),
        #[cfg(not(feature = "mysql"))]
        EngineKind::MariaDb => Err(not_built(EngineKind::MariaDb)),
        #[cfg(not(feature = "sqlite"))]
        EngineKind::Sqlite => Err(not_built(EngineKind::Sqlite)),
        kind @ (EngineKind::Spider | EngineKind::PostgresFdw) => Err(sharded_doctor(kind)),
        kind @ EngineKind::MyRocks => Err(lsm_doctor(kind)),
    }
}

/// The shape of `table` on the server at `target` for `--export-schema`: the engine, its version
/// and the tables around the table, each with statistics from at most `sample_rows` rows.
#[cfg_attr(not(any(feature = "postgres", feature = "mysql")), allow(unreachable_code, unused_variables))]
pub fn export_target(
    target: &str,
    schema: Option<&str>,
    table: &str,
    sample_rows: u64,
    connect: &crate::engines::wire::connect::ConnectOptions,
) -> Result<(EngineKind, String, Vec<export::ExportedTable>), Error> {
    let kind = target_kind(target)?;
    let (version, tables) = match kind {
        #[cfg(feature = "postgres")]
        EngineKind::Postgres => {
            postgres::export::export(target, schema, table, sample_rows, connect).map_err(grant_hint(Some(table)))?
        }
        #[cfg(feature = "mysql")]
        EngineKind::MariaDb => {
            mariadb::export::export(target, schema, table, sample_rows, connect).map_err(grant_hint(Some(table)))?
        }
        EngineKind::Sqlite => {
            return Err(Error::InvalidInput(
                "--export-schema reads a PostgreSQL or MariaDB server (a URL); a SQLite file's schema is `sqlite3 FILE .schema`".into(),
            ));
        }
        #[cfg(not(feature = "postgres"))]
        EngineKind::Postgres => return Err(not_built(EngineKind::Postgres)),
        #[cfg(not(feature = "mysql"))]
        EngineKind::MariaDb => return Err(not_built(EngineKind::MariaDb)),
        kind @ (EngineKind::Spider | EngineKind::PostgresFdw) => return Err(sharded_doctor(kind)),
        kind @ EngineKind::MyRocks => return Err(lsm_doctor(kind)),
    };
    Ok((kind, version, tables))
}

/// Doctor reads one server; a sharded engine is never named by a URL.
pub(crate) fn sharded_doctor(kind: EngineKind) -> Error {
    Error::InvalidInput(format!(
        "doctor examines one server: point it at one shard's URL (postgres:// or mysql://), not at --engine {kind}"
    ))
}

/// A MyRocks server is a MariaDB one: doctor reads its RocksDB tables at its `mysql://` URL.
pub(crate) fn lsm_doctor(kind: EngineKind) -> Error {
    Error::InvalidInput(format!(
        "doctor reads {} tables at their MariaDB server's URL: give mysql://… (it examines RocksDB and InnoDB tables there)",
        kind.label()
    ))
}

/// The migration script for `report` about TARGET (SQLite re-reads the file's schema read-only;
/// servers' scripts come from the report alone).
pub fn migration_sql_for(target: &str, report: &DoctorReport) -> Result<String, Error> {
    match target_kind(target)? {
        #[cfg(feature = "sqlite")]
        EngineKind::Sqlite => migration_sql(std::path::Path::new(target), report),
        #[cfg(not(feature = "sqlite"))]
        EngineKind::Sqlite => Err(not_built(EngineKind::Sqlite)),
        EngineKind::Postgres | EngineKind::MariaDb => server_sql::script(report),
        kind @ (EngineKind::Spider | EngineKind::PostgresFdw) => Err(sharded_doctor(kind)),
        kind @ EngineKind::MyRocks => Err(lsm_doctor(kind)),
    }
}

/// The error for an engine whose driver this build left out.
#[cfg_attr(all(feature = "sqlite", feature = "postgres", feature = "mysql"), allow(dead_code))]
fn not_built(kind: EngineKind) -> Error {
    Error::InvalidInput(format!("this pkbench was built without the {} driver: doctor cannot read it", kind.label()))
}

/// The report as pretty JSON (validated by `schema/doctor.schema.json`).
pub fn to_json(report: &DoctorReport) -> String {
    serde_json::to_string_pretty(report).unwrap_or_else(|e| format!("{{\"error\": \"{e}\"}}"))
}
