//! The table advise answers for, as it reads it: a typical table, the user's schema file, or
//! an existing table (a SQLite file, or a PostgreSQL or MariaDB URL) read as `doctor` reads it
//! — its definition and value shapes (lengths, NULL shares, distinct counts, never a row's
//! values), its rows today and the scheme of its current key.

use super::references::Reference;
use crate::Error;
use crate::doctor::export::{self, EXPORT_SAMPLE_ROWS, ExportedTable};
use crate::doctor::{DoctorOptions, DoctorReport, KeyScheme, KeyStorage, Layout, TableReport};
use crate::engines::EngineKind;
use crate::engines::server::redact_url;
use crate::engines::wire::connect::ConnectOptions;
use crate::util::folder::write_atomically;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// A typical table of a new application: two integer columns, a timestamp and a short text
/// beside its key (the key column is replaced by each candidate's).
pub const TYPICAL_TABLE_SQL: &str = "\
-- A typical table: two integer columns, a timestamp and a short text beside the key.
CREATE TABLE events (
    id BIGINT NOT NULL PRIMARY KEY,
    account_id BIGINT NOT NULL,
    kind INTEGER NOT NULL,
    created_at TIMESTAMP NOT NULL,
    note VARCHAR(40)
);
";

/// Where the table comes from.
#[derive(Clone, Debug, PartialEq)]
pub enum TableSource {
    /// No input: [`TYPICAL_TABLE_SQL`].
    Typical,
    /// `--schema FILE --table T` (and `--values FILE`), as `run --schema` reads them.
    SchemaFile {
        /// The schema file.
        file: PathBuf,
        /// The table whose key the candidates replace (default: the one the others reference).
        table: Option<String>,
        /// Per-column value settings.
        values: Option<PathBuf>,
    },
    /// A SQLite file or a server URL, and the table there: read-only, as `doctor` reads it.
    Existing {
        /// The file path or URL.
        target: String,
        /// The table.
        table: String,
        /// PostgreSQL schema or MariaDB database (default: every non-system one).
        schema: Option<String>,
        /// How to reach a server.
        connect: ConnectOptions,
    },
}

/// The key a table has today, as doctor reads its values.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct CurrentKey {
    /// The key column.
    pub column: String,
    /// Its declared type.
    pub declared_type: String,
    /// The scheme its values follow, in words (e.g. `random UUIDv4`).
    pub scheme: String,
    /// Doctor's evidence line.
    pub evidence: String,
    /// The pkbench strategy that inserts such keys, where one does.
    pub strategy: Option<String>,
}

/// What advise knows of the table before it forecasts.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct TableProfile {
    /// Where it was read, in words (a URL without its password).
    pub source: String,
    /// The table's name.
    pub table: String,
    /// The engine it lives on (or the one asked for a file or a typical table).
    pub engine: String,
    /// The server's or SQLite file's engine version, where one was read.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub engine_version: Option<String>,
    /// Rows today (0 for a schema file or a typical table).
    pub rows_now: u64,
    /// `rows_now` is the server's catalog estimate.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub rows_estimated: bool,
    /// The key today, where the table has rows to read.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub current_key: Option<CurrentKey>,
    /// The schema file the forecast reads (the user's, or one advise wrote: the typical table,
    /// or the existing table's definition with its value statistics).
    pub schema_file: PathBuf,
    /// The values file beside it, if any.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub values_file: Option<PathBuf>,
    /// How the existing server kept the session read-only, as it reported it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub read_only: Option<String>,
    /// The existing server's page cache, bytes.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cache_bytes: Option<u64>,
    /// Doctor's migration script for the existing table, where doctor advises something for it
    /// (written from its report, never run). advice.json carries it as the answer's own field.
    #[serde(skip)]
    pub migration_sql: Option<String>,
    /// Rows today of each table read beside it (the tables around it), by name: the server's
    /// estimate, SQLite's count.
    #[serde(skip)]
    pub table_rows: BTreeMap<String, u64>,
    /// The columns of other tables that hold its key (filled in once the schema's key table is
    /// known).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub references: Vec<Reference>,
    /// Why the tables referencing a SQLite file's table were left out of its definition, if
    /// they were.
    #[serde(skip)]
    pub children_left_out: Option<String>,
}

