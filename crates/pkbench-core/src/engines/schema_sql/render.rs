//! A schema's DDL for one strategy on one engine: the key table's key column becomes the
//! strategy's key (its type, identity or default, and clustering: SQLite `WITHOUT ROWID` for a
//! clustered non-integer key), every column that references it takes the same type, and the
//! rest of the file is kept. On the engine the file is written for, every other definition is
//! kept as written — types, defaults, `ON UPDATE`, character sets and collations, `CHECK`s,
//! generated columns, index and constraint names, index parts and kinds, foreign-key actions,
//! table options. On another engine each column takes the engine's type for what it holds, and
//! what cannot carry over is dropped. Either way every change is listed ([`Change`]), and
//! referenced tables come first.

use super::indexes::{index_name, index_sql};
use crate::Error;
use crate::engines::EngineKind;
use crate::engines::dialect::Dialect;
use crate::engines::sql::primary_key;
use crate::schema::{Column, ForeignKey, Schema, Table, ext_column, ext_index};
use crate::strategy::{KeySource, PrimaryIndex, Storage, Strategy};
use crate::values::SqlType;
use serde::{Deserialize, Serialize};

/// One way the table pkbench creates differs from the file's.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Change {
    /// The table.
    pub table: String,
    /// The column, index or constraint concerned (the table's name for a table option).
    pub subject: String,
    /// What changed, from what to what, and why.
    pub what: String,
}

impl std::fmt::Display for Change {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        if self.subject == self.table {
            write!(f, "{}: {}", self.table, self.what)
        } else {
            write!(f, "{}.{}: {}", self.table, self.subject, self.what)
        }
    }
}

/// The DDL of a schema for one strategy, with every change from the file.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Rendered {
    /// The statements, referenced tables first.
    pub statements: Vec<String>,
    /// How the tables differ from the file's, in statement order.
    pub changes: Vec<Change>,
    /// The foreign keys that close a cycle, added once every table exists (and, in a run, once
    /// the referenced tables are filled). SQLite, which cannot add one later, declares them with
    /// the table.
    pub deferred: Vec<String>,
}

/// The statements creating `schema` inside `namespace` (ignored by SQLite) for `strategy` as the
/// key of table `key_table`, on `engine`.
pub fn render(
    schema: &Schema,
    key_table: &str,
    strategy: &Strategy,
    engine: EngineKind,
    namespace: &str,
) -> Result<Vec<String>, Error> {
    let rendered = render_with_changes(schema, key_table, strategy, engine, namespace)?;
    Ok(rendered.statements.into_iter().chain(rendered.deferred).collect())
}

/// [`render()`], with the list of what differs from the file.
pub fn render_with_changes(
    schema: &Schema,
    key_table: &str,
    strategy: &Strategy,
    engine: EngineKind,
    namespace: &str,
) -> Result<Rendered, Error> {
    let dialect = engine.dialect();
    let key = schema.key_table(Some(key_table))?;
    schema.check_types()?;
    let key_def = primary_key(dialect, strategy)?;
    // A column holding the key elsewhere: the key's type without its identity or default.
    let key_type = match strategy.primary.source {
        KeySource::EngineAssigned => dialect.bigint(),
        KeySource::Client(_) | KeySource::Server(_) => dialect.key_type(strategy.primary.storage),
    };
    let mut r = Renderer {
        schema,
        key,
        strategy,
        engine,
        dialect,
        namespace,
        same: schema.dialect.is_some_and(|d| family(d) == family(engine)),
        key_def,
        key_type: key_type.to_string(),
        out: Rendered { statements: Vec::new(), changes: Vec::new(), deferred: Vec::new() },
    };
    let mut deferred = Vec::new();
    let tables = ordered(schema, &mut deferred);
    if engine == EngineKind::Sqlite || !dialect.foreign_keys() {
        deferred.clear();
    }
    for table in tables {
        r.table(table, &deferred);
    }
    for (table, fk) in deferred {
        let add = format!("ALTER TABLE {} ADD {}", r.qualify(&table.name), r.foreign_key(fk));
        r.out.deferred.push(add);
    }
    Ok(r.out)
}

