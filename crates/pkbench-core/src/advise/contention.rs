//! `--insert-rate`: the contention check. Many clients send rows at the table's peak arrival
//! rate in an open loop (`run --workload concurrent --rate`), one candidate at a time, on a
//! throwaway server of the table's engine (or a temporary SQLite file). Each candidate's figures
//! say whether the engine kept up, how long a row waited from its due time, and what the
//! sessions waited for.

use super::AdviseObserver;
use super::version::ServerBinaries;
use crate::Error;
use crate::config::{RunConfig, RunSettings, WorkloadKind};
use crate::control::{MonotonicTimer, RunControl};
use crate::engines::EngineKind;
use crate::report::ResultsWriter;
use crate::results::{CONCURRENT_PHASE, Environment, PhaseResult, RunResult};
use crate::run::{RunPlan, run as run_plan};
use crate::workloads::{CaseContext, ConcurrentInsert, Observer};
use serde::{Deserialize, Serialize};
use std::cell::RefCell;
use std::path::{Path, PathBuf};
use std::time::Duration;

/// Clients sending at once, unless given (`run --workload concurrent`'s default).
pub const DEFAULT_CLIENTS: u32 = 16;

/// Measured time per candidate, unless given.
pub const DEFAULT_MEASURED: Duration = Duration::from_secs(10);

/// The untimed warm-up before each candidate's measured time, as a share of it.
pub const WARMUP_SHARE: u32 = 5;

/// Share of the asked rate a candidate must reach to have kept up: `run --rate`'s own.
pub use crate::workloads::KEPT_UP;

/// What the contention check is asked.
#[derive(Clone, Debug, PartialEq)]
pub struct ContentionRequest {
    /// Rows per second all clients together send.
    pub rate: u64,
    /// Clients sending at once.
    pub clients: u32,
    /// Measured time per candidate (after a warm-up of a fifth of it).
    pub measured: Duration,
}

/// One candidate at the asked rate.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Contention {
    /// Rows per second the clients were asked to send.
    pub rate_asked: u64,
    /// Rows per second inserted over the measured time.
    pub rate_achieved: f64,
    /// Whether it reached [`KEPT_UP`] of the asked rate.
    pub kept_up: bool,
    /// Median time from a row's due time to its commit, milliseconds.
    pub p50_ms: f64,
    /// 99th percentile of the same, milliseconds.
    pub p99_ms: f64,
    /// What the sessions waited for most, other than running (PostgreSQL wait events, MariaDB
    /// process-list states, SQLite's write lock), with its share of the sessions sampled.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub top_wait: Option<String>,
    /// That wait's share: of the sessions sampled (servers) or of the clients' time (SQLite).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub top_wait_share: Option<f64>,
    /// Statements that failed.
    pub errors: u64,
}

/// The check's set-up in words, and each candidate's figures in the order given.
pub struct Checked {
    /// The set-up, in one line.
    pub setup: String,
    /// Per candidate (by strategy name), its figures.
    pub figures: Vec<(String, Contention)>,
    /// Candidates the concurrent workload cannot insert, with why.
    pub skipped: Vec<String>,
    /// The results folder (results.json, report.html).
    pub dir: PathBuf,
}

impl ContentionRequest {
    /// Refuses a rate, client count or time the check cannot run, in advise's own flags, before
    /// anything is measured.
    pub fn check(&self) -> Result<(), Error> {
        if self.rate == 0 {
            return Err(Error::InvalidInput(
                "--insert-rate 0 sends nothing: give the table's peak rows per second (e.g. --insert-rate 2000)".into(),
            ));
        }
        if self.clients == 0 || self.clients > crate::workloads::MAX_THREADS {
            return Err(Error::InvalidInput(format!(
                "--clients {} is out of range: use 1 to {} (e.g. --clients 16)",
                self.clients,
                crate::workloads::MAX_THREADS
            )));
        }
        if self.measured < Duration::from_millis(100) || self.measured > Duration::from_secs(3600) {
            return Err(Error::InvalidInput(
                "--insert-duration is out of range: use 0.1s to 1h per candidate (e.g. --insert-duration 10s)".into(),
            ));
        }
        ConcurrentInsert::new(self.clients, self.measured, self.warmup(), 0, 0)?.with_rate(Some(self.rate))?;
        Ok(())
    }

