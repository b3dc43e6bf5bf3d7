//! The one result schema every workload writes and every exporter reads.
//!
//! Units are in field names (`elapsed_ns`, `size_bytes`). `schema/results.schema.json` at the
//! repository root describes the JSON form; a test validates real output against it.

mod environment;
mod writer;

pub use environment::Environment;
pub use writer::ResultsWriter;

use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

/// Version of the results format; bumped on incompatible changes.
pub const SCHEMA_VERSION: u32 = 1;

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
    /// The strategy's one-line description.
    pub strategy_description: String,
    /// Settings in force for this run.
    pub settings: Settings,
    /// One entry per committed batch, in order.
    pub batches: Vec<BatchResult>,
    /// Rows counted in the table after the run (`None` if the run did not finish).
    pub verified_rows: Option<u64>,
    /// Database size on disk after the run (main file + WAL), bytes.
    pub size_bytes: Option<u64>,
    /// Of `size_bytes`, the write-ahead log's share, bytes (`None` without a WAL).
    #[serde(default)]
    pub wal_size_bytes: Option<u64>,
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
    /// How rows reach the engine (e.g. "one prepared single-row INSERT per row").
    pub insert_path: String,
    /// Engine settings as the engine reports them after setup (e.g. `journal_mode = wal`).
    pub engine: BTreeMap<String, String>,
}

/// One committed batch.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
pub struct BatchResult {
    /// 0-based batch number.
    pub index: u64,
    /// Rows in this batch.
    pub rows: u64,
    /// Rows in the table after this batch.
    pub rows_total: u64,
    /// Wall time to insert and commit the batch, nanoseconds.
    pub elapsed_ns: u64,
    /// Time spent generating this batch's keys (outside `elapsed_ns`), nanoseconds.
    pub keygen_ns: u64,
    /// Engine counters accumulated during the batch.
    pub counters: Counters,
}

/// Engine counters for a span of work. Each engine fills the ones it has; `None` = not
/// available on that engine. Names are engine-neutral; the doc says what each engine reports.
#[derive(Clone, Copy, Debug, Default, Serialize, Deserialize, PartialEq, Eq)]
pub struct Counters {
    /// Page requests served by the engine's cache (SQLite `CACHE_HIT`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cache_hits: Option<u64>,
    /// Page requests that missed the engine's cache and read from the OS (SQLite `CACHE_MISS`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cache_misses: Option<u64>,
    /// Pages written out by the engine (SQLite `CACHE_WRITE`: to the WAL or database file).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pages_written: Option<u64>,
    /// Dirty pages written before commit because the cache was full (SQLite `CACHE_SPILL`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cache_spills: Option<u64>,
}

impl Counters {
    /// Adds `other` into `self`, field by field (a field stays `None` only if both are).
    pub fn accumulate(&mut self, other: &Counters) {
        fn add(a: &mut Option<u64>, b: Option<u64>) {
            if let Some(b) = b {
                *a = Some(a.unwrap_or(0) + b);
            }
        }
        add(&mut self.cache_hits, other.cache_hits);
        add(&mut self.cache_misses, other.cache_misses);
        add(&mut self.pages_written, other.pages_written);
        add(&mut self.cache_spills, other.cache_spills);
    }
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
}

impl RunResult {
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
}
