//! The one result schema every workload writes and every exporter reads.
//!
//! Units are in field names (`elapsed_ns`, `size_bytes`). `schema/results.schema.json` at the
//! repository root describes the JSON form; a test validates real output against it.

mod counters;
mod environment;
mod phases;

pub use counters::{Counters, ShardCounters, add_shards};
pub use environment::Environment;
pub use phases::{CONCURRENT_PHASE, IntervalResult, LatencySummary, PhaseResult};

use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

/// Version of the results format; bumped on incompatible changes.
pub const SCHEMA_VERSION: u32 = 1;

/// Workload name of the runs `pkbench predict` writes: their figures are a model's, not measured.
pub const PREDICT_WORKLOAD: &str = "predict";

/// A whole `pkbench run`: what was run, where, and every strategy's measurements.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
pub struct ResultsDoc {
    /// [`SCHEMA_VERSION`] of the writer.
    pub schema_version: u32,
    /// The command line that produced this file.
    pub command: Vec<String>,
    /// When the run started, RFC 3339 UTC.
    pub started_at: String,
    /// Machine and software versions.
    pub environment: Environment,
    /// One entry per strategy, in run order; the last may be incomplete after an error.
    pub runs: Vec<RunResult>,
}

impl ResultsDoc {
    /// Whether any run's batches were timed (an uncalibrated forecast's are not).
    pub fn has_batch_times(&self) -> bool {
        self.runs.iter().any(RunResult::has_batch_times)
    }
}

/// One strategy on one engine under one workload.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
pub struct RunResult {
    /// Engine name (`sqlite`, …).
    pub engine: String,
    /// Engine version string.
    pub engine_version: String,
    /// Workload name (`insert-growth`).
    pub workload: String,
    /// Canonical strategy name.
    pub strategy: String,
    /// The strategy's one-line description: its key, then where this engine puts the rows.
    pub strategy_description: String,
    /// Settings in force for this run.
    pub settings: Settings,
    /// One entry per committed batch, in order.
    pub batches: Vec<BatchResult>,
    /// Timed steps other than insert batches (queries, concurrent inserts, maintenance), in
    /// order. Empty for insert-growth.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub phases: Vec<PhaseResult>,
    /// Rows counted in the table after the run; after a run a fault stopped, the rows its
    /// committed batches left, where they could still be counted (`None` otherwise).
    pub verified_rows: Option<u64>,
    /// Database size on disk after the run (main file + WAL), bytes.
    pub size_bytes: Option<u64>,
    /// Of `size_bytes`, the write-ahead log's share, bytes (`None` without a WAL).
    #[serde(default)]
    pub wal_size_bytes: Option<u64>,
    /// Size on disk once a full compaction has merged the case's tables into the bottom level,
    /// bytes: what an LSM engine's table settles to (MyRocks; absent elsewhere).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub compacted_size_bytes: Option<u64>,
    /// Per-B-tree physical statistics after the run.
    pub btrees: Vec<BtreeStats>,
    /// Where the database was kept (`--keep-db`), if it was.
    pub kept_database: Option<String>,
    /// False if the run stopped early; `error` says why.
    pub complete: bool,
    /// The error that stopped the run, if any.
    pub error: Option<String>,
}

/// Workload and engine settings of one run.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
pub struct Settings {
    /// Rows the run was asked to insert.
    pub rows: u64,
    /// Rows per transaction.
    pub batch_rows: u64,
    /// Payload bytes per row (identical in every row).
    pub payload_bytes: u64,
    /// Seed of the key stream.
    pub seed: u64,
    /// The clock time-based keys were generated from.
    pub key_clock: String,
    /// The key parameters that shaped this strategy's keys, by `run` flag (`key_rate`,
    /// `block_size`, `interval`, …); empty for keys no parameter changes (int, uuid4).
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub key_parameters: BTreeMap<String, String>,
    /// How rows reach the engine (e.g. "one prepared single-row INSERT per row").
    pub insert_path: String,
    /// Engine settings as the engine reports them after setup (e.g. `journal_mode = wal`).
    pub engine: BTreeMap<String, String>,
    /// The workload's own options beyond the ones above (e.g. `threads = 16`).
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub workload_options: BTreeMap<String, String>,
}

