//! SQLite DDL and INSERT statements for a strategy.

use crate::Error;
use crate::engines::sql::BenchSql;
use crate::engines::wire::{BulkSql, KeyField};
use crate::strategy::{KeySource, PrimaryIndex, SecondaryLookup, Storage, Strategy};

/// Name of the benchmark table.
pub const TABLE: &str = "bench";
/// Name of the mapping table of `…-map` strategies.
pub const MAP_TABLE: &str = "bench_map";

/// The SQL a strategy needs on SQLite.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SqliteSchema {
    /// Statements creating the tables and indexes, in order.
    pub create: Vec<String>,
    /// The main INSERT; parameters are numbered as in [`Params`].
    pub insert: String,
    /// The mapping-table INSERT, if the strategy has one: `?1` = external key, `?2` = primary.
    pub insert_map: Option<String>,
    /// Parameter positions in `insert`.
    pub params: Params,
    /// Tables whose row counts must equal the rows inserted.
    pub tables: Vec<&'static str>,
}

impl SqliteSchema {
    /// The statements as the engine core runs them (its single-row INSERTs stepped once per
    /// row); `strategy` is the one this schema was rendered for.
    pub fn bench_sql(&self, strategy: &Strategy) -> BenchSql {
        let primary = (KeyField::Primary, strategy.primary.storage);
        let mut keys = Vec::new();
        if self.params.primary.is_some() {
            keys.push(primary);
        }
        let secondary = strategy.secondary.map(|s| (KeyField::Secondary, s.storage));
        if let (Some(_), Some(secondary)) = (self.params.secondary, secondary) {
            keys.push(secondary);
        }
        let insert_map = self.insert_map.as_ref().map(|sql| BulkSql {
            sql: sql.clone(),
            keys: secondary.into_iter().chain([primary]).collect(),
            payload: false,
        });
        BenchSql {
            create: self.create.clone(),
            insert: BulkSql { sql: self.insert.clone(), keys, payload: true },
            insert_map,
            insert_one: self.insert.clone(),
            read_after: format!("SELECT id FROM {TABLE} WHERE id > ?1 ORDER BY id LIMIT 1"),
            update_payload: format!("UPDATE {TABLE} SET payload = ?1 WHERE id = ?2"),
            tables: self.tables.clone(),
            delete_storage: match strategy.primary.source {
                KeySource::Server(_) => None,
                KeySource::EngineAssigned => Some(Storage::Integer),
                KeySource::Client(_) => Some(strategy.primary.storage),
            },
        }
    }
}

/// 1-based parameter positions of the main INSERT.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Params {
    /// Primary key, when client-generated.
    pub primary: Option<usize>,
    /// External key, when present.
    pub secondary: Option<usize>,
    /// Payload.
    pub payload: usize,
}

/// The column type of a key stored as `storage`.
pub fn column_type(storage: Storage) -> &'static str {
    match storage {
        Storage::Integer => "INTEGER",
        // MariaDbUuid is rejected by `unsupported_reason` before a column is rendered.
        Storage::Binary16 | Storage::Binary16TimeSwapped | Storage::MariaDbUuid => "BLOB",
        Storage::Text36 | Storage::Text26 | Storage::Hex32 | Storage::VarHex32 | Storage::VarText36 => "TEXT",
    }
}

/// Why SQLite cannot run `strategy`, if it cannot.
pub fn unsupported_reason(strategy: &Strategy) -> Option<&'static str> {
    if strategy.primary.storage == Storage::Integer && strategy.index == PrimaryIndex::HeapWithIndex {
        return Some("an INTEGER PRIMARY KEY is always the rowid itself, so it cannot be a separate index");
    }
    if let KeySource::Server(_) = strategy.primary.source {
        return Some(
            "SQLite has no built-in UUID function to generate keys on insert (use the client-generated strategy)",
        );
    }
    if strategy.secondary.is_some_and(|s| s.lookup == SecondaryLookup::MappingTable)
        && strategy.client_primary().is_none()
    {
        return Some("a mapping table needs a client-generated primary key");
    }
    (strategy.primary.storage == Storage::MariaDbUuid).then_some(
        "the UUID column type is MariaDB's (10.7+); SQLite stores UUIDs as BLOB or TEXT (use uuid4, uuid4-text)",
    )
}

