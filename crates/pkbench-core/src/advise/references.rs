//! The columns of other tables that hold the key table's key: each single-column foreign key
//! to it, how many copies of the key one of its rows keeps (the column, and the index entries
//! that hold it), and that table's rows, where advise read them. A key's width costs its own
//! table once and every referencing row again.

use crate::Error;
use crate::engine_kind::EngineKind;
use crate::schema::{Schema, Table};
use crate::strategy::Strategy;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::path::Path;

/// One column that holds the key table's key.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Reference {
    /// The referencing table.
    pub table: String,
    /// Its column holding the key.
    pub column: String,
    /// Copies of the key one of its rows keeps, as the table is declared today: the column, each
    /// index entry holding the column, and (InnoDB, RocksDB, SQLite's rowid) each secondary index
    /// entry carrying a primary key that holds it.
    pub copies: u32,
    /// Rows of the referencing table today, where advise read them (the server's estimate on
    /// PostgreSQL and MariaDB, a count on SQLite).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rows_now: Option<u64>,
}

impl Reference {
    /// Rows of the referencing table when the key table holds `target_rows`, growing with it
    /// from `key_rows_now` today; unknown for a table with no rows today.
    pub fn rows_at(&self, key_rows_now: u64, target_rows: u64) -> Option<u64> {
        let now = self.rows_now?;
        (key_rows_now > 0).then(|| (now as f64 * target_rows as f64 / key_rows_now as f64).round() as u64)
    }
}

/// The references to `key_table` in the schema file `file` (read as the forecast reads it),
/// with each referencing table's rows from `rows` where it holds them.
pub fn read(
    file: &Path,
    key_table: &str,
    engine: EngineKind,
    rows: &BTreeMap<String, u64>,
) -> Result<Vec<Reference>, Error> {
    let text = std::fs::read_to_string(file)
        .map_err(|e| Error::InvalidInput(format!("could not read the schema file {}: {e}", file.display())))?;
    let schema = crate::schema::parse(&text, Some(crate::schema::detect_engine(&text).unwrap_or(engine)))?;
    let rows_of = |t: &str| rows.iter().find(|(name, _)| name.eq_ignore_ascii_case(t)).map(|(_, n)| *n);
    Ok(find(&schema, key_table, engine, &rows_of))
}

/// Every single-column foreign key of `schema`'s other tables to `key_table`'s key, with the
/// copies of the key a row of its table keeps on `engine`, and its rows from `rows_of`.
pub fn find(
    schema: &Schema,
    key_table: &str,
    engine: EngineKind,
    rows_of: &dyn Fn(&str) -> Option<u64>,
) -> Vec<Reference> {
    let Some(parent) = schema.table(key_table) else { return Vec::new() };
    let [key] = parent.primary_key.as_slice() else { return Vec::new() };
    let mut out = Vec::new();
    for child in schema.tables.iter().filter(|t| !t.name.eq_ignore_ascii_case(&parent.name)) {
        for fk in child.foreign_keys.iter().filter(|fk| fk.table.eq_ignore_ascii_case(&parent.name)) {
            let referred_key = match fk.referred.as_slice() {
                [] => true,
                [one] => one.eq_ignore_ascii_case(key),
                _ => false,
            };
            if let ([column], true) = (fk.columns.as_slice(), referred_key) {
                out.push(Reference {
                    table: child.name.clone(),
                    column: column.clone(),
                    copies: copies(child, column, engine),
                    rows_now: rows_of(&child.name),
                });
            }
        }
    }
    out
}

