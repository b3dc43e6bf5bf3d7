//! The machine's own speed, timed between batches: a fixed task — binary searches for random
//! keys in a sorted 32 MiB array, the dependent loads of a B-tree descent — run after every
//! batch of a calibration and of `--check`'s real run.
//!
//! A batch that took longer than its forecast may be the model's error or the machine's: on a
//! shared host the same SQLite batch has run 50% slower for minutes at a time. The canary does
//! not change with the table, so when it slows down too, the machine did. `--check` sets each
//! batch's canary against the calibration's and reports the batches measured while the machine
//! ran slow apart from the rest (it never drops or adjusts them).
//!
//! Between batches, not beside them: a canary sampled on the other core while SQLite inserted
//! read 0.40 ms in the median during a calibration's small batches and 0.62 ms during its
//! check's large ones, whose batches were on time — it timed the engine's own use of the
//! shared cache and memory as much as the machine. Between batches it times the machine alone,
//! at the price of about 3 ms per batch and of the core's own cache (2 MiB here), which the
//! next batch fills again.

use crate::results::{BatchResult, ResultsDoc, RunResult};
use std::hint::black_box;
use std::sync::OnceLock;
use std::time::Instant;

/// Sorted keys searched: 4 Mi × 8 bytes = 32 MiB, beyond a core's L2 and in the shared L3
/// or memory, where a busy neighbour on the host shows.
const KEYS: usize = 4 << 20;
/// Searches per round.
const SEARCHES: usize = 4096;
/// Rounds per timing; the fastest counts, so a single preemption does not.
const ROUNDS: usize = 3;
/// A canary this much slower than the calibration's median marks its batch as measured on a
/// slow machine. On a quiet machine the canary's spread is within a few per cent.
pub const SLOW: f64 = 0.15;

struct Work {
    keys: Vec<u64>,
    targets: Vec<u64>,
}

fn work() -> &'static Work {
    static WORK: OnceLock<Work> = OnceLock::new();
    WORK.get_or_init(|| {
        let keys = (0..KEYS as u64).map(|i| i * 2).collect();
        // SplitMix64: the same targets in every process.
        let mut state = 0x9E37_79B9_7F4A_7C15_u64;
        let targets = (0..SEARCHES)
            .map(|_| {
                state = state.wrapping_add(0x9E37_79B9_7F4A_7C15);
                let mut z = state;
                z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
                z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
                (z ^ (z >> 31)) % (KEYS as u64 * 2)
            })
            .collect();
        Work { keys, targets }
    })
}

/// The canary's time now, ns: the fastest of [`ROUNDS`] rounds of [`SEARCHES`] searches.
pub fn time_ns() -> u64 {
    let w = work();
    (0..ROUNDS)
        .map(|_| {
            let t = Instant::now();
            let mut found = 0usize;
            for &k in &w.targets {
                found ^= w.keys.partition_point(|&x| x < black_box(k));
            }
            black_box(found);
            t.elapsed().as_nanos() as u64
        })
        .min()
        .unwrap_or(0)
}

/// The median canary over every batch of `doc` that has one: the machine's speed during that
/// run (`None` without canaries).
pub fn median_ns(doc: &ResultsDoc) -> Option<u64> {
    let all: Vec<u64> = doc.runs.iter().flat_map(|r| &r.batches).filter_map(|b| b.machine_ns).collect();
    median(&all)
}

/// The machine's speed during a calibration: the canaries of its batches, and the one timed
/// beside the micro-probes, whose costs bound the fit.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct MachineSpeed {
    /// Median canary over the batches, ns.
    pub median_ns: u64,
    /// 10th and 90th percentiles, ns.
    pub spread_ns: (u64, u64),
    /// The canary beside the probes, ns (median of those timed before and after each).
    pub probes_ns: Option<u64>,
}

impl MachineSpeed {
    /// From the batches of `runs` (`None` if none carries a canary).
    pub fn of(runs: &[RunResult], probes_ns: Option<u64>) -> Option<MachineSpeed> {
        let mut all: Vec<u64> = runs.iter().flat_map(|r| &r.batches).filter_map(|b| b.machine_ns).collect();
        all.sort_unstable();
        let at = |q: f64| all[((all.len() - 1) as f64 * q).round() as usize];
        (!all.is_empty()).then(|| MachineSpeed { median_ns: at(0.5), spread_ns: (at(0.1), at(0.9)), probes_ns })
    }

    /// How much slower the machine ran beside the probes than during the batches.
    pub fn probes_off(&self) -> Option<f64> {
        Some(self.probes_ns? as f64 / self.median_ns.max(1) as f64 - 1.0)
    }

    /// One line for the results' `machine` option.
    pub fn describe(&self) -> String {
        let ms = |ns: u64| ns as f64 / 1e6;
        let mut s = format!(
            "canary {:.2} ms in the median of the calibration's batches (10th–90th percentile {:.2}–{:.2} ms)",
            ms(self.median_ns),
            ms(self.spread_ns.0),
            ms(self.spread_ns.1)
        );
        if let (Some(ns), Some(off)) = (self.probes_ns, self.probes_off()) {
            s.push_str(&format!("; {:.2} ms beside the probes ({:+.0}%)", ms(ns), off * 100.0));
            if off > SLOW {
                s.push_str(": the probes ran on a slower machine than the batches, so the costs they bound may come out high; calibrate on a quiet machine");
            }
        }
        s
    }
}

/// Runs `probe` between two canaries, which go to `times`.
pub fn around<T, E>(probe: impl FnOnce() -> Result<T, E>, times: &mut Vec<u64>) -> Result<T, E> {
    times.push(time_ns());
    let out = probe();
    times.push(time_ns());
    out
}

/// The median of `times`, if any.
pub fn median(times: &[u64]) -> Option<u64> {
    let mut t = times.to_vec();
    t.sort_unstable();
    t.get(t.len() / 2).copied()
}

/// How much slower the machine ran at `batch` than at `baseline_ns`: canary ÷ baseline − 1.
pub fn slowdown(batch: &BatchResult, baseline_ns: Option<u64>) -> Option<f64> {
    let base = baseline_ns.filter(|&b| b > 0)?;
    Some(batch.machine_ns? as f64 / base as f64 - 1.0)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_canary_times_a_fixed_task_in_a_few_milliseconds() {
        let ns = time_ns();
        assert!(ns > 10_000, "{ns} ns: too short to time");
        assert!(ns < 100_000_000, "{ns} ns: too long to run after every batch");
    }

    #[test]
    fn probes_on_a_slower_machine_than_the_batches_are_said_to_be() {
        let m = MachineSpeed { median_ns: 1_000_000, spread_ns: (900_000, 1_100_000), probes_ns: Some(1_400_000) };
        assert!((m.probes_off().unwrap() - 0.4).abs() < 1e-9);
        assert!(m.describe().contains("(+40%): the probes ran on a slower machine"), "{}", m.describe());
        let quiet = MachineSpeed { probes_ns: Some(1_050_000), ..m };
        assert!(!quiet.describe().contains("slower machine"), "{}", quiet.describe());
        assert_eq!(median(&[3, 1, 2]), Some(2));
        assert_eq!(median(&[]), None);
    }

    #[test]
    fn slowdown_is_against_the_baseline() {
        let b = BatchResult { machine_ns: Some(1_300_000), ..Default::default() };
        assert!((slowdown(&b, Some(1_000_000)).unwrap() - 0.3).abs() < 1e-9);
        assert_eq!(slowdown(&b, None), None);
        assert_eq!(slowdown(&BatchResult::default(), Some(1_000_000)), None);
    }
}
