//! Time from counts. A short real run designed to pin down each cost ([`CalibrationPlan`]: the
//! target's cache pressure, enough batches per cost), the model's counts for the same run, and
//! a fit of shared per-unit costs to the measured batch times ([`TimeFit`]). The only part of
//! `predict` that runs an engine, and only through the [`Engine`] trait: SQLite, or a managed
//! PostgreSQL or MariaDB server.

use super::canary::{self, MachineSpeed};
use super::fit::{Predicted, TimeFit, UNBOUNDED};
use super::layout::{CACHE_EXTRA_BYTES, Layout};
use super::lsm::{LsmModel, Shape as LsmShape};
use super::memory::Memory;
use super::model::Model;
use super::probe::{DeviceCosts, Probes};
use super::server::postgres::PostgresModel;
use super::terms::{Shape, Term};
use super::unexplained::Unexplained;
use super::working_set::WorkingSet;
use super::{Mode, ModelEngine, PredictConfig};
use crate::Error;
use crate::control::{MonotonicTimer, RunControl};
use crate::engine_facts::myrocks;
use crate::engines::Engine;
use crate::engines::postgres::wal_size::WalSize;
use crate::engines::server::MAX_CHECKPOINT_SCALE;
use crate::engines::sqlite::{Journal, SqliteSettings, Synchronous};
use crate::metrics::budget::CounterBudget;
use crate::results::{Counters, Environment, ResultsDoc, RunResult};
use crate::run::{RunPlan, run};
use crate::strategy::Strategy;
use crate::workloads::{CaseContext, InsertGrowth, OwnSchema, Workload};
use std::collections::BTreeMap;
use std::path::PathBuf;

/// Fewest batches per strategy in a calibration (the fit needs [`super::fit::BATCHES_PER_TERM`]
/// per cost, and a third of them are held out).
pub const MIN_BATCHES_PER_STRATEGY: u64 = 30;
/// Smallest calibration batch: below it a commit's fixed cost would dominate.
pub const MIN_BATCH_ROWS: u64 = 1_000;
/// A run's last batch with less than 1/this of its other batches' rows is a remainder the fit
/// leaves out ([`is_remainder`]).
const REMAINDER_SHARE: u64 = 2;
/// Smallest calibration cache, pages.
pub const MIN_CACHE_PAGES: u64 = 100;

/// Rows per strategy a new calibration run inserts by default on SQLite and MariaDB: what
/// `pkbench advise` calibrates on. Held to one real run of twenty to fifty times as many rows,
/// its forecasts came as close as a tenth's did, and their intervals covered all (SQLite) or
/// most (MariaDB) of the batches a tenth's covered (docs/findings/predict-accuracy.md,
/// "Calibrating on 200k rows").
pub const DEFAULT_ROWS: u64 = 200_000;
/// Rows per strategy a calibration takes by default elsewhere: on PostgreSQL, where 200k rows'
/// intervals covered none of a real run's late batches that a tenth's covered (the same
/// findings; `pkbench advise` still calibrates on 200k there, with its own check); on MyRocks
/// (which keeps the target's batch, and needs [`MIN_BATCHES_PER_STRATEGY`] of them); and from a
/// saved run (`--calibrate-from`), which costs no inserting.
pub const DEFAULT_ROWS_ELSEWHERE: u64 = 1_000_000;

/// The calibration's rows per strategy when none are given: [`DEFAULT_ROWS`] for a new run on
/// SQLite or MariaDB, else [`DEFAULT_ROWS_ELSEWHERE`].
pub fn default_rows(engine: ModelEngine, saved: bool) -> u64 {
    match engine {
        ModelEngine::Sqlite | ModelEngine::MariaDb if !saved => DEFAULT_ROWS,
        _ => DEFAULT_ROWS_ELSEWHERE,
    }
}

/// Most a calibration's cache per row may stand above the target's and still count as at its
/// pressure: a server's cache is set in whole MiB, which rounds a small one up by a little.
pub const PRESSURE_TOLERANCE: f64 = 1.25;

/// A calibration held above the target's cache pressure by the smallest cache it can run with,
/// or by a server's cache rounded up to whole MiB: its other trees fill a cache that is larger
/// per row than the target's, so the time they add is measured at a lighter pressure than the
/// target's.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct CacheFloor {
    /// The calibration's cache per row ÷ the target's.
    pub times: f64,
    /// Whether the smallest cache a calibration takes set it (else a server's whole MiB did).
    pub least: bool,
    /// Rows per strategy of a calibration whose scaled cache would be at least this one: from
    /// these rows on, it runs at the target's pressure.
    pub rows_at_pressure: u64,
}

/// The real run a calibration makes: the target's cache pressure (cache ÷ rows) at fewer rows,
/// with batches scaled the same way but at least [`MIN_BATCHES_PER_STRATEGY`] of them.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct CalibrationPlan {
    /// The engine run (and modelled).
    pub engine: ModelEngine,
    /// Rows per strategy.
    pub rows: u64,
    /// Rows per batch.
    pub batch_rows: u64,
    /// Page cache, KiB (whole MiB on the servers, whose settings take MiB).
    pub cache_kib: u64,
    /// Page size, bytes.
    pub page_size: u32,
    /// Payload bytes per row.
    pub payload_bytes: u64,
    /// Key-stream seed.
    pub seed: u64,
    /// The calibration's checkpoints come after 1/k of the WAL the target's do (PostgreSQL:
    /// [`checkpoint_scale`]); 1 elsewhere.
    pub checkpoint_scale: u64,
    /// The PostgreSQL major version the managed server runs, if not the one pkbench starts by
    /// default (a user's server's, where its binaries are installed here).
    pub server_major: Option<u32>,
}

