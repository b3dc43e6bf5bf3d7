//! Pure statistics on plain numbers. Imports nothing else from the crate.

/// `num / den`, or `None` when the denominator is zero or either side is not finite.
pub fn ratio(num: f64, den: f64) -> Option<f64> {
    let r = num / den;
    (den != 0.0 && r.is_finite()).then_some(r)
}

/// `count` per 1,000 `rows`, or `None` for zero rows.
pub fn per_thousand(count: u64, rows: u64) -> Option<f64> {
    ratio(count as f64 * 1000.0, rows as f64)
}

/// Rows per second for `rows` inserted in `ns` nanoseconds.
pub fn rate_per_sec(rows: u64, ns: u64) -> Option<f64> {
    ratio(rows as f64 * 1e9, ns as f64)
}

/// Arithmetic mean, or `None` for an empty slice.
pub fn mean(values: &[f64]) -> Option<f64> {
    ratio(values.iter().sum(), values.len() as f64)
}

/// The `q`-quantile (0–1) by linear interpolation between closest ranks, or `None` if empty.
///
/// `sorted` must be in ascending order.
pub fn quantile_sorted(sorted: &[f64], q: f64) -> Option<f64> {
    if sorted.is_empty() {
        return None;
    }
    let q = q.clamp(0.0, 1.0);
    let pos = q * (sorted.len() - 1) as f64;
    let (lo, hi) = (pos.floor() as usize, pos.ceil() as usize);
    let frac = pos - lo as f64;
    Some(sorted[lo] + (sorted[hi] - sorted[lo]) * frac)
}

/// Median, or `None` for an empty slice (NaNs sort last).
pub fn median(values: &[f64]) -> Option<f64> {
    let mut v = values.to_vec();
    v.sort_by(f64::total_cmp);
    quantile_sorted(&v, 0.5)
}

/// A median with its bootstrap confidence interval.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct MedianCi {
    /// Median of the values.
    pub median: f64,
    /// Lower bound of the interval.
    pub low: f64,
    /// Upper bound of the interval.
    pub high: f64,
}

impl MedianCi {
    /// Interval width ÷ |median|: how far apart repeated runs are (`None` for a zero median).
    pub fn relative_width(&self) -> Option<f64> {
        ratio(self.high - self.low, self.median.abs())
    }
}

/// Median of `values` and its percentile-bootstrap confidence interval at `level` (e.g. 0.95):
/// `resamples` resamples with replacement, drawn from a SplitMix64 stream seeded with `seed`
/// (same inputs, same interval). `None` for an empty slice.
pub fn bootstrap_median_ci(values: &[f64], level: f64, resamples: usize, seed: u64) -> Option<MedianCi> {
    let median = median(values)?;
    let n = values.len();
    let mut state = seed;
    let mut next = move || {
        state = state.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = state;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    };
    let mut sample = vec![0.0; n];
    let mut medians = Vec::with_capacity(resamples.max(1));
    for _ in 0..resamples.max(1) {
        for slot in sample.iter_mut() {
            *slot = values[(next() % n as u64) as usize];
        }
        sample.sort_by(f64::total_cmp);
        medians.extend(quantile_sorted(&sample, 0.5));
    }
    medians.sort_by(f64::total_cmp);
    let tail = (1.0 - level.clamp(0.0, 1.0)) / 2.0;
    Some(MedianCi { median, low: quantile_sorted(&medians, tail)?, high: quantile_sorted(&medians, 1.0 - tail)? })
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn basics() {
        assert_eq!(ratio(1.0, 0.0), None);
        assert_eq!(per_thousand(5, 1000), Some(5.0));
        assert_eq!(rate_per_sec(1000, 1_000_000_000), Some(1000.0));
        assert_eq!(quantile_sorted(&[1.0, 2.0, 3.0, 4.0], 0.5), Some(2.5));
        assert_eq!(mean(&[]), None);
    }

    #[test]
    fn bootstrap_of_identical_values_has_zero_width() {
        let ci = bootstrap_median_ci(&[5.0; 7], 0.95, 500, 1).unwrap();
        assert_eq!((ci.median, ci.low, ci.high), (5.0, 5.0, 5.0));
        assert_eq!(ci.relative_width(), Some(0.0));
        assert_eq!(bootstrap_median_ci(&[], 0.95, 500, 1), None);
        assert_eq!(median(&[3.0, 1.0, 2.0]), Some(2.0));
    }

    proptest! {
        #[test]
        fn bootstrap_interval_holds_the_median_within_the_data(v in prop::collection::vec(-1e6f64..1e6, 1..30), seed in 0u64..1000) {
            let ci = bootstrap_median_ci(&v, 0.95, 200, seed).unwrap();
            let min = v.iter().cloned().fold(f64::INFINITY, f64::min);
            let max = v.iter().cloned().fold(f64::NEG_INFINITY, f64::max);
            prop_assert!(min - 1e-9 <= ci.low && ci.low <= ci.high && ci.high <= max + 1e-9);
            prop_assert!(ci.low <= ci.median + 1e-9 && ci.median <= ci.high + 1e-9);
            prop_assert_eq!(bootstrap_median_ci(&v, 0.95, 200, seed), Some(ci));
        }

        #[test]
        fn wider_levels_give_wider_intervals(v in prop::collection::vec(0f64..1e3, 2..20), seed in 0u64..100) {
            let narrow = bootstrap_median_ci(&v, 0.5, 300, seed).unwrap();
            let wide = bootstrap_median_ci(&v, 0.95, 300, seed).unwrap();
            prop_assert!(wide.low <= narrow.low + 1e-9 && wide.high >= narrow.high - 1e-9);
        }

        #[test]
        fn quantiles_are_monotone_and_bounded(mut v in prop::collection::vec(-1e9f64..1e9, 1..200), a in 0.0f64..1.0, b in 0.0f64..1.0) {
            v.sort_by(f64::total_cmp);
            let (lo, hi) = if a <= b { (a, b) } else { (b, a) };
            let (x, y) = (quantile_sorted(&v, lo).unwrap(), quantile_sorted(&v, hi).unwrap());
            prop_assert!(x <= y + 1e-6);
            prop_assert!(x >= v[0] - 1e-6 && y <= v[v.len() - 1] + 1e-6);
        }

        #[test]
        fn mean_lies_between_min_and_max(v in prop::collection::vec(-1e9f64..1e9, 1..200)) {
            let m = mean(&v).unwrap();
            let min = v.iter().cloned().fold(f64::INFINITY, f64::min);
            let max = v.iter().cloned().fold(f64::NEG_INFINITY, f64::max);
            prop_assert!(m >= min - 1e-3 && m <= max + 1e-3);
        }

        #[test]
        fn per_thousand_scales_linearly(count in 0u64..1_000_000, rows in 1u64..1_000_000) {
            let p = per_thousand(count, rows).unwrap();
            prop_assert!((p * rows as f64 / 1000.0 - count as f64).abs() < 1e-6 * (count as f64 + 1.0));
        }
    }
}
