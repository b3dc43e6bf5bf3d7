//! The time fit: non-negative costs per unit of work ([`Term`]), shared by every strategy,
//! fitted by column-scaled NNLS on relative errors; refused when the data cannot tell a cost
//! apart from the others; fitted to the batches' times at the calibration's usual machine speed
//! where their canaries say how it moved ([`MachineMoves`]); judged out of sample (fit on each
//! strategy's early batches, scored on its later ones); and bootstrapped into prediction
//! intervals. Pure: no engine, no I/O.

use super::moves::MachineMoves;
use super::nnls::{self, dot};
use super::terms::Term;
use crate::Error;
use crate::util::pick::Pick;
use std::collections::BTreeMap;

/// Below this fraction of its norm outside the span of the other columns (column-scaled,
/// relative errors) a cost is not identified at all: its coefficient's variance is inflated
/// more than a million times (1/0.001²), so any value fits. Between this and 1 the costs can
/// still trade off against each other (a growing random-key table misses, writes and
/// checkpoints in near lockstep); the bootstrap ranges of the coefficients and the prediction
/// intervals show by how much.
pub const MIN_INDEPENDENT: f64 = 1e-3;
/// Batches needed per fitted cost.
pub const BATCHES_PER_TERM: usize = 5;
/// A probed cost whose column has less than this fraction independent of the others is held
/// at its probe's value.
pub const PIN_BELOW: f64 = 0.05;
/// Share of each strategy's rows whose batches fit the out-of-sample model; the rest score it.
pub const EARLY_SHARE: f64 = 2.0 / 3.0;
/// Bootstrap resamples behind the intervals.
pub const RESAMPLES: usize = 200;
/// Coverage of the prediction intervals (5th to 95th percentile).
pub const INTERVAL: f64 = 0.90;

/// One real batch: its units of work and measured time.
#[derive(Clone, Debug, PartialEq)]
pub struct Observation {
    /// Strategy (resampling and the early/late split are per strategy).
    pub group: String,
    /// Rows in the table after the batch ÷ rows of the run (0–1].
    pub position: f64,
    /// Units of each fitted term, in the order of the fit's terms.
    pub x: Vec<f64>,
    /// Measured milliseconds.
    pub ms: f64,
    /// The machine's speed around the batch: its canary, the median of three
    /// ([`super::canary::around_batch`]), ÷ the calibration's median (2: half as fast), if timed.
    pub machine: Option<f64>,
}

/// Errors of a fit on batches it did not see.
#[derive(Clone, Debug, PartialEq)]
pub struct Holdout {
    /// Batches scored (each strategy's last third of rows).
    pub batches: usize,
    /// Root-mean-square of (predicted − measured) / measured.
    pub rms: f64,
    /// Largest |predicted − measured| / measured.
    pub max_abs: f64,
    /// Mean of (predicted − measured) / measured (a bias, if far from 0).
    pub mean: f64,
}

/// Fitted costs.
#[derive(Clone, Debug, PartialEq)]
pub struct TimeFit {
    /// The terms of the columns.
    pub terms: Vec<Term>,
    /// Milliseconds per unit of each term (≥ 0; 0 for a term left out).
    pub ms_per_unit: Vec<f64>,
    /// Terms left out and why (never seen in the calibration, or merged into another).
    pub left_out: Vec<(Term, String)>,
    /// Out-of-sample errors (of the times at the usual speed where [`TimeFit::machine`] is set;
    /// the machine's share itself is fitted on all the batches).
    pub holdout: Holdout,
    /// Each strategy's RMS relative error when the costs are fitted on the other strategies
    /// alone: how far the costs carry to a key the calibration did not run.
    pub leave_one_out: Vec<(String, f64)>,
    /// In-sample RMS relative error of the final fit (for comparison only).
    pub in_sample_rms: f64,
    /// Batches fitted.
    pub batches: usize,
    /// The smallest independent fraction of any fitted cost (see [`MIN_INDEPENDENT`]).
    pub min_independent: f64,
    /// Probed costs the batches could not tell apart from the others, held at the probe's value.
    pub pinned: Vec<Term>,
    /// How much of a batch's scatter persists in a longer batch, from the held-out batches:
    /// 0.5 where it is independent from batch to batch (it averages out as 1/√length), 1 where
    /// it does not average out at all ([`persistence`]); `None` where too few pairs of held-out
    /// batches measure it, and ½ is assumed.
    pub persistence: Option<f64>,
    /// How the batches' times moved with the machine's speed, and the speeds they ran at
    /// (`None` where too few batches carry a canary).
    pub machine: Option<MachineMoves>,
    /// Bootstrap coefficient vectors.
    boot: Vec<Vec<f64>>,
    /// The batches each bootstrap fit was made on (indices into the fitted observations, in
    /// the order of [`TimeFit::boot`]).
    boot_samples: Vec<Vec<usize>>,
    /// Out-of-sample batches' log of measured ÷ predicted, as [`Residual`]s.
    residuals: Vec<Residual>,
    /// The observations fitted (at the usual machine speed), the terms fitted and their
    /// bounds: what [`TimeFit::carrying_lines`] judges again.
    fitted: Vec<Observation>,
    active: Vec<usize>,
    bounds: Vec<Bounds>,
}

