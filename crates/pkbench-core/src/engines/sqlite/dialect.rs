//! How SQLite spells SQL. The SQLite engine renders its own tables (rowid and `WITHOUT ROWID`
//! layouts, in `schema.rs` and `app_schema.rs`); this dialect gives the registry, doctor's
//! advice, the shared statement renderers and the engine core SQLite's spellings.

use super::schema::{column_type, is_without_rowid, unsupported_reason};
use crate::engines::dialect::Dialect;
use crate::engines::kind::EngineKind;
use crate::engines::wire::{BulkSql, KeyField};
use crate::generators::Scheme;
use crate::strategy::{Storage, Strategy};

/// SQLite's dialect.
#[derive(Clone, Copy, Debug, Default)]
pub struct SqliteDialect;

impl Dialect for SqliteDialect {
    fn kind(&self) -> EngineKind {
        EngineKind::Sqlite
    }

    fn layout(&self, strategy: &Strategy) -> String {
        if is_without_rowid(strategy) {
            "SQLite WITHOUT ROWID table: rows in key order"
        } else if strategy.primary.storage == Storage::Integer {
            "SQLite rowid table whose rowid is the integer key: rows in key order"
        } else {
            "SQLite rowid table: rows in the order of a hidden rowid, the key in a unique index"
        }
        .into()
    }

    fn refusal(&self, strategy: &Strategy) -> Option<String> {
        unsupported_reason(strategy).map(Into::into)
    }

    fn key_type(&self, storage: Storage) -> &'static str {
        column_type(storage)
    }

    fn bigint(&self) -> &'static str {
        "INTEGER"
    }

    fn bytes(&self) -> &'static str {
        "BLOB"
    }

    fn text(&self, _max_chars: u32) -> String {
        "TEXT".into()
    }

    fn identity_key(&self) -> &'static str {
        "INTEGER PRIMARY KEY"
    }

    fn key_function(&self, _scheme: Scheme) -> Option<&'static str> {
        None
    }

    fn server_key(&self, _function: &str, _storage: Storage) -> Option<String> {
        None
    }

    fn placeholder(&self, n: usize) -> String {
        format!("?{n}")
    }

    fn row_comparison(&self) -> bool {
        true
    }

    fn ordered_join(&self, orders: &str, users: &str) -> String {
        format!("FROM {orders} o JOIN {users} u ON u.id = o.user_id")
    }

    fn average(&self, column: &str, table: &str) -> String {
        format!("SELECT avg({column}) FROM {table}")
    }

    fn bulk_insert(&self, table: &str, columns: &[(&str, KeyField, Storage)], payload: bool) -> BulkSql {
        let mut names: Vec<&str> = columns.iter().map(|(n, _, _)| *n).collect();
        if payload {
            names.push("payload");
        }
        let marks: Vec<String> = (1..=names.len()).map(|n| self.placeholder(n)).collect();
        BulkSql {
            sql: format!("INSERT INTO {table} ({}) VALUES ({})", names.join(", "), marks.join(", ")),
            keys: columns.iter().map(|(_, field, storage)| (*field, *storage)).collect(),
            payload,
        }
    }

    fn bulk_delete(&self, table: &str, storage: Storage) -> BulkSql {
        BulkSql {
            sql: format!("DELETE FROM {table} WHERE id = ?1"),
            keys: vec![(KeyField::Primary, storage)],
            payload: false,
        }
    }

    fn keys_per_delete(&self) -> usize {
        1
    }

    fn begin(&self) -> &'static str {
        "BEGIN IMMEDIATE"
    }

    /// `table` itself: every case has a database file of its own, so there is no namespace.
    fn qualify(&self, _namespace: &str, table: &str) -> String {
        table.to_string()
    }

    fn create_namespace(&self, name: &str) -> String {
        format!("ATTACH DATABASE '{name}.sqlite' AS {name}")
    }

    fn drop_namespace(&self, name: &str) -> String {
        format!("DETACH DATABASE {name}")
    }

    fn namespace_word(&self) -> &'static str {
        "database file"
    }

    fn compact(&self, _tables: &str) -> String {
        "VACUUM".into()
    }

    fn version_requirement(&self, _strategy: &Strategy, _version: &str) -> Option<String> {
        None
    }
}
