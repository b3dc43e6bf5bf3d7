//! A schema's DDL for one strategy on one engine: the key table's key column becomes the
//! strategy's key (its type, identity or default, and clustering: SQLite `WITHOUT ROWID` for a
//! clustered non-integer key), every column that references it takes the same type, the other
//! columns the engine's type for what they hold, and the indexes and foreign keys are made
//! again. Referenced tables come first.

use crate::Error;
use crate::engines::EngineKind;
use crate::engines::dialect::Dialect;
use crate::engines::sql::primary_key;
use crate::schema::{Schema, Table, ext_column, ext_index};
use crate::strategy::{KeySource, PrimaryIndex, Storage, Strategy};
use crate::values::SqlType;

/// The statements creating `schema` inside `namespace` (ignored by SQLite) for `strategy` as the
/// key of table `key_table`, on `engine`.
pub fn render(
    schema: &Schema,
    key_table: &str,
    strategy: &Strategy,
    engine: EngineKind,
    namespace: &str,
) -> Result<Vec<String>, Error> {
    let dialect = engine.dialect();
    let key = schema.key_table(Some(key_table))?;
    schema.check_types()?;
    let key_column = &key.primary_key[0];
    let key_def = primary_key(dialect, strategy)?;
    // A column holding the key elsewhere: the key's type without its identity or default.
    let key_type = match strategy.primary.source {
        KeySource::EngineAssigned => dialect.bigint(),
        KeySource::Client(_) | KeySource::Server(_) => dialect.key_type(strategy.primary.storage),
    };
    let qualify = |t: &str| qualified(engine, namespace, t);
    let mut out = Vec::new();
    for table in ordered(schema)? {
        let is_key_table = table.name == key.name;
        let references_key = |column: &str| {
            table.foreign_keys.iter().any(|fk| {
                fk.table.eq_ignore_ascii_case(&key.name) && fk.columns.iter().any(|c| c.eq_ignore_ascii_case(column))
            })
        };
        let mut parts = Vec::new();
        for c in &table.columns {
            let name = dialect.quote(&c.name);
            let null = if c.nullable { "" } else { " NOT NULL" };
            if is_key_table && c.name.eq_ignore_ascii_case(key_column) {
                parts.push(format!("{name} {key_def}"));
            } else if references_key(&c.name) {
                parts.push(format!("{name} {key_type}{null}"));
            } else {
                let ty = c.sql_type.map(|t| column_type(engine, t)).unwrap_or_default();
                parts.push(format!("{name} {ty}{null}"));
            }
        }
        if let (true, Some(second)) = (is_key_table, strategy.secondary) {
            parts.push(format!("{} {} NOT NULL", dialect.quote(&ext_column(table)), dialect.key_type(second.storage)));
        }
        if !is_key_table && !table.primary_key.is_empty() {
            parts.push(format!("PRIMARY KEY ({})", quoted(dialect, &table.primary_key)));
        }
        for fk in &table.foreign_keys {
            let parent = schema.table(&fk.table).map_or(fk.table.as_str(), |t| t.name.as_str());
            let referred = match (fk.referred.is_empty(), schema.table(&fk.table)) {
                (true, Some(p)) => p.primary_key.clone(),
                _ => fk.referred.clone(),
            };
            parts.push(format!(
                "FOREIGN KEY ({}) REFERENCES {} ({})",
                quoted(dialect, &fk.columns),
                qualify(parent),
                quoted(dialect, &referred)
            ));
        }
        let options = match engine {
            EngineKind::Sqlite => {
                let clustered =
                    strategy.index == PrimaryIndex::Clustered && strategy.primary.storage != Storage::Integer;
                if is_key_table && clustered { " WITHOUT ROWID" } else { "" }
            }
            EngineKind::MariaDb | EngineKind::Spider => " ENGINE=InnoDB",
            EngineKind::Postgres | EngineKind::PostgresFdw => "",
        };
        out.push(format!("CREATE TABLE {} ({}){options}", qualify(&table.name), parts.join(", ")));
        for (i, index) in table.indexes.iter().enumerate() {
            let unique = if index.unique { "UNIQUE " } else { "" };
            let name = index.name.clone().unwrap_or_else(|| format!("{}_idx{}", table.name, i + 1));
            let columns: Vec<String> = index.columns.iter().map(|c| index_column(engine, dialect, table, c)).collect();
            out.push(format!(
                "CREATE {unique}INDEX {} ON {} ({})",
                dialect.quote(&name),
                qualify(&table.name),
                columns.join(", ")
            ));
        }
        if is_key_table && strategy.secondary.is_some() {
            out.push(format!(
                "CREATE UNIQUE INDEX {} ON {} ({})",
                dialect.quote(&ext_index(table)),
                qualify(&table.name),
                dialect.quote(&ext_column(table))
            ));
        }
    }
    Ok(out)
}

/// Table `t` quoted, in `namespace` on a server (SQLite has one database per case).
pub(super) fn qualified(engine: EngineKind, namespace: &str, t: &str) -> String {
    let dialect = engine.dialect();
    match engine {
        EngineKind::Sqlite => dialect.quote(t),
        EngineKind::Postgres | EngineKind::MariaDb | EngineKind::Spider | EngineKind::PostgresFdw => {
            dialect.qualify(namespace, &dialect.quote(t))
        }
    }
}

fn quoted(dialect: &dyn Dialect, columns: &[String]) -> String {
    columns.iter().map(|c| dialect.quote(c)).collect::<Vec<_>>().join(", ")
}

/// An index column; MySQL indexes unbounded text and bytes by a prefix.
fn index_column(engine: EngineKind, dialect: &dyn Dialect, table: &Table, column: &str) -> String {
    let name = dialect.quote(column);
    let unbounded = table.column(column).and_then(|c| c.sql_type).is_some_and(|t| {
        matches!(t, SqlType::Text { max_chars: None } | SqlType::Binary { max: None } | SqlType::Json)
    });
    let by_prefix = match engine {
        EngineKind::MariaDb | EngineKind::Spider => unbounded,
        EngineKind::Sqlite | EngineKind::Postgres | EngineKind::PostgresFdw => false,
    };
    if by_prefix { format!("{name}(255)") } else { name }
}

/// The tables with every referenced table before the tables referencing it.
fn ordered(schema: &Schema) -> Result<Vec<&Table>, Error> {
    let mut out: Vec<&Table> = Vec::new();
    let mut left: Vec<&Table> = schema.tables.iter().collect();
    while !left.is_empty() {
        let ready = |t: &&Table| {
            t.foreign_keys.iter().all(|fk| {
                fk.table.eq_ignore_ascii_case(&t.name) || out.iter().any(|o| o.name.eq_ignore_ascii_case(&fk.table))
            })
        };
        let Some(i) = left.iter().position(ready) else {
            let names: Vec<&str> = left.iter().map(|t| t.name.as_str()).collect();
            return Err(Error::InvalidInput(format!(
                "line {}: the foreign keys of {} reference each other in a cycle: pkbench fills referenced tables first; drop one of the foreign keys from the file",
                left[0].line,
                names.join(", ")
            )));
        };
        out.push(left.remove(i));
    }
    Ok(out)
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