impl CalibrationPlan {
    /// The calibration for predicting `target` on `engine` from `rows` real rows per strategy:
    /// cache = target cache × rows ÷ target rows (at least [`MIN_CACHE_PAGES`]; on a server,
    /// rounded to whole MiB and at least its minimum), batch = target batch × rows ÷ target
    /// rows (between [`MIN_BATCH_ROWS`] and rows ÷ [`MIN_BATCHES_PER_STRATEGY`], [`evened`] so
    /// that the last batch is not a short remainder) — on an LSM engine the target's batch
    /// ([`lsm_batch`]).
    pub fn for_target(engine: ModelEngine, target: &PredictConfig, rows: u64) -> Result<CalibrationPlan, Error> {
        if rows < MIN_BATCHES_PER_STRATEGY * MIN_BATCH_ROWS {
            return Err(Error::InvalidInput(format!(
                "--calibrate-rows {rows} is too few: the calibration needs {MIN_BATCHES_PER_STRATEGY} batches of at least {MIN_BATCH_ROWS} rows (use at least {})",
                MIN_BATCHES_PER_STRATEGY * MIN_BATCH_ROWS
            )));
        }
        let ratio = (rows as f64 / target.rows as f64).min(1.0);
        let page_kib = (u64::from(target.page_size) + CACHE_EXTRA_BYTES) as f64 / 1024.0;
        let min_kib = (MIN_CACHE_PAGES as f64 * page_kib).ceil() as u64;
        let cache_kib = ((target.cache_mb * 1024) as f64 * ratio).round() as u64;
        let batch = match engine.capabilities().lsm_model {
            true => lsm_batch(target.batch_rows, rows)?,
            false => evened(
                ((target.batch_rows as f64 * ratio).round() as u64)
                    .clamp(MIN_BATCH_ROWS, rows / MIN_BATCHES_PER_STRATEGY),
                rows,
            ),
        };
        let least_mb = match engine {
            ModelEngine::Sqlite => 0,
            ModelEngine::Postgres
            | ModelEngine::MariaDb
            | ModelEngine::Spider
            | ModelEngine::PostgresFdw
            | ModelEngine::MyRocks => engine.capabilities().min_cache_mb.unwrap_or(1),
        };
        let cache_kib = whole_mib_on_servers(engine, cache_kib).max(least_mb * 1024);
        Ok(CalibrationPlan {
            engine,
            rows,
            batch_rows: batch,
            cache_kib: cache_kib.max(min_kib),
            page_size: target.page_size,
            payload_bytes: target.payload_bytes,
            seed: target.seed,
            checkpoint_scale: checkpoint_scale(engine, target.rows, rows),
            server_major: None,
        })
    }

    /// Where the smallest cache a calibration takes (a server's own least, or
    /// [`MIN_CACHE_PAGES`]), or a server's whole MiB, holds this one above `target`'s pressure
    /// by more than [`PRESSURE_TOLERANCE`]: by how much, which of the two, and the rows that
    /// would reach it.
    pub fn cache_floor(&self, target: &PredictConfig) -> Option<CacheFloor> {
        let target_kib = (target.cache_mb * 1024) as f64;
        let scaled_kib = target_kib * (self.rows as f64 / target.rows as f64).min(1.0);
        let times = self.cache_kib as f64 / scaled_kib;
        let rounded_kib = whole_mib_on_servers(self.engine, scaled_kib.round() as u64);
        (times > PRESSURE_TOLERANCE).then(|| CacheFloor {
            times,
            least: self.cache_kib > rounded_kib,
            rows_at_pressure: ((target.rows as f64 * self.cache_kib as f64 / target_kib).ceil() as u64)
                .min(target.rows),
        })
    }

    /// Pages of the calibration's cache (as SQLite counts `cache_size=-KiB`, or the server's).
    pub fn cache_pages(&self) -> u64 {
        match self.engine {
            ModelEngine::Sqlite => self.cache_kib * 1024 / (u64::from(self.page_size) + CACHE_EXTRA_BYTES),
            ModelEngine::Postgres
            | ModelEngine::MariaDb
            | ModelEngine::Spider
            | ModelEngine::PostgresFdw
            | ModelEngine::MyRocks => self.engine.cache_pages(&self.model_config()),
        }
    }

    /// The cache of a server's calibration, MiB.
    pub fn cache_mb(&self) -> u64 {
        self.cache_kib.div_ceil(1024).max(1)
    }

    /// The page model's settings for this run (a server model's; SQLite's cache is finer).
    pub fn model_config(&self) -> PredictConfig {
        PredictConfig {
            rows: self.rows,
            batch_rows: self.batch_rows,
            payload_bytes: self.payload_bytes,
            seed: self.seed,
            page_size: self.page_size,
            cache_mb: self.cache_mb(),
            mode: Mode::Exact,
            scale: 1,
        }
    }

    /// The insert-growth workload of the real run.
    pub fn workload(&self) -> Result<InsertGrowth, Error> {
        InsertGrowth::new(self.rows, self.batch_rows, self.payload_bytes, self.seed)
    }

    /// SQLite settings of the real run in `dir` (WAL, `synchronous=FULL`, as `pkbench run`).
    pub fn sqlite_settings(&self, dir: PathBuf) -> SqliteSettings {
        SqliteSettings {
            dir,
            cache_mb: self.cache_kib.div_ceil(1024).max(1),
            cache_kib: Some(self.cache_kib),
            page_size: self.page_size,
            sync: Synchronous::Full,
            journal: Journal::Wal,
            keep_db: false,
        }
    }

    /// One line: engine, rows, batches and cache; on MyRocks, the tree's sizes if scaled.
    pub fn describe(&self) -> String {
        let tree = match self.engine {
            ModelEngine::MyRocks if self.checkpoint_scale > 1 => format!(
                ", memtable, files and levels at 1/{} of MyRocks' ({:.1} MiB memtable)",
                self.checkpoint_scale,
                (myrocks::MEMTABLE_BYTES / self.checkpoint_scale) as f64 / 1_048_576.0
            ),
            _ => String::new(),
        };
        format!(
            "{}, {} rows per strategy in batches of {}, {} KiB cache ({} pages){tree}",
            self.engine.label(),
            self.rows,
            self.batch_rows,
            self.cache_kib,
            self.cache_pages()
        )
    }
}

/// `kib` as a calibration's cache takes it: as given on SQLite (`cache_size=-KiB`), rounded up
/// to whole MiB on a server.
fn whole_mib_on_servers(engine: ModelEngine, kib: u64) -> u64 {
    match engine {
        ModelEngine::Sqlite => kib,
        ModelEngine::Postgres
        | ModelEngine::MariaDb
        | ModelEngine::Spider
        | ModelEngine::PostgresFdw
        | ModelEngine::MyRocks => kib.div_ceil(1024) * 1024,
    }
}

/// The batch of an LSM engine's calibration: the target's own. A MyRocks transaction holds its
/// rows' write batch index and locks until it commits, so each row costs more the more rows its
/// transaction holds (measured in the MyRocks findings), and a batch scaled down would price the
/// target's rows too low.
fn lsm_batch(target_batch: u64, rows: u64) -> Result<u64, Error> {
    match rows / target_batch.max(1) >= MIN_BATCHES_PER_STRATEGY {
        true => Ok(target_batch),
        false => Err(Error::InvalidInput(format!(
            "--calibrate-rows {rows} is too few for MyRocks' batches of {target_batch}: its calibration keeps the target's batch, since a row costs more the more rows its transaction holds, and needs {MIN_BATCHES_PER_STRATEGY} of them (use --calibrate-rows {} or more, or a smaller --batch)",
            MIN_BATCHES_PER_STRATEGY * target_batch
        ))),
    }
}

