//! RFC 9562 UUID version 7 with a monotonic counter (§6.2 method 1).
//!
//! Layout: `unix_ts_ms:48 | ver:4 | counter_hi:12 | var:2 | counter_lo:30 | random:32`.
//! The 42-bit counter is seeded randomly each new millisecond with its top bit clear (the
//! rollover guard); when it overflows the timestamp advances by one, and when the clock steps
//! back the last timestamp is kept and counting continues. Keys never repeat or go backwards.
//!
//! Leaks: the creation time (ms) and, between two IDs of the same millisecond, how many were made
//! in between (the counter steps by one). Method 3 is in `uuid7_subms.rs`.

use super::{Clock, Key, KeyGenerator, KeyRng};

const COUNTER_BITS: u32 = 42;
const COUNTER_MAX: u64 = (1 << COUNTER_BITS) - 1;

/// Generates monotonic version-7 UUIDs.
///
/// Generic over the clock so a per-thread generator with a cheap clock
/// ([`super::CoarseClock`]) inlines the read; `Box<dyn Clock>` is the default.
pub struct UuidV7<C: Clock = Box<dyn Clock>> {
    rng: KeyRng,
    clock: C,
    last_ms: u64,
    counter: u64,
}

impl<C: Clock> UuidV7<C> {
    /// A generator drawing random bits from `rng` and time from `clock`.
    pub fn new(rng: KeyRng, clock: C) -> Self {
        UuidV7 { rng, clock, last_ms: 0, counter: 0 }
    }

    fn reseed_counter(&mut self) {
        // Top bit clear leaves at least 2^41 increments before rollover.
        self.counter = self.rng.next_u64() & (COUNTER_MAX >> 1);
    }

    /// The next UUID's 16 bytes.
    #[inline]
    pub fn next_bytes(&mut self) -> [u8; 16] {
        let now = self.clock.now_ms() & ((1 << 48) - 1);
        if now > self.last_ms {
            self.last_ms = now;
            self.reseed_counter();
        } else if self.counter < COUNTER_MAX {
            self.counter += 1;
        } else {
            self.last_ms += 1;
            self.reseed_counter();
        }
        let random = self.rng.next_u64() as u32;
        let hi = (self.last_ms << 16) | 0x7000 | (self.counter >> 30);
        let lo = (0b10 << 62) | ((self.counter & ((1 << 30) - 1)) << 32) | u64::from(random);
        ((u128::from(hi) << 64) | u128::from(lo)).to_be_bytes()
    }
}

#[cfg(test)]
impl<C: Clock> UuidV7<C> {
    /// Test hook: the next ID of the same millisecond overflows the counter.
    pub(super) fn exhaust_counter(&mut self) {
        self.counter = COUNTER_MAX;
    }
}

impl<C: Clock> KeyGenerator for UuidV7<C> {
    #[inline]
    fn next_key(&mut self) -> Key {
        Key::Uuid(self.next_bytes())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::generators::{VirtualClock, uuid_variant_is_rfc, uuid_version};

    use crate::generators::clock::ReplayClock as Script;

    #[test]
    fn strictly_increasing_with_valid_bits() {
        let mut g = UuidV7::new(KeyRng::seeded(3), Box::new(VirtualClock::new(1_000, 7)));
        let mut prev = g.next_bytes();
        for _ in 0..100_000 {
            let b = g.next_bytes();
            assert_eq!(uuid_version(&b), 7);
            assert!(uuid_variant_is_rfc(&b));
            assert!(b > prev);
            prev = b;
        }
    }

    #[test]
    fn clock_rollback_keeps_counting() {
        let clock = Script(vec![5_000, 5_001, 4_000, 4_000, 3_000], 0);
        let mut g = UuidV7::new(KeyRng::seeded(4), Box::new(clock));
        let keys: Vec<[u8; 16]> = (0..6).map(|_| g.next_bytes()).collect();
        assert!(keys.windows(2).all(|w| w[0] < w[1]));
        // The timestamp stays at the latest reading, 5001 ms.
        let ts = u64::from_be_bytes([0, 0, keys[5][0], keys[5][1], keys[5][2], keys[5][3], keys[5][4], keys[5][5]]);
        assert_eq!(ts, 5_001);
    }

    #[test]
    fn counter_overflow_advances_timestamp() {
        let mut g = UuidV7::new(KeyRng::seeded(5), Box::new(Script(vec![10], 0)));
        let first = g.next_bytes();
        g.counter = COUNTER_MAX;
        let next = g.next_bytes();
        assert!(next > first);
        assert_eq!(g.last_ms, 11);
    }
}
