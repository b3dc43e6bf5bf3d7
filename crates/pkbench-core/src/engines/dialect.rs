//! The extension point for SQL spelling: one [`Dialect`] per engine (`engines/*/dialect.rs`)
//! holds every difference in how an engine writes the same thing — column types, placeholders,
//! identity columns, table options (including MySQL's storage engine), unique keys and foreign
//! keys, row comparison, compaction and namespaces. The SQL of the benchmark table and of the
//! application ([`super::sql`]) is written once over it. Doctor's advice texts are doctor's own
//! (`doctor::remedies`).
//!
//! Dialects need no driver, so `pkbench list`, doctor and `predict` have them in every build.

use super::wire::{BulkSql, KeyField};
use crate::Error;
use crate::engine_kind::EngineKind;
use crate::generators::Scheme;
use crate::strategy::{PrimaryIndex, Storage, Strategy};

/// What a table is for; dialects may give each its own options.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TablePurpose {
    /// The insert-growth table and its mapping table (PostgreSQL turns autovacuum off there).
    Bench,
    /// The application workload's tables.
    App,
}

/// One column of a [`TableDef`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ColumnDef {
    /// The column's name.
    pub name: &'static str,
    /// Its definition after the name (type, `NOT NULL`, default, `PRIMARY KEY`).
    pub definition: String,
    /// Whether a unique index covers it alone.
    pub unique: bool,
    /// The foreign key it holds, if any.
    pub references: Option<ForeignKey>,
}

/// A foreign key from one column to another table's `id`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ForeignKey {
    /// The constraint's name.
    pub name: &'static str,
    /// The referenced table, qualified.
    pub table: String,
}

impl ColumnDef {
    /// A `NOT NULL` column of `type_name`.
    pub fn not_null(name: &'static str, type_name: &str) -> Self {
        ColumnDef { name, definition: format!("{type_name} NOT NULL"), unique: false, references: None }
    }
}

/// A table to create, in no dialect yet.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TableDef {
    /// Qualified name (`schema.table`).
    pub name: String,
    /// Columns in order.
    pub columns: Vec<ColumnDef>,
    /// Secondary indexes: name and column list.
    pub indexes: Vec<(&'static str, &'static str)>,
    /// What it is for.
    pub purpose: TablePurpose,
}

/// How one engine spells SQL.
pub trait Dialect: Sync {
    /// The engine this dialect is.
    fn kind(&self) -> EngineKind;

    /// The product named in messages: the engine's label, or the flavour's where a dialect
    /// serves one (CockroachDB on PostgreSQL's wire).
    fn product(&self) -> &'static str {
        self.kind().label()
    }

    /// How a client-generated key column declares itself the primary key of a table organised
    /// as `index` (TiDB says `CLUSTERED` or `NONCLUSTERED`); `PRIMARY KEY` by default.
    fn primary_key_clause(&self, _index: PrimaryIndex) -> &'static str {
        "PRIMARY KEY"
    }

    /// Where the engine puts the rows of `strategy`'s table, one phrase for results (SQLite's
    /// rowid and `WITHOUT ROWID` tables, PostgreSQL's heap, InnoDB's clustered index).
    fn layout(&self, strategy: &Strategy) -> String;

    /// Why the engine has no layout or key storage for `strategy`, if it has none (checked
    /// before any SQL is rendered).
    fn refusal(&self, strategy: &Strategy) -> Option<String>;

    /// The column type of a key stored as `storage`.
    fn key_type(&self, storage: Storage) -> &'static str;

    /// A 64-bit integer column type.
    fn bigint(&self) -> &'static str;

    /// A byte-string column type (the payload).
    fn bytes(&self) -> &'static str;

    /// A text column type for values of at most `max_chars` characters.
    fn text(&self, max_chars: u32) -> String;

    /// The definition of an engine-assigned integer primary key named `id`.
    fn identity_key(&self) -> &'static str;

    /// The built-in function generating keys of `scheme`, if the engine has one.
    fn key_function(&self, scheme: Scheme) -> Option<&'static str>;

    /// The definition (after the name) of a primary key the server generates with `function`,
    /// stored as `storage`; `None` if the engine cannot store it so.
    fn server_key(&self, function: &str, storage: Storage) -> Option<String>;

    /// Placeholder of the `n`-th (1-based) parameter.
    fn placeholder(&self, n: usize) -> String;

    /// Options after a table's column list (e.g. PostgreSQL's autovacuum switch).
    fn table_options(&self, _purpose: TablePurpose) -> &'static str {
        ""
    }

    /// `CREATE TABLE` and its index statements. By default in standard SQL: unique and foreign
    /// keys inline with their column, then one `CREATE INDEX` per secondary index.
    fn create_table(&self, table: &TableDef) -> Vec<String> {
        let columns: Vec<String> = table
            .columns
            .iter()
            .map(|c| {
                let unique = if c.unique { " UNIQUE" } else { "" };
                let references =
                    c.references.as_ref().map_or(String::new(), |fk| format!(" REFERENCES {}(id)", fk.table));
                format!("{} {}{unique}{references}", c.name, c.definition)
            })
            .collect();
        let options = self.table_options(table.purpose);
        let mut out = vec![format!("CREATE TABLE {} ({}){options}", table.name, columns.join(", "))];
        out.extend(table.indexes.iter().map(|(name, cols)| format!("CREATE INDEX {name} ON {} ({cols})", table.name)));
        out
    }

    /// Whether `(a, b) > (x, y)` works (else the comparison is spelled out and takes `a` twice).
    fn row_comparison(&self) -> bool;

    /// Whether its tables take FOREIGN KEY constraints (RocksDB's refuse them: there a table keeps
    /// its references' columns and indexes, and a run checks every reference after inserting).
    fn foreign_keys(&self) -> bool {
        true
    }

    /// `FROM orders o JOIN users u ON u.id = o.user_id`, with any hint the engine needs to read
    /// orders first in `(user_id, id)` order.
    fn ordered_join(&self, orders: &str, users: &str) -> String;

    /// `avg(column)` as a floating-point number.
    fn average(&self, column: &str, table: &str) -> String;

    /// A multi-row INSERT of `columns` (name, which key, storage), then a payload if `payload`,
    /// in the form the engine's wire runs (see [`BulkSql`]).
    fn bulk_insert(&self, table: &str, columns: &[(&str, KeyField, Storage)], payload: bool) -> BulkSql;

    /// A DELETE of many rows by `id` stored as `storage`, as the engine's wire runs it.
    fn bulk_delete(&self, table: &str, storage: Storage) -> BulkSql;

    /// Keys per DELETE statement.
    fn keys_per_delete(&self) -> usize;

    /// Starts a transaction.
    fn begin(&self) -> &'static str;

    /// Sets the isolation level of the session's later transactions (MySQL's and MariaDB's
    /// spelling; PostgreSQL overrides it).
    fn set_isolation(&self, level: crate::engines::txn::Isolation) -> String {
        format!("SET SESSION TRANSACTION ISOLATION LEVEL {}", level.sql())
    }

    /// Creates pkbench's own namespace (a PostgreSQL schema, a MySQL database); fails if it
    /// exists, so pkbench never works in one it did not create.
    fn create_namespace(&self, name: &str) -> String;

    /// Drops pkbench's namespace with everything in it.
    fn drop_namespace(&self, name: &str) -> String;

    /// What a namespace is called here (`schema`, `database`).
    fn namespace_word(&self) -> &'static str;

    /// Rebuilds `tables` (comma-separated, qualified) to give free pages back.
    fn compact(&self, tables: &str) -> String;

    /// Why a server of `version` (as it reports it) cannot run `strategy` although the SQL
    /// renders (a key function newer than the server), if it cannot.
    fn version_requirement(&self, strategy: &Strategy, version: &str) -> Option<String>;

    /// `name` quoted as an identifier (standard SQL's double quotes by default).
    fn quote(&self, name: &str) -> String {
        format!("\"{}\"", name.replace('"', "\"\""))
    }

    /// `table` in `namespace`.
    fn qualify(&self, namespace: &str, table: &str) -> String {
        format!("{namespace}.{table}")
    }

    /// The error refusing `strategy` on this engine (naming the flavour where it is one).
    fn unsupported(&self, strategy: &Strategy, reason: String) -> Error {
        let (kind, product) = (self.kind(), self.product());
        let engine = if product == kind.label() { kind.name().into() } else { format!("{} ({product})", kind.name()) };
        Error::Unsupported { strategy: strategy.name.into(), engine, reason }
    }
}

