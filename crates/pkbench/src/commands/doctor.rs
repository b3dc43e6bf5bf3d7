//! `pkbench doctor`: are a database's keys what slows it down, and what to do. Read-only.

use crate::output::outln;
use anyhow::Context;
use clap::{Args, ValueEnum};
use pkbench_core::config::values::parse_timeout;
use pkbench_core::doctor::export::{self, EXPORT_SAMPLE_ROWS};
use pkbench_core::doctor::target_kind as doctor_target_kind;
use pkbench_core::doctor::{DoctorOptions, diagnose_target, export_target, migration_sql_for, render, to_json};
use pkbench_core::engines::EngineKind;
use pkbench_core::engines::server::redact_url;
use pkbench_core::engines::wire::connect::{ConnectOptions, read_password_file};
use pkbench_core::util::folder::write_atomically;
use std::process::ExitCode;

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum DoctorFormat {
    /// Plain text.
    Table,
    /// The serde `DoctorReport` (schema/doctor.schema.json).
    Json,
    /// Markdown.
    Md,
}

#[derive(Debug, Args)]
pub struct DoctorArgs {
    /// A SQLite database file (opened read-only), or a postgres:// or mysql:// / mariadb:// URL
    /// (examined inside one read-only transaction). Never changed.
    #[arg(value_name = "TARGET")]
    pub target: String,
    /// Only this table.
    #[arg(long)]
    pub table: Option<String>,
    /// Servers: only this PostgreSQL schema or MariaDB database.
    #[arg(long)]
    pub schema: Option<String>,
    /// Read every key (and, on servers, every page) instead of a bounded sample: slow on large tables.
    #[arg(long)]
    pub full: bool,
    /// Also print the migration SQL for the advice (doctor never runs it).
    #[arg(long)]
    pub sql: bool,
    /// Output format.
    #[arg(long, value_enum, default_value = "table")]
    pub format: DoctorFormat,
    /// Instead of a diagnosis, write --table's shape to FILE.sql — its DDL, the tables it
    /// references and those referencing it — and its column statistics (value lengths, NULL
    /// shares, distinct counts, from a sample of 100k rows per table, or all with --full) to
    /// FILE.values.toml, for `pkbench run --schema FILE.sql --values FILE.values.toml`. No row
    /// contents are written.
    #[arg(long, value_name = "FILE.sql", requires = "table")]
    pub export_schema: Option<std::path::PathBuf>,
    /// Servers: seconds the connection may take, handshake included (a `connect_timeout` or
    /// `tcp_connect_timeout_ms` in the URL takes its place).
    #[arg(long, value_name = "SECONDS", default_value = "10", value_parser = parse_timeout)]
    pub connect_timeout: std::time::Duration,
    /// Servers: a file whose first line is the password (readable by you only, chmod 600), used
    /// when the URL has none.
    #[arg(long, value_name = "FILE")]
    pub password_file: Option<std::path::PathBuf>,
}

impl DoctorArgs {
    /// How to reach a server: the timeout, and the password file read now.
    fn connect(&self) -> anyhow::Result<ConnectOptions> {
        let password = self.password_file.as_deref().map(read_password_file).transpose()?;
        Ok(ConnectOptions { timeout: self.connect_timeout, password })
    }
}

pub fn doctor(args: DoctorArgs) -> anyhow::Result<ExitCode> {
    if args.sql && args.format == DoctorFormat::Json {
        anyhow::bail!("--sql prints SQL: use it with --format table or md, not json");
    }
    let shown = redact_url(&args.target);
    if let Some(schema) = &args.schema
        && doctor_target_kind(&args.target)? == EngineKind::Sqlite
        && schema != "main"
    {
        anyhow::bail!(
            "--schema '{schema}' names a PostgreSQL schema or MariaDB database: a SQLite file has only 'main' (leave --schema out)"
        );
    }
    crate::password_warning::warn_if_in("the URL", &args.target);
    if let Some(file) = &args.export_schema {
        return export_schema(&args, file);
    }
    let options = DoctorOptions {
        table: args.table.clone(),
        schema: args.schema.clone(),
        full: args.full,
        connect: args.connect()?,
        ..DoctorOptions::default()
    };
    let report =
        diagnose_target(&args.target, &options).with_context(|| format!("doctor could not examine '{shown}'"))?;
    if report.tables.is_empty() {
        let scope = args.schema.as_ref().map_or(String::new(), |s| format!(" in schema/database '{s}'"));
        anyhow::bail!(
            "doctor found no tables to examine in '{shown}'{scope}: check the path or URL, --schema and --table"
        );
    }
    let text = match args.format {
        DoctorFormat::Json => to_json(&report),
        DoctorFormat::Table => render::render(&report, false),
        DoctorFormat::Md => render::render(&report, true),
    };
    outln!("{text}")?;
    if args.sql {
        let script = migration_sql_for(&args.target, &report)?;
        if args.format == DoctorFormat::Md {
            outln!("\n```sql\n{script}```")?;
        } else {
            outln!("\n{script}")?;
        }
    }
    Ok(ExitCode::SUCCESS)
}

/// `--export-schema FILE`: the table's shape and statistics, written beside each other.
fn export_schema(args: &DoctorArgs, file: &std::path::Path) -> anyhow::Result<ExitCode> {
    let table = args.table.as_deref().unwrap_or_default();
    let shown = redact_url(&args.target);
    let sample = if args.full { i64::MAX as u64 } else { EXPORT_SAMPLE_ROWS };
    let (engine, version, tables) =
        export_target(&args.target, args.schema.as_deref(), table, sample, &args.connect()?)
            .with_context(|| format!("doctor could not read '{shown}'"))?;
    let values = file.with_extension("values.toml");
    let values_name = values.file_name().map_or_else(String::new, |n| n.to_string_lossy().into_owned());
    let files = export::render(engine, &version, table, &tables, &values_name)?;
    // Whole or not at all: a full disk leaves no empty or half-written file.
    write_atomically(file, files.schema.as_bytes()).with_context(|| format!("could not write '{}'", file.display()))?;
    write_atomically(&values, files.values.as_bytes())
        .with_context(|| format!("could not write '{}'", values.display()))?;
    outln!(
        "Wrote the shape of {table} ({}) to {} and its column statistics to {}; benchmark it with: pkbench run --schema {} --values {} --table {table} --engine {}",
        pkbench_core::util::text::count(tables.len(), "table"),
        file.display(),
        values.display(),
        file.display(),
        values.display(),
        engine.name()
    )?;
    Ok(ExitCode::SUCCESS)
}
