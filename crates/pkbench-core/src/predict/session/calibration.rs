//! The calibration step of a forecast: a real run of each strategy with the device probed
//! before each, or an existing run's batches with the device probed now; then the working set
//! (SQLite's cache, MyRocks' memtable), and the fit.

use super::PredictSession;
use super::event::{PredictEvent, PredictObserver};
use super::request::CalibrationStep;
use crate::Error;
use crate::control::RunControl;
use crate::engines::EngineKind;
use crate::metrics::budget::CounterBudget;
use crate::predict::probe::{DeviceCosts, Probes};
use crate::predict::working_set::WorkingSet;
use crate::predict::{Calibration, CalibrationPlan, PredictConfig, canary, from_results, memory, run_real};
use crate::report::ResultsWriter;
use crate::results::ResultsDoc;
use crate::workloads::Workload;
use std::path::Path;

/// How the calibration step ended.
pub(super) enum Calibrated {
    /// No calibration was asked for.
    Uncalibrated,
    /// The fitted calibration.
    Fitted(Box<Calibration>),
    /// The real runs or the memtable probe were interrupted: nothing to predict.
    Interrupted,
}

impl PredictSession<'_> {
    /// The calibration the plan asks for, if any, fitted; a stop during its real runs or its
    /// probes ends it as interrupted.
    pub(super) fn calibrate(&mut self) -> Result<Calibrated, Error> {
        let fitted = match self.plan.calibration.clone() {
            None => return Ok(Calibrated::Uncalibrated),
            Some(CalibrationStep::Run(plan)) => self.calibrate_by_run(plan),
            Some(CalibrationStep::File { doc, rows }) => self.calibrate_from_file(&doc, rows),
        };
        match fitted {
            Err(Error::Interrupted) => Ok(Calibrated::Interrupted),
            fitted => fitted.map(|c| Calibrated::Fitted(Box::new(c))),
        }
    }

    /// A real run of each strategy as `plan` says, saved in the results folder's
    /// `calibration/`. The probes time the folder each strategy's engine writes to, while it
    /// exists, before each strategy's run: a few moments spread over the calibration, each
    /// cost the median.
    fn calibrate_by_run(&mut self, plan: CalibrationPlan) -> Result<Calibration, Error> {
        let dir = self.plan.out_dir.join("calibration");
        let writer = ResultsWriter::create(&dir)?;
        self.observer.event(&PredictEvent::Calibrating { plan: &plan, stand_ins: &self.plan.stand_ins });
        let config = &self.plan.config;
        let mut moments: Vec<DeviceCosts> = Vec::new();
        let mut canaries = Vec::new();
        let calibrated = self.plan.calibrated_strategies();
        let (engines, observer, strategies) = (&mut self.engines, &mut *self.observer, &calibrated);
        let mut open = |place: usize| {
            let real = engines.open(&plan, &dir)?;
            let costs = canary::around(
                || match moments.first() {
                    None => probe_device(&real.data_dir, plan.engine, config, observer),
                    Some(d) => d.measure_again(&real.data_dir),
                },
                &mut canaries,
            )?;
            moments.push(costs);
            observer.event(&PredictEvent::real_run(strategies, place));
            Ok((real.engine, real.environment))
        };
        let plain = plan.workload()?;
        let workload: &dyn Workload = match self.plan.calibration_table.as_deref() {
            Some(table) => table,
            None => &plain,
        };
        // The fit prices the model's counts of these batches, never the engine's, so the engine's
        // are read within `pkbench run`'s budget: reading them after every batch took PostgreSQL
        // three times as long as its ordered keys' inserts.
        let budget = CounterBudget::default();
        let doc = run_real(strategies, &mut open, workload, self.control, "--calibrate", budget)?;
        writer.write(&doc)?;
        // Said before the working-set probe, so that a stop during it still names the saved runs.
        self.observer.event(&PredictEvent::CalibrationWritten { dir: &dir });
        let device = DeviceCosts::median(&moments);
        if let Some(costs) = device.as_ref().filter(|_| moments.len() > 1) {
            self.observer.event(&PredictEvent::ProbedEachRun { moments: moments.len(), costs });
        }
        let working_set = self.probe_working_set(&mut canaries)?;
        let probes = Probes { device, working_set, machine_ns: canary::median(&canaries) };
        let table = self.plan.calibration_table.as_deref();
        let fit = Calibration::from_table_runs(&doc.runs, &calibrated, plan, probes, table)?
            .with_stand_ins(&self.plan.stand_ins);
        // A user's table: its other trees' time is what the key's tree leaves unexplained.
        Ok(if self.plan.calibration_table.is_some() { fit.carrying_unexplained() } else { fit })
    }

    /// An existing run's batches within its first `rows` rows, with the device probed in the
    /// results folder three times, seconds apart, each cost the median.
    fn calibrate_from_file(&mut self, doc: &ResultsDoc, rows: u64) -> Result<Calibration, Error> {
        let (engine, dir) = (self.plan.engine, self.plan.out_dir.clone());
        let mut canaries = Vec::new();
        let config = &self.plan.config;
        let observer = &mut *self.observer;
        let device = canary::around(|| probe_device(&dir, engine, config, &mut *observer), &mut canaries)?;
        let working_set = self.probe_working_set(&mut canaries)?;
        let observer = &mut *self.observer;
        // Two more moments, after the working-set probe: each cost the median of the three.
        let mut moments = vec![device];
        for _ in 0..2 {
            moments.push(canary::around(|| device.measure_again(&dir), &mut canaries)?);
        }
        let device = DeviceCosts::median(&moments).unwrap_or(device);
        observer.event(&PredictEvent::ProbedTwiceMore { costs: &device });
        let probes = Probes { device: Some(device), working_set, machine_ns: canary::median(&canaries) };
        let calibrated = self.plan.calibrated_strategies();
        Ok(from_results(doc, engine, &calibrated, rows, probes)?.with_stand_ins(&self.plan.stand_ins))
    }
}

