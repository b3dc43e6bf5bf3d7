//! `pkbench advise`: which key to use for a table, and what each choice costs at the size it
//! will reach. The library reads, forecasts and decides ([`pkbench_core::advise`]); this maps
//! the flags and prints.

use crate::output::{out, say};
use crate::size::{parse_count, parse_seed};
use clap::{Args, ValueEnum};
use pkbench_core::advise::{
    AdviseObserver, AdviseRequest, Advised, ContentionRequest, TableSource, TargetRequest, contention, render,
};
use pkbench_core::config::values::{parse_duration, parse_timeout};
use pkbench_core::control::RunControl;
use pkbench_core::engines::EngineKind;
use pkbench_core::engines::wire::connect::{ConnectOptions, read_password_file};
use pkbench_core::util::time::new_results_dir;
use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::Arc;

/// What advise prints on standard output.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum AdviseFormat {
    /// The verdict, a table and the reasons.
    Text,
    /// The same as Markdown.
    Md,
    /// advice.json (see schema/advice.schema.json).
    Json,
}

/// `pkbench advise`'s flags.
#[derive(Debug, Args)]
pub struct AdviseArgs {
    /// An existing table's database: a SQLite file (opened read-only) or a postgres:// or
    /// mysql:// / mariadb:// URL (read in one read-only transaction). Needs --table. Without it
    /// (and without --schema): a typical table on --engine.
    #[arg(value_name = "DATABASE", conflicts_with = "schema")]
    pub database: Option<String>,
    /// The same as DATABASE, as a flag.
    #[arg(long, value_name = "URL", conflicts_with_all = ["database", "schema"])]
    pub url: Option<String>,
    /// Your schema file (as `run --schema` reads it).
    #[arg(long, value_name = "FILE.sql")]
    pub schema: Option<PathBuf>,
    /// The table whose key the candidates replace (needed with DATABASE or --url).
    #[arg(long)]
    pub table: Option<String>,
    /// With --schema: per-column value settings (as `run --values`).
    #[arg(long, value_name = "FILE.toml", requires = "schema")]
    pub values: Option<PathBuf>,
    /// Engine of a typical table or a schema file [default: sqlite; an existing table's own].
    #[arg(long, value_parser = super::super::cli::engine_value(), ignore_case = true)]
    pub engine: Option<EngineKind>,
    /// Candidates to compare, comma-separated [default: the current key, int, int-client,
    /// snowflake, uuid7, uuid4, int+uuid4, ulid, and the text forms for a text key].
    #[arg(long, short = 's', value_name = "LIST")]
    pub strategies: Option<String>,
    /// The final size, rows [default: 10× today's rows; 100M for a new table].
    #[arg(long, short = 'n', value_name = "N", value_parser = parse_count)]
    pub rows: Option<u64>,
    /// New rows per day, e.g. 2M/day (with --horizon: the final size is today's rows plus the growth).
    #[arg(long, value_name = "RATE/day")]
    pub growth: Option<String>,
    /// How long the growth lasts, e.g. 90d, 18mo, 3y.
    #[arg(long, value_name = "DURATION")]
    pub horizon: Option<String>,
    /// The target's page cache, MiB (as `run --cache-mb`) [default: an existing server's own
    /// shared_buffers or innodb_buffer_pool_size; else 8].
    #[arg(long, value_name = "MiB")]
    pub cache_mb: Option<u64>,
    /// Rows per candidate of the calibration's real runs (at the target's cache pressure).
    #[arg(long, default_value = "200k", value_name = "N", value_parser = parse_count)]
    pub calibrate_rows: u64,
    /// Give every candidate a calibration run of its own [default: a candidate whose rows land
    /// where an earlier one's do, as snowflake's where int-client's and ulid's where uuid7's,
    /// takes that one's calibration].
    #[arg(long)]
    pub calibrate_each: bool,
    /// PostgreSQL major version of the throwaway servers (calibration, contention check)
    /// [default: an existing server's own where installed here, else the newest Debian one].
    #[arg(long, value_name = "N", conflicts_with = "server_bin")]
    pub pg_version: Option<u32>,
    /// Folder with the server binaries of the throwaway servers (initdb and postgres, or
    /// mariadb-install-db and mariadbd).
    #[arg(long, value_name = "DIR")]
    pub server_bin: Option<PathBuf>,
    /// Also place each candidate's rows on N shards: the hottest shard's share of each batch.
    #[arg(long, value_name = "N")]
    pub shards: Option<u32>,
    /// With --shards: `range` (even key ranges, as pkbench's sharded engines lay out) or `hash`.
    #[arg(long, value_name = "range|hash", requires = "shards")]
    pub sharding: Option<String>,
    /// The table's peak arrivals, rows per second: also check each candidate at that rate from
    /// many clients (an open loop on a throwaway server or SQLite file).
    #[arg(long, value_name = "ROWS/s", value_parser = parse_count)]
    pub insert_rate: Option<u64>,
    /// With --insert-rate: clients sending at once.
    #[arg(long, value_name = "N", default_value_t = contention::DEFAULT_CLIENTS, requires = "insert_rate")]
    pub clients: u32,
    /// With --insert-rate: measured time per candidate, after a warm-up of a fifth of it.
    #[arg(long, value_name = "TIME", default_value = "10s", value_parser = parse_duration, requires = "insert_rate")]
    pub insert_duration: std::time::Duration,
    /// Seed of the key streams.
    #[arg(long, default_value_t = 42, value_name = "N", value_parser = parse_seed)]
    pub seed: u64,
    /// What to print: text, md or json.
    #[arg(long, value_enum, default_value = "text")]
    pub format: AdviseFormat,
    /// Results folder [default: ./pkbench-results/advise-<timestamp>].
    #[arg(long, short = 'o', value_name = "DIR")]
    pub out: Option<PathBuf>,
    /// Replace the earlier pkbench results folder given with --out.
    #[arg(long, requires = "out")]
    pub force: bool,
    /// Only the answer, no steps.
    #[arg(long, short = 'q')]
    pub quiet: bool,
    /// Servers: seconds the connection may take.
    #[arg(long, value_name = "SECONDS", default_value = "10", value_parser = parse_timeout)]
    pub connect_timeout: std::time::Duration,
    /// Servers: a file whose first line is the password, used when the URL has none.
    #[arg(long, value_name = "FILE")]
    pub password_file: Option<PathBuf>,
}

