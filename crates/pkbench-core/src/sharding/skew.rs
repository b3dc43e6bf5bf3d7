//! Skew: how unevenly one interval's rows (or bytes, or pages written) fall over the shards. A
//! pure leaf: counts in, figures out.

use serde::{Deserialize, Serialize};

/// One interval's skew.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct IntervalSkew {
    /// The shard that took the most (the lowest index on a tie).
    pub hottest: usize,
    /// Its share of the interval's total, 0–1.
    pub hottest_share: f64,
    /// The hottest shard's count over the mean count per shard (1 = even; `shards` = all on one).
    pub max_over_mean: f64,
}

/// The skew of one interval's per-shard counts; `None` when nothing happened in it.
pub fn interval(counts: &[u64]) -> Option<IntervalSkew> {
    let total: u64 = counts.iter().sum();
    if total == 0 || counts.is_empty() {
        return None;
    }
    let (hottest, &max) = counts.iter().enumerate().rev().max_by_key(|(_, c)| **c)?;
    let share = max as f64 / total as f64;
    Some(IntervalSkew { hottest, hottest_share: share, max_over_mean: share * counts.len() as f64 })
}

/// A run's skew over its intervals.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct SkewSummary {
    /// Intervals with any rows.
    pub intervals: u64,
    /// The median over intervals of the hottest shard's share of the interval's rows.
    pub hottest_share_median: f64,
    /// The largest hottest-shard share of any interval.
    pub hottest_share_max: f64,
    /// The median over intervals of max/mean rows per shard.
    pub max_over_mean_median: f64,
    /// The largest max/mean of any interval.
    pub max_over_mean_max: f64,
    /// Rows per shard over the whole run.
    pub rows_per_shard: Vec<u64>,
    /// max/mean of the whole run's rows per shard.
    pub total_max_over_mean: f64,
    /// How many intervals each shard was the hottest in.
    pub hottest_count: Vec<u64>,
}

/// The summary of `intervals`, each the per-shard counts of one interval (all the same length).
pub fn summarize(intervals: &[Vec<u64>]) -> Option<SkewSummary> {
    let shards = intervals.first()?.len();
    let each: Vec<IntervalSkew> = intervals.iter().filter_map(|c| interval(c)).collect();
    if each.is_empty() {
        return None;
    }
    let mut rows_per_shard = vec![0u64; shards];
    for counts in intervals {
        for (total, c) in rows_per_shard.iter_mut().zip(counts) {
            *total += c;
        }
    }
    let mut hottest_count = vec![0u64; shards];
    for s in &each {
        hottest_count[s.hottest] += 1;
    }
    let shares: Vec<f64> = each.iter().map(|s| s.hottest_share).collect();
    let ratios: Vec<f64> = each.iter().map(|s| s.max_over_mean).collect();
    Some(SkewSummary {
        intervals: each.len() as u64,
        hottest_share_median: median(&shares),
        hottest_share_max: shares.iter().copied().fold(0.0, f64::max),
        max_over_mean_median: median(&ratios),
        max_over_mean_max: ratios.iter().copied().fold(0.0, f64::max),
        total_max_over_mean: interval(&rows_per_shard).map_or(0.0, |s| s.max_over_mean),
        rows_per_shard,
        hottest_count,
    })
}

fn median(values: &[f64]) -> f64 {
    let mut v = values.to_vec();
    v.sort_by(f64::total_cmp);
    let n = v.len();
    if n == 0 {
        0.0
    } else if n % 2 == 1 {
        v[n / 2]
    } else {
        (v[n / 2 - 1] + v[n / 2]) / 2.0
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn one_hot_shard_has_all_of_the_share_and_n_times_the_mean() {
        let s = interval(&[0, 0, 0, 100]).unwrap();
        assert_eq!((s.hottest, s.hottest_share, s.max_over_mean), (3, 1.0, 4.0));
        let even = interval(&[25, 25, 25, 25]).unwrap();
        assert_eq!((even.hottest, even.max_over_mean), (0, 1.0));
        assert_eq!(interval(&[0, 0]), None);
    }

    #[test]
    fn the_summary_takes_medians_over_intervals_with_rows() {
        let runs = vec![vec![100, 0, 0, 0], vec![0, 100, 0, 0], vec![50, 50, 0, 0], vec![0, 0, 0, 0]];
        let s = summarize(&runs).unwrap();
        assert_eq!(s.intervals, 3);
        assert_eq!(s.hottest_share_median, 1.0);
        assert_eq!(s.max_over_mean_max, 4.0);
        assert_eq!(s.rows_per_shard, [150, 150, 0, 0]);
        assert_eq!(s.total_max_over_mean, 2.0);
        assert_eq!(s.hottest_count, [2, 1, 0, 0]);
    }
}
