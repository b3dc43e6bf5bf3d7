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

    proptest! {
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
