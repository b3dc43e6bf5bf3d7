//! Time from counts. A short real run designed to pin down each cost ([`CalibrationPlan`]: the
//! target's cache pressure, enough batches per cost), the model's counts for the same run, and
//! a fit of shared per-unit costs to the measured batch times ([`TimeFit`]). The only part of
//! `predict` that runs an engine, and only through the [`Engine`](crate::engines::Engine)
//! trait: SQLite, or a managed PostgreSQL, MariaDB or MyRocks server.

use super::ModelEngine;
use super::canary::{self, MachineSpeed};
use super::fit::{Predicted, TimeFit, UNBOUNDED};
use super::layout::Layout;
use super::lsm::{LsmModel, Shape as LsmShape};
use super::memory::Memory;
use super::model::Model;
use super::probe::{DeviceCosts, Probes};
use super::server::postgres::PostgresModel;
use super::terms::{Shape, Term};
use super::unexplained::Unexplained;
use super::working_set::WorkingSet;
use crate::Error;
use crate::results::{Counters, RunResult};
use crate::strategy::Strategy;
use crate::workloads::OwnSchema;
use std::collections::BTreeMap;

mod plan;
mod real;
mod recorded;

use plan::REMAINDER_SHARE;
pub use plan::{
    CacheFloor, CalibrationPlan, DEFAULT_ROWS, DEFAULT_ROWS_ELSEWHERE, MIN_BATCH_ROWS, MIN_BATCHES_PER_STRATEGY,
    MIN_CACHE_PAGES, checkpoint_scale, default_rows,
};
pub use real::{OpenEngine, run_real};
use recorded::no_batches_of;
pub(crate) use recorded::recorded_checkpoint_scale;
pub use recorded::{check_results, from_results};

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

/// Whether a batch of `rows` is the short remainder a run ends with when its batch of `full`
/// rows does not divide its rows (a calibration of 100,000 rows in batches of 3,333 ends with
/// 10): the model still inserts it, the fit leaves it out. Its time is mostly its commit's, a
/// cost a batch of thousands of rows spreads thin, so its time per row is many times the
/// others' and, fitted on relative errors with the same weight as a whole batch, it would pull
/// its strategy's costs towards a kind of work the target's batches hardly do.
fn is_remainder(rows: u64, full: u64) -> bool {
    rows * REMAINDER_SHARE < full
}

#[cfg(test)]
mod tests {
    use super::plan::evened;
    use super::*;
    use crate::control::RunControl;
    use crate::engines::Engine;
    use crate::metrics::budget::CounterBudget;
    use crate::predict::{Mode, PredictConfig};
    use crate::results::{BatchResult, Environment, ResultsDoc};

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
        let fitted =
            |runs: &[RunResult]| Calibration::from_runs(runs, &strategies, plan.clone(), Probes::default()).unwrap();
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
}
