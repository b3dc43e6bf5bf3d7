//! `pkbench predict --shards N`: where each batch's rows land on a sharded database, per
//! strategy — the hottest shard's share of each batch, max/mean, and rows per shard, the same
//! figures [`crate::sharding::skew::summarize`] gives for a real sharded run. A model of where
//! rows land, not of time.
//!
//! Three layouts:
//! - **Even ranges** (`--sharding range`, the default): the `N` ranges of
//!   [`crate::sharding::bounds::range_bounds`], laid out evenly over the run's own keys as the
//!   Spider and postgres-fdw engines lay them out. Every key of the run's [`KeyStream`] is routed
//!   with [`shard_of`] on its stored form, so this is what real range runs are checked against.
//! - **Split ranges** (`--range-split-mb`): ranges that split as they grow, placed on `N` nodes
//!   ([`super::range_split`]), like CockroachDB's.
//! - **Hash** (`--sharding hash`): a stated 64-bit hash of the stored key, mod `N`
//!   ([`hash_shard`]), standing for the engine's own hash.
//!
//! Above [`MAX_ROUTED_KEYS`] keys, every k-th key of each batch is routed and the batch's counts
//! are scaled to its rows (each batch still totals its rows exactly).

use super::range_split::SplitRanges;
use crate::Error;
use crate::keys::{KeySettings, KeyStream};
use crate::sharding::bounds::{Bound, range_bounds, shard_of};
use crate::sharding::skew::{SkewSummary, summarize};
use crate::sharding::{ShardLayout, Sharding};
use crate::strategy::{Storage, Strategy};
use crate::workloads::InsertGrowth;
use serde::{Deserialize, Serialize};

/// Routed keys per strategy above which keys are sampled.
pub const MAX_ROUTED_KEYS: u64 = 10_000_000;
/// Routed keys per batch the sampling keeps at least (where the batch has that many rows).
pub const MIN_ROUTED_PER_BATCH: u64 = 1_000;
/// The most shards (nodes) the model places rows on.
pub const MAX_MODEL_SHARDS: u32 = 256;
/// The most batches × shards the model keeps counts for (8 bytes each).
pub const MAX_BATCH_CELLS: u64 = 16_000_000;

/// The one-line caveat every sharded prediction prints.
pub const NOTE: &str = "a model of where rows land (shares of each batch's rows per shard), not of time: it predicts no latency or throughput";

/// What to predict.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ShardedConfig {
    /// Rows per strategy.
    pub rows: u64,
    /// Rows per transaction: one interval of the skew figures.
    pub batch_rows: u64,
    /// Payload bytes per row (the split model's row size).
    pub payload_bytes: u64,
    /// The key stream's settings (as the real run's).
    pub keys: KeySettings,
    /// Shards and range or hash.
    pub layout: ShardLayout,
    /// Split ranges at this many bytes (range sharding only); `None`: the even ranges of a real run.
    pub range_split_bytes: Option<u64>,
}

impl ShardedConfig {
    /// Checks sizes and flags; messages say what is allowed.
    pub fn validate(&self) -> Result<(), Error> {
        InsertGrowth::new(self.rows, self.batch_rows, self.payload_bytes, self.keys)?;
        let shards = self.layout.shards;
        if !(2..=MAX_MODEL_SHARDS).contains(&shards) {
            return Err(Error::InvalidInput(format!(
                "--shards {shards} is out of range for the model: use 2 to {MAX_MODEL_SHARDS}"
            )));
        }
        match (self.layout.sharding, self.range_split_bytes) {
            (Sharding::Hash, Some(_)) => {
                return Err(Error::InvalidInput(
                    "--range-split-mb models range sharding: leave it out with --sharding hash".into(),
                ));
            }
            (_, Some(0)) => {
                return Err(Error::InvalidInput("--range-split-mb must be more than 0".into()));
            }
            _ => {}
        }
        let batches = self.rows.div_ceil(self.batch_rows.min(self.rows));
        if batches * u64::from(shards) > MAX_BATCH_CELLS {
            return Err(Error::InvalidInput(format!(
                "{batches} batches × {shards} shards is more than the model keeps counts for ({MAX_BATCH_CELLS}): use a larger --batch"
            )));
        }
        Ok(())
    }

