//! How PostgreSQL spells pkbench's SQL.

use crate::engines::dialect::{Dialect, TablePurpose};
use crate::engines::kind::EngineKind;
use crate::engines::wire::{BulkSql, KeyField};
use crate::generators::Scheme;
use crate::strategy::{Storage, Strategy};

/// PostgreSQL's dialect.
#[derive(Clone, Copy, Debug, Default)]
pub struct PostgresDialect;

/// The array type of a key column's storage (`unnest($1::uuid[])`).
fn array_type(storage: Storage) -> &'static str {
    match storage {
        Storage::Integer => "bigint[]",
        Storage::Binary16 | Storage::Binary16TimeSwapped | Storage::MariaDbUuid => "uuid[]",
        Storage::Text36 | Storage::Text26 | Storage::Hex32 | Storage::VarHex32 | Storage::VarText36 => "text[]",
    }
}

/// `server_version_num` of a version string (`15.4 (Debian 15.4-1)` → 150004).
pub fn version_num(version: &str) -> Option<i32> {
    let mut parts = version.split(|c: char| !c.is_ascii_digit()).filter(|p| !p.is_empty());
    let major: i32 = parts.next()?.parse().ok()?;
    let minor: i32 = parts.next().and_then(|p| p.parse().ok()).unwrap_or(0);
    Some(major * 10_000 + minor)
}

/// The `server_version_num` a built-in key function first appeared in.
fn function_since(scheme: Scheme) -> Option<i32> {
    match scheme {
        Scheme::Uuid4 => Some(130_000),
        Scheme::Uuid7 => Some(180_000),
        _ => None,
    }
}

/// Why a server of version `version_num` cannot run `strategy`, if it cannot although the SQL
/// renders (a key function newer than the server).
pub fn version_requirement(strategy: &Strategy, version_num: i32) -> Option<String> {
    let scheme = strategy.server_primary()?;
    let (function, needs) = (PostgresDialect.key_function(scheme)?, function_since(scheme)?);
    (version_num < needs).then(|| {
        format!(
            "{function} is built into PostgreSQL {} and newer; this server is {}.{}",
            needs / 10_000,
            version_num / 10_000,
            version_num % 10_000
        )
    })
}

impl Dialect for PostgresDialect {
    fn kind(&self) -> EngineKind {
        EngineKind::Postgres
    }

    fn layout(&self, _strategy: &Strategy) -> String {
        "PostgreSQL heap table: rows in arrival order, the key in a B-tree primary-key index".into()
    }

    fn refusal(&self, strategy: &Strategy) -> Option<String> {
        (strategy.primary.storage == Storage::MariaDbUuid && strategy.server_primary().is_none()).then(|| {
            "the reordered UUID column type is MariaDB's; PostgreSQL's uuid type is what the strategy without -mariadb-uuid uses".into()
        })
    }

    fn key_type(&self, storage: Storage) -> &'static str {
        match storage {
            Storage::Integer => "bigint",
            // MariaDbUuid is refused before a column is rendered.
            Storage::Binary16 | Storage::Binary16TimeSwapped | Storage::MariaDbUuid => "uuid",
            Storage::Text36 => "char(36)",
            Storage::Text26 => "char(26)",
            Storage::Hex32 => "char(32)",
            Storage::VarHex32 => "varchar(32)",
            Storage::VarText36 => "varchar(36)",
        }
    }

    fn bigint(&self) -> &'static str {
        "bigint"
    }

    fn bytes(&self) -> &'static str {
        "bytea"
    }

    fn text(&self, _max_chars: u32) -> String {
        "text".into()
    }

    fn identity_key(&self) -> &'static str {
        "bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY"
    }

    fn key_function(&self, scheme: Scheme) -> Option<&'static str> {
        match scheme {
            Scheme::Uuid4 => Some("gen_random_uuid()"),
            Scheme::Uuid7 => Some("uuidv7()"),
            _ => None,
        }
    }

    fn server_key(&self, function: &str, storage: Storage) -> Option<String> {
        (storage == Storage::Binary16).then(|| format!("uuid NOT NULL DEFAULT {function} PRIMARY KEY"))
    }

    fn placeholder(&self, n: usize) -> String {
        format!("${n}")
    }

    fn table_options(&self, purpose: TablePurpose) -> &'static str {
        match purpose {
            TablePurpose::Bench => " WITH (autovacuum_enabled = off)",
            TablePurpose::App => "",
        }
    }

    fn row_comparison(&self) -> bool {
        true
    }

    fn ordered_join(&self, orders: &str, users: &str) -> String {
        format!("FROM {orders} o JOIN {users} u ON u.id = o.user_id")
    }

    fn average(&self, column: &str, table: &str) -> String {
        // avg(bigint) is numeric; as float8 it is exact for these sums.
        format!("SELECT avg({column})::float8 FROM {table}")
    }

    fn bulk_insert(&self, table: &str, columns: &[(&str, KeyField, Storage)], payload: bool) -> BulkSql {
        let keys = columns.iter().map(|(_, field, storage)| (*field, *storage)).collect();
        let names: Vec<&str> = columns.iter().map(|(n, _, _)| *n).collect();
        let unnest: Vec<String> =
            columns.iter().enumerate().map(|(i, (_, _, s))| format!("${}::{}", i + 1, array_type(*s))).collect();
        let sql = match (columns.is_empty(), payload) {
            (true, _) => format!("INSERT INTO {table} (payload) SELECT $1 FROM generate_series(1, $2::int)"),
            (false, true) => format!(
                "INSERT INTO {table} ({}, payload) SELECT {}, ${} FROM unnest({}) AS k({})",
                names.join(", "),
                names.iter().map(|n| format!("k.{n}")).collect::<Vec<_>>().join(", "),
                columns.len() + 1,
                unnest.join(", "),
                names.join(", ")
            ),
            (false, false) => {
                format!("INSERT INTO {table} ({}) SELECT * FROM unnest({})", names.join(", "), unnest.join(", "))
            }
        };
        BulkSql { sql, keys, payload }
    }

    fn bulk_delete(&self, table: &str, storage: Storage) -> BulkSql {
        BulkSql {
            sql: format!("DELETE FROM {table} WHERE id = ANY($1::{})", array_type(storage)),
            keys: vec![(KeyField::Primary, storage)],
            payload: false,
        }
    }

    fn keys_per_delete(&self) -> usize {
        // Larger than the insert chunk: the mapping table's `id` has no index, so each
        // statement scans it once.
        10_000
    }

    fn begin(&self) -> &'static str {
        "BEGIN"
    }

    fn set_isolation(&self, level: crate::engines::txn::Isolation) -> String {
        format!("SET SESSION CHARACTERISTICS AS TRANSACTION ISOLATION LEVEL {}", level.sql())
    }

    fn create_namespace(&self, name: &str) -> String {
        format!("CREATE SCHEMA {name}")
    }

    fn drop_namespace(&self, name: &str) -> String {
        format!("DROP SCHEMA IF EXISTS {name} CASCADE")
    }

    fn namespace_word(&self) -> &'static str {
        "schema"
    }

    fn compact(&self, tables: &str) -> String {
        format!("VACUUM FULL {tables}")
    }

    fn version_requirement(&self, strategy: &Strategy, version: &str) -> Option<String> {
        version_requirement(strategy, version_num(version)?)
    }
}
