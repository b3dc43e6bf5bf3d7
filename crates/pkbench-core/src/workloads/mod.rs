//! Workloads: what is done to each strategy's database. One file per workload.

mod app;
mod churn;
mod concurrent;
#[cfg(feature = "sqlite")]
mod file_baseline;
mod insert_growth;
pub(crate) mod outcome;
mod own_schema;
mod remedy;
mod scale;

pub use app::{App, MAX_ORDERS_PER_USER, MAX_USERS, PAGE_ROWS};
pub use churn::{Churn, TURNOVERS};
pub use concurrent::{ConcurrentInsert, IntervalSeries, KEPT_UP, MAX_THREADS, PHASE as CONCURRENT_PHASE};
#[cfg(feature = "sqlite")]
pub use file_baseline::{FileBaseline, MAX_FILE_ROWS};
pub use insert_growth::{InsertGrowth, MAX_BATCH_ROWS, MAX_PAYLOAD_BYTES, MAX_ROWS};
pub use own_schema::{
    FkLocality, KeyRowSink, KeyRows, MAX_CHILDREN_PER_ROW, MAX_PARENT_ROWS, MAX_READS, OwnSchema, REBUILD_PHASE,
    RECENT_SHARE, ReadLocality, SchemaSizes,
};
pub use remedy::Remedy;
pub use scale::{MemoryCap, Scale};

use crate::control::{RunControl, Timer};
use crate::engines::Engine;
use crate::metrics::budget::CounterBudget;
use crate::results::{BatchResult, RunResult};
use crate::strategy::Strategy;

/// Receives notifications as a run progresses (for progress views; never per row).
pub trait Observer {
    /// A strategy's case is starting: `position` of `count`, inserting `rows` rows (0: a timed
    /// case); `plan` says what it will do in a few words ("inserting 1000 rows").
    fn case_started(&self, _strategy: &str, _position: usize, _count: usize, _rows: u64, _plan: &str) {}
    /// A batch committed.
    fn batch_done(&self, _strategy: &str, _batch: &BatchResult) {}
    /// A batch was added to `run` (its last batch), e.g. to journal it.
    fn batch_recorded(&self, _run: &RunResult) {}
    /// A phase was added to `run` (its last phase), e.g. to journal it.
    fn phase_recorded(&self, _run: &RunResult) {}
    /// A case finished (complete or not).
    fn case_finished(&self, _result: &RunResult) {}
}

/// An observer that ignores everything.
#[derive(Debug, Default)]
pub struct Silent;
impl Observer for Silent {}

/// Everything a workload needs besides the engine and strategy.
pub struct CaseContext<'a> {
    /// Progress counter and cancel flag.
    pub control: &'a RunControl,
    /// Clock that times batches.
    pub timer: &'a dyn Timer,
    /// Progress notifications.
    pub observer: &'a dyn Observer,
    /// How much of the inserting time reading counters may take.
    pub counter_budget: CounterBudget,
}

/// A workload run against one strategy at a time.
pub trait Workload {
    /// Name as used by `--workload` (`insert-growth`).
    fn name(&self) -> &'static str;

    /// Rows one case will insert (for progress and ETA).
    fn rows_per_case(&self) -> u64;

    /// What to tell the user before the run starts on `engine` with `strategies` (one line
    /// each): for a schema run, how the tables pkbench makes differ from the file's.
    fn notices(&self, _engine: crate::engines::EngineKind, _strategies: &[&'static Strategy]) -> Vec<String> {
        Vec::new()
    }

    /// What one case will do, in a few words, for progress lines.
    fn case_plan(&self) -> String {
        format!("inserting {}", crate::util::text::count(self.rows_per_case(), "row"))
    }

    /// Runs one strategy. Always returns what was measured; on failure the result is marked
    /// incomplete and the error is returned beside it.
    fn run_case(
        &self,
        engine: &mut dyn Engine,
        strategy: &Strategy,
        ctx: &CaseContext<'_>,
    ) -> (RunResult, Option<crate::Error>);
}