    /// Runs the candidates `names` on `engine` (a throwaway server of `binaries`) at this rate,
    /// each row carrying `payload` bytes beside its key, with a `cache_mb` page cache; results
    /// in `dir`.
    #[allow(clippy::too_many_arguments)]
    pub fn run(
        &self,
        engine: EngineKind,
        binaries: &ServerBinaries,
        names: &[&str],
        payload: u64,
        cache_mb: u64,
        seed: u64,
        dir: &Path,
        control: &RunControl,
        observer: &mut dyn AdviseObserver,
    ) -> Result<Checked, Error> {
        let probe = ConcurrentInsert::new(self.clients, self.measured, self.warmup(), payload, seed)?
            .with_rate(Some(self.rate))?;
        let mut runnable = Vec::new();
        let mut skipped = Vec::new();
        for strategy in crate::strategy::parse_list(&names.join(","))? {
            match probe.check(strategy, engine.name()) {
                Ok(()) => runnable.push(strategy.name),
                Err(e) => skipped.push(format!("{}: {e}", strategy.name)),
            }
        }
        let setup = format!(
            "{} clients sending {} rows/s in an open loop (latency from each row's due time), {:.1} s warm-up and {:.1} s measured per candidate, from an empty table of the key and {payload} payload bytes per row (your row's width, not its indexes)",
            self.clients,
            crate::util::text::thousands(self.rate),
            self.warmup().as_secs_f64(),
            self.measured.as_secs_f64()
        );
        if runnable.is_empty() {
            return Ok(Checked { setup, figures: Vec::new(), skipped, dir: dir.to_path_buf() });
        }
        let settings = RunSettings {
            pg_version: binaries.pg_version,
            server_bin: binaries.server_bin.clone(),
            ..self.settings(engine, &runnable, payload, cache_mb, seed)
        };
        let config = RunConfig::new(settings, dir)?;
        crate::util::folder::create(dir)?;
        let writer = ResultsWriter::create(dir)?;
        if config.engine_plan.managed_parent_dir().is_some() {
            observer.step(&format!("  Starting a throwaway {} server", engine.name()));
        }
        let (mut engine_open, data_dir) = config.engine_plan.clone().open()?;
        let info = engine_open.info();
        let environment = Environment::detect(info.name, &info.version, data_dir.as_deref().unwrap_or(dir));
        let plan = RunPlan {
            workload: config.workload.as_ref(),
            strategies: config.strategies.clone(),
            command: vec!["pkbench".into(), "advise".into(), "--insert-rate".into(), self.rate.to_string()],
        };
        let timer = MonotonicTimer::default();
        let steps = Steps { observer: RefCell::new(observer) };
        let ctx = CaseContext { control, timer: &timer, observer: &steps, counter_budget: config.counter_budget };
        let outcome = run_plan(&plan, engine_open.as_mut(), environment, Some(&writer), &ctx)?;
        if let Some(error) = outcome.error {
            return Err(error);
        }
        let figures = outcome
            .doc
            .runs
            .iter()
            .filter_map(|run| figures(run, self.rate).map(|f| (run.strategy.clone(), f)))
            .collect();
        Ok(Checked { setup, figures, skipped, dir: dir.to_path_buf() })
    }

    /// The untimed warm-up before each candidate's measured time.
    pub fn warmup(&self) -> Duration {
        self.measured / WARMUP_SHARE
    }

    /// The concurrent run's settings: an open loop at the rate, time-based keys stamped at it.
    fn settings(&self, engine: EngineKind, names: &[&str], payload: u64, cache_mb: u64, seed: u64) -> RunSettings {
        RunSettings {
            engine: Some(engine),
            workload: Some(WorkloadKind::Concurrent),
            strategies: Some(names.join(",")),
            threads: Some(self.clients),
            rate: Some(self.rate),
            key_rate: Some(self.rate),
            duration: Some(self.measured),
            warmup: Some(self.warmup()),
            payload: Some(payload),
            cache_mb: Some(cache_mb),
            seed: Some(seed),
            ..RunSettings::default()
        }
    }
}

/// A candidate's figures from its concurrent run (none for a run that stopped before its phase).
fn figures(run: &RunResult, rate: u64) -> Option<Contention> {
    let phase = run.phases.iter().find(|p| p.name == CONCURRENT_PHASE)?;
    let latency = phase.latency?;
    let achieved = phase.figures.get("rate_achieved_per_s").copied().unwrap_or(0.0);
    let (top_wait, top_wait_share) = top_wait(phase).unzip();
    Some(Contention {
        rate_asked: rate,
        rate_achieved: achieved,
        kept_up: achieved >= rate as f64 * KEPT_UP,
        p50_ms: latency.p50_ns as f64 / 1e6,
        p99_ms: latency.p99_ns as f64 / 1e6,
        top_wait,
        top_wait_share,
        errors: phase.figures.get("errors").copied().unwrap_or(0.0) as u64,
    })
}

/// The wait the sessions were seen in most, other than running, and its share of all sessions
/// seen; on SQLite, the write lock and the clients' share of time spent waiting for it.
fn top_wait(phase: &PhaseResult) -> Option<(String, f64)> {
    if let Some(share) = phase.figures.get("lock_wait_share") {
        return Some(("the database's write lock".into(), *share));
    }
    let seen: u64 = phase.waits.values().sum();
    let (name, count) = phase.waits.iter().filter(|(name, _)| name.as_str() != "CPU").max_by_key(|(_, n)| **n)?;
    (seen > 0).then(|| (name.clone(), *count as f64 / seen as f64))
}

/// Passes each candidate's start on as a step.
struct Steps<'a> {
    observer: RefCell<&'a mut dyn AdviseObserver>,
}

impl Observer for Steps<'_> {
    fn case_started(&self, strategy: &str, position: usize, count: usize, _rows: u64, _plan: &str) {
        self.observer.borrow_mut().step(&format!("  {strategy} ({}/{count})", position + 1));
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::BTreeMap;

    fn phase(figures: &[(&str, f64)], waits: &[(&str, u64)]) -> PhaseResult {
        PhaseResult {
            name: CONCURRENT_PHASE.into(),
            figures: figures.iter().map(|(k, v)| (k.to_string(), *v)).collect(),
            waits: waits.iter().map(|(k, v)| (k.to_string(), *v)).collect::<BTreeMap<_, _>>(),
            ..PhaseResult::default()
        }
    }

    #[test]
    fn the_top_wait_is_the_most_seen_one_other_than_running() {
        let p = phase(&[], &[("CPU", 50), ("LWLock:WALWrite", 30), ("IO:WALSync", 20)]);
        assert_eq!(top_wait(&p), Some(("LWLock:WALWrite".into(), 0.3)));
        assert_eq!(top_wait(&phase(&[], &[("CPU", 5)])), None);
        assert_eq!(top_wait(&phase(&[], &[])), None);
    }

    #[test]
    fn sqlites_wait_is_its_write_lock_as_a_share_of_the_clients_time() {
        let p = phase(&[("lock_wait_share", 0.8)], &[]);
        assert_eq!(top_wait(&p), Some(("the database's write lock".into(), 0.8)));
    }
}
