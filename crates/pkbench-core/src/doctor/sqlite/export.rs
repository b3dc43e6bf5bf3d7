//! A SQLite table's column statistics, as the servers' `export.rs` read theirs: from the
//! `pragma_*` tables and from aggregates over a bounded sample (counts, distinct counts, value
//! lengths), and its rows counted (a scan of its smallest index), on a read-only connection.
//! Only aggregates are read: never a row's contents.

use super::session::open_read_only;
use crate::Error;
use crate::doctor::export::{ExportedColumn, ExportedTable, ForeignKeyDef, IndexDef};
use crate::engines::EngineKind;
use crate::values::SqlType;
use rusqlite::Connection;
use std::path::Path;

/// SQLite's version and `tables` of the file at `path`, each with statistics from at most
/// `sample_rows` rows.
pub fn export(path: &Path, tables: &[String], sample_rows: u64) -> Result<(String, Vec<ExportedTable>), Error> {
    let conn = open_read_only(path)?;
    let sq = |context: &'static str| {
        let context = format!("{context} in '{}'", path.display());
        move |cause| Error::Sqlite { context: context.clone(), cause }
    };
    let version: String =
        conn.query_row("SELECT sqlite_version()", [], |r| r.get(0)).map_err(sq("could not read the version"))?;
    let tables = tables
        .iter()
        .map(|t| read_table(&conn, t, sample_rows).map_err(sq("could not read the table's statistics")))
        .collect::<Result<_, _>>()?;
    Ok((version, tables))
}

/// Whether values of a column declared `declared` are measured in length: text and blob
/// affinity (SQLite's rules: CHAR, CLOB or TEXT in the name; BLOB, or no type).
fn has_length(declared: &str) -> bool {
    let d = declared.to_ascii_uppercase();
    d.contains("CHAR") || d.contains("CLOB") || d.contains("TEXT") || d.contains("BLOB") || d.trim().is_empty()
}

fn read_table(c: &Connection, table: &str, sample_rows: u64) -> rusqlite::Result<ExportedTable> {
    let q = |n: &str| EngineKind::Sqlite.dialect().quote(n);
    let mut info = c.prepare("SELECT name, type, \"notnull\", pk FROM pragma_table_info(?1) ORDER BY cid")?;
    let cols: Vec<(String, String, bool, i64)> = info
        .query_map([table], |r| Ok((r.get(0)?, r.get(1)?, r.get::<_, i64>(2)? != 0, r.get(3)?)))?
        .collect::<Result<_, _>>()?;
    let mut key: Vec<(i64, String)> = cols.iter().filter(|c| c.3 > 0).map(|c| (c.3, c.0.clone())).collect();
    key.sort();
    let mut list = c.prepare("SELECT name, \"unique\" FROM pragma_index_list(?1) WHERE origin <> 'pk'")?;
    let named: Vec<(String, bool)> =
        list.query_map([table], |r| Ok((r.get(0)?, r.get::<_, i64>(1)? != 0)))?.collect::<Result<_, _>>()?;
    let mut indexes: Vec<IndexDef> = Vec::new();
    for (name, unique) in named {
        // An expression's column has no name: such an index is not one column's.
        let mut columns = c.prepare("SELECT name FROM pragma_index_info(?1) ORDER BY seqno")?;
        let columns: Vec<Option<String>> = columns.query_map([&name], |r| r.get(0))?.collect::<Result<_, _>>()?;
        if let Some(columns) = columns.into_iter().collect::<Option<Vec<String>>>() {
            indexes.push((name, unique, columns));
        }
    }
    let mut fk =
        c.prepare("SELECT id, \"from\", \"table\", \"to\" FROM pragma_foreign_key_list(?1) ORDER BY id, seq")?;
    let rows: Vec<(i64, String, String, Option<String>)> =
        fk.query_map([table], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?)))?.collect::<Result<_, _>>()?;
    let mut foreign_keys: Vec<(i64, ForeignKeyDef)> = Vec::new();
    for (id, from, parent, to) in rows {
        match foreign_keys.iter_mut().find(|f| f.0 == id) {
            Some(f) => {
                f.1.0.push(from);
                f.1.2.extend(to);
            }
            None => foreign_keys.push((id, (vec![from], parent, to.into_iter().collect()))),
        }
    }
    let rows: i64 = c.query_row(&format!("SELECT COUNT(*) FROM {}", q(table)), [], |r| r.get(0))?;
    let sample = format!("(SELECT * FROM {} LIMIT {sample_rows})", q(table));
    let mut aggregates = vec!["COUNT(*)".to_string()];
    for (name, ..) in &cols {
        aggregates.push(format!("COUNT({0}), COUNT(DISTINCT {0})", q(name)));
    }
    let counts: Vec<Option<i64>> =
        c.query_row(&format!("SELECT {} FROM {sample}", aggregates.join(", ")), [], |r| {
            (0..1 + 2 * cols.len()).map(|i| r.get(i)).collect()
        })?;
    let count = |i: usize| counts[i].map(|v| v.max(0) as u64);
    let sampled = count(0).unwrap_or(0);
    let mut columns = Vec::new();
    for (i, (name, declared, not_null, _)) in cols.iter().enumerate() {
        let present = count(1 + 2 * i).unwrap_or(0);
        let lengths: Vec<(u64, u64)> = if has_length(declared) {
            let sql = format!(
                "SELECT length({0}) AS l, COUNT(*) FROM {sample} WHERE {0} IS NOT NULL GROUP BY l ORDER BY l",
                q(name)
            );
            let mut lengths = c.prepare(&sql)?;
            let lengths: Vec<(u64, u64)> = lengths
                .query_map([], |r| Ok((r.get::<_, i64>(0)?.max(0) as u64, r.get::<_, i64>(1)?.max(0) as u64)))?
                .collect::<Result<_, _>>()?;
            within_declared(lengths, declared)
        } else {
            Vec::new()
        };
        columns.push(ExportedColumn {
            name: name.clone(),
            declared: declared.clone(),
            nullable: !not_null,
            nulls: sampled - present.min(sampled),
            distinct: count(2 + 2 * i),
            lengths,
            json: false,
        });
    }
    Ok(ExportedTable {
        name: table.to_string(),
        rows_estimate: Some(rows.max(0) as u64),
        sampled,
        columns,
        primary_key: key.into_iter().map(|k| k.1).collect(),
        indexes,
        foreign_keys: foreign_keys.into_iter().map(|f| f.1).collect(),
    })
}

