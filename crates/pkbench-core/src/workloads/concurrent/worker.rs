//! One client thread of the concurrent workload: takes keys from the shared stream in small
//! chunks and inserts them one autocommit statement at a time until told to stop.

use super::KEY_CHUNK_ROWS;
use super::per_second::IntervalLatency;
use crate::Error;
use crate::control::{RunControl, Timer};
use crate::engines::{InsertClient, KeyRow};
use crate::metrics::LatencyRecorder;
use crate::workloads::KeyStream;
use std::sync::Mutex;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};

/// State shared by the coordinator and every client thread.
pub struct Shared<'a> {
    /// The one seeded key stream all threads draw from, when they share one (a sequence).
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
    /// The open loop's schedule, if the workload sends at a fixed rate.
    pub pace: Option<Pace>,
    /// Latency per interval of the measured part.
    pub per_second: IntervalLatency,
}

/// An open loop's schedule: client `i` of `n` sends its k-th statement at
/// `start_ns + (i + k·n) · gap_ns`, whether or not the previous ones have completed, so the
/// clients together send one statement every `gap_ns`.
#[derive(Clone, Copy, Debug)]
pub struct Pace {
    /// When the first statement is due.
    pub start_ns: u64,
    /// Time between two statements of all clients together (1 s ÷ the rate).
    pub gap_ns: u64,
    /// Clients.
    pub clients: u64,
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
    /// Latency of every measured statement: from its send time in a closed loop, from the time
    /// it was due in an open loop (so a backlog shows as the latency its users would see).
    pub latency: LatencyRecorder,
    /// In an open loop, each measured statement's own time, from its actual send.
    pub service: Option<LatencyRecorder>,
    /// Time spent waiting for the write lock by measured statements, if the engine reports it.
    pub lock_wait_ns: Option<u64>,
    /// Statements that failed (a failure stops the run).
    pub errors: u64,
    /// The first error, if any.
    pub error: Option<Error>,
}

/// Runs client `index` until the coordinator, Ctrl-C or an error stops it, with keys from its
/// `own` stream or, without one, from the shared stream.
pub fn run(
    client: &mut dyn InsertClient,
    index: u64,
    mut own: Option<KeyStream>,
    shared: &Shared<'_>,
) -> ThreadOutcome {
    let mut out = ThreadOutcome { service: shared.pace.map(|_| LatencyRecorder::new()), ..ThreadOutcome::default() };
    let mut due = shared.pace.map(|p| p.start_ns + index * p.gap_ns);
    let mut per_second = shared.per_second.client(index as usize);
    let mut rows: Vec<KeyRow> = Vec::with_capacity(KEY_CHUNK_ROWS as usize);
    let mut next = 0;
    let mut lock_wait_at_start: Option<Option<u64>> = None;
    while !shared.should_stop() {
        if next == rows.len() {
            match own.as_mut() {
                // Its own generator: each key made just before its insert, as an application does.
                Some(keys) => keys.fill(&mut rows, 1),
                None => match shared.keys.lock() {
                    Ok(mut keys) => keys.fill(&mut rows, KEY_CHUNK_ROWS),
                    Err(_) => break, // Another thread panicked while holding the stream.
                },
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
        if let Some(at) = due
            && !sleep_until(shared, at)
        {
            break;
        }
        let sent = shared.timer.now_ns();
        let t0 = due.unwrap_or(sent);
        if let (Some(at), Some(p)) = (due.as_mut(), shared.pace) {
            *at += p.gap_ns * p.clients;
        }
        match client.insert_one(&row) {
            Ok(()) => {
                if measuring {
                    let done = shared.timer.now_ns();
                    out.latency.record(done.saturating_sub(t0));
                    shared.per_second.record(&mut per_second, done, done.saturating_sub(t0));
                    if let Some(service) = out.service.as_mut() {
                        service.record(done.saturating_sub(sent));
                    }
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
    shared.per_second.finish_client(&mut per_second);
    out.lock_wait_ns = match (lock_wait_at_start, client.lock_wait_ns()) {
        (Some(Some(start)), Some(end)) => Some(end.saturating_sub(start)),
        (None, Some(_)) => Some(0),
        _ => None,
    };
    out
}

/// Waits for `at_ns` on the shared timer, in short sleeps so a stop is seen; `false` if stopped.
fn sleep_until(shared: &Shared<'_>, at_ns: u64) -> bool {
    loop {
        if shared.should_stop() {
            return false;
        }
        let now = shared.timer.now_ns();
        if now >= at_ns {
            return true;
        }
        std::thread::sleep(std::time::Duration::from_nanos(at_ns - now).min(std::time::Duration::from_millis(5)));
    }
}
