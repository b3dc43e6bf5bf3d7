//! `pkbench schema FILE`: reads the user's schema file and shows what pkbench makes of it — the
//! table whose key it replaces, the statements it skips, and every table's DDL per strategy on
//! one engine — without touching a database. A bad file gets one line with its line number.

use crate::output::out;
use clap::Args;
use pkbench_core::engines::EngineKind;
use pkbench_core::engines::schema_sql::render_with_changes;
use pkbench_core::schema::{detect_engine, parse};
use pkbench_core::strategy::parse_list;
use pkbench_core::util::input::{InputKind, read_text};
use std::path::PathBuf;
use std::process::ExitCode;

#[derive(Debug, Args)]
pub struct SchemaArgs {
    /// The schema file: CREATE TABLE statements with their indexes and foreign keys
    /// (pg_dump --schema-only, mysqldump --no-data or sqlite3 .schema work as given).
    #[arg(value_name = "FILE.sql")]
    pub file: PathBuf,
    /// The engine whose DDL to show [default: the engine the file is written for]. The file is
    /// read in its own syntax (a mysqldump file as MariaDB's, a pg_dump file as PostgreSQL's;
    /// else this engine's); on another engine each change is listed.
    #[arg(long, value_parser = ["sqlite", "postgres", "mariadb"], ignore_case = true)]
    pub engine: Option<String>,
    /// The table whose primary key each strategy replaces [default: the table the others'
    /// foreign keys reference most].
    #[arg(long)]
    pub table: Option<String>,
    /// Comma-separated strategies.
    #[arg(long, short = 's', default_value = "int,uuid7,uuid4,uuid4-text")]
    pub strategies: String,
}

pub fn schema(args: SchemaArgs) -> anyhow::Result<ExitCode> {
    let text = read_text(&args.file, InputKind::Schema)?;
    let given = args.engine.as_deref().map(EngineKind::parse).transpose()?;
    // The file is read in its own syntax; its DDL is shown for the engine asked for.
    let written_for = detect_engine(&text).or(given).unwrap_or(EngineKind::Postgres);
    let engine = given.unwrap_or(written_for);
    let strategies = parse_list(&args.strategies)?;
    let schema = parse(&text, Some(written_for))?;
    let key = schema.key_table(args.table.as_deref())?;
    schema.check_types()?;
    let mut out = format!(
        "{}: {} written for {}; key table {} (line {}), its key {} replaced by each strategy\n",
        args.file.display(),
        pkbench_core::util::text::count(schema.tables.len(), "table"),
        written_for.label(),
        key.name,
        key.line,
        key.primary_key[0]
    );
    for s in &schema.skipped {
        out.push_str(&format!("skipped line {}: {}\n", s.line, s.what));
    }
    for strategy in strategies {
        out.push_str(&format!("\n-- {} on {engine}\n", strategy.name));
        match render_with_changes(&schema, &key.name, strategy, engine, "pkbench") {
            Ok(rendered) => {
                rendered.changes.iter().for_each(|c| out.push_str(&format!("-- changed: {c}\n")));
                rendered.statements.iter().for_each(|stmt| out.push_str(&format!("{stmt};\n")));
            }
            Err(e) => out.push_str(&format!("-- not available: {e}\n")),
        }
    }
    out!("{out}")?;
    Ok(ExitCode::SUCCESS)
}
