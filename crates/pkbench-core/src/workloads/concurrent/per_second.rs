//! Latency percentiles per interval, so a stall shows when it happened. Each client records into
//! its own histogram for the interval it is in and hands it over when it moves on (no lock per
//! statement); an interval is summarised once every client has moved past it, so memory stays
//! a few histograms however long the run.

use crate::metrics::LatencyRecorder;
use crate::results::LatencySummary;
use std::collections::BTreeMap;
use std::sync::Mutex;
use std::sync::atomic::{AtomicU64, Ordering};

/// A client still recording into no interval yet.
const NOT_STARTED: u64 = u64::MAX;

/// The per-interval histograms every client hands over.
pub struct IntervalLatency {
    start_ns: AtomicU64,
    step_ns: u64,
    /// Per client: the interval it records into now (`NOT_STARTED` before its first).
    position: Vec<AtomicU64>,
    open: Mutex<BTreeMap<u64, LatencyRecorder>>,
    closed: Mutex<BTreeMap<u64, LatencySummary>>,
}

/// One client's histogram of the interval it is in.
pub struct ClientLatency {
    index: usize,
    interval: u64,
    recorder: LatencyRecorder,
}

impl IntervalLatency {
    /// Intervals of `step_ns` for `clients` clients; the measured start is set later.
    pub fn new(clients: usize, step_ns: u64) -> Self {
        IntervalLatency {
            start_ns: AtomicU64::new(0),
            step_ns: step_ns.max(1),
            position: (0..clients).map(|_| AtomicU64::new(NOT_STARTED)).collect(),
            open: Mutex::new(BTreeMap::new()),
            closed: Mutex::new(BTreeMap::new()),
        }
    }

    /// The measured part starts at `ns`: interval 0 begins there.
    pub fn start(&self, ns: u64) {
        self.start_ns.store(ns, Ordering::Release);
    }

    /// Client `index`'s recorder.
    pub fn client(&self, index: usize) -> ClientLatency {
        ClientLatency { index, interval: NOT_STARTED, recorder: LatencyRecorder::new() }
    }

    /// Records a measured statement of client `c` that completed at `done_ns` and took `ns`.
    pub fn record(&self, c: &mut ClientLatency, done_ns: u64, ns: u64) {
        let interval = done_ns.saturating_sub(self.start_ns.load(Ordering::Acquire)) / self.step_ns;
        if interval != c.interval {
            self.hand_over(c);
            c.interval = interval;
            self.position[c.index].store(interval, Ordering::Release);
        }
        c.recorder.record(ns);
    }

    /// Client `c` stops: what it recorded is handed over.
    pub fn finish_client(&self, c: &mut ClientLatency) {
        self.hand_over(c);
        self.position[c.index].store(NOT_STARTED, Ordering::Release);
    }

    fn hand_over(&self, c: &mut ClientLatency) {
        if c.interval == NOT_STARTED || c.recorder.count() == 0 {
            return;
        }
        let mut open = self.open.lock().unwrap_or_else(|e| e.into_inner());
        open.entry(c.interval).or_default().merge(&c.recorder);
        c.recorder.reset();
    }

    /// Summarises the intervals before `keep_from` that every client has left (the coordinator,
    /// at each boundary; the last intervals stay open for the tail).
    pub fn close_finished(&self, keep_from: u64) {
        let lowest = self.position.iter().map(|p| p.load(Ordering::Acquire)).min().unwrap_or(NOT_STARTED);
        let until = lowest.min(keep_from);
        let mut open = self.open.lock().unwrap_or_else(|e| e.into_inner());
        let done: Vec<u64> = open.range(..until).map(|(k, _)| *k).collect();
        let mut closed = self.closed.lock().unwrap_or_else(|e| e.into_inner());
        for k in done {
            if let Some(summary) = open.remove(&k).and_then(|r| r.summary()) {
                closed.insert(k, summary);
            }
        }
    }

    /// Percentiles per interval for a series of `n` intervals after every client finished: the
    /// last interval takes every later second too (the series merges a short tail into it).
    pub fn summaries(&self, n: usize) -> Vec<Option<LatencySummary>> {
        let open = self.open.lock().unwrap_or_else(|e| e.into_inner());
        let closed = self.closed.lock().unwrap_or_else(|e| e.into_inner());
        let last = n.saturating_sub(1) as u64;
        let mut out: Vec<Option<LatencySummary>> = (0..last).map(|k| closed.get(&k).copied()).collect();
        for (k, r) in open.range(..last) {
            out[*k as usize] = r.summary();
        }
        if n > 0 {
            let mut tail = LatencyRecorder::new();
            for (_, r) in open.range(last..) {
                tail.merge(r);
            }
            out.push(tail.summary().or_else(|| closed.get(&last).copied()));
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_interval_gets_the_statements_that_completed_in_it() {
        let l = IntervalLatency::new(2, 1_000);
        l.start(10_000);
        let (mut a, mut b) = (l.client(0), l.client(1));
        l.record(&mut a, 10_100, 5);
        l.record(&mut b, 10_900, 7);
        l.record(&mut a, 11_500, 50);
        l.close_finished(u64::MAX);
        // Client b is still in interval 0: nothing is summarised yet.
        assert!(l.closed.lock().unwrap().is_empty());
        l.record(&mut b, 12_100, 9);
        l.close_finished(u64::MAX);
        assert_eq!(l.closed.lock().unwrap()[&0].count, 2);
        l.record(&mut a, 13_050, 3);
        l.finish_client(&mut a);
        l.finish_client(&mut b);
        let s = l.summaries(3);
        assert_eq!(s.len(), 3);
        assert_eq!((s[0].unwrap().count, s[0].unwrap().max_ns), (2, 7));
        assert_eq!(s[1].unwrap().count, 1);
        assert_eq!(s[2].unwrap().count, 2, "the last interval takes the tail second too");
    }
}