/// A fitted time model: per-unit costs and the calibration they came from.
#[derive(Clone, Debug, PartialEq)]
pub struct Calibration {
    /// The fit.
    pub fit: TimeFit,
    /// The real run it was fitted on.
    pub plan: CalibrationPlan,
    /// Each calibrated strategy's table shape.
    pub shapes: BTreeMap<String, Shape>,
    /// Most units per row of each term in any calibration batch (to flag extrapolation).
    pub seen_per_row: Vec<f64>,
    /// The micro-probes' costs that bounded the fit, if it was probed.
    pub device: Option<DeviceCosts>,
    /// What a leaf jump costs more in a larger cache, if it was probed: taken off the
    /// calibration's batches at its cache, added to the forecast's at the target's.
    pub working_set: Option<WorkingSet>,
    /// The memory below the engine's cache the forecast assumes ([`Calibration::with_memory`]).
    pub memory: Option<Memory>,
    /// The machine's speed during the calibration's batches and beside its probes.
    pub machine: Option<MachineSpeed>,
    /// Each strategy's time per row the fitted costs leave unexplained, over the calibration.
    pub unexplained: BTreeMap<String, Unexplained>,
    /// The same line as each bootstrap fit draws it ([`Unexplained::draws`]), for the interval.
    pub unexplained_draws: BTreeMap<String, Vec<Unexplained>>,
    /// Whether the forecast adds [`Calibration::unexplained`]: a calibration on a user's table,
    /// whose other trees the page model does not hold ([`Calibration::carrying_unexplained`]).
    pub carries_unexplained: bool,
    /// Each fitted batch's rows, in the order of the fit's observations.
    pub batch_rows: Vec<u64>,
    /// Strategies forecast with another's calibration, each to the calibrated strategy whose
    /// rows land where its do ([`Strategy::places_rows_like`]).
    pub stand_ins: BTreeMap<String, String>,
}

impl Calibration {
    /// The calibration for a target with `ram_bytes` of memory and an engine cache of
    /// `engine_cache_bytes`: misses beyond what the OS page cache can hold are priced as device
    /// reads, at the probe's extra cost over a cached read.
    pub fn with_memory(self, ram_bytes: u64, engine_cache_bytes: u64) -> Calibration {
        let device_extra_ms =
            self.device.and_then(|d| d.device_read_us.map(|us| (us - d.cached_read_us).max(0.0) / 1000.0));
        let direct_io = super::memory::direct_io(self.plan.engine);
        Calibration { memory: Some(Memory { ram_bytes, engine_cache_bytes, device_extra_ms, direct_io }), ..self }
    }

    /// This calibration, its unexplained time per row added to the forecast's batches: for a
    /// calibration that inserted a user's table, whose secondary indexes and foreign keys cost
    /// time the key's tree does not count. The fit is judged out of sample with the line
    /// carried ([`TimeFit::carrying_lines`]), so the interval's ratios are the whole forecast's.
    pub fn carrying_unexplained(self) -> Calibration {
        let fit = self.fit.carrying_lines(&self.batch_rows);
        Calibration { fit, carries_unexplained: true, ..self }
    }

    /// This calibration, forecasting each `(strategy, calibrated)` pair's strategy as the
    /// calibrated one: at the same fitted costs, with its unexplained time and machine speeds.
    pub fn with_stand_ins(self, pairs: &[(&Strategy, &Strategy)]) -> Calibration {
        let stand_ins = pairs.iter().map(|(s, c)| (s.name.to_string(), c.name.to_string())).collect();
        Calibration { stand_ins, ..self }
    }

    /// The calibrated strategy `strategy` is forecast as: itself, or the one it stands in for.
    pub fn calibrated_as<'a>(&'a self, strategy: &'a str) -> &'a str {
        self.stand_ins.get(strategy).map_or(strategy, String::as_str)
    }

    /// The unexplained time per row the forecast adds for `strategy`, if it carries any.
    pub fn unexplained_of(&self, strategy: &str) -> Option<Unexplained> {
        let strategy = self.calibrated_as(strategy);
        self.carries_unexplained.then(|| self.unexplained.get(strategy).copied()).flatten()
    }

    /// Units of each term for a batch of `strategy`.
    pub fn units(&self, strategy: &str, counters: &Counters, rows: u64) -> Vec<f64> {
        let strategy = self.calibrated_as(strategy);
        let shape = self.shapes.get(strategy).copied().unwrap_or(Shape { trees: 1, key_bytes: 0 });
        self.fit.terms.iter().map(|t| t.value(shape, counters, rows)).collect()
    }

    /// Predicted milliseconds, with interval, for a batch of `strategy` with `rows` rows whose
    /// model counted `counters`.
    pub fn predict(&self, strategy: &str, counters: &Counters, rows: u64) -> Predicted {
        self.fit.predict(self.calibrated_as(strategy), &self.units(strategy, counters, rows))
    }

    /// [`Calibration::predict`] for a batch `fraction` of the way to the target, with the
    /// unexplained time per row added where the calibration carries it: each bootstrap fit's
    /// own line to that fit's prediction, so the interval holds the line's uncertainty too.
    pub fn predict_at(&self, strategy: &str, counters: &Counters, rows: u64, fraction: f64) -> Predicted {
        let units = self.units(strategy, counters, rows);
        let strategy = self.calibrated_as(strategy);
        let Some(line) = self.unexplained_of(strategy) else { return self.fit.predict(strategy, &units) };
        let n = rows as f64;
        let draws: Vec<f64> = self
            .unexplained_draws
            .get(strategy)
            .map(|lines| lines.iter().map(|l| l.ms_per_row(fraction) * n).collect())
            .unwrap_or_default();
        self.fit.predict_plus(strategy, &units, line.ms_per_row(fraction) * n, &draws)
    }

    /// Predicted nanoseconds (the point prediction).
    pub fn predict_ns(&self, strategy: &str, counters: &Counters, rows: u64) -> u64 {
        (self.predict(strategy, counters, rows).ms * 1e6).round() as u64
    }

    /// Terms whose units per row in this batch exceed twice the calibration's most, with the
    /// ratio: the forecast leaves the regimes the calibration saw.
    pub fn beyond(&self, strategy: &str, counters: &Counters, rows: u64) -> Vec<(Term, f64)> {
        let units = self.units(strategy, counters, rows);
        self.fit
            .terms
            .iter()
            .zip(units)
            .zip(&self.seen_per_row)
            .filter(|((t, _), _)| !t.structural())
            .filter_map(|((&t, u), &seen)| {
                let per_row = u / rows.max(1) as f64;
                (per_row > 2.0 * seen && per_row > 0.0)
                    .then(|| (t, if seen > 0.0 { per_row / seen } else { f64::INFINITY }))
            })
            .collect()
    }

