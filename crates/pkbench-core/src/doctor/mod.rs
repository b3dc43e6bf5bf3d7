//! `doctor`: whether an existing database's keys are what slows it down, and what to do.
//!
//! Reads a SQLite file strictly read-only (`SQLITE_OPEN_READ_ONLY` plus `PRAGMA query_only`),
//! finds each table's primary key and layout ([`schema`]), samples key values and names their
//! scheme ([`sample`]), compares key order with insertion order and embedded time ([`order`]),
//! measures the b-trees with `dbstat` ([`physical`]), and ranks advice ([`advice`]). [`sql`]
//! writes a migration script for the user to review; doctor never executes it.

pub mod advice;
pub mod key_range;
pub mod mariadb;
pub mod order;
pub mod page_sample;
pub mod physical;
pub mod postgres;
pub mod render;
pub mod sample;
pub mod schema;
pub mod server_sql;
pub mod sql;
pub mod value;

use crate::Error;
use crate::engines::EngineKind;
use rusqlite::{Connection, OpenFlags};
use serde::{Deserialize, Serialize};
use std::collections::HashMap;
use std::path::Path;

pub use advice::{Advice, AdviceKind};
pub use order::OrderReport;
pub use physical::BtreeReport;
pub use sample::{KeyScheme, KeyStorage, SchemeReport};
pub use schema::Layout;

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
}

