//! concurrent: N connections insert single rows in autocommit statements for a fixed time — the
//! sysbench run of "Are MySQL UUID inserts really that slow?" (obviyus) (16 threads, a warm-up, one
//! report per second). Reports one phase, `concurrent-insert`, with per-second throughput, latency
//! percentiles and, where writers serialise on one lock (SQLite), the time spent waiting for it.

mod intervals;
mod per_second;
mod totals;
mod waits;
mod worker;

pub use intervals::IntervalSeries;

use super::outcome::{SettingsBase, conclude, empty_result, record_report};
use super::{CaseContext, Workload};
use crate::Error;
use crate::engines::txn::{ClientOptions, TxnShape};
use crate::engines::{CaseSpec, Engine, InsertCase, InsertClient};
use crate::generators::{Clock, SharedVirtualClock};
use crate::keys::{KeySettings, KeyStream, generated_per_client};
use crate::metrics::{LatencyRecorder, stats};
use crate::results::{PhaseResult, RunResult};
use crate::strategy::{SecondaryLookup, Strategy};
use std::collections::BTreeMap;
use std::sync::Mutex;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::time::Duration;
use totals::Totals;
use waits::WaitProbe;
use worker::{Shared, ThreadOutcome};

/// Most `--threads` accepted (a managed PostgreSQL cluster allows 50 connections).
pub const MAX_THREADS: u32 = 40;
/// Longest `--duration` or `--warmup` accepted.
pub const MAX_DURATION: Duration = Duration::from_secs(24 * 3600);
/// Length of one interval of the throughput series.
pub const INTERVAL: Duration = Duration::from_secs(1);
/// Rows a thread takes from the shared key stream at a time.
pub const KEY_CHUNK_ROWS: u64 = 16;
/// Name of the phase this workload reports.
pub use crate::results::CONCURRENT_PHASE as PHASE;
/// Longest sleep of the coordinator between checks of the clock and Ctrl-C.
const POLL: Duration = Duration::from_millis(5);

/// The concurrent-insert workload's parameters.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ConcurrentInsert {
    threads: u32,
    duration: Duration,
    warmup: Duration,
    payload_bytes: u64,
    keys: KeySettings,
    /// Open loop: rows per second sent whatever the completions; `None` for a closed loop.
    rate: Option<u64>,
    /// The clients' transactions and isolation.
    client: ClientOptions,
}

/// How the connections get their keys (recorded in results).
const KEY_SHARING: &str = "time-based and random keys: each connection its own generator (own seed and Snowflake worker), made just before its insert, all reading one shared line of key time at --key-rate, as application servers sharing a wall clock; counters (seq-uuid, masked-int): one seeded stream shared by all, handed out 16 rows at a time";

/// An open loop that achieves less than this share of its rate says it fell behind.
pub const KEPT_UP: f64 = 0.95;

impl ConcurrentInsert {
    /// Validates the options; errors say what range is allowed.
    pub fn new(
        threads: u32,
        duration: Duration,
        warmup: Duration,
        payload_bytes: u64,
        keys: impl Into<KeySettings>,
    ) -> Result<Self, Error> {
        if threads == 0 || threads > MAX_THREADS {
            return Err(Error::InvalidInput(format!(
                "--threads {threads} is out of range: use 1 to {MAX_THREADS} connections (e.g. --threads 16)"
            )));
        }
        if duration.is_zero() || duration > MAX_DURATION {
            return Err(Error::InvalidInput(format!(
                "--duration {}s is out of range: use 1s to 24h (e.g. --duration 60s or 2m)",
                duration.as_secs_f64()
            )));
        }
        if warmup > MAX_DURATION {
            return Err(Error::InvalidInput("--warmup is too long: use 0s to 24h (e.g. --warmup 5s)".into()));
        }
        if payload_bytes > super::MAX_PAYLOAD_BYTES {
            return Err(Error::InvalidInput(format!(
                "--payload {payload_bytes} is too large: use 0 to {} bytes",
                super::MAX_PAYLOAD_BYTES
            )));
        }
        Ok(ConcurrentInsert {
            threads,
            duration,
            warmup,
            payload_bytes,
            keys: keys.into(),
            rate: None,
            client: ClientOptions::default(),
        })
    }