/// An engine's family: the syntax its files are written in.
pub(super) fn family(engine: EngineKind) -> EngineKind {
    match engine {
        EngineKind::Sqlite => EngineKind::Sqlite,
        EngineKind::Postgres | EngineKind::PostgresFdw => EngineKind::Postgres,
        EngineKind::MariaDb | EngineKind::Spider | EngineKind::MyRocks => EngineKind::MariaDb,
    }
}

/// One rendering in progress.
struct Renderer<'a> {
    schema: &'a Schema,
    key: &'a Table,
    strategy: &'a Strategy,
    engine: EngineKind,
    dialect: &'static dyn Dialect,
    namespace: &'a str,
    /// Whether the file is written for this engine's family: definitions are kept as written.
    same: bool,
    key_def: String,
    key_type: String,
    out: Rendered,
}

impl Renderer<'_> {
    fn change(&mut self, table: &Table, subject: &str, what: String) {
        self.out.changes.push(Change { table: table.name.clone(), subject: subject.to_string(), what });
    }

    fn qualify(&self, t: &str) -> String {
        qualified(self.engine, self.namespace, t)
    }

    fn is_key_table(&self, table: &Table) -> bool {
        table.name == self.key.name
    }

    /// Whether `column` of `table` references the key table's key.
    fn references_key(&self, table: &Table, column: &str) -> bool {
        table.foreign_keys.iter().any(|fk| {
            fk.table.eq_ignore_ascii_case(&self.key.name) && fk.columns.iter().any(|c| c.eq_ignore_ascii_case(column))
        })
    }

    fn table(&mut self, table: &Table, deferred: &[(&Table, &ForeignKey)]) {
        let is_key_table = self.is_key_table(table);
        let mut parts: Vec<String> = Vec::new();
        for c in &table.columns {
            let def = self.column(table, c);
            parts.push(format!("{} {def}", self.dialect.quote(&c.name)));
        }
        if let (true, Some(second)) = (is_key_table, self.strategy.secondary) {
            let name = ext_column(table);
            parts.push(format!("{} {} NOT NULL", self.dialect.quote(&name), self.dialect.key_type(second.storage)));
            self.change(table, &name, "added: the strategy's second key".into());
        }
        if is_key_table {
            self.key_constraint_name(table);
        } else if !table.primary_key.is_empty() {
            let name = match (&table.primary_key_name, self.same) {
                (Some(n), true) => format!("CONSTRAINT {} ", self.dialect.quote(n)),
                _ => String::new(),
            };
            parts.push(format!("{name}PRIMARY KEY ({})", quoted(self.dialect, &table.primary_key)));
        }
        parts.extend(self.inline_indexes(table));
        for fk in &table.foreign_keys {
            if !self.dialect.foreign_keys() {
                self.dropped_foreign_key(table, fk);
            } else if !deferred.iter().any(|(_, d)| std::ptr::eq(*d, fk)) {
                parts.push(self.foreign_key(fk));
            }
        }
        for check in &table.checks {
            if self.same {
                parts.push(check.clone());
            } else {
                self.change(table, &table.name, format!("{check} dropped: it is written for another engine"));
            }
        }
        for (i, index) in table.indexes.iter().enumerate() {
            let name = index_name(self.engine, self.schema, table, i);
            if let Some(given) = index.name.as_ref().filter(|given| **given != name) {
                let why =
                    format!("index {given} → {name} (another table's index has its name; here names are the schema's)");
                self.change(table, given, why);
            }
        }
        let options = self.table_options(table);
        self.out.statements.push(format!("CREATE TABLE {} ({}){options}", self.qualify(&table.name), parts.join(", ")));
        for (i, index) in table.indexes.iter().enumerate() {
            if self.inline(index) {
                continue;
            }
            match index_sql(self.engine, self.same, self.schema, table, i, &self.qualify(&table.name)) {
                Ok((sql, note)) => {
                    self.out.statements.push(sql);
                    if let Some(note) = note {
                        self.change(table, &index_name(self.engine, self.schema, table, i), note);
                    }
                }
                Err(why) => {
                    let name = index_name(self.engine, self.schema, table, i);
                    self.change(table, &name, why);
                }
            }
        }
        if is_key_table && self.strategy.secondary.is_some() {
            self.out.statements.push(format!(
                "CREATE UNIQUE INDEX {} ON {} ({})",
                self.dialect.quote(&ext_index(table)),
                self.qualify(&table.name),
                self.dialect.quote(&ext_column(table))
            ));
        }
    }

    /// A column's definition after its name.
    fn column(&mut self, table: &Table, c: &Column) -> String {
        let written = written(c);
        if self.is_key_table(table) && table.primary_key.first().is_some_and(|k| k.eq_ignore_ascii_case(&c.name)) {
            let def = self.key_def.clone();
            self.change(table, &c.name, format!("{written} → {def} (the strategy's key)"));
            return def;
        }
        if self.references_key(table, &c.name) {
            // Keeps whether it may be NULL and its comment; a default of the old key's type would not fit.
            let kept: Vec<&String> = c.options.iter().filter(|o| nullness_or_comment(o)).collect();
            let mut def = self.key_type.clone();
            if !self.same || kept.is_empty() {
                def.push_str(if c.nullable { "" } else { " NOT NULL" });
            } else {
                kept.iter().for_each(|o| def.push_str(&format!(" {o}")));
            }
            self.change(table, &c.name, format!("{written} → {def} (references the key)"));
            return def;
        }
        if self.same {
            return self.as_written(table, c);
        }
        let ty = c.sql_type.map(|t| column_type(self.engine, t)).unwrap_or_default();
        let def = format!("{ty}{}", if c.nullable || c.generated { "" } else { " NOT NULL" });
        if !written.eq_ignore_ascii_case(&def) {
            let why = if c.generated {
                "its generating expression is another engine's; pkbench fills it"
            } else {
                "the engine's type for what it holds"
            };
            self.change(table, &c.name, format!("{written} → {def} ({why})"));
        }
        def
    }

    /// A column on the engine its file is written for: as written, but an identity the engine
    /// always assigns becomes one pkbench may fill (a referenced table's key holds row numbers).
    fn as_written(&mut self, table: &Table, c: &Column) -> String {
        let mut options = Vec::new();
        for o in &c.options {
            let upper = o.to_ascii_uppercase();
            if upper.starts_with("GENERATED ALWAYS AS IDENTITY") {
                let by_default = format!("GENERATED BY DEFAULT{}", &o["GENERATED ALWAYS".len()..]);
                self.change(table, &c.name, format!("{o} → {by_default} (pkbench writes its values)"));
                options.push(by_default);
            } else {
                options.push(o.clone());
            }
        }
        std::iter::once(c.declared.clone()).chain(options).collect::<Vec<_>>().join(" ")
    }

    /// The key table's primary key is the strategy's, under the engine's default name.
    fn key_constraint_name(&mut self, table: &Table) {
        let default = format!("{}_pkey", table.name);
        let named_otherwise = match self.engine {
            EngineKind::Postgres | EngineKind::PostgresFdw => {
                table.primary_key_name.as_ref().is_some_and(|n| *n != default)
            }
            // MySQL's primary key is always PRIMARY; SQLite keeps no name.
            EngineKind::MariaDb | EngineKind::Spider | EngineKind::MyRocks | EngineKind::Sqlite => false,
        };
        if named_otherwise {
            let name = table.primary_key_name.clone().unwrap_or_default();
            self.change(table, &name, format!("primary key constraint {name} → {default} (the strategy's key)"));
        }
    }

    /// Whether `index` goes inside the CREATE TABLE: every index on MariaDB (so a foreign key
    /// finds its index rather than making one); unique constraints elsewhere.
    fn inline(&self, index: &crate::schema::Index) -> bool {
        match self.engine {
            EngineKind::MariaDb | EngineKind::Spider | EngineKind::MyRocks => true,
            EngineKind::Postgres | EngineKind::PostgresFdw | EngineKind::Sqlite => {
                index.constraint && index.unique && index.special.is_none()
            }
        }
    }

    fn inline_indexes(&mut self, table: &Table) -> Vec<String> {
        let mut parts = Vec::new();
        for (i, index) in table.indexes.iter().enumerate() {
            if !self.inline(index) {
                continue;
            }
            match super::indexes::inline_sql(self.engine, self.same, self.schema, table, i) {
                Ok((sql, note)) => {
                    parts.push(sql);
                    if let Some(note) = note {
                        self.change(table, &index_name(self.engine, self.schema, table, i), note);
                    }
                }
                Err(why) => {
                    let name = index_name(self.engine, self.schema, table, i);
                    self.change(table, &name, why);
                }
            }
        }
        parts
    }

    fn foreign_key(&self, fk: &ForeignKey) -> String {
        let parent = self.schema.table(&fk.table).map_or(fk.table.as_str(), |t| t.name.as_str());
        let referred = match (fk.referred.is_empty(), self.schema.table(&fk.table)) {
            (true, Some(p)) => p.primary_key.clone(),
            _ => fk.referred.clone(),
        };
        let name = fk.name.as_ref().map(|n| format!("CONSTRAINT {} ", self.dialect.quote(n))).unwrap_or_default();
        let actions = if fk.actions.is_empty() { String::new() } else { format!(" {}", fk.actions) };
        format!(
            "{name}FOREIGN KEY ({}) REFERENCES {} ({}){actions}",
            quoted(self.dialect, &fk.columns),
            self.qualify(parent),
            quoted(self.dialect, &referred)
        )
    }

    /// Notes a foreign key the engine's tables refuse: its columns and indexes stay.
    fn dropped_foreign_key(&mut self, table: &Table, fk: &ForeignKey) {
        let what = format!(
            "foreign key ({}) → {} dropped: {} tables take none (its columns and indexes stay; the run checks every reference after inserting)",
            fk.columns.join(", "),
            fk.table,
            self.dialect.product()
        );
        self.change(table, &fk.columns.join(", "), what);
    }

    fn table_options(&mut self, table: &Table) -> String {
        match self.engine {
            EngineKind::Sqlite => {
                let clustered =
                    self.strategy.index == PrimaryIndex::Clustered && self.strategy.primary.storage != Storage::Integer;
                if self.is_key_table(table) && clustered { " WITHOUT ROWID".into() } else { String::new() }
            }
            EngineKind::MariaDb | EngineKind::Spider | EngineKind::MyRocks => {
                let measured = if self.engine == EngineKind::MyRocks { "ROCKSDB" } else { "InnoDB" };
                if let Some(other) = table.storage_engine.as_deref().filter(|e| !e.eq_ignore_ascii_case(measured)) {
                    self.change(
                        table,
                        &table.name,
                        format!("ENGINE={other} → {measured} (the engine pkbench measures)"),
                    );
                }
                let kept = if self.same { table.options.clone() } else { Vec::new() };
                self.dropped_options(table);
                std::iter::once(format!(" ENGINE={measured}")).chain(kept).collect::<Vec<_>>().join(" ")
            }
            EngineKind::Postgres | EngineKind::PostgresFdw => {
                self.dropped_options(table);
                String::new()
            }
        }
    }

    fn dropped_options(&mut self, table: &Table) {
        if !self.same && !table.options.is_empty() {
            let options = table.options.join(" ");
            self.change(table, &table.name, format!("table options {options} dropped: they are another engine's"));
        }
    }
}

