//! Bit-reversed positive sequence: the low 63 bits of the sequence 1, 2, 3, … in reverse order,
//! the sign bit 0.
//!
//! This is Spanner's `bit_reversed_positive` sequence, which its documentation recommends over
//! monotonic keys: Spanner splits a table into key ranges, and an increasing key puts every insert
//! in the last split. Reversing the bits turns the fastest-changing bit into the most significant
//! one, so consecutive values alternate halves, quarters, eighths … of the positive range: any 2^k
//! consecutive keys fall one in each of 2^k equal ranges (a van der Corput sequence), as even as a
//! spread gets. Nothing stays in order, though: a B-tree inserts them all over its leaves, like
//! random keys, but without repeats and with no random source.

use super::{Key, KeyGenerator};

const SEQUENCE_MAX: u64 = (1 << 63) - 1;

/// Reverses the low 63 bits of `v` (bit 0 ↔ bit 62); bit 63 of the result is 0. Its own inverse.
#[inline]
pub fn reverse_63(v: u64) -> u64 {
    (v << 1).reverse_bits()
}

/// The sequence number behind a bit-reversed key; `None` for negative values.
pub fn bitrev_sequence(id: i64) -> Option<u64> {
    u64::try_from(id).ok().map(reverse_63)
}

/// Generates bit-reversed keys of the sequence 1, 2, 3, …
#[derive(Debug, Clone)]
pub struct BitrevSeq {
    next: u64,
}

impl Default for BitrevSeq {
    /// Starts at 1 (0 would reverse to 0, the one key that sorts first).
    fn default() -> Self {
        BitrevSeq { next: 1 }
    }
}

impl BitrevSeq {
    /// The next key. The sequence saturates at 2^63 − 1.
    #[inline]
    pub fn next_id(&mut self) -> i64 {
        let s = self.next;
        self.next = (s + 1).min(SEQUENCE_MAX);
        reverse_63(s) as i64
    }
}

impl KeyGenerator for BitrevSeq {
    #[inline]
    fn next_key(&mut self) -> Key {
        Key::Int(self.next_id())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::generators::spread::assert_spread;

    #[test]
    fn reverses_the_low_63_bits_and_stays_positive() {
        let mut g = BitrevSeq::default();
        let first: Vec<i64> = (0..4).map(|_| g.next_id()).collect();
        assert_eq!(first, [1 << 62, 1 << 61, 3 << 61, 1 << 60]);
        assert_eq!(reverse_63(SEQUENCE_MAX), SEQUENCE_MAX);
        assert_eq!(reverse_63(1 << 62), 1);
        for s in [1u64, 2, 3, 12_345, 1 << 40, SEQUENCE_MAX - 7] {
            let k = reverse_63(s) as i64;
            assert!(k > 0);
            assert_eq!(bitrev_sequence(k), Some(s));
        }
        assert_eq!(bitrev_sequence(-3), None);
    }

    #[test]
    fn the_same_stream_every_time() {
        let (mut a, mut b) = (BitrevSeq::default(), BitrevSeq::default());
        assert!((0..1_000).all(|_| a.next_id() == b.next_id()));
    }

    #[test]
    fn spreads_over_the_positive_range() {
        let mut g = BitrevSeq::default();
        let keys: Vec<i64> = (0..100_000).map(|_| g.next_id()).collect();
        assert_spread(&keys, 1 << 63, 4, 1.3, "bitrev-seq");
        assert_spread(&keys, 1 << 63, 64, 1.01, "bitrev-seq, 64 ranges");
        let mut unique = keys.clone();
        unique.sort_unstable();
        unique.dedup();
        assert_eq!(unique.len(), keys.len());
    }
}