    /// Each client's transactions: `options.txn` statements at `options.isolation`, a lost
    /// conflict retried up to [`worker::MAX_RETRIES`] times with a bounded back-off.
    pub fn with_transactions(mut self, options: ClientOptions) -> Self {
        self.client = options;
        self
    }

    /// An open loop: the clients together send `rate` rows per second, each statement when it
    /// is due whether or not the earlier ones completed, and latency counts from that moment
    /// (so a server that falls behind shows the wait its users would see — no coordinated
    /// omission). `None` keeps the closed loop.
    pub fn with_rate(mut self, rate: Option<u64>) -> Result<Self, Error> {
        if rate == Some(0) {
            return Err(Error::InvalidInput(
                "--rate 0 sends nothing: give rows per second for all connections together (e.g. --rate 2000)".into(),
            ));
        }
        if rate.is_some_and(|r| r > 10_000_000) {
            return Err(Error::InvalidInput("--rate is too high: use at most 10M rows per second".into()));
        }
        self.rate = rate;
        Ok(self)
    }

    /// Connections (threads) inserting at once.
    pub fn threads(&self) -> u32 {
        self.threads
    }

    /// The measured time.
    pub fn duration(&self) -> Duration {
        self.duration
    }

    /// The warm-up before it.
    pub fn warmup(&self) -> Duration {
        self.warmup
    }

    fn options(&self) -> BTreeMap<String, String> {
        BTreeMap::from([
            ("threads".to_string(), self.threads.to_string()),
            ("duration_s".to_string(), self.duration.as_secs_f64().to_string()),
            ("warmup_s".to_string(), self.warmup.as_secs_f64().to_string()),
            ("interval_s".to_string(), INTERVAL.as_secs_f64().to_string()),
            ("key_sharing".to_string(), KEY_SHARING.to_string()),
            ("txn".to_string(), self.client.txn.name().to_string()),
            (
                "isolation".to_string(),
                self.client.isolation.map_or("the server's default".to_string(), |i| i.to_string()),
            ),
            (
                "loop".to_string(),
                match self.rate {
                    Some(r) => format!("open: {r} rows/s sent on schedule, latency from each statement's due time"),
                    None => "closed: each connection sends its next statement when the last one completes".into(),
                },
            ),
        ])
    }

    /// Opens the clients, runs them, and returns the phase plus the warm-up's row count. On an
    /// error after the clients started, the phase measured so far is kept in `result`.
    fn measure(
        &self,
        case: &mut dyn InsertCase,
        strategy: &Strategy,
        result: &mut RunResult,
        ctx: &CaseContext<'_>,
    ) -> Result<u64, Error> {
        let mut clients = Vec::with_capacity(self.threads as usize);
        for _ in 0..self.threads {
            clients.push(case.connect_with(&self.client)?);
        }
        let mut probe = WaitProbe::new(case.wait_sampler()?);
        let shared = self.shared(strategy, ctx);
        // Without a warm-up the measured time opens before the clients start, so none of their
        // rows falls before it however late the coordinator gets to run.
        let started = if self.warmup.is_zero() { Some(self.start_measuring(case, &shared, &mut probe)?) } else { None };
        let key_time = SharedVirtualClock::new(self.keys.clock());
        let own = |i: usize| {
            let clock = || Box::new(key_time.clone()) as Box<dyn Clock>;
            generated_per_client(strategy)
                .then(|| KeyStream::with_clock(strategy, self.keys.for_client(i as u32), clock))
        };
        let (sampled, outcomes, end_ns) = std::thread::scope(|scope| {
            let handles: Vec<_> = clients
                .iter_mut()
                .enumerate()
                .map(|(i, c)| {
                    let (shared, keys) = (&shared, own(i));
                    scope.spawn(move || worker::run(c.as_mut() as &mut dyn InsertClient, i as u64, keys, shared))
                })
                .collect();
            let sampled = self.sample(case, &shared, &mut probe, started);
            shared.stop.store(true, Ordering::SeqCst);
            let outcomes: Vec<Option<ThreadOutcome>> = handles.into_iter().map(|h| h.join().ok()).collect();
            // The clients stopped at the end of the measured time, however late the coordinator's
            // last counter read returned.
            (sampled, outcomes, ctx.timer.now_ns().min(shared.ends_at_ns.load(Ordering::SeqCst)))
        });
        drop(clients);
        let (series, start_ns, ran_out) = sampled?;
        let tail = (case.take_counters()?, probe.take_interval());
        let tail_shards = case.take_shards();
        let measured_ops = shared.measured_ops.load(Ordering::SeqCst);
        // After the full duration, the statements still in flight when the threads were told to
        // stop belong to the last second (a short interval of its own would look like a dip);
        // after Ctrl-C or an error, the time since the last boundary is an interval of its own.
        let merge_tail_ns = if ran_out { u64::MAX } else { 0 };
        let mut intervals = series.finish(end_ns, measured_ops, tail, merge_tail_ns);
        if let Some(last) = intervals.last_mut() {
            crate::results::add_shards(&mut last.shards, tail_shards);
        }
        let per_second = shared.per_second.summaries(intervals.len());
        for (interval, latency) in intervals.iter_mut().zip(per_second) {
            interval.latency = latency;
        }
        let waits = probe.finish();
        let totals = Totals::of(outcomes, self.rate.is_some());
        let elapsed_ns = end_ns.saturating_sub(start_ns);
        result.phases.push(self.phase(&totals, intervals, waits, elapsed_ns));
        totals.conclude(measured_ops, ctx)
    }

