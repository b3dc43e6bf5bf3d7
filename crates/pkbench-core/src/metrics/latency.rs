//! Latency recording for timed operations: an HDR histogram (3 significant digits, 1 ns to
//! 1 hour) that threads fill separately and merge, summarised as [`LatencySummary`].

use crate::results::LatencySummary;
use hdrhistogram::Histogram;

/// Longest latency recorded exactly; longer ones are clamped to it (and still counted).
const MAX_TRACKABLE_NS: u64 = 3_600_000_000_000;

/// Per-operation latencies of one kind of operation. Recording never allocates.
#[derive(Clone, Debug)]
pub struct LatencyRecorder {
    histogram: Histogram<u64>,
}

impl Default for LatencyRecorder {
    fn default() -> Self {
        Self::new()
    }
}

impl LatencyRecorder {
    /// An empty recorder.
    pub fn new() -> Self {
        let histogram =
            Histogram::new_with_bounds(1, MAX_TRACKABLE_NS, 3).expect("constant histogram bounds are valid");
        LatencyRecorder { histogram }
    }

    /// Records one operation that took `ns` nanoseconds.
    pub fn record(&mut self, ns: u64) {
        self.histogram.saturating_record(ns.max(1));
    }

    /// Adds every operation recorded by `other`.
    pub fn merge(&mut self, other: &LatencyRecorder) {
        // Same bounds on both sides, so adding cannot fail.
        let _ = self.histogram.add(&other.histogram);
    }

    /// Operations recorded.
    pub fn count(&self) -> u64 {
        self.histogram.len()
    }

    /// Forgets every recorded operation (e.g. at the end of a warm-up).
    pub fn reset(&mut self) {
        self.histogram.reset();
    }

    /// Percentiles of what was recorded, or `None` if nothing was.
    pub fn summary(&self) -> Option<LatencySummary> {
        let h = &self.histogram;
        (!h.is_empty()).then(|| LatencySummary {
            count: h.len(),
            min_ns: h.min(),
            mean_ns: h.mean(),
            p50_ns: h.value_at_quantile(0.50),
            p95_ns: h.value_at_quantile(0.95),
            p99_ns: h.value_at_quantile(0.99),
            max_ns: h.max(),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn percentiles_of_a_uniform_range_are_within_histogram_precision() {
        let mut r = LatencyRecorder::new();
        for ns in 1..=10_000u64 {
            r.record(ns * 1_000);
        }
        let s = r.summary().unwrap();
        assert_eq!(s.count, 10_000);
        assert_eq!(s.min_ns, 1_000);
        let close = |got: u64, want: u64| (got as f64 - want as f64).abs() / want as f64 <= 0.001;
        assert!(close(s.p50_ns, 5_000_000), "p50 {}", s.p50_ns);
        assert!(close(s.p95_ns, 9_500_000), "p95 {}", s.p95_ns);
        assert!(close(s.p99_ns, 9_900_000), "p99 {}", s.p99_ns);
        assert!(close(s.max_ns, 10_000_000), "max {}", s.max_ns);
    }

    #[test]
    fn merged_recorders_count_both_and_reset_empties() {
        let (mut a, mut b) = (LatencyRecorder::new(), LatencyRecorder::new());
        a.record(10);
        b.record(1_000_000);
        b.record(0);
        a.merge(&b);
        assert_eq!(a.count(), 3);
        assert_eq!(a.summary().unwrap().min_ns, 1);
        a.reset();
        assert!(a.summary().is_none());
    }

    #[test]
    fn latencies_beyond_an_hour_are_clamped_not_lost() {
        let mut r = LatencyRecorder::new();
        r.record(u64::MAX);
        assert_eq!(r.count(), 1);
    }
}
