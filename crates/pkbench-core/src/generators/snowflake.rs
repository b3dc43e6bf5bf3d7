//! Twitter-style Snowflake IDs: `0 | ms since epoch:41 | worker:10 | sequence:12`.

use super::{Clock, Key, KeyGenerator};

/// Twitter's Snowflake epoch, 2010-11-04T01:42:54.657Z, in Unix milliseconds.
pub const SNOWFLAKE_DEFAULT_EPOCH_MS: u64 = 1_288_834_974_657;

const SEQUENCE_MAX: u64 = (1 << 12) - 1;

/// Generates Snowflake IDs for one worker.
pub struct Snowflake {
    clock: Box<dyn Clock>,
    epoch_ms: u64,
    worker: u64,
    last_ms: u64,
    sequence: u64,
}

impl Snowflake {
    /// A generator for `worker` (masked to 10 bits) counting milliseconds from `epoch_ms`.
    pub fn new(clock: Box<dyn Clock>, epoch_ms: u64, worker: u16) -> Self {
        Snowflake { clock, epoch_ms, worker: u64::from(worker) & 0x3ff, last_ms: 0, sequence: 0 }
    }

    fn elapsed_ms(&mut self) -> u64 {
        self.clock.now_ms().saturating_sub(self.epoch_ms)
    }

    /// The next ID.
    #[inline]
    pub fn next_id(&mut self) -> i64 {
        let now = self.elapsed_ms();
        if now > self.last_ms {
            self.last_ms = now;
            self.sequence = 0;
        } else if self.sequence < SEQUENCE_MAX {
            // Same millisecond, or the clock stepped back: keep the last time, keep counting.
            self.sequence += 1;
        } else {
            // Sequence exhausted: wait for the next millisecond. If the clock is behind (it
            // stepped back), borrow the next millisecond rather than spin until it catches up.
            let mut t = self.elapsed_ms();
            while t == self.last_ms {
                std::hint::spin_loop();
                t = self.elapsed_ms();
            }
            self.last_ms = t.max(self.last_ms + 1);
            self.sequence = 0;
        }
        let ts = self.last_ms & ((1 << 41) - 1);
        ((ts << 22) | (self.worker << 12) | self.sequence) as i64
    }
}

impl KeyGenerator for Snowflake {
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
}
