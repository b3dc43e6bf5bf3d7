//! How the calibration's batch times moved with the machine's speed, and the speeds it saw:
//! what a forecast's interval must hold on a machine that does not keep one speed.
//!
//! On a shared host the canary ([`super::canary`]) steps between states minutes apart, even
//! within one calibration, and a batch's time steps with it, by less than in proportion. The
//! out-of-sample ratios behind the intervals ([`super::fit`]) hold only the states the held-out
//! batches happened to run in, and a strategy's whole run may fall in one of them; an interval
//! built from those ratios alone misses a run that comes in another state. Instead, the costs
//! are fitted to the batches' times taken at the calibration's usual speed (the machine's share
//! taken off, [`MachineMoves::at_usual_speed`]), and each of the interval's draws is put at one
//! of the speeds the calibration's batches ran at ([`MachineMoves::draw`]).

use super::fit::Observation;
use super::nnls::dot;
use std::collections::BTreeMap;

/// Fewest batches with a canary to measure the machine's share on.
pub const MIN_BATCHES: usize = 10;
/// A strategy's own run measures its elasticity only if the machine's speed moved across it by
/// at least this much (RMS of the log canary ratios about their mean): a run that moved no more
/// than a canary's own scatter from batch to batch, even after the median of three, would give
/// mostly its noise's slope (towards 0).
pub const MIN_MOVE: f64 = 0.2;

/// The machine's share of the calibration's batch times.
#[derive(Clone, Debug, PartialEq)]
pub struct MachineMoves {
    /// How each strategy's batch times followed the machine's speed: a batch with its canary k
    /// times the usual took k^elasticity times as long, within that strategy's run (0: not at
    /// all; 1: in proportion; least squares on the logs, held within 0–1). A key that waits on
    /// the device follows the canary, which times the CPU, less than one that waits on the CPU.
    pub elasticity: BTreeMap<String, f64>,
    /// Every strategy's batches pooled, for a strategy whose own run has too few batches with a
    /// canary or saw the machine move less than [`MIN_MOVE`].
    pub pooled: f64,
    /// Each batch's log of its canary ratio less their mean: the speeds the calibration saw,
    /// about the one its costs are fitted at.
    states: Vec<f64>,
    /// The mean log canary ratio taken off `states`: the usual speed, their geometric mean.
    /// Not the median `--check` sets its batches' canaries against
    /// ([`super::canary::MachineSpeed`]): on a machine that steps between two speeds the median
    /// is one of them, and a forecast at it is off by the whole step whenever the machine runs at
    /// the other; at the mean it is off by part of the step either way.
    usual: f64,
    /// Where the time fit ([`super::fit`]) fitted the costs and the shares in turn and stopped
    /// before they settled: the most an elasticity moved in its last round. `None` where they
    /// settled, and for shares measured once.
    pub unsettled: Option<f64>,
}