/// Renders the schema for `strategy`.
pub fn render(strategy: &Strategy) -> Result<SqliteSchema, Error> {
    if let Some(reason) = unsupported_reason(strategy) {
        return Err(Error::Unsupported {
            strategy: strategy.name.into(),
            engine: "sqlite".into(),
            reason: reason.into(),
        });
    }
    let pk_type = column_type(strategy.primary.storage);
    let integer_pk = strategy.primary.storage == Storage::Integer;
    let mut columns = vec![if integer_pk {
        "id INTEGER PRIMARY KEY".to_string()
    } else {
        format!("id {pk_type} NOT NULL PRIMARY KEY")
    }];
    let mut create = Vec::new();
    let mut insert_cols = Vec::new();
    let mut params = Params { primary: None, secondary: None, payload: 0 };
    if let KeySource::Client(_) = strategy.primary.source {
        insert_cols.push("id");
        params.primary = Some(insert_cols.len());
    }
    let mut tables = vec![TABLE];
    let mut insert_map = None;
    if let Some(sec) = strategy.secondary {
        let ty = column_type(sec.storage);
        let unique = if sec.lookup == SecondaryLookup::UniqueIndex { " UNIQUE" } else { "" };
        columns.push(format!("ext_id {ty} NOT NULL{unique}"));
        insert_cols.push("ext_id");
        params.secondary = Some(insert_cols.len());
        if sec.lookup == SecondaryLookup::MappingTable {
            create.push(format!(
                "CREATE TABLE {MAP_TABLE} (ext_id {ty} NOT NULL PRIMARY KEY, id {pk_type} NOT NULL) WITHOUT ROWID"
            ));
            insert_map = Some(format!("INSERT INTO {MAP_TABLE} (ext_id, id) VALUES (?1, ?2)"));
            tables.push(MAP_TABLE);
        }
    }
    columns.push("payload BLOB NOT NULL".into());
    insert_cols.push("payload");
    params.payload = insert_cols.len();
    let without_rowid = if is_without_rowid(strategy) { " WITHOUT ROWID" } else { "" };
    create.insert(0, format!("CREATE TABLE {TABLE} ({}){without_rowid}", columns.join(", ")));
    let placeholders: Vec<String> = (1..=insert_cols.len()).map(|i| format!("?{i}")).collect();
    let insert = format!("INSERT INTO {TABLE} ({}) VALUES ({})", insert_cols.join(", "), placeholders.join(", "));
    Ok(SqliteSchema { create, insert, insert_map, params, tables })
}