/// Copies of `column`'s value one row of `table` keeps on `engine`, as the table is declared
/// today: the row's own, one per secondary index holding the column (InnoDB makes one for a
/// foreign key that has none), and where the primary key holds it, its own index (PostgreSQL,
/// SQLite) or, on InnoDB and RocksDB, which cluster by it, and for SQLite's rowid, every
/// secondary index entry, which carries the primary key. A SQLite `WITHOUT ROWID` table is
/// counted as a rowid table: a separate index for its key, and no copy in its other indexes.
fn copies(table: &Table, column: &str, engine: EngineKind) -> u32 {
    let holds = |columns: &[String]| columns.iter().any(|c| c.eq_ignore_ascii_case(column));
    let indexed = table.indexes.iter().filter(|i| holds(&i.columns)).count() as u32;
    let others = table.indexes.len() as u32 - indexed;
    let leads = |columns: &[String]| columns.first().is_some_and(|c| c.eq_ignore_ascii_case(column));
    let in_key = holds(&table.primary_key);
    match engine {
        EngineKind::MariaDb | EngineKind::Spider => {
            // InnoDB needs an index whose first column is the foreign key's, and makes one.
            let made = u32::from(!leads(&table.primary_key) && !table.indexes.iter().any(|i| leads(&i.columns)));
            1 + indexed + made + if in_key { others } else { 0 }
        }
        EngineKind::MyRocks => 1 + indexed + if in_key { others } else { 0 },
        EngineKind::Postgres | EngineKind::PostgresFdw => 1 + indexed + u32::from(in_key),
        EngineKind::Sqlite => {
            // An INTEGER PRIMARY KEY is the rowid: the row itself, and every index entry carries
            // it, as InnoDB's carry its primary key.
            let rowid = matches!(table.primary_key.as_slice(), [k] if k.eq_ignore_ascii_case(column))
                && table.column(column).is_some_and(|c| c.declared.eq_ignore_ascii_case("INTEGER"));
            match rowid {
                true => 1 + indexed + others,
                false => 1 + indexed + u32::from(in_key),
            }
        }
    }
}

/// Bytes of `strategy`'s key the referencing columns hold at the target, for a key table of
/// `key_rows_now` rows today growing to `target_rows`: each column's rows there times its
/// copies times the key's bytes as `engine` stores it; `None` where a table's rows are unknown.
pub fn bytes_at(
    references: &[Reference],
    strategy: &Strategy,
    engine: EngineKind,
    key_rows_now: u64,
    target_rows: u64,
) -> Option<u64> {
    let per_copy = crate::schema::stored_key_bytes(strategy, engine, target_rows);
    let mut total = 0.0;
    for r in references {
        total += r.rows_at(key_rows_now, target_rows)? as f64 * f64::from(r.copies) * per_copy;
    }
    (!references.is_empty()).then_some(total.round() as u64)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn schema(sql: &str, engine: EngineKind) -> Schema {
        crate::schema::parse(sql, Some(engine)).unwrap()
    }

    const SHOP: &str = "CREATE TABLE orders (id BIGINT NOT NULL PRIMARY KEY, total INT);
CREATE TABLE items (id BIGINT NOT NULL PRIMARY KEY, order_id BIGINT NOT NULL, sku INT,
  FOREIGN KEY (order_id) REFERENCES orders (id));
CREATE INDEX items_sku ON items (sku);
CREATE TABLE notes (order_id BIGINT NOT NULL, n INT NOT NULL, body TEXT,
  PRIMARY KEY (order_id, n), FOREIGN KEY (order_id) REFERENCES orders);
CREATE INDEX notes_body ON notes (body);
";

    #[test]
    fn each_referencing_column_counts_the_copies_its_engine_keeps() {
        let rows = |t: &str| (t == "items").then_some(3_000);
        let copies = |engine| -> Vec<(String, u32, Option<u64>)> {
            find(&schema(SHOP, engine), "orders", engine, &rows)
                .into_iter()
                .map(|r| (format!("{}.{}", r.table, r.column), r.copies, r.rows_now))
                .collect()
        };
        // InnoDB: items' row and the index it makes for the foreign key; notes' row (clustered
        // by a key that holds it) and its body index's entries, which carry that key.
        assert_eq!(
            copies(EngineKind::MariaDb),
            vec![("items.order_id".into(), 2, Some(3_000)), ("notes.order_id".into(), 2, None)]
        );
        // PostgreSQL: a heap row, no index made for it; notes' primary key index holds it.
        assert_eq!(
            copies(EngineKind::Postgres),
            vec![("items.order_id".into(), 1, Some(3_000)), ("notes.order_id".into(), 2, None)]
        );
    }

    #[test]
    fn bytes_at_the_target_grow_with_the_key_table() {
        let uuid4 = crate::strategy::find("uuid4").unwrap();
        let r = Reference { table: "items".into(), column: "order_id".into(), copies: 2, rows_now: Some(3_000) };
        assert_eq!(r.rows_at(1_000, 10_000), Some(30_000));
        assert_eq!(r.rows_at(0, 10_000), None, "a new table's children have no rows to grow from");
        // 30,000 rows × 2 copies × 16 bytes.
        assert_eq!(bytes_at(&[r], uuid4, EngineKind::MariaDb, 1_000, 10_000), Some(960_000));
        assert_eq!(bytes_at(&[], uuid4, EngineKind::MariaDb, 1_000, 10_000), None);
    }
}
