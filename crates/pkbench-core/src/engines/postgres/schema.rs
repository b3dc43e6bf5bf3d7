//! PostgreSQL DDL and the multi-row INSERTs for a strategy.
//!
//! Every PostgreSQL table is a heap plus indexes, so "clustered" and "heap with index"
//! strategies map to the same layout: a `PRIMARY KEY` B-tree index beside the heap.

use crate::Error;
use crate::generators::Scheme;
use crate::strategy::{KeySource, SecondaryLookup, Storage, Strategy};

/// The SQL a strategy needs on PostgreSQL, relative to one schema.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PgSchema {
    /// CREATE statements, in order.
    pub create: Vec<String>,
    /// The main INSERT: `$1…` are arrays (one per client-generated key column, primary first),
    /// then the payload, or for engine-assigned keys without arrays, the payload and a row count.
    pub insert: String,
    /// The mapping-table INSERT: `$1` = external keys, `$2` = primary keys.
    pub insert_map: Option<String>,
    /// Tables (unqualified) whose row counts must equal the rows inserted.
    pub tables: Vec<&'static str>,
}

/// The column type for a storage.
pub fn column_type(storage: Storage) -> &'static str {
    match storage {
        Storage::Integer => "bigint",
        // MariaDbUuid is rejected by `render` before a column is rendered.
        Storage::Binary16 | Storage::Binary16TimeSwapped | Storage::MariaDbUuid => "uuid",
        Storage::Text36 => "char(36)",
        Storage::Text26 => "char(26)",
        Storage::Hex32 => "char(32)",
        Storage::VarHex32 => "varchar(32)",
        Storage::VarText36 => "varchar(36)",
    }
}

fn array_type(storage: Storage) -> &'static str {
    match storage {
        Storage::Integer => "bigint[]",
        Storage::Binary16 | Storage::Binary16TimeSwapped | Storage::MariaDbUuid => "uuid[]",
        Storage::Text36 | Storage::Text26 | Storage::Hex32 | Storage::VarHex32 | Storage::VarText36 => "text[]",
    }
}

/// The built-in function generating a server-side key of `scheme`, and the
/// `server_version_num` it first appeared in.
fn server_function(scheme: Scheme) -> Option<(&'static str, i32)> {
    match scheme {
        Scheme::Uuid4 => Some(("gen_random_uuid()", 130_000)),
        Scheme::Uuid7 => Some(("uuidv7()", 180_000)),
        _ => None,
    }
}

/// Why a server of version `version_num` (`server_version_num`) cannot run `strategy`, if it
/// cannot although the SQL renders (a key function newer than the server).
pub fn version_requirement(strategy: &Strategy, version_num: i32) -> Option<String> {
    let (function, needs) = server_function(strategy.server_primary()?)?;
    (version_num < needs).then(|| {
        format!(
            "{function} is built into PostgreSQL {} and newer; this server is {}.{}",
            needs / 10_000,
            version_num / 10_000,
            version_num % 10_000
        )
    })
}

fn unsupported(strategy: &Strategy, reason: impl Into<String>) -> Error {
    Error::Unsupported { strategy: strategy.name.into(), engine: "postgres".into(), reason: reason.into() }
}

/// The primary-key column definition of `strategy`: an identity for engine-assigned keys, the
/// storage's type for client keys, the server's function as default for server-generated keys.
pub(super) fn primary_key_column(strategy: &Strategy) -> Result<String, Error> {
    Ok(match strategy.primary.source {
        KeySource::EngineAssigned => "id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY".to_string(),
        KeySource::Client(_) => format!("id {} NOT NULL PRIMARY KEY", column_type(strategy.primary.storage)),
        KeySource::Server(scheme) => match (server_function(scheme), strategy.primary.storage) {
            (Some((function, _)), Storage::Binary16) => format!("id uuid NOT NULL DEFAULT {function} PRIMARY KEY"),
            _ => {
                return Err(unsupported(
                    strategy,
                    format!(
                        "PostgreSQL has no built-in {scheme} generator (it has gen_random_uuid() and, from 18, uuidv7())"
                    ),
                ));
            }
        },
    })
}

