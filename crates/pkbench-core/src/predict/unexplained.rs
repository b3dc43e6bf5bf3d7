//! The time a calibration on a user's table spends beyond what the key's tree explains: its
//! secondary indexes and foreign keys. The fit prices the key tree's work; what is left of each
//! batch, per row, is drawn as a line over the calibration's course (0 at its first row, 1 at
//! its last). The calibration runs at the target's cache pressure, so the other trees fill the
//! cache the same way at the same fraction of the target: the forecast adds the line's value
//! at each batch's fraction of the target.

use super::fit::{Observation, TimeFit};
use std::collections::BTreeMap;

/// A strategy's unexplained milliseconds per row: `at_start + growth × fraction`.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Unexplained {
    /// Per row at the first row.
    pub at_start: f64,
    /// What a row gains from the first row to the last.
    pub growth: f64,
}

impl Unexplained {
    /// Milliseconds per row at `fraction` of the way to the last row.
    pub fn ms_per_row(&self, fraction: f64) -> f64 {
        self.at_start + self.growth * fraction.clamp(0.0, 1.0)
    }

    /// Each strategy's line, by least squares over its batches' unexplained time per row
    /// (`rows` gives each observation's rows, in the same order).
    pub fn of(fit: &TimeFit, obs: &[Observation], rows: &[u64]) -> BTreeMap<String, Unexplained> {
        let mut points: BTreeMap<&str, Vec<(f64, f64)>> = BTreeMap::new();
        for (o, &n) in obs.iter().zip(rows) {
            let fitted: f64 = fit.ms_per_unit.iter().zip(&o.x).map(|(c, v)| c * v).sum();
            points.entry(o.group.as_str()).or_default().push((o.position, (o.ms - fitted) / n.max(1) as f64));
        }
        points.into_iter().map(|(group, p)| (group.to_string(), line(&p))).collect()
    }
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

    #[test]
    fn the_line_runs_through_points_on_a_line_and_holds_its_ends() {
        let u = line(&[(0.0, 1.0), (0.5, 2.0), (1.0, 3.0)]);
        assert!((u.at_start - 1.0).abs() < 1e-12 && (u.growth - 2.0).abs() < 1e-12, "{u:?}");
        assert!((u.ms_per_row(2.0) - 3.0).abs() < 1e-12, "past the last row it holds the last row's value");
        assert_eq!(line(&[(0.5, 4.0), (0.5, 2.0)]), Unexplained { at_start: 3.0, growth: 0.0 });
        assert_eq!(line(&[]), Unexplained::default());
    }
}
