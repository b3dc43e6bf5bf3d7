//! Wait evidence: while the clients insert, the coordinator samples what their sessions wait
//! for from the engine's own activity view, [`SAMPLE_HZ`] times a second — the way PostgreSQL
//! users read `pg_stat_activity` (and tools such as pg_wait_sampling or Performance Insights
//! build their profiles): a session seen in `LWLock:BufferContent` in 30% of the samples spent
//! about 30% of its time there.

use crate::Error;
use crate::engines::WaitSampler;
use std::collections::BTreeMap;

/// Samples per second.
pub const SAMPLE_HZ: u64 = 50;

/// The sampler of one case and what it has seen, per interval and in all.
pub struct WaitProbe {
    sampler: Option<Box<dyn WaitSampler>>,
    next_ns: u64,
    interval: BTreeMap<String, u64>,
    total: BTreeMap<String, u64>,
    samples: u64,
    /// Why sampling stopped early, if it did.
    pub stopped: Option<String>,
}

impl WaitProbe {
    /// A probe over `sampler` (none: the engine has no activity view, and nothing is sampled).
    pub fn new(sampler: Option<Box<dyn WaitSampler>>) -> Self {
        WaitProbe { sampler, next_ns: 0, interval: BTreeMap::new(), total: BTreeMap::new(), samples: 0, stopped: None }
    }

    /// When the next sample is due, if sampling.
    pub fn due_ns(&self) -> Option<u64> {
        self.sampler.as_ref().map(|_| self.next_ns)
    }

    /// Takes a sample if one is due at `now_ns`. A failed sample stops sampling (the reason is
    /// kept for the phase's note) rather than the run.
    pub fn poll(&mut self, now_ns: u64) {
        let Some(sampler) = self.sampler.as_mut() else { return };
        if now_ns < self.next_ns {
            return;
        }
        self.next_ns = now_ns + 1_000_000_000 / SAMPLE_HZ;
        match sampler.sample(&mut self.interval) {
            Ok(()) => self.samples += 1,
            Err(e) => {
                self.stopped = Some(one_line(&e));
                self.sampler = None;
            }
        }
    }

    /// The waits seen since the last call (one interval's), added to the total.
    pub fn take_interval(&mut self) -> BTreeMap<String, u64> {
        for (event, n) in &self.interval {
            *self.total.entry(event.clone()).or_insert(0) += n;
        }
        std::mem::take(&mut self.interval)
    }

    /// Forgets everything seen (the warm-up's samples).
    pub fn reset(&mut self) {
        self.interval.clear();
        self.total.clear();
        self.samples = 0;
    }

    /// Every wait seen (after [`WaitProbe::take_interval`] of the last interval), the number of
    /// samples, and whether the engine could be sampled at all.
    pub fn finish(self) -> Finished {
        let sampled = self.sampler.is_some() || self.stopped.is_some();
        (self.total, self.samples, sampled, self.stopped)
    }
}

/// What a probe saw: every wait, the samples taken, whether the engine could be sampled, and
/// why sampling stopped, if it did.
pub type Finished = (BTreeMap<String, u64>, u64, bool, Option<String>);

fn one_line(e: &Error) -> String {
    e.to_string().lines().next().unwrap_or_default().to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    struct Fixed(Vec<(&'static str, u64)>, bool);

    impl WaitSampler for Fixed {
        fn sample(&mut self, tally: &mut BTreeMap<String, u64>) -> Result<(), Error> {
            if self.1 {
                return Err(Error::InvalidInput("permission denied for pg_stat_activity".into()));
            }
            for (e, n) in &self.0 {
                *tally.entry(e.to_string()).or_insert(0) += n;
            }
            Ok(())
        }
    }

    #[test]
    fn samples_at_the_rate_and_adds_up_per_interval_and_in_all() {
        let mut p = WaitProbe::new(Some(Box::new(Fixed(vec![("CPU", 2), ("LWLock:WALWrite", 1)], false))));
        for ms in 0..100 {
            p.poll(ms * 1_000_000);
        }
        let first = p.take_interval();
        assert_eq!(first["CPU"], 10, "100 ms at 50 Hz is 5 samples of 2 sessions");
        p.poll(100_000_000);
        let second = p.take_interval();
        assert_eq!(second["LWLock:WALWrite"], 1);
        let (total, samples, sampled, stopped) = p.finish();
        assert_eq!((total["CPU"], samples, sampled, stopped), (12, 6, true, None));
    }

    #[test]
    fn a_failing_sampler_stops_sampling_and_says_why() {
        let mut p = WaitProbe::new(Some(Box::new(Fixed(vec![], true))));
        p.poll(0);
        assert_eq!(p.due_ns(), None);
        let (_, samples, sampled, stopped) = p.finish();
        assert_eq!((samples, sampled), (0, true));
        assert!(stopped.unwrap().contains("permission denied"));
    }
}
