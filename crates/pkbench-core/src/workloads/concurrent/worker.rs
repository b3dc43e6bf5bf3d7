//! One client thread of the concurrent workload: takes keys from the shared stream in small
//! chunks and inserts them one autocommit statement at a time until told to stop.

use super::KEY_CHUNK_ROWS;
use crate::Error;
use crate::control::{RunControl, Timer};
use crate::engines::{InsertClient, KeyRow};
use crate::metrics::LatencyRecorder;
use crate::workloads::KeyStream;
use std::sync::Mutex;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};

/// State shared by the coordinator and every client thread.
pub struct Shared<'a> {
    /// The one seeded key stream all threads draw from.
    pub keys: Mutex<KeyStream>,
    /// Set by the coordinator (end of the run, Ctrl-C) or by a thread that failed.
    pub stop: AtomicBool,
    /// Set by the coordinator when the warm-up ends: operations started from then on count.
    pub measuring: AtomicBool,
    /// Operations completed that started after the warm-up, all threads together.
    pub measured_ops: AtomicU64,
    /// Progress counter and Ctrl-C flag.
    pub control: &'a RunControl,
    /// Clock that times every statement.
    pub timer: &'a dyn Timer,
}

impl Shared<'_> {
    fn should_stop(&self) -> bool {
        self.stop.load(Ordering::Relaxed) || self.control.is_cancelled()
    }
}

/// What one thread did.
#[derive(Debug, Default)]
pub struct ThreadOutcome {
    /// Rows inserted by statements started during the warm-up.
    pub warmup_rows: u64,
    /// Rows inserted by statements started after it.
    pub measured_rows: u64,
    /// Latency of every measured statement.
    pub latency: LatencyRecorder,
    /// Time spent waiting for the write lock by measured statements, if the engine reports it.
    pub lock_wait_ns: Option<u64>,
    /// Statements that failed (a failure stops the run).
    pub errors: u64,
    /// The first error, if any.
    pub error: Option<Error>,
}

/// Runs one client until the coordinator, Ctrl-C or an error stops it.
pub fn run(client: &mut dyn InsertClient, shared: &Shared<'_>) -> ThreadOutcome {
    let mut out = ThreadOutcome::default();
    let mut rows: Vec<KeyRow> = Vec::with_capacity(KEY_CHUNK_ROWS as usize);
    let mut next = 0;
    let mut lock_wait_at_start: Option<Option<u64>> = None;
    while !shared.should_stop() {
        if next == rows.len() {
            match shared.keys.lock() {
                Ok(mut keys) => keys.fill(&mut rows, KEY_CHUNK_ROWS),
                Err(_) => break, // Another thread panicked while holding the stream.
            }
            next = 0;
        }
        let row = rows[next];
        next += 1;
        let measuring = shared.measuring.load(Ordering::Acquire);
        if measuring && lock_wait_at_start.is_none() {
            // Lock waits of statements started during the warm-up are not counted.
            lock_wait_at_start = Some(client.lock_wait_ns());
        }
        let t0 = shared.timer.now_ns();
        match client.insert_one(&row) {
            Ok(()) => {
                if measuring {
                    out.latency.record(shared.timer.now_ns().saturating_sub(t0));
                    out.measured_rows += 1;
                    shared.measured_ops.fetch_add(1, Ordering::Relaxed);
                } else {
                    out.warmup_rows += 1;
                }
                shared.control.add_rows(1);
            }
            Err(e) => {
                out.errors += 1;
                out.error = Some(e);
                shared.stop.store(true, Ordering::Relaxed);
                break;
            }
        }
    }
    out.lock_wait_ns = match (lock_wait_at_start, client.lock_wait_ns()) {
        (Some(Some(start)), Some(end)) => Some(end.saturating_sub(start)),
        (None, Some(_)) => Some(0),
        _ => None,
    };
    out
}