    /// Records, for a stand-in `strategy`, whose calibration run it took.
    fn describe_stand_in(&self, strategy: &str, options: &mut BTreeMap<String, String>) {
        if let Some(calibrated) = self.stand_ins.get(strategy) {
            options.insert(
                "calibrated_as".into(),
                format!(
                    "no calibration run of its own: its rows land in the key's tree as {calibrated}'s do (the same source of keys, or keys that only increase, in the same column type), so its counts are priced at the costs fitted on the calibrated runs, with {calibrated}'s unexplained time and machine speeds"
                ),
            );
        }
    }

    /// Records the fit in `strategy`'s prediction's workload options.
    pub fn describe(&self, strategy: &str, options: &mut BTreeMap<String, String>) {
        let f = &self.fit;
        let costs: Vec<String> = f
            .terms
            .iter()
            .enumerate()
            .filter(|(_, t)| !f.left_out.iter().any(|(l, _)| l == *t))
            .map(|(j, t)| {
                let (lo, hi) = f.range(j);
                let us = |ms: f64| ms * 1000.0;
                format!("{:.3} µs per {} ({:.3}–{:.3})", us(f.ms_per_unit[j]), t.unit(), us(lo), us(hi))
            })
            .collect();
        options.insert(
            "timing".into(),
            format!("calibrated on a real run ({}; {}; bootstrap 90% ranges, costs that trade off against each other have wide ones): {}", self.plan.describe(), crate::util::text::count(f.batches, "batch"), costs.join(", ")),
        );
        self.describe_stand_in(strategy, options);
        options.insert(
            "calibration_error".into(),
            format!(
                "out of sample {:.1}% RMS, {:.1}% worst, {:+.1}% mean over {} later batches fitted on the first {:.0}% of rows (in sample {:.1}% RMS); intervals {:.0}%, a batch's scatter persisting at {} (0.5: it averages out as 1/√length in longer batches; 1: not at all)",
                f.holdout.rms * 100.0,
                f.holdout.max_abs * 100.0,
                f.holdout.mean * 100.0,
                f.holdout.batches,
                super::fit::EARLY_SHARE * 100.0,
                f.in_sample_rms * 100.0,
                super::fit::INTERVAL * 100.0,
                f.persistence.map_or_else(
                    || "0.50, assumed (too few pairs of held-out batches to measure it)".into(),
                    |h| format!("{h:.2}")
                )
            ) + &f.machine.as_ref().map_or_else(String::new, |m| format!("; {}", m.describe())),
        );
        if !f.leave_one_out.is_empty() {
            let each: Vec<String> = f.leave_one_out.iter().map(|(g, e)| format!("{g} {:.1}%", e * 100.0)).collect();
            options.insert(
                "calibration_leave_one_out".into(),
                format!("RMS error of each strategy under costs fitted on the others alone: {}", each.join(", ")),
            );
        }
        if let Some(d) = &self.device {
            let above: Vec<String> = d
                .above_page_ceiling(&f.terms, &f.ms_per_unit)
                .iter()
                .map(|(t, us)| format!("{us:.1} µs per {}", t.unit()))
                .collect();
            if !above.is_empty() {
                options.insert(
                    "calibration_above_probes".into(),
                    format!(
                        "the fit's {} {} above the most the probes timed any page costing ({:.1} µs: a read from the device, a write at random, a sync): such a cost stands for work the model does not count (on your own table, its other indexes) that rose and fell with this count in the calibration, so a key whose count grows more toward the target than over the calibration is forecast high",
                        above.join(" and "),
                        if above.len() > 1 { "are" } else { "is" },
                        d.page_ceiling_us()
                    ),
                );
            }
            options.insert("device_costs".into(), format!("from the micro-probes, each the median of the moments probed (each moment the fastest of three rounds), as lower bounds of the fitted costs (the WAL-index search between its probe and 2× it): {}", d.describe()));
        }
        if let Some(m) = &self.machine {
            options.insert("machine".into(), m.describe());
        }
        if let Some(w) = &self.working_set {
            options.insert(
                "working_set".into(),
                format!(
                    "{}; taken off the calibration's batches at the size their jumps landed in (its cache, or its memtable), added to the forecast's at the target's",
                    w.describe()
                ),
            );
        }
        if !f.pinned.is_empty() {
            let pinned: Vec<&str> = f.pinned.iter().map(|t| t.unit()).collect();
            options.insert(
                "calibration_pinned".into(),
                format!(
                    "the batches could not tell these costs from the others; each is its probe's: per {}",
                    pinned.join(", per ")
                ),
            );
        }
        if !f.left_out.is_empty() {
            let left: Vec<String> = f.left_out.iter().map(|(t, why)| format!("per {}: {why}", t.unit())).collect();
            options.insert("calibration_left_out".into(), left.join("; "));
        }
        if self.carries_unexplained {
            let lines: Vec<String> = self
                .unexplained
                .iter()
                .map(|(s, u)| {
                    let (start, end) = (u.ms_per_row(0.0) * 1e3, u.ms_per_row(1.0) * 1e3);
                    format!("{s} {start:.2} µs per row at the calibration's start, {end:.2} at its end")
                })
                .collect();
            options.insert("calibration_unexplained".into(), lines.join("; "));
        }
    }

    /// Fits the costs to a real run's `runs` made as `plan` says, with the model's counts for
    /// the same batches; each cost within the bounds the device probes set, and the growths
    /// the probes measured (larger files, a larger cache in use) taken off, if given.
    pub fn from_runs(
        runs: &[RunResult],
        strategies: &[&Strategy],
        plan: CalibrationPlan,
        probes: Probes,
    ) -> Result<Calibration, Error> {
        Self::from_table_runs(runs, strategies, plan, probes, None)
    }

