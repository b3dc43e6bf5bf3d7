//! Each candidate's figures, from its calibrated forecast (time per row, counters per row) and
//! the schema model's trees (the table and every index, scaled to the target).

use crate::predict::table::tail_per_1k;
use crate::results::{BtreeStats, Counters, RunResult};
use crate::strategy::Strategy;
use serde::{Deserialize, Serialize};

/// A predicted value with its 90% interval.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct Estimate {
    /// The prediction.
    pub value: f64,
    /// The interval's low end (5th percentile).
    pub low: f64,
    /// The interval's high end (95th percentile).
    pub high: f64,
}

impl Estimate {
    /// Whether this interval lies wholly below `other`'s: a measurable difference.
    pub fn clearly_below(&self, other: &Estimate) -> bool {
        self.high < other.low
    }

    /// How many times `self` is `other`, with the widest ratio the intervals allow.
    pub fn ratio_to(&self, other: &Estimate) -> Estimate {
        Estimate { value: self.value / other.value, low: self.low / other.high, high: self.high / other.low }
    }
}

/// One tree of the candidate's table at the target.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct TreeSize {
    /// The table's or index's name (`table.index` for an index).
    pub name: String,
    /// `table` or `index`.
    pub kind: String,
    /// Bytes at the target: the schema model's size at its sample, times the target's rows
    /// over the sample's.
    pub size_bytes: u64,
    /// Share of the bytes that is the key (in the key column, a foreign key holding it, or the
    /// primary key an index entry carries), where the layout tells.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub key_share: Option<f64>,
}

/// What one candidate costs.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct CandidateFigures {
    /// The strategy's name.
    pub strategy: String,
    /// What the candidate's key is, then where the engine puts the rows.
    pub description: String,
    /// The table's key today.
    pub current: bool,
    /// The candidate whose calibration run this one's forecast took, where it ran none of its
    /// own: their rows land alike.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub calibrated_as: Option<String>,
    /// Microseconds per row of a batch at today's size (a new table: its first batch).
    pub us_per_row_now: Option<Estimate>,
    /// Microseconds per row of the last batch before the target.
    pub us_per_row_target: Option<Estimate>,
    /// Seconds one client spends inserting from today's size to the target.
    pub seconds_to_target: Option<Estimate>,
    /// Bytes of the table and every index at the target.
    pub size_bytes: u64,
    /// The table and each index at the target.
    pub trees: Vec<TreeSize>,
    /// Cache misses per row over the last tenth of the rows.
    pub cache_misses_per_row: Option<f64>,
    /// Pages written per row over the last tenth of the rows (SQLite, InnoDB).
    pub pages_written_per_row: Option<f64>,
    /// Page splits per row over the last tenth of the rows.
    pub page_splits_per_row: Option<f64>,
    /// Bytes of write-ahead log (InnoDB: redo) per row over the last tenth of the rows: the page
    /// model's at the target where it keeps a WAL (PostgreSQL's, and SQLite's frames of the pages
    /// it writes); InnoDB's model keeps no redo, so there the calibration's, over its own last
    /// tenth.
    #[serde(default)]
    pub wal_bytes_per_row: Option<f64>,
    /// Bytes of one key value, as the engine stores it in a column.
    pub key_bytes: u32,
    /// Bytes of the key that the columns of other tables referencing it hold at the target
    /// (each table growing with this one), where their rows are known ([`super::references`]).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub referencing_bytes: Option<u64>,
    /// Bytes of one copy of the key in a referencing column or an index entry holding it, where
    /// other tables reference it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub referencing_copy_bytes: Option<f64>,
    /// Whether the keys arrive in increasing order.
    pub ordered: bool,
    /// Where inserts land, in words.
    pub hot_spot: String,
    /// With `--shards`: the median over batches of the hottest shard's share of the batch's
    /// rows (an even spread is 1 ÷ shards).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub hottest_shard_share: Option<f64>,
    /// With `--insert-rate`: the candidate at the peak rate from many clients.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub contention: Option<super::Contention>,
}

