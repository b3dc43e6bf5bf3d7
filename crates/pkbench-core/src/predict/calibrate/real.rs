//! The calibration's and `--check`'s real runs: each strategy on a fresh engine of its own.

use crate::Error;
use crate::control::{MonotonicTimer, RunControl};
use crate::engines::Engine;
use crate::metrics::budget::CounterBudget;
use crate::predict::canary::{self};
use crate::results::{Environment, ResultsDoc};
use crate::run::{RunPlan, run};
use crate::strategy::Strategy;
use crate::workloads::{CaseContext, Workload};

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
