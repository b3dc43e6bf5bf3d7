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

/// A clock that advances one millisecond every `keys_per_ms` readings, from `start_ms`.
///
/// Benchmarks use it so time-based keys are identical on every run and engine: it models a
/// producer generating `keys_per_ms × 1000` keys per second, whatever the engine's speed.
#[derive(Debug, Clone)]
pub struct VirtualClock {
    start_ms: u64,
    keys_per_ms: u64,
    readings: u64,
}

impl VirtualClock {
    /// Start of pkbench's virtual time: 2026-01-01T00:00:00Z.
    pub const DEFAULT_START_MS: u64 = 1_767_225_600_000;
    /// Default pace: 1,000 keys per millisecond (one million per second).
    pub const DEFAULT_KEYS_PER_MS: u64 = 1_000;

    /// A clock starting at `start_ms` that ticks every `keys_per_ms` readings (at least 1).
    pub fn new(start_ms: u64, keys_per_ms: u64) -> Self {
        VirtualClock { start_ms, keys_per_ms: keys_per_ms.max(1), readings: 0 }
    }

    /// Human-readable description recorded in results.
    pub fn describe(&self) -> String {
        format!("virtual: starts at Unix ms {}, advances 1 ms every {} keys", self.start_ms, self.keys_per_ms)
    }
}

impl Default for VirtualClock {
    fn default() -> Self {
        Self::new(Self::DEFAULT_START_MS, Self::DEFAULT_KEYS_PER_MS)
    }
}

impl Clock for VirtualClock {
    fn now_ms(&mut self) -> u64 {
        let now = self.start_ms + self.readings / self.keys_per_ms;
        self.readings += 1;
        now
    }

    /// Advances evenly between millisecond ticks (1 µs per reading at the default pace), so
    /// sub-millisecond fields change from key to key; floors to [`Clock::now_ms`]'s value.
    fn now_ns(&mut self) -> u64 {
        let offset = u128::from(self.readings) * 1_000_000 / u128::from(self.keys_per_ms);
        self.readings += 1;
        self.start_ms.saturating_mul(1_000_000).saturating_add(offset as u64)
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
    use super::*;

    #[test]
    fn virtual_clock_ticks_every_n_readings() {
        let mut c = VirtualClock::new(100, 3);
        let t: Vec<u64> = (0..7).map(|_| c.now_ms()).collect();
        assert_eq!(t, [100, 100, 100, 101, 101, 101, 102]);
    }

    #[test]
    fn virtual_clock_nanoseconds_interpolate_and_floor_to_ms() {
        let mut c = VirtualClock::new(100, 4);
        let t: Vec<u64> = (0..5).map(|_| c.now_ns()).collect();
        assert_eq!(t, [100_000_000, 100_250_000, 100_500_000, 100_750_000, 101_000_000]);
    }
}
