//! `pkbench schema FILE`: reads the user's schema file and shows what pkbench makes of it — the
//! table whose key it replaces, the statements it skips, and every table's DDL per strategy on
//! one engine — without touching a database. A bad file gets one line with its line number.

use crate::output::out;
use clap::Args;
use pkbench_core::engines::EngineKind;
use pkbench_core::engines::schema_sql::render;
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
    /// The engine whose syntax the file is in and whose DDL to show [default: the server whose
    /// dump the file is (mysqldump: mariadb; pg_dump: postgres), else postgres].
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
    let engine = match &args.engine {
        Some(name) => EngineKind::parse(name)?,
        None => detect_engine(&text).unwrap_or(EngineKind::Postgres),
    };
    let strategies = parse_list(&args.strategies)?;
    let schema = parse(&text, Some(engine))?;
    let key = schema.key_table(args.table.as_deref())?;
    schema.check_types()?;
    let mut out = format!(
        "{}: {}; key table {} (line {}), its key {} replaced by each strategy\n",
        args.file.display(),
        pkbench_core::util::text::count(schema.tables.len(), "table"),
        key.name,
        key.line,
        key.primary_key[0]
    );
    for s in &schema.skipped {
        out.push_str(&format!("skipped line {}: {}\n", s.line, s.what));
    }
    for strategy in strategies {
        out.push_str(&format!("\n-- {} on {engine}\n", strategy.name));
        match render(&schema, &key.name, strategy, engine, "pkbench") {
            Ok(ddl) => ddl.iter().for_each(|stmt| out.push_str(&format!("{stmt};\n"))),
            Err(e) => out.push_str(&format!("-- not available: {e}\n")),
        }
    }
    out!("{out}")?;
    Ok(ExitCode::SUCCESS)
}
