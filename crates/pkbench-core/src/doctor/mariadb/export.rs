//! A MariaDB or MySQL table's shape for `doctor --export-schema`, read from
//! `information_schema` and from aggregates over a bounded sample (counts, distinct counts,
//! value lengths), inside doctor's read-only transaction.

use super::quote;
use super::session::{ReadOnlySession, my};
use crate::Error;
use crate::doctor::export::{ExportedColumn, ExportedTable, ForeignKeyDef, IndexDef, around};
use mysql::Conn;
use mysql::prelude::Queryable;

/// The server's version and the tables around `table` (in `database`, default the URL's),
/// referenced tables first, each with statistics from at most `sample_rows` rows.
pub fn export(
    url: &str,
    database: Option<&str>,
    table: &str,
    sample_rows: u64,
    connect: &crate::engines::wire::connect::ConnectOptions,
) -> Result<(String, Vec<ExportedTable>), Error> {
    let mut session = ReadOnlySession::connect(url, connect)?;
    let c = session.conn();
    let version: String =
        c.query_first("SELECT VERSION()").map_err(my("could not read the version"))?.unwrap_or_default();
    let db: String = match database {
        Some(d) => d.to_string(),
        None => c
            .query_first::<Option<String>, _>("SELECT DATABASE()")
            .map_err(my("could not read the database"))?
            .flatten()
            .ok_or_else(|| {
                Error::InvalidInput(
                    "the URL names no database: add it to the URL (mysql://host/DB) or give --schema DB".into(),
                )
            })?,
    };
    let found: Option<String> = c
        .exec_first(
            "SELECT TABLE_NAME FROM information_schema.TABLES WHERE TABLE_SCHEMA = ? AND TABLE_NAME = ?",
            (&db, table),
        )
        .map_err(my("could not find the table"))?;
    if found.is_none() {
        return Err(Error::NotFound(format!("table {table} is not in database {db}: check --table and --schema")));
    }
    let references = "SELECT DISTINCT TABLE_NAME, REFERENCED_TABLE_NAME FROM information_schema.KEY_COLUMN_USAGE \
         WHERE TABLE_SCHEMA = ? AND REFERENCED_TABLE_SCHEMA = ? AND REFERENCED_TABLE_NAME IS NOT NULL \
         AND TABLE_NAME <> REFERENCED_TABLE_NAME";
    let edges: Vec<(String, String)> = c.exec(references, (&db, &db)).map_err(my("could not read the foreign keys"))?;
    let children: Vec<String> = edges.iter().filter(|e| e.1 == table).map(|e| e.0.clone()).collect();
    let mut parents = |t: &str| -> Result<Vec<String>, Error> {
        Ok(edges.iter().filter(|e| e.0 == t).map(|e| e.1.clone()).collect())
    };
    let names = around(table, &mut parents, children)?;
    let tables = names.iter().map(|t| read_table(c, &db, t, sample_rows)).collect::<Result<_, _>>()?;
    Ok((version, tables))
}

/// How a column's length is measured, from its data type: characters, bytes, JSON's bytes.
fn length_sql(data_type: &str, column: &str) -> Option<(String, bool)> {
    match data_type {
        "char" | "varchar" | "tinytext" | "text" | "mediumtext" | "longtext" => {
            Some((format!("CHAR_LENGTH({column})"), false))
        }
        "binary" | "varbinary" | "tinyblob" | "blob" | "mediumblob" | "longblob" => {
            Some((format!("LENGTH({column})"), false))
        }
        "json" => Some((format!("LENGTH({column})"), true)),
        _ => None,
    }
}

