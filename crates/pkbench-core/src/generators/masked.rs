//! Masked integers: a keyed permutation of an integer sequence, for showing integer keys in public
//! (URLs, APIs) without revealing how many rows exist or in which order they were made.
//!
//! The database keeps the plain sequence as its key (fast, ordered inserts); only the masked value
//! leaves the service, and the key turns it back. The permutation is a balanced 64-bit Feistel
//! network (two 32-bit halves, 8 rounds, round keys derived from one 64-bit key) restricted to
//! non-negative `i64` values by cycle walking, so masked values are positive integers too.
//!
//! The round function is a keyed multiply-xorshift mixer, not a vetted cipher: it hides counts and
//! order from anyone without the key, but treat the key like a password and prefer a real block
//! cipher where an attacker can collect millions of chosen pairs. Unlike Hashids/Sqids, which are
//! reversible without a key, nothing here decodes without it.

use super::{IntSequence, Key, KeyGenerator};

const ROUNDS: usize = 8;
const DOMAIN_LIMIT: u64 = 1 << 63;

/// A keyed permutation of the non-negative `i64` values.
#[derive(Clone)]
pub struct FeistelMask {
    round_keys: [u64; ROUNDS],
}

impl std::fmt::Debug for FeistelMask {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("FeistelMask(..)")
    }
}

/// SplitMix64's finaliser: a fast 64-bit mixer (the Feistel rounds here, shard-bits-seq's hash).
pub(super) fn splitmix64(mut z: u64) -> u64 {
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31)
}

#[inline]
fn round(half: u32, key: u64) -> u32 {
    (splitmix64(u64::from(half) ^ key) >> 32) as u32
}

impl FeistelMask {
    /// The permutation selected by `key`.
    pub fn new(key: u64) -> Self {
        let mut round_keys = [0u64; ROUNDS];
        for (i, k) in round_keys.iter_mut().enumerate() {
            *k = splitmix64(key.wrapping_add((i as u64 + 1).wrapping_mul(0x9e37_79b9_7f4a_7c15)));
        }
        FeistelMask { round_keys }
    }

    fn forward(&self, x: u64) -> u64 {
        let (mut l, mut r) = ((x >> 32) as u32, x as u32);
        for &k in &self.round_keys {
            (l, r) = (r, l ^ round(r, k));
        }
        u64::from(l) << 32 | u64::from(r)
    }

    fn backward(&self, y: u64) -> u64 {
        let (mut l, mut r) = ((y >> 32) as u32, y as u32);
        for &k in self.round_keys.iter().rev() {
            (l, r) = (r ^ round(l, k), l);
        }
        u64::from(l) << 32 | u64::from(r)
    }

    /// Masks a non-negative value; `None` for negative input (outside the permuted range).
    #[inline]
    pub fn mask(&self, value: i64) -> Option<i64> {
        let mut x = u64::try_from(value).ok()?;
        // Cycle walking: apply the 64-bit permutation until the result lands below 2^63
        // (two steps on average). The walk ends because `value` itself is on the cycle.
        loop {
            x = self.forward(x);
            if x < DOMAIN_LIMIT {
                return Some(x as i64);
            }
        }
    }

    /// Reverses [`FeistelMask::mask`]; `None` for negative input (never a masked value).
    pub fn unmask(&self, masked: i64) -> Option<i64> {
        let mut x = u64::try_from(masked).ok()?;
        loop {
            x = self.backward(x);
            if x < DOMAIN_LIMIT {
                return Some(x as i64);
            }
        }
    }
}

/// Generates masked values of the sequence 1, 2, 3, …: unique, positive, in no visible order.
#[derive(Debug, Clone)]
pub struct MaskedInt {
    sequence: IntSequence,
    mask: FeistelMask,
}

impl MaskedInt {
    /// Masks the sequence starting at 1 with `key`.
    pub fn new(key: u64) -> Self {
        MaskedInt { sequence: IntSequence::default(), mask: FeistelMask::new(key) }
    }

    /// The next masked value.
    #[inline]
    pub fn next_id(&mut self) -> i64 {
        let plain = self.sequence.next_id();
        // Sequence values are positive, inside the permuted range.
        self.mask.mask(plain).unwrap_or(plain)
    }
}

impl KeyGenerator for MaskedInt {
    #[inline]
    fn next_key(&mut self) -> Key {
        Key::Int(self.next_id())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_trips_and_hides_order() {
        let m = FeistelMask::new(0x5eed);
        let masked: Vec<i64> = (1..=1000).map(|v| m.mask(v).unwrap()).collect();
        for (v, x) in (1..=1000).zip(&masked) {
            assert!(*x >= 0);
            assert_eq!(m.unmask(*x), Some(v));
        }
        let ascending = masked.windows(2).filter(|w| w[0] < w[1]).count();
        assert!((350..650).contains(&ascending), "{ascending} of 999 steps ascend");
        assert_ne!(FeistelMask::new(1).mask(1), FeistelMask::new(2).mask(1));
        assert_eq!(m.mask(-1), None);
        assert_eq!(m.unmask(-5), None);
        assert_eq!(m.unmask(m.mask(i64::MAX).unwrap()), Some(i64::MAX));
    }
}
