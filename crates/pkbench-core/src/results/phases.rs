//! Results of timed steps other than insert batches: query types, a concurrent-insert run, a
//! file-write method, a `VACUUM`. Every workload beyond insert-growth reports through these.

use super::Counters;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

/// The phase the concurrent workload reports: a run of it has no batches, so summaries and
/// reports read its rows, time and counters from this phase.
pub const CONCURRENT_PHASE: &str = "concurrent-insert";

/// One timed step of a workload (e.g. `point-select`, `concurrent-insert`, `write-per-row`).
#[derive(Clone, Debug, Default, Serialize, Deserialize, PartialEq)]
pub struct PhaseResult {
    /// Step name, lowercase with dashes; unique within one run.
    pub name: String,
    /// Operations timed (queries, transactions, writes), warm-up excluded.
    pub operations: u64,
    /// Rows read or written by those operations.
    pub rows: u64,
    /// Wall time of the timed part, nanoseconds.
    pub elapsed_ns: u64,
    /// Per-operation latency, when operations were timed one by one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub latency: Option<LatencySummary>,
    /// Fixed-length intervals over the timed part (e.g. one per second), in order.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub intervals: Vec<IntervalResult>,
    /// Engine counters accumulated during the timed part.
    #[serde(default)]
    pub counters: Counters,
    /// What the case's sessions were waiting for, sampled from the engine's activity view
    /// `figures.wait_samples` times (`figures.wait_sample_hz` a second): per wait, the sessions
    /// seen in it, summed over the samples (PostgreSQL `pg_stat_activity` wait events, `CPU` for
    /// none; MariaDB process-list states).
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub waits: BTreeMap<String, u64>,
    /// Further figures of this step, units in the name (`lock_wait_ns`, `size_before_bytes`,
    /// `leaf_fill_after`).
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub figures: BTreeMap<String, f64>,
    /// What the step did, in one line, where its name does not say (e.g. the CRUD mix).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub note: Option<String>,
}

/// Latency percentiles of one kind of operation, from an HDR histogram (3 significant digits).
#[derive(Clone, Copy, Debug, Default, Serialize, Deserialize, PartialEq)]
pub struct LatencySummary {
    /// Operations recorded.
    pub count: u64,
    /// Fastest operation, nanoseconds.
    pub min_ns: u64,
    /// Mean, nanoseconds.
    pub mean_ns: f64,
    /// Median, nanoseconds.
    pub p50_ns: u64,
    /// 95th percentile, nanoseconds.
    pub p95_ns: u64,
    /// 99th percentile, nanoseconds.
    pub p99_ns: u64,
    /// Slowest operation, nanoseconds.
    pub max_ns: u64,
}

/// One interval of a phase's time series.
#[derive(Clone, Debug, Default, Serialize, Deserialize, PartialEq)]
pub struct IntervalResult {
    /// Start of the interval after the start of the timed part, nanoseconds.
    pub start_ns: u64,
    /// Length of the interval, nanoseconds.
    pub elapsed_ns: u64,
    /// Operations completed in the interval.
    pub operations: u64,
    /// Engine counters accumulated during the interval.
    #[serde(default)]
    pub counters: Counters,
    /// Latency percentiles of the statements that completed in the interval (the concurrent
    /// workload), measured as the phase's.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub latency: Option<LatencySummary>,
    /// Wait samples taken during the interval, as [`PhaseResult::waits`].
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub waits: BTreeMap<String, u64>,
    /// On a sharded engine, each shard's part of the interval (in shard order).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub shards: Option<Vec<super::ShardCounters>>,
}
