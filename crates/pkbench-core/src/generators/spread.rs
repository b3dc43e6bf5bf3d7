//! Test helpers for the shard-aware schemes: how keys fall over equal ranges of their key space,
//! as a range-sharded database with evenly laid bounds would split them, and whether the keys of
//! one bucket or worker stay in order.

use std::collections::HashMap;

/// How many of `keys` fall in each of `ranges` equal ranges of `[0, end)`.
pub(super) fn per_range(keys: &[i64], end: u128, ranges: usize) -> Vec<usize> {
    let mut counts = vec![0; ranges];
    for &k in keys {
        let k = u128::try_from(k).expect("shard-aware keys are positive");
        assert!(k < end, "{k} is outside [0, {end})");
        counts[(k * ranges as u128 / end) as usize] += 1;
    }
    counts
}

/// Asserts that every one of `ranges` equal ranges of `[0, end)` holds between the mean ÷
/// `factor` and the mean × `factor` of `keys`.
pub(super) fn assert_spread(keys: &[i64], end: u128, ranges: usize, factor: f64, what: &str) {
    let counts = per_range(keys, end, ranges);
    let mean = keys.len() as f64 / ranges as f64;
    for (i, &c) in counts.iter().enumerate() {
        let c = c as f64;
        assert!(c <= mean * factor && c >= mean / factor, "{what}: range {i} holds {c} keys, mean {mean}: {counts:?}");
    }
}

/// Asserts that the keys of each group (bucket, shard, worker) are strictly increasing, and
/// returns how many groups there were.
pub(super) fn assert_increasing_within(keys: &[i64], group: impl Fn(i64) -> u64, what: &str) -> usize {
    let mut last: HashMap<u64, i64> = HashMap::new();
    for &k in keys {
        if let Some(prev) = last.insert(group(k), k) {
            assert!(k > prev, "{what}: {k} follows {prev} in group {}", group(k));
        }
    }
    last.len()
}
