//! RFC 9562 UUID version 6: v1's Gregorian timestamp reordered high-to-low, so the bytes sort
//! by time.
//!
//! As RFC 9562 §5.6 recommends, the node is random for every UUID (multicast bit set), so v6
//! reveals the time but not which generator made it. The clock sequence is drawn once per
//! generator and counts up only within a 100-ns tick, which keeps UUIDs from one generator
//! strictly increasing.

use super::gregorian::{TickCounter, pack_v6, random_node};
use super::{Clock, Key, KeyGenerator, KeyRng};

/// Generates strictly increasing version-6 UUIDs.
pub struct UuidV6<C: Clock = Box<dyn Clock>> {
    rng: KeyRng,
    clock: C,
    ticks: TickCounter,
}

impl<C: Clock> UuidV6<C> {
    /// A generator drawing random bits from `rng` and time from `clock`.
    pub fn new(rng: KeyRng, clock: C) -> Self {
        UuidV6 { rng, clock, ticks: TickCounter::default() }
    }

    /// The next UUID's 16 bytes.
    #[inline]
    pub fn next_bytes(&mut self) -> [u8; 16] {
        let (ticks, seq) = self.ticks.next(self.clock.now_ns(), &mut self.rng);
        pack_v6(ticks, seq, &random_node(&mut self.rng))
    }

    /// Test hook: the next ID of the same tick overflows the clock sequence.
    #[cfg(test)]
    pub(super) fn exhaust_clock_seq(&mut self) {
        self.ticks.force_seq(0x3fff);
    }
}

impl<C: Clock> KeyGenerator for UuidV6<C> {
    #[inline]
    fn next_key(&mut self) -> Key {
        Key::Uuid(self.next_bytes())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::generators::gregorian::v6_ticks;
    use crate::generators::{VirtualClock, uuid_variant_is_rfc, uuid_version};

    #[test]
    fn strictly_increasing_even_when_the_clock_is_frozen() {
        // 100k keys per virtual ms: ten keys share each 100-ns tick.
        let mut g = UuidV6::new(KeyRng::seeded(2), VirtualClock::new(1_000, 100_000));
        let mut prev = g.next_bytes();
        for _ in 0..50_000 {
            let b = g.next_bytes();
            assert_eq!(uuid_version(&b), 6);
            assert!(uuid_variant_is_rfc(&b));
            assert!(b > prev);
            prev = b;
        }
    }

    #[test]
    fn clock_sequence_overflow_advances_the_tick() {
        struct Frozen;
        impl Clock for Frozen {
            fn now_ms(&mut self) -> u64 {
                5
            }
        }
        let mut g = UuidV6::new(KeyRng::seeded(3), Frozen);
        let first = g.next_bytes();
        g.exhaust_clock_seq();
        let next = g.next_bytes();
        assert!(next > first);
        assert_eq!(v6_ticks(&next), v6_ticks(&first) + 1);
    }
}