/// One committed batch.
#[derive(Clone, Debug, Default, Serialize, Deserialize, PartialEq)]
pub struct BatchResult {
    /// 0-based batch number.
    pub index: u64,
    /// Rows in this batch.
    pub rows: u64,
    /// Rows in the table after this batch.
    pub rows_total: u64,
    /// Wall time to insert and commit the batch, nanoseconds.
    pub elapsed_ns: u64,
    /// Lower end of a predicted `elapsed_ns`'s 90% prediction interval (`pkbench predict`,
    /// calibrated).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub elapsed_ns_low: Option<u64>,
    /// Upper end of that interval.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub elapsed_ns_high: Option<u64>,
    /// Time spent generating this batch's keys (outside `elapsed_ns`), nanoseconds.
    pub keygen_ns: u64,
    /// Engine counters accumulated during the batch — or, when `counters_span` is above 1,
    /// during the last `counters_span` batches up to this one.
    pub counters: Counters,
    /// Time pkbench spent reading the engine's counters after this batch (the harness's own
    /// work, outside `elapsed_ns` and `keygen_ns`), nanoseconds; 0 when it did not read them.
    #[serde(default)]
    pub counters_ns: u64,
    /// Batches whose counts `counters` holds, ending with this one: 1 normally; more when
    /// reading counters after every batch would exceed the counter budget; 0 when this batch's
    /// counts went to a later batch.
    #[serde(default = "one", skip_serializing_if = "is_one")]
    pub counters_span: u64,
    /// Database file size after the batch, bytes, where the case knows it per batch
    /// (`pkbench predict`; a run measures the size at the end only).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub db_size_bytes: Option<u64>,
    /// On a sharded engine, each shard's share of the batch (in shard order), read with the
    /// counters: `None` elsewhere, and for a batch whose counts went to a later batch.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub shards: Option<Vec<ShardCounters>>,
    /// The machine-speed canary timed right after this batch, ns (`pkbench predict`'s
    /// calibration and `--check` runs, after the batches `predict::canary` times it after;
    /// `None` on the batches between).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub machine_ns: Option<u64>,
    /// On an LSM engine, its sorted files by level, read with the counters: `None` elsewhere,
    /// and for a batch whose counts went to a later batch.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub lsm_levels: Option<Vec<LsmLevel>>,
}

/// One level of an LSM tree at a moment (RocksDB's column family: every table's keys in it).
#[derive(Clone, Debug, Default, Serialize, Deserialize, PartialEq)]
pub struct LsmLevel {
    /// The level's name: `L0`, `L1`, ….
    pub level: String,
    /// Sorted (SST) files in the level.
    pub files: u64,
    /// Their bytes on disk.
    pub size_bytes: u64,
    /// RocksDB's compaction score: L0's files ÷ the files that trigger its compaction, another
    /// level's bytes ÷ its target size; 1 or more means the level waits for a compaction.
    pub score: f64,
}

impl LsmLevel {
    /// Levels from RocksDB's compaction statistics, (level, statistic, value) rows of
    /// `NumFiles`, `SizeBytes` and `Score`; in level order. A value that is not a number counts
    /// as 0.
    pub fn from_statistics(rows: Vec<(String, String, String)>) -> Vec<LsmLevel> {
        let mut levels: Vec<LsmLevel> = Vec::new();
        for (level, stat, value) in rows {
            let i = match levels.iter().position(|l| l.level == level) {
                Some(i) => i,
                None => {
                    levels.push(LsmLevel { level, ..LsmLevel::default() });
                    levels.len() - 1
                }
            };
            let number: f64 = value.trim().parse().unwrap_or(0.0);
            let l = &mut levels[i];
            match stat.as_str() {
                "NumFiles" => l.files = number as u64,
                "SizeBytes" => l.size_bytes = number as u64,
                _ => l.score = number,
            }
        }
        levels.sort_by_key(|l| Self::order(&l.level));
        levels
    }

    /// Where a level named `name` (`L0`, `L1`, …) comes in level order; a name without a number
    /// last.
    pub fn order(name: &str) -> u32 {
        name.get(1..).and_then(|n| n.parse::<u32>().ok()).unwrap_or(u32::MAX)
    }

