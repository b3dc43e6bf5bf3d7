//! The time a calibration on a user's table spends beyond what the key's tree explains: its
//! secondary indexes and foreign keys. The fit prices the key tree's work; what is left of each
//! batch, per row, is drawn as a line over the calibration's course (0 at its first row, 1 at
//! its last). The calibration runs at the target's cache pressure, so the other trees fill the
//! cache the same way at the same fraction of the target: the forecast adds the line's value
//! at each batch's fraction of the target.

use super::fit::{Observation, TimeFit};
use std::collections::BTreeMap;

/// A strategy's unexplained milliseconds per row: `at_start + growth × fraction`, or none where
/// that is negative.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Unexplained {
    /// Per row at the first row.
    pub at_start: f64,
    /// What a row gains from the first row to the last.
    pub growth: f64,
}

impl Unexplained {
    /// Milliseconds per row at `fraction` of the way to the last row; none where the line dips
    /// below zero. The other trees' time is never negative, and a straight line through a curve
    /// that starts flat and climbs once the cache fills (a random key's) starts below zero: a
    /// forecast that took that off its first batches priced them below their own tree's work.
    pub fn ms_per_row(&self, fraction: f64) -> f64 {
        (self.at_start + self.growth * fraction.clamp(0.0, 1.0)).max(0.0)
    }

    /// Each strategy's line, by least squares over its batches' unexplained time per row
    /// (`rows` gives each observation's rows, in the same order).
    pub fn of(fit: &TimeFit, obs: &[Observation], rows: &[u64]) -> BTreeMap<String, Unexplained> {
        lines(&fit.ms_per_unit, obs.iter().zip(rows))
    }

    /// Each strategy's line as each bootstrap fit of `fit` draws it: that fit's costs, over the
    /// batches it was fitted on. The lines scatter as far as the calibration leaves them
    /// uncertain (a fit that prices the key's tree higher leaves less unexplained), so a forecast
    /// that adds fit `i`'s line to fit `i`'s prediction carries that uncertainty into its
    /// interval. `obs` and `rows` are those the fit was made on, in the same order.
    pub fn draws(fit: &TimeFit, obs: &[Observation], rows: &[u64]) -> BTreeMap<String, Vec<Unexplained>> {
        let mut draws: BTreeMap<String, Vec<Unexplained>> = BTreeMap::new();
        for (coef, sample) in fit.resamples() {
            for (group, line) in lines(coef, sample.iter().map(|&i| (&obs[i], &rows[i]))) {
                draws.entry(group).or_default().push(line);
            }
        }
        draws
    }
}

/// Each strategy's least-squares line of the time per row the costs `coef` leave unexplained.
pub(super) fn lines<'a>(
    coef: &[f64],
    batches: impl Iterator<Item = (&'a Observation, &'a u64)>,
) -> BTreeMap<String, Unexplained> {
    let mut points: BTreeMap<&str, Vec<(f64, f64)>> = BTreeMap::new();
    for (o, &n) in batches {
        let fitted: f64 = coef.iter().zip(&o.x).map(|(c, v)| c * v).sum();
        points.entry(o.group.as_str()).or_default().push((o.position, (o.ms - fitted) / n.max(1) as f64));
    }
    points.into_iter().map(|(group, p)| (group.to_string(), line(&p))).collect()
}

