//! `doctor` on a PostgreSQL server: one READ ONLY transaction (`default_transaction_read_only`
//! too), catalog reads for keys and layouts (every table is a heap plus B-tree indexes), keys
//! sampled at evenly spaced heap pages through ctid ranges (one page read per probe, so key
//! order can be compared with insertion order), and `pgstatindex` when `pgstattuple` is installed
//! (else estimates from the catalog and the sampled sizes, said so in the report).

pub mod export;
mod references;
mod sample;
mod session;

use sample::{HeapSample, fetch_expr, sample_heap};
pub use session::ReadOnlySession;

use crate::Error;
use crate::doctor::physical::ServerBtree;
use crate::doctor::sample::{SampledKey, Samples, as_native_uuid, detect_scheme};
use crate::doctor::schema::{KeySchema, Layout, TableSchema};
use crate::doctor::{BtreeReport, DoctorOptions, DoctorReport, KeyColumnReport, TableFacts, assemble, order};
use crate::engines::EngineKind;
use crate::engines::kind::Wire;
use postgres::Client;
use references::{key_reference, referencing};

/// Tables and indexes larger than this are not read whole (`count(*)`, `pgstatindex`) unless
/// `--full`: the catalog's estimates are used instead.
pub const WHOLE_READ_LIMIT_BYTES: i64 = 256 << 20;
/// Bytes per page usable for tuples (8192 minus page header and B-tree special space).
const USABLE_PAGE: f64 = 8192.0 - 24.0 - 16.0;

/// One table as the catalog describes it.
struct PgTable {
    oid: u32,
    schema: TableSchema,
    heap_bytes: i64,
    reltuples: f64,
    /// `(index name, bytes)` of every index.
    index_bytes: Vec<(String, i64)>,
    /// `(column, type name)` of every column.
    types: Vec<(String, String)>,
}

fn pg(context: &str) -> impl Fn(postgres::Error) -> Error + '_ {
    move |e| Error::postgres(context, e)
}

/// Examines the server at `url`.
pub fn diagnose(url: &str, options: &DoctorOptions) -> Result<DoctorReport, Error> {
    let mut session = ReadOnlySession::connect(url, &options.connect)?;
    diagnose_session(&mut session, options)
}

/// Examines the database `session` is connected to, inside its read-only transaction.
pub fn diagnose_session(session: &mut ReadOnlySession, options: &DoctorOptions) -> Result<DoctorReport, Error> {
    let mut notes: Vec<String> = session.connection.iter().cloned().collect();
    let c = &mut session.client;
    let version: String = c.query_one("SHOW server_version", &[]).map_err(pg("could not read the version"))?.get(0);
    let product: String = c.query_one("SELECT version()", &[]).map_err(pg("could not read the version"))?.get(0);
    EngineKind::identify(Wire::Postgres, &product).map_err(Error::InvalidInput)?;
    crate::engines::distributed::DistributedSql::refuse_diagnosis(Wire::Postgres, &product)?;
    let pgstattuple: Option<String> = c
        .query_opt("SELECT extnamespace::regnamespace::text FROM pg_extension WHERE extname = 'pgstattuple'", &[])
        .map_err(pg("could not list extensions"))?
        .map(|r| r.get(0));
    let database_bytes: i64 = c
        .query_one("SELECT pg_database_size(current_database())", &[])
        .map_err(pg("could not read the database size"))?
        .get(0);
    let cache_bytes: i64 = c
        .query_one("SELECT pg_size_bytes(current_setting('shared_buffers'))", &[])
        .map_err(pg("could not read shared_buffers"))?
        .get(0);
    let tables = list_tables(c, options)?;
    if pgstattuple.is_none() {
        notes.push(
            "pgstattuple is not installed in this database: index leaf fill is estimated from the catalog and the sampled key sizes, fragmentation is not measured (CREATE EXTENSION pgstattuple to measure them)".into(),
        );
    }
    let mut reports = Vec::new();
    for t in &tables {
        let facts = examine(c, t, pgstattuple.as_deref(), options, &mut notes)?;
        reports.push(assemble(facts, database_bytes.max(0) as u64, EngineKind::Postgres));
    }
    let page_count = reports.iter().flat_map(|t| &t.btrees).map(|b| b.stats.pages).sum();
    Ok(DoctorReport {
        target: session.target.clone(),
        engine: EngineKind::Postgres.name().into(),
        engine_version: version,
        page_size_bytes: 8192,
        page_count,
        freelist_pages: 0,
        read_only: Some(session.read_only.clone()),
        cache_bytes: u64::try_from(cache_bytes).ok(),
        notes,
        tables: reports,
    })
}

