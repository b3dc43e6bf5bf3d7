//! A file's indexes on one engine: their names (the file's, else the name the engine would give
//! them, so per-index figures carry the names the user knows) and their definitions — as written
//! on the engine the file is written for, by column elsewhere.

use super::render::{family, quoted};
use crate::engines::EngineKind;
use crate::schema::{Index, Schema, Table};
use crate::values::SqlType;

/// What an index becomes: its SQL and, where it differs from the file's, what changed; or why
/// it is dropped.
pub(super) type IndexSql = Result<(String, Option<String>), String>;

/// The name of `table.indexes[i]` on `engine`: the file's, else the engine's own choice —
/// MariaDB names a key after its first column (`_2`, `_3`, … when taken), PostgreSQL a unique
/// constraint `<table>_<columns>_key` and an index `<table>_<columns>_idx`, SQLite a unique
/// constraint `sqlite_autoindex_<table>_<n>`. Where index names are the whole schema's
/// (PostgreSQL, SQLite) and another table of `schema` has an index of the same name, as MySQL
/// allows, it is prefixed with its table's: `<table>_<name>`.
pub fn index_name(engine: EngineKind, schema: &Schema, table: &Table, i: usize) -> String {
    let name = table_index_name(engine, table, i);
    let shared = family(engine) != EngineKind::MariaDb
        && schema
            .tables
            .iter()
            .filter(|t| t.name != table.name)
            .any(|t| (0..t.indexes.len()).any(|j| table_index_name(engine, t, j).eq_ignore_ascii_case(&name)));
    if shared { format!("{}_{name}", table.name) } else { name }
}

/// The name of `table.indexes[i]` within its table.
fn table_index_name(engine: EngineKind, table: &Table, i: usize) -> String {
    let index = &table.indexes[i];
    if let Some(name) = &index.name {
        return name.clone();
    }
    match family(engine) {
        EngineKind::MariaDb => {
            let first = index.columns.first().cloned().unwrap_or_default();
            let taken = |name: &str| (0..i).any(|j| table_index_name(engine, table, j).eq_ignore_ascii_case(name));
            let mut name = first.clone();
            let mut n = 2;
            while taken(&name) || name.eq_ignore_ascii_case("PRIMARY") {
                name = format!("{first}_{n}");
                n += 1;
            }
            name
        }
        EngineKind::Postgres => {
            let suffix = if index.constraint && index.unique { "key" } else { "idx" };
            format!("{}_{}_{suffix}", table.name, index.columns.join("_"))
        }
        EngineKind::Sqlite => {
            // A primary key that is not the rowid takes the first automatic index.
            let key_index = usize::from(!table.primary_key.is_empty() && !rowid_alias(table));
            let before = table.indexes[..i].iter().filter(|x| x.constraint && x.unique && x.name.is_none()).count();
            format!("sqlite_autoindex_{}_{}", table.name, key_index + before + 1)
        }
        EngineKind::PostgresFdw | EngineKind::Spider | EngineKind::MyRocks => {
            unreachable!("family() maps to a base engine")
        }
    }
}

/// Whether SQLite keeps `table`'s primary key as its rowid (`INTEGER PRIMARY KEY`).
fn rowid_alias(table: &Table) -> bool {
    match table.primary_key.as_slice() {
        [one] => table.column(one).is_some_and(|c| c.declared.eq_ignore_ascii_case("INTEGER")),
        _ => false,
    }
}

/// `table.indexes[i]` inside a CREATE TABLE: MariaDB's `[UNIQUE|FULLTEXT|SPATIAL] KEY name (…)`,
/// or a unique constraint.
pub(super) fn inline_sql(engine: EngineKind, same: bool, schema: &Schema, table: &Table, i: usize) -> IndexSql {
    let index = &table.indexes[i];
    let dialect = engine.dialect();
    let name = dialect.quote(&index_name(engine, schema, table, i));
    let (parts, note) = parts(engine, same, table, index)?;
    Ok(match family(engine) {
        EngineKind::MariaDb => {
            let kind = match (&index.special, index.unique) {
                (Some(special), _) if engine == EngineKind::MyRocks => {
                    return Err(format!("{special} index dropped: RocksDB tables take none"));
                }
                (Some(special), _) if same => format!("{special} KEY"),
                (Some(special), _) => return Err(format!("{special} index dropped: it is another engine's")),
                (None, true) => "UNIQUE KEY".into(),
                (None, false) => "KEY".into(),
            };
            let using = index.using.as_ref().filter(|_| same).map(|u| format!(" USING {u}")).unwrap_or_default();
            (format!("{kind} {name} ({parts}){using}"), note)
        }
        EngineKind::Sqlite if index.name.is_none() => (format!("UNIQUE ({parts})"), note),
        EngineKind::Postgres | EngineKind::Sqlite => (format!("CONSTRAINT {name} UNIQUE ({parts})"), note),
        EngineKind::PostgresFdw | EngineKind::Spider | EngineKind::MyRocks => {
            unreachable!("family() maps to a base engine")
        }
    })
}

/// `table.indexes[i]` as a CREATE INDEX on `qualified_table` (PostgreSQL, SQLite).
pub(super) fn index_sql(
    engine: EngineKind,
    same: bool,
    schema: &Schema,
    table: &Table,
    i: usize,
    qualified_table: &str,
) -> IndexSql {
    let index = &table.indexes[i];
    if let Some(special) = &index.special {
        return Err(format!("{special} index dropped: it is another engine's"));
    }
    if index.predicate.is_some() && !same {
        return Err("partial index dropped: its condition is written for another engine".into());
    }
    let name = engine.dialect().quote(&index_name(engine, schema, table, i));
    let (parts, mut note) = parts(engine, same, table, index)?;
    let unique = if index.unique { "UNIQUE " } else { "" };
    let using = match (&index.using, same, family(engine)) {
        (Some(u), true, EngineKind::Postgres) => format!(" USING {u}"),
        (Some(u), _, _) => {
            note.get_or_insert_with(|| format!("USING {u} dropped: another engine's access method"));
            String::new()
        }
        (None, _, _) => String::new(),
    };
    let predicate = index.predicate.as_ref().map(|p| format!(" WHERE {p}")).unwrap_or_default();
    Ok((format!("CREATE {unique}INDEX {name} ON {qualified_table}{using} ({parts}){predicate}"), note))
}

/// An index's parts: as written on the file's engine; elsewhere its columns by name, MySQL
/// indexing unbounded text and bytes by a 255-character prefix. An expression part on another
/// engine drops the index.
fn parts(engine: EngineKind, same: bool, table: &Table, index: &Index) -> Result<(String, Option<String>), String> {
    if same && index.parts.len() == index.columns.len() {
        return Ok((index.parts.join(", "), None));
    }
    if let Some(expression) = index.columns.iter().find(|c| table.column(c).is_none()) {
        return Err(format!("index on the expression {expression} dropped: it is written for another engine"));
    }
    let dialect = engine.dialect();
    let mut prefixed = false;
    let parts: Vec<String> = index
        .columns
        .iter()
        .map(|c| {
            let name = quoted(dialect, std::slice::from_ref(c));
            let unbounded = table.column(c).and_then(|c| c.sql_type).is_some_and(|t| {
                matches!(t, SqlType::Text { max_chars: None } | SqlType::Binary { max: None } | SqlType::Json)
            });
            if unbounded && family(engine) == EngineKind::MariaDb {
                prefixed = true;
                format!("{name}(255)")
            } else {
                name
            }
        })
        .collect();
    let note = prefixed.then(|| "unbounded columns indexed by their first 255 characters".to_string());
    Ok((parts.join(", "), note))
}
