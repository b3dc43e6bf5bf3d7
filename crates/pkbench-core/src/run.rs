//! Runs a workload over a list of strategies on one engine, writing results after each.

use crate::Error;
use crate::engines::Engine;
use crate::report::{Journal, ResultsWriter};
use crate::results::{BatchResult, Environment, ResultsDoc, RunResult, SCHEMA_VERSION};
use crate::strategy::Strategy;
use crate::util::time::rfc3339_now;
use crate::workloads::{CaseContext, Observer, Workload};

/// What to run: a workload, the strategies in order, and the command line to record.
pub struct RunPlan<'a> {
    /// The workload.
    pub workload: &'a dyn Workload,
    /// Strategies in run order.
    pub strategies: Vec<&'static Strategy>,
    /// The command line, recorded in results.
    pub command: Vec<String>,
}

/// A run's results, and the error that stopped it early, if any.
#[derive(Debug)]
pub struct RunOutcome {
    /// Everything measured, including an incomplete last run after an error.
    pub doc: ResultsDoc,
    /// The error that stopped the run.
    pub error: Option<Error>,
}

/// Runs `plan` on `engine`. Every strategy is checked against the engine before anything runs.
/// Results are written through `writer` (if given) after each strategy and after an error.
pub fn run(
    plan: &RunPlan<'_>,
    engine: &mut dyn Engine,
    environment: Environment,
    writer: Option<&ResultsWriter>,
    ctx: &CaseContext<'_>,
) -> Result<RunOutcome, Error> {
    for strategy in &plan.strategies {
        engine.check(strategy)?;
    }
    let mut doc = ResultsDoc {
        schema_version: SCHEMA_VERSION,
        command: plan.command.clone(),
        started_at: rfc3339_now(),
        environment,
        runs: Vec::new(),
    };
    // Every batch is journaled as it commits, so a run killed outright loses at most one.
    let journal = writer.map(|w| Journal::start(w.dir(), &doc)).transpose()?;
    let observer = Journaled { inner: ctx.observer, journal: journal.as_ref() };
    let ctx = &CaseContext { observer: &observer, ..*ctx };
    let count = plan.strategies.len();
    let mut stopped = None;
    // Whether the results files hold every batch journaled (the last write succeeded).
    let mut saved = true;
    for (position, strategy) in plan.strategies.iter().enumerate() {
        if ctx.control.is_cancelled() {
            stopped = Some(Error::Interrupted);
            break;
        }
        ctx.control.set_rows(0);
        ctx.observer.case_started(
            strategy.name,
            position,
            count,
            plan.workload.rows_per_case(),
            &plan.workload.case_plan(),
        );
        let (result, error) = plan.workload.run_case(engine, strategy, ctx);
        ctx.observer.case_finished(&result);
        doc.runs.push(result);
        let written = writer.map_or(Ok(()), |w| w.write(&doc));
        saved = written.is_ok();
        if written.is_ok()
            && let Some(j) = &journal
        {
            j.reset()?;
        }
        match (error, written) {
            (Some(e), _) | (None, Err(e)) => {
                stopped = Some(e);
                break;
            }
            (None, Ok(())) => {}
        }
    }
    // The results files hold every batch unless the last write failed: keep the journal then.
    if let Some(j) = journal
        && saved
    {
        j.finish();
    }
    Ok(RunOutcome { doc, error: stopped })
}

/// An observer that also appends each batch to the run's journal.
struct Journaled<'a> {
    inner: &'a dyn Observer,
    journal: Option<&'a Journal>,
}

impl Observer for Journaled<'_> {
    fn case_started(&self, strategy: &str, position: usize, count: usize, rows: u64, what: &str) {
        self.inner.case_started(strategy, position, count, rows, what);
    }
    fn batch_done(&self, strategy: &str, batch: &BatchResult) {
        self.inner.batch_done(strategy, batch);
    }
    fn batch_recorded(&self, run: &RunResult) {
        self.inner.batch_recorded(run);
        if let Some(j) = self.journal {
            j.record(run);
        }
    }
    fn phase_recorded(&self, run: &RunResult) {
        self.inner.phase_recorded(run);
        if let Some(j) = self.journal {
            j.record_phase(run);
        }
    }
    fn case_finished(&self, result: &RunResult) {
        self.inner.case_finished(result);
    }
}
