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
        crate::platform::coarse_resolution_ns()
    }
}

impl Clock for CoarseClock {
    #[inline]
    fn now_ms(&mut self) -> u64 {
        crate::platform::coarse_now_ns() / 1_000_000
    }

    #[inline]
    fn now_ns(&mut self) -> u64 {
        crate::platform::coarse_now_ns()
    }
}