impl TableSource {
    /// Reads the table into a profile; files advise writes (the typical table's schema, an
    /// existing table's definition and value statistics) go into `dir`.
    pub fn read(&self, engine: EngineKind, dir: &Path) -> Result<TableProfile, Error> {
        match self {
            TableSource::Typical => {
                let file = dir.join("typical-table.sql");
                write_atomically(&file, TYPICAL_TABLE_SQL.as_bytes())?;
                Ok(TableProfile {
                    source: "a typical table".into(),
                    table: "events".into(),
                    engine: engine.name().into(),
                    engine_version: None,
                    rows_now: 0,
                    rows_estimated: false,
                    current_key: None,
                    schema_file: file,
                    values_file: None,
                    read_only: None,
                    cache_bytes: None,
                    migration_sql: None,
                    table_rows: BTreeMap::new(),
                    references: Vec::new(),
                    children_left_out: None,
                })
            }
            TableSource::SchemaFile { file, table, values } => Ok(TableProfile {
                source: format!("the schema file {}", file.display()),
                table: table.clone().unwrap_or_default(),
                engine: engine.name().into(),
                engine_version: None,
                rows_now: 0,
                rows_estimated: false,
                current_key: None,
                schema_file: file.clone(),
                values_file: values.clone(),
                read_only: None,
                cache_bytes: None,
                migration_sql: None,
                table_rows: BTreeMap::new(),
                references: Vec::new(),
                children_left_out: None,
            }),
            TableSource::Existing { target, table, schema, connect } => {
                read_existing(target, table, schema, connect, dir)
            }
        }
    }
}

/// Doctor's reading of one table, and its definition with value statistics written to `dir`.
fn read_existing(
    target: &str,
    table: &str,
    schema: &Option<String>,
    connect: &ConnectOptions,
    dir: &Path,
) -> Result<TableProfile, Error> {
    let shown = redact_url(target);
    let options = DoctorOptions {
        table: Some(table.to_string()),
        schema: schema.clone(),
        connect: connect.clone(),
        ..DoctorOptions::default()
    };
    let report = match crate::doctor::diagnose_target(target, &options) {
        Err(Error::NotFound(_)) => return Err(no_such_table(table, &shown)),
        other => other?,
    };
    let found = the_table(&report, table, &shown)?;
    let current_key = current_key(found, table)?;
    // Doctor's script for the table, where doctor advises something for it.
    let migration_sql = if found.advice.is_empty() {
        None
    } else {
        let mut one = report.clone();
        one.tables.retain(|t| t.name.eq_ignore_ascii_case(table));
        Some(crate::doctor::migration_sql_for(target, &one)?)
    };
    let schema_file = dir.join(format!("{table}.sql"));
    let mut children_left_out = None;
    let (values_file, tables) = match crate::doctor::target_kind(target)? {
        EngineKind::Sqlite => {
            let written =
                |tables: &[(String, String)]| -> String { tables.iter().map(|(_, sql)| format!("{sql};\n")).collect() };
            let mut tables = sqlite_definition(target, table, true)?;
            // Tables around it that do not read as a schema file (a foreign key to a table the
            // file lacks, a statement the parser does not take) leave the table and its parents.
            let reads = crate::schema::parse(&written(&tables), Some(EngineKind::Sqlite)).and_then(|s| s.check());
            if let Err(e) = reads {
                tables = sqlite_definition(target, table, false)?;
                children_left_out = Some(e.to_string());
            }
            write_atomically(&schema_file, written(&tables).as_bytes())?;
            let names: Vec<String> = tables.into_iter().map(|(name, _)| name).collect();
            sqlite_values(target, table, &names, &schema_file)?
        }
        EngineKind::Postgres
        | EngineKind::MariaDb
        | EngineKind::Spider
        | EngineKind::PostgresFdw
        | EngineKind::MyRocks => {
            let (engine, version, tables) =
                crate::doctor::export_target(target, schema.as_deref(), table, EXPORT_SAMPLE_ROWS, connect)?;
            let values_file = schema_file.with_extension("values.toml");
            let values_name = values_file.file_name().map_or_else(String::new, |n| n.to_string_lossy().into_owned());
            let files = export::render(engine, &version, table, &tables, &values_name)?;
            write_atomically(&schema_file, files.schema.as_bytes())?;
            write_atomically(&values_file, files.values.as_bytes())?;
            (values_file, tables)
        }
    };
    let table_rows = tables.iter().filter_map(|t| t.rows_estimate.map(|n| (t.name.clone(), n))).collect();
    Ok(TableProfile {
        source: shown,
        table: table.to_string(),
        engine: report.engine.clone(),
        engine_version: Some(report.engine_version.clone()),
        rows_now: found.rows,
        rows_estimated: found.rows_estimated,
        current_key: Some(current_key),
        schema_file,
        values_file: Some(values_file),
        read_only: report.read_only.clone(),
        cache_bytes: report.cache_bytes,
        migration_sql,
        table_rows,
        references: Vec::new(),
        children_left_out,
    })
}

