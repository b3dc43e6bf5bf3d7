//! Where a sharded run's rows landed: for each strategy, the skew of its batches over the shards
//! (the hottest shard's share, max/mean) and its totals per shard. The terminal and Markdown
//! table and the report's chart read it.

use super::fmt;
use crate::results::{ResultsDoc, RunResult, ShardCounters};
use crate::sharding::skew::{self, SkewSummary};

/// Each batch's (or, for a timed workload, each interval's) per-shard readings, in order.
fn readings(run: &RunResult) -> Vec<&[ShardCounters]> {
    let batches = run.batches.iter().filter_map(|b| b.shards.as_deref());
    let intervals = run.phases.iter().flat_map(|p| p.intervals.iter().filter_map(|i| i.shards.as_deref()));
    batches.chain(intervals).collect()
}

/// The rows each shard took in each batch or interval that read them (batches whose counts went
/// to a later batch are left out: their rows are in that batch's).
pub fn intervals(run: &RunResult) -> Vec<Vec<u64>> {
    readings(run)
        .into_iter()
        .filter(|s| s.iter().all(|c| c.rows.is_some()))
        .map(|s| s.iter().map(|c| c.rows.unwrap_or(0)).collect())
        .collect()
}

/// The skew of `run`'s batches, if it ran on a sharded engine.
pub fn summary(run: &RunResult) -> Option<SkewSummary> {
    skew::summarize(&intervals(run))
}

/// A shard's total of one counter over the run (`None` when no batch has it).
fn shard_total(run: &RunResult, shard: usize, field: &str) -> Option<u64> {
    let values: Vec<u64> = readings(run).into_iter().filter_map(|s| s.get(shard)?.counters.get(field)).collect();
    (!values.is_empty()).then(|| values.iter().sum())
}

/// The table of every sharded run: one row per strategy.
pub fn table(doc: &ResultsDoc) -> (Vec<String>, Vec<Vec<String>>) {
    let header = [
        "strategy",
        "sharding",
        "batches (or seconds)",
        "hottest shard's share (median)",
        "(max)",
        "max/mean (median)",
        "rows per shard",
        "write-ahead MiB per shard",
    ]
    .map(String::from)
    .to_vec();
    let mut rows = Vec::new();
    for run in &doc.runs {
        let Some(s) = summary(run) else { continue };
        let wal: Vec<String> = (0..s.rows_per_shard.len())
            .map(|i| shard_total(run, i, "wal_bytes").map_or("–".into(), |b| format!("{:.1}", b as f64 / 1048576.0)))
            .collect();
        rows.push(vec![
            run.strategy.clone(),
            run.settings.engine.get("sharding").cloned().unwrap_or_default(),
            s.intervals.to_string(),
            fmt::percent(s.hottest_share_median),
            fmt::percent(s.hottest_share_max),
            format!("{:.2}×", s.max_over_mean_median),
            s.rows_per_shard.iter().map(u64::to_string).collect::<Vec<_>>().join(" / "),
            wal.join(" / "),
        ]);
    }
    (header, rows)
}

/// What the table's figures mean, printed under it.
pub const NOTE: &str = "Each batch's rows per shard, read from the shards after the batch. All shards share this machine's cores and disk: read distribution and per-shard B-trees, not cluster throughput.";