/// `lengths` held to the length `declared` gives (`VARCHAR(40)`: 40), which SQLite does not
/// enforce but a run's values file must keep to: a longer value counts as that length. The
/// length is the one the schema file's parser gives the type, which the values file is held to.
fn within_declared(lengths: Vec<(u64, u64)>, declared: &str) -> Vec<(u64, u64)> {
    let Some(limit) = declared_length(declared) else { return lengths };
    let mut held: Vec<(u64, u64)> = Vec::new();
    for (len, count) in lengths {
        let len = len.min(limit);
        match held.last_mut() {
            Some(last) if last.0 == len => last.1 += count,
            _ => held.push((len, count)),
        }
    }
    held
}

/// The longest value a column declared `declared` takes, as `run --schema` reads the type.
fn declared_length(declared: &str) -> Option<u64> {
    let dialect = sqlparser::dialect::SQLiteDialect {};
    let ty = sqlparser::parser::Parser::new(&dialect).try_with_sql(declared).ok()?.parse_data_type().ok()?;
    match crate::schema::sql_type(&ty)? {
        SqlType::Text { max_chars } => max_chars.map(u64::from),
        SqlType::Binary { max } => max.map(u64::from),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_counts_lengths_and_keys_never_values() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("shop.db");
        let db = Connection::open(&path).unwrap();
        db.execute_batch(
            "CREATE TABLE customers (id INTEGER PRIMARY KEY);
             CREATE TABLE orders (id TEXT PRIMARY KEY, customer INTEGER REFERENCES customers (id), note TEXT,
               code VARCHAR(2) UNIQUE) WITHOUT ROWID;
             CREATE INDEX orders_lower ON orders (lower(note));
             INSERT INTO customers VALUES (1), (2);
             INSERT INTO orders VALUES ('a1', 1, 'secret', 'x1'), ('b22', 2, NULL, 'x22'), ('c333', 1, 'secret', 'x3');",
        )
        .unwrap();
        drop(db);
        let (version, tables) = export(&path, &["orders".into()], 2).unwrap();
        assert!(version.starts_with('3'), "{version}");
        let t = &tables[0];
        assert_eq!((t.sampled, t.primary_key.clone()), (2, vec!["id".to_string()]));
        assert_eq!(t.foreign_keys, vec![(vec!["customer".into()], "customers".into(), vec!["id".into()])]);
        assert!(t.indexes.iter().any(|i| i.1 && i.2 == ["code"]), "{:?}", t.indexes);
        let col = |n: &str| t.columns.iter().find(|c| c.name == n).unwrap();
        assert_eq!(col("id").lengths, vec![(2, 1), (3, 1)]);
        assert_eq!((col("note").nulls, col("note").distinct), (1, Some(1)));
        assert!(col("customer").lengths.is_empty());
        // 'x22' is longer than VARCHAR(2), which SQLite does not enforce: it counts as 2.
        assert_eq!(col("code").lengths, vec![(2, 2)]);
        assert!(t.indexes.iter().all(|i| i.0 != "orders_lower"), "an expression index is no column's");
    }
}
