//! Per-interval throughput: the coordinator samples the measured-operation counter and the
//! engine's counters at each interval boundary; this turns the samples into intervals.

use crate::results::{Counters, IntervalResult};
use std::collections::BTreeMap;

/// Builds the interval series of one timed part from cumulative samples.
#[derive(Debug)]
pub struct IntervalSeries {
    start_ns: u64,
    last_ns: u64,
    last_ops: u64,
    intervals: Vec<IntervalResult>,
}

impl IntervalSeries {
    /// A series whose timed part starts at `start_ns` with no operation counted yet.
    pub fn new(start_ns: u64) -> Self {
        IntervalSeries { start_ns, last_ns: start_ns, last_ops: 0, intervals: Vec::new() }
    }

    /// Closes the interval ending at `now_ns`, when `ops_total` operations had completed since
    /// the start and `counters` accumulated since the previous sample.
    pub fn push(&mut self, now_ns: u64, ops_total: u64, counters: Counters, waits: BTreeMap<String, u64>) {
        let now_ns = now_ns.max(self.last_ns);
        self.intervals.push(IntervalResult {
            start_ns: self.last_ns - self.start_ns,
            elapsed_ns: now_ns - self.last_ns,
            operations: ops_total.saturating_sub(self.last_ops),
            counters,
            latency: None,
            waits,
            shards: None,
        });
        self.last_ns = now_ns;
        self.last_ops = ops_total.max(self.last_ops);
    }

    /// Attaches each shard's part of the interval just pushed (a sharded engine's).
    pub fn attach_shards(&mut self, shards: Option<Vec<crate::results::ShardCounters>>) {
        if let Some(last) = self.intervals.last_mut() {
            crate::results::add_shards(&mut last.shards, shards);
        }
    }

    /// Adds the tail after the last boundary (operations that were in flight when the run was
    /// told to stop) and returns the series. A tail shorter than `min_ns` is merged into the last
    /// interval, so every interval keeps about its nominal length and the operations still sum
    /// to the total.
    pub fn finish(
        mut self,
        now_ns: u64,
        ops_total: u64,
        (counters, waits): (Counters, BTreeMap<String, u64>),
        min_ns: u64,
    ) -> Vec<IntervalResult> {
        let now_ns = now_ns.max(self.last_ns);
        let merge = |last: &mut IntervalResult| {
            last.counters.accumulate(&counters);
            for (event, n) in &waits {
                *last.waits.entry(event.clone()).or_insert(0) += n;
            }
        };
        if now_ns == self.last_ns && ops_total <= self.last_ops {
            // Nothing happened after the last boundary: no empty zero-length interval.
            if let Some(last) = self.intervals.last_mut() {
                merge(last);
            }
            return self.intervals;
        }
        match self.intervals.last_mut() {
            Some(last) if now_ns - self.last_ns < min_ns => {
                last.elapsed_ns += now_ns - self.last_ns;
                last.operations += ops_total.saturating_sub(self.last_ops);
                merge(last);
            }
            _ => self.push(now_ns, ops_total, counters, waits),
        }
        self.intervals
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn c(misses: u64) -> Counters {
        Counters { cache_misses: Some(misses), ..Counters::default() }
    }

    #[test]
    fn intervals_are_differences_of_samples_relative_to_the_start() {
        let mut s = IntervalSeries::new(5_000);
        s.push(1_005_000, 100, c(1), BTreeMap::new());
        s.push(2_006_000, 250, c(2), BTreeMap::new());
        let out = s.finish(2_007_000, 253, (c(3), BTreeMap::new()), 100_000);
        assert_eq!(out.len(), 2, "a 1 µs tail is merged into the last interval");
        assert_eq!((out[0].start_ns, out[0].elapsed_ns, out[0].operations), (0, 1_000_000, 100));
        assert_eq!((out[1].start_ns, out[1].elapsed_ns, out[1].operations), (1_000_000, 1_002_000, 153));
        assert_eq!(out[1].counters.cache_misses, Some(5));
        assert_eq!(out.iter().map(|i| i.operations).sum::<u64>(), 253);
    }

    #[test]
    fn a_long_tail_or_an_early_stop_is_its_own_interval() {
        let mut s = IntervalSeries::new(0);
        s.push(1_000, 10, c(0), BTreeMap::new());
        let out = s.finish(1_600, 16, (c(0), BTreeMap::new()), 100);
        assert_eq!(out.len(), 2);
        assert_eq!((out[1].start_ns, out[1].elapsed_ns, out[1].operations), (1_000, 600, 6));
        // Stopped before the first boundary (Ctrl-C): one partial interval.
        let out = IntervalSeries::new(0).finish(400, 4, (c(1), BTreeMap::new()), 100);
        assert_eq!(out.len(), 1);
        assert_eq!((out[0].elapsed_ns, out[0].operations), (400, 4));
    }

    #[test]
    fn nothing_after_the_last_boundary_adds_no_interval() {
        assert!(IntervalSeries::new(7).finish(7, 0, (Counters::default(), BTreeMap::new()), 100).is_empty());
        let mut s = IntervalSeries::new(0);
        s.push(1_000, 10, c(1), BTreeMap::new());
        let out = s.finish(1_000, 10, (c(2), BTreeMap::new()), 0);
        assert_eq!(out.len(), 1);
        assert_eq!(out[0].counters.cache_misses, Some(3));
    }
}
