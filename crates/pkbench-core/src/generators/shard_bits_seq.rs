//! Shard bits over a sequence: `0 | shard:S | sequence:63−S`, where the shard is the low S bits
//! of a 64-bit mix (SplitMix64's finaliser) of the sequence number.
//!
//! This is TiDB's `SHARD_ROW_ID_BITS = S` (for its hidden row id) and `AUTO_RANDOM(S)` (for a
//! `BIGINT` primary key): TiDB splits tables into regions by key range, and an auto-increment key
//! makes the last region a write hot spot. S shard bits right below the sign bit cut the key space
//! into 2^S ranges; each new key picks one by hash, so inserts spread over 2^S regions, while the
//! sequence below keeps each shard's keys in increasing order (2^S append points). TiDB takes the
//! shard from a hash of the transaction's start timestamp; pkbench hashes the sequence number, so
//! the stream needs no clock and is the same on every run. `S` is 1–15 here (TiDB allows up to 15
//! for `SHARD_ROW_ID_BITS`; `AUTO_RANDOM` defaults to 5).

use super::masked::splitmix64;
use super::{Key, KeyGenerator};

/// The shard of sequence number `sequence` with `bits` shard bits.
#[inline]
pub fn shard_of(sequence: u64, bits: u8) -> u64 {
    splitmix64(sequence) & ((1 << bits) - 1)
}

/// The fields of a shard-bits-seq key.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ShardBitsParts {
    /// The shard bits (the S bits below the sign bit).
    pub shard: u64,
    /// The sequence number (the low 63 − S bits).
    pub sequence: u64,
}

impl ShardBitsParts {
    /// Splits `id` with `bits` shard bits (1–15); `None` for negative values.
    pub fn of(id: i64, bits: u8) -> Option<Self> {
        let v = u64::try_from(id).ok()?;
        let low = 63 - u32::from(bits.clamp(1, 15));
        Some(ShardBitsParts { shard: v >> low, sequence: v & ((1 << low) - 1) })
    }
}

/// Generates shard-bits keys of the sequence 1, 2, 3, …
#[derive(Debug, Clone)]
pub struct ShardBitsSeq {
    next: u64,
    bits: u8,
}

impl ShardBitsSeq {
    /// pkbench's default: 4 bits, 16 shards.
    pub const DEFAULT_BITS: u8 = 4;

    /// A sequence starting at 1 under `bits` shard bits (clamped to 1–15).
    pub fn new(bits: u8) -> Self {
        ShardBitsSeq { next: 1, bits: bits.clamp(1, 15) }
    }

    /// The next key. The sequence saturates at 2^(63−S) − 1 (2^48 with 15 bits: three days at a
    /// billion keys per second; 2^59 with the default 4).
    #[inline]
    pub fn next_id(&mut self) -> i64 {
        let low = 63 - u32::from(self.bits);
        let s = self.next;
        self.next = (s + 1).min((1 << low) - 1);
        (shard_of(s, self.bits) << low | s) as i64
    }
}

impl KeyGenerator for ShardBitsSeq {
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
    fn shard_bits_sit_below_the_sign_bit() {
        for bits in [1u8, 4, 15] {
            let low = 63 - u32::from(bits);
            let mut g = ShardBitsSeq::new(bits);
            for s in 1..=5_000u64 {
                let id = g.next_id();
                assert!(id > 0, "{bits} bits");
                let shard = splitmix64(s) & ((1 << bits) - 1);
                assert_eq!(id as u64, shard << low | s, "{bits} bits, sequence {s}");
                assert_eq!(ShardBitsParts::of(id, bits), Some(ShardBitsParts { shard, sequence: s }));
            }
        }
        assert_eq!(ShardBitsParts::of(-9, 4), None);
    }

    #[test]
    fn the_same_bits_give_the_same_keys() {
        let (mut a, mut b) = (ShardBitsSeq::new(4), ShardBitsSeq::new(4));
        assert!((0..1_000).all(|_| a.next_id() == b.next_id()));
    }

    #[test]
    fn spreads_over_the_key_space_and_orders_within_a_shard() {
        let mut g = ShardBitsSeq::new(4);
        let keys: Vec<i64> = (0..100_000).map(|_| g.next_id()).collect();
        assert_spread(&keys, 1 << 63, 4, 1.3, "shard-bits-seq, 4 bits");
        assert_spread(&keys, 1 << 63, 16, 1.3, "shard-bits-seq, one range per shard");
        assert_eq!(assert_increasing_within(&keys, |k| (k >> 59) as u64, "shard-bits-seq"), 16);
    }
}
