//! `doctor` on a MariaDB/MySQL server: one `START TRANSACTION READ ONLY` (the session's
//! transactions made read-only first), `information_schema` for keys (InnoDB always clusters
//! rows on the primary key), keys sampled by index seeks at evenly spaced points of the key range
//! (never a scan unless `--full`), compared with an auto-increment or timestamp column where one
//! exists, and InnoDB's own page counts (`mysql.innodb_index_stats`) with leaf fill estimated
//! from them and the sampled sizes. A MyRocks (ROCKSDB) table is sampled the same way; its
//! sorted files and levels stand where an InnoDB table's B-trees do.

pub mod export;
mod references;
mod rocksdb;
mod sample;
mod session;

use sample::{Kind, column_bytes_sql, sample_key};
pub use session::ReadOnlySession;
use session::my;

use crate::Error;
use crate::doctor::physical::ServerBtree;
use crate::doctor::sample::{as_native_uuid, detect_scheme};
use crate::doctor::schema::{KeySchema, Layout, TableSchema};
use crate::doctor::{BtreeReport, DoctorOptions, DoctorReport, KeyColumnReport, TableFacts, assemble, order};
use crate::engines::EngineKind;
use crate::engines::dialect::Dialect;
use crate::engines::kind::Wire;
use crate::engines::mariadb::dialect::INNODB;
use mysql::Conn;
use mysql::prelude::Queryable;
use references::{attributes, key_reference, referencing};

/// Tables larger than this are not counted whole unless `--full` (`TABLE_ROWS` instead).
pub const WHOLE_READ_LIMIT_BYTES: u64 = 256 << 20;
/// InnoDB record overhead on a clustered leaf: 5-byte header, 6-byte transaction id, 7-byte
/// roll pointer, ~2 bytes of variable-length/NULL flags and page directory share.
const CLUSTERED_OVERHEAD: f64 = 20.0;
/// On a secondary leaf: 5-byte header and ~2 bytes of flags and directory share.
const SECONDARY_OVERHEAD: f64 = 7.0;

/// Quotes an identifier for MariaDB.
pub fn quote(name: &str) -> String {
    INNODB.quote(name)
}

/// `information_schema.TABLES`: schema, name, engine, rows, data, index and free bytes.
type TableRow = (String, String, Option<String>, Option<u64>, Option<u64>, Option<u64>, Option<u64>);

struct MyTable {
    db: String,
    name: String,
    schema: TableSchema,
    /// `(column, data type, extra)`.
    columns: Vec<(String, String, String)>,
    table_rows: u64,
    data_bytes: u64,
}

/// Examines the server at `url`.
pub fn diagnose(url: &str, options: &DoctorOptions) -> Result<DoctorReport, Error> {
    let mut session = ReadOnlySession::connect(url, &options.connect)?;
    diagnose_session(&mut session, options)
}