/// The least-squares line through `points` (a flat line at their mean where they share one x).
fn line(points: &[(f64, f64)]) -> Unexplained {
    let n = points.len() as f64;
    if points.is_empty() {
        return Unexplained::default();
    }
    let (mx, my) = (points.iter().map(|p| p.0).sum::<f64>() / n, points.iter().map(|p| p.1).sum::<f64>() / n);
    let sxx: f64 = points.iter().map(|p| (p.0 - mx).powi(2)).sum();
    let sxy: f64 = points.iter().map(|p| (p.0 - mx) * (p.1 - my)).sum();
    let growth = if sxx > 0.0 { sxy / sxx } else { 0.0 };
    Unexplained { at_start: my - growth * mx, growth }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::predict::terms::Term;

    /// 60 batches of 1,000 rows with 100–700 misses at 0.01 ms each, plus time the costs cannot
    /// price: 0.002 ms a row growing to 0.004 over the run, scattered by ±40%.
    fn carried() -> (TimeFit, Vec<Observation>, Vec<u64>) {
        let obs: Vec<Observation> = (0..60)
            .map(|i| {
                let position = f64::from(i + 1) / 60.0;
                let (rows, misses) = (1000.0, 100.0 + f64::from(i % 7) * 100.0);
                let scatter = [1.4, 0.6, 1.0, 1.3, 0.7][i as usize % 5];
                let unexplained = 0.002 * (1.0 + position) * rows * scatter;
                let ms = 0.001 * rows + 0.01 * misses + unexplained;
                Observation { group: "a".into(), position, x: vec![rows, misses], ms, machine: None }
            })
            .collect();
        let fit = TimeFit::fit(&[Term::Rows, Term::Misses], &obs).unwrap();
        (fit, obs, vec![1000; 60])
    }

    #[test]
    fn every_bootstrap_fit_draws_its_own_line_and_the_interval_holds_their_scatter() {
        let (fit, obs, rows) = carried();
        let point = Unexplained::of(&fit, &obs, &rows)["a"];
        let draws = &Unexplained::draws(&fit, &obs, &rows)["a"];
        assert_eq!(draws.len(), fit.resamples().count(), "one line per bootstrap fit");
        let ends: Vec<f64> = draws.iter().map(|l| l.ms_per_row(1.0)).collect();
        let (lo, hi) = ends.iter().fold((f64::MAX, f64::MIN), |(lo, hi), &e| (lo.min(e), hi.max(e)));
        assert!(hi - lo > 0.0005, "the lines scatter with the resampled batches: {lo}..{hi}");
        assert!(lo <= point.ms_per_row(1.0) && point.ms_per_row(1.0) <= hi, "the calibration's line among them");
        // A batch of 10,000 rows and 2,000 misses at the end of the course: the interval with
        // each fit's own line is wider than one shifted by the calibration's line alone.
        let x = [10_000.0, 2_000.0];
        let extra = point.ms_per_row(1.0) * 10_000.0;
        let draws_ms: Vec<f64> = ends.iter().map(|e| e * 10_000.0).collect();
        let shifted = fit.predict("a", &x);
        let carried = fit.predict_plus("a", &x, extra, &draws_ms);
        assert!((carried.ms - (shifted.ms + extra)).abs() < 1e-9, "the point adds the calibration's line");
        assert!(carried.low <= carried.ms && carried.ms <= carried.high, "{carried:?}");
        assert!(
            carried.high - carried.low > shifted.high - shifted.low,
            "the lines' scatter widens the interval: {carried:?} against {shifted:?}"
        );
    }

    #[test]
    fn a_forecast_that_carries_the_line_is_judged_with_it() {
        let (fit, _, rows) = carried();
        let whole = fit.clone().carrying_lines(&rows);
        assert!(
            whole.holdout.mean.abs() < fit.holdout.mean.abs(),
            "the early line takes the later batches' growth: {:?} against {:?}",
            whole.holdout,
            fit.holdout
        );
        assert_eq!(whole.ms_per_unit, fit.ms_per_unit, "the costs stay");
        assert_eq!(fit.clone().carrying_lines(&rows[1..]), fit, "rows that do not match leave the fit as it is");
    }

    #[test]
    fn the_line_runs_through_points_on_a_line_and_holds_its_ends() {
        let u = line(&[(0.0, 1.0), (0.5, 2.0), (1.0, 3.0)]);
        assert!((u.at_start - 1.0).abs() < 1e-12 && (u.growth - 2.0).abs() < 1e-12, "{u:?}");
        assert!((u.ms_per_row(2.0) - 3.0).abs() < 1e-12, "past the last row it holds the last row's value");
        let climbing = line(&[(0.0, 0.0), (0.25, 0.0), (0.5, 0.0), (0.75, 4.0), (1.0, 8.0)]);
        assert!(climbing.at_start < 0.0, "the line through a curve that starts flat starts below zero");
        assert_eq!(climbing.ms_per_row(0.0), 0.0, "where it does, it carries none");
        assert!(climbing.ms_per_row(1.0) > 6.0);
        assert_eq!(line(&[(0.5, 4.0), (0.5, 2.0)]), Unexplained { at_start: 3.0, growth: 0.0 });
        assert_eq!(line(&[]), Unexplained::default());
    }
}