impl MachineMoves {
    /// From the batches of `obs` that carry a canary ratio ([`Observation::machine`]), under
    /// costs `coef`: `None` with fewer than [`MIN_BATCHES`] of them.
    pub fn measure(obs: &[Observation], coef: &[f64]) -> Option<MachineMoves> {
        let points: Vec<(&str, f64, f64)> = obs
            .iter()
            .filter_map(|o| {
                let k = o.machine?;
                let predicted = dot(coef, &o.x);
                (k > 0.0 && predicted > 0.0 && o.ms > 0.0).then(|| (o.group.as_str(), k.ln(), (o.ms / predicted).ln()))
            })
            .collect();
        if points.len() < MIN_BATCHES {
            return None;
        }
        // Within each strategy's run: its level is its own costs' error, not the machine's.
        let mut means: BTreeMap<&str, (f64, f64, f64)> = BTreeMap::new();
        for &(g, m, r) in &points {
            let s = means.entry(g).or_default();
            *s = (s.0 + m, s.1 + r, s.2 + 1.0);
        }
        // Per strategy: Σ m·r, Σ m², batches.
        let mut sums: BTreeMap<&str, (f64, f64, usize)> = BTreeMap::new();
        for &(g, m, r) in &points {
            let (sm, sr, n) = means[g];
            let (m, r) = (m - sm / n, r - sr / n);
            let s = sums.entry(g).or_default();
            *s = (s.0 + m * r, s.1 + m * m, s.2 + 1);
        }
        let slope = |mr: f64, mm: f64| if mm > 0.0 { Some((mr / mm).clamp(0.0, 1.0)) } else { None };
        let (mr, mm) = sums.values().fold((0.0, 0.0), |(a, b), s| (a + s.0, b + s.1));
        let pooled = slope(mr, mm).unwrap_or(0.0);
        let elasticity = sums
            .iter()
            .map(|(g, &(mr, mm, n))| {
                let moved = n >= MIN_BATCHES && (mm / n as f64).sqrt() >= MIN_MOVE;
                let own = if moved { slope(mr, mm) } else { None };
                (g.to_string(), own.unwrap_or(pooled))
            })
            .collect();
        let usual = points.iter().map(|p| p.1).sum::<f64>() / points.len() as f64;
        Some(MachineMoves {
            elasticity,
            pooled,
            states: points.iter().map(|p| p.1 - usual).collect(),
            usual,
            unsettled: None,
        })
    }

    /// `group`'s elasticity; 0 for a strategy none of whose batches carried a canary (its
    /// times and ratios are as measured, at whatever speeds they ran).
    pub fn of(&self, group: &str) -> f64 {
        self.elasticity.get(group).copied().unwrap_or(0.0)
    }

    /// The log of the machine's share of a `group` batch's time at canary ratio `k`, against
    /// the calibration's usual speed (0 without a canary).
    pub fn share(&self, group: &str, k: Option<f64>) -> f64 {
        k.filter(|&k| k > 0.0).map_or(0.0, |k| self.of(group) * (k.ln() - self.usual))
    }

    /// `obs` with each batch's time taken to the usual speed: less the machine's share.
    pub fn at_usual_speed(&self, obs: &[Observation]) -> Vec<Observation> {
        obs.iter().map(|o| Observation { ms: o.ms * (-self.share(&o.group, o.machine)).exp(), ..o.clone() }).collect()
    }

    /// The log of the machine's share of a `group` batch at the `i`th of the calibration's
    /// speeds, taken round.
    pub fn draw(&self, group: &str, i: usize) -> f64 {
        if self.states.is_empty() {
            0.0
        } else {
            // A prime stride other than the residuals' (7919 in `TimeFit::predict`), so the
            // speeds and the residuals pair up well spread, not in step.
            self.of(group) * self.states[(i * 104_729 + 3) % self.states.len()]
        }
    }

    /// What `calibration_error` says of it: each strategy's elasticity and the factor the
    /// calibration's speeds put on its batches.
    pub fn describe(&self) -> String {
        let each: Vec<String> = self
            .elasticity
            .iter()
            .map(|(g, e)| {
                let (lo, hi) = self.spread(g);
                format!("{g} {e:.2} ({lo:.2}–{hi:.2}×)")
            })
            .collect();
        let unsettled = self.unsettled.map_or(String::new(), |moved| {
            format!("; fitted in turn with the costs, the powers had not settled when the fit stopped (the last round moved one by {moved:.3})")
        });
        format!(
            "each strategy's batch times followed the machine's speed (its canary) to the power given (0: not at all; 1: in proportion), fitted with the costs on all the calibration's batches, so the costs and the errors above are of the times at the calibration's usual speed (the geometric mean of its batches' canaries), and the intervals hold the factor its speeds put on a batch (10th–90th percentile, in brackets): {}{unsettled}",
            each.join(", ")
        )
    }

