//! Time-based sequential UUIDs as in PostgreSQL's `sequential-uuids` extension,
//! `uuid_time_nextval(interval_length, interval_count)`: the prefix is whole Unix seconds divided
//! by `interval_length`, wrapping after `interval_count` intervals (defaults 60 s and 65,536:
//! a 2-byte prefix that wraps every ~45.5 days), then random bytes with version-4 and variant
//! bits. The prefix rule is [`SeqPrefix`]'s. Leaks: the creation time, to the interval.

use super::{Clock, Key, KeyGenerator, KeyRng, SeqPrefix};

/// Generates time-prefixed sequential UUIDs.
pub struct TimeUuid<C: Clock = Box<dyn Clock>> {
    rng: KeyRng,
    clock: C,
    prefix: SeqPrefix,
}

impl<C: Clock> TimeUuid<C> {
    /// Extension default: 60-second intervals.
    pub const DEFAULT_INTERVAL_SECS: u64 = 60;
    /// Extension default: 65,536 intervals per cycle.
    pub const DEFAULT_INTERVAL_COUNT: u64 = 65_536;

    /// A generator whose prefix rule is `SeqPrefix::new(interval_secs, interval_count)`.
    pub fn new(rng: KeyRng, clock: C, prefix: SeqPrefix) -> Self {
        TimeUuid { rng, clock, prefix }
    }

    /// The next UUID's 16 bytes.
    #[inline]
    pub fn next_bytes(&mut self) -> [u8; 16] {
        let secs = self.clock.now_ms() / 1000;
        self.prefix.uuid(secs, &mut self.rng)
    }
}

impl<C: Clock> KeyGenerator for TimeUuid<C> {
    #[inline]
    fn next_key(&mut self) -> Key {
        Key::Uuid(self.next_bytes())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::generators::VirtualClock;

    #[test]
    fn prefix_is_the_interval_number() {
        // 1,000 keys per ms: 60,000,000 keys per interval; start 2026-01-01 (1,767,225,600 s).
        let rule = SeqPrefix::new(60, 65_536).unwrap();
        let mut g = TimeUuid::new(KeyRng::seeded(1), VirtualClock::default(), rule);
        let b = g.next_bytes();
        let want = (1_767_225_600u64 / 60) & 0xffff;
        assert_eq!(u64::from(u16::from_be_bytes([b[0], b[1]])), want);
    }
}