    /// [`Calibration::from_runs`] of runs that inserted a user's `table` (`run --schema`'s
    /// rows, as many as the plan's), whose secondary indexes the engine's model keeps where it
    /// can ([`ModelEngine::build_table_model`]).
    pub fn from_table_runs(
        runs: &[RunResult],
        strategies: &[&Strategy],
        plan: CalibrationPlan,
        probes: Probes,
        table: Option<&OwnSchema>,
    ) -> Result<Calibration, Error> {
        let Probes { device, working_set, machine_ns } = probes;
        let machine = MachineSpeed::of(runs, machine_ns);
        let cache_bytes = plan.cache_pages() * u64::from(plan.page_size);
        let terms = Term::for_engine(plan.engine).to_vec();
        let mut shapes = BTreeMap::new();
        let mut obs = Vec::new();
        let mut rows = Vec::new();
        let mut seen_per_row = vec![0.0_f64; terms.len()];
        for s in strategies {
            let run = runs
                .iter()
                .find(|r| r.strategy == s.name && !r.batches.is_empty())
                .ok_or_else(|| no_batches_of(s.name))?;
            let shape = Shape::of(plan.engine, s, plan.payload_bytes, plan.page_size)?;
            shapes.insert(s.name.to_string(), shape);
            let mut model: Box<dyn super::PageModel> = match plan.engine {
                // SQLite's calibration cache is set in KiB, finer than --cache-mb.
                ModelEngine::Sqlite => {
                    let layout = Layout::sqlite(s, plan.payload_bytes as u32, plan.page_size)?;
                    Box::new(Model::new(s, layout, plan.seed, plan.cache_pages(), false))
                }
                // The tree the real run's server had (its recorded options).
                ModelEngine::MyRocks => {
                    let shape = LsmShape::from_settings(&run.settings.engine);
                    Box::new(LsmModel::new(s, plan.payload_bytes, plan.seed, plan.rows, shape)?)
                }
                // The real run's cluster checkpointed after 1/k of the WAL.
                ModelEngine::Postgres => Box::new(super::engine::postgres_of_table(
                    PostgresModel::new(s, plan.payload_bytes, plan.seed, plan.cache_mb(), 1)?
                        .with_checkpoint_scale(plan.checkpoint_scale),
                    s,
                    table,
                )?),
                ModelEngine::MariaDb | ModelEngine::Spider | ModelEngine::PostgresFdw => {
                    plan.engine.build_table_model(s, &plan.model_config(), table)?
                }
            };
            let full = run.batches.iter().map(|b| b.rows).max().unwrap_or(0);
            for (i, b) in run.batches.iter().enumerate() {
                let c = model.insert_batch(b.rows);
                if let Some(e) = model.take_error() {
                    return Err(e);
                }
                if is_remainder(b.rows, full) {
                    continue;
                }
                let x: Vec<f64> = terms.iter().map(|t| t.value(shape, &c, b.rows)).collect();
                // The fit prices a miss at the probe's smallest file; the probe prices the rest.
                let files = model.size_bytes();
                let growth = device.map_or(0.0, |d| d.read_growth_ms(plan.engine, c.reads(), files))
                    + working_set
                        .as_ref()
                        .map_or(0.0, |w| w.growth_ms(c.leaf_jumps.unwrap_or(0), model.jump_in_use(cache_bytes, 1)));
                for (seen, v) in seen_per_row.iter_mut().zip(&x) {
                    *seen = seen.max(v / b.rows.max(1) as f64);
                }
                rows.push(b.rows);
                obs.push(super::fit::Observation {
                    group: s.name.to_string(),
                    position: b.rows_total as f64 / plan.rows as f64,
                    x,
                    ms: (b.elapsed_ns as f64 / 1e6 - growth).max(0.0),
                    machine: machine.and_then(|m| canary::slowdown(&run.batches, i, m.median_ns)).map(|s| 1.0 + s),
                });
            }
        }
        let bounds = match device {
            Some(d) => d.bounds(plan.engine, &terms),
            None => vec![UNBOUNDED; terms.len()],
        };
        let fit = TimeFit::fit_bounded(&terms, &obs, &bounds)?;
        let unexplained = Unexplained::of(&fit, &obs, &rows);
        let unexplained_draws = Unexplained::draws(&fit, &obs, &rows);
        Ok(Calibration {
            fit,
            plan,
            shapes,
            seen_per_row,
            device,
            working_set,
            memory: None,
            machine,
            unexplained,
            unexplained_draws,
            carries_unexplained: false,
            batch_rows: rows,
            stand_ins: BTreeMap::new(),
        })
    }
}

/// The batch of at least `batch` rows that splits `rows` into as many batches as `batch` fits
/// whole, the last one a little shorter at most (100,000 rows in batches of 3,333 would end with
/// 10; in batches of 3,334 they end with 3,314).
fn evened(batch: u64, rows: u64) -> u64 {
    rows.div_ceil((rows / batch.max(1)).max(1))
}

/// Whether a batch of `rows` is the short remainder a run ends with when its batch of `full`
/// rows does not divide its rows (a calibration of 100,000 rows in batches of 3,333 ends with
/// 10): the model still inserts it, the fit leaves it out. Its time is mostly its commit's, a
/// cost a batch of thousands of rows spreads thin, so its time per row is many times the
/// others' and, fitted on relative errors with the same weight as a whole batch, it would pull
/// its strategy's costs towards a kind of work the target's batches hardly do.
fn is_remainder(rows: u64, full: u64) -> bool {
    rows * REMAINDER_SHARE < full
}

/// Fits a [`Calibration`] to an existing real run's batches of `strategies` on `engine` (SQLite,
/// or a PostgreSQL or MariaDB server) within its first `rows` rows (e.g. the first tenth of a
/// long run, to predict the rest); the plan is read from the run's settings. `probes`: as
/// [`Calibration::from_runs`].
pub fn from_results(
    doc: &ResultsDoc,
    engine: ModelEngine,
    strategies: &[&Strategy],
    rows: u64,
    probes: Probes,
) -> Result<Calibration, Error> {
    let (runs, plan) = recorded_runs(doc, engine, strategies, rows)?;
    Calibration::from_runs(&runs, strategies, plan, probes)
}

/// Whether [`from_results`] can fit `doc`: its runs of `strategies` on `engine` within its first
/// `rows` rows, replayed through the model and fitted without the device's probes (whose costs
/// only move the times, never which costs the fit needs). Called before anything is probed.
pub fn check_results(doc: &ResultsDoc, engine: ModelEngine, strategies: &[&Strategy], rows: u64) -> Result<(), Error> {
    from_results(doc, engine, strategies, rows, Probes::default()).map(|_| ())
}

/// The runs of `doc` a calibration fits (see [`from_results`]) and the plan they were run with.
fn recorded_runs(
    doc: &ResultsDoc,
    engine: ModelEngine,
    strategies: &[&Strategy],
    rows: u64,
) -> Result<(Vec<RunResult>, CalibrationPlan), Error> {
    let runs: Vec<RunResult> = doc
        .runs
        .iter()
        .filter(|r| r.engine == engine.name() && strategies.iter().any(|s| s.name == r.strategy))
        .map(|r| {
            let mut r = r.clone();
            r.batches.retain(|b| b.rows_total <= rows);
            r
        })
        .collect();
    let first = runs.iter().find(|r| !r.batches.is_empty()).ok_or_else(|| {
        Error::InvalidInput(format!(
            "the calibration file has no {} batches within its first {rows} rows: pass a results.json from pkbench run --engine {} with these strategies",
            engine.label(),
            engine.name()
        ))
    })?;
    let settings = &first.settings.engine;
    let (page_size, cache_kib) = page_and_cache(engine, settings).ok_or_else(|| {
        Error::InvalidInput(format!(
            "the calibration file does not record {}'s page size and cache: pass a results.json from pkbench run",
            engine.label()
        ))
    })?;
    let plan = CalibrationPlan {
        engine,
        rows: rows.min(first.settings.rows),
        batch_rows: first.settings.batch_rows,
        cache_kib,
        page_size,
        payload_bytes: first.settings.payload_bytes,
        seed: first.settings.seed,
        checkpoint_scale: recorded_checkpoint_scale(engine, settings),
        server_major: None,
    };
    Ok((runs, plan))
}