    /// Bytes compaction still owes the tree: a level's bytes above its target (all of L0 once
    /// it reached its trigger). An estimate from the scores, which MariaDB shows where RocksDB's
    /// own pending-compaction estimate is not.
    pub fn bytes_over_target(levels: &[LsmLevel]) -> u64 {
        let over = |l: &LsmLevel| match l.level.as_str() {
            _ if l.score < 1.0 => 0.0,
            "L0" => l.size_bytes as f64,
            _ => l.size_bytes as f64 * (1.0 - 1.0 / l.score),
        };
        levels.iter().map(over).sum::<f64>().round() as u64
    }
}

fn one() -> u64 {
    1
}

fn is_one(n: &u64) -> bool {
    *n == 1
}

/// Physical state of one B-tree (a table or an index) after a run.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
pub struct BtreeStats {
    /// Table or index name.
    pub name: String,
    /// `table` or `index`.
    pub kind: String,
    /// All pages of the tree (interior, leaf, overflow).
    pub pages: u64,
    /// Leaf pages.
    pub leaf_pages: u64,
    /// Average share of each leaf page in use, 0–1.
    pub leaf_fill: f64,
    /// Share of leaves whose successor in key order lies earlier in the file, 0–1.
    pub leaf_out_of_order: f64,
    /// Bytes occupied by the tree's pages.
    pub size_bytes: u64,
    /// Share of `size_bytes` that is the run's key (or a foreign key holding it): the key's bytes
    /// in each entry × entries ÷ size, where pkbench knows the tree's layout (`run --schema`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub key_share: Option<f64>,
    /// Blocks the tree read into the engine's cache (cache misses) per 1,000 key-table rows
    /// while they were inserted, where the engine counts them per tree (`run --schema` on
    /// PostgreSQL: `pg_statio_user_tables.heap_blks_read`, `pg_statio_user_indexes.idx_blks_read`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub misses_per_1k_rows: Option<f64>,
    /// Of an index: the distinct pages each batch modified, summed, per 1,000 key-table rows
    /// (`Counters::index_blocks_touched` per index; each is written at least once at the next
    /// checkpoint), where the engine tells (`run --schema` on PostgreSQL with `pg_walinspect`,
    /// over the batches the counter budget read).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub index_blocks_touched_per_1k_rows: Option<f64>,
}

impl RunResult {
    /// Whether a model predicted this run's figures (`pkbench predict`) rather than measured them.
    pub fn is_predicted(&self) -> bool {
        self.workload == PREDICT_WORKLOAD
    }

    /// Whether any batch was timed (an uncalibrated prediction's are not: it counts, it does
    /// not time).
    pub fn has_batch_times(&self) -> bool {
        self.batches.iter().any(|b| b.elapsed_ns > 0)
    }

    /// Rows inserted by completed batches.
    pub fn rows_inserted(&self) -> u64 {
        self.batches.last().map_or(0, |b| b.rows_total)
    }

    /// Sum of all batches' insert time, nanoseconds.
    pub fn insert_ns(&self) -> u64 {
        self.batches.iter().map(|b| b.elapsed_ns).sum()
    }

    /// Counters summed over all batches.
    pub fn total_counters(&self) -> Counters {
        let mut c = Counters::default();
        for b in &self.batches {
            c.accumulate(&b.counters);
        }
        c
    }

    /// The counter `field` (a [`Counters::fields`] name) summed over the batches that report
    /// it, with the rows those batches' counts cover: the honest denominator when a costly
    /// counter was read on only some batches (the counter budget). `None` if no batch has it.
    pub fn counter_with_rows(&self, field: &str) -> Option<(u64, u64)> {
        self.counter_with_rows_from(field, 0)
    }

    /// [`Self::counter_with_rows`] over the batches from `first` on (a count's rows may reach
    /// back before it, to the batches its read covered).
    pub fn counter_with_rows_from(&self, field: &str, first: usize) -> Option<(u64, u64)> {
        let mut sum: Option<(u64, u64)> = None;
        for (i, b) in self.batches.iter().enumerate().skip(first) {
            let Some(v) = b.counters.get(field) else { continue };
            let first = (i + 1).saturating_sub(b.counters_span as usize);
            let rows: u64 = self.batches[first..=i].iter().map(|b| b.rows).sum();
            let (s, r) = sum.unwrap_or((0, 0));
            sum = Some((s + v, r + rows));
        }
        sum
    }

