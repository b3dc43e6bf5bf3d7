//! A cheap wall clock for millisecond schemes generated at high rates.
//!
//! Reading the precise wall clock (`SystemTime::now`, `CLOCK_REALTIME`) costs 20–60 ns on the
//! development VM, more than generating a whole UUIDv7. On Linux the kernel also keeps a coarse
//! copy of the wall clock, updated once per scheduler tick, that the vDSO returns without
//! touching the hardware clock: about 7 ns here.
//!
//! The trade-off: the value only moves once per tick (`CONFIG_HZ`: 4 ms here, 1–10 ms in
//! general; [`CoarseClock::resolution_ns`] tells), so a timestamp can lag the true time by up to
//! one tick. Order and uniqueness are unaffected: generators count within a timestamp and never go
//! backwards. Use [`super::SystemClock`] where timestamps must be exact to the millisecond.
//! Other platforms fall back to `SystemTime`.

use super::Clock;

/// The kernel's tick-granular wall clock (`CLOCK_REALTIME_COARSE` on Linux).
#[derive(Debug, Default, Clone, Copy)]
pub struct CoarseClock;

impl CoarseClock {
    /// How far apart the clock's distinct readings are, in nanoseconds (1,000,000 = 1 ms).
    pub fn resolution_ns() -> u64 {
        platform::resolution_ns()
    }
}

impl Clock for CoarseClock {
    #[inline]
    fn now_ms(&mut self) -> u64 {
        platform::now_ns() / 1_000_000
    }

    #[inline]
    fn now_ns(&mut self) -> u64 {
        platform::now_ns()
    }
}

#[cfg(target_os = "linux")]
mod platform {
    fn timespec_ns(ts: &libc::timespec) -> u64 {
        u64::try_from(ts.tv_sec).unwrap_or(0).saturating_mul(1_000_000_000) + u64::try_from(ts.tv_nsec).unwrap_or(0)
    }

    #[inline]
    pub fn now_ns() -> u64 {
        let mut ts = libc::timespec { tv_sec: 0, tv_nsec: 0 };
        // SAFETY: `ts` is a valid, writable timespec; CLOCK_REALTIME_COARSE exists since Linux
        // 2.6.32. On failure `ts` stays zero and the generator keeps its last timestamp.
        unsafe { libc::clock_gettime(libc::CLOCK_REALTIME_COARSE, &mut ts) };
        timespec_ns(&ts)
    }

    pub fn resolution_ns() -> u64 {
        let mut ts = libc::timespec { tv_sec: 0, tv_nsec: 0 };
        // SAFETY: as above.
        let rc = unsafe { libc::clock_getres(libc::CLOCK_REALTIME_COARSE, &mut ts) };
        if rc == 0 { timespec_ns(&ts).max(1) } else { 1 }
    }
}

#[cfg(not(target_os = "linux"))]
mod platform {
    use std::time::{SystemTime, UNIX_EPOCH};

    #[inline]
    pub fn now_ns() -> u64 {
        SystemTime::now().duration_since(UNIX_EPOCH).map(|d| d.as_nanos() as u64).unwrap_or(0)
    }

    pub fn resolution_ns() -> u64 {
        1
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::generators::SystemClock;

    #[test]
    fn coarse_clock_is_close_to_the_system_clock() {
        let lag_ms = CoarseClock::resolution_ns() / 1_000_000 + 50;
        let precise = SystemClock.now_ms();
        let coarse = CoarseClock.now_ms();
        assert!(coarse + lag_ms >= precise && coarse <= precise + 50, "coarse {coarse} vs precise {precise}");
    }
}