/// An out-of-sample batch's log of measured ÷ predicted, split into its strategy's level (the
/// mean over that strategy's later batches) and the batch's scatter about it.
#[derive(Clone, Copy, Debug, PartialEq)]
struct Residual {
    level: f64,
    scatter: f64,
    /// The batch's measured milliseconds.
    batch_ms: f64,
}

/// A prediction and its interval, milliseconds.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Predicted {
    /// Point prediction.
    pub ms: f64,
    /// Lower end of the [`INTERVAL`] prediction interval.
    pub low: f64,
    /// Upper end.
    pub high: f64,
}

/// What each cost may be, milliseconds per unit: (lowest, highest). The micro-probes
/// ([`super::probe`]) set them from the machine's own syscalls; [`UNBOUNDED`] leaves a cost to
/// the data alone.
pub type Bounds = (f64, f64);

/// A cost only the data sets (≥ 0).
pub const UNBOUNDED: Bounds = (0.0, f64::INFINITY);

impl TimeFit {
    /// Fits `terms` to `obs` (each observation's `x` in the order of `terms`), costs ≥ 0.
    pub fn fit(terms: &[Term], obs: &[Observation]) -> Result<TimeFit, Error> {
        TimeFit::fit_bounded(terms, obs, &vec![UNBOUNDED; terms.len()])
    }

    /// [`TimeFit::fit`] with each cost within its `bounds` (in the order of `terms`).
    pub fn fit_bounded(terms: &[Term], obs: &[Observation], bounds: &[Bounds]) -> Result<TimeFit, Error> {
        let mut left_out = Vec::new();
        let mut active: Vec<usize> = Vec::new();
        for (j, &t) in terms.iter().enumerate() {
            if obs.iter().all(|o| o.x[j] == 0.0) {
                left_out.push((t, "none in the calibration".to_string()));
            } else {
                active.push(j);
            }
        }
        drop_aliased_structural(terms, obs, &mut active, &mut left_out);
        let needed = BATCHES_PER_TERM * active.len();
        if obs.len() < needed || obs.iter().any(|o| o.ms <= 0.0 || !o.ms.is_finite()) {
            return Err(Error::InvalidInput(format!(
                "the calibration has {} timed batches for {} costs; the fit needs {BATCHES_PER_TERM} per cost ({needed}): use a larger --calibrate-rows",
                obs.len(),
                active.len()
            )));
        }
        // A cost held within a finite range (a probe's) needs no batches to tell it apart; where
        // the batches cannot tell it apart at all, it is held at its probe's value (the range's
        // geometric middle), not wherever in its range the others leave it.
        let all: Vec<&Observation> = obs.iter().collect();
        let mut bounds = bounds.to_vec();
        let mut pinned = Vec::new();
        let fractions = nnls::independent_fraction(&design(&all, &active).0);
        for (k, &j) in active.iter().enumerate() {
            let (lo, hi) = bounds[j];
            if hi.is_finite() && lo > 0.0 && fractions[k].unwrap_or(0.0) < PIN_BELOW {
                bounds[j] = ((lo * hi).sqrt(), (lo * hi).sqrt());
                pinned.push(terms[j]);
            }
        }
        let bounds = &bounds[..];
        let free: Vec<usize> = active.iter().copied().filter(|&j| !bounds[j].1.is_finite()).collect();
        let (a, _) = design(&all, &free);
        let fractions = nnls::independent_fraction(&a);
        for (k, f) in fractions.iter().enumerate() {
            let f = f.unwrap_or(0.0);
            if f < MIN_INDEPENDENT {
                let term = terms[free[k]];
                let partner = closest_partner(&a, k).map(|p| terms[free[p]].unit()).unwrap_or("the others");
                return Err(Error::InvalidInput(format!(
                    "the calibration cannot tell the cost per {} from the cost per {partner} (only {:.1}% of it varies independently): {}",
                    term.unit(),
                    f * 100.0,
                    term.remedy()
                )));
            }
        }
        let min_independent = fractions.iter().map(|f| f.unwrap_or(0.0)).fold(1.0, f64::min);
        let dependent = || {
            Error::InvalidInput("the calibration's costs are linearly dependent: use a larger --calibrate-rows".into())
        };
        let coef = solve(&all, &active, bounds).ok_or_else(dependent)?;
        let (steady, machine) = at_usual_speed(obs, &active, bounds, coef);
        let obs = &steady[..];
        let coef = solve(&obs.iter().collect::<Vec<_>>(), &active, bounds).ok_or_else(dependent)?;
        let in_sample_rms = rms(&relative_errors(obs, &coef));
        let (holdout, residuals, persistence) = holdout(obs, &active, bounds, None)?;
        let (boot, boot_samples) = bootstrap(obs, &active, bounds).into_iter().unzip();
        Ok(TimeFit {
            terms: terms.to_vec(),
            ms_per_unit: coef,
            left_out,
            holdout,
            leave_one_out: leave_one_out(obs, &active, bounds),
            in_sample_rms,
            batches: obs.len(),
            min_independent,
            pinned,
            persistence,
            machine,
            boot,
            boot_samples,
            residuals,
            fitted: obs.to_vec(),
            active,
            bounds: bounds.to_vec(),
        })
    }

