//! Shared state between a running benchmark and whoever watches it: a row counter for live
//! progress, a cancel flag for Ctrl-C, and the clock used to time batches.

use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::time::Instant;

/// Rows done and the cancel flag, shared between the run and a progress view / signal handler.
#[derive(Debug, Default)]
pub struct RunControl {
    rows_done: AtomicU64,
    cancelled: AtomicBool,
}

impl RunControl {
    /// Engines report progress in steps of this many rows (cheap enough for the hot path).
    pub const PROGRESS_STEP: usize = 1024;

    /// A fresh control: no rows, not cancelled.
    pub fn new() -> Self {
        Self::default()
    }

    /// Asks the run to stop at the next check (between steps of [`Self::PROGRESS_STEP`] rows).
    pub fn cancel(&self) {
        self.cancelled.store(true, Ordering::SeqCst);
    }

    /// Whether [`Self::cancel`] was called.
    pub fn is_cancelled(&self) -> bool {
        self.cancelled.load(Ordering::Relaxed)
    }

    /// Adds `n` rows to the progress counter.
    pub fn add_rows(&self, n: u64) {
        self.rows_done.fetch_add(n, Ordering::Relaxed);
    }

    /// Rows reported in the current case.
    pub fn rows_done(&self) -> u64 {
        self.rows_done.load(Ordering::Relaxed)
    }

    /// Sets the progress counter (at the start of a case, or after a rolled-back batch).
    pub fn set_rows(&self, n: u64) {
        self.rows_done.store(n, Ordering::Relaxed);
    }
}

/// Source of the nanosecond timestamps batches are timed with. Injectable so the runner can be
/// snapshot-tested with a deterministic mock engine.
pub trait Timer: Sync {
    /// Nanoseconds since an arbitrary fixed point.
    fn now_ns(&self) -> u64;
}

/// The real monotonic clock.
#[derive(Debug)]
pub struct MonotonicTimer(Instant);

impl Default for MonotonicTimer {
    fn default() -> Self {
        MonotonicTimer(Instant::now())
    }
}

impl Timer for MonotonicTimer {
    fn now_ns(&self) -> u64 {
        self.0.elapsed().as_nanos() as u64
    }
}