/// Renders `strategy` inside `schema`.
pub fn render(strategy: &Strategy, schema: &str) -> Result<PgSchema, Error> {
    let t = |name: &str| format!("{schema}.{name}");
    if strategy.primary.storage == Storage::MariaDbUuid && strategy.server_primary().is_none() {
        return Err(unsupported(
            strategy,
            "the reordered UUID column type is MariaDB's; PostgreSQL's uuid type is what the strategy without -mariadb-uuid uses",
        ));
    }
    let pk = primary_key_column(strategy)?;
    let mut columns = vec![pk];
    let mut arrays: Vec<(&str, Storage)> = Vec::new();
    if strategy.client_primary().is_some() {
        arrays.push(("id", strategy.primary.storage));
    }
    let mut create = Vec::new();
    let mut tables = vec!["bench"];
    let mut insert_map = None;
    if let Some(sec) = strategy.secondary {
        let unique = if sec.lookup == SecondaryLookup::UniqueIndex { " UNIQUE" } else { "" };
        columns.push(format!("ext_id {} NOT NULL{unique}", column_type(sec.storage)));
        arrays.push(("ext_id", sec.storage));
        if sec.lookup == SecondaryLookup::MappingTable {
            if strategy.client_primary().is_none() {
                return Err(Error::Unsupported {
                    strategy: strategy.name.into(),
                    engine: "postgres".into(),
                    reason: "a mapping table needs a client-generated primary key".into(),
                });
            }
            create.push(format!(
                "CREATE TABLE {} (ext_id {} NOT NULL PRIMARY KEY, id {} NOT NULL) WITH (autovacuum_enabled = off)",
                t("bench_map"),
                column_type(sec.storage),
                column_type(strategy.primary.storage)
            ));
            insert_map = Some(format!(
                "INSERT INTO {} (ext_id, id) SELECT * FROM unnest($1::{}, $2::{})",
                t("bench_map"),
                array_type(sec.storage),
                array_type(strategy.primary.storage)
            ));
            tables.push("bench_map");
        }
    }
    columns.push("payload bytea NOT NULL".into());
    create.insert(0, format!("CREATE TABLE {} ({}) WITH (autovacuum_enabled = off)", t("bench"), columns.join(", ")));
    let insert = if arrays.is_empty() {
        format!("INSERT INTO {} (payload) SELECT $1 FROM generate_series(1, $2::int)", t("bench"))
    } else {
        let names: Vec<&str> = arrays.iter().map(|(n, _)| *n).collect();
        let unnest: Vec<String> =
            arrays.iter().enumerate().map(|(i, (_, s))| format!("${}::{}", i + 1, array_type(*s))).collect();
        format!(
            "INSERT INTO {} ({}, payload) SELECT {}, ${} FROM unnest({}) AS k({})",
            t("bench"),
            names.join(", "),
            names.iter().map(|n| format!("k.{n}")).collect::<Vec<_>>().join(", "),
            arrays.len() + 1,
            unnest.join(", "),
            names.join(", ")
        )
    };
    Ok(PgSchema { create, insert, insert_map, tables })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::strategy::find;

    fn sql(name: &str) -> PgSchema {
        render(find(name).unwrap(), "pkbench").unwrap()
    }

    #[test]
    fn int_uses_identity_and_generate_series() {
        let s = sql("int");
        assert_eq!(
            s.create,
            [
                "CREATE TABLE pkbench.bench (id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY, payload bytea NOT NULL) WITH (autovacuum_enabled = off)"
            ]
        );
        assert_eq!(s.insert, "INSERT INTO pkbench.bench (payload) SELECT $1 FROM generate_series(1, $2::int)");
    }

    #[test]
    fn uuid_keys_use_the_native_type_and_unnest() {
        let s = sql("uuid4");
        assert_eq!(
            s.create[0],
            "CREATE TABLE pkbench.bench (id uuid NOT NULL PRIMARY KEY, payload bytea NOT NULL) WITH (autovacuum_enabled = off)"
        );
        assert_eq!(
            s.insert,
            "INSERT INTO pkbench.bench (id, payload) SELECT k.id, $2 FROM unnest($1::uuid[]) AS k(id)"
        );
        assert_eq!(sql("uuid4-rowid").create, s.create, "every PostgreSQL table is a heap plus index");
        assert!(sql("uuid7-text").create[0].contains("id char(36) NOT NULL PRIMARY KEY"));
    }

    #[test]
    fn storage_variants_and_server_keys() {
        assert!(sql("uuid4-hex32").create[0].contains("id char(32) NOT NULL PRIMARY KEY"));
        assert!(sql("uuid4-varhex32").create[0].contains("id varchar(32) NOT NULL PRIMARY KEY"));
        assert!(sql("uuid4-varchar36").insert.contains("unnest($1::text[])"));
        assert!(sql("uuid1-bin-swapped").create[0].contains("id uuid NOT NULL PRIMARY KEY"));
        let s = sql("uuid4-server");
        assert_eq!(
            s.create[0],
            "CREATE TABLE pkbench.bench (id uuid NOT NULL DEFAULT gen_random_uuid() PRIMARY KEY, payload bytea NOT NULL) WITH (autovacuum_enabled = off)"
        );
        assert_eq!(s.insert, "INSERT INTO pkbench.bench (payload) SELECT $1 FROM generate_series(1, $2::int)");
        assert!(sql("uuid7-server").create[0].contains("DEFAULT uuidv7()"));
        for name in ["uuid1-server", "uuid1-server-bin", "uuid4-mariadb-uuid"] {
            let err = render(find(name).unwrap(), "x").unwrap_err().to_string();
            assert!(err.contains("MariaDB") || err.contains("no built-in"), "{name}: {err}");
        }
    }

    #[test]
    fn uuidv7_needs_postgresql_18() {
        let v7 = find("uuid7-server").unwrap();
        assert_eq!(
            version_requirement(v7, 150_014).as_deref(),
            Some("uuidv7() is built into PostgreSQL 18 and newer; this server is 15.14")
        );
        assert_eq!(version_requirement(v7, 180_000), None);
        assert_eq!(version_requirement(find("uuid4-server").unwrap(), 150_000), None);
        assert_eq!(version_requirement(find("uuid4").unwrap(), 150_000), None);
    }

    #[test]
    fn dual_keys_and_mapping() {
        let s = sql("int+uuid4");
        assert!(s.create[0].contains("ext_id uuid NOT NULL UNIQUE"));
        assert_eq!(
            s.insert,
            "INSERT INTO pkbench.bench (ext_id, payload) SELECT k.ext_id, $2 FROM unnest($1::uuid[]) AS k(ext_id)"
        );
        let m = sql("uuid7+uuid4-map");
        assert_eq!(m.tables, ["bench", "bench_map"]);
        assert_eq!(
            m.insert_map.as_deref(),
            Some("INSERT INTO pkbench.bench_map (ext_id, id) SELECT * FROM unnest($1::uuid[], $2::uuid[])")
        );
        assert_eq!(
            sql("snowflake+uuid4").insert,
            "INSERT INTO pkbench.bench (id, ext_id, payload) SELECT k.id, k.ext_id, $3 FROM unnest($1::bigint[], $2::uuid[]) AS k(id, ext_id)"
        );
    }
}