/// The report's entry for `table`, or a line saying it is not there.
fn the_table<'r>(report: &'r DoctorReport, table: &str, shown: &str) -> Result<&'r TableReport, Error> {
    report.tables.iter().find(|t| t.name.eq_ignore_ascii_case(table)).ok_or_else(|| no_such_table(table, shown))
}

/// A table that is not there (or that this login cannot read).
fn no_such_table(table: &str, shown: &str) -> Error {
    Error::InvalidInput(format!(
        "there is no table '{table}' in '{shown}' that this login can read: check --table (pkbench doctor {shown} lists the tables)"
    ))
}

/// A SQLite table's definition as written (its `CREATE TABLE` and `CREATE INDEX`es), and those
/// of the tables around it (the tables its foreign keys reference, with `children` the tables
/// referencing it, and theirs, referenced tables first, as doctor exports a server's), from
/// `sqlite_master`, read-only: (name, definition) of each, never rows.
#[cfg(feature = "sqlite")]
fn sqlite_definition(path: &str, table: &str, children: bool) -> Result<Vec<(String, String)>, Error> {
    let conn = crate::doctor::open_read_only(Path::new(path))?;
    let read = |e: rusqlite::Error| Error::UnexpectedResponse(format!("could not read the schema of '{path}': {e}"));
    let names = |sql: &str, name: &str| -> Result<Vec<String>, Error> {
        let mut statement = conn.prepare(sql).map_err(read)?;
        let rows = statement.query_map([name], |r| r.get::<_, String>(0)).map_err(read)?;
        rows.collect::<Result<_, _>>().map_err(read)
    };
    let mut parents = |t: &str| {
        names("SELECT DISTINCT \"table\" FROM pragma_foreign_key_list(?1) WHERE \"table\" <> ?1 COLLATE NOCASE", t)
    };
    let children = match children {
        false => Vec::new(),
        true => names(
            "SELECT m.name FROM sqlite_master m WHERE m.type = 'table' AND m.name <> ?1 COLLATE NOCASE \
         AND EXISTS (SELECT 1 FROM pragma_foreign_key_list(m.name) f WHERE f.\"table\" = ?1 COLLATE NOCASE) ORDER BY 1",
            table,
        )?,
    };
    let mut tables: Vec<(String, String)> = Vec::new();
    for name in crate::doctor::export::around(table, &mut parents, children)? {
        use rusqlite::OptionalExtension;
        let found: Option<(String, String)> = conn
            .query_row(
                "SELECT name, sql FROM sqlite_master WHERE type = 'table' AND name = ?1 COLLATE NOCASE",
                [&name],
                |r| Ok((r.get(0)?, r.get(1)?)),
            )
            .optional()
            .map_err(read)?;
        let Some((name, sql)) = found.filter(|f| !tables.iter().any(|t| t.0 == f.0)) else { continue };
        // Its indexes, as written (an index made for a constraint has no statement of its own).
        let indexes = names(
            "SELECT sql FROM sqlite_master WHERE type = 'index' AND tbl_name = ?1 AND sql IS NOT NULL ORDER BY name",
            &name,
        )?;
        let definition = std::iter::once(sql).chain(indexes).collect::<Vec<_>>().join(";\n");
        tables.push((name, definition));
    }
    Ok(tables)
}