    /// This fit judged out of sample as a forecast that adds, to each batch, its strategy's line
    /// of the time per row the costs leave unexplained (`rows`: each fitted observation's rows,
    /// in their order): the early batches' line is carried to the later ones, so the holdout,
    /// the intervals' ratios and the persistence measure the forecast whole, not the costs
    /// alone while the line grows the later batches' error. Where `rows` does not match the
    /// observations or the early batches cannot be fitted again, the fit is returned as it is.
    pub fn carrying_lines(self, rows: &[u64]) -> TimeFit {
        if rows.len() != self.fitted.len() {
            return self;
        }
        match holdout(&self.fitted, &self.active, &self.bounds, Some(rows)) {
            Ok((holdout, residuals, persistence)) => TimeFit { holdout, residuals, persistence, ..self },
            Err(_) => self,
        }
    }

    /// The [`INTERVAL`] range of term `j`'s cost over the bootstrap fits, ms per unit.
    pub fn range(&self, j: usize) -> (f64, f64) {
        let mut v: Vec<f64> = self.boot.iter().map(|c| c[j]).collect();
        v.sort_by(f64::total_cmp);
        let tail = (1.0 - INTERVAL) / 2.0;
        let q = |p| crate::metrics::stats::quantile_sorted(&v, p).unwrap_or(self.ms_per_unit[j]);
        (q(tail), q(1.0 - tail))
    }

    /// Predicted milliseconds for a batch of strategy `group` with `x` units of each term, with
    /// its interval:
    /// each bootstrap fit's prediction times an out-of-sample batch's measured ÷ predicted
    /// ratio, 5th to 95th percentile. The level of the ratio in that batch's strategy is kept
    /// whole (a strategy's later batches drift together: the regime, and the machine's state
    /// where no canary took it off), in
    /// either direction: the holdout shows how far a forecast drifts, not which way it drifts at
    /// a target many times the calibration's size (the same check can drift up on one run and
    /// down on the next). The batch's scatter about it shrinks in a longer batch by (calibration
    /// batch ms ÷ this batch's ms)^(1 − [`TimeFit::persistence`]): by the square root where it
    /// is noise from independent events (a sync's latency) that average out, less where the
    /// machine's slow spells last longer than a batch. The machine's share is taken off each
    /// ratio and each draw put at one of the speeds the calibration ran at instead
    /// ([`MachineMoves`]): the held-out batches saw only some of them.
    pub fn predict(&self, group: &str, x: &[f64]) -> Predicted {
        self.predict_plus(group, x, 0.0, &[])
    }

