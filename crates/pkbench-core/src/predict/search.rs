//! Where a key goes on a simulated page, found the way a reader of a phone book would: from
//! where the key's value lies between the page's first and last key, then a few steps to the
//! exact place. The answer is `partition_point`'s; only the memory it reads differs. A random
//! key lands on a page no other recent insert touched, so each probe of a binary search waits
//! for main memory, one after the other (about seven on a page of 150 keys); the keys of a page
//! are spread about evenly between its bounds (random keys are; ordered keys go to the end), so
//! the guess lands within a cache line or two of the place, and the first and last key are read
//! together.

/// Pages shorter than this are searched by halving: they span a few cache lines at most.
pub const SHORT: usize = 16;

/// The number of `keys` (sorted) below `key`: `keys.partition_point(|k| *k < key)`.
pub fn below(keys: &[u128], key: u128) -> usize {
    rank(keys, key, |k| k < key)
}

/// The number of `keys` (sorted) at or below `key`: `keys.partition_point(|k| *k <= key)`.
pub fn at_most(keys: &[u128], key: u128) -> usize {
    rank(keys, key, |k| k <= key)
}

/// Where in `keys` (sorted, at least [`SHORT`] of them, the first at most `key` and the last
/// at or above it) `key` would lie were the keys spread evenly between the first and the last: an
/// index from 1 to `keys.len() - 2`.
pub fn guess(keys: &[u128], key: u128) -> usize {
    let (n, first, last) = (keys.len(), keys[0], keys[keys.len() - 1]);
    let span = last.saturating_sub(first).max(1);
    // Both differences shifted to fit 64 bits: a 128-bit integer converts to a float slowly.
    let shift = (128 - span.leading_zeros()).saturating_sub(64);
    let share = (key.saturating_sub(first) >> shift) as u64 as f64 / (span >> shift) as u64 as f64;
    ((share * (n - 1) as f64) as usize).clamp(1, n - 2)
}

/// The number of `keys` for which `left` holds, `left` being true of a prefix of `keys` and
/// false after it, and monotone in the key.
fn rank(keys: &[u128], key: u128, left: impl Fn(u128) -> bool) -> usize {
    let n = keys.len();
    if n < SHORT {
        return keys.partition_point(|k| left(*k));
    }
    let (first, last) = (keys[0], keys[n - 1]);
    if !left(first) {
        return 0;
    }
    if left(last) {
        return n;
    }
    let guess = guess(keys, key);
    if left(keys[guess]) {
        // The place is after `guess`: step right, doubling, to a key that is not left of it.
        let (mut lo, mut step) = (guess, 1);
        loop {
            let hi = lo + step;
            if hi >= n - 1 || !left(keys[hi]) {
                let hi = hi.min(n - 1);
                return lo + 1 + keys[lo + 1..hi].partition_point(|k| left(*k));
            }
            (lo, step) = (hi, step * 2);
        }
    }
    // The place is at or before `guess`: step left, doubling, to a key left of it.
    let (mut hi, mut step) = (guess, 1);
    loop {
        let lo = hi.saturating_sub(step);
        if lo == 0 || left(keys[lo]) {
            return lo + 1 + keys[lo + 1..hi].partition_point(|k| left(*k));
        }
        (hi, step) = (lo, step * 2);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_place_is_partition_points() {
        let mut x: u64 = 7;
        let mut next = || {
            x = x.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
            x
        };
        for n in [0usize, 1, 2, 15, 16, 17, 150, 400] {
            for shift in [1, 108, 122] {
                // Keys spread evenly over the whole range, over 2^20 values, or with runs of
                // equal keys among 64 values.
                let mut keys: Vec<u128> =
                    (0..n).map(|_| (u128::from(next()) << 64 | u128::from(next())) >> shift).collect();
                keys.sort_unstable();
                // All but the last key crowded near zero: the guess lands far from the place.
                let skewed: Vec<u128> =
                    keys.iter().enumerate().map(|(i, k)| if i + 1 < n { k >> 40 } else { *k }).collect();
                for keys in [&keys, &skewed] {
                    let probes = keys.iter().flat_map(|&k| [k.saturating_sub(1), k, k + 1]);
                    for key in probes.chain([0, u128::MAX, u128::from(next())]) {
                        assert_eq!(below(keys, key), keys.partition_point(|k| *k < key), "{n} {key}");
                        assert_eq!(at_most(keys, key), keys.partition_point(|k| *k <= key), "{n} {key}");
                    }
                }
            }
        }
    }
}