/// Examines the tables `session` can see (its database, or `options.schema`), read-only.
pub fn diagnose_session(session: &mut ReadOnlySession, options: &DoctorOptions) -> Result<DoctorReport, Error> {
    let connection: Vec<String> = session.connection.iter().cloned().collect();
    let c = &mut session.conn;
    let version: String =
        c.query_first("SELECT VERSION()").map_err(my("could not read the version"))?.unwrap_or_default();
    EngineKind::identify(Wire::Mysql, &version).map_err(Error::InvalidInput)?;
    crate::engines::distributed::DistributedSql::refuse_diagnosis(Wire::Mysql, &version)?;
    // MariaDB, or MySQL 8.0+ (an older MySQL is refused in one line).
    let flavor = crate::engines::mariadb::flavor::Flavor::of(&version).map_err(Error::InvalidInput)?;
    let page: u64 =
        c.query_first("SELECT @@innodb_page_size").map_err(my("could not read innodb_page_size"))?.unwrap_or(16384);
    let cache_bytes: Option<u64> =
        c.query_first("SELECT @@innodb_buffer_pool_size").map_err(my("could not read innodb_buffer_pool_size"))?;
    let current: Option<String> =
        c.query_first("SELECT DATABASE()").map_err(my("could not read DATABASE()"))?.flatten();
    let scope = options.schema.clone().or(current);
    let listed: Vec<TableRow> = c
        .exec(
            "SELECT TABLE_SCHEMA, TABLE_NAME, ENGINE, TABLE_ROWS, DATA_LENGTH, INDEX_LENGTH, DATA_FREE \
             FROM information_schema.TABLES WHERE TABLE_TYPE = 'BASE TABLE' \
             AND TABLE_SCHEMA NOT IN ('mysql', 'information_schema', 'performance_schema', 'sys') \
             AND (? IS NULL OR TABLE_SCHEMA = ?) ORDER BY 1, 2",
            (scope.clone(), scope.clone()),
        )
        .map_err(my("could not list tables"))?;
    let (mut notes, mut reports, mut free) = (connection, Vec::new(), 0);
    let (mut stats_stale, mut innodb, mut rocksdb) = (false, false, false);
    for (db, name, engine, table_rows, data, _index, data_free) in listed {
        let shown = if scope.as_deref() == Some(db.as_str()) { name.clone() } else { format!("{db}.{name}") };
        if let Some(want) = &options.table
            && !(want.eq_ignore_ascii_case(&name) || want.eq_ignore_ascii_case(&shown))
        {
            continue;
        }
        let storage = engine.unwrap_or_default();
        let lsm = storage.eq_ignore_ascii_case("ROCKSDB");
        if !lsm && !storage.eq_ignore_ascii_case("InnoDB") {
            notes.push(format!("table '{shown}' uses {storage}, not InnoDB or RocksDB: skipped"));
            continue;
        }
        let mut t = table(c, db, name, shown, table_rows.unwrap_or(0), data.unwrap_or(0), lsm)?;
        if let crate::engines::mariadb::flavor::Flavor::MySql { .. } = flavor {
            // MySQL prints a literal COLUMN_DEFAULT unquoted: the clauses are written for MariaDB,
            // whose scripts alone repeat them.
            t.schema.key_attributes = None;
            t.schema.referenced_by.iter_mut().for_each(|r| r.attributes = None);
        }
        if lsm {
            rocksdb = true;
            let mut facts = examine(c, &t, None, options, &mut notes, &mut stats_stale)?;
            facts.lsm = match rocksdb::report(c, &t.db, &t.name) {
                Ok(report) => Some(report),
                Err(e) => {
                    notes.push(format!("table '{}': its sorted files are not listed ({e})", t.schema.name));
                    None
                }
            };
            let bytes = facts.lsm.as_ref().map_or(t.data_bytes, |l| l.size_bytes());
            reports.push(assemble(facts, bytes, EngineKind::MyRocks));
            continue;
        }
        innodb = true;
        free += data_free.unwrap_or(0);
        let facts = examine(c, &t, Some(page), options, &mut notes, &mut stats_stale)?;
        let bytes: u64 = facts.btrees.iter().map(|b| b.stats.size_bytes).sum();
        reports.push(assemble(facts, bytes, EngineKind::MariaDb));
    }
    if reports.is_empty()
        && let Some(want) = &options.table
    {
        return Err(Error::NotFound(format!("no InnoDB or RocksDB table '{want}' in this database (try --schema)")));
    }
    if let crate::engines::mariadb::flavor::Flavor::MySql { .. } = flavor {
        notes.push(format!("server: MySQL {version}; pkbench's MySQL path follows the MySQL 8.0/8.4 Reference Manual and is tested on MariaDB, not on a live MySQL"));
    }
    if innodb {
        notes.push("InnoDB keeps no leaf-fill statistic: fill is estimated from mysql.innodb_index_stats leaf pages, the row count and sampled row sizes; fragmentation is not measured".into());
    }
    if rocksdb {
        notes.push(crate::doctor::lsm::NOTE.into());
    }
    if stats_stale {
        notes.push("mysql.innodb_index_stats was unreadable or empty for some tables: their pages come from information_schema.TABLES (ANALYZE TABLE refreshes the statistics)".into());
    }
    let page_count = reports.iter().flat_map(|t| &t.btrees).map(|b| b.stats.pages).sum();
    Ok(DoctorReport {
        target: session.target.clone(),
        engine: EngineKind::MariaDb.name().into(),
        engine_version: version,
        page_size_bytes: page,
        page_count,
        freelist_pages: free / page.max(1),
        read_only: Some(session.read_only.clone()),
        cache_bytes,
        notes,
        tables: reports,
    })
}