fn list_tables(c: &mut Client, options: &DoctorOptions) -> Result<Vec<PgTable>, Error> {
    let rows = c
        .query(
            "SELECT c.oid, n.nspname::text, c.relname::text, pg_relation_size(c.oid), c.reltuples::float8 \
             FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace \
             WHERE c.relkind = 'r' AND n.nspname NOT IN ('pg_catalog', 'information_schema') \
             AND n.nspname NOT LIKE 'pg\\_toast%' AND n.nspname NOT LIKE 'pg\\_temp%' \
             AND ($1::text IS NULL OR n.nspname = $1) ORDER BY 2, 3",
            &[&options.schema],
        )
        .map_err(pg("could not list tables"))?;
    let mut out = Vec::new();
    for r in rows {
        let (oid, nsp, name): (u32, String, String) = (r.get(0), r.get(1), r.get(2));
        let shown = shown(nsp, name.clone());
        if let Some(want) = &options.table
            && !(want.eq_ignore_ascii_case(&name) || want.eq_ignore_ascii_case(&shown))
        {
            continue;
        }
        out.push(table(c, oid, shown, r.get(3), r.get(4))?);
    }
    if out.is_empty()
        && let Some(want) = &options.table
    {
        return Err(Error::NotFound(format!("no table '{want}' in this database (try --schema)")));
    }
    Ok(out)
}

fn table(c: &mut Client, oid: u32, name: String, heap_bytes: i64, reltuples: f64) -> Result<PgTable, Error> {
    let cols: Vec<(String, String, String)> = c
        .query(
            "SELECT a.attname::text, format_type(a.atttypid, a.atttypmod), t.typname::text FROM pg_attribute a \
             JOIN pg_type t ON t.oid = a.atttypid WHERE a.attrelid = $1 AND a.attnum > 0 AND NOT a.attisdropped \
             ORDER BY a.attnum",
            &[&oid],
        )
        .map_err(pg("could not read columns"))?
        .iter()
        .map(|r| (r.get(0), r.get(1), r.get(2)))
        .collect();
    let indexes = c
        .query(
            "SELECT ic.relname::text, i.indisprimary, i.indisunique, pg_relation_size(i.indexrelid), \
             pg_get_indexdef(i.indexrelid), i.indpred IS NOT NULL, \
             ARRAY(SELECT coalesce(a.attname::text, '<expr>') FROM unnest(i.indkey::int2[]) WITH ORDINALITY k(n, o) \
                   LEFT JOIN pg_attribute a ON a.attrelid = i.indrelid AND a.attnum = k.n ORDER BY k.o) \
             FROM pg_index i JOIN pg_class ic ON ic.oid = i.indexrelid WHERE i.indrelid = $1 ORDER BY 1",
            &[&oid],
        )
        .map_err(pg("could not read indexes"))?;
    let declared = |col: &str| cols.iter().find(|c| c.0 == col).map(|c| c.1.clone()).unwrap_or_default();
    let (mut primary, mut unique, mut list, mut index_bytes) = (None, Vec::new(), Vec::new(), Vec::new());
    for r in &indexes {
        let (index, is_pk, is_unique, partial): (String, bool, bool, bool) = (r.get(0), r.get(1), r.get(2), r.get(5));
        let columns: Vec<String> = r.get(6);
        index_bytes.push((index.clone(), r.get::<_, i64>(3)));
        let key =
            KeySchema { declared_type: declared(&columns[0]), columns: columns.clone(), index: Some(index.clone()) };
        if is_pk {
            primary = Some(key);
        } else if is_unique && !partial && columns.len() == 1 && columns[0] != "<expr>" {
            unique.push(key);
        }
        list.push((index, columns, Some(r.get::<_, String>(4))));
    }
    let layout = if primary.is_some() { Layout::HeapWithKeyIndex } else { Layout::HeapNoKey };
    let types = cols.iter().map(|c| (c.0.clone(), c.2.clone())).collect();
    let columns = cols.into_iter().map(|c| (c.0, c.1)).collect();
    let (referenced_by, key_references) = match primary.as_ref().map(|k| k.columns.as_slice()) {
        Some([key]) => (referencing(c, oid, key)?, key_reference(c, oid, key)?),
        _ => (Vec::new(), None),
    };
    let schema = TableSchema {
        name,
        without_rowid: false,
        layout,
        columns,
        primary,
        unique,
        indexes: list,
        referenced_by,
        key_references,
        key_attributes: None,
    };
    Ok(PgTable { oid, schema, heap_bytes, reltuples, index_bytes, types })
}