/// Whether `strategy`'s table is `WITHOUT ROWID`: clustered by a key that is not an integer
/// (an integer key is the rowid, which clusters a rowid table by it).
pub(crate) fn is_without_rowid(strategy: &Strategy) -> bool {
    strategy.index == PrimaryIndex::Clustered && strategy.primary.storage != Storage::Integer
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::strategy::find;

    fn sql(name: &str) -> SqliteSchema {
        render(find(name).unwrap()).unwrap()
    }

    #[test]
    fn int_is_the_rowid_and_engine_assigned() {
        let s = sql("int");
        assert_eq!(s.create, ["CREATE TABLE bench (id INTEGER PRIMARY KEY, payload BLOB NOT NULL)"]);
        assert_eq!(s.insert, "INSERT INTO bench (payload) VALUES (?1)");
        assert_eq!(s.params, Params { primary: None, secondary: None, payload: 1 });
    }

    #[test]
    fn snowflake_binds_the_rowid() {
        let s = sql("snowflake");
        assert_eq!(s.create, ["CREATE TABLE bench (id INTEGER PRIMARY KEY, payload BLOB NOT NULL)"]);
        assert_eq!(s.insert, "INSERT INTO bench (id, payload) VALUES (?1, ?2)");
    }

    #[test]
    fn uuid_layouts() {
        assert_eq!(
            sql("uuid4").create,
            ["CREATE TABLE bench (id BLOB NOT NULL PRIMARY KEY, payload BLOB NOT NULL) WITHOUT ROWID"]
        );
        assert_eq!(
            sql("uuid7-rowid").create,
            ["CREATE TABLE bench (id BLOB NOT NULL PRIMARY KEY, payload BLOB NOT NULL)"]
        );
        assert_eq!(
            sql("uuid4-text").create,
            ["CREATE TABLE bench (id TEXT NOT NULL PRIMARY KEY, payload BLOB NOT NULL) WITHOUT ROWID"]
        );
    }

    #[test]
    fn dual_key_layouts() {
        let s = sql("int+uuid4");
        assert_eq!(
            s.create,
            ["CREATE TABLE bench (id INTEGER PRIMARY KEY, ext_id BLOB NOT NULL UNIQUE, payload BLOB NOT NULL)"]
        );
        assert_eq!(s.insert, "INSERT INTO bench (ext_id, payload) VALUES (?1, ?2)");
        assert_eq!(s.params, Params { primary: None, secondary: Some(1), payload: 2 });
        assert!(sql("int+uuid4-noindex").create[0].contains("ext_id BLOB NOT NULL,"));
        let s = sql("uuid7+uuid4");
        assert_eq!(
            s.create,
            [
                "CREATE TABLE bench (id BLOB NOT NULL PRIMARY KEY, ext_id BLOB NOT NULL UNIQUE, payload BLOB NOT NULL) WITHOUT ROWID"
            ]
        );
        assert!(!sql("uuid7+uuid4-rowid").create[0].contains("WITHOUT ROWID"));
    }

    #[test]
    fn mapping_table() {
        let s = sql("uuid7+uuid4-map");
        assert_eq!(
            s.create[0],
            "CREATE TABLE bench (id BLOB NOT NULL PRIMARY KEY, ext_id BLOB NOT NULL, payload BLOB NOT NULL) WITHOUT ROWID"
        );
        assert_eq!(
            s.create[1],
            "CREATE TABLE bench_map (ext_id BLOB NOT NULL PRIMARY KEY, id BLOB NOT NULL) WITHOUT ROWID"
        );
        assert_eq!(s.insert_map.as_deref(), Some("INSERT INTO bench_map (ext_id, id) VALUES (?1, ?2)"));
        assert_eq!(s.tables, ["bench", "bench_map"]);
    }

    #[test]
    fn server_only_variants() {
        assert!(sql("uuid4-hex32").create[0].contains("id TEXT NOT NULL PRIMARY KEY"));
        assert!(sql("uuid4-varchar36").create[0].contains("id TEXT NOT NULL PRIMARY KEY"));
        assert!(sql("uuid1-bin-swapped").create[0].contains("id BLOB NOT NULL PRIMARY KEY"));
        for name in ["uuid4-server", "uuid1-server", "uuid4-mariadb-uuid"] {
            let err = render(find(name).unwrap()).unwrap_err().to_string();
            assert!(err.contains("SQLite") && !err.contains('\n'), "{name}: {err}");
        }
    }

    #[test]
    #[cfg(feature = "sqlite")]
    fn every_catalog_strategy_renders_valid_sql() {
        for strategy in crate::strategy::CATALOG {
            if unsupported_reason(strategy).is_some() {
                continue;
            }
            let schema = render(strategy).unwrap();
            let conn = rusqlite::Connection::open_in_memory().unwrap();
            for stmt in &schema.create {
                conn.execute_batch(stmt).unwrap_or_else(|e| panic!("{}: {stmt}: {e}", strategy.name));
            }
            conn.prepare(&schema.insert).unwrap();
            if let Some(m) = &schema.insert_map {
                conn.prepare(m).unwrap();
            }
        }
    }
}