fn table(
    c: &mut Conn,
    db: String,
    name: String,
    shown: String,
    table_rows: u64,
    data_bytes: u64,
    lsm: bool,
) -> Result<MyTable, Error> {
    let columns: Vec<(String, String, String, String, Option<String>, String)> = c
        .exec(
            "SELECT COLUMN_NAME, COLUMN_TYPE, DATA_TYPE, EXTRA, COLUMN_DEFAULT, COLUMN_COMMENT FROM information_schema.COLUMNS \
             WHERE TABLE_SCHEMA = ? AND TABLE_NAME = ? ORDER BY ORDINAL_POSITION",
            (&db, &name),
        )
        .map_err(my("could not read columns"))?;
    let stats: Vec<(String, i64, Option<String>)> = c
        .exec(
            "SELECT INDEX_NAME, NON_UNIQUE, COLUMN_NAME FROM information_schema.STATISTICS \
             WHERE TABLE_SCHEMA = ? AND TABLE_NAME = ? ORDER BY INDEX_NAME = 'PRIMARY' DESC, INDEX_NAME, SEQ_IN_INDEX",
            (&db, &name),
        )
        .map_err(my("could not read indexes"))?;
    let declared = |col: &str| columns.iter().find(|c| c.0 == col).map(|c| c.1.clone()).unwrap_or_default();
    let mut indexes: Vec<(String, Vec<String>, Option<String>)> = Vec::new();
    let mut unique_names = Vec::new();
    for (index, non_unique, column) in stats {
        let column = column.unwrap_or_else(|| "<expr>".into());
        match indexes.last_mut() {
            Some(last) if last.0 == index => last.1.push(column),
            _ => {
                if non_unique == 0 {
                    unique_names.push(index.clone());
                }
                indexes.push((index, vec![column], None));
            }
        }
    }
    let primary = indexes
        .iter()
        .position(|i| i.0 == "PRIMARY")
        .map(|p| indexes.remove(p))
        .map(|(_, cols, _)| KeySchema { declared_type: declared(&cols[0]), columns: cols, index: None });
    let unique = indexes
        .iter()
        .filter(|i| unique_names.contains(&i.0) && i.1.len() == 1 && i.1[0] != "<expr>")
        .map(|i| KeySchema { columns: i.1.clone(), declared_type: declared(&i.1[0]), index: Some(i.0.clone()) })
        .collect();
    let layout = match (lsm, primary.is_some()) {
        (false, true) => Layout::ClusteredOnKey,
        (false, false) => Layout::ClusteredHiddenKey,
        (true, true) => Layout::SortedOnKey,
        (true, false) => Layout::SortedHiddenKey,
    };
    let key_attributes = match primary.as_ref().map(|k| k.columns.as_slice()) {
        Some([key]) => columns.iter().find(|c| &c.0 == key).and_then(|c| attributes(c.4.as_deref(), &c.5)),
        _ => None,
    };
    let qualify = shown.contains('.');
    let (referenced_by, key_references) = match primary.as_ref().map(|k| k.columns.as_slice()) {
        Some([key]) => (referencing(c, &db, &name, key, qualify)?, key_reference(c, &db, &name, key, qualify)?),
        _ => (Vec::new(), None),
    };
    let schema = TableSchema {
        name: shown,
        without_rowid: primary.is_some(),
        layout,
        columns: columns.iter().map(|c| (c.0.clone(), c.1.clone())).collect(),
        primary,
        unique,
        indexes,
        referenced_by,
        key_references,
        key_attributes,
    };
    let columns = columns.into_iter().map(|c| (c.0, c.2, c.3)).collect();
    Ok(MyTable { db, name, schema, columns, table_rows, data_bytes })
}