/// A column's type and options as the file writes them.
fn written(c: &Column) -> String {
    std::iter::once(c.declared.as_str()).chain(c.options.iter().map(String::as_str)).collect::<Vec<_>>().join(" ")
}

/// Whether a column option says only whether it may be NULL, or is its comment.
fn nullness_or_comment(option: &str) -> bool {
    let upper = option.to_ascii_uppercase();
    upper == "NOT NULL" || upper == "NULL" || upper.starts_with("COMMENT ")
}

/// Table `t` quoted, in `namespace` on a server (SQLite has one database per case).
pub(super) fn qualified(engine: EngineKind, namespace: &str, t: &str) -> String {
    let dialect = engine.dialect();
    match engine {
        EngineKind::Sqlite => dialect.quote(t),
        EngineKind::Postgres
        | EngineKind::MariaDb
        | EngineKind::Spider
        | EngineKind::PostgresFdw
        | EngineKind::MyRocks => dialect.qualify(namespace, &dialect.quote(t)),
    }
}

pub(super) fn quoted(dialect: &dyn Dialect, columns: &[String]) -> String {
    columns.iter().map(|c| dialect.quote(c)).collect::<Vec<_>>().join(", ")
}

/// The tables with every referenced table before the tables referencing it. Where foreign keys
/// reference each other in a cycle, the next table of the file goes first and its foreign keys
/// to tables not made yet are `deferred`: added once every table exists.
fn ordered<'a>(schema: &'a Schema, deferred: &mut Vec<(&'a Table, &'a ForeignKey)>) -> Vec<&'a Table> {
    let mut out: Vec<&Table> = Vec::new();
    let mut left: Vec<&Table> = schema.tables.iter().collect();
    let made = |out: &[&Table], name: &str| out.iter().any(|o| o.name.eq_ignore_ascii_case(name));
    while !left.is_empty() {
        let ready = |t: &&Table| {
            t.foreign_keys.iter().all(|fk| fk.table.eq_ignore_ascii_case(&t.name) || made(&out, &fk.table))
        };
        let i = left.iter().position(ready).unwrap_or(0);
        let table = left.remove(i);
        for fk in &table.foreign_keys {
            if !fk.table.eq_ignore_ascii_case(&table.name) && !made(&out, &fk.table) {
                deferred.push((table, fk));
            }
        }
        out.push(table);
    }
    out
}