/// A table as doctor names it: with its schema outside `public`.
fn shown(nsp: String, table: String) -> String {
    if nsp == "public" { table } else { format!("{nsp}.{table}") }
}

fn examine<'a>(
    c: &mut Client,
    t: &'a PgTable,
    pgstattuple: Option<&str>,
    options: &DoctorOptions,
    notes: &mut Vec<String>,
) -> Result<TableFacts<'a>, Error> {
    let s = &t.schema;
    let whole = options.full || t.heap_bytes <= WHOLE_READ_LIMIT_BYTES || t.reltuples < 0.0;
    let (rows, rows_estimated) = if whole {
        let sql = format!("SELECT count(*) FROM {}", rel(c, t.oid)?);
        let n: i64 = c.query_one(&sql, &[]).map_err(pg("could not count rows"))?.get(0);
        (n.max(0) as u64, false)
    } else {
        (t.reltuples.max(0.0) as u64, true)
    };
    let keys: Vec<&KeySchema> = s.primary.iter().chain(s.unique.iter()).filter(|k| k.columns.len() == 1).collect();
    let type_of = |col: &str| t.types.iter().find(|c| c.0 == col).map(|c| c.1.as_str()).unwrap_or("text");
    let exprs: Vec<String> = keys
        .iter()
        .map(|k| {
            let col = &k.columns[0];
            format!("{}, pg_column_size({})", fetch_expr(col, type_of(col)), crate::doctor::schema::quote(col))
        })
        .collect();
    let (heap, method) = sample_heap(c, t, &exprs, &keys, rows, options)?;
    let key_report = |k: &KeySchema| -> KeyColumnReport {
        let mut report = KeyColumnReport {
            columns: k.columns.clone(),
            declared_type: k.declared_type.clone(),
            index: k.index.clone(),
            scheme: None,
            order: None,
        };
        let Some(pos) = keys.iter().position(|x| std::ptr::eq(*x, k)) else { return report };
        let sampled: Vec<SampledKey> =
            heap.iter().map(|h| SampledKey { rowid: Some(h.rowid), value: h.values[pos].0.clone() }).collect();
        let scheme = detect_scheme(&Samples { keys: sampled.clone(), method: method.clone() }, rows);
        let scheme = if type_of(&k.columns[0]) == "uuid" { as_native_uuid(scheme) } else { scheme };
        report.order = Some(order::analyse(&sampled, true));
        report.scheme = Some(scheme);
        report
    };
    let primary_key = s.primary.as_ref().map(key_report);
    let unique_keys = s.unique.iter().map(key_report).collect();
    let avg = |f: &dyn Fn(&HeapSample) -> f64| {
        if heap.is_empty() { None } else { Some(heap.iter().map(f).sum::<f64>() / heap.len() as f64) }
    };
    let mut btrees = Vec::new();
    let heap_pages = (t.heap_bytes.max(0) / 8192) as u64;
    let row_bytes = avg(&|h| f64::from(h.row_bytes));
    let heap_fill = row_bytes.map_or(0.0, |b| rows as f64 * (b + 4.0) / (heap_pages.max(1) as f64 * 8168.0));
    let how =
        format!("heap fill estimated from {} sampled row sizes and {rows} rows (a heap has no key order)", heap.len());
    let mut heap_report = report(&s.name, "table", heap_pages, heap_pages, heap_fill, 0.0, Some(how));
    // Inserts append to a heap whatever the key: REINDEX (the advice here) does not touch it.
    heap_report.reclaimable_bytes = 0;
    btrees.push(heap_report);
    for (index, bytes) in &t.index_bytes {
        let pages = (bytes.max(&0) / 8192) as u64;
        let measured = match pgstattuple {
            Some(nsp) if options.full || *bytes <= WHOLE_READ_LIMIT_BYTES => pgstatindex(c, nsp, t.oid, index)?,
            _ => None,
        };
        if pgstattuple.is_some() && measured.is_none() && (options.full || *bytes <= WHOLE_READ_LIMIT_BYTES) {
            notes.push(format!("pgstatindex('{index}') failed (needs pg_stat_scan_tables or superuser): estimated"));
        }
        if let Some((leaf_pages, fill, frag)) = measured {
            btrees.push(report(index, "index", pages, leaf_pages, fill, frag, None));
            continue;
        }
        // Estimate: rows × (aligned index tuple + line pointer) over the leaf pages.
        let Some(pos) = keys.iter().position(|k| k.index.as_deref() == Some(index.as_str())) else {
            notes.push(format!("index '{index}' of '{}': not measured (not a sampled single-column key)", s.name));
            continue;
        };
        let key_bytes = avg(&|h| f64::from(h.values[pos].1)).unwrap_or(0.0);
        let tuple = ((8.0 + key_bytes) / 8.0).ceil() * 8.0 + 4.0;
        let leaf_pages = pages.saturating_sub(1 + pages / 256).max(1);
        let fill = rows as f64 * tuple / (leaf_pages as f64 * USABLE_PAGE);
        let how = format!(
            "leaf fill estimated from {} sampled key sizes and {rows} rows; fragmentation not measured",
            heap.len()
        );
        btrees.push(report(index, "index", pages, leaf_pages, fill, 0.0, Some(how)));
    }
    Ok(TableFacts { schema: s, rows, rows_estimated, primary_key, unique_keys, btrees, lsm: None })
}