/// Counts and samples a table; `page` is InnoDB's page size, for its B-tree estimates (none for
/// a RocksDB table, whose sorted files the caller adds).
fn examine<'a>(
    c: &mut Conn,
    t: &'a MyTable,
    page: Option<u64>,
    options: &DoctorOptions,
    notes: &mut Vec<String>,
    stats_stale: &mut bool,
) -> Result<TableFacts<'a>, Error> {
    let s = &t.schema;
    let from = format!("{}.{}", quote(&t.db), quote(&t.name));
    let (rows, rows_estimated) = if options.full || t.data_bytes <= WHOLE_READ_LIMIT_BYTES {
        let n: Option<u64> =
            c.query_first(format!("SELECT COUNT(*) FROM {from}")).map_err(my("could not count rows"))?;
        (n.unwrap_or(0), false)
    } else {
        (t.table_rows, true)
    };
    let mut key_bytes = Vec::new();
    let read = TableRead { table: t, from: &from, rows, options };
    let primary_key = s.primary.as_ref().map(|k| read.key_report(k, c, &mut key_bytes)).transpose()?;
    let unique_keys = s.unique.iter().map(|k| read.key_report(k, c, &mut key_bytes)).collect::<Result<Vec<_>, _>>()?;
    let btrees = match page {
        Some(page) => read.btree_estimates(c, page, &key_bytes, notes, stats_stale)?,
        None => Vec::new(),
    };
    Ok(TableFacts { schema: s, rows, rows_estimated, primary_key, unique_keys, btrees, lsm: None })
}

/// The table being examined: its facts from the catalog, its row count and doctor's options.
struct TableRead<'a> {
    table: &'a MyTable,
    /// The table, qualified and quoted.
    from: &'a str,
    rows: u64,
    options: &'a DoctorOptions,
}

