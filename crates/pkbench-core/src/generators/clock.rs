//! Clocks for time-based schemes: the real one, and a virtual one that makes benchmark key
//! streams reproducible. (The cheap coarse clock is in `coarse_clock.rs`.)

use std::time::{SystemTime, UNIX_EPOCH};

/// A source of Unix time. Injectable so tests and benchmarks control time (forward, backward,
/// frozen); generators never assume it is monotonic.
pub trait Clock: Send {
    /// Current Unix time in milliseconds.
    fn now_ms(&mut self) -> u64;

    /// Current Unix time in nanoseconds, for schemes with sub-millisecond fields (UUIDv1/v6 and
    /// UUIDv7 method 3). Defaults to [`Clock::now_ms`] scaled, i.e. millisecond resolution.
    fn now_ns(&mut self) -> u64 {
        self.now_ms().saturating_mul(1_000_000)
    }
}

impl<C: Clock + ?Sized> Clock for Box<C> {
    #[inline]
    fn now_ms(&mut self) -> u64 {
        (**self).now_ms()
    }

    #[inline]
    fn now_ns(&mut self) -> u64 {
        (**self).now_ns()
    }
}

/// The system's wall clock.
#[derive(Debug, Default, Clone, Copy)]
pub struct SystemClock;

impl Clock for SystemClock {
    fn now_ms(&mut self) -> u64 {
        SystemTime::now().duration_since(UNIX_EPOCH).map(|d| d.as_millis() as u64).unwrap_or(0)
    }

    fn now_ns(&mut self) -> u64 {
        SystemTime::now().duration_since(UNIX_EPOCH).map(|d| d.as_nanos() as u64).unwrap_or(0)
    }
}

/// A clock that advances `1 / keys_per_s` seconds at every reading, from `start_ms`: the time an
/// application inserting `keys_per_s` rows per second would stamp on its keys.
///
/// Benchmarks use it so time-based keys are identical on every run and engine, whatever the
/// engine's speed, and so a run of a few million rows stores the keys of a realistic insert rate
/// (see [`VirtualClock::DEFAULT_KEYS_PER_S`]) rather than of a generator running flat out.
/// Generators read the clock once per key.
#[derive(Debug, Clone)]
pub struct VirtualClock {
    start_ms: u64,
    keys_per_s: u64,
    readings: u64,
}

impl VirtualClock {
    /// Start of pkbench's virtual time: 2026-01-01T00:00:00Z.
    pub const DEFAULT_START_MS: u64 = 1_767_225_600_000;
    /// Default pace: 1,000 keys per second of key time — a busy OLTP table (86.4M rows a day).
    /// Real applications insert hundreds to thousands of rows per second into one table; at this
    /// pace a UUIDv7 or ULID changes its millisecond at every key, `time-uuid`'s 60-second prefix
    /// every 60,000 keys and a UUIDv1's `time_low` wraps every 429,497 keys, so a run of a few
    /// million rows shows what those layouts do in production.
    pub const DEFAULT_KEYS_PER_S: u64 = 1_000;
    /// The pace of results recorded before `--key-rate` existed: one million keys per second.
    pub const LEGACY_KEYS_PER_S: u64 = 1_000_000;

    /// A clock starting at `start_ms` that advances one millisecond every `keys_per_ms`
    /// readings (at least 1).
    pub fn new(start_ms: u64, keys_per_ms: u64) -> Self {
        Self::at_rate(start_ms, keys_per_ms.max(1).saturating_mul(1_000))
    }

    /// A clock starting at `start_ms` that advances `1 / keys_per_s` s per reading (rate at
    /// least 1).
    pub fn at_rate(start_ms: u64, keys_per_s: u64) -> Self {
        VirtualClock { start_ms, keys_per_s: keys_per_s.max(1), readings: 0 }
    }

    /// Keys per second of key time.
    pub fn keys_per_s(&self) -> u64 {
        self.keys_per_s
    }

    /// Human-readable description recorded in results.
    pub fn describe(&self) -> String {
        format!(
            "virtual: starts at Unix ms {}, advances at {} keys per second of key time",
            self.start_ms, self.keys_per_s
        )
    }