    /// The layout's name in tables and JSON.
    pub fn model_name(&self) -> &'static str {
        match (self.layout.sharding, self.range_split_bytes) {
            (Sharding::Hash, _) => "hash",
            (Sharding::Range, None) => "even-ranges",
            (Sharding::Range, Some(_)) => "split-ranges",
        }
    }

    /// The model's rules, in one paragraph.
    pub fn rules(&self) -> String {
        let n = self.layout.shards;
        match (self.layout.sharding, self.range_split_bytes) {
            (Sharding::Hash, _) => format!(
                "hash: each key goes to shard splitmix64(stored key bytes, 8-byte words) mod {n}, standing for the engine's own hash (MariaDB's PARTITION BY HASH, PostgreSQL's hash partitions)"
            ),
            (Sharding::Range, None) => format!(
                "even ranges: the {n} ranges pkbench's Spider and postgres-fdw engines lay out, split evenly over the run's own keys (the same seed, as stored); every key routed to its range"
            ),
            (Sharding::Range, Some(bytes)) => format!(
                "split ranges: one range at the start, on node 0; a range splits at its median key when rows × row bytes (key width + payload) exceed {bytes} bytes; the upper half is a new range on the node holding the fewest ranges (ties to the lowest id), the lower half stays; {n} nodes"
            ),
        }
    }
}

/// One strategy's forecast.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ShardForecast {
    /// Strategy name.
    pub strategy: String,
    /// Bytes per row the split model counts (key columns + payload).
    pub row_bytes: u64,
    /// Every this many keys of a batch was routed (1: all).
    pub sample_every_keys: u64,
    /// Keys routed.
    pub routed_keys: u64,
    /// Ranges at the end (split model only).
    pub ranges_at_end: Option<u64>,
    /// Skew over batches, as [`summarize`] reports a real run's.
    pub skew: SkewSummary,
}

/// A whole sharded prediction: what `--format json` prints.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ShardedPrediction {
    /// What the figures are (and are not).
    pub note: String,
    /// `even-ranges`, `split-ranges` or `hash`.
    pub model: String,
    /// The model's rules.
    pub rules: String,
    /// Rows per strategy.
    pub rows: u64,
    /// Rows per batch (one interval).
    pub batch_rows: u64,
    /// Payload bytes per row.
    pub payload_bytes: u64,
    /// Key-stream seed.
    pub seed: u64,
    /// Shards (nodes).
    pub shards: u32,
    /// Range or hash.
    pub sharding: Sharding,
    /// Split size of the split model, bytes.
    pub range_split_bytes: Option<u64>,
    /// One forecast per strategy.
    pub forecasts: Vec<ShardForecast>,
}

impl ShardedPrediction {
    /// An empty prediction for `config`.
    pub fn new(config: &ShardedConfig) -> Self {
        ShardedPrediction {
            note: NOTE.into(),
            model: config.model_name().into(),
            rules: config.rules(),
            rows: config.rows,
            batch_rows: config.batch_rows.min(config.rows),
            payload_bytes: config.payload_bytes,
            seed: config.keys.seed,
            shards: config.layout.shards,
            sharding: config.layout.sharding,
            range_split_bytes: config.range_split_bytes,
            forecasts: Vec::new(),
        }
    }
}

impl ShardedPrediction {
    /// The prediction as pretty JSON, with a final newline (`--format json`).
    pub fn to_json(&self) -> Result<String, Error> {
        serde_json::to_string_pretty(self)
            .map(|s| s + "\n")
            .map_err(|e| Error::Json { context: "could not serialise the sharded prediction".into(), cause: e })
    }
}