    /// The 10th and 90th percentile factor the machine's speeds put on a `group` batch's time.
    pub fn spread(&self, group: &str) -> (f64, f64) {
        let mut v: Vec<f64> = self.states.iter().map(|s| (self.of(group) * s).exp()).collect();
        v.sort_by(f64::total_cmp);
        let q = |p| crate::metrics::stats::quantile_sorted(&v, p).unwrap_or(1.0);
        (q(0.1), q(0.9))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn obs(group: &str, machine: f64, ms: f64) -> Observation {
        Observation { group: group.into(), position: 0.5, x: vec![1.0], ms, machine: Some(machine) }
    }

    #[test]
    fn a_batch_that_slows_with_the_machine_gives_its_elasticity_within_each_strategy() {
        // Strategy a runs at 1 ms per unit, b at 3: their levels differ, their machine's share
        // does not. Half their batches ran on a machine 2.5× slower, each then 2.5^0.6 as long.
        let mut all = Vec::new();
        for (g, base) in [("a", 1.0), ("b", 3.0)] {
            for i in 0..10 {
                let k = if i % 2 == 0 { 1.0 } else { 2.5_f64 };
                all.push(obs(g, k, base * k.powf(0.6)));
            }
        }
        // c waits on the device: a third as much.
        for i in 0..10 {
            let k = if i % 2 == 0 { 1.0 } else { 2.5_f64 };
            all.push(obs("c", k, 2.0 * k.powf(0.2)));
        }
        let m = MachineMoves::measure(&all, &[1.0]).unwrap();
        for (g, want) in [("a", 0.6), ("b", 0.6), ("c", 0.2)] {
            assert!((m.of(g) - want).abs() < 1e-9, "{g}: {m:?}");
        }
        assert!((m.pooled - 1.4 / 3.0).abs() < 1e-9, "{m:?}");
        // d ran at one speed but for a 5% wobble, its canary's noise: it takes the pooled one.
        let steady: Vec<Observation> = (0..10).map(|i| obs("d", 1.0 + f64::from(i % 2) * 0.05, 1.0)).collect();
        let m = MachineMoves::measure(&[all.clone(), steady].concat(), &[1.0]).unwrap();
        assert_eq!(m.of("d"), m.pooled);
        let (lo, hi) = m.spread("a");
        assert!((hi / lo - 2.5_f64.powf(0.6)).abs() < 1e-9, "{lo} {hi}");
        // A batch at the slow speed is that much above one at the fast speed.
        assert!((m.share("a", Some(2.5)) - m.share("a", Some(1.0)) - 0.6 * 2.5_f64.ln()).abs() < 1e-9);
        assert_eq!(m.share("a", None), 0.0);
        let said = m.describe();
        for each in ["a 0.60 (", "b 0.60 (", "c 0.20 (", "d 0.47 ("] {
            assert!(said.contains(each), "{said}");
        }
        assert!(!said.contains("settled"), "{said}");
        let unsettled = MachineMoves { unsettled: Some(0.0123), ..m.clone() }.describe();
        assert!(
            unsettled.ends_with("had not settled when the fit stopped (the last round moved one by 0.012)"),
            "{unsettled}"
        );
        // A strategy without canaries is left as measured.
        assert_eq!((m.of("z"), m.draw("z", 1), m.spread("z")), (0.0, 0.0, (1.0, 1.0)));
    }

    #[test]
    fn a_machine_that_never_moved_or_too_few_canaries_widen_nothing() {
        let steady: Vec<Observation> = (0..12).map(|i| obs("a", 1.0, 1.0 + f64::from(i % 3) * 0.1)).collect();
        let m = MachineMoves::measure(&steady, &[1.0]).unwrap();
        assert_eq!((m.of("a"), m.draw("a", 5)), (0.0, 0.0));
        assert_eq!(MachineMoves::measure(&steady[..MIN_BATCHES - 1], &[1.0]), None);
    }
}