impl Default for DoctorOptions {
    fn default() -> Self {
        DoctorOptions {
            table: None,
            schema: None,
            full: false,
            max_samples: DEFAULT_SAMPLES,
            page_sample_above_bytes: page_sample::SAMPLE_ABOVE_BYTES,
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
    /// Ranked advice, most gain first; empty when the key is fine.
    pub advice: Vec<Advice>,
    /// One-line verdict.
    pub verdict: String,
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

/// Opens `path` strictly read-only: no journal recovery writes, no checkpoints, no schema changes.
pub fn open_read_only(path: &Path) -> Result<Connection, Error> {
    open_for_doctor(path).map(|(conn, _)| conn)
}

/// Whether `path` is a WAL-mode database (header bytes 18–19 = 2) that no connection has open:
/// opening it, even read-only, would create `-wal` and `-shm` files beside it.
fn closed_wal_database(path: &Path) -> bool {
    use std::io::Read;
    let mut header = [0u8; 20];
    let read = std::fs::File::open(path).and_then(|mut f| f.read_exact(&mut header));
    let wal = path.with_file_name(format!("{}-wal", path.file_name().unwrap_or_default().to_string_lossy()));
    read.is_ok() && header.starts_with(b"SQLite format 3\0") && header[18] == 2 && !wal.exists()
}

/// [`open_read_only`], plus how the file was opened when that is worth a note: a WAL database
/// no one has open is opened `immutable=1`, so SQLite creates no `-wal`/`-shm` files.
pub fn open_for_doctor(path: &Path) -> Result<(Connection, Option<String>), Error> {
    let context = || format!("could not open '{}' read-only", path.display());
    if !path.is_file() {
        return Err(Error::InvalidInput(format!(
            "'{}' is not a file: give the path of a SQLite database",
            path.display()
        )));
    }
    let mut flags = OpenFlags::SQLITE_OPEN_READ_ONLY | OpenFlags::SQLITE_OPEN_NO_MUTEX;
    let (conn, note) = if closed_wal_database(path) {
        flags |= OpenFlags::SQLITE_OPEN_URI;
        // Percent-encode what a URI would misread; the path stays absolute or relative as given.
        let mut uri = String::from("file:");
        for b in path.as_os_str().as_encoded_bytes() {
            match b {
                b'%' | b'?' | b'#' | 0x80.. => uri.push_str(&format!("%{b:02X}")),
                _ => uri.push(char::from(*b)),
            }
        }
        uri.push_str("?immutable=1");
        let conn =
            Connection::open_with_flags(&uri, flags).map_err(|cause| Error::Sqlite { context: context(), cause })?;
        let note = "WAL database with no -wal file (no open writer): opened immutable=1, so no -wal/-shm files are created beside it";
        (conn, Some(note.to_string()))
    } else {
        (Connection::open_with_flags(path, flags).map_err(|cause| Error::Sqlite { context: context(), cause })?, None)
    };
    conn.pragma_update(None, "query_only", "ON").map_err(|cause| Error::Sqlite { context: context(), cause })?;
    conn.busy_timeout(std::time::Duration::from_secs(5))
        .map_err(|cause| Error::Sqlite { context: context(), cause })?;
    // Touch the schema now so "not a database" surfaces here, with the path in the message.
    conn.query_row("SELECT count(*) FROM sqlite_schema", [], |r| r.get::<_, i64>(0))
        .map_err(|cause| Error::Sqlite { context: context(), cause })?;
    Ok((conn, note))
}

/// Examines the SQLite database at `path`.
pub fn diagnose(path: &Path, options: &DoctorOptions) -> Result<DoctorReport, Error> {
    let (conn, open_note) = open_for_doctor(path)?;
    let sq = |context: &str| {
        let context = format!("{context} in '{}'", path.display());
        move |cause| Error::Sqlite { context: context.clone(), cause }
    };
    let pragma = |name: &str| -> Result<u64, Error> {
        conn.query_row(&format!("PRAGMA {name}"), [], |r| r.get::<_, i64>(0))
            .map(|v| v.max(0) as u64)
            .map_err(sq(&format!("could not read PRAGMA {name}")))
    };
    let page_size_bytes = pragma("page_size")?;
    let page_count = pragma("page_count")?;
    let freelist_pages = pragma("freelist_count")?;
    let tables = schema::tables(&conn).map_err(sq("could not read the schema"))?;
    let selected: Vec<_> = match &options.table {
        Some(name) => {
            let found: Vec<_> = tables.into_iter().filter(|t| t.name.eq_ignore_ascii_case(name)).collect();
            if found.is_empty() {
                return Err(Error::InvalidInput(format!("no table '{name}' in '{}'", path.display())));
            }
            found
        }
        None => tables,
    };
    let file_bytes = page_size_bytes * page_count;
    let mut notes: Vec<String> = open_note.into_iter().collect();
    let sampled = if !options.full && file_bytes > options.page_sample_above_bytes && page_sample::file_is_current(path)
    {
        page_sample::all_btrees(path, &conn).map_err(sq("could not read the schema"))?
    } else {
        None
    };
    let (btrees, row_estimates) = match sampled {
        Some(sampled) => {
            let read: usize = sampled.iter().map(|b| b.pages_read).sum();
            notes.push(format!(
                "{} file: b-tree statistics and row counts estimated from {} random root-to-leaf descents per b-tree ({read} pages read, not every page; --full walks them all with dbstat)",
                advice::human_bytes(file_bytes),
                page_sample::DESCENTS
            ));
            let rows: HashMap<String, u64> =
                sampled.iter().map(|b| (b.stats.name.clone(), b.entries.round() as u64)).collect();
            (sampled.into_iter().map(|b| b.stats).collect(), Some(rows))
        }
        None => (physical::all_btrees(&conn).map_err(sq("could not read dbstat"))?, None),
    };
    let mut reports = Vec::new();
    for table in &selected {
        let estimate = row_estimates.as_ref().and_then(|r: &HashMap<String, u64>| r.get(&table.name).copied());
        let mut report = examine_table(&conn, table, &btrees, page_size_bytes, file_bytes, options, estimate)
            .map_err(sq(&format!("could not examine table '{}'", table.name)))?;
        if estimate.is_some() {
            for b in &mut report.btrees {
                b.estimated = Some(format!("{} random root-to-leaf descents", page_sample::DESCENTS));
            }
        }
        reports.push(report);
    }
    Ok(DoctorReport {
        target: path.display().to_string(),
        engine: "sqlite".into(),
        engine_version: rusqlite::version().to_string(),
        page_size_bytes,
        page_count,
        freelist_pages,
        read_only: None,
        notes,
        tables: reports,
    })
}

fn examine_table(
    conn: &Connection,
    table: &schema::TableSchema,
    all_btrees: &[crate::results::BtreeStats],
    page_size: u64,
    database_bytes: u64,
    options: &DoctorOptions,
    rows_estimate: Option<u64>,
) -> rusqlite::Result<TableReport> {
    let rows = match rows_estimate {
        Some(rows) => rows,
        None => conn
            .query_row(&format!("SELECT count(*) FROM {}", schema::quote(&table.name)), [], |r| r.get::<_, i64>(0))?
            as u64,
    };
    let has_rowid = !table.without_rowid;
    let key_report = |key: &schema::KeySchema, is_primary: bool| -> rusqlite::Result<KeyColumnReport> {
        let mut out = KeyColumnReport {
            columns: key.columns.clone(),
            declared_type: key.declared_type.clone(),
            index: key.index.clone(),
            scheme: None,
            order: None,
        };
        if key.columns.len() == 1 {
            let column = &key.columns[0];
            let rowid_alias = is_primary && table.layout == Layout::RowidAlias;
            let samples = sample::sample_column(conn, &table.name, column, has_rowid, rows, options)?;
            let scheme = sample::detect_scheme(&samples, rows);
            out.order = Some(order::analyse(&samples.keys, has_rowid && !rowid_alias));
            out.scheme = Some(scheme);
        }
        Ok(out)
    };
    let primary_key = table.primary.as_ref().map(|k| key_report(k, true)).transpose()?;
    let unique_keys = table.unique.iter().map(|k| key_report(k, false)).collect::<Result<Vec<_>, _>>()?;
    let mut btrees = physical::table_btrees(table, all_btrees, page_size);
    if let Some(pk) = &primary_key
        && rows_estimate.is_none()
        && pk.scheme.as_ref().is_some_and(|s| s.storage.text_overhead_bytes() > 0)
    {
        physical::add_payload(conn, &mut btrees, &physical::key_holders(table, pk.index.as_deref()))?;
    }
    let facts =
        TableFacts { schema: table, rows, rows_estimated: rows_estimate.is_some(), primary_key, unique_keys, btrees };
    Ok(assemble(facts, database_bytes, EngineKind::Sqlite))
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
}

/// Ranks advice for one table and writes its verdict (shared by every engine).
pub fn assemble(facts: TableFacts<'_>, database_bytes: u64, engine: EngineKind) -> TableReport {
    let TableFacts { schema: table, rows, rows_estimated, primary_key, unique_keys, btrees } = facts;
    let advice = advice::advise(table, rows, primary_key.as_ref(), &unique_keys, &btrees, database_bytes, engine);
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
        advice,
        verdict,
    }
}

/// The migration script for `report`'s advice (read-only: it only reads the schema again).
pub fn migration_sql(path: &Path, report: &DoctorReport) -> Result<String, Error> {
    let conn = open_read_only(path)?;
    sql::migration_script(&conn, report)
        .map_err(|cause| Error::Sqlite { context: format!("could not read the schema of '{}'", path.display()), cause })
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

/// Examines TARGET: a SQLite file or a server URL (see [`target_kind`]).
pub fn diagnose_target(target: &str, options: &DoctorOptions) -> Result<DoctorReport, Error> {
    match target_kind(target)? {
        #[cfg(feature = "postgres")]
        EngineKind::Postgres => postgres::diagnose(target, options),
        #[cfg(feature = "mysql")]
        EngineKind::MariaDb => mariadb::diagnose(target, options),
        #[cfg(feature = "sqlite")]
        EngineKind::Sqlite => diagnose(Path::new(target), options),
        #[allow(unreachable_patterns)]
        other => Err(not_built(other)),
    }
}

/// The migration script for `report` about TARGET (SQLite re-reads the file's schema read-only;
/// servers' scripts come from the report alone).
pub fn migration_sql_for(target: &str, report: &DoctorReport) -> Result<String, Error> {
    match target_kind(target)? {
        #[cfg(feature = "sqlite")]
        EngineKind::Sqlite => migration_sql(Path::new(target), report),
        EngineKind::Postgres | EngineKind::MariaDb => server_sql::script(report),
        #[allow(unreachable_patterns)]
        other => Err(not_built(other)),
    }
}

/// The error for an engine whose driver this build left out.
#[allow(dead_code)]
fn not_built(kind: EngineKind) -> Error {
    Error::InvalidInput(format!("this pkbench was built without the {} driver: doctor cannot read it", kind.label()))
}

/// The report as pretty JSON (validated by `schema/doctor.schema.json`).
pub fn to_json(report: &DoctorReport) -> String {
    serde_json::to_string_pretty(report).unwrap_or_else(|e| format!("{{\"error\": \"{e}\"}}"))
}
