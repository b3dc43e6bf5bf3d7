//! How MariaDB and MySQL spell pkbench's SQL, for one storage engine (InnoDB by default).

use super::uuid_type::{ServerVersion, server_function, version_requirement};
use crate::engines::dialect::{Dialect, TableDef};
use crate::engines::kind::EngineKind;
use crate::engines::wire::{BulkSql, KeyField};
use crate::generators::Scheme;
use crate::strategy::{PrimaryIndex, Storage, Strategy};

/// The MySQL-wire dialect, with the storage engine its tables use.
#[derive(Clone, Copy, Debug)]
pub struct MysqlDialect {
    /// `ENGINE=` of every table pkbench creates.
    pub storage_engine: &'static str,
    /// The engine these tables make a run of.
    pub kind: EngineKind,
    /// What keeps the rows, in messages: both InnoDB and RocksDB store them in primary-key order.
    pub row_store: &'static str,
    /// Whether `storage_engine`'s tables take FOREIGN KEY constraints.
    pub foreign_keys: bool,
}

/// MariaDB/MySQL with InnoDB tables.
pub const INNODB: MysqlDialect =
    MysqlDialect { storage_engine: "InnoDB", kind: EngineKind::MariaDb, row_store: "InnoDB", foreign_keys: true };

impl Dialect for MysqlDialect {
    fn kind(&self) -> EngineKind {
        self.kind
    }

    fn layout(&self, _strategy: &Strategy) -> String {
        match self.row_store {
            "RocksDB" => "RocksDB table: rows in primary-key order in an LSM tree".into(),
            store => format!("{store} table clustered by the primary key: rows in key order"),
        }
    }

    fn refusal(&self, strategy: &Strategy) -> Option<String> {
        (strategy.index == PrimaryIndex::HeapWithIndex).then(|| {
            format!(
                "{} always clusters rows by the primary key; there is no rowid table (use the strategy without -rowid)",
                self.row_store
            )
        })
    }

    fn key_type(&self, storage: Storage) -> &'static str {
        // Text keys use the server's default character set, as an application's CHAR(36) would.
        match storage {
            Storage::Integer => "BIGINT",
            Storage::Binary16 | Storage::Binary16TimeSwapped => "BINARY(16)",
            Storage::Text36 => "CHAR(36)",
            Storage::Text26 => "CHAR(26)",
            Storage::Hex32 => "CHAR(32)",
            Storage::VarHex32 => "VARCHAR(32)",
            Storage::VarText36 => "VARCHAR(36)",
            Storage::MariaDbUuid => "UUID",
        }
    }

    fn bigint(&self) -> &'static str {
        "BIGINT"
    }

    fn bytes(&self) -> &'static str {
        "BLOB"
    }

    fn text(&self, max_chars: u32) -> String {
        format!("VARCHAR({max_chars})")
    }

    fn identity_key(&self) -> &'static str {
        "BIGINT NOT NULL AUTO_INCREMENT PRIMARY KEY"
    }

    fn key_function(&self, scheme: Scheme) -> Option<&'static str> {
        server_function(scheme)
    }

    fn server_key(&self, function: &str, storage: Storage) -> Option<String> {
        match storage {
            Storage::MariaDbUuid => Some(format!("UUID NOT NULL DEFAULT ({function}) PRIMARY KEY")),
            Storage::Binary16 => {
                Some(format!("BINARY(16) NOT NULL DEFAULT (UNHEX(REPLACE({function}, '-', ''))) PRIMARY KEY"))
            }
            _ => None,
        }
    }

    fn placeholder(&self, _n: usize) -> String {
        "?".into()
    }

    fn create_table(&self, table: &TableDef) -> Vec<String> {
        let mut parts = Vec::new();
        for c in &table.columns {
            parts.push(format!("{} {}", c.name, c.definition));
            if c.unique {
                parts.push(format!("UNIQUE KEY {0} ({0})", c.name));
            }
        }
        // A foreign key uses the first index that starts with its column.
        parts.extend(table.indexes.iter().map(|(name, cols)| format!("KEY {name} ({cols})")));
        for c in table.columns.iter().filter(|_| self.foreign_keys) {
            if let Some(fk) = &c.references {
                parts.push(format!("CONSTRAINT {} FOREIGN KEY ({}) REFERENCES {} (id)", fk.name, c.name, fk.table));
            }
        }
        vec![format!("CREATE TABLE {} ({}) ENGINE={}", table.name, parts.join(", "), self.storage_engine)]
    }

    fn row_comparison(&self) -> bool {
        false
    }

    fn foreign_keys(&self) -> bool {
        self.foreign_keys
    }

    fn quote(&self, name: &str) -> String {
        format!("`{}`", name.replace('`', "``"))
    }

    fn ordered_join(&self, orders: &str, users: &str) -> String {
        // Left to itself the optimizer reads users first and sorts the join in a temporary table:
        // orders must lead, in the order of its (user_id, id) index, for pages to need no sort.
        format!("FROM {orders} o FORCE INDEX (orders_user_id) STRAIGHT_JOIN {users} u ON u.id = o.user_id")
    }

    fn average(&self, column: &str, table: &str) -> String {
        format!("SELECT AVG(CAST({column} AS DOUBLE)) FROM {table}")
    }

    fn bulk_insert(&self, table: &str, columns: &[(&str, KeyField, Storage)], payload: bool) -> BulkSql {
        let mut names: Vec<&str> = columns.iter().map(|(n, _, _)| *n).collect();
        if payload {
            names.push("payload");
        }
        BulkSql {
            sql: format!("INSERT INTO {table} ({}) VALUES ", names.join(", ")),
            keys: columns.iter().map(|(_, field, storage)| (*field, *storage)).collect(),
            payload,
        }
    }

    fn bulk_delete(&self, table: &str, storage: Storage) -> BulkSql {
        BulkSql {
            sql: format!("DELETE FROM {table} WHERE id IN ("),
            keys: vec![(KeyField::Primary, storage)],
            payload: false,
        }
    }

    fn keys_per_delete(&self) -> usize {
        1000
    }

    fn begin(&self) -> &'static str {
        "START TRANSACTION"
    }

    fn create_namespace(&self, name: &str) -> String {
        format!("CREATE DATABASE {name}")
    }

    fn drop_namespace(&self, name: &str) -> String {
        format!("DROP DATABASE IF EXISTS {name}")
    }

    fn namespace_word(&self) -> &'static str {
        "database"
    }

    fn compact(&self, tables: &str) -> String {
        format!("OPTIMIZE TABLE {tables}")
    }

    fn version_requirement(&self, strategy: &Strategy, version: &str) -> Option<String> {
        // An unparsable version string is left to the server to refuse what it lacks.
        version_requirement(strategy, &ServerVersion::parse(version)?)
    }
}
