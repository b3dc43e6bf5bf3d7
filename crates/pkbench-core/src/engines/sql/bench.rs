//! The insert-growth table of a strategy (`bench`, and `bench_map` for mapping-table
//! strategies) in any server engine's dialect.

use super::primary_key;
use crate::Error;
use crate::engines::dialect::{ColumnDef, Dialect, TableDef, TablePurpose};
use crate::engines::wire::{BulkSql, KeyField};
use crate::strategy::{KeySource, SecondaryLookup, Storage, Strategy};

/// The SQL a strategy needs, inside one namespace.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BenchSql {
    /// CREATE statements, in order.
    pub create: Vec<String>,
    /// The main multi-row INSERT.
    pub insert: BulkSql,
    /// The mapping table's multi-row INSERT (external key, primary key), if there is one.
    pub insert_map: Option<BulkSql>,
    /// Single-row INSERT of the client-side columns and the payload (concurrent clients).
    pub insert_one: String,
    /// The next row after a key (`--txn insert-read-recent`).
    pub read_after: String,
    /// A row's payload replaced, by key (`--txn insert-update-recent`).
    pub update_payload: String,
    /// Tables (unqualified) whose row counts must equal the rows inserted; `bench` first.
    pub tables: Vec<&'static str>,
    /// Storage of the keys DELETEs by primary key take; `None` when the server generates the
    /// keys (they never reach pkbench). Engine-assigned keys count up from 1 in a fresh table.
    pub delete_storage: Option<Storage>,
}

