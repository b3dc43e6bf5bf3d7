//! ULID: 48-bit Unix milliseconds, then 80 random bits; written as 26 Crockford base32 characters.
//!
//! Monotonic as the ULID spec describes: within a millisecond (or while the clock is behind the
//! last ID) the 80-bit random part is incremented by one. The spec gives up when that part
//! overflows; here the timestamp advances by one millisecond instead and fresh random bits are
//! drawn, so a generator never fails, repeats or goes back. Leaks: the creation time (ms) and,
//! within a millisecond, the count between two IDs.

use super::{Clock, Key, KeyGenerator, KeyRng};

const RANDOM_MAX: u128 = (1 << 80) - 1;
const MS_MASK: u64 = (1 << 48) - 1;

/// Generates monotonic ULIDs (as 16 big-endian bytes; encode with
/// [`super::encode_base32`] for the text form).
pub struct Ulid<C: Clock = Box<dyn Clock>> {
    rng: KeyRng,
    clock: C,
    last_ms: u64,
    random: u128,
}

impl<C: Clock> Ulid<C> {
    /// A generator drawing random bits from `rng` and time from `clock`.
    pub fn new(rng: KeyRng, clock: C) -> Self {
        Ulid { rng, clock, last_ms: 0, random: 0 }
    }

    fn fresh_random(&mut self) -> u128 {
        let lo = u128::from(self.rng.next_u64());
        let hi = u128::from(self.rng.next_u64() & 0xffff);
        hi << 64 | lo
    }

    /// The next ULID's 16 bytes.
    #[inline]
    pub fn next_bytes(&mut self) -> [u8; 16] {
        let now = self.clock.now_ms() & MS_MASK;
        if now > self.last_ms {
            self.last_ms = now;
            self.random = self.fresh_random();
        } else if self.random < RANDOM_MAX {
            self.random += 1;
        } else {
            self.last_ms += 1;
            self.random = self.fresh_random();
        }
        (u128::from(self.last_ms) << 80 | self.random).to_be_bytes()
    }

    /// Test hook: the next ID of the same millisecond overflows the random part.
    #[cfg(test)]
    pub(super) fn exhaust_random(&mut self) {
        self.random = RANDOM_MAX;
    }
}

impl<C: Clock> KeyGenerator for Ulid<C> {
    #[inline]
    fn next_key(&mut self) -> Key {
        Key::Uuid(self.next_bytes())
    }
}

/// The Unix milliseconds of a ULID's 16 bytes.
pub fn ulid_ms(bytes: &[u8; 16]) -> u64 {
    u64::from_be_bytes([0, 0, bytes[0], bytes[1], bytes[2], bytes[3], bytes[4], bytes[5]])
}

#[cfg(test)]
mod tests {
    use super::*;

    use crate::generators::clock::ReplayClock as Script;

    #[test]
    fn increments_within_a_ms_and_survives_overflow_and_rollback() {
        let mut g = Ulid::new(KeyRng::seeded(1), Script(vec![50, 50, 49, 60, 60], 0));
        let a = g.next_bytes();
        let b = g.next_bytes();
        assert_eq!(u128::from_be_bytes(b), u128::from_be_bytes(a) + 1);
        g.exhaust_random();
        let c = g.next_bytes();
        assert!(c > b);
        assert_eq!(ulid_ms(&c), 51, "overflow borrows the next ms");
        assert_eq!(ulid_ms(&g.next_bytes()), 60);
        assert_eq!(ulid_ms(&g.next_bytes()), 60);
    }
}
