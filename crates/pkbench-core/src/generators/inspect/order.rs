//! Whether a list of IDs is sorted, and how far from it: the inversion count (pairs out of
//! order), computed by merge sort in O(n log n).

use super::IdValue;

/// The order of a list of IDs, compared as integers or as bytes.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct OrderSummary {
    /// IDs compared.
    pub count: u64,
    /// Every ID ≥ the one before.
    pub sorted: bool,
    /// Every ID > the one before (sorted, no duplicates).
    pub strictly_increasing: bool,
    /// Pairs (i < j) with `ids[i] > ids[j]`.
    pub inversions: u64,
    /// Pairs out of all pairs, 0 (sorted) to 1 (reversed); ~0.5 for random order.
    pub inversion_ratio: f64,
    /// IDs equal to an earlier one.
    pub duplicates: u64,
    /// Whether integers and 128-bit values were mixed (then integers sort first).
    pub mixed_kinds: bool,
}

/// Summarises the order of `ids`.
pub fn summarize_order(ids: &[IdValue]) -> OrderSummary {
    let count = ids.len() as u64;
    let sorted = ids.windows(2).all(|w| w[0] <= w[1]);
    let strictly_increasing = ids.windows(2).all(|w| w[0] < w[1]);
    let mut work = ids.to_vec();
    let mut buf = ids.to_vec();
    let inversions = merge_count(&mut work, &mut buf);
    let duplicates = work.windows(2).filter(|w| w[0] == w[1]).count() as u64;
    let pairs = count.saturating_mul(count.saturating_sub(1)) / 2;
    let inversion_ratio = if pairs == 0 { 0.0 } else { inversions as f64 / pairs as f64 };
    let mixed_kinds =
        ids.iter().any(|v| matches!(v, IdValue::Int(_))) && ids.iter().any(|v| matches!(v, IdValue::Bytes(_)));
    OrderSummary { count, sorted, strictly_increasing, inversions, inversion_ratio, duplicates, mixed_kinds }
}

/// Sorts `v` (stable) and returns its inversion count; `buf` is scratch of the same length.
fn merge_count(v: &mut [IdValue], buf: &mut [IdValue]) -> u64 {
    let n = v.len();
    if n < 2 {
        return 0;
    }
    let mid = n / 2;
    let mut inv = merge_count(&mut v[..mid], &mut buf[..mid]) + merge_count(&mut v[mid..], &mut buf[mid..]);
    let (mut i, mut j, mut k) = (0, mid, 0);
    while i < mid && j < n {
        if v[i] <= v[j] {
            buf[k] = v[i];
            i += 1;
        } else {
            buf[k] = v[j];
            inv += (mid - i) as u64;
            j += 1;
        }
        k += 1;
    }
    buf[k..k + mid - i].copy_from_slice(&v[i..mid]);
    k += mid - i;
    buf[k..k + n - j].copy_from_slice(&v[j..n]);
    v.copy_from_slice(&buf[..n]);
    inv
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ints(v: &[i64]) -> Vec<IdValue> {
        v.iter().map(|&x| IdValue::Int(x)).collect()
    }

    #[test]
    fn counts_inversions_and_duplicates() {
        let s = summarize_order(&ints(&[1, 2, 3]));
        assert!(s.sorted && s.strictly_increasing && s.inversions == 0);
        let s = summarize_order(&ints(&[3, 2, 1]));
        assert_eq!((s.sorted, s.inversions, s.inversion_ratio), (false, 3, 1.0));
        let s = summarize_order(&ints(&[1, 1, 2]));
        assert!(s.sorted && !s.strictly_increasing);
        assert_eq!(s.duplicates, 1);
        let s = summarize_order(&ints(&[2, 4, 1, 3, 5]));
        assert_eq!(s.inversions, 3);
        assert_eq!(summarize_order(&[]).count, 0);
    }

    #[test]
    fn matches_brute_force() {
        let v = ints(&[5, 1, 4, 4, 2, 9, 0, 3, 3, 7]);
        let brute =
            (0..v.len()).flat_map(|i| (i + 1..v.len()).map(move |j| (i, j))).filter(|&(i, j)| v[i] > v[j]).count();
        assert_eq!(summarize_order(&v).inversions, brute as u64);
    }
}
