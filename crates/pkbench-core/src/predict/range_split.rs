//! Ranges that split as they grow, on `N` nodes — a CockroachDB-like range-sharded database.
//!
//! Rules:
//! - The table starts as one range, on node 0.
//! - A range splits when its rows × row bytes exceed the split size, at its median key: the
//!   lower half stays where it is, the upper half becomes a new range.
//! - A new range goes to the node holding the fewest ranges (ties to the lowest node id); ranges
//!   never move after that (no rebalancing of load or leases).
//!
//! Memory stays bounded at any size: each range keeps a sorted, weighted sample of its keys (at
//! most [`SplitRanges::sample_cap`] entries; when it fills, neighbours merge in pairs), not
//! its keys, and the median comes from the sample.

use crate::Error;
use crate::sharding::bounds::Bound;

/// Routed keys a range must hold at least before it splits (see the model's sampling).
pub const MIN_SAMPLES_PER_RANGE: u64 = 64;
/// Sampled keys kept over all ranges (each a key and a weight).
pub const MAX_SAMPLE_KEYS: u64 = 2_000_000;
/// The most ranges the model expects to hold.
pub const MAX_RANGES: u64 = 1_000_000;
/// Sampled keys per range: at least (for a good median), at most (for memory).
const RANGE_SAMPLE: (u64, u64) = (32, 1024);

/// One range: its first key, rows, node and a sample of its keys.
struct Range {
    /// The lowest key it holds (`None`: below every key).
    start: Option<Bound>,
    rows: u64,
    node: usize,
    /// Ascending keys, each with the rows it stands for.
    sample: Vec<(Bound, u64)>,
}

/// The ranges of one table and the nodes that hold them.
pub struct SplitRanges {
    ranges: Vec<Range>,
    ranges_per_node: Vec<u64>,
    row_bytes: u64,
    split_bytes: u64,
    sample_cap: usize,
    /// State of the draws that thin samples.
    rng: u64,
}

impl SplitRanges {
    /// One empty range on node 0 of `nodes`; ranges split at `split_bytes` of rows of `row_bytes`.
    /// `total_bytes` (what the run will insert) sizes each range's sample to keep memory bounded.
    pub fn new(nodes: u32, row_bytes: u64, split_bytes: u64, total_bytes: u64) -> Result<Self, Error> {
        // Ranges hold from half (just split) to all of the split size: at most about 2 × total / split.
        let expected = 2 * total_bytes / split_bytes.max(1) + 1;
        if expected > MAX_RANGES {
            return Err(Error::InvalidInput(format!(
                "ranges of {split_bytes} bytes (--range-split-mb) make about {expected} ranges of these rows, more than the model holds ({MAX_RANGES}): use larger ranges"
            )));
        }
        let mut ranges_per_node = vec![0; nodes.max(1) as usize];
        ranges_per_node[0] = 1;
        Ok(SplitRanges {
            ranges: vec![Range { start: None, rows: 0, node: 0, sample: Vec::new() }],
            ranges_per_node,
            row_bytes: row_bytes.max(1),
            split_bytes,
            sample_cap: (MAX_SAMPLE_KEYS / expected).clamp(RANGE_SAMPLE.0, RANGE_SAMPLE.1) as usize,
            rng: 0x2545_F491_4F6C_DD1D,
        })
    }

    /// Writes `weight` rows at `key` (a routed key standing for that many) and returns the node
    /// that took them; splits the range if it has grown past the split size.
    pub fn insert(&mut self, key: &Bound, weight: u64) -> usize {
        let i = self.ranges.partition_point(|r| r.start.as_ref().is_none_or(|s| s <= key)) - 1;
        let range = &mut self.ranges[i];
        range.rows += weight;
        let at = range.sample.partition_point(|(k, _)| k < key);
        range.sample.insert(at, (key.clone(), weight));
        if range.sample.len() > self.sample_cap {
            thin(&mut range.sample, &mut self.rng);
        }
        let node = range.node;
        if range.rows.saturating_mul(self.row_bytes) > self.split_bytes {
            self.split(i);
        }
        node
    }

    /// Splits range `i` at its sample's weighted median; the upper half goes to the node with
    /// the fewest ranges.
    fn split(&mut self, i: usize) {
        let range = &mut self.ranges[i];
        let n = range.sample.len();
        if n < 2 {
            return;
        }
        let total: u64 = range.sample.iter().map(|e| e.1).sum();
        let mut seen = 0;
        let mut cut = n - 1;
        for (j, (_, w)) in range.sample.iter().enumerate() {
            seen += w;
            if 2 * seen >= total {
                cut = j + 1;
                break;
            }
        }
        let upper = range.sample.split_off(cut.clamp(1, n - 1));
        let upper_weight: u64 = upper.iter().map(|e| e.1).sum();
        let upper_rows = (u128::from(range.rows) * u128::from(upper_weight) / u128::from(total)) as u64;
        range.rows -= upper_rows;
        let node = self.least_loaded();
        self.ranges_per_node[node] += 1;
        let start = Some(upper[0].0.clone());
        self.ranges.insert(i + 1, Range { start, rows: upper_rows, node, sample: upper });
    }