/// The values file of `tables` (the key table `table` and the tables around it) in the SQLite
/// file at `path`, written beside `schema_file`: their columns' value lengths, NULL shares and
/// distinct counts from a bounded sample, and their rows, as doctor exports a server's; and the
/// tables as read.
#[cfg(feature = "sqlite")]
fn sqlite_values(
    path: &str,
    table: &str,
    tables: &[String],
    schema_file: &Path,
) -> Result<(PathBuf, Vec<ExportedTable>), Error> {
    let (version, exported) = crate::doctor::sqlite::export::export(Path::new(path), tables, EXPORT_SAMPLE_ROWS)?;
    let values_file = schema_file.with_extension("values.toml");
    let values_name = values_file.file_name().map_or_else(String::new, |n| n.to_string_lossy().into_owned());
    let files = export::render(EngineKind::Sqlite, &version, table, &exported, &values_name)?;
    write_atomically(&values_file, files.values.as_bytes())?;
    Ok((values_file, exported))
}

/// A build without SQLite reads no SQLite file.
#[cfg(not(feature = "sqlite"))]
fn sqlite_definition(path: &str, _table: &str, _children: bool) -> Result<Vec<(String, String)>, Error> {
    Err(Error::InvalidInput(format!(
        "this build of pkbench reads no SQLite file ('{path}'): build it with the sqlite feature"
    )))
}

/// A build without SQLite reads no SQLite file.
#[cfg(not(feature = "sqlite"))]
fn sqlite_values(
    path: &str,
    _table: &str,
    _tables: &[String],
    _schema_file: &Path,
) -> Result<(PathBuf, Vec<ExportedTable>), Error> {
    sqlite_definition(path, "", false).map(|_| (PathBuf::new(), Vec::new()))
}

/// The table's single-column primary key, as doctor sampled it; refuses a table without one
/// and a composite key, which no candidate replaces.
fn current_key(table: &TableReport, name: &str) -> Result<CurrentKey, Error> {
    let Some(key) = &table.primary_key else {
        return Err(Error::InvalidInput(format!(
            "table '{name}' has no primary key: advise compares keys for a table that has one (pkbench doctor shows how its rows are stored)"
        )));
    };
    if key.columns.len() != 1 {
        return Err(Error::InvalidInput(format!(
            "table '{name}' has a composite primary key ({}): advise compares single-column keys; give --schema with the key you consider",
            key.columns.join(", ")
        )));
    }
    let (scheme, evidence, strategy) = match &key.scheme {
        Some(s) => (s.scheme.label().to_string(), s.evidence.clone(), strategy_for(s.scheme, s.storage, table.layout)),
        None => ("not sampled (the table is empty)".into(), String::new(), None),
    };
    Ok(CurrentKey {
        column: key.columns[0].clone(),
        declared_type: key.declared_type.clone(),
        scheme,
        evidence,
        strategy: strategy.map(String::from),
    })
}

/// The strategy that inserts keys of `scheme` stored as `storage` in a table laid out as
/// `layout`, where pkbench has one.
pub fn strategy_for(scheme: KeyScheme, storage: KeyStorage, layout: Layout) -> Option<&'static str> {
    let text = matches!(storage, KeyStorage::Text36 | KeyStorage::Text32 | KeyStorage::OtherText);
    let heap = layout == Layout::RowidWithKeyIndex;
    Some(match scheme {
        KeyScheme::Sequence => "int",
        KeyScheme::RandomInteger => "masked-int",
        KeyScheme::Snowflake => "snowflake",
        KeyScheme::UuidV4 if text => "uuid4-text",
        KeyScheme::UuidV4 if heap => "uuid4-rowid",
        KeyScheme::UuidV4 => "uuid4",
        KeyScheme::UuidV7 if text => "uuid7-text",
        KeyScheme::UuidV7 if heap => "uuid7-rowid",
        KeyScheme::UuidV7 => "uuid7",
        KeyScheme::UuidV1 if text => "uuid1-text",
        KeyScheme::UuidV1 => "uuid1",
        KeyScheme::UuidV6 if text => "uuid6-text",
        KeyScheme::UuidV6 => "uuid6",
        KeyScheme::Ulid if storage == KeyStorage::Text26 => "ulid-text",
        KeyScheme::Ulid => "ulid",
        KeyScheme::UuidOther | KeyScheme::Other128 | KeyScheme::Unknown => return None,
    })
}
