//! Tables, keys and layouts of a SQLite database, from its `pragma_*` tables.

use crate::doctor::schema::{KeySchema, Layout, TableSchema};
use rusqlite::Connection;

/// Every user table in the main database, in schema order.
pub fn tables(conn: &Connection) -> rusqlite::Result<Vec<TableSchema>> {
    let list: Vec<(String, bool)> = conn
        .prepare(
            "SELECT name, wr FROM pragma_table_list WHERE schema = 'main' AND type = 'table' \
             AND name NOT LIKE 'sqlite_%' ORDER BY name",
        )?
        .query_map([], |r| Ok((r.get(0)?, r.get::<_, i64>(1)? != 0)))?
        .collect::<Result<_, _>>()?;
    list.into_iter().map(|(name, wr)| table(conn, name, wr)).collect()
}

fn table(conn: &Connection, name: String, without_rowid: bool) -> rusqlite::Result<TableSchema> {
    let info: Vec<(String, String, i64)> = conn
        .prepare("SELECT name, type, pk FROM pragma_table_info(?1) ORDER BY cid")?
        .query_map([&name], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)))?
        .collect::<Result<_, _>>()?;
    let mut pk: Vec<(i64, String, String)> =
        info.iter().filter(|c| c.2 > 0).map(|c| (c.2, c.0.clone(), c.1.clone())).collect();
    pk.sort();
    let index_list: Vec<(String, bool, String)> = conn
        .prepare("SELECT name, \"unique\", origin FROM pragma_index_list(?1)")?
        .query_map([&name], |r| Ok((r.get(0)?, r.get::<_, i64>(1)? != 0, r.get(2)?)))?
        .collect::<Result<_, _>>()?;
    let mut indexes = Vec::new();
    let mut unique = Vec::new();
    let mut pk_index = None;
    for (index, is_unique, origin) in index_list {
        let columns: Vec<String> = conn
            .prepare("SELECT coalesce(name, '<expr>') FROM pragma_index_info(?1) ORDER BY seqno")?
            .query_map([&index], |r| r.get(0))?
            .collect::<Result<_, _>>()?;
        let sql: Option<String> = conn
            .query_row("SELECT sql FROM sqlite_schema WHERE type = 'index' AND name = ?1", [&index], |r| r.get(0))
            .unwrap_or(None);
        if origin == "pk" {
            pk_index = Some(index.clone());
        } else if is_unique && columns.len() == 1 && columns[0] != "<expr>" {
            let declared_type = info.iter().find(|c| c.0 == columns[0]).map(|c| c.1.clone()).unwrap_or_default();
            unique.push(KeySchema { columns: columns.clone(), declared_type, index: Some(index.clone()) });
        }
        // A WITHOUT ROWID table's key "index" is the table b-tree itself.
        if !(without_rowid && origin == "pk") {
            indexes.push((index, columns, sql));
        }
    }
    let rowid_alias = !without_rowid && pk.len() == 1 && pk[0].2.eq_ignore_ascii_case("INTEGER");
    let layout = match (without_rowid, pk.is_empty(), rowid_alias) {
        (true, _, _) => Layout::WithoutRowid,
        (false, true, _) => Layout::RowidNoKey,
        (false, false, true) => Layout::RowidAlias,
        (false, false, false) => Layout::RowidWithKeyIndex,
    };
    let primary = (!pk.is_empty()).then(|| KeySchema {
        columns: pk.iter().map(|c| c.1.clone()).collect(),
        declared_type: pk[0].2.clone(),
        index: if layout == Layout::RowidWithKeyIndex { pk_index } else { None },
    });
    let columns = info.into_iter().map(|c| (c.0, c.1)).collect();
    // The SQLite script reads the file's foreign keys itself.
    Ok(TableSchema {
        name,
        without_rowid,
        layout,
        columns,
        primary,
        unique,
        indexes,
        referenced_by: Vec::new(),
        key_references: None,
        key_attributes: None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn schema_of(ddl: &str) -> TableSchema {
        let conn = Connection::open_in_memory().unwrap();
        conn.execute_batch(ddl).unwrap();
        tables(&conn).unwrap().remove(0)
    }

    #[test]
    fn detects_each_layout() {
        assert_eq!(schema_of("CREATE TABLE t (id INTEGER PRIMARY KEY, v)").layout, Layout::RowidAlias);
        let t = schema_of("CREATE TABLE t (id BLOB PRIMARY KEY, v) WITHOUT ROWID");
        assert_eq!(t.layout, Layout::WithoutRowid);
        assert_eq!(t.primary.unwrap().index, None);
        let t = schema_of("CREATE TABLE t (id TEXT PRIMARY KEY, v)");
        assert_eq!(t.layout, Layout::RowidWithKeyIndex);
        assert_eq!(t.primary.unwrap().index.as_deref(), Some("sqlite_autoindex_t_1"));
        assert_eq!(schema_of("CREATE TABLE t (v)").layout, Layout::RowidNoKey);
        // INT is not INTEGER: not a rowid alias.
        assert_eq!(schema_of("CREATE TABLE t (id INT PRIMARY KEY)").layout, Layout::RowidWithKeyIndex);
    }

    #[test]
    fn finds_unique_columns_and_composite_keys() {
        let t = schema_of("CREATE TABLE t (a INT, b INT, ext BLOB UNIQUE, PRIMARY KEY (b, a))");
        assert_eq!(t.primary.unwrap().columns, ["b", "a"]);
        assert_eq!(t.unique.len(), 1);
        assert_eq!(t.unique[0].columns, ["ext"]);
        assert_eq!(t.unique[0].declared_type, "BLOB");
    }
}