    /// Each bootstrap fit's coefficients with the batches it was fitted on (indices into the
    /// observations given to [`TimeFit::fit_bounded`]).
    pub fn resamples(&self) -> impl Iterator<Item = (&[f64], &[usize])> {
        self.boot.iter().zip(&self.boot_samples).map(|(c, s)| (c.as_slice(), s.as_slice()))
    }

    /// [`TimeFit::predict`] with milliseconds the costs do not price added before the
    /// out-of-sample ratio applies: `extra` to the point prediction and `extra_draws[i]` to
    /// bootstrap fit `i`'s (each fit's own estimate of it, such as the line of what that fit
    /// leaves unexplained; `extra` for every fit where `extra_draws` is shorter).
    pub fn predict_plus(&self, group: &str, x: &[f64], extra: f64, extra_draws: &[f64]) -> Predicted {
        let ms = (dot(&self.ms_per_unit, x) + extra).max(0.0);
        if self.boot.is_empty() {
            return Predicted { ms, low: ms, high: ms };
        }
        let mut draws: Vec<f64> = self
            .boot
            .iter()
            .enumerate()
            .map(|(i, c)| {
                let machine = self.machine.as_ref().map_or(0.0, |m| m.draw(group, i));
                let ratio = if self.residuals.is_empty() {
                    machine.exp()
                } else {
                    // A fixed, well-spread pairing of resamples and residuals.
                    let r = self.residuals[(i * 7919) % self.residuals.len()];
                    let shrink = if ms > r.batch_ms {
                        (r.batch_ms / ms).powf(1.0 - self.persistence.unwrap_or(0.5))
                    } else {
                        1.0
                    };
                    let level = if i % 2 == 0 { r.level } else { -r.level };
                    (level + r.scatter * shrink + machine).exp()
                };
                let plus = extra_draws.get(i).copied().unwrap_or(extra);
                ((dot(c, x) + plus) * ratio).max(0.0)
            })
            .collect();
        draws.sort_by(f64::total_cmp);
        let tail = (1.0 - INTERVAL) / 2.0;
        let q = |p| crate::metrics::stats::quantile_sorted(&draws, p).unwrap_or(ms);
        Predicted { ms, low: q(tail).min(ms), high: q(1.0 - tail).max(ms) }
    }
}

/// Structural terms (rows × a per-strategy constant) that are an exact combination of other
/// structural terms across the calibrated strategies cannot be told apart, but need not be: the
/// prediction's strategies are the same, so their sum is all it uses. Keep the first.
fn drop_aliased_structural(
    terms: &[Term],
    obs: &[Observation],
    active: &mut Vec<usize>,
    left_out: &mut Vec<(Term, String)>,
) {
    // One row per observation of units per row: a strategy's constants.
    let per_row = |o: &Observation, j: usize| {
        let rows = terms.iter().position(|&t| t == Term::Rows).map_or(1.0, |r| o.x[r]);
        if rows > 0.0 { o.x[j] / rows } else { 0.0 }
    };
    let mut kept: Vec<usize> = Vec::new();
    for &j in active.iter().filter(|&&j| terms[j].structural()) {
        kept.push(j);
        let m: Vec<Vec<f64>> = obs.iter().map(|o| kept.iter().map(|&k| per_row(o, k)).collect()).collect();
        if nnls::least_squares(&m, &vec![0.0; m.len()], &(0..kept.len()).collect::<Vec<_>>()).is_none() {
            kept.pop();
            let with = kept.iter().map(|&k| terms[k].unit()).collect::<Vec<_>>().join(" and per ");
            left_out.push((
                terms[j],
                format!("merged into the cost per {with}: every calibrated strategy has the same ratio"),
            ));
        }
    }
    active.retain(|&j| !terms[j].structural() || kept.contains(&j));
}