    /// The state the clients and the coordinator share.
    fn shared<'a>(&self, strategy: &Strategy, ctx: &CaseContext<'a>) -> Shared<'a> {
        Shared {
            keys: Mutex::new(KeyStream::new(strategy, self.keys)),
            stop: AtomicBool::new(false),
            measuring: AtomicBool::new(false),
            ends_at_ns: AtomicU64::new(u64::MAX),
            measured_ops: AtomicU64::new(0),
            control: ctx.control,
            timer: ctx.timer,
            per_second: per_second::IntervalLatency::new(self.threads as usize, INTERVAL.as_nanos() as u64),
            txn: self.client.txn,
            recent: Mutex::new(std::collections::VecDeque::new()),
            pace: self.rate.map(|r| worker::Pace {
                start_ns: ctx.timer.now_ns(),
                gap_ns: (1_000_000_000 / r).max(1),
                clients: u64::from(self.threads),
            }),
        }
    }

    /// The measured phase: its intervals, latency, counters, waits, figures and note.
    fn phase(
        &self,
        totals: &Totals,
        intervals: Vec<crate::results::IntervalResult>,
        (waits, wait_samples, wait_sampled, wait_stopped): waits::Finished,
        elapsed_ns: u64,
    ) -> PhaseResult {
        let mut counters = crate::results::Counters::default();
        for i in &intervals {
            counters.accumulate(&i.counters);
        }
        let (mut figures, behind) = self.figures(totals, elapsed_ns);
        if wait_sampled {
            figures.insert("wait_samples".into(), wait_samples as f64);
            figures.insert("wait_sample_hz".into(), waits::SAMPLE_HZ as f64);
        }
        PhaseResult {
            name: PHASE.to_string(),
            operations: totals.measured_rows,
            rows: totals.measured_rows,
            elapsed_ns,
            latency: totals.latency.summary(),
            intervals,
            counters,
            waits,
            figures,
            note: Some(self.note(behind, wait_stopped)),
        }
    }

    /// The phase's figures, and how far an open loop fell behind its rate, if it did.
    fn figures(&self, totals: &Totals, elapsed_ns: u64) -> (BTreeMap<String, f64>, Option<String>) {
        let mut figures = BTreeMap::from([
            ("threads".to_string(), f64::from(self.threads)),
            ("errors".to_string(), totals.errors as f64),
            ("warmup_rows".to_string(), totals.warmup_rows as f64),
            ("warmup_ns".to_string(), self.warmup.as_nanos() as f64),
        ]);
        if self.client != ClientOptions::default() {
            figures.insert("conflicts".into(), totals.conflicts as f64);
            figures.insert("retries".into(), totals.retries as f64);
            figures.insert("gave_up".into(), totals.gave_up as f64);
        }
        let mut behind = None;
        if let Some(rate) = self.rate {
            let achieved = stats::rate_per_sec(totals.measured_rows, elapsed_ns).unwrap_or(0.0);
            figures.insert("rate_target_per_s".into(), rate as f64);
            figures.insert("rate_achieved_per_s".into(), (achieved * 10.0).round() / 10.0);
            if let Some(s) = totals.service.as_ref().and_then(LatencyRecorder::summary) {
                figures.insert("service_p50_ns".into(), s.p50_ns as f64);
                figures.insert("service_p99_ns".into(), s.p99_ns as f64);
            }
            if achieved < rate as f64 * KEPT_UP {
                behind = Some(format!("; fell behind: {achieved:.0} of {rate} rows/s sent on schedule"));
            }
        }
        if let Some(w) = totals.lock_wait_ns {
            figures.insert("lock_wait_ns".into(), w as f64);
            // Share of the threads' measured time spent waiting for the lock.
            let busy_ns = elapsed_ns as f64 * f64::from(self.threads);
            if busy_ns > 0.0 {
                figures.insert("lock_wait_share".into(), (w as f64 / busy_ns * 1e4).round() / 1e4);
            }
        }
        (figures, behind)
    }

    /// What the phase measured, in words.
    fn note(&self, behind: Option<String>, wait_stopped: Option<String>) -> String {
        format!(
            "{} connections, {}, {}; warm-up excluded{}{}",
            self.threads,
            match (self.client.txn, self.client.isolation) {
                (TxnShape::Insert, None) => "one autocommit single-row INSERT per operation".to_string(),
                (txn, level) => format!(
                    "one {} transaction per operation at {} (a lost conflict retried up to {} times)",
                    txn.name(),
                    level.map_or("the server's default isolation".to_string(), |l| l.to_string()),
                    worker::MAX_RETRIES
                ),
            },
            match self.rate {
                Some(r) => format!("open loop at {r} rows/s, latency from each statement's due time"),
                None => "closed loop".into(),
            },
            behind.unwrap_or_default(),
            wait_stopped.map(|why| format!("; wait sampling stopped: {why}")).unwrap_or_default()
        )
    }

    /// The coordinator: waits out the warm-up, then closes one interval per second until the
    /// duration is over, Ctrl-C, or a thread failed. Returns the series, the timed start, and
    /// whether the full duration ran out.
    fn sample(
        &self,
        case: &mut dyn InsertCase,
        shared: &Shared<'_>,
        probe: &mut WaitProbe,
        started: Option<u64>,
    ) -> Result<(IntervalSeries, u64, bool), Error> {
        let timer = shared.timer;
        let start_ns = match started {
            Some(start_ns) => start_ns,
            None => {
                wait_until(shared, timer.now_ns() + self.warmup.as_nanos() as u64, probe);
                self.start_measuring(case, shared, probe)?
            }
        };
        let end_ns = shared.ends_at_ns.load(Ordering::SeqCst);
        let mut series = IntervalSeries::new(start_ns);
        let step = INTERVAL.as_nanos() as u64;
        let mut boundary = start_ns;
        loop {
            boundary = (boundary + step).min(end_ns);
            if !wait_until(shared, boundary, probe) {
                return Ok((series, start_ns, false));
            }
            // The clients stop at the end by themselves; a boundary sampled late (after a slow
            // counter read) still closes the measured time there.
            let now = timer.now_ns().min(end_ns);
            let ops = shared.measured_ops.load(Ordering::SeqCst);
            series.push(now, ops, case.take_counters()?, probe.take_interval());
            series.attach_shards(case.take_shards());
            // The last two intervals stay open: the tail may be merged into the last.
            let pushed = (now - start_ns) / step;
            shared.per_second.close_finished(pushed.saturating_sub(2));
            if now >= end_ns {
                return Ok((series, start_ns, true));
            }
        }
    }

    /// Opens the measured time now: the clients count what they start from here, stop by
    /// themselves at its end, and the counters and wait samples so far are dropped. Returns
    /// its start on the shared timer.
    fn start_measuring(
        &self,
        case: &mut dyn InsertCase,
        shared: &Shared<'_>,
        probe: &mut WaitProbe,
    ) -> Result<u64, Error> {
        let start_ns = shared.timer.now_ns();
        shared.per_second.start(start_ns);
        shared.ends_at_ns.store(start_ns + self.duration.as_nanos() as u64, Ordering::SeqCst);
        shared.measuring.store(true, Ordering::Release);
        case.take_counters()?;
        case.take_shards();
        probe.reset();
        Ok(start_ns)
    }
}