/// The micro-probes' costs, timed in `dir` (where the engine writes), the cached-read curve up
/// to about the target's files (none past its first point for an engine that reads the device
/// directly, which it does not price).
fn probe_device(
    dir: &Path,
    engine: EngineKind,
    config: &PredictConfig,
    observer: &mut dyn PredictObserver,
) -> Result<DeviceCosts, Error> {
    let files = if memory::direct_io(engine) { 0 } else { target_bytes(config) };
    let costs = DeviceCosts::measure(dir, config.page_size, files)?;
    observer.event(&PredictEvent::ProbedDevice { costs: &costs });
    Ok(costs)
}

/// About the target's data, for the probes: rows × (payload + 100 bytes), within a quarter of
/// the memory.
fn target_bytes(config: &PredictConfig) -> u64 {
    let available = memory::available_bytes().unwrap_or(1 << 30);
    config.rows.saturating_mul(config.payload_bytes + 100).min(available / 4)
}

impl PredictSession<'_> {
    /// The working-set probe, with the machine's canary before and after it in `canaries`:
    /// SQLite's up to the target's cache in use (its cache, or about its data if smaller; within
    /// a quarter of the memory), in memory; MyRocks' up to the target's memtable, on a server of
    /// its own, unless every strategy forecast inserts each index's keys in order (none lands
    /// inside the memtable's key range), or without it, saying so, on a machine that cannot start
    /// that server; `None` on the other servers, where pkbench has none.
    fn probe_working_set(&mut self, canaries: &mut Vec<u64>) -> Result<Option<WorkingSet>, Error> {
        let (engine, config) = (self.plan.engine, &self.plan.config);
        let curve = match engine {
            EngineKind::Sqlite => {
                let largest = (engine.cache_pages(config) * u64::from(config.page_size)).min(target_bytes(config));
                canary::around(|| measure_working_set(config, largest), canaries)?
            }
            EngineKind::MyRocks if self.plan.strategies.iter().all(|s| s.inserts_in_key_order()) => return Ok(None),
            EngineKind::MyRocks => {
                let largest = crate::predict::lsm::Shape::MYROCKS.memtable_bytes as u64;
                let server_bin = self.plan.server_bin.as_deref();
                match canary::around(|| measure_memtable(config, largest, server_bin, self.control), canaries) {
                    // No MyRocks server here (a saved calibration's forecast): go on without it.
                    Err(Error::NotFound(reason)) => {
                        self.observer.event(&PredictEvent::WorkingSetUnprobed { reason: &reason });
                        return Ok(None);
                    }
                    curve => curve?,
                }
            }
            EngineKind::Postgres | EngineKind::MariaDb | EngineKind::Spider | EngineKind::PostgresFdw => {
                return Ok(None);
            }
        };
        self.observer.event(&PredictEvent::ProbedWorkingSet { curve: &curve });
        Ok(Some(curve))
    }
}

#[cfg(feature = "mysql")]
fn measure_memtable(
    config: &PredictConfig,
    largest: u64,
    server_bin: Option<&std::path::Path>,
    control: &RunControl,
) -> Result<WorkingSet, Error> {
    crate::predict::working_set::measure_myrocks(config.payload_bytes, largest, server_bin, control)
}

#[cfg(not(feature = "mysql"))]
fn measure_memtable(
    _config: &PredictConfig,
    _largest: u64,
    _server_bin: Option<&std::path::Path>,
    _control: &RunControl,
) -> Result<WorkingSet, Error> {
    Err(Error::NotFound(
        "this pkbench was built without the 'mysql' feature: rebuild with --features mysql to probe MyRocks' memtable"
            .into(),
    ))
}

#[cfg(feature = "sqlite")]
fn measure_working_set(config: &PredictConfig, largest: u64) -> Result<WorkingSet, Error> {
    crate::predict::working_set::measure_sqlite(config.page_size, config.payload_bytes, largest)
}

#[cfg(not(feature = "sqlite"))]
fn measure_working_set(_config: &PredictConfig, _largest: u64) -> Result<WorkingSet, Error> {
    Err(Error::InvalidInput(
        "this pkbench was built without the 'sqlite' feature: rebuild with --features sqlite to probe the working set"
            .into(),
    ))
}