/// The engine's column type for values of `ty`.
pub fn column_type(engine: EngineKind, ty: SqlType) -> String {
    let pg = matches!(engine, EngineKind::Postgres | EngineKind::PostgresFdw);
    let my = matches!(engine, EngineKind::MariaDb | EngineKind::Spider);
    match ty {
        SqlType::Integer(1 | 2) if !matches!(engine, EngineKind::Sqlite) => "SMALLINT".into(),
        SqlType::Integer(3 | 4) if !matches!(engine, EngineKind::Sqlite) => "INTEGER".into(),
        SqlType::Integer(_) if !matches!(engine, EngineKind::Sqlite) => "BIGINT".into(),
        SqlType::Integer(_) => "INTEGER".into(),
        SqlType::Decimal { precision, scale } => format!("DECIMAL({precision},{scale})"),
        SqlType::Float if pg => "DOUBLE PRECISION".into(),
        SqlType::Float if my => "DOUBLE".into(),
        SqlType::Float => "REAL".into(),
        SqlType::Text { max_chars: Some(n) } if !matches!(engine, EngineKind::Sqlite) => format!("VARCHAR({n})"),
        SqlType::Text { .. } => "TEXT".into(),
        SqlType::Binary { max: Some(n) } if my => format!("VARBINARY({n})"),
        SqlType::Binary { .. } if pg => "BYTEA".into(),
        SqlType::Binary { .. } => "BLOB".into(),
        SqlType::Uuid if pg => "UUID".into(),
        SqlType::Uuid if my => "BINARY(16)".into(),
        SqlType::Uuid => "BLOB".into(),
        SqlType::Bool if pg => "BOOLEAN".into(),
        SqlType::Bool => "SMALLINT".into(),
        SqlType::Date => "DATE".into(),
        SqlType::Timestamp if pg => "TIMESTAMP".into(),
        SqlType::Timestamp if my => "DATETIME(6)".into(),
        SqlType::Timestamp => "TEXT".into(),
        SqlType::Json if pg => "JSONB".into(),
        SqlType::Json if my => "JSON".into(),
        SqlType::Json => "TEXT".into(),
    }
}