/// Relative-error design of `cols`: row i divided by its measured time (so the target is all
/// ones), then each column divided by its norm. Returns the matrix and the column norms.
fn design(obs: &[&Observation], cols: &[usize]) -> (Vec<Vec<f64>>, Vec<f64>) {
    let raw: Vec<Vec<f64>> = obs.iter().map(|o| cols.iter().map(|&j| o.x[j] / o.ms).collect()).collect();
    let scale: Vec<f64> = (0..cols.len())
        .map(|k| nnls::norm(&raw.iter().map(|r| r[k]).collect::<Vec<_>>()).max(f64::MIN_POSITIVE))
        .collect();
    let a = raw.iter().map(|r| r.iter().zip(&scale).map(|(v, s)| v / s).collect()).collect();
    (a, scale)
}

/// The column most aligned with column `k` (largest |cosine|).
fn closest_partner(a: &[Vec<f64>], k: usize) -> Option<usize> {
    let p = a.first()?.len();
    let col = |j: usize| a.iter().map(|r| r[j]).collect::<Vec<f64>>();
    let ck = col(k);
    (0..p).filter(|&j| j != k).max_by(|&i, &j| dot(&ck, &col(i)).abs().total_cmp(&dot(&ck, &col(j)).abs()))
}

/// NNLS on the scaled design of `obs`, each cost within its bounds: the lower bounds are
/// subtracted from the measured times first (so NNLS fits what is left, ≥ 0), and a cost the
/// fit puts above its upper bound is held there while the others are fitted again. Returns
/// milliseconds per unit in all slots (0 for terms not in `active`).
fn solve(obs: &[&Observation], active: &[usize], bounds: &[Bounds]) -> Option<Vec<f64>> {
    let mut held: Vec<Option<f64>> = bounds.iter().map(|&(lo, hi)| (lo == hi).then_some(lo)).collect();
    loop {
        let free: Vec<usize> = active.iter().copied().filter(|&j| held[j].is_none()).collect();
        let known = |o: &Observation| -> f64 { active.iter().map(|&j| o.x[j] * held[j].unwrap_or(bounds[j].0)).sum() };
        let target: Vec<f64> = obs.iter().map(|o| 1.0 - known(o) / o.ms).collect();
        let (a, scale) = design(obs, &free);
        let c = if free.is_empty() { Vec::new() } else { nnls::nnls(&a, &target)? };
        let mut out = vec![0.0; bounds.len()];
        for &j in active {
            out[j] = held[j].unwrap_or(bounds[j].0);
        }
        for (k, &j) in free.iter().enumerate() {
            out[j] += c[k] / scale[k];
        }
        let over: Vec<usize> = free.iter().copied().filter(|&j| out[j] > bounds[j].1).collect();
        if over.is_empty() {
            return Some(out);
        }
        for j in over {
            held[j] = Some(bounds[j].1);
        }
    }
}

fn relative_errors(obs: &[Observation], coef: &[f64]) -> Vec<f64> {
    obs.iter().map(|o| (dot(coef, &o.x) - o.ms) / o.ms).collect()
}

fn rms(v: &[f64]) -> f64 {
    if v.is_empty() { 0.0 } else { (v.iter().map(|e| e * e).sum::<f64>() / v.len() as f64).sqrt() }
}

