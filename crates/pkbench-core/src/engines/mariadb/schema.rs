//! MariaDB/InnoDB DDL and the multi-row INSERTs for a strategy. InnoDB always clusters rows
//! by the primary key, so rowid ("heap with index") layouts do not exist there.

use crate::Error;
use crate::strategy::{KeySource, PrimaryIndex, SecondaryLookup, Storage, Strategy};

/// The SQL a strategy needs on MariaDB, relative to one database.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct MariaDbSchema {
    /// CREATE statements, in order.
    pub create: Vec<String>,
    /// `INSERT INTO … (cols) VALUES ` — rows are appended as literals.
    pub insert_prefix: String,
    /// `INSERT INTO map (ext_id, id) VALUES `, if the strategy has a mapping table.
    pub map_prefix: Option<String>,
    /// Tables whose row counts must equal the rows inserted.
    pub tables: Vec<&'static str>,
}

/// The column type for a storage (text keys use the server's default character set, as an
/// application's `CHAR(36)` column would).
pub fn column_type(storage: Storage) -> &'static str {
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

fn unsupported(strategy: &Strategy, reason: impl Into<String>) -> Error {
    Error::Unsupported { strategy: strategy.name.into(), engine: "mariadb".into(), reason: reason.into() }
}

/// The primary-key column of a server-generated key: the server's function as its default.
fn server_key_column(strategy: &Strategy, scheme: crate::generators::Scheme) -> Result<String, Error> {
    let function = super::uuid_type::server_function(scheme)
        .ok_or_else(|| unsupported(strategy, format!("MariaDB has no built-in {scheme} generator")))?;
    match strategy.primary.storage {
        Storage::MariaDbUuid => Ok(format!("id UUID NOT NULL DEFAULT ({function}) PRIMARY KEY")),
        Storage::Binary16 => {
            Ok(format!("id BINARY(16) NOT NULL DEFAULT (UNHEX(REPLACE({function}, '-', ''))) PRIMARY KEY"))
        }
        other => {
            Err(unsupported(strategy, format!("server-generated keys are stored as UUID or BINARY(16), not {other:?}")))
        }
    }
}

/// The primary-key column definition of `strategy`: auto-increment for engine-assigned keys,
/// the storage's type for client keys, the server's function as default for server keys.
pub(super) fn primary_key_column(strategy: &Strategy) -> Result<String, Error> {
    Ok(match strategy.primary.source {
        KeySource::EngineAssigned => "id BIGINT NOT NULL AUTO_INCREMENT PRIMARY KEY".to_string(),
        KeySource::Client(_) => format!("id {} NOT NULL PRIMARY KEY", column_type(strategy.primary.storage)),
        KeySource::Server(scheme) => server_key_column(strategy, scheme)?,
    })
}

