//! Helpers shared by the engine tests.

use pkbench_core::control::{MonotonicTimer, RunControl};
use pkbench_core::engines::Engine;
use pkbench_core::metrics::budget::CounterBudget;
use pkbench_core::results::RunResult;
use pkbench_core::strategy::Strategy;
use pkbench_core::workloads::{CaseContext, InsertGrowth, Silent, Workload};

/// Seed of every engine test's key stream.
pub const SEED: u64 = 7;

/// Runs insert-growth for one strategy (50-byte payload, [`SEED`]) and asserts it succeeded.
#[allow(dead_code)]
pub fn run(engine: &mut dyn Engine, strategy: &Strategy, rows: u64, batch: u64) -> RunResult {
    run_workload(&InsertGrowth::new(rows, batch, 50, SEED).unwrap(), engine, strategy)
}

/// Runs `workload` for one strategy and asserts it succeeded and is complete.
pub fn run_workload(workload: &dyn Workload, engine: &mut dyn Engine, strategy: &Strategy) -> RunResult {
    let control = RunControl::new();
    // Engine tests check every batch's counters: read them all, whatever it costs.
    let ctx = CaseContext {
        control: &control,
        timer: &MonotonicTimer::default(),
        observer: &Silent,
        counter_budget: CounterBudget::Unlimited,
    };
    let (result, error) = workload.run_case(engine, strategy, &ctx);
    assert!(error.is_none(), "{}: {error:?}", strategy.name);
    assert!(result.complete, "{}", strategy.name);
    result
}

#[cfg(feature = "server-tests")]
pub mod shared;