fn report(
    name: &str,
    kind: &str,
    pages: u64,
    leaf_pages: u64,
    fill: f64,
    frag: f64,
    estimated: Option<String>,
) -> BtreeReport {
    ServerBtree { name, kind, pages, leaf_pages, fill, out_of_order: frag, page_bytes: 8192 }.report(estimated)
}

/// The table's name as SQL (`schema.table`, quoted), from its oid.
fn rel(c: &mut Client, oid: u32) -> Result<String, Error> {
    c.query_one("SELECT $1::oid::regclass::text", &[&oid]).map(|r| r.get(0)).map_err(pg("could not name a table"))
}

/// `pgstatindex` leaf pages, density and fragmentation, or `None` if it fails (no privilege):
/// a savepoint keeps the read-only transaction usable.
fn pgstatindex(c: &mut Client, nsp: &str, table: u32, index: &str) -> Result<Option<(u64, f64, f64)>, Error> {
    c.batch_execute("SAVEPOINT doctor_stat").map_err(pg("could not set a savepoint"))?;
    let sql = format!(
        "SELECT leaf_pages::bigint, avg_leaf_density::float8, leaf_fragmentation::float8 FROM {}.pgstatindex(\
         (SELECT ic.oid FROM pg_index i JOIN pg_class ic ON ic.oid = i.indexrelid WHERE i.indrelid = $1 AND ic.relname = $2)::regclass)",
        crate::doctor::schema::quote(nsp)
    );
    match c.query_one(&sql, &[&table, &index]) {
        Ok(r) => {
            // pgstatindex reports NaN for an index with a single leaf: nothing out of order.
            let finite = |v: f64| if v.is_finite() { v / 100.0 } else { 0.0 };
            c.batch_execute("RELEASE SAVEPOINT doctor_stat").map_err(pg("could not release a savepoint"))?;
            Ok(Some((r.get::<_, i64>(0).max(0) as u64, finite(r.get(1)), finite(r.get(2)))))
        }
        Err(_) => {
            c.batch_execute("ROLLBACK TO SAVEPOINT doctor_stat").map_err(pg("could not roll back a savepoint"))?;
            Ok(None)
        }
    }
}
