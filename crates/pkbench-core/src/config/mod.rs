//! A run's configuration: every setting a run takes, read from text the same way for the command
//! line and plan files ([`RunSettings`]), then checked together once ([`RunConfig::new`]) before
//! anything starts. Library callers build a [`RunSettings`] directly.

pub mod choices;
mod engine;
pub mod keys;
pub mod setting;
mod settings;
pub mod values;
mod workload;
mod workload_kind;

pub use engine::EnginePlan;
pub(crate) use engine::pg_version_bin_dir;
pub use settings::{RunSettings, Setting};
pub use workload_kind::{DEFAULT_STRATEGIES, SHARDED_STRATEGIES, Scope, WorkloadKind, scope};

use crate::Error;
use crate::engines::EngineKind;
use crate::keys::KeySettings;
use crate::metrics::budget::CounterBudget;
use crate::report::Format;
use crate::strategy::{KeySource, Strategy, parse_list};
use crate::workloads::{Remedy, Workload};
use std::path::{Path, PathBuf};

/// Largest `--repeat` accepted.
pub const MAX_REPEAT: u32 = 100;

/// A run, checked: its engine, workload, strategies and output, ready to start.
pub struct RunConfig {
    /// The engine, after `--url`/`--like` picked it where `--engine` was not given.
    pub engine: EngineKind,
    /// Which workload.
    pub workload_kind: WorkloadKind,
    /// The workload, built.
    pub workload: Box<dyn Workload>,
    /// The strategies in run order, each `--repeat` times.
    pub strategies: Vec<&'static Strategy>,
    /// How the engine is opened.
    pub engine_plan: EnginePlan,
    /// The key streams' seed, rate and parameters.
    pub keys: KeySettings,
    /// The share of inserting time reading counters may take.
    pub counter_budget: CounterBudget,
    /// What to print at the end.
    pub format: Format,
    /// The results folder.
    pub out_dir: PathBuf,
    /// The settings as given (nothing filled in).
    pub settings: RunSettings,
}

impl RunConfig {
    /// Checks `settings` together: strategies, the workload's settings, what the engine can
    /// run, and the engine's own settings. Nothing is started and no file is created; results
    /// (and SQLite's databases) are to go to `out_dir`.
    pub fn new(settings: RunSettings, out_dir: &Path) -> Result<RunConfig, Error> {
        let settings = resolved(settings)?;
        let engine = settings.engine.unwrap_or(EngineKind::Sqlite);
        let kind = settings.workload();
        let strategies = repeated(parse_list(strategies_for(&settings, kind, engine)?)?, &settings)?;
        let workload = workload::build(kind, &settings, engine, &strategies, out_dir)?;
        if kind == WorkloadKind::Remedy {
            for s in &strategies {
                Remedy::switched(s)?;
            }
        }
        for s in &strategies {
            crate::engines::schema_of(engine, s)?;
        }
        recent_rows_need_client_keys(&settings, kind, &strategies)?;
        let engine_plan = engine::plan(&settings, engine, out_dir)?;
        Ok(RunConfig {
            engine,
            workload_kind: kind,
            workload,
            strategies,
            engine_plan,
            keys: keys::key_settings(&settings)?,
            counter_budget: settings.counter_budget(),
            format: settings.format(),
            out_dir: out_dir.to_path_buf(),
            settings,
        })
    }

    /// An estimate of the run's cost, for dealing a plan's cases out to machines: its rows
    /// (ten thousand per second of a timed workload) times its strategies and repeats.
    pub fn cost(&self) -> f64 {
        let size = match self.workload_kind {
            WorkloadKind::Concurrent => self.settings.duration().as_secs_f64() * 10_000.0,
            WorkloadKind::InsertGrowth
            | WorkloadKind::FileBaseline
            | WorkloadKind::Remedy
            | WorkloadKind::Schema
            | WorkloadKind::App
            | WorkloadKind::Churn
            | WorkloadKind::Scale => self.settings.rows() as f64,
        };
        size * self.strategies.len() as f64
    }
}

/// A concurrent `--txn` that reads or updates a recent row finds it by its key, so the keys must
/// be the client's: refused before any server starts.
fn recent_rows_need_client_keys(s: &RunSettings, kind: WorkloadKind, strategies: &[&Strategy]) -> Result<(), Error> {
    if kind != WorkloadKind::Concurrent || !s.txn().uses_recent() {
        return Ok(());
    }
    match strategies.iter().find(|st| !matches!(st.primary.source, KeySource::Client(_))) {
        Some(st) => Err(s.txn().server_keys_refusal(st.name)),
        None => Ok(()),
    }
}

/// The settings one implies for another: `--schema` or `--like` alone runs the schema workload
/// (`--like` on its URL's engine), and a server URL's scheme picks the engine. Refuses the
/// combinations that cannot go together.
fn resolved(mut s: RunSettings) -> Result<RunSettings, Error> {
    if s.like.is_some() && s.schema.is_some() {
        return Err(Error::InvalidInput(
            "--like reads your table from your server instead of a --schema file: give one of them".into(),
        ));
    }
    if s.like.is_some() && s.table.is_none() {
        return Err(Error::InvalidInput("--like needs --table: name the table to read from your server".into()));
    }
    if s.server_bin.is_some() && s.pg_version.is_some() {
        return Err(Error::InvalidInput(
            "--server-bin and --pg-version both pick the server's binaries: give one of them".into(),
        ));
    }
    if (s.schema.is_some() || s.like.is_some()) && s.workload.is_none() {
        s.workload = Some(WorkloadKind::Schema);
    }
    if s.engine.is_none() {
        let from_url = |url: &Option<String>| url.as_deref().and_then(EngineKind::from_url);
        // An explicit --url wins over --like's.
        s.engine = from_url(&s.url).or(if s.url.is_none() { from_url(&s.like) } else { None });
    }
    Ok(s)
}

/// The strategies to run: `--strategies`, or the workload's own default when it was not given.
fn strategies_for(s: &RunSettings, kind: WorkloadKind, engine: EngineKind) -> Result<&str, Error> {
    match (kind.default_strategies(engine), &s.strategies) {
        (None, Some(_)) => Err(Error::InvalidInput(
            "file-baseline writes one rowid table `log(logline TEXT)` and takes no --strategies; remove it".into(),
        )),
        // A workload without strategies runs one case.
        (None, None) => Ok("int"),
        (Some(_), Some(given)) => Ok(given),
        (Some(default), None) => Ok(default),
    }
}

/// Each strategy `--repeat` times in a row (each run gets a fresh database).
fn repeated(strategies: Vec<&'static Strategy>, s: &RunSettings) -> Result<Vec<&'static Strategy>, Error> {
    let repeat = s.repeat();
    if !(1..=MAX_REPEAT).contains(&repeat) {
        return Err(Error::InvalidInput(format!("--repeat {repeat} is out of range: use 1 to {MAX_REPEAT}")));
    }
    if repeat > 1 && s.keep_db == Some(true) {
        return Err(Error::InvalidInput(
            "--keep-db keeps one database per strategy and cannot be combined with --repeat; remove one".into(),
        ));
    }
    Ok(strategies.into_iter().flat_map(|s| std::iter::repeat_n(s, repeat as usize)).collect())
}

#[cfg(test)]
mod tests;
