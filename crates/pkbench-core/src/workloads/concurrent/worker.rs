//! One client thread of the concurrent workload: takes keys from the shared stream in small
//! chunks and inserts them one autocommit statement at a time until told to stop.

use super::KEY_CHUNK_ROWS;
use super::per_second::IntervalLatency;
use crate::Error;
use crate::ServerErrorKind;
use crate::control::{RunControl, Timer};
use crate::engines::InsertClient;
use crate::engines::txn::TxnShape;
use crate::generators::Key;
use crate::keys::KeyRow;
use crate::keys::KeyStream;
use crate::metrics::LatencyRecorder;
use std::collections::VecDeque;
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
    /// When the measured time ends, on the shared timer (`u64::MAX` until it starts): every
    /// client stops then by itself, so a slow counter read of the coordinator cannot stretch
    /// the run past its duration.
    pub ends_at_ns: AtomicU64,
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
    /// The transactions' shape (what they do besides the insert).
    pub txn: TxnShape,
    /// Keys of the rows committed last, newest last (for the shapes that touch a recent row).
    pub recent: Mutex<VecDeque<Key>>,
}

/// Recent keys kept for the shapes that read or update a recent row.
const RECENT_KEYS: usize = 16;

/// Most retries of a transaction that lost a serialization or deadlock conflict; then it is
/// given up (counted, no row).
pub const MAX_RETRIES: u32 = 8;

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
        self.stop.load(Ordering::Relaxed)
            || self.control.is_cancelled()
            || self.timer.now_ns() >= self.ends_at_ns.load(Ordering::Relaxed)
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
    /// Measured transactions that lost a serialization or deadlock conflict (each attempt).
    pub conflicts: u64,
    /// Of those, the ones retried.
    pub retries: u64,
    /// Measured transactions given up after [`MAX_RETRIES`] retries.
    pub gave_up: u64,
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
        let recent = if shared.txn.uses_recent() { shared.recent_key(index) } else { None };
        match commit(client, &row, recent, shared, &mut out, measuring) {
            Ok(false) => {}
            Ok(true) => {
                if shared.txn.uses_recent()
                    && let (Some(key), Ok(mut keys)) = (row.primary, shared.recent.lock())
                {
                    keys.push_back(key);
                    if keys.len() > RECENT_KEYS {
                        keys.pop_front();
                    }
                }
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

impl Shared<'_> {
    /// A recently committed key for client `index` (clients pick different ones of the newest).
    fn recent_key(&self, index: u64) -> Option<Key> {
        let keys = self.recent.lock().ok()?;
        let back = (index as usize) % keys.len().max(1);
        keys.iter().rev().nth(back).copied()
    }
}

/// Runs `row`'s transaction, retrying a lost conflict with a bounded back-off: `Ok(true)` when
/// it committed, `Ok(false)` when it was given up; other errors stop the run.
fn commit(
    client: &mut dyn InsertClient,
    row: &KeyRow,
    recent: Option<Key>,
    shared: &Shared<'_>,
    out: &mut ThreadOutcome,
    measuring: bool,
) -> Result<bool, Error> {
    let mut retries = 0;
    loop {
        match client.transact(row, recent) {
            Ok(()) => return Ok(true),
            Err(e) if e.server_kind() == Some(ServerErrorKind::Conflict) => {
                out.conflicts += u64::from(measuring);
                if retries == MAX_RETRIES || shared.should_stop() {
                    out.gave_up += u64::from(measuring);
                    return Ok(false);
                }
                retries += 1;
                out.retries += u64::from(measuring);
                // 2, 4, … 64 ms: the winners commit meanwhile.
                std::thread::sleep(std::time::Duration::from_millis(1 << retries.min(6)));
            }
            Err(e) => return Err(e),
        }
    }
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