/// Sleeps until `deadline_ns` on the shared timer, sampling waits when due; `false` if stopped
/// first (Ctrl-C, an error).
fn wait_until(shared: &Shared<'_>, deadline_ns: u64, probe: &mut WaitProbe) -> bool {
    loop {
        if shared.stop.load(Ordering::Relaxed) || shared.control.is_cancelled() {
            return false;
        }
        let now = shared.timer.now_ns();
        if now >= deadline_ns {
            return true;
        }
        probe.poll(now);
        let next = probe.due_ns().map_or(deadline_ns, |due| due.clamp(now, deadline_ns));
        std::thread::sleep(Duration::from_nanos(next.saturating_sub(now).max(1)).min(POLL));
    }
}

impl Workload for ConcurrentInsert {
    fn name(&self) -> &'static str {
        "concurrent"
    }

    fn rows_per_case(&self) -> u64 {
        // Unknown in advance: the run is timed, not sized.
        0
    }

    fn run_case(
        &self,
        engine: &mut dyn Engine,
        strategy: &Strategy,
        ctx: &CaseContext<'_>,
    ) -> (RunResult, Option<Error>) {
        let info = engine.info();
        let base = SettingsBase {
            rows: 0,
            batch_rows: 1,
            payload_bytes: self.payload_bytes,
            keys: self.keys,
            insert_path: format!(
                "{} connections, each one prepared single-row INSERT per autocommit statement",
                self.threads
            ),
            options: self.options(),
        };
        let mut result = empty_result(engine, self.name(), strategy, base);
        ctx.control.set_rows(0);
        let outcome = (|| -> Result<(), Error> {
            self.check(strategy, info.name)?;
            // A timed run's rows are not known ahead: a range-sharded layout is cut from the
            // rows the open loop's rate (else 1,000 rows/s) would send.
            let seconds = (self.warmup + self.duration).as_secs().max(1);
            let rows = self.rate.unwrap_or(1_000).saturating_mul(seconds);
            let spec = CaseSpec { strategy, payload_bytes: self.payload_bytes as usize, rows, keys: self.keys };
            let mut case = engine.create_case(&spec)?;
            result.settings.engine = case.effective_settings()?;
            // After Ctrl-C the rows inserted so far are still counted and verified.
            let (warmup_rows, interrupted) = match self.measure(case.as_mut(), strategy, &mut result, ctx) {
                Ok(rows) => (rows, false),
                Err(Error::Interrupted) => {
                    let figures = result.phases.last().map(|p| &p.figures);
                    let rows = figures.and_then(|f| f.get("warmup_rows")).copied().unwrap_or(0.0);
                    (rows as u64, true)
                }
                Err(e) => return Err(e),
            };
            let report = case.finish()?;
            let expected = warmup_rows + result.phases.iter().map(|p| p.rows).sum::<u64>();
            result.settings.rows = expected;
            record_report(&mut result, report, strategy.name, expected)?;
            if interrupted {
                return Err(Error::Interrupted);
            }
            Ok(())
        })();
        conclude(result, outcome)
    }
}

impl ConcurrentInsert {
    /// `Ok` if this workload can run `strategy` on `engine`: a mapping table needs two
    /// statements per row, so its strategies are refused with a one-line reason.
    pub fn check(&self, strategy: &Strategy, engine: &str) -> Result<(), Error> {
        if strategy.secondary.is_some_and(|s| s.lookup == SecondaryLookup::MappingTable) {
            return Err(Error::Unsupported {
            strategy: strategy.name.into(),
            engine: engine.into(),
            reason: "the concurrent workload inserts one row per autocommit statement, and a mapping table needs two (use it with insert-growth)".into(),
            });
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests;
