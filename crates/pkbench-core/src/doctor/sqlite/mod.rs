//! `doctor` on a SQLite file: opened strictly read-only (`session.rs`), tables and layouts from
//! the `pragma_*` tables (`schema.rs`), keys sampled at evenly spaced rowids or key points
//! (`sample.rs`), b-trees measured with `dbstat` (`physical.rs`) or, for large files, random
//! root-to-leaf descents (`page_sample.rs`), a migration script (`sql.rs`), and column
//! statistics for a values file (`export.rs`).

pub mod export;
pub mod page_sample;
mod physical;
mod rebuild;
mod sample;
mod schema;
mod session;
mod sql;

pub use session::{open_for_doctor, open_read_only};

use crate::Error;
use crate::doctor::{
    DoctorOptions, DoctorReport, KeyColumnReport, Layout, TableFacts, TableReport, advice, assemble, order,
    physical as shared,
};
use crate::engines::EngineKind;
use rusqlite::Connection;
use std::collections::HashMap;
use std::path::Path;

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
                return Err(Error::NotFound(format!("no table '{name}' in '{}'", path.display())));
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
        cache_bytes: None,
        notes,
        tables: reports,
    })
}

fn examine_table(
    conn: &Connection,
    table: &crate::doctor::schema::TableSchema,
    all_btrees: &[crate::results::BtreeStats],
    page_size: u64,
    database_bytes: u64,
    options: &DoctorOptions,
    rows_estimate: Option<u64>,
) -> rusqlite::Result<TableReport> {
    let rows = match rows_estimate {
        Some(rows) => rows,
        None => {
            conn.query_row(&format!("SELECT count(*) FROM {}", crate::doctor::schema::quote(&table.name)), [], |r| {
                r.get::<_, i64>(0)
            })? as u64
        }
    };
    let has_rowid = !table.without_rowid;
    let key_report = |key: &crate::doctor::schema::KeySchema, is_primary: bool| -> rusqlite::Result<KeyColumnReport> {
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
            let scheme = crate::doctor::sample::detect_scheme(&samples, rows);
            out.order = Some(order::analyse(&samples.keys, has_rowid && !rowid_alias));
            out.scheme = Some(scheme);
        }
        Ok(out)
    };
    let primary_key = table.primary.as_ref().map(|k| key_report(k, true)).transpose()?;
    let unique_keys = table.unique.iter().map(|k| key_report(k, false)).collect::<Result<Vec<_>, _>>()?;
    let mut btrees = shared::table_btrees(table, all_btrees, page_size);
    if let Some(pk) = &primary_key
        && rows_estimate.is_none()
        && pk.scheme.as_ref().is_some_and(|s| s.storage.text_overhead_bytes() > 0)
    {
        physical::add_payload(conn, &mut btrees, &shared::key_holders(table, pk.index.as_deref()))?;
    }
    let facts = TableFacts {
        schema: table,
        rows,
        rows_estimated: rows_estimate.is_some(),
        primary_key,
        unique_keys,
        btrees,
        lsm: None,
    };
    Ok(assemble(facts, database_bytes, EngineKind::Sqlite))
}

/// The migration script for `report`'s advice (read-only: it only reads the schema again).
pub fn migration_sql(path: &Path, report: &DoctorReport) -> Result<String, Error> {
    let conn = open_read_only(path)?;
    sql::migration_script(&conn, report)
        .map_err(|cause| Error::Sqlite { context: format!("could not read the schema of '{}'", path.display()), cause })
}