    /// Total time spent reading counters after batches, nanoseconds (the harness's own cost).
    pub fn counters_ns(&self) -> u64 {
        self.batches.iter().map(|b| b.counters_ns).sum()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn batch(rows: u64, span: u64, splits: Option<u64>, misses: Option<u64>) -> BatchResult {
        BatchResult {
            index: 0,
            rows,
            rows_total: 0,
            elapsed_ns: 1,
            keygen_ns: 0,
            counters: Counters { page_splits: splits, cache_misses: misses, ..Counters::default() },
            counters_ns: 0,
            counters_span: span,
            db_size_bytes: None,
            shards: None,
            machine_ns: None,
            lsm_levels: None,
            elapsed_ns_low: None,
            elapsed_ns_high: None,
        }
    }

    fn run(batches: Vec<BatchResult>) -> RunResult {
        let doc: RunResult = serde_json::from_value(serde_json::json!({
            "engine": "mock", "engine_version": "0", "workload": "insert-growth", "strategy": "int",
            "strategy_description": "", "settings": { "rows": 0, "batch_rows": 0, "payload_bytes": 0, "seed": 0,
            "key_clock": "", "insert_path": "", "engine": {} }, "batches": [], "verified_rows": null,
            "size_bytes": null, "btrees": [], "kept_database": null, "complete": true, "error": null
        }))
        .unwrap();
        RunResult { batches, ..doc }
    }

    #[test]
    fn levels_gather_each_levels_statistics_in_level_order() {
        let row = |l: &str, t: &str, v: &str| (l.to_string(), t.to_string(), v.to_string());
        let levels = LsmLevel::from_statistics(vec![
            row("L10", "NumFiles", "1"),
            row("L2", "SizeBytes", "3086279"),
            row("L0", "Score", "0.5"),
            row("L2", "NumFiles", "2"),
            row("L0", "NumFiles", "2"),
            row("L2", "Score", "1.25"),
        ]);
        let names: Vec<&str> = levels.iter().map(|l| l.level.as_str()).collect();
        assert_eq!(names, ["L0", "L2", "L10"]);
        assert_eq!((levels[1].files, levels[1].size_bytes, levels[1].score), (2, 3_086_279, 1.25));
        assert_eq!(LsmLevel::bytes_over_target(&levels), 617_256, "a fifth of L2 is over its target");
    }

    #[test]
    fn a_counter_is_divided_by_the_rows_its_reads_covered() {
        // Batches 0–1 were counted together after batch 1; batch 2's costly counter was skipped.
        let r = run(vec![
            batch(100, 0, None, None),
            batch(100, 2, Some(6), Some(10)),
            batch(100, 1, None, Some(5)),
            batch(100, 1, Some(3), Some(5)),
        ]);
        assert_eq!(r.counter_with_rows("cache_misses"), Some((20, 400)));
        assert_eq!(r.counter_with_rows("page_splits"), Some((9, 300)));
        assert_eq!(r.counter_with_rows("wal_bytes"), None);
    }

    #[test]
    fn a_phase_keeps_only_the_counters_every_read_batch_reports() {
        let batches = [batch(100, 0, None, None), batch(100, 2, Some(6), Some(10)), batch(100, 1, None, Some(5))];
        let c = Counters::over(&batches);
        assert_eq!(c.cache_misses, Some(15));
        assert_eq!(c.page_splits, None, "batch 2 was not inspected: a sum would undercount");
    }

    #[test]
    fn a_batch_counted_alone_omits_its_span_from_json() {
        let json = serde_json::to_value(batch(100, 1, None, None)).unwrap();
        assert!(json.get("counters_span").is_none());
        let back: BatchResult = serde_json::from_value(json).unwrap();
        assert_eq!(back.counters_span, 1);
        let json = serde_json::to_value(batch(100, 0, None, None)).unwrap();
        assert_eq!(json["counters_span"], 0);
    }
}