/// Renders `strategy` inside database `db`.
pub fn render(strategy: &Strategy, db: &str) -> Result<MariaDbSchema, Error> {
    if strategy.index == PrimaryIndex::HeapWithIndex {
        return Err(Error::Unsupported {
            strategy: strategy.name.into(),
            engine: "mariadb".into(),
            reason: "InnoDB always clusters rows by the primary key; there is no rowid table (use the strategy without -rowid)".into(),
        });
    }
    let pk = primary_key_column(strategy)?;
    let mut columns = vec![pk];
    let mut cols = Vec::new();
    if strategy.client_primary().is_some() {
        cols.push("id");
    }
    let mut create = Vec::new();
    let mut tables = vec!["bench"];
    let mut map_prefix = None;
    if let Some(sec) = strategy.secondary {
        columns.push(format!("ext_id {} NOT NULL", column_type(sec.storage)));
        if sec.lookup == SecondaryLookup::UniqueIndex {
            columns.push("UNIQUE KEY ext_id (ext_id)".into());
        }
        cols.push("ext_id");
        if sec.lookup == SecondaryLookup::MappingTable {
            if strategy.client_primary().is_none() {
                return Err(Error::Unsupported {
                    strategy: strategy.name.into(),
                    engine: "mariadb".into(),
                    reason: "a mapping table needs a client-generated primary key".into(),
                });
            }
            create.push(format!(
                "CREATE TABLE {db}.bench_map (ext_id {} NOT NULL PRIMARY KEY, id {} NOT NULL) ENGINE=InnoDB",
                column_type(sec.storage),
                column_type(strategy.primary.storage)
            ));
            map_prefix = Some(format!("INSERT INTO {db}.bench_map (ext_id, id) VALUES "));
            tables.push("bench_map");
        }
    }
    columns.push("payload BLOB NOT NULL".into());
    cols.push("payload");
    create.insert(0, format!("CREATE TABLE {db}.bench ({}) ENGINE=InnoDB", columns.join(", ")));
    Ok(MariaDbSchema {
        create,
        insert_prefix: format!("INSERT INTO {db}.bench ({}) VALUES ", cols.join(", ")),
        map_prefix,
        tables,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::strategy::find;

    fn sql(name: &str) -> MariaDbSchema {
        render(find(name).unwrap(), "pkbench").unwrap()
    }

    #[test]
    fn layouts() {
        assert_eq!(
            sql("int").create,
            [
                "CREATE TABLE pkbench.bench (id BIGINT NOT NULL AUTO_INCREMENT PRIMARY KEY, payload BLOB NOT NULL) ENGINE=InnoDB"
            ]
        );
        assert_eq!(sql("int").insert_prefix, "INSERT INTO pkbench.bench (payload) VALUES ");
        assert_eq!(
            sql("uuid4").create[0],
            "CREATE TABLE pkbench.bench (id BINARY(16) NOT NULL PRIMARY KEY, payload BLOB NOT NULL) ENGINE=InnoDB"
        );
        assert!(sql("uuid4-text").create[0].contains("id CHAR(36) NOT NULL PRIMARY KEY"));
        assert!(sql("int+uuid4").create[0].contains("ext_id BINARY(16) NOT NULL, UNIQUE KEY ext_id (ext_id)"));
        assert_eq!(sql("uuid7+uuid4-map").tables, ["bench", "bench_map"]);
    }

    #[test]
    fn storage_variants_and_server_keys() {
        let pk = |name: &str| sql(name).create[0].split(", payload").next().unwrap_or_default().to_string();
        assert_eq!(pk("uuid4-hex32"), "CREATE TABLE pkbench.bench (id CHAR(32) NOT NULL PRIMARY KEY");
        assert_eq!(pk("uuid4-varhex32"), "CREATE TABLE pkbench.bench (id VARCHAR(32) NOT NULL PRIMARY KEY");
        assert_eq!(pk("uuid4-varchar36"), "CREATE TABLE pkbench.bench (id VARCHAR(36) NOT NULL PRIMARY KEY");
        assert_eq!(pk("uuid7-mariadb-uuid"), "CREATE TABLE pkbench.bench (id UUID NOT NULL PRIMARY KEY");
        assert_eq!(pk("uuid1-bin-swapped"), "CREATE TABLE pkbench.bench (id BINARY(16) NOT NULL PRIMARY KEY");
        assert_eq!(pk("uuid1-server"), "CREATE TABLE pkbench.bench (id UUID NOT NULL DEFAULT (UUID()) PRIMARY KEY");
        assert_eq!(
            pk("uuid1-server-bin"),
            "CREATE TABLE pkbench.bench (id BINARY(16) NOT NULL DEFAULT (UNHEX(REPLACE(UUID(), '-', ''))) PRIMARY KEY"
        );
        assert_eq!(sql("uuid1-server").insert_prefix, "INSERT INTO pkbench.bench (payload) VALUES ");
        assert!(pk("uuid7-server").contains("DEFAULT (UNHEX(REPLACE(UUID_v7(), '-', '')))"));
    }

    #[test]
    fn rowid_layouts_are_rejected_with_a_reason() {
        let err = render(find("uuid4-rowid").unwrap(), "x").unwrap_err().to_string();
        assert!(err.contains("InnoDB always clusters"), "{err}");
    }
}
