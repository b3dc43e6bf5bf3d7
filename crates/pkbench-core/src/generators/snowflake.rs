//! Twitter-style Snowflake IDs: `0 | ms since epoch:41 | worker:10 | sequence:12`.

use super::{Clock, Key, KeyGenerator};

/// Twitter's Snowflake epoch, 2010-11-04T01:42:54.657Z, in Unix milliseconds.
pub const SNOWFLAKE_DEFAULT_EPOCH_MS: u64 = 1_288_834_974_657;

const SEQUENCE_MAX: u64 = (1 << 12) - 1;
const STUCK_CLOCK_READS: u32 = 1 << 20;

/// The fields of a Snowflake ID.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SnowflakeParts {
    /// Milliseconds since the generator's epoch (41 bits).
    pub elapsed_ms: u64,
    /// Worker number (10 bits).
    pub worker: u16,
    /// Sequence within the millisecond (12 bits).
    pub sequence: u16,
}

impl SnowflakeParts {
    /// Splits `id` into its fields; `None` for negative values (the sign bit is always 0).
    pub fn of(id: i64) -> Option<Self> {
        let v = u64::try_from(id).ok()?;
        Some(SnowflakeParts { elapsed_ms: v >> 22, worker: (v >> 12) as u16 & 0x3ff, sequence: v as u16 & 0xfff })
    }
}

/// Generates Snowflake IDs for one worker. Unique across generators only if each has its own
/// worker number; leaks the creation time (ms), the worker, and the count within a millisecond.
pub struct Snowflake<C: Clock = Box<dyn Clock>> {
    clock: C,
    epoch_ms: u64,
    worker: u64,
    sequence: MsSequence,
}

impl<C: Clock> Snowflake<C> {
    /// A generator for `worker` (masked to 10 bits) counting milliseconds from `epoch_ms`.
    pub fn new(clock: C, epoch_ms: u64, worker: u16) -> Self {
        Snowflake { clock, epoch_ms, worker: u64::from(worker) & 0x3ff, sequence: MsSequence::default() }
    }

    /// The next ID.
    #[inline]
    pub fn next_id(&mut self) -> i64 {
        let (clock, epoch_ms) = (&mut self.clock, self.epoch_ms);
        let (ms, sequence) = self.sequence.next(|| clock.now_ms().saturating_sub(epoch_ms));
        ((ms << 22) | (self.worker << 12) | sequence) as i64
    }
}

/// One Snowflake worker's (millisecond, sequence) pair: the sequence counts keys within a
/// millisecond and never lets the pair go back. Shared by [`Snowflake`] and
/// [`super::SnowflakeWorkers`] (one per worker).
#[derive(Clone, Copy, Debug, Default)]
pub(super) struct MsSequence {
    last_ms: u64,
    sequence: u64,
}

impl MsSequence {
    /// The next (41-bit millisecond, 12-bit sequence) pair; `elapsed_ms` reads the clock
    /// (milliseconds since the epoch), once unless the sequence ran out.
    #[inline]
    pub(super) fn next(&mut self, mut elapsed_ms: impl FnMut() -> u64) -> (u64, u64) {
        let now = elapsed_ms();
        if now > self.last_ms {
            self.last_ms = now;
            self.sequence = 0;
        } else if self.sequence < SEQUENCE_MAX {
            // Same millisecond, or the clock stepped back: keep the last time, keep counting.
            self.sequence += 1;
        } else {
            // Sequence exhausted: wait for the next millisecond. If the clock is behind (it
            // stepped back), borrow the next millisecond rather than spin until it catches up;
            // likewise if it seems stuck (a frozen test clock): a real clock moves long before
            // 2^20 readings (20+ ms).
            let mut t = elapsed_ms();
            let mut spins = 0u32;
            while t == self.last_ms && spins < STUCK_CLOCK_READS {
                std::hint::spin_loop();
                t = elapsed_ms();
                spins += 1;
            }
            self.last_ms = t.max(self.last_ms + 1);
            self.sequence = 0;
        }
        (self.last_ms & ((1 << 41) - 1), self.sequence)
    }
}

impl<C: Clock> KeyGenerator for Snowflake<C> {
    #[inline]
    fn next_key(&mut self) -> Key {
        Key::Int(self.next_id())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::generators::VirtualClock;

    #[test]
    fn increasing_across_sequence_exhaustion() {
        // 10,000 keys per virtual ms forces the 4096-per-ms sequence to run out.
        let clock = VirtualClock::new(SNOWFLAKE_DEFAULT_EPOCH_MS + 1, 10_000);
        let mut g = Snowflake::new(Box::new(clock), SNOWFLAKE_DEFAULT_EPOCH_MS, 1);
        let mut prev = g.next_id();
        for _ in 0..50_000 {
            let id = g.next_id();
            assert!(id > prev, "{id} <= {prev}");
            assert_eq!((id >> 12) & 0x3ff, 1);
            prev = id;
        }
    }

    #[test]
    fn a_frozen_clock_borrows_milliseconds_instead_of_hanging() {
        struct Frozen;
        impl Clock for Frozen {
            fn now_ms(&mut self) -> u64 {
                SNOWFLAKE_DEFAULT_EPOCH_MS + 10
            }
        }
        let mut g = Snowflake::new(Frozen, SNOWFLAKE_DEFAULT_EPOCH_MS, 3);
        let ids: Vec<i64> = (0..5_000).map(|_| g.next_id()).collect();
        assert!(ids.windows(2).all(|w| w[0] < w[1]));
        let last = SnowflakeParts::of(ids[4_999]).unwrap();
        assert_eq!((last.elapsed_ms, last.worker, last.sequence), (11, 3, 5_000 - 4_096 - 1));
    }
}
