//! RFC 9562 UUID version 7 with sub-millisecond precision (§6.2 method 3), as PostgreSQL 18's
//! `uuidv7()` builds them.
//!
//! Layout: `unix_ts_ms:48 | ver:4 | fraction:12 | var:2 | counter:30 | random:32`, where
//! `fraction = ⌊(ns within the ms) × 4096 / 10^6⌋` (steps of ~244 ns). ms and fraction together
//! form a 60-bit timestamp. Two IDs in the same 1/4096 ms would not be ordered by time alone, so
//! the top 30 bits of `rand_b` hold a counter (method 1's idea, seeded randomly with its top bit
//! clear each new step); when it runs out the timestamp advances by one step, and a clock that
//! steps back keeps the last timestamp. (PostgreSQL instead advances the timestamp by one step for
//! every such ID, which drifts ahead of real time at high rates.)
//!
//! Leaks: the creation time to ~244 ns.

use super::{Clock, Key, KeyGenerator, KeyRng};

const COUNTER_BITS: u32 = 30;
const COUNTER_MAX: u64 = (1 << COUNTER_BITS) - 1;
const STAMP_MASK: u64 = (1 << 60) - 1;

/// Generates monotonic version-7 UUIDs carrying a 12-bit sub-millisecond fraction.
pub struct UuidV7SubMs<C: Clock = Box<dyn Clock>> {
    rng: KeyRng,
    clock: C,
    /// `unix_ms << 12 | fraction` of the last ID.
    last_stamp: u64,
    counter: u64,
}

/// The 60-bit method-3 timestamp (`ms << 12 | fraction`) of a Unix time in nanoseconds.
#[inline]
pub fn subms_stamp(unix_ns: u64) -> u64 {
    let ms = unix_ns / 1_000_000;
    let fraction = (unix_ns % 1_000_000) * 4096 / 1_000_000;
    (ms << 12 | fraction) & STAMP_MASK
}

impl<C: Clock> UuidV7SubMs<C> {
    /// A generator drawing random bits from `rng` and time from `clock` (which should have
    /// sub-millisecond resolution, e.g. [`super::SystemClock`]).
    pub fn new(rng: KeyRng, clock: C) -> Self {
        UuidV7SubMs { rng, clock, last_stamp: 0, counter: 0 }
    }

    fn reseed_counter(&mut self) {
        self.counter = self.rng.next_u64() & (COUNTER_MAX >> 1);
    }

    /// The next UUID's 16 bytes.
    #[inline]
    pub fn next_bytes(&mut self) -> [u8; 16] {
        let now = subms_stamp(self.clock.now_ns());
        if now > self.last_stamp {
            self.last_stamp = now;
            self.reseed_counter();
        } else if self.counter < COUNTER_MAX {
            self.counter += 1;
        } else {
            self.last_stamp += 1;
            self.reseed_counter();
        }
        let random = self.rng.next_u64() as u32;
        let hi = (self.last_stamp >> 12) << 16 | 0x7000 | (self.last_stamp & 0xfff);
        let lo = (0b10 << 62) | (self.counter << 32) | u64::from(random);
        ((u128::from(hi) << 64) | u128::from(lo)).to_be_bytes()
    }

    /// Test hook: the next ID of the same timestamp overflows the counter.
    #[cfg(test)]
    pub(super) fn exhaust_counter(&mut self) {
        self.counter = COUNTER_MAX;
    }
}

impl<C: Clock> KeyGenerator for UuidV7SubMs<C> {
    #[inline]
    fn next_key(&mut self) -> Key {
        Key::Uuid(self.next_bytes())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::generators::{VirtualClock, uuid_variant_is_rfc, uuid_version};

    #[test]
    fn fraction_follows_the_clock() {
        assert_eq!(subms_stamp(1_000_500_000) & 0xfff, 2048);
        assert_eq!(subms_stamp(1_000_999_999) & 0xfff, 4095);
        // Four readings per virtual ms: 250 µs apart, a quarter of 4096 steps each.
        let mut g = UuidV7SubMs::new(KeyRng::seeded(1), VirtualClock::new(1_000, 4));
        let fractions: Vec<u16> =
            (0..5).map(|_| g.next_bytes()).map(|b| u16::from_be_bytes([b[6], b[7]]) & 0xfff).collect();
        assert_eq!(fractions, [0, 1024, 2048, 3072, 0]);
    }

    #[test]
    fn strictly_increasing_with_a_frozen_clock_and_counter_overflow() {
        struct Frozen;
        impl Clock for Frozen {
            fn now_ms(&mut self) -> u64 {
                1_700_000_000_000
            }
        }
        let mut g = UuidV7SubMs::new(KeyRng::seeded(2), Frozen);
        let mut prev = g.next_bytes();
        for i in 0..10_000 {
            if i == 5_000 {
                g.exhaust_counter();
            }
            let b = g.next_bytes();
            assert_eq!(uuid_version(&b), 7);
            assert!(uuid_variant_is_rfc(&b));
            assert!(b > prev, "step {i}");
            prev = b;
        }
        assert_eq!(g.last_stamp, (1_700_000_000_000 << 12) + 1);
    }
}