/// Bytes a row of `strategy` takes in the split model: its key columns (8 per integer, the
/// stored width of binary and text keys) and the payload.
pub fn row_bytes(strategy: &Strategy, payload_bytes: u64) -> u64 {
    let ints = std::iter::once(strategy.primary.storage)
        .chain(strategy.secondary.map(|s| s.storage))
        .filter(|s| *s == Storage::Integer)
        .count() as u64;
    u64::from(super::layout::key_bytes_per_row(strategy)) + 8 * ints + payload_bytes
}

/// Whether the model can forecast `strategy` with `config` (its settings, its keys, and for
/// split ranges how many ranges it makes), before any key is routed; the error says why not.
pub fn check_strategy(strategy: &Strategy, config: &ShardedConfig) -> Result<(), Error> {
    config.validate()?;
    check_placeable(strategy, config.keys)?;
    if let Some(split_bytes) = config.range_split_bytes {
        let row_bytes = row_bytes(strategy, config.payload_bytes);
        SplitRanges::new(config.layout.shards, row_bytes, split_bytes, config.rows * row_bytes)?;
    }
    Ok(())
}

/// Whether the model can place `strategy`'s keys; the error says why not.
fn check_placeable(strategy: &Strategy, keys: KeySettings) -> Result<(), Error> {
    let storage = strategy.primary.storage;
    let placeable = match strategy.client_primary() {
        None => storage == Storage::Integer,
        Some(_) => KeyStream::new(strategy, keys).next_row().primary.and_then(|k| Bound::stored(k, storage)).is_some(),
    };
    if placeable {
        Ok(())
    } else {
        Err(Error::Unsupported {
            strategy: strategy.name.into(),
            engine: "the sharded model".into(),
            reason: "its keys are made by the server or stored in a form sharding cannot order (MariaDB's UUID type)"
                .into(),
        })
    }
}

/// Forecasts where `strategy`'s rows land with `config`.
pub fn forecast(strategy: &Strategy, config: &ShardedConfig) -> Result<ShardForecast, Error> {
    check_strategy(strategy, config)?;
    let shards = config.layout.shards;
    let row_bytes = row_bytes(strategy, config.payload_bytes);
    let batch = config.batch_rows.min(config.rows);
    let mut stride = config.rows.div_ceil(MAX_ROUTED_KEYS).min(batch.div_ceil(MIN_ROUTED_PER_BATCH)).max(1);
    let (intervals, routed, ranges) = match (config.layout.sharding, config.range_split_bytes) {
        (Sharding::Hash, _) => {
            let (iv, routed) = route(strategy, config, stride, |key, _| hash_shard(key, shards))?;
            (iv, routed, None)
        }
        (Sharding::Range, None) => {
            let bounds = range_bounds(strategy, config.keys, config.rows, shards)
                .ok_or_else(|| Error::InvalidInput(format!("'{}' cannot be range-sharded", strategy.name)))?;
            let (iv, routed) = route(strategy, config, stride, |key, _| shard_of(&bounds, key))?;
            (iv, routed, None)
        }
        (Sharding::Range, Some(split_bytes)) => {
            // A routed key must be a small part of a range, or one key would split it alone.
            let split_rows = split_bytes / row_bytes.max(1);
            stride = stride.min(split_rows / super::range_split::MIN_SAMPLES_PER_RANGE).max(1);
            let mut model = SplitRanges::new(shards, row_bytes, split_bytes, config.rows * row_bytes)?;
            let (iv, routed) = route(strategy, config, stride, |key, weight| model.insert(key, weight))?;
            (iv, routed, Some(model.ranges()))
        }
    };
    let skew = summarize(&intervals).ok_or_else(|| Error::Internal("no rows to place".into()))?;
    Ok(ShardForecast {
        strategy: strategy.name.into(),
        row_bytes,
        sample_every_keys: stride,
        routed_keys: routed,
        ranges_at_end: ranges,
        skew,
    })
}