    /// The node holding the fewest ranges, the lowest id on a tie.
    fn least_loaded(&self) -> usize {
        self.ranges_per_node.iter().enumerate().min_by_key(|&(id, &count)| (count, id)).map_or(0, |(id, _)| id)
    }

    /// Ranges now.
    pub fn ranges(&self) -> u64 {
        self.ranges.len() as u64
    }

    /// Ranges each node holds.
    pub fn ranges_per_node(&self) -> &[u64] {
        &self.ranges_per_node
    }

    /// Sampled keys kept per range at most.
    pub fn sample_cap(&self) -> usize {
        self.sample_cap
    }

    /// Sampled keys kept over all ranges.
    pub fn sampled_keys(&self) -> usize {
        self.ranges.iter().map(|r| r.sample.len()).sum()
    }
}

/// Halves a sample: each pair of neighbours becomes one of its keys with both weights, the key
/// drawn with odds in proportion to its weight — so the sample's quantiles stay where they were
/// on average (always keeping the lower key would drag the median down at every halving).
fn thin(sample: &mut Vec<(Bound, u64)>, rng: &mut u64) {
    let merged: Vec<(Bound, u64)> = sample
        .chunks_mut(2)
        .map(|pair| {
            let weight: u64 = pair.iter().map(|e| e.1).sum();
            // xorshift64: deterministic, so the same run gives the same forecast.
            *rng ^= *rng << 13;
            *rng ^= *rng >> 7;
            *rng ^= *rng << 17;
            let keep = usize::from(pair.len() == 2 && *rng % weight >= pair[0].1);
            (std::mem::replace(&mut pair[keep].0, Bound::Int(0)), weight)
        })
        .collect();
    *sample = merged;
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ordered_keys_split_the_last_range_and_move_it_to_the_emptiest_node() {
        // Rows of 1 byte, split above 10 bytes: keys 1..=11 fill range 0, then it splits.
        let mut m = SplitRanges::new(3, 1, 10, 1_000).unwrap();
        let mut nodes = Vec::new();
        for k in 1..=40 {
            nodes.push(m.insert(&Bound::Int(k), 1));
        }
        assert!(nodes[..11].iter().all(|&n| n == 0), "{nodes:?}");
        // Each split's upper half (where new keys go) lands on the node with the fewest ranges.
        assert_eq!(nodes[11], 1, "{nodes:?}");
        let order: Vec<usize> = nodes.windows(2).filter(|w| w[0] != w[1]).map(|w| w[1]).collect();
        assert_eq!(order[..4], [1, 2, 0, 1], "{nodes:?}");
        assert_eq!(m.ranges_per_node().iter().sum::<u64>(), m.ranges());
        assert!(m.ranges_per_node().iter().max().unwrap() - m.ranges_per_node().iter().min().unwrap() <= 1);
    }

    #[test]
    fn splits_happen_at_the_median_and_samples_stay_bounded() {
        let mut m = SplitRanges::new(2, 100, 1 << 30, 1 << 30).unwrap();
        let cap = m.sample_cap();
        // 100,000 keys uniform over 0..100,000 (a fixed LCG).
        let mut x: u64 = 1;
        for _ in 0..100_000 {
            x = x.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(1_442_695_040_888_963_407);
            m.insert(&Bound::Int(((x >> 33) % 100_000) as i64), 1);
        }
        assert_eq!(m.ranges(), 1);
        assert_eq!(m.sampled_keys(), m.ranges[0].sample.len());
        assert!(m.sampled_keys() <= cap);
        let weight: u64 = m.ranges[0].sample.iter().map(|e| e.1).sum();
        assert_eq!(weight, 100_000, "thinning keeps every row's weight");
        // Force a split: the upper half starts near the median key, 50,000.
        m.split_bytes = 0;
        m.insert(&Bound::Int(3), 1);
        let Some(Bound::Int(start)) = m.ranges[1].start else { panic!("no split") };
        assert!((48_000..52_000).contains(&start), "{start}");
        assert!((48_000..52_000).contains(&m.ranges[1].rows), "{}", m.ranges[1].rows);
    }

    #[test]
    fn too_many_ranges_is_refused() {
        let err = SplitRanges::new(4, 66, 1, 1 << 30).err().unwrap();
        assert!(err.to_string().contains("use larger ranges"), "{err}");
    }
}
