//! A whole `pkbench predict`, from its flags to its figures, without a terminal: a
//! [`PredictRequest`] is validated once into a [`PredictPlan`] (every flag checked together,
//! nothing created yet); a page-model plan then runs as a [`PredictSession`] — calibration,
//! device probes, forecast, check — that tells a [`PredictObserver`] each step as it happens
//! and returns plain data for the caller to print.
//!
//! - [`request`]: the flags, their checks, the plans.
//! - `calibration`: the calibration's real runs or file, the probes, the fit.
//! - [`real`]: the real engines of the calibration and check runs.
//! - [`event`]: what the observer is told.
//! - `workers`: the strategies' forecasts side by side, one per core, told in the plan's order.
//! - [`shards`] and [`schema`]: the two models that only print.

mod calibration;
pub mod event;
pub mod real;
pub mod request;
pub mod schema;
mod servers;
pub mod shards;
#[cfg(test)]
mod tests;
mod workers;

pub use event::{PredictEvent, PredictObserver, Unobserved};
pub use real::{ManagedEngines, RealEngine, RealEngines};
pub use request::{
    CalibrationSource, CalibrationStep, CheckSource, CheckStep, Format, PagePlan, PredictPlan, PredictRequest,
    SchemaRequest,
};
pub use schema::{SchemaForecast, SchemaPlan};
pub use shards::ShardedPlan;

use crate::Error;
use crate::control::RunControl;
use crate::metrics::budget::CounterBudget;
use crate::predict::check::{self, BatchCheck};
use crate::predict::{Calibration, CalibrationPlan, run_real, table};
use crate::report::ResultsWriter;
use crate::results::{Environment, ResultsDoc, SCHEMA_VERSION};
use crate::util::time::rfc3339_now;
use calibration::Calibrated;
use std::fmt;
use std::ops::ControlFlow;
use std::path::PathBuf;
use workers::Forecasts;

/// A forecast that failed.
#[derive(Debug, thiserror::Error)]
pub enum PredictError {
    /// Before or after the forecast's strategies: nothing of the forecast is lost.
    #[error(transparent)]
    Failed(#[from] Error),
    /// A strategy's forecast failed; the strategies before it were saved.
    #[error("the prediction stopped (results so far are in {})", dir.display())]
    Stopped {
        /// The results folder.
        dir: PathBuf,
        /// Why.
        #[source]
        error: Error,
    },
}

/// A page forecast's results, saved.
#[derive(Clone, Debug)]
pub struct Forecast {
    /// Every strategy's predicted run.
    pub doc: ResultsDoc,
    /// The results folder.
    pub results_dir: PathBuf,
    /// Its HTML report.
    pub report_html: PathBuf,
}

impl Forecast {
    /// The table `pkbench predict` prints.
    pub fn render(&self) -> String {
        table::render(&self.doc)
    }
}

/// Where a forecast was interrupted (a stop asked through its [`RunControl`]).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Interruption {
    /// During the calibration (its real runs, or the memtable probe after them or beside a
    /// saved calibration): nothing predicted; the real runs that ended are saved.
    Calibration,
    /// During a strategy's forecast: the strategies so far are saved.
    Forecast {
        /// The results folder.
        results_dir: PathBuf,
    },
}

impl fmt::Display for Interruption {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Interruption::Calibration => f.write_str("Interrupted during the calibration; nothing predicted"),
            Interruption::Forecast { results_dir } => {
                write!(f, "Interrupted: results so far are in {}", results_dir.display())
            }
        }
    }
}

/// How [`PredictSession::forecast`] ended.
#[derive(Clone, Debug)]
pub enum Forecasted {
    /// Every strategy was forecast.
    Done(Box<Forecast>),
    /// A stop was asked.
    Interrupted(Interruption),
}

/// The forecast set against a real run.
#[derive(Clone, Debug)]
pub struct Checked {
    /// Each compared batch.
    pub checks: Vec<BatchCheck>,
    /// The real run.
    pub real: ResultsDoc,
}

impl Checked {
    /// Predicted against measured, as `pkbench predict` prints it.
    pub fn render(&self, forecast: &Forecast) -> String {
        check::render(&self.checks, &forecast.doc, &self.real)
    }
}

/// One page-model forecast: [`PredictSession::forecast`] calibrates (if asked) and forecasts
/// every strategy, saving results as each finishes; [`PredictSession::check`] then sets the
/// forecast against a real run (if asked).
pub struct PredictSession<'a> {
    plan: PagePlan,
    control: &'a RunControl,
    observer: &'a mut dyn PredictObserver,
    engines: Box<dyn RealEngines + 'a>,
    calibration: Option<Calibration>,
}

impl<'a> PredictSession<'a> {
    /// A forecast of `plan`, stopped through `control`, watched by `observer`; real runs on
    /// SQLite or managed servers ([`ManagedEngines`]).
    pub fn new(plan: PagePlan, control: &'a RunControl, observer: &'a mut dyn PredictObserver) -> Self {
        PredictSession { plan, control, observer, engines: Box::new(ManagedEngines), calibration: None }
    }