/// Routes every `stride`-th key of each batch (its first key always) with `place(key, weight)`,
/// and returns each batch's counts per shard scaled to its rows, and the keys routed.
/// Engine-assigned keys are 1, 2, 3, … as in a fresh table.
fn route(
    strategy: &Strategy,
    config: &ShardedConfig,
    stride: u64,
    mut place: impl FnMut(&Bound, u64) -> usize,
) -> Result<(Vec<Vec<u64>>, u64), Error> {
    let storage = strategy.primary.storage;
    let engine_assigned = strategy.client_primary().is_none();
    let mut stream = KeyStream::new(strategy, config.keys);
    let batch = config.batch_rows.min(config.rows);
    let mut intervals = Vec::with_capacity(config.rows.div_ceil(batch) as usize);
    let mut counts = vec![0u64; config.layout.shards as usize];
    let mut routed = 0;
    let unplaceable = || Error::InvalidInput(format!("a key of '{}' cannot be placed", strategy.name));
    for start in (0..config.rows).step_by(batch as usize) {
        let n = batch.min(config.rows - start);
        counts.fill(0);
        for i in 0..n {
            let key = if engine_assigned {
                if i % stride != 0 {
                    continue;
                }
                Bound::Int((start + i + 1) as i64)
            } else {
                // Every key is generated (streams cannot skip), only the sampled ones routed.
                let row = stream.next_row();
                if i % stride != 0 {
                    continue;
                }
                Bound::stored(row.primary.ok_or_else(unplaceable)?, storage).ok_or_else(unplaceable)?
            };
            // The last batch may be shorter than a stride: its keys weigh what they stand for.
            let weight = stride.min(n - i);
            counts[place(&key, weight)] += 1;
            routed += 1;
        }
        intervals.push(scale_to(&counts, n));
    }
    Ok((intervals, routed))
}

/// `counts` scaled to total `rows` by largest remainder (exact when they already do).
fn scale_to(counts: &[u64], rows: u64) -> Vec<u64> {
    let total: u64 = counts.iter().sum();
    if total == rows || total == 0 {
        return counts.to_vec();
    }
    let exact: Vec<(u64, u64)> = counts
        .iter()
        .map(|&c| {
            let scaled = u128::from(c) * u128::from(rows);
            ((scaled / u128::from(total)) as u64, (scaled % u128::from(total)) as u64)
        })
        .collect();
    let mut out: Vec<u64> = exact.iter().map(|e| e.0).collect();
    let mut order: Vec<usize> = (0..counts.len()).collect();
    order.sort_by_key(|&i| (std::cmp::Reverse(exact[i].1), i));
    let short = rows - out.iter().sum::<u64>();
    for &i in order.iter().take(short as usize) {
        out[i] += 1;
    }
    out
}

/// The shard a hash-sharded database with `shards` shards puts `key` on in this model:
/// splitmix64's finaliser folded over the stored key's bytes (8-byte little-endian words), mod
/// `shards`. It stands for the engine's own hash: any good hash spreads keys the same way.
pub fn hash_shard(key: &Bound, shards: u32) -> usize {
    let h = match key {
        Bound::Int(v) => fold(&v.to_le_bytes()),
        Bound::Bytes(b) => fold(b),
        Bound::Text(t) => fold(t.as_bytes()),
    };
    (h % u64::from(shards.max(1))) as usize
}

fn fold(bytes: &[u8]) -> u64 {
    bytes.chunks(8).fold(0x9E37_79B9_7F4A_7C15 ^ bytes.len() as u64, |h, chunk| {
        let mut word = [0u8; 8];
        word[..chunk.len()].copy_from_slice(chunk);
        mix(h ^ u64::from_le_bytes(word))
    })
}