fn no_batches_of(strategy: &str) -> Error {
    Error::InvalidInput(format!("the calibration has no batches of '{strategy}': calibrate every strategy predicted"))
}

/// The checkpoint scale of a calibration at `rows` for a target of `target_rows` on `engine`:
/// how much sooner than the target's its server writes its changes out to files
/// ([`ManagedOptions::checkpoint_scale`](crate::engines::server::ManagedOptions::checkpoint_scale)).
///
/// - PostgreSQL: the largest power of two up to both their ratio and [`MAX_CHECKPOINT_SCALE`].
///   A managed cluster checkpoints every two WAL segments; with 1/k of the target's rows and
///   cache, a calibration whose segments are 1/k as large sees what the target sees between
///   checkpoints — the same share of each index's pages written once more as a full-page image
///   — where 16 MiB segments would leave its smaller indexes nearly free of them.
/// - MyRocks: their ratio, up to [`myrocks::MAX_TREE_SCALE`]. A calibration whose memtable,
///   files and levels are 1/k the target's flushes and compacts as often per row, and its
///   unique-key checks meet as many files' bloom filters, as the target's; at the default sizes
///   a 1M-row calibration of uuid4 flushes once and never compacts, so it could not tell what a
///   filter check or a compacted byte costs from what a row does.
/// - The other engines: 1, their own.
pub fn checkpoint_scale(engine: ModelEngine, target_rows: u64, rows: u64) -> u64 {
    let ratio = (target_rows / rows.max(1)).max(1);
    match engine {
        ModelEngine::Postgres => 1 << ratio.min(MAX_CHECKPOINT_SCALE).ilog2(),
        ModelEngine::MyRocks => ratio.min(myrocks::MAX_TREE_SCALE),
        ModelEngine::Sqlite | ModelEngine::MariaDb | ModelEngine::Spider | ModelEngine::PostgresFdw => 1,
    }
}

/// The checkpoint scale a recorded run ran with: on PostgreSQL the one whose `max_wal_size`
/// ([`WalSize`]) it records, on MyRocks the one whose memtable (`write_buffer_size`) it records;
/// 1 for any other value, or an engine whose calibration keeps its own.
pub(crate) fn recorded_checkpoint_scale(engine: ModelEngine, settings: &BTreeMap<String, String>) -> u64 {
    match engine {
        ModelEngine::Postgres => {
            let recorded = settings.get("max_wal_size");
            (1..=MAX_CHECKPOINT_SCALE.ilog2())
                .map(|e| 1u64 << e)
                .find(|&k| WalSize::scaled(Some(k)).is_ok_and(|w| recorded == Some(&format!("{}MB", w.max_mb))))
                .unwrap_or(1)
        }
        ModelEngine::MyRocks => myrocks::tree_scale_of(LsmShape::from_settings(settings).memtable_bytes as u64),
        ModelEngine::Sqlite | ModelEngine::MariaDb | ModelEngine::Spider | ModelEngine::PostgresFdw => 1,
    }
}

/// A recorded run's page size and cache (KiB), from the settings its engine reports.
fn page_and_cache(engine: ModelEngine, settings: &BTreeMap<String, String>) -> Option<(u32, u64)> {
    let get = |k: &str| settings.get(k).map(String::as_str);
    match engine {
        ModelEngine::Sqlite => {
            let page: u32 = get("page_size").and_then(|v| v.parse().ok()).unwrap_or(4096);
            let kib = match get("cache_size")?.parse::<i64>().ok()? {
                kib if kib < 0 => kib.unsigned_abs(),
                pages => pages as u64 * (u64::from(page) + CACHE_EXTRA_BYTES) / 1024,
            };
            Some((page, kib))
        }
        ModelEngine::Postgres | ModelEngine::PostgresFdw => {
            // SHOW shared_buffers: "128kB", "8MB", "1GB".
            let v = get("shared_buffers")?;
            let digits = v.trim_end_matches(|c: char| c.is_ascii_alphabetic());
            let unit_kib = match &v[digits.len()..] {
                "kB" => 1,
                "MB" => 1024,
                "GB" => 1 << 20,
                _ => return None,
            };
            Some((8192, digits.parse::<u64>().ok()? * unit_kib))
        }
        ModelEngine::MariaDb | ModelEngine::Spider => {
            let page = get("innodb_page_size").and_then(|v| v.parse().ok()).unwrap_or(16384);
            Some((page, get("innodb_buffer_pool_size")?.parse::<u64>().ok()? / 1024))
        }
        // Block-based tables' default 16 KiB blocks (what MyRocks' cache counts in).
        ModelEngine::MyRocks => Some((16384, get("rocksdb_block_cache_size")?.parse::<u64>().ok()? / 1024)),
    }
}

/// A fresh real engine for the run of the strategy at the given place among a real run's
/// strategies (from 0), and the environment it runs in.
pub type OpenEngine<'a> = dyn FnMut(usize) -> Result<(Box<dyn Engine>, Environment), Error> + 'a;