    /// Nanoseconds since `start_ms` at reading `n`.
    #[inline]
    fn offset_ns(&self, n: u64) -> u64 {
        (u128::from(n) * 1_000_000_000 / u128::from(self.keys_per_s)) as u64
    }
}

impl Default for VirtualClock {
    fn default() -> Self {
        Self::at_rate(Self::DEFAULT_START_MS, Self::DEFAULT_KEYS_PER_S)
    }
}

impl Clock for VirtualClock {
    #[inline]
    fn now_ms(&mut self) -> u64 {
        let now = self.start_ms + self.offset_ns(self.readings) / 1_000_000;
        self.readings += 1;
        now
    }

    /// Advances evenly between millisecond ticks, so sub-millisecond fields change from key to
    /// key; floors to [`Clock::now_ms`]'s value.
    #[inline]
    fn now_ns(&mut self) -> u64 {
        let offset = self.offset_ns(self.readings);
        self.readings += 1;
        self.start_ms.saturating_mul(1_000_000).saturating_add(offset)
    }
}

/// A [`VirtualClock`] whose readings several generators share (the concurrent workload's
/// connections): each reading by any of them advances the one key-time line, so keys made at
/// the same moment by different connections carry the same time, as on servers sharing a wall
/// clock, and all of them together stamp `keys_per_s` keys per second of key time.
#[derive(Debug, Clone)]
pub struct SharedVirtualClock {
    clock: VirtualClock,
    readings: std::sync::Arc<std::sync::atomic::AtomicU64>,
}

impl SharedVirtualClock {
    /// A line of key time shared by every clone.
    pub fn new(clock: VirtualClock) -> Self {
        SharedVirtualClock { clock, readings: Default::default() }
    }

    fn next_offset_ns(&self) -> u64 {
        let n = self.readings.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        self.clock.offset_ns(n)
    }
}

impl Clock for SharedVirtualClock {
    #[inline]
    fn now_ms(&mut self) -> u64 {
        self.clock.start_ms + self.next_offset_ns() / 1_000_000
    }

    #[inline]
    fn now_ns(&mut self) -> u64 {
        self.clock.start_ms.saturating_mul(1_000_000).saturating_add(self.next_offset_ns())
    }
}

/// Test clock: replays fixed millisecond readings, then repeats the last one.
#[cfg(test)]
pub(crate) struct ReplayClock(pub Vec<u64>, pub usize);

#[cfg(test)]
impl Clock for ReplayClock {
    fn now_ms(&mut self) -> u64 {
        let t = self.0[self.1.min(self.0.len() - 1)];
        self.1 += 1;
        t
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn clones_of_a_shared_clock_advance_one_line_of_key_time() {
        let mut a = SharedVirtualClock::new(VirtualClock::at_rate(1_000, 1_000));
        let mut b = a.clone();
        assert_eq!(
            (a.now_ms(), b.now_ms(), a.now_ms()),
            (1_000, 1_001, 1_002),
            "1,000 keys/s: 1 ms per reading, whoever reads"
        );
    }

    use super::*;

    #[test]
    fn virtual_clock_ticks_every_n_readings() {
        let mut c = VirtualClock::new(100, 3);
        let t: Vec<u64> = (0..7).map(|_| c.now_ms()).collect();
        assert_eq!(t, [100, 100, 100, 101, 101, 101, 102]);
    }

    #[test]
    fn virtual_clock_at_a_rate_below_one_key_per_ms_skips_milliseconds() {
        let mut c = VirtualClock::at_rate(100, 400);
        let t: Vec<u64> = (0..4).map(|_| c.now_ms()).collect();
        assert_eq!(t, [100, 102, 105, 107], "2.5 ms per key, floored");
        assert_eq!(
            VirtualClock::default().describe(),
            "virtual: starts at Unix ms 1767225600000, advances at 1000 keys per second of key time"
        );
    }

    #[test]
    fn virtual_clock_nanoseconds_interpolate_and_floor_to_ms() {
        let mut c = VirtualClock::new(100, 4);
        let t: Vec<u64> = (0..5).map(|_| c.now_ns()).collect();
        assert_eq!(t, [100_000_000, 100_250_000, 100_500_000, 100_750_000, 101_000_000]);
    }
}
