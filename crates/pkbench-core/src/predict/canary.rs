//! The machine's own speed, timed between batches: a fixed task — binary searches for random
//! keys in a sorted 32 MiB array, the dependent loads of a B-tree descent — run between the
//! batches of a calibration and of `--check`'s real run: after a run's first batch, then after
//! the batch that brings the batches' time since the last canary to [`GAP`] canaries' time.
//!
//! A batch that took longer than its forecast may be the model's error or the machine's: on a
//! shared host the same batch can run much slower for minutes at a time. The canary does not
//! change with the table, so when it slows down too, the machine did. `--check` sets each
//! batch's canary against the calibration's and reports the batches measured while the machine
//! ran more than [`OFF`] slower or faster apart from the rest (it never drops or adjusts them).
//! In the calibration it also takes each batch's time to the usual speed before the costs are
//! fitted, and puts the intervals' draws at the speeds the batches ran at ([`super::moves`]).
//!
//! Between batches, not beside them: a canary run on another core while the engine inserts
//! shares the engine's caches and memory bandwidth, so it reads slower during large batches that
//! are on time — it times the engine as much as the machine. Between batches it times the
//! machine without SQLite (in-process, idle then), at the price of a few milliseconds and of the
//! core's own cache, which the next batch fills again. A server's background writers keep
//! running after a commit, so beside a server it times them too. Not after every batch: where
//! batches take about as long as the canary, as a small calibration's do, a canary after each
//! would double the calibration's time and evict the core's cache before every batch, which a
//! real run does not; at one per [`GAP`] canaries' time it costs a tenth of it at most, and a
//! batch longer than that still gets its own.
//!
//! One reading scatters from batch to batch on a shared host, so a batch's machine speed is the
//! median of the canaries nearest it: those of the batch before it, itself and the batch after,
//! widened on both sides until it holds two ([`around_batch`]).

use crate::metrics::stats;
use crate::results::{BatchResult, ResultsDoc, RunResult};
use crate::workloads::Observer;
use std::cell::{Cell, RefCell};
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
/// A batch whose canary ([`around_batch`]) is this far off the calibration's median, slower or
/// faster, ran on a machine of another speed.
pub const OFF: f64 = 0.15;
/// A calibration whose batches' canaries spread by more than this from the 10th to the 90th
/// percentile (90th ÷ 10th − 1; twice [`OFF`], the most a single batch may be off) ran on a
/// machine whose speed moved, and is warned of ([`MachineSpeed::describe`]).
pub const SPREAD: f64 = 0.30;
/// The batches' time between two canaries, at least, in canaries' time: the canary's share of a
/// calibration is at most 1 in `GAP + 1`.
pub const GAP: u64 = 10;

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

