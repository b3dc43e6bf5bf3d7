//! Snowflake with the worker first: `0 | worker:10 | ms since epoch:41 | sequence:12`, the worker
//! rotating round-robin over W workers from key to key.
//!
//! Twitter's Snowflake puts time first, so keys from every worker interleave in one increasing
//! run, and on a range-sharded database every node's inserts go to the last range. This layout
//! puts the worker id first instead, for deployments where each application node (or the shard
//! it writes for) owns a worker id, much as Instagram's sharded IDs carry their logical shard
//! number in every key (in the middle, there). The key space then splits into one range per worker: W nodes writing interleaved send
//! their keys to W different ranges, and within one worker the keys stay time-ordered (W append
//! points). The generator plays all W nodes in turn, as their interleaved inserts would arrive at
//! the database; each worker keeps its own millisecond and 12-bit sequence, and all read one clock
//! (the virtual clock in benchmarks). Keys fill only the bottom W/1024 of the positive range: for a
//! range-sharded table, lay the bounds out over `[0, W·2^53)`.

use super::snowflake::MsSequence;
use super::{Clock, Key, KeyGenerator};

/// Where the worker id starts.
pub const WORKER_FIRST_SHIFT: u32 = 53;

/// The fields of a snowflake-workers key.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct WorkerFirstParts {
    /// Worker number (bits 53–62).
    pub worker: u16,
    /// Milliseconds since the generator's epoch (bits 12–52).
    pub elapsed_ms: u64,
    /// Sequence within the worker's millisecond (bits 0–11).
    pub sequence: u16,
}

impl WorkerFirstParts {
    /// Splits `id` into its fields; `None` for negative values (the sign bit is always 0).
    pub fn of(id: i64) -> Option<Self> {
        let v = u64::try_from(id).ok()?;
        Some(WorkerFirstParts {
            worker: (v >> WORKER_FIRST_SHIFT) as u16,
            elapsed_ms: (v >> 12) & ((1 << 41) - 1),
            sequence: v as u16 & 0xfff,
        })
    }
}

/// Generates worker-first Snowflake keys for workers 0 … W−1, one after another.
pub struct SnowflakeWorkers<C: Clock = Box<dyn Clock>> {
    clock: C,
    epoch_ms: u64,
    workers: Vec<MsSequence>,
    next_worker: usize,
}

impl<C: Clock> SnowflakeWorkers<C> {
    /// pkbench's default: 4 workers.
    pub const DEFAULT_WORKERS: u16 = 4;

    /// A generator for `workers` workers (clamped to 1–1024) counting milliseconds from
    /// `epoch_ms`.
    pub fn new(clock: C, epoch_ms: u64, workers: u16) -> Self {
        let workers = vec![MsSequence::default(); usize::from(workers.clamp(1, 1024))];
        SnowflakeWorkers { clock, epoch_ms, workers, next_worker: 0 }
    }

    /// The next ID, from the next worker in turn.
    #[inline]
    pub fn next_id(&mut self) -> i64 {
        let worker = self.next_worker;
        self.next_worker = (worker + 1) % self.workers.len();
        let (clock, epoch_ms) = (&mut self.clock, self.epoch_ms);
        let (ms, sequence) = self.workers[worker].next(|| clock.now_ms().saturating_sub(epoch_ms));
        ((worker as u64) << WORKER_FIRST_SHIFT | ms << 12 | sequence) as i64
    }
}

impl<C: Clock> KeyGenerator for SnowflakeWorkers<C> {
    #[inline]
    fn next_key(&mut self) -> Key {
        Key::Int(self.next_id())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::generators::spread::{assert_increasing_within, assert_spread};
    use crate::generators::{SNOWFLAKE_DEFAULT_EPOCH_MS, VirtualClock};

    const START_MS: u64 = 1_767_225_600_000;

    fn keys(workers: u16, keys_per_ms: u64, n: usize) -> Vec<i64> {
        let clock = VirtualClock::new(START_MS, keys_per_ms);
        let mut g = SnowflakeWorkers::new(clock, SNOWFLAKE_DEFAULT_EPOCH_MS, workers);
        (0..n).map(|_| g.next_id()).collect()
    }

    #[test]
    fn worker_first_then_time_then_sequence() {
        let ids = keys(4, 1, 8);
        let elapsed = START_MS - SNOWFLAKE_DEFAULT_EPOCH_MS;
        for (i, &id) in ids.iter().enumerate() {
            assert!(id > 0);
            let want = WorkerFirstParts { worker: (i % 4) as u16, elapsed_ms: elapsed + i as u64, sequence: 0 };
            assert_eq!(WorkerFirstParts::of(id), Some(want), "key {i}");
            assert_eq!(id as u64, u64::from(want.worker) << 53 | want.elapsed_ms << 12);
        }
        // 1,024 workers use all ten bits and stay positive.
        let all = keys(1024, 1, 2_048);
        assert!(all.iter().all(|&k| k > 0));
        assert_eq!(WorkerFirstParts::of(all[1023]).map(|p| p.worker), Some(1023));
        assert_eq!(WorkerFirstParts::of(-1), None);
    }

    #[test]
    fn the_same_clock_gives_the_same_keys() {
        assert_eq!(keys(4, 3, 5_000), keys(4, 3, 5_000));
        assert_ne!(keys(4, 3, 100), keys(3, 3, 100));
    }

    #[test]
    fn each_worker_counts_its_own_sequence_within_a_millisecond() {
        // 10,000 keys per ms over 2 workers: 5,000 per worker per ms runs each 4,096 sequence
        // out, and the worker borrows the next millisecond.
        let ids = keys(2, 10_000, 40_000);
        assert_eq!(assert_increasing_within(&ids, |k| (k >> 53) as u64, "snowflake-workers"), 2);
        let second = WorkerFirstParts::of(ids[3]).unwrap();
        assert_eq!((second.worker, second.sequence), (1, 1));
    }

    #[test]
    fn spreads_over_one_range_per_worker_in_time_order_within_each() {
        let ids = keys(4, 1, 100_000);
        assert_spread(&ids, 4 << 53, 4, 1.3, "snowflake-workers, 4 workers");
        assert_eq!(assert_increasing_within(&ids, |k| (k >> 53) as u64, "snowflake-workers"), 4);
    }
}