impl TableRead<'_> {
    /// One key's report, sampled (single-column keys only); adds the key column's average size
    /// to `key_bytes`.
    fn key_report(
        &self,
        k: &KeySchema,
        c: &mut Conn,
        key_bytes: &mut Vec<(String, f64)>,
    ) -> Result<KeyColumnReport, Error> {
        let (t, from, rows, options) = (self.table, self.from, self.rows, self.options);
        let data_type = |col: &str| t.columns.iter().find(|c| c.0 == col).map(|c| c.1.as_str()).unwrap_or("char");
        // Insertion order: an auto-increment column, else the first timestamp column.
        let auto = t.columns.iter().find(|c| c.2.contains("auto_increment")).map(|c| c.0.clone());
        let stamp = t.columns.iter().find(|c| matches!(c.1.as_str(), "timestamp" | "datetime")).map(|c| c.0.clone());
        let column = &k.columns[0];
        let mut out = KeyColumnReport {
            columns: k.columns.clone(),
            declared_type: k.declared_type.clone(),
            index: k.index.clone(),
            scheme: None,
            order: None,
        };
        if k.columns.len() != 1 {
            return Ok(out);
        }
        let insertion = match (&auto, &stamp) {
            (Some(a), _) if a != column => format!("CAST({} AS SIGNED)", quote(a)),
            (_, Some(ts)) => format!("CAST(UNIX_TIMESTAMP({}) * 1000000 AS SIGNED)", quote(ts)),
            _ => "NULL".into(),
        };
        let kind = Kind::of(data_type(column));
        let samples = sample_key(c, from, column, &insertion, kind, rows, options)?;
        let avg = column_bytes_sql(column, data_type(column));
        let size: Option<f64> = c
            .query_first(format!("SELECT AVG({avg}) FROM (SELECT {} FROM {from} LIMIT 1000) s", quote(column)))
            .map_err(my("could not measure key sizes"))?
            .flatten();
        key_bytes.push((column.clone(), size.unwrap_or(0.0)));
        let scheme = detect_scheme(&samples, rows);
        let scheme = if kind == Kind::Uuid { as_native_uuid(scheme) } else { scheme };
        out.order = Some(order::analyse(&samples.keys, insertion != "NULL"));
        out.scheme = Some(scheme);
        Ok(out)
    }

    /// The clustered index's and each secondary index's fill, estimated from InnoDB's statistics
    /// and the sampled sizes of rows and keys; notes what it cannot estimate.
    fn btree_estimates(
        &self,
        c: &mut Conn,
        page: u64,
        key_bytes: &[(String, f64)],
        notes: &mut Vec<String>,
        stats_stale: &mut bool,
    ) -> Result<Vec<BtreeReport>, Error> {
        let (t, from, rows) = (self.table, self.from, self.rows);
        let s = &t.schema;
        let bytes_of = |col: &str| key_bytes.iter().find(|k| k.0 == col).map(|k| k.1);
        // Secondary entries carry the primary key (or the hidden 6-byte row id).
        let pk_bytes = match &s.primary {
            Some(k) => k.columns.iter().map(|col| bytes_of(col).unwrap_or(8.0)).sum(),
            None => 6.0,
        };
        let row_sql: Vec<String> = t.columns.iter().map(|(col, ty, _)| column_bytes_sql(col, ty)).collect();
        let row_bytes: Option<f64> = c
            .query_first(format!("SELECT AVG({}) FROM (SELECT * FROM {from} LIMIT 1000) s", row_sql.join(" + ")))
            .map_err(my("could not measure row sizes"))?
            .flatten();
        let index_stats: Vec<(String, String, u64)> = c
            .exec(
                "SELECT index_name, stat_name, stat_value FROM mysql.innodb_index_stats \
                 WHERE database_name = ? AND table_name = ? AND stat_name IN ('n_leaf_pages', 'size')",
                (&t.db, &t.name),
            )
            .unwrap_or_default();
        if index_stats.is_empty() {
            *stats_stale = true;
        }
        let stat = |index: &str, name: &str| index_stats.iter().find(|s| s.0 == index && s.1 == name).map(|s| s.2);
        let usable = page as f64 - 200.0;
        let mut btrees = Vec::new();
        let clustered = if s.primary.is_some() { "PRIMARY" } else { "GEN_CLUST_INDEX" };
        let pages = stat(clustered, "size").unwrap_or(t.data_bytes / page.max(1));
        let leaves = stat(clustered, "n_leaf_pages").unwrap_or(pages);
        let record = row_bytes.unwrap_or(0.0) + CLUSTERED_OVERHEAD + if s.primary.is_some() { 0.0 } else { 6.0 };
        let how = format!(
            "clustered index '{clustered}': fill estimated from {leaves} leaf pages, {rows} rows of ~{record:.0} bytes"
        );
        btrees.push(report(
            &s.name,
            "table",
            pages,
            leaves,
            rows as f64 * record / (leaves.max(1) as f64 * usable),
            page,
            how,
        ));
        for (index, _, _) in &s.indexes {
            let (Some(size), Some(leaves)) = (stat(index, "size"), stat(index, "n_leaf_pages")) else {
                notes.push(format!("index '{index}' of '{}': no InnoDB statistics", s.name));
                continue;
            };
            let column =
                s.unique.iter().find(|u| u.index.as_deref() == Some(index.as_str())).map(|u| u.columns[0].as_str());
            let Some(key) = column.and_then(bytes_of) else {
                notes.push(format!(
                    "index '{index}' of '{}': {size} pages, fill not estimated (not a sampled key)",
                    s.name
                ));
                continue;
            };
            let record = key + pk_bytes + SECONDARY_OVERHEAD;
            let how = format!("fill estimated from {leaves} leaf pages, {rows} entries of ~{record:.0} bytes");
            btrees.push(report(
                index,
                "index",
                size,
                leaves,
                rows as f64 * record / (leaves.max(1) as f64 * usable),
                page,
                how,
            ));
        }
        Ok(btrees)
    }
}

fn report(name: &str, kind: &str, pages: u64, leaf_pages: u64, fill: f64, page: u64, how: String) -> BtreeReport {
    ServerBtree { name, kind, pages, leaf_pages, fill, out_of_order: 0.0, page_bytes: page }.report(Some(how))
}