/// Fits each strategy's batches up to [`EARLY_SHARE`] of its rows and scores the later ones:
/// the error a forecast beyond the calibration makes. Also returns each later batch's log of
/// measured ÷ predicted. With `rows` (each observation's rows), each later batch's prediction
/// also carries its strategy's line of the time per row the early fit leaves unexplained, drawn
/// over the early batches ([`super::unexplained`]): the forecast that carries such a line is
/// scored whole.
fn holdout(
    obs: &[Observation],
    active: &[usize],
    bounds: &[Bounds],
    rows: Option<&[u64]>,
) -> Result<(Holdout, Vec<Residual>, Option<f64>), Error> {
    let is_early = |o: &Observation| o.position <= EARLY_SHARE + 1e-9;
    let early: Vec<&Observation> = obs.iter().filter(|o| is_early(o)).collect();
    let late: Vec<(usize, &Observation)> = obs.iter().enumerate().filter(|(_, o)| !is_early(o)).collect();
    if late.is_empty() || early.len() < BATCHES_PER_TERM * active.len() {
        return Err(Error::InvalidInput(format!(
            "the calibration's first {:.0}% of rows have {}, too few to fit {} out of sample: use a larger --calibrate-rows",
            EARLY_SHARE * 100.0,
            crate::util::text::count(early.len(), "batch"),
            crate::util::text::count(active.len(), "cost")
        )));
    }
    let coef = solve(&early, active, bounds).ok_or_else(|| {
        Error::InvalidInput("the calibration's early batches cannot be fitted: use a larger --calibrate-rows".into())
    })?;
    let lines = rows.map(|rows| {
        let early = obs.iter().zip(rows).filter(|(o, _)| is_early(o));
        super::unexplained::lines(&coef, early)
    });
    let carried = |i: usize, o: &Observation| -> f64 {
        let (Some(lines), Some(rows)) = (&lines, rows) else { return 0.0 };
        lines.get(&o.group).map_or(0.0, |l| l.ms_per_row(o.position) * rows[i] as f64)
    };
    let errors: Vec<f64> = late.iter().map(|&(i, o)| (dot(&coef, &o.x) + carried(i, o) - o.ms) / o.ms).collect();
    // A batch measured at twice its prediction (error −50%) widens the interval upwards.
    let logs: Vec<(f64, &Observation)> =
        errors.iter().zip(&late).map(|(e, &(_, o))| (-(1.0 + e).ln(), o)).filter(|(log, _)| log.is_finite()).collect();
    let mut sums: BTreeMap<&str, (f64, f64)> = BTreeMap::new();
    for (log, o) in &logs {
        let s = sums.entry(o.group.as_str()).or_default();
        (s.0, s.1) = (s.0 + log, s.1 + 1.0);
    }
    let ratios: Vec<Residual> = logs
        .iter()
        .map(|(log, o)| {
            let (sum, n) = sums[o.group.as_str()];
            let level = sum / n;
            Residual { level, scatter: log - level, batch_ms: o.ms }
        })
        .collect();
    let groups: Vec<&str> = logs.iter().map(|(_, o)| o.group.as_str()).collect();
    let persistence = persistence(&ratios, &groups);
    let holdout = Holdout {
        batches: late.len(),
        rms: rms(&errors),
        max_abs: errors.iter().fold(0.0, |m, e| m.max(e.abs())),
        mean: errors.iter().sum::<f64>() / errors.len() as f64,
    };
    Ok((holdout, ratios, persistence))
}

/// Rounds of [`at_usual_speed`] at most; it stops sooner once the machine's share settles.
const SPEED_ROUNDS: usize = 10;
/// The machine's share has settled when no elasticity moved by this much in a round.
const SETTLED: f64 = 1e-3;

/// `obs` with each batch's time taken to the calibration's usual machine speed, and how the
/// times followed the machine ([`MachineMoves`]); `obs` as they are where too few batches
/// carry a canary. The costs and the machine's share are fitted in turn (costs `coef` to start,
/// fitted to the times as measured), each to what the other leaves: costs fitted to the times
/// as measured take up part of the machine's share where its speeds fall unevenly over a run
/// (0.45 of 0.6 in a synthetic run whose fast spells all fell in its first two thirds). Where
/// they have not settled after [`SPEED_ROUNDS`] rounds, [`MachineMoves::unsettled`] says by how
/// much the last round moved them.
fn at_usual_speed(
    obs: &[Observation],
    active: &[usize],
    bounds: &[Bounds],
    mut coef: Vec<f64>,
) -> (Vec<Observation>, Option<MachineMoves>) {
    let Some(mut moves) = MachineMoves::measure(obs, &coef) else { return (obs.to_vec(), None) };
    let mut moved = f64::INFINITY;
    for _ in 0..SPEED_ROUNDS {
        let steady = moves.at_usual_speed(obs);
        let Some(next) = solve(&steady.iter().collect::<Vec<_>>(), active, bounds) else { break };
        coef = next;
        let Some(next) = MachineMoves::measure(obs, &coef) else { break };
        moved = next.elasticity.iter().map(|(g, e)| (e - moves.of(g)).abs()).fold(0.0, f64::max);
        moves = next;
        if moved < SETTLED {
            break;
        }
    }
    moves.unsettled = (moved >= SETTLED && moved.is_finite()).then_some(moved);
    (moves.at_usual_speed(obs), Some(moves))
}

/// Fewest pairs of consecutive held-out batches [`persistence`] is measured on.
const MIN_PAIRS: usize = 6;

