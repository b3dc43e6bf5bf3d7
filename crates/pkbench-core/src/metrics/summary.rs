//! One summary line per strategy: the figures the results table shows.

use super::stats::{per_thousand, rate_per_sec, ratio};
use crate::results::{ResultsDoc, RunResult};
use serde::Serialize;

/// The strategy every other one is compared with, when present.
pub const BASELINE_STRATEGY: &str = "int";

/// Summary figures of one run.
#[derive(Clone, Debug, Serialize, PartialEq)]
pub struct StrategySummary {
    /// Engine name.
    pub engine: String,
    /// Strategy name.
    pub strategy: String,
    /// Whether every batch finished and rows were verified.
    pub complete: bool,
    /// Rows inserted by completed batches.
    pub rows: u64,
    /// First batch's time, ms.
    pub first_batch_ms: Option<f64>,
    /// Last batch's time, ms.
    pub last_batch_ms: Option<f64>,
    /// Last batch's time ÷ first batch's: 1 is flat, larger is a table slowing as it grows.
    pub growth: Option<f64>,
    /// Total insert time, seconds.
    pub insert_s: f64,
    /// Rows per second over all batches.
    pub rows_per_sec: Option<f64>,
    /// Time per row ÷ the baseline strategy's time per row.
    pub slowdown: Option<f64>,
    /// Database size on disk, bytes.
    pub size_bytes: Option<u64>,
    /// Of which the write-ahead log, bytes.
    pub wal_size_bytes: Option<u64>,
    /// Cache misses per 1,000 rows.
    pub cache_misses_per_1k: Option<f64>,
    /// Pages written per 1,000 rows.
    pub pages_written_per_1k: Option<f64>,
    /// Write-ahead log bytes per row.
    pub wal_bytes_per_row: Option<f64>,
    /// Full-page images per 1,000 rows.
    pub wal_fpi_per_1k: Option<f64>,
    /// B-tree page splits per 1,000 rows.
    pub page_splits_per_1k: Option<f64>,
    /// Distinct index blocks touched per 1,000 rows (summed over batches).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub index_blocks_touched_per_1k: Option<f64>,
    /// An LSM tree's bytes written to storage (WAL, flushes, compactions) ÷ bytes the inserts
    /// handed it.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub write_amplification: Option<f64>,
    /// Bytes an LSM tree's compactions wrote per row.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub compaction_write_bytes_per_row: Option<f64>,
    /// Keys an LSM tree looked up per 1,000 rows (each insert's unique-key check).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub keys_read_per_1k: Option<f64>,
    /// Time pkbench spent reading the engine's counters after batches, seconds (the harness's
    /// own cost, within the counter budget).
    pub counters_s: f64,
}

/// Summaries of every run in a document, with the baseline used for `slowdown`.
#[derive(Clone, Debug, Serialize, PartialEq)]
pub struct Summary {
    /// Name of the baseline strategy (`int` if it ran, else the fastest per row).
    pub baseline: Option<String>,
    /// One entry per run, in run order.
    pub rows: Vec<StrategySummary>,
}

/// What a run measured inserting: rows, nanoseconds and counters — of its batches, or, for the
/// concurrent workload (no batches), of its measured phase.
fn measured(run: &RunResult) -> (u64, u64, crate::results::Counters) {
    match run.phases.iter().find(|p| p.name == crate::results::CONCURRENT_PHASE) {
        Some(p) if run.batches.is_empty() => (p.rows, p.elapsed_ns, p.counters),
        _ => (run.rows_inserted(), run.insert_ns(), run.total_counters()),
    }
}

fn ns_per_row(run: &RunResult) -> Option<f64> {
    let (rows, ns, _) = measured(run);
    ratio(ns as f64, rows as f64)
}

/// Computes the summary table of `doc`. Each engine's runs are compared with that engine's
/// baseline.
pub fn summarize(doc: &ResultsDoc) -> Summary {
    let baseline_of = |engine: &str| -> Option<&RunResult> {
        let runs = || doc.runs.iter().filter(move |r| r.engine == engine && ns_per_row(r).is_some());
        runs().find(|r| r.strategy == BASELINE_STRATEGY).or_else(|| {
            runs().min_by(|a, b| ns_per_row(a).unwrap_or(f64::MAX).total_cmp(&ns_per_row(b).unwrap_or(f64::MAX)))
        })
    };
    let baseline = doc.runs.first().and_then(|r| baseline_of(&r.engine)).map(|r| r.strategy.clone());
    let rows = doc
        .runs
        .iter()
        .map(|run| {
            // An uncalibrated prediction's batches are not timed: no batch time to show.
            let timed = run.has_batch_times();
            let ms = |b: Option<&crate::results::BatchResult>| b.filter(|_| timed).map(|b| b.elapsed_ns as f64 / 1e6);
            let (first, last) = (ms(run.batches.first()), ms(run.batches.last()));
            let (rows, insert_ns, counters) = measured(run);
            // Per 1,000 rows of the batches that reported the counter: a costly counter may
            // have been read on some batches only (the counter budget).
            let per_1k = |field: &str| match run.counter_with_rows(field) {
                Some((v, covered)) if !run.batches.is_empty() => per_thousand(v, covered),
                _ => counters.get(field).and_then(|c| per_thousand(c, rows)),
            };
            let slowdown = baseline_of(&run.engine)
                .and_then(ns_per_row)
                .and_then(|base| ns_per_row(run).and_then(|own| ratio(own, base)));
            StrategySummary {
                engine: run.engine.clone(),
                strategy: run.strategy.clone(),
                complete: run.complete,
                rows,
                first_batch_ms: first,
                last_batch_ms: last,
                growth: first.zip(last).and_then(|(f, l)| ratio(l, f)),
                insert_s: insert_ns as f64 / 1e9,
                rows_per_sec: rate_per_sec(rows, insert_ns),
                slowdown,
                size_bytes: run.size_bytes,
                wal_size_bytes: run.wal_size_bytes,
                cache_misses_per_1k: per_1k("cache_misses"),
                pages_written_per_1k: per_1k("pages_written"),
                wal_bytes_per_row: per_1k("wal_bytes").map(|v| v / 1000.0),
                wal_fpi_per_1k: per_1k("wal_fpi"),
                page_splits_per_1k: per_1k("page_splits"),
                index_blocks_touched_per_1k: per_1k("index_blocks_touched"),
                write_amplification: counters.write_amplification(),
                compaction_write_bytes_per_row: per_1k("compaction_write_bytes").map(|v| v / 1000.0),
                keys_read_per_1k: per_1k("keys_read"),
                counters_s: run.counters_ns() as f64 / 1e9,
            }
        })
        .collect();
    Summary { baseline, rows }
}