/// Renders `strategy`'s tables inside `namespace`.
pub fn render(dialect: &dyn Dialect, strategy: &Strategy, namespace: &str) -> Result<BenchSql, Error> {
    let t = |name: &str| dialect.qualify(namespace, name);
    let pk = ColumnDef { name: "id", definition: primary_key(dialect, strategy)?, unique: false, references: None };
    let mut columns = vec![pk];
    let mut keys: Vec<(&str, KeyField, Storage)> = Vec::new();
    if strategy.client_primary().is_some() {
        keys.push(("id", KeyField::Primary, strategy.primary.storage));
    }
    let mut tables = vec!["bench"];
    let mut map = None;
    if let Some(sec) = strategy.secondary {
        let mut ext = ColumnDef::not_null("ext_id", dialect.key_type(sec.storage));
        ext.unique = sec.lookup == SecondaryLookup::UniqueIndex;
        columns.push(ext);
        keys.push(("ext_id", KeyField::Secondary, sec.storage));
        if sec.lookup == SecondaryLookup::MappingTable {
            let def = TableDef {
                name: t("bench_map"),
                columns: vec![
                    ColumnDef {
                        name: "ext_id",
                        definition: format!("{} NOT NULL PRIMARY KEY", dialect.key_type(sec.storage)),
                        unique: false,
                        references: None,
                    },
                    ColumnDef::not_null("id", dialect.key_type(strategy.primary.storage)),
                ],
                indexes: Vec::new(),
                purpose: TablePurpose::Bench,
            };
            let insert = dialect.bulk_insert(
                &t("bench_map"),
                &[("ext_id", KeyField::Secondary, sec.storage), ("id", KeyField::Primary, strategy.primary.storage)],
                false,
            );
            map = Some((dialect.create_table(&def), insert));
            tables.push("bench_map");
        }
    }
    columns.push(ColumnDef::not_null("payload", dialect.bytes()));
    let bench = TableDef { name: t("bench"), columns, indexes: Vec::new(), purpose: TablePurpose::Bench };
    let mut create = dialect.create_table(&bench);
    let mut names: Vec<&str> = keys.iter().map(|(n, _, _)| *n).collect();
    names.push("payload");
    let insert_one = format!(
        "INSERT INTO {} ({}) VALUES ({})",
        t("bench"),
        names.join(", "),
        crate::engines::dialect::values_list(dialect, 1, names.len())
    );
    let read_after = format!("SELECT id FROM {} WHERE id > {} ORDER BY id LIMIT 1", t("bench"), dialect.placeholder(1));
    let update_payload =
        format!("UPDATE {} SET payload = {} WHERE id = {}", t("bench"), dialect.placeholder(1), dialect.placeholder(2));
    let insert = dialect.bulk_insert(&t("bench"), &keys, true);
    let insert_map = map.map(|(ddl, insert)| {
        create.extend(ddl);
        insert
    });
    let delete_storage = match strategy.primary.source {
        KeySource::Server(_) => None,
        KeySource::EngineAssigned => Some(Storage::Integer),
        KeySource::Client(_) => Some(strategy.primary.storage),
    };
    Ok(BenchSql { create, insert, insert_map, insert_one, read_after, update_payload, tables, delete_storage })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engines::mariadb::dialect::INNODB;
    use crate::engines::postgres::dialect::PostgresDialect;
    use crate::strategy::find;

    fn pg(name: &str) -> BenchSql {
        render(&PostgresDialect, find(name).unwrap(), "pkbench").unwrap()
    }

    fn my(name: &str) -> BenchSql {
        render(&INNODB, find(name).unwrap(), "pkbench").unwrap()
    }

    #[test]
    fn postgres_int_uses_identity_and_generate_series() {
        let s = pg("int");
        assert_eq!(
            s.create,
            [
                "CREATE TABLE pkbench.bench (id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY, payload bytea NOT NULL) WITH (autovacuum_enabled = off)"
            ]
        );
        assert_eq!(s.insert.sql, "INSERT INTO pkbench.bench (payload) SELECT $1 FROM generate_series(1, $2::int)");
        assert_eq!(s.insert_one, "INSERT INTO pkbench.bench (payload) VALUES ($1)");
    }

    #[test]
    fn postgres_uuid_keys_use_the_native_type_and_unnest() {
        let s = pg("uuid4");
        assert_eq!(
            s.create[0],
            "CREATE TABLE pkbench.bench (id uuid NOT NULL PRIMARY KEY, payload bytea NOT NULL) WITH (autovacuum_enabled = off)"
        );
        assert_eq!(
            s.insert.sql,
            "INSERT INTO pkbench.bench (id, payload) SELECT k.id, $2 FROM unnest($1::uuid[]) AS k(id)"
        );
        assert_eq!(pg("uuid4-rowid").create, s.create, "every PostgreSQL table is a heap plus index");
        assert!(pg("uuid7-text").create[0].contains("id char(36) NOT NULL PRIMARY KEY"));
    }

    #[test]
    fn postgres_storage_variants_and_server_keys() {
        assert!(pg("uuid4-hex32").create[0].contains("id char(32) NOT NULL PRIMARY KEY"));
        assert!(pg("uuid4-varhex32").create[0].contains("id varchar(32) NOT NULL PRIMARY KEY"));
        assert!(pg("uuid4-varchar36").insert.sql.contains("unnest($1::text[])"));
        assert!(pg("uuid1-bin-swapped").create[0].contains("id uuid NOT NULL PRIMARY KEY"));
        let s = pg("uuid4-server");
        assert_eq!(
            s.create[0],
            "CREATE TABLE pkbench.bench (id uuid NOT NULL DEFAULT gen_random_uuid() PRIMARY KEY, payload bytea NOT NULL) WITH (autovacuum_enabled = off)"
        );
        assert_eq!(s.insert.sql, "INSERT INTO pkbench.bench (payload) SELECT $1 FROM generate_series(1, $2::int)");
        assert!(pg("uuid7-server").create[0].contains("DEFAULT uuidv7()"));
        for name in ["uuid1-server", "uuid1-server-bin", "uuid4-mariadb-uuid"] {
            let err = render(&PostgresDialect, find(name).unwrap(), "x").unwrap_err().to_string();
            assert!(err.contains("MariaDB") || err.contains("no built-in"), "{name}: {err}");
        }
    }

    #[test]
    fn postgres_dual_keys_and_mapping() {
        let s = pg("int+uuid4");
        assert!(s.create[0].contains("ext_id uuid NOT NULL UNIQUE"));
        assert_eq!(
            s.insert.sql,
            "INSERT INTO pkbench.bench (ext_id, payload) SELECT k.ext_id, $2 FROM unnest($1::uuid[]) AS k(ext_id)"
        );
        let m = pg("uuid7+uuid4-map");
        assert_eq!(m.tables, ["bench", "bench_map"]);
        assert_eq!(
            m.insert_map.map(|b| b.sql).as_deref(),
            Some("INSERT INTO pkbench.bench_map (ext_id, id) SELECT * FROM unnest($1::uuid[], $2::uuid[])")
        );
        assert_eq!(
            pg("snowflake+uuid4").insert.sql,
            "INSERT INTO pkbench.bench (id, ext_id, payload) SELECT k.id, k.ext_id, $3 FROM unnest($1::bigint[], $2::uuid[]) AS k(id, ext_id)"
        );
        assert_eq!(
            pg("snowflake+uuid4").insert_one,
            "INSERT INTO pkbench.bench (id, ext_id, payload) VALUES ($1, $2, $3)"
        );
    }

    #[test]
    fn mariadb_layouts() {
        assert_eq!(
            my("int").create,
            [
                "CREATE TABLE pkbench.bench (id BIGINT NOT NULL AUTO_INCREMENT PRIMARY KEY, payload BLOB NOT NULL) ENGINE=InnoDB"
            ]
        );
        assert_eq!(my("int").insert.sql, "INSERT INTO pkbench.bench (payload) VALUES ");
        assert_eq!(
            my("uuid4").create[0],
            "CREATE TABLE pkbench.bench (id BINARY(16) NOT NULL PRIMARY KEY, payload BLOB NOT NULL) ENGINE=InnoDB"
        );
        assert!(my("uuid4-text").create[0].contains("id CHAR(36) NOT NULL PRIMARY KEY"));
        assert!(my("int+uuid4").create[0].contains("ext_id BINARY(16) NOT NULL, UNIQUE KEY ext_id (ext_id)"));
        assert_eq!(my("uuid7+uuid4-map").tables, ["bench", "bench_map"]);
        assert_eq!(my("uuid4").insert_one, "INSERT INTO pkbench.bench (id, payload) VALUES (?, ?)");
    }

    #[test]
    fn mariadb_storage_variants_and_server_keys() {
        let pk = |name: &str| my(name).create[0].split(", payload").next().unwrap_or_default().to_string();
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
        assert_eq!(my("uuid1-server").insert.sql, "INSERT INTO pkbench.bench (payload) VALUES ");
        assert!(pk("uuid7-server").contains("DEFAULT (UNHEX(REPLACE(UUID_v7(), '-', '')))"));
    }

    #[test]
    fn mariadb_rowid_layouts_are_rejected_with_a_reason() {
        let err = render(&INNODB, find("uuid4-rowid").unwrap(), "x").unwrap_err().to_string();
        assert!(err.contains("InnoDB always clusters"), "{err}");
    }
}