/// How much of the scatter persists over two batches: the scatter of the means of consecutive
/// pairs of a strategy's held-out batches against that of the batches, r = RMS(pair means) ÷
/// RMS(batches), is 2^(h − 1) with h = ½ for independent noise and 1 for noise that lasts, so
/// h = 1 + log₂ r, within [½, 1]; `None` with fewer than [`MIN_PAIRS`] pairs.
fn persistence(residuals: &[Residual], groups: &[&str]) -> Option<f64> {
    let (mut singles, mut pairs, mut n_singles, mut n_pairs) = (0.0, 0.0, 0_usize, 0_usize);
    let mut i = 0;
    while i < residuals.len() {
        let a = residuals[i].scatter;
        singles += a * a;
        n_singles += 1;
        if i + 1 < residuals.len() && groups[i + 1] == groups[i] {
            let b = residuals[i + 1].scatter;
            singles += b * b;
            n_singles += 1;
            let m = (a + b) / 2.0;
            pairs += m * m;
            n_pairs += 1;
            i += 2;
        } else {
            i += 1;
        }
    }
    if n_pairs < MIN_PAIRS {
        return None;
    }
    if singles <= 0.0 {
        return Some(0.5);
    }
    let r = ((pairs / n_pairs as f64) / (singles / n_singles as f64)).sqrt();
    Some((1.0 + r.log2()).clamp(0.5, 1.0))
}

/// The strategies of `obs`, each once, in order.
fn groups(obs: &[Observation]) -> Vec<&str> {
    let mut groups: Vec<&str> = obs.iter().map(|o| o.group.as_str()).collect();
    groups.sort_unstable();
    groups.dedup();
    groups
}

/// Each strategy's error under costs fitted on the others (none where they cannot be fitted).
fn leave_one_out(obs: &[Observation], active: &[usize], bounds: &[Bounds]) -> Vec<(String, f64)> {
    let groups = groups(obs);
    if groups.len() < 2 {
        return Vec::new();
    }
    groups
        .iter()
        .filter_map(|g| {
            let others: Vec<&Observation> = obs.iter().filter(|o| o.group != *g).collect();
            let mine: Vec<Observation> = obs.iter().filter(|o| o.group == *g).cloned().collect();
            let coef = solve(&others, active, bounds)?;
            Some((g.to_string(), rms(&relative_errors(&mine, &coef))))
        })
        .collect()
}

/// [`RESAMPLES`] fits on batches resampled with replacement within each strategy, each with
/// the indices of the batches it was fitted on.
fn bootstrap(obs: &[Observation], active: &[usize], bounds: &[Bounds]) -> Vec<(Vec<f64>, Vec<usize>)> {
    let groups = groups(obs);
    let members: Vec<Vec<usize>> =
        groups.iter().map(|g| (0..obs.len()).filter(|&i| obs[i].group == *g).collect()).collect();
    let mut rng = Pick(0x0005_eed0_ff17);
    (0..RESAMPLES)
        .filter_map(|_| {
            let picked: Vec<usize> =
                members.iter().flat_map(|m| (0..m.len()).map(|_| m[rng.below(m.len())]).collect::<Vec<_>>()).collect();
            let sample: Vec<&Observation> = picked.iter().map(|&i| &obs[i]).collect();
            solve(&sample, active, bounds).map(|c| (c, picked))
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn residuals(scatter: &[f64]) -> Vec<Residual> {
        scatter.iter().map(|&s| Residual { level: 0.0, scatter: s, batch_ms: 10.0 }).collect()
    }

    #[test]
    fn scatter_that_cancels_in_pairs_is_independent_and_scatter_that_lasts_persists() {
        let groups = ["a"; 16];
        let alternating: Vec<f64> = (0..16).map(|i| if i % 2 == 0 { 0.1 } else { -0.1 }).collect();
        assert_eq!(persistence(&residuals(&alternating), &groups), Some(0.5));
        let spells: Vec<f64> = (0..16).map(|i| if (i / 2) % 2 == 0 { 0.1 } else { -0.1 }).collect();
        assert!((persistence(&residuals(&spells), &groups).unwrap() - 1.0).abs() < 1e-12);
        // Pairs never straddle two strategies, and too few pairs say nothing.
        let split = ["a", "b", "a", "b", "a", "b", "a", "b"];
        assert_eq!(persistence(&residuals(&spells[..8]), &split), None);
    }
}
