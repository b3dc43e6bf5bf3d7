//! Runs a workload over a list of strategies on one engine, writing results after each.

use crate::Error;
use crate::engines::Engine;
use crate::report::ResultsWriter;
use crate::results::{Environment, ResultsDoc, SCHEMA_VERSION};
use crate::strategy::Strategy;
use crate::util::time::rfc3339_now;
use crate::workloads::{CaseContext, Workload};

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
    let count = plan.strategies.len();
    for (position, strategy) in plan.strategies.iter().enumerate() {
        if ctx.control.is_cancelled() {
            return Ok(RunOutcome { doc, error: Some(Error::Interrupted) });
        }
        ctx.control.set_rows(0);
        ctx.observer.case_started(strategy.name, position, count, plan.workload.rows_per_case());
        let (result, error) = plan.workload.run_case(engine, strategy, ctx);
        ctx.observer.case_finished(&result);
        doc.runs.push(result);
        let written = writer.map_or(Ok(()), |w| w.write(&doc));
        match (error, written) {
            (Some(e), _) => return Ok(RunOutcome { doc, error: Some(e) }),
            (None, Err(e)) => return Ok(RunOutcome { doc, error: Some(e) }),
            (None, Ok(())) => {}
        }
    }
    Ok(RunOutcome { doc, error: None })
}