fn read_table(c: &mut Conn, db: &str, table: &str, sample_rows: u64) -> Result<ExportedTable, Error> {
    let rows_estimate: Option<u64> = c
        .exec_first(
            "SELECT TABLE_ROWS FROM information_schema.TABLES WHERE TABLE_SCHEMA = ? AND TABLE_NAME = ?",
            (db, table),
        )
        .map_err(my("could not read the row estimate"))?
        .flatten();
    let cols: Vec<(String, String, String, String)> = c
        .exec(
            "SELECT COLUMN_NAME, COLUMN_TYPE, IS_NULLABLE, DATA_TYPE FROM information_schema.COLUMNS \
             WHERE TABLE_SCHEMA = ? AND TABLE_NAME = ? ORDER BY ORDINAL_POSITION",
            (db, table),
        )
        .map_err(my("could not read the columns"))?;
    let index_rows: Vec<(String, i64, String)> = c
        .exec(
            "SELECT INDEX_NAME, NON_UNIQUE, COLUMN_NAME FROM information_schema.STATISTICS \
             WHERE TABLE_SCHEMA = ? AND TABLE_NAME = ? AND COLUMN_NAME IS NOT NULL ORDER BY INDEX_NAME, SEQ_IN_INDEX",
            (db, table),
        )
        .map_err(my("could not read the indexes"))?;
    let (mut primary_key, mut indexes): (Vec<String>, Vec<IndexDef>) = (Vec::new(), Vec::new());
    for (name, non_unique, column) in index_rows {
        if name == "PRIMARY" {
            primary_key.push(column);
        } else if let Some(i) = indexes.iter_mut().find(|i| i.0 == name) {
            i.2.push(column);
        } else {
            indexes.push((name, non_unique == 0, vec![column]));
        }
    }
    let fk_rows: Vec<(String, String, String, String)> = c
        .exec(
            "SELECT CONSTRAINT_NAME, COLUMN_NAME, REFERENCED_TABLE_NAME, REFERENCED_COLUMN_NAME \
             FROM information_schema.KEY_COLUMN_USAGE WHERE TABLE_SCHEMA = ? AND TABLE_NAME = ? \
             AND REFERENCED_TABLE_NAME IS NOT NULL ORDER BY CONSTRAINT_NAME, ORDINAL_POSITION",
            (db, table),
        )
        .map_err(my("could not read the foreign keys"))?;
    let mut fks: Vec<(String, ForeignKeyDef)> = Vec::new();
    for (name, column, parent, referred) in fk_rows {
        match fks.iter_mut().find(|f| f.0 == name) {
            Some(f) => {
                f.1.0.push(column);
                f.1.2.push(referred);
            }
            None => fks.push((name, (vec![column], parent, vec![referred]))),
        }
    }
    let rel = format!("{}.{}", quote(db), quote(table));
    let sample = format!("(SELECT * FROM {rel} LIMIT {sample_rows}) s");
    let mut aggregates = vec!["COUNT(*)".to_string()];
    for (name, _, _, ty) in &cols {
        let q = quote(name);
        aggregates.push(format!("COUNT({q})"));
        aggregates.push(if ty == "json" { "NULL".into() } else { format!("COUNT(DISTINCT {q})") });
    }
    let row: mysql::Row = c
        .query_first(format!("SELECT {} FROM {sample}", aggregates.join(", ")))
        .map_err(my("could not read the sample's counts"))?
        .ok_or_else(|| Error::UnexpectedResponse("the sample's counts returned no row".into()))?;
    let count = |i: usize| row.get::<Option<u64>, _>(i).flatten();
    let sampled = count(0).unwrap_or(0);
    let mut columns = Vec::new();
    for (i, (name, declared, nullable, ty)) in cols.iter().enumerate() {
        let present = count(1 + 2 * i).unwrap_or(0);
        let (lengths, json) = match length_sql(ty, &quote(name)) {
            Some((len, json)) => {
                let sql = format!(
                    "SELECT {len} AS l, COUNT(*) FROM {sample} WHERE {} IS NOT NULL GROUP BY l ORDER BY l",
                    quote(name)
                );
                let lengths: Vec<(u64, u64)> = c.query(sql).map_err(my("could not read the sample's value lengths"))?;
                (lengths, json)
            }
            None => (Vec::new(), false),
        };
        columns.push(ExportedColumn {
            name: name.clone(),
            declared: declared.clone(),
            nullable: nullable == "YES",
            nulls: sampled - present.min(sampled),
            distinct: count(2 + 2 * i),
            lengths,
            json,
        });
    }
    Ok(ExportedTable {
        name: table.to_string(),
        rows_estimate,
        sampled,
        columns,
        primary_key,
        indexes,
        foreign_keys: fks.into_iter().map(|f| f.1).collect(),
    })
}