/// splitmix64's finaliser.
fn mix(mut z: u64) -> u64 {
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::strategy::find;

    fn config(rows: u64, batch_rows: u64, sharding: Sharding, split_mb: Option<u64>) -> ShardedConfig {
        ShardedConfig {
            rows,
            batch_rows,
            payload_bytes: 50,
            keys: KeySettings::from(42),
            layout: ShardLayout { shards: 4, sharding },
            range_split_bytes: split_mb.map(|mb| mb << 20),
        }
    }

    fn skew(name: &str, c: &ShardedConfig) -> SkewSummary {
        forecast(find(name).unwrap(), c).unwrap().skew
    }

    #[test]
    fn even_ranges_put_ordered_keys_on_one_shard_and_spread_uuid4() {
        let c = config(100_000, 10_000, Sharding::Range, None);
        for name in ["int", "uuid7"] {
            let s = skew(name, &c);
            assert_eq!(s.intervals, 10);
            assert!(s.hottest_share_median >= 0.9, "{name}: {s:?}");
            assert_eq!(s.rows_per_shard, [25_000; 4], "{name}: ranges even over the run's own keys");
        }
        let s = skew("uuid4", &c);
        assert!(s.max_over_mean_max <= 1.3, "{s:?}");
    }

    #[test]
    fn hash_spreads_every_strategy() {
        let c = config(100_000, 10_000, Sharding::Hash, None);
        for name in ["int", "uuid7", "uuid4", "uuid4-text", "snowflake"] {
            let s = skew(name, &c);
            assert!(s.max_over_mean_max <= 1.1, "{name}: {s:?}");
            assert_eq!(s.rows_per_shard.iter().sum::<u64>(), 100_000);
        }
    }

    #[test]
    fn sampled_batches_keep_their_rows_and_shares() {
        // 20M rows: every 2nd key routed, counts scaled back to each batch's rows.
        let c = config(20_000_000, 2_000_000, Sharding::Range, None);
        let f = forecast(find("int").unwrap(), &c).unwrap();
        assert_eq!(f.sample_every_keys, 2);
        assert_eq!(f.routed_keys, 10_000_000);
        assert_eq!(f.skew.rows_per_shard, [5_000_000; 4]);
        assert_eq!(f.skew.hottest_share_median, 1.0);
        assert_eq!(scale_to(&[1, 1, 1], 10), [4, 3, 3]);
        assert_eq!(scale_to(&[3, 0], 3), [3, 0]);
    }

    #[test]
    fn split_ranges_keep_uuid7_on_one_node_and_spread_uuid4() {
        // 1M rows of ~66 bytes over 2 MiB ranges: ~30 ranges; batches well under a range.
        let c = config(1_000_000, 10_000, Sharding::Range, Some(2));
        let v7 = forecast(find("uuid7").unwrap(), &c).unwrap();
        assert!(v7.skew.hottest_share_median >= 0.95, "{v7:?}");
        assert!(v7.ranges_at_end.unwrap() >= 20, "{v7:?}");
        let v4 = forecast(find("uuid4").unwrap(), &c).unwrap();
        assert!((0.25..=0.30).contains(&v4.skew.hottest_share_median), "{v4:?}");
    }

    #[test]
    fn the_table_and_json_show_every_figure() {
        let c = config(40_000, 10_000, Sharding::Range, None);
        let mut p = ShardedPrediction::new(&c);
        for name in ["int", "uuid4"] {
            p.forecasts.push(forecast(find(name).unwrap(), &c).unwrap());
        }
        insta::assert_snapshot!(crate::predict::table::render_sharded(&p));
        let back: ShardedPrediction = serde_json::from_str(&p.to_json().unwrap()).unwrap();
        assert_eq!(back, p);
    }

    #[test]
    fn bad_settings_say_what_is_allowed() {
        let mut c = config(1_000, 100, Sharding::Hash, Some(1));
        assert!(c.validate().unwrap_err().to_string().contains("leave it out with --sharding hash"));
        c.range_split_bytes = None;
        c.layout.shards = 1;
        assert!(c.validate().unwrap_err().to_string().contains("--shards 1"));
        for name in ["uuid4-server", "uuid7-mariadb-uuid"] {
            let err = check_strategy(find(name).unwrap(), &config(1_000, 100, Sharding::Range, None)).unwrap_err();
            assert!(err.to_string().contains("made by the server"), "{name}: {err}");
        }
    }
}
