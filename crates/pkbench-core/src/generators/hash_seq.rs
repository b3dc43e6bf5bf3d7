//! Hash-bucketed sequence: `0 | bucket:8 | sequence:55`, where bucket = FNV-1a-32 of the
//! sequence number's 8 big-endian bytes, mod the bucket count.
//!
//! This is CockroachDB's hash-sharded index (`USING HASH WITH (bucket_count = N)`): a hidden
//! first key column `mod(fnv32(…key…), N)` in front of an ordered key. On a range-sharded
//! database an ordered key sends every insert to the last range, so one node takes all the writes;
//! the bucket prefix cuts the key space into N ordered runs, each with its own right edge, and
//! consecutive keys land in different runs. Within a bucket the keys still increase (N append
//! points instead of one), so a B-tree sees N sequential streams, not random inserts. The price is
//! that a range scan over the sequence must visit all N buckets.

use super::{Key, KeyGenerator};

/// Bits of the sequence number; the bucket sits above them.
pub const HASH_SEQ_SEQUENCE_BITS: u32 = 55;

const SEQUENCE_MAX: u64 = (1 << HASH_SEQ_SEQUENCE_BITS) - 1;

/// FNV-1a, 32-bit, over `bytes` (CockroachDB's `fnv32a`).
pub fn fnv1a_32(bytes: &[u8]) -> u32 {
    let mut h: u32 = 0x811c_9dc5;
    for &b in bytes {
        h ^= u32::from(b);
        h = h.wrapping_mul(0x0100_0193);
    }
    h
}

/// The bucket of sequence number `sequence` among `buckets`.
#[inline]
pub fn hash_bucket(sequence: u64, buckets: u16) -> u16 {
    (fnv1a_32(&sequence.to_be_bytes()) % u32::from(buckets.max(1))) as u16
}

/// The fields of a hash-seq key.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct HashSeqParts {
    /// The bucket prefix (bits 55–62).
    pub bucket: u16,
    /// The sequence number (bits 0–54).
    pub sequence: u64,
}

impl HashSeqParts {
    /// Splits `id` into its fields; `None` for negative values (the sign bit is always 0).
    pub fn of(id: i64) -> Option<Self> {
        let v = u64::try_from(id).ok()?;
        Some(HashSeqParts { bucket: (v >> HASH_SEQ_SEQUENCE_BITS) as u16, sequence: v & SEQUENCE_MAX })
    }
}

/// Generates hash-seq keys for the sequence 1, 2, 3, … over a number of buckets (2–256).
#[derive(Debug, Clone)]
pub struct HashSeq {
    next: u64,
    buckets: u16,
}

impl HashSeq {
    /// CockroachDB's default bucket count since 22.1, and pkbench's.
    pub const DEFAULT_BUCKETS: u16 = 16;

    /// A sequence starting at 1 spread over `buckets` (clamped to 2–256: the bucket has 8 bits).
    pub fn new(buckets: u16) -> Self {
        HashSeq { next: 1, buckets: buckets.clamp(2, 256) }
    }

    /// The next key. The sequence saturates at 2^55 − 1 (a year at a billion keys per second).
    #[inline]
    pub fn next_id(&mut self) -> i64 {
        let s = self.next;
        self.next = (s + 1).min(SEQUENCE_MAX);
        (u64::from(hash_bucket(s, self.buckets)) << HASH_SEQ_SEQUENCE_BITS | s) as i64
    }
}

impl KeyGenerator for HashSeq {
    #[inline]
    fn next_key(&mut self) -> Key {
        Key::Int(self.next_id())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::generators::spread::{assert_increasing_within, assert_spread};

    #[test]
    fn fnv1a_matches_the_reference_vectors() {
        // From the FNV reference (draft-eastlake-fnv): "" and "a".
        assert_eq!(fnv1a_32(b""), 0x811c_9dc5);
        assert_eq!(fnv1a_32(b"a"), 0xe40c_292c);
        assert_eq!(fnv1a_32(b"foobar"), 0xbf9c_f968);
    }

    #[test]
    fn bucket_above_the_sequence_and_positive() {
        let mut g = HashSeq::new(16);
        for s in 1..=10_000u64 {
            let id = g.next_id();
            assert!(id > 0);
            let want = u64::from(fnv1a_32(&s.to_be_bytes()) % 16);
            assert_eq!(id as u64, want << 55 | s, "sequence {s}");
            assert_eq!(HashSeqParts::of(id), Some(HashSeqParts { bucket: want as u16, sequence: s }));
        }
        assert_eq!(HashSeqParts::of(-1), None);
        // 256 buckets fill all 8 bits and stay positive.
        let mut wide = HashSeq::new(256);
        let keys: Vec<i64> = (0..10_000).map(|_| wide.next_id()).collect();
        assert!(keys.iter().all(|&k| k > 0));
        assert_eq!(keys.iter().map(|&k| k >> 55).max(), Some(255));
    }

    #[test]
    fn the_same_buckets_give_the_same_keys() {
        let (mut a, mut b) = (HashSeq::new(16), HashSeq::new(16));
        assert!((0..1_000).all(|_| a.next_id() == b.next_id()));
        let (mut a, mut c) = (HashSeq::new(16), HashSeq::new(8));
        assert!((0..1_000).any(|_| a.next_id() != c.next_id()));
    }

    #[test]
    fn spreads_over_the_key_space_and_orders_within_a_bucket() {
        let mut g = HashSeq::new(16);
        let keys: Vec<i64> = (0..100_000).map(|_| g.next_id()).collect();
        assert_spread(&keys, 16 << 55, 4, 1.3, "hash-seq, 16 buckets");
        assert_spread(&keys, 16 << 55, 16, 1.3, "hash-seq, one range per bucket");
        let buckets = assert_increasing_within(&keys, |k| (k >> 55) as u64, "hash-seq");
        assert_eq!(buckets, 16);
    }
}