/// The figures of `run` (the candidate's forecast at the target, and `calibration` its real run
/// at the calibration's size, if any) and `trees` (its schema model at `sample_rows`), for a
/// table holding `rows_now` rows today.
pub fn figures(
    strategy: &Strategy,
    current: bool,
    run: &RunResult,
    calibration: Option<&RunResult>,
    trees: &[BtreeStats],
    sample_rows: u64,
    rows_now: u64,
) -> CandidateFigures {
    let per_row = |f: fn(&Counters) -> Option<u64>| tail_per_1k(run, f).map(|v| v / 1000.0);
    let scale = run.rows_inserted() as f64 / sample_rows.max(1) as f64;
    let trees: Vec<TreeSize> = trees
        .iter()
        .map(|t| TreeSize {
            name: t.name.clone(),
            kind: t.kind.clone(),
            size_bytes: (t.size_bytes as f64 * scale).round() as u64,
            key_share: t.key_share,
        })
        .collect();
    let ordered = strategy.primary_is_ordered();
    CandidateFigures {
        strategy: strategy.name.into(),
        description: run.strategy_description.clone(),
        current,
        calibrated_as: None,
        us_per_row_now: batch_us_per_row(run, rows_now),
        us_per_row_target: run
            .batches
            .last()
            .and_then(|b| us_per_row(b.elapsed_ns, b.elapsed_ns_low, b.elapsed_ns_high, b.rows)),
        seconds_to_target: seconds_after(run, rows_now),
        size_bytes: trees.iter().map(|t| t.size_bytes).sum(),
        trees,
        cache_misses_per_row: per_row(|c| c.cache_misses),
        pages_written_per_row: per_row(|c| c.pages_written),
        page_splits_per_row: per_row(|c| c.page_splits),
        wal_bytes_per_row: wal_bytes_per_row(run, calibration),
        key_bytes: strategy.primary.storage.value_bytes(),
        referencing_bytes: None,
        referencing_copy_bytes: None,
        ordered,
        hot_spot: hot_spot(strategy, ordered).into(),
        hottest_shard_share: None,
        contention: None,
    }
}

/// Bytes of WAL per row at the end of `run` (a page model's forecast): its own count where the
/// model keeps a WAL; on SQLite's, a frame of a page and its 24-byte header for every page it
/// writes (the calibration's journal is a WAL); else `calibration`'s count over its last tenth.
fn wal_bytes_per_row(run: &RunResult, calibration: Option<&RunResult>) -> Option<f64> {
    if let Some(bytes) = tail_per_row(run, "wal_bytes") {
        return Some(bytes);
    }
    if run.engine == crate::predict::ENGINE {
        let page: f64 = run.settings.workload_options.get("page_size")?.parse().ok()?;
        return tail_per_row(run, "pages_written").map(|pages| pages * (page + SQLITE_FRAME_HEADER));
    }
    tail_per_row(calibration?, "wal_bytes")
}

/// Bytes of a SQLite WAL frame's header.
const SQLITE_FRAME_HEADER: f64 = 24.0;

/// The counter `field` per row over the last tenth of `run`'s batches, each count over the rows
/// its read covered (a real run reads a costly counter after some batches only).
fn tail_per_row(run: &RunResult, field: &str) -> Option<f64> {
    let n = run.batches.len();
    let (count, rows) = run.counter_with_rows_from(field, n - (n / 10).max(1).min(n))?;
    (rows > 0).then(|| count as f64 / rows as f64)
}

/// Microseconds per row of a batch's time and interval (none for an uncalibrated batch).
fn us_per_row(ns: u64, low: Option<u64>, high: Option<u64>, rows: u64) -> Option<Estimate> {
    let (low, high) = low.zip(high)?;
    let per = |ns: u64| ns as f64 / 1e3 / rows.max(1) as f64;
    (ns > 0).then(|| Estimate { value: per(ns), low: per(low), high: per(high) })
}

/// The batch that holds row `rows_now + 1` (the first batch for a new table).
fn batch_us_per_row(run: &RunResult, rows_now: u64) -> Option<Estimate> {
    let b = run.batches.iter().find(|b| b.rows_total > rows_now).or(run.batches.first())?;
    us_per_row(b.elapsed_ns, b.elapsed_ns_low, b.elapsed_ns_high, b.rows)
}

/// Seconds of the batches past `rows_now`, the interval's ends summed (a batch's scatter that
/// persists across batches, as the fit's intervals assume at worst).
fn seconds_after(run: &RunResult, rows_now: u64) -> Option<Estimate> {
    let later: Vec<_> = run.batches.iter().filter(|b| b.rows_total > rows_now).collect();
    let sum = |f: &dyn Fn(&crate::results::BatchResult) -> Option<u64>| -> Option<f64> {
        later.iter().map(|b| f(b)).sum::<Option<u64>>().map(|ns| ns as f64 / 1e9)
    };
    let value = sum(&|b| (b.elapsed_ns > 0).then_some(b.elapsed_ns))?;
    Some(Estimate { value, low: sum(&|b| b.elapsed_ns_low)?, high: sum(&|b| b.elapsed_ns_high)? })
}

/// Where a candidate's inserts land.
fn hot_spot(strategy: &Strategy, ordered: bool) -> &'static str {
    match (ordered, strategy.secondary.is_some()) {
        (true, false) => {
            "on one hot page at the tree's right edge: cheap on one node, a hot spot for many writers and for a range-sharded table"
        }
        (true, true) => "at the right edge of the key's tree and all over its UUID index",
        (false, _) => "all over the tree: no hot spot, but an insert may miss the cache once the tree outgrows it",
    }
}