    /// The same forecast with its real runs on `engines`.
    pub fn with_engines(self, engines: impl RealEngines + 'a) -> Self {
        PredictSession { engines: Box::new(engines), ..self }
    }

    /// The plan forecast.
    pub fn plan(&self) -> &PagePlan {
        &self.plan
    }

    /// Creates the results folder, calibrates (if asked), and forecasts each strategy, writing
    /// the results after each.
    pub fn forecast(&mut self) -> Result<Forecasted, PredictError> {
        let writer = ResultsWriter::create(&self.plan.out_dir)?;
        let calibration = match self.calibrate()? {
            Calibrated::Uncalibrated => None,
            Calibrated::Fitted(c) => Some(*c),
            Calibrated::Interrupted => return Ok(Forecasted::Interrupted(Interruption::Calibration)),
        };
        let config = &self.plan.config;
        self.calibration = calibration.map(|c| {
            let ram = self.plan.ram_bytes.or_else(crate::predict::memory::available_bytes).unwrap_or(u64::MAX);
            c.with_memory(ram, config.cache_mb << 20)
        });
        let engine = self.plan.engine;
        let mut doc = ResultsDoc {
            schema_version: SCHEMA_VERSION,
            command: self.plan.command.clone(),
            started_at: rfc3339_now(),
            environment: Environment::detect(engine.model_name(), &engine.model_version(), &self.plan.out_dir),
            runs: Vec::new(),
        };
        let forecasts = Forecasts {
            engine,
            strategies: &self.plan.strategies,
            config: &self.plan.config,
            table: self.plan.table.as_deref(),
            calibration: self.calibration.as_ref(),
            control: self.control,
            faster_batch: self.plan.faster_batch,
        };
        // How the strategies' forecasts ended, if not each one complete.
        let mut ended: Option<Result<Forecasted, PredictError>> = None;
        forecasts.run(&mut *self.observer, &mut |result| {
            let outcome = match result {
                Ok(run) => {
                    let complete = run.complete;
                    doc.runs.push(run);
                    match writer.write(&doc) {
                        Err(e) => Err(e.into()),
                        Ok(()) if complete => return ControlFlow::Continue(()),
                        Ok(()) => {
                            let results_dir = writer.dir().to_path_buf();
                            Ok(Forecasted::Interrupted(Interruption::Forecast { results_dir }))
                        }
                    }
                }
                Err(error) => match writer.write(&doc) {
                    Err(e) => Err(e.into()),
                    Ok(()) => Err(PredictError::Stopped { dir: writer.dir().to_path_buf(), error }),
                },
            };
            ended = Some(outcome);
            ControlFlow::Break(())
        });
        if let Some(outcome) = ended {
            return outcome;
        }
        let (results_dir, report_html) = (writer.dir().to_path_buf(), writer.html_path());
        Ok(Forecasted::Done(Box::new(Forecast { doc, results_dir, report_html })))
    }

    /// The forecast against the real run the plan asks for (`None` if none): `--check`'s new
    /// run, saved in the results folder's `check/`, or `--check-from`'s file.
    pub fn check(&mut self, forecast: &Forecast) -> Result<Option<Checked>, PredictError> {
        let real = match self.plan.check.clone() {
            None => return Ok(None),
            Some(CheckStep::Run(plan)) => self.check_run(&plan)?,
            Some(CheckStep::File(doc)) => *doc,
        };
        // The machine's speed during the calibration, for the check's batches.
        let machine_ns = self.calibration.as_ref().and_then(|c| c.machine).map(|m| m.median_ns);
        let checks = check::compare(&forecast.doc, &real, machine_ns, check::within(self.plan.engine));
        if checks.is_empty() {
            return Err(check::no_batches_like().into());
        }
        Ok(Some(Checked { checks, real }))
    }

    /// `--check N`'s real run of each strategy, saved in the results folder's `check/`.
    fn check_run(&mut self, plan: &CalibrationPlan) -> Result<ResultsDoc, Error> {
        let dir = self.plan.out_dir.join("check");
        let writer = ResultsWriter::create(&dir)?;
        self.observer.event(&PredictEvent::Checking { rows: plan.rows, engine: plan.engine });
        let (engines, observer, strategies) = (&mut self.engines, &mut *self.observer, &self.plan.strategies);
        let mut open = |place: usize| {
            let real = engines.open(plan, &dir)?;
            observer.event(&PredictEvent::real_run(strategies, place));
            Ok((real.engine, real.environment))
        };
        // Each batch's counters are held to the model's.
        let budget = CounterBudget::Unlimited;
        let doc = run_real(strategies, &mut open, &plan.workload()?, self.control, "--check", budget)?;
        writer.write(&doc)?;
        Ok(doc)
    }
}
