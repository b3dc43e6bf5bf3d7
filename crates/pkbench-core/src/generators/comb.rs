//! COMB GUIDs ("combined" time + random, Jimmy Nilsson 2002): a UUIDv4 whose six bytes hold the
//! Unix time in milliseconds, big-endian.
//!
//! * [`CombLayout::Leading`] puts the time in bytes 0–5: the bytes sort by time (to the
//!   millisecond, random within it) in any engine that compares bytes left to right.
//! * [`CombLayout::Trailing`] puts it in bytes 10–15, where SQL Server's `uniqueidentifier`
//!   ordering looks first: ordered there and only there — in PostgreSQL, MySQL or SQLite it
//!   sorts as randomly as a v4.
//!
//! Version-4 and variant bits are kept, so COMBs pass as v4 UUIDs. Leaks: the creation time (ms).

use super::{Clock, Key, KeyGenerator, KeyRng};

/// Where a COMB keeps its timestamp.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CombLayout {
    /// Bytes 0–5 (sorts as bytes).
    Leading,
    /// Bytes 10–15 (sorts in SQL Server).
    Trailing,
}

/// Generates COMB GUIDs.
pub struct Comb<C: Clock = Box<dyn Clock>> {
    rng: KeyRng,
    clock: C,
    layout: CombLayout,
}

impl<C: Clock> Comb<C> {
    /// A generator drawing random bits from `rng` and time from `clock`.
    pub fn new(rng: KeyRng, clock: C, layout: CombLayout) -> Self {
        Comb { rng, clock, layout }
    }

    /// The next COMB's 16 bytes.
    #[inline]
    pub fn next_bytes(&mut self) -> [u8; 16] {
        let ms = (self.clock.now_ms() & ((1 << 48) - 1)).to_be_bytes();
        let mut b = [0u8; 16];
        b[..8].copy_from_slice(&self.rng.next_u64().to_le_bytes());
        b[8..].copy_from_slice(&self.rng.next_u64().to_le_bytes());
        b[6] = b[6] & 0x0f | 0x40;
        b[8] = b[8] & 0x3f | 0x80;
        match self.layout {
            CombLayout::Leading => b[..6].copy_from_slice(&ms[2..]),
            CombLayout::Trailing => b[10..].copy_from_slice(&ms[2..]),
        }
        b
    }
}

impl<C: Clock> KeyGenerator for Comb<C> {
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
    fn time_where_the_layout_says() {
        let ms = 0x0123_4567_89abu64.to_be_bytes();
        for (layout, range) in [(CombLayout::Leading, 0..6), (CombLayout::Trailing, 10..16)] {
            let mut g = Comb::new(KeyRng::seeded(1), VirtualClock::new(0x0123_4567_89ab, 1_000), layout);
            let b = g.next_bytes();
            assert_eq!(b[range], ms[2..]);
            assert_eq!(uuid_version(&b), 4);
            assert!(uuid_variant_is_rfc(&b));
        }
    }
}