/// The dialect of `kind`.
pub fn of(kind: EngineKind) -> &'static dyn Dialect {
    match kind {
        EngineKind::Sqlite => &super::sqlite::dialect::SqliteDialect,
        // A sharded engine's head takes the same SQL as its shards; the partitioned table is
        // the sharded backend's own.
        EngineKind::Postgres | EngineKind::PostgresFdw => &super::postgres::dialect::PostgresDialect,
        EngineKind::MariaDb | EngineKind::Spider => &super::mariadb::dialect::INNODB,
        EngineKind::MyRocks => &super::myrocks::dialect::ROCKSDB,
    }
}

/// `strategy`'s description on the engine `dialect` spells: the key, then where the rows go.
pub fn describe(dialect: &dyn Dialect, strategy: &Strategy) -> String {
    format!("{}; {}", strategy.description, dialect.layout(strategy))
}

/// The column list `(a, b, …)` with `placeholder`s, as single-row INSERTs write it.
pub fn values_list(dialect: &dyn Dialect, first: usize, count: usize) -> String {
    let marks: Vec<String> = (first..first + count).map(|n| dialect.placeholder(n)).collect();
    marks.join(", ")
}

impl EngineKind {
    /// How this engine spells SQL.
    pub fn dialect(self) -> &'static dyn Dialect {
        of(self)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::strategy::find;

    fn described(kind: EngineKind, name: &str) -> String {
        describe(kind.dialect(), find(name).unwrap())
    }

    #[test]
    fn a_description_says_where_each_engine_puts_the_rows() {
        assert!(described(EngineKind::Sqlite, "int").ends_with("rowid is the integer key: rows in key order"));
        assert!(described(EngineKind::Sqlite, "uuid4").ends_with("SQLite WITHOUT ROWID table: rows in key order"));
        assert!(described(EngineKind::Sqlite, "uuid4-rowid").ends_with("the key in a unique index"));
        for name in ["int", "uuid4", "uuid4-rowid"] {
            let text = described(EngineKind::Postgres, name);
            assert!(
                text.ends_with("PostgreSQL heap table: rows in arrival order, the key in a B-tree primary-key index")
            );
            assert!(!text.contains("WITHOUT ROWID") && !text.contains("SQLite table"), "{text}");
        }
        assert!(
            described(EngineKind::MariaDb, "uuid4")
                .ends_with("InnoDB table clustered by the primary key: rows in key order")
        );
        assert!(
            described(EngineKind::MyRocks, "uuid4")
                .ends_with("RocksDB table: rows in primary-key order in an LSM tree")
        );
    }

    #[test]
    fn no_catalog_description_names_one_engine_s_layout_as_every_engine_s() {
        for s in crate::strategy::CATALOG {
            for word in ["WITHOUT ROWID", "BLOB", "clustered", "TEXT key"] {
                assert!(!s.description.contains(word), "{}: {}", s.name, s.description);
            }
        }
    }
}
