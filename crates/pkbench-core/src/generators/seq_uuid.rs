//! Sequential UUIDs as in PostgreSQL's `sequential-uuids` extension (v1.0.3),
//! `uuid_sequence_nextval(seq, block_size, block_count)`: a prefix that changes every
//! `block_size` values of a sequence and wraps after `block_count` blocks, then random bytes.
//!
//! The algorithm, exactly: fill 16 bytes with strong random; `prefix_bits` is the smallest
//! b ≥ 1 with 2^b ≥ block_count, rounded up to whole bytes; `prefix_count = 2^prefix_bits`;
//! `block_size = max(1, block_size × block_count / prefix_count)`; the prefix
//! `(value / block_size) mod prefix_count` is written big-endian into the leading bytes; finally
//! the version-4 and variant bits are set. New rows land in one region of the index at a time,
//! and the wrap-around lets the index reuse space. Leaks: roughly how many IDs came before.

use super::{IdError, Key, KeyGenerator, KeyRng};

/// The prefix rule shared by the sequence and time variants.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SeqPrefix {
    /// Leading bytes the prefix occupies (1–8).
    pub prefix_bytes: u32,
    /// The rescaled block size: values per prefix step.
    pub block_size: u64,
    mask: u64,
}

impl SeqPrefix {
    /// The rule for `block_size` values per block and `block_count` blocks per cycle (both ≥ 1).
    pub fn new(block_size: u64, block_count: u64) -> Result<Self, IdError> {
        if block_size == 0 || block_count == 0 {
            return Err(IdError::InvalidParameter(format!(
                "block size and block count must be positive integers (got {block_size} and {block_count})"
            )));
        }
        // Smallest b >= 1 with 2^b >= block_count, rounded up to whole bytes.
        let bits = (64 - (block_count - 1).leading_zeros()).max(1);
        let prefix_bytes = bits.div_ceil(8);
        let prefix_count = 1u128 << (8 * prefix_bytes);
        let rescaled = (u128::from(block_size) * u128::from(block_count) / prefix_count).max(1);
        let mask = (prefix_count - 1) as u64;
        Ok(SeqPrefix { prefix_bytes, block_size: rescaled as u64, mask })
    }

    /// The extension's default rule (65,536 × 65,536: a 2-byte prefix).
    pub const fn default_rule() -> Self {
        SeqPrefix { prefix_bytes: 2, block_size: 65_536, mask: 0xffff }
    }

    /// The prefix value for `value`.
    #[inline]
    pub fn prefix(&self, value: u64) -> u64 {
        (value / self.block_size) & self.mask
    }

    /// Builds a UUID: random bytes from `rng`, `value`'s prefix in front, version 4 and variant.
    #[inline]
    pub fn uuid(&self, value: u64, rng: &mut KeyRng) -> [u8; 16] {
        let mut b = [0u8; 16];
        b[..8].copy_from_slice(&rng.next_u64().to_le_bytes());
        b[8..].copy_from_slice(&rng.next_u64().to_le_bytes());
        let n = self.prefix_bytes as usize;
        b[..n].copy_from_slice(&self.prefix(value).to_be_bytes()[8 - n..]);
        b[6] = b[6] & 0x0f | 0x40;
        b[8] = b[8] & 0x3f | 0x80;
        b
    }
}

/// `uuid_sequence_nextval`: the value is a sequence counted from 0 (`nextval(seq) - 1`).
pub struct SeqUuid {
    rng: KeyRng,
    prefix: SeqPrefix,
    next: u64,
}

impl SeqUuid {
    /// Defaults of the extension: 65,536 values per block, 65,536 blocks (2-byte prefix).
    pub const DEFAULT_BLOCK_SIZE: u64 = 65_536;
    /// See [`SeqUuid::DEFAULT_BLOCK_SIZE`].
    pub const DEFAULT_BLOCK_COUNT: u64 = 65_536;

    /// A generator with the given prefix rule.
    pub fn new(rng: KeyRng, prefix: SeqPrefix) -> Self {
        SeqUuid { rng, prefix, next: 0 }
    }

    /// The next UUID's 16 bytes.
    #[inline]
    pub fn next_bytes(&mut self) -> [u8; 16] {
        let v = self.next;
        self.next = self.next.wrapping_add(1);
        self.prefix.uuid(v, &mut self.rng)
    }
}

impl KeyGenerator for SeqUuid {
    #[inline]
    fn next_key(&mut self) -> Key {
        Key::Uuid(self.next_bytes())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::generators::{uuid_variant_is_rfc, uuid_version};

    fn prefix_of(b: &[u8; 16], n: usize) -> u64 {
        b[..n].iter().fold(0, |acc, &x| acc << 8 | u64::from(x))
    }

    #[test]
    fn prefix_lengths_and_rescaling() {
        let p = |s, c| SeqPrefix::new(s, c).unwrap();
        assert_eq!((p(65_536, 65_536).prefix_bytes, p(65_536, 65_536).block_size), (2, 65_536));
        assert_eq!((p(256, 65_536).prefix_bytes, p(256, 65_536).block_size), (2, 256));
        assert_eq!((p(100, 256).prefix_bytes, p(100, 256).block_size), (1, 100));
        // 1000 blocks need 10 bits → 2 bytes = 65,536 prefixes; block size shrinks to keep the cycle.
        assert_eq!((p(65_536, 1_000).prefix_bytes, p(65_536, 1_000).block_size), (2, 1_000));
        assert_eq!((p(1, 1).prefix_bytes, p(1, 1).block_size), (1, 1));
        assert_eq!((p(10, 3).prefix_bytes, p(10, 3).block_size), (1, 1));
        assert_eq!(p(1, u64::MAX).prefix_bytes, 8);
        assert!(SeqPrefix::new(0, 1).is_err() && SeqPrefix::new(1, 0).is_err());
        assert_eq!(SeqPrefix::default_rule(), p(65_536, 65_536));
    }

    #[test]
    fn block_256_of_65536_steps_every_256_and_wraps_after_16m() {
        let rule = SeqPrefix::new(256, 65_536).unwrap();
        let mut rng = KeyRng::seeded(1);
        for (value, want) in [(0, 0), (255, 0), (256, 1), (511, 1), (512, 2), (16_777_215, 0xffff), (16_777_216, 0)] {
            let b = rule.uuid(value, &mut rng);
            assert_eq!(prefix_of(&b, 2), want, "value {value}");
            assert_eq!(uuid_version(&b), 4);
            assert!(uuid_variant_is_rfc(&b));
        }
    }

    #[test]
    fn generator_counts_from_zero() {
        let mut g = SeqUuid::new(KeyRng::seeded(2), SeqPrefix::new(2, 256).unwrap());
        let prefixes: Vec<u64> = (0..6).map(|_| prefix_of(&g.next_bytes(), 1)).collect();
        assert_eq!(prefixes, [0, 0, 1, 1, 2, 2]);
    }
}