/// Runs `pkbench advise`.
pub fn advise(args: AdviseArgs) -> anyhow::Result<ExitCode> {
    let request = request(&args)?;
    let folder = super::out_dir::prepare(&request.out_dir, args.force)?;
    let control = Arc::new(RunControl::new());
    let stop = crate::signals::install(Arc::clone(&control))?;
    let mut lines = Lines { quiet: args.quiet };
    let advised = request.run(&control, &mut lines);
    let report = match advised {
        Ok(Advised::Done(report)) => report,
        Ok(Advised::Interrupted(what)) => {
            say!("{what}");
            return Ok(ExitCode::from(stop.exit_code()));
        }
        Err(e) => {
            folder.discard_unless_measured();
            return Err(e.into());
        }
    };
    match args.format {
        AdviseFormat::Text => out!("{}", render::text(&report))?,
        AdviseFormat::Md => out!("{}", render::markdown(&report))?,
        AdviseFormat::Json => out!("{}\n", report.to_json()?)?,
    }
    say!("Advice written to {} (advice.json, advice.md, advice.html)", request.out_dir.display());
    Ok(ExitCode::SUCCESS)
}

/// The flags as the library's request.
fn request(args: &AdviseArgs) -> anyhow::Result<AdviseRequest> {
    let database = args.database.clone().or_else(|| args.url.clone());
    let source = match (&database, &args.schema) {
        (Some(target), _) => {
            crate::password_warning::warn_if_in("the URL", target);
            let Some(table) = args.table.clone() else {
                anyhow::bail!("an existing database needs --table: name the table to advise on");
            };
            let password = args.password_file.as_deref().map(read_password_file).transpose()?;
            TableSource::Existing {
                target: target.clone(),
                table,
                schema: None,
                connect: ConnectOptions { timeout: args.connect_timeout, password },
            }
        }
        (None, Some(file)) => {
            TableSource::SchemaFile { file: file.clone(), table: args.table.clone(), values: args.values.clone() }
        }
        (None, None) if args.table.is_some() => {
            anyhow::bail!("--table names a table of a DATABASE, --url or --schema: give one of them");
        }
        (None, None) => TableSource::Typical,
    };
    Ok(AdviseRequest {
        engine: args.engine,
        source,
        target: TargetRequest { rows: args.rows, growth: args.growth.clone(), horizon: args.horizon.clone() },
        strategies: args.strategies.clone(),
        cache_mb: args.cache_mb,
        calibrate_rows: args.calibrate_rows,
        calibrate_each: args.calibrate_each,
        pg_version: args.pg_version,
        server_bin: args.server_bin.clone(),
        shards: args.shards,
        sharding: args.sharding.clone(),
        contention: args.insert_rate.map(|rate| ContentionRequest {
            rate,
            clients: args.clients,
            measured: args.insert_duration,
        }),
        seed: args.seed,
        out_dir: args.out.clone().unwrap_or_else(|| new_results_dir("advise-")),
        command: std::env::args_os().map(|a| a.to_string_lossy().into_owned()).collect(),
    })
}

/// Each step a line on standard error, unless `--quiet`.
struct Lines {
    quiet: bool,
}

impl AdviseObserver for Lines {
    fn step(&mut self, line: &str) {
        if !self.quiet {
            say!("{line}");
        }
    }
}