/// Runs `workload` for each strategy on an engine of its own from `open` (the calibration, or
/// `--check`'s real run; `flag` names which in the recorded command): the plain table of
/// insert-growth, or a user's table (`run --schema`'s rows), reading the engine's counters
/// within `budget`. One engine per strategy:
/// what a strategy leaves on a server would tilt the next one's run — on PostgreSQL, the WAL
/// a managed cluster keeps for `pg_walinspect` slowed uuid7's batches by a quarter once int's
/// 5M rows had run before it, and not at all on a cluster of its own — and the model forecasts
/// each key on a fresh table of a fresh engine.
pub fn run_real(
    strategies: &[&'static Strategy],
    open: &mut OpenEngine<'_>,
    workload: &dyn Workload,
    control: &RunControl,
    flag: &str,
    budget: CounterBudget,
) -> Result<ResultsDoc, Error> {
    let timer = MonotonicTimer::default();
    let canaries = canary::Canaries::default();
    let ctx = CaseContext { control, timer: &timer, observer: &canaries, counter_budget: budget };
    let mut doc: Option<ResultsDoc> = None;
    for (place, &strategy) in strategies.iter().enumerate() {
        let (mut engine, environment) = open(place)?;
        let run_plan = RunPlan {
            workload,
            strategies: vec![strategy],
            command: vec!["pkbench".into(), "predict".into(), flag.into()],
        };
        let mut outcome = run(&run_plan, engine.as_mut(), environment, None, &ctx)?;
        if let Some(e) = outcome.error {
            return Err(e);
        }
        canaries.attach(&mut outcome.doc);
        match doc.as_mut() {
            None => doc = Some(outcome.doc),
            Some(d) => d.runs.extend(outcome.doc.runs),
        }
    }
    doc.ok_or_else(|| Error::InvalidInput(format!("{flag} needs at least one strategy")))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::results::BatchResult;

    #[test]
    fn a_calibration_held_above_the_targets_pressure_says_by_how_much_and_what_reaches_it() {
        let target = |cache_mb| PredictConfig {
            rows: 10_000_000,
            batch_rows: 100_000,
            payload_bytes: 50,
            seed: 1,
            page_size: 16384,
            cache_mb,
            mode: Mode::Exact,
            scale: 1,
        };
        // A 128 MiB buffer pool scaled to 200k of 10M rows is 2.56 MiB; InnoDB takes at least 6.
        let pool = target(128);
        let plan = CalibrationPlan::for_target(ModelEngine::MariaDb, &pool, 200_000).unwrap();
        assert_eq!(plan.cache_kib, 6 * 1024);
        let floor = plan.cache_floor(&pool).expect("held above the target's pressure");
        assert!((floor.times - 6.0 / 2.56).abs() < 1e-9, "{}", floor.times);
        assert!(floor.least, "InnoDB's least pool set it");
        assert_eq!(floor.rows_at_pressure, 468_750);
        let there = CalibrationPlan::for_target(ModelEngine::MariaDb, &pool, floor.rows_at_pressure).unwrap();
        assert_eq!(there.cache_floor(&pool), None, "at those rows the pressure is the target's");
        // A 1 GiB pool scales to 20 MiB: at the target's pressure.
        let large = target(1024);
        assert_eq!(
            CalibrationPlan::for_target(ModelEngine::MariaDb, &large, 200_000).unwrap().cache_floor(&large),
            None
        );
        // 64 MiB of shared_buffers scale to 1.28 MiB: whole MiB make it 2, not PostgreSQL's least.
        let buffers = PredictConfig { page_size: 8192, ..target(64) };
        let rounded = CalibrationPlan::for_target(ModelEngine::Postgres, &buffers, 200_000).unwrap();
        assert_eq!(rounded.cache_kib, 2 * 1024);
        let floor = rounded.cache_floor(&buffers).expect("rounded above the target's pressure");
        assert!(!floor.least, "whole MiB set it");
    }

    /// Real SQLite runs of int and uuid4, 30,000 rows each in batches of 1,000, as a
    /// calibration of a 60,000-row target makes them, and how many engines they opened.
    #[cfg(feature = "sqlite")]
    fn real_sqlite_calibration(dir: &std::path::Path) -> (CalibrationPlan, Vec<&'static Strategy>, ResultsDoc, u32) {
        let target = PredictConfig {
            rows: 60_000,
            batch_rows: 2_000,
            payload_bytes: 20,
            seed: 1,
            page_size: 4096,
            cache_mb: 1,
            mode: Mode::Exact,
            scale: 1,
        };
        let plan = CalibrationPlan::for_target(ModelEngine::Sqlite, &target, 30_000).unwrap();
        assert_eq!(plan.batch_rows, 1_000, "a scaled batch");
        let strategies: Vec<&'static Strategy> =
            ["int", "uuid4"].iter().map(|n| crate::strategy::find(n).unwrap()).collect();
        let mut opened = 0;
        let mut open = |_| {
            opened += 1;
            let engine = crate::engines::sqlite::SqliteEngine::new(plan.sqlite_settings(dir.to_path_buf()))?;
            let environment = Environment::detect("sqlite", "test", dir);
            Ok((Box::new(engine) as Box<dyn Engine>, environment))
        };
        let doc = run_real(
            &strategies,
            &mut open,
            &plan.workload().unwrap(),
            &RunControl::new(),
            "--check",
            CounterBudget::Unlimited,
        )
        .unwrap();
        (plan, strategies, doc, opened)
    }

    #[cfg(feature = "sqlite")]
    #[test]
    fn each_strategy_runs_on_an_engine_of_its_own() {
        let dir = tempfile::tempdir().unwrap();
        let (_, _, doc, opened) = real_sqlite_calibration(dir.path());
        assert_eq!(opened, 2);
        let names: Vec<&str> = doc.runs.iter().map(|r| r.strategy.as_str()).collect();
        assert_eq!(names, ["int", "uuid4"]);
        assert!(doc.runs.iter().all(|r| r.complete && r.verified_rows == Some(30_000)), "{:?}", doc.runs);
    }

    #[cfg(feature = "sqlite")]
    #[test]
    fn a_stand_in_is_priced_as_the_strategy_whose_run_it_took() {
        let dir = tempfile::tempdir().unwrap();
        let (plan, strategies, doc, _) = real_sqlite_calibration(dir.path());
        let calibration =
            Calibration::from_runs(&doc.runs, &strategies, plan, Probes::default()).unwrap().carrying_unexplained();
        // The mapping itself: which pairs may be made is the request's check.
        let (stand_in, int) = (crate::strategy::find("int-client").unwrap(), strategies[0]);
        let counters = Counters { pages_written: Some(40), cache_misses: Some(30), ..Counters::default() };
        let alone = calibration.predict_at("int-client", &counters, 1_000, 0.5);
        assert!(calibration.unexplained_of("int").is_some() && calibration.unexplained_of("int-client").is_none());
        let calibration = calibration.with_stand_ins(&[(stand_in, int)]);
        assert_eq!(calibration.calibrated_as("int-client"), "int");
        assert_eq!(calibration.unexplained_of("int-client"), calibration.unexplained_of("int"));
        let taken = calibration.predict_at("int-client", &counters, 1_000, 0.5);
        assert_eq!(taken, calibration.predict_at("int", &counters, 1_000, 0.5));
        assert_ne!(taken, alone, "without the stand-in its own (empty) line and speeds");
        let mut options = BTreeMap::new();
        calibration.describe("int-client", &mut options);
        assert!(options["calibrated_as"].contains("as int's do"), "{options:?}");
        let mut options = BTreeMap::new();
        calibration.describe("uuid4", &mut options);
        assert!(!options.contains_key("calibrated_as"));
    }

    #[cfg(feature = "sqlite")]
    #[test]
    fn a_runs_short_last_batch_does_not_move_the_fitted_costs() {
        let dir = tempfile::tempdir().unwrap();
        let (plan, strategies, doc, _) = real_sqlite_calibration(dir.path());
        let fitted = |runs: &[RunResult]| Calibration::from_runs(runs, &strategies, plan, Probes::default()).unwrap();
        let whole = fitted(&doc.runs);
        // Each run ends with 10 rows more, whose commit took 50 ms: 5,000 µs a row (its canary
        // untimed, so that the machine's speed stays the same).
        let mut tailed = doc.runs.clone();
        for run in &mut tailed {
            let last = run.batches.last().unwrap().clone();
            run.batches.push(BatchResult {
                index: last.index + 1,
                rows: 10,
                rows_total: last.rows_total + 10,
                elapsed_ns: 50_000_000,
                machine_ns: None,
                ..last
            });
        }
        let with_tail = fitted(&tailed);
        assert_eq!(with_tail.fit.ms_per_unit, whole.fit.ms_per_unit);
        assert_eq!(with_tail.batch_rows.len(), whole.batch_rows.len(), "the remainder is not fitted");
        assert!(!is_remainder(1_000, 1_000) && !is_remainder(500, 1_000) && is_remainder(499, 1_000));
        // A plan's own batches leave none.
        assert_eq!((evened(3_333, 100_000), evened(2_000, 200_000), evened(1_000, 30_999)), (3_334, 2_000, 1_034));
    }

    #[test]
    fn a_recorded_runs_page_and_cache_are_read_per_engine() {
        let settings = |pairs: &[(&str, &str)]| pairs.iter().map(|(k, v)| (k.to_string(), v.to_string())).collect();
        let read = |e, pairs: &[(&str, &str)]| page_and_cache(e, &settings(pairs));
        assert_eq!(read(ModelEngine::Sqlite, &[("cache_size", "-819"), ("page_size", "4096")]), Some((4096, 819)));
        assert_eq!(read(ModelEngine::Sqlite, &[("cache_size", "100")]), Some((4096, 100 * (4096 + 136) / 1024)));
        assert_eq!(read(ModelEngine::Postgres, &[("shared_buffers", "8MB")]), Some((8192, 8192)));
        assert_eq!(read(ModelEngine::Postgres, &[("shared_buffers", "128kB")]), Some((8192, 128)));
        assert_eq!(read(ModelEngine::Postgres, &[("shared_buffers", "lots")]), None);
        assert_eq!(read(ModelEngine::MariaDb, &[("innodb_buffer_pool_size", "6291456")]), Some((16384, 6144)));
        assert_eq!(read(ModelEngine::MariaDb, &[]), None);
    }

    /// A 10M-row MyRocks target with a 1 GiB block cache, in batches of `batch_rows`.
    fn myrocks_target(batch_rows: u64) -> PredictConfig {
        PredictConfig {
            rows: 10_000_000,
            batch_rows,
            payload_bytes: 50,
            seed: 1,
            page_size: 16384,
            cache_mb: 1024,
            mode: Mode::Exact,
            scale: 1,
        }
    }

    #[test]
    fn an_lsm_calibration_keeps_the_targets_batch_or_says_how_many_rows_it_needs() {
        let target = myrocks_target(100_000);
        let e = CalibrationPlan::for_target(ModelEngine::MyRocks, &target, 1_000_000).unwrap_err().to_string();
        assert!(e.contains("use --calibrate-rows 3000000 or more, or a smaller --batch"), "{e}");
        let target = PredictConfig { batch_rows: 25_000, ..target };
        let plan = CalibrationPlan::for_target(ModelEngine::MyRocks, &target, 1_000_000).unwrap();
        assert_eq!((plan.batch_rows, plan.cache_mb()), (25_000, 103), "the target's batch, a scaled cache");
    }

    #[test]
    fn a_postgres_calibration_checkpoints_after_the_share_of_the_wal_its_rows_are() {
        let target = PredictConfig {
            rows: 1_000_000,
            batch_rows: 100_000,
            payload_bytes: 50,
            seed: 1,
            page_size: 8192,
            cache_mb: 64,
            mode: Mode::Exact,
            scale: 1,
        };
        let scale = |engine, rows| CalibrationPlan::for_target(engine, &target, rows).unwrap().checkpoint_scale;
        assert_eq!(scale(ModelEngine::Postgres, 100_000), 8, "a tenth of the rows: the power of two below 10");
        assert_eq!(scale(ModelEngine::Postgres, 1_000_000), 1, "the target's own rows");
        assert_eq!(scale(ModelEngine::Sqlite, 100_000), 1, "only PostgreSQL's checkpoints follow its WAL");
        assert_eq!(
            checkpoint_scale(ModelEngine::Postgres, 1_000_000_000, 1_000_000),
            MAX_CHECKPOINT_SCALE,
            "no segment below 1 MiB"
        );
        let settings = |v: &str| BTreeMap::from([("max_wal_size".to_string(), v.to_string())]);
        assert_eq!(recorded_checkpoint_scale(ModelEngine::Postgres, &settings("8MB")), 8);
        assert_eq!(recorded_checkpoint_scale(ModelEngine::Postgres, &settings("64MB")), 1);
        assert_eq!(recorded_checkpoint_scale(ModelEngine::Postgres, &settings("10GB")), 1, "a user's own size");
        assert_eq!(recorded_checkpoint_scale(ModelEngine::MariaDb, &settings("8MB")), 1);
    }

    #[test]
    fn a_new_calibration_takes_200k_rows_on_sqlite_and_mariadb_else_1m() {
        assert_eq!(default_rows(ModelEngine::Sqlite, false), 200_000);
        assert_eq!(default_rows(ModelEngine::MariaDb, false), 200_000);
        assert_eq!(default_rows(ModelEngine::Postgres, false), 1_000_000, "its 200k intervals missed");
        assert_eq!(default_rows(ModelEngine::MyRocks, false), 1_000_000);
        assert_eq!(default_rows(ModelEngine::Sqlite, true), 1_000_000, "a saved run costs no inserting");
    }

    #[test]
    fn a_myrocks_calibration_flushes_and_compacts_a_tree_the_share_of_the_targets_its_rows_are() {
        let target = myrocks_target(25_000);
        let scale = |rows| CalibrationPlan::for_target(ModelEngine::MyRocks, &target, rows).unwrap().checkpoint_scale;
        assert_eq!(scale(1_000_000), 10, "a tenth of the rows: a tenth of the tree, not a power of two");
        assert_eq!(scale(10_000_000), 1, "the target's own rows");
        assert_eq!(checkpoint_scale(ModelEngine::MyRocks, 1_000_000_000, 1_000_000), myrocks::MAX_TREE_SCALE);
        let memtable = |v: &str| BTreeMap::from([("rocksdb_cf_write_buffer_size".to_string(), v.to_string())]);
        assert_eq!(recorded_checkpoint_scale(ModelEngine::MyRocks, &memtable("6710886")), 10);
        assert_eq!(recorded_checkpoint_scale(ModelEngine::MyRocks, &memtable("67108864")), 1);
        assert_eq!(recorded_checkpoint_scale(ModelEngine::MyRocks, &memtable("5000000")), 1, "a user's own size");
    }
}
