//! The client threads' outcomes, added up.

use super::ThreadOutcome;
use crate::Error;
use crate::metrics::LatencyRecorder;
use crate::workloads::CaseContext;

/// Every client's rows, latencies, conflicts and first error together.
pub(super) struct Totals {
    pub latency: LatencyRecorder,
    /// In an open loop, the statements' own times from their actual sends.
    pub service: Option<LatencyRecorder>,
    pub warmup_rows: u64,
    pub measured_rows: u64,
    pub errors: u64,
    pub conflicts: u64,
    pub retries: u64,
    pub gave_up: u64,
    /// Time the measured statements waited for the write lock, where the engine reports it.
    pub lock_wait_ns: Option<u64>,
    first_error: Option<Error>,
    /// Whether a client thread panicked (its outcome is missing).
    panicked: bool,
}

impl Totals {
    /// The sum of `outcomes` (`None`: a thread that panicked); `open_loop` keeps service times.
    pub fn of(outcomes: Vec<Option<ThreadOutcome>>, open_loop: bool) -> Totals {
        let mut t = Totals {
            latency: LatencyRecorder::new(),
            service: open_loop.then(LatencyRecorder::new),
            warmup_rows: 0,
            measured_rows: 0,
            errors: 0,
            conflicts: 0,
            retries: 0,
            gave_up: 0,
            lock_wait_ns: None,
            first_error: None,
            panicked: false,
        };
        for outcome in outcomes {
            let Some(o) = outcome else {
                t.panicked = true;
                continue;
            };
            t.latency.merge(&o.latency);
            if let (Some(all), Some(own)) = (t.service.as_mut(), o.service.as_ref()) {
                all.merge(own);
            }
            t.warmup_rows += o.warmup_rows;
            t.measured_rows += o.measured_rows;
            t.errors += o.errors;
            t.conflicts += o.conflicts;
            t.retries += o.retries;
            t.gave_up += o.gave_up;
            if let Some(w) = o.lock_wait_ns {
                t.lock_wait_ns = Some(t.lock_wait_ns.unwrap_or(0) + w);
            }
            if t.first_error.is_none() {
                t.first_error = o.error;
            }
        }
        t
    }

    /// The warm-up's rows, or why the measurement is not whole: a panicked thread, counts that
    /// disagree with the `measured_ops` sampled, a client's error, or Ctrl-C.
    pub fn conclude(self, measured_ops: u64, ctx: &CaseContext<'_>) -> Result<u64, Error> {
        if self.panicked {
            return Err(Error::Internal("a client thread panicked; the results are incomplete".into()));
        }
        if measured_ops != self.measured_rows {
            return Err(Error::Internal(format!(
                "count mismatch: {measured_ops} operations sampled, {} counted by threads",
                self.measured_rows
            )));
        }
        match self.first_error {
            Some(e) => Err(e),
            None if ctx.control.is_cancelled() => Err(Error::Interrupted),
            None => Ok(self.warmup_rows),
        }
    }
}