/// The machine's speed around batch `i` of `batches`: the median canary of batches i − 1, i
/// and i + 1, the window widened on both sides until it holds two canaries or the whole run,
/// ns. Where every batch has a canary, the median of three (two at either end).
pub fn around_batch(batches: &[BatchResult], i: usize) -> Option<u64> {
    let mut radius = 1;
    loop {
        let window = &batches[i.saturating_sub(radius)..(i + radius + 1).min(batches.len())];
        let near: Vec<u64> = window.iter().filter_map(|b| b.machine_ns).collect();
        if near.len() >= 2 || window.len() == batches.len() {
            return median(&near);
        }
        radius += 1;
    }
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
        let all: Vec<u64> = runs.iter().flat_map(|r| &r.batches).filter_map(|b| b.machine_ns).collect();
        Self::of_canaries(&all, probes_ns)
    }

    /// From the batches' canaries, ns (`None` if there are none).
    pub fn of_canaries(canaries: &[u64], probes_ns: Option<u64>) -> Option<MachineSpeed> {
        let mut all: Vec<f64> = canaries.iter().map(|&ns| ns as f64).collect();
        all.sort_by(f64::total_cmp);
        let at = |q: f64| stats::quantile_sorted(&all, q).map(|ns| ns.round() as u64);
        Some(MachineSpeed { median_ns: at(0.5)?, spread_ns: (at(0.1)?, at(0.9)?), probes_ns })
    }

    /// How much slower the machine ran beside the probes than during the batches.
    pub fn probes_off(&self) -> Option<f64> {
        Some(self.probes_ns? as f64 / self.median_ns.max(1) as f64 - 1.0)
    }

    /// How far the machine's speed moved across the calibration's batches, every strategy's
    /// pooled (so a step between two strategies' runs counts too): the 90th percentile canary ÷
    /// the 10th, a ratio (1.3: 30% slower at the 90th).
    pub fn spread_ratio(&self) -> f64 {
        self.spread_ns.1 as f64 / self.spread_ns.0.max(1) as f64
    }

    /// Whether the spread is more than [`SPREAD`] (compared in whole nanoseconds, so a spread of
    /// exactly 30% is not).
    pub fn moved(&self) -> bool {
        let percent = 100 + (SPREAD * 100.0).round() as u128;
        u128::from(self.spread_ns.1) * 100 > u128::from(self.spread_ns.0) * percent
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
            if off > OFF {
                s.push_str(": the probes ran on a slower machine than the batches, so the costs they bound may come out high; calibrate on a quiet machine");
            }
        }
        if self.moved() {
            s.push_str(&format!(
                "; warning: the machine's speed moved across the batches (their 90th percentile canary {:.2}× their 10th), so their times scatter with it and so do the costs fitted to them and their intervals; re-run the calibration and compare its costs",
                self.spread_ratio()
            ));
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

/// The median of `times` ([`stats::median`]), if any.
pub fn median(times: &[u64]) -> Option<u64> {
    stats::median(&times.iter().map(|&t| t as f64).collect::<Vec<_>>()).map(|m| m.round() as u64)
}

/// How much slower the machine ran around batch `i` of `batches` ([`around_batch`]) than at
/// `baseline_ns`: canary ÷ baseline − 1 (negative: faster).
pub fn slowdown(batches: &[BatchResult], i: usize, baseline_ns: u64) -> Option<f64> {
    if baseline_ns == 0 {
        return None;
    }
    Some(around_batch(batches, i)? as f64 / baseline_ns as f64 - 1.0)
}

/// Times the canary between batches, after a run's first and then once the batches since the
/// last have taken [`GAP`] times its own time, and hands the times to the run's batches.
#[derive(Default)]
pub(crate) struct Canaries {
    times: RefCell<Vec<(String, u64, u64)>>,
    /// The batches' time since the last canary, and the last canary's own (wall), ns.
    since: Cell<(u64, u64)>,
}

impl Observer for Canaries {
    fn batch_done(&self, strategy: &str, batch: &BatchResult) {
        let (since, cost) = self.since.get();
        let since = if batch.index == 0 { u64::MAX } else { since.saturating_add(batch.elapsed_ns) };
        if since < cost.saturating_mul(GAP) {
            self.since.set((since, cost));
            return;
        }
        work();
        let t = Instant::now();
        let ns = time_ns();
        self.since.set((0, t.elapsed().as_nanos() as u64));
        self.times.borrow_mut().push((strategy.to_string(), batch.index, ns));
    }
}

impl Canaries {
    /// Sets each batch's `machine_ns` from the canaries timed after it, and forgets them.
    pub(crate) fn attach(&self, doc: &mut ResultsDoc) {
        for (strategy, index, ns) in self.times.borrow_mut().drain(..) {
            let run = doc.runs.iter_mut().find(|r| r.strategy == strategy);
            if let Some(b) = run.and_then(|r| r.batches.iter_mut().find(|b| b.index == index)) {
                b.machine_ns = Some(ns);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_canary_times_a_fixed_task_in_a_few_milliseconds() {
        let ns = time_ns();
        assert!(ns > 10_000, "{ns} ns: too short to time");
        assert!(ns < 100_000_000, "{ns} ns: too long to run between batches");
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
    fn a_calibration_whose_machine_moved_is_warned_of() {
        let at = |p10: u64, p90: u64| MachineSpeed { median_ns: p10, spread_ns: (p10, p90), probes_ns: None };
        let warned = |m: MachineSpeed| m.describe().contains("warning: the machine's speed moved");
        assert!(!warned(at(1_000_000, 1_220_000)), "a 1.22× spread is not: {}", at(1_000_000, 1_220_000).describe());
        assert!(!warned(at(1_000_000, 1_300_000)), "exactly 30% is not more than 30%");
        assert!(warned(at(1_000_000, 1_301_000)));
        let moving = at(800_000, 4_000_000);
        assert!((moving.spread_ratio() - 5.0).abs() < 1e-9);
        assert!(warned(moving) && moving.describe().contains("5.00× their 10th"), "{}", moving.describe());
    }

    #[test]
    fn a_batch_s_machine_is_the_median_of_the_canaries_around_it() {
        let b = |ns| BatchResult { machine_ns: Some(ns), ..Default::default() };
        let batches = [b(1_000_000), b(2_000_000), b(1_100_000), BatchResult::default()];
        assert_eq!(around_batch(&batches, 0), Some(1_500_000));
        assert_eq!(around_batch(&batches, 1), Some(1_100_000));
        // The last batch has none, nor has its window one but the batch before's: widened.
        assert_eq!(around_batch(&batches, 3), Some(1_550_000));
        assert!((slowdown(&batches, 1, 1_000_000).unwrap() - 0.1).abs() < 1e-9);
        assert_eq!(slowdown(&batches, 1, 0), None);
        assert_eq!(around_batch(&[BatchResult::default()], 0), None);
    }

    #[test]
    fn each_canary_goes_to_its_own_strategy_s_batch() {
        let canaries = Canaries::default();
        let b = |index, elapsed_ns| BatchResult { index, elapsed_ns, ..Default::default() };
        // A run's first batch gets one; a batch as long as ten canaries and more does; a short
        // one after it does not.
        for (strategy, index, elapsed_ns) in [("int", 0, 0), ("int", 1, 10_000_000_000), ("int", 2, 1), ("uuid4", 0, 1)]
        {
            canaries.batch_done(strategy, &b(index, elapsed_ns));
        }
        let mut doc: ResultsDoc = serde_json::from_str(include_str!("../../tests/fixtures/sqlite-small.json")).unwrap();
        canaries.attach(&mut doc);
        let has = |run: usize, batch: usize| doc.runs[run].batches[batch].machine_ns.is_some();
        // int, uuid7, uuid4, int+uuid4.
        assert!(has(0, 0) && has(0, 1) && !has(0, 2) && has(2, 0) && !has(2, 1) && !has(1, 0));
        assert!(canaries.times.borrow().is_empty(), "attach forgets what it handed over");
    }

    #[test]
    fn short_batches_share_a_canary_every_ten_canaries_time() {
        let canaries = Canaries::default();
        canaries.batch_done("int", &BatchResult::default());
        let (_, cost) = canaries.since.get();
        assert!(cost > 0, "the first batch's canary is timed");
        // Batches of a tenth of a canary's time: one canary in every hundred batches or so.
        for index in 1..=1000 {
            canaries.batch_done("int", &BatchResult { index, elapsed_ns: cost / 10, ..Default::default() });
        }
        let timed = canaries.times.borrow().len();
        assert!((2..=100).contains(&timed), "{timed} canaries over 1,001 short batches");
    }

    #[test]
    fn a_batch_between_canaries_takes_the_nearest_two() {
        let b = |ns| BatchResult { machine_ns: ns, ..Default::default() };
        let none = || b(None);
        let batches = [b(Some(1_000_000)), none(), none(), none(), b(Some(3_000_000)), none(), none()];
        assert_eq!(around_batch(&batches, 2), Some(2_000_000));
        assert_eq!(around_batch(&batches, 6), Some(2_000_000), "widened to the whole run");
        assert_eq!(around_batch(&[b(Some(5)), none()], 1), Some(5), "a run with one canary");
    }

    #[test]
    fn the_machine_s_spread_is_its_percentiles() {
        let m = MachineSpeed::of_canaries(&(1..=11).collect::<Vec<_>>(), None).unwrap();
        assert_eq!((m.median_ns, m.spread_ns), (6, (2, 10)));
        assert_eq!(MachineSpeed::of_canaries(&[], None), None);
        assert_eq!(MachineSpeed::of(&[], None), None);
    }
}
