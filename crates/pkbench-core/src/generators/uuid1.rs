//! RFC 9562 UUID version 1: Gregorian 100-ns timestamp, clock sequence, and a random node.
//!
//! The node is drawn once per generator with the multicast bit set (RFC 9562 §6.10), never read
//! from a network card: it identifies the generator, not the machine. The time fields are stored
//! low-to-high, so v1 UUIDs do not sort by time as bytes (see [`super::UuidV6`] for that).

use super::gregorian::{TickCounter, pack_v1, random_node};
use super::{Clock, Key, KeyGenerator, KeyRng};

/// Generates version-1 UUIDs; (timestamp, clock sequence) never repeats or goes back.
pub struct UuidV1<C: Clock = Box<dyn Clock>> {
    rng: KeyRng,
    clock: C,
    node: [u8; 6],
    ticks: TickCounter,
}

impl<C: Clock> UuidV1<C> {
    /// A generator with a random node drawn from `rng`, reading time from `clock`.
    pub fn new(mut rng: KeyRng, clock: C) -> Self {
        let node = random_node(&mut rng);
        UuidV1 { rng, clock, node, ticks: TickCounter::default() }
    }

    /// This generator's node (random, multicast bit set).
    pub fn node(&self) -> [u8; 6] {
        self.node
    }

    /// The next UUID's 16 bytes.
    #[inline]
    pub fn next_bytes(&mut self) -> [u8; 16] {
        let (ticks, seq) = self.ticks.next(self.clock.now_ns(), &mut self.rng);
        pack_v1(ticks, seq, &self.node)
    }
}

#[cfg(test)]
impl<C: Clock> UuidV1<C> {
    /// Test hook: the next ID of the same tick overflows the clock sequence.
    pub(super) fn exhaust_clock_seq(&mut self) {
        self.ticks.force_seq(0x3fff);
    }
}

impl<C: Clock> KeyGenerator for UuidV1<C> {
    #[inline]
    fn next_key(&mut self) -> Key {
        Key::Uuid(self.next_bytes())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::generators::gregorian::{clock_seq, v1_ticks};
    use crate::generators::{VirtualClock, uuid_variant_is_rfc, uuid_version};

    #[test]
    fn bits_node_and_unique_timestamps() {
        let mut g = UuidV1::new(KeyRng::seeded(1), VirtualClock::new(1_000, 10_000));
        let mut prev = (0, 0);
        for _ in 0..20_000 {
            let b = g.next_bytes();
            assert_eq!(uuid_version(&b), 1);
            assert!(uuid_variant_is_rfc(&b));
            assert_eq!(b[10..], g.node());
            assert_eq!(b[10] & 1, 1, "multicast bit");
            let stamp = (v1_ticks(&b), clock_seq(&b));
            assert!(stamp > prev);
            prev = stamp;
        }
    }
}
