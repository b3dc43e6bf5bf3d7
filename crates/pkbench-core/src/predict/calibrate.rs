//! Time from counts: fit `ms per batch = a·misses + b·pages written + c·rows` by least squares
//! on a short real run's per-batch counters and timings, then turn the model's counts into
//! predicted milliseconds. The only part of `predict` that runs an engine, and only through the
//! [`Engine`] trait.

use crate::Error;
use crate::control::{MonotonicTimer, RunControl};
use crate::engines::{Engine, EngineKind};
use crate::metrics::budget::CounterBudget;
use crate::results::{Counters, Environment, ResultsDoc, RunResult};
use crate::run::{RunPlan, run};
use crate::strategy::Strategy;
use crate::workloads::{CaseContext, InsertGrowth, Silent};
use std::collections::BTreeMap;

/// Fitted cost per counted event, and how well the fit matched the real run.
#[derive(Clone, Debug, PartialEq)]
pub struct Calibration {
    /// Milliseconds per cache miss.
    pub ms_per_miss: f64,
    /// Milliseconds per page written.
    pub ms_per_page_written: f64,
    /// Milliseconds per WAL-index hash table searched on a miss (see [`wal_lookups`]).
    pub ms_per_wal_lookup: f64,
    /// Milliseconds per row, per strategy (binding and comparing a 16- or 36-byte key costs
    /// more CPU per row than an integer the engine assigns).
    pub ms_per_row: BTreeMap<String, f64>,
    /// Root-mean-square of (fitted − measured) / measured over the real batches.
    pub fit_error: f64,
    /// Real batches the fit used.
    pub batches: usize,
    /// Rows per strategy of the real run.
    pub rows: u64,
}

/// One batch's predictors and measured time.
#[derive(Clone, Debug, PartialEq)]
pub struct Sample {
    /// Strategy of the batch.
    pub strategy: String,
    /// Cache misses.
    pub misses: f64,
    /// Pages written.
    pub pages_written: f64,
    /// Rows.
    pub rows: f64,
    /// Measured milliseconds.
    pub ms: f64,
}

impl Sample {
    /// Predictors: misses, pages written, then rows in the column of this sample's strategy.
    fn x(&self, strategies: &[String]) -> Vec<f64> {
        let mut x = vec![self.misses, self.pages_written, wal_lookups(self.misses, self.pages_written)];
        x.extend(strategies.iter().map(|s| if *s == self.strategy { self.rows } else { 0.0 }));
        x
    }

    /// 1/measured: least squares on relative errors.
    fn weight(&self) -> f64 {
        if self.ms > 0.0 { 1.0 / self.ms } else { 0.0 }
    }
}

impl Calibration {
    /// Predicted nanoseconds for a batch of `strategy` with `rows` rows and `counters`.
    pub fn predict_ns(&self, strategy: &str, counters: &Counters, rows: u64) -> u64 {
        let (misses, written) = (counters.cache_misses.unwrap_or(0) as f64, counters.pages_written.unwrap_or(0) as f64);
        let ms = self.ms_per_miss * misses
            + self.ms_per_page_written * written
            + self.ms_per_wal_lookup * wal_lookups(misses, written)
            + self.ms_per_row.get(strategy).copied().unwrap_or(0.0) * rows as f64;
        (ms * 1e6).round().max(0.0) as u64
    }

    /// Records the fit in `strategy`'s workload options.
    pub fn describe(&self, strategy: &str, options: &mut BTreeMap<String, String>) {
        options.insert(
            "timing".into(),
            format!(
                "calibrated on a real {}-row SQLite run ({} batches): ms = {:.6}·misses + {:.6}·pages written + {:.7}·WAL-index lookups + {:.7}·rows",
                self.rows,
                self.batches,
                self.ms_per_miss,
                self.ms_per_page_written,
                self.ms_per_wal_lookup,
                self.ms_per_row.get(strategy).copied().unwrap_or(0.0)
            ),
        );
        options.insert(
            "calibration_fit_error".into(),
            format!("{:.1}% (RMS relative, per batch)", self.fit_error * 100.0),
        );
    }

    /// Fits the costs to `samples`, non-negative (the best fit over every subset of the
    /// predictors whose costs all come out ≥ 0). Errors are weighted by 1/measured, so the fit
    /// minimises relative error: a fast key's 100 ms batches count as much as a random key's
    /// seconds-long ones.
    pub fn fit(samples: &[Sample], rows: u64) -> Result<Calibration, Error> {
        if samples.len() < 3 {
            return Err(Error::InvalidInput(
                "calibration needs at least 3 real batches: use a larger --calibrate-rows or a smaller --batch".into(),
            ));
        }
        let mut strategies: Vec<String> = samples.iter().map(|s| s.strategy.clone()).collect();
        strategies.sort();
        strategies.dedup();
        let xs: Vec<Vec<f64>> = samples.iter().map(|s| s.x(&strategies)).collect();
        let p = 3 + strategies.len();
        if p > 16 {
            return Err(Error::InvalidInput("calibrate at most 14 strategies at a time".into()));
        }
        let mut best: Option<(Vec<f64>, f64)> = None;
        for mask in 1u32..(1 << p) {
            let Some(coef) = least_squares(samples, &xs, mask) else { continue };
            if coef.iter().any(|&c| c < 0.0) {
                continue;
            }
            let sse: f64 = samples.iter().zip(&xs).map(|(s, x)| ((dot(&coef, x) - s.ms) * s.weight()).powi(2)).sum();
            if best.as_ref().is_none_or(|(_, b)| sse < *b) {
                best = Some((coef, sse));
            }
        }
        let (coef, _) = best.ok_or_else(|| Error::InvalidInput("calibration could not fit the real batches".into()))?;
        let rel: f64 = samples
            .iter()
            .zip(&xs)
            .filter(|(s, _)| s.ms > 0.0)
            .map(|(s, x)| ((dot(&coef, x) - s.ms) / s.ms).powi(2))
            .sum::<f64>()
            / samples.len() as f64;
        Ok(Calibration {
            ms_per_miss: coef[0],
            ms_per_page_written: coef[1],
            ms_per_wal_lookup: coef[2],
            ms_per_row: strategies.into_iter().zip(coef[3..].iter().copied()).collect(),
            fit_error: rel.sqrt(),
            batches: samples.len(),
            rows,
        })
    }
}

/// A miss × write interaction, after the WAL index: a page read first looks the page up in the
/// WAL's index, one hash table per 4096 frames, newest first (`walFindFrame` in wal.c), so a
/// miss costs more the more the open transaction has written. The transaction's frames are its
/// distinct pages (a rewritten page overwrites its frame), but on two real 10M-row runs the
/// term over pages written extrapolated from the first 1M rows better than one over frames
/// (−24%/−36% vs +90%/−36% for `uuid4`), so it stays an empirical term.
pub fn wal_lookups(misses: f64, pages_written: f64) -> f64 {
    misses * (1.0 + pages_written / 4096.0 / 2.0)
}

fn dot(a: &[f64], b: &[f64]) -> f64 {
    a.iter().zip(b).map(|(x, y)| x * y).sum()
}

/// Weighted least squares over the predictors selected by `mask` (bit i = predictor i);
/// the others are 0. `None` if the selected predictors are degenerate.
fn least_squares(samples: &[Sample], xs: &[Vec<f64>], mask: u32) -> Option<Vec<f64>> {
    let p = xs.first()?.len();
    let idx: Vec<usize> = (0..p).filter(|i| mask & (1 << i) != 0).collect();
    let n = idx.len();
    let mut a = vec![vec![0.0; n + 1]; n];
    for (s, x) in samples.iter().zip(xs) {
        let w = s.weight();
        for (r, &i) in idx.iter().enumerate() {
            for (c, &j) in idx.iter().enumerate() {
                a[r][c] += x[i] * w * x[j] * w;
            }
            a[r][n] += x[i] * w * s.ms * w;
        }
    }
    // Gaussian elimination with partial pivoting on the normal equations.
    for col in 0..n {
        let pivot = (col..n).max_by(|&p, &q| a[p][col].abs().total_cmp(&a[q][col].abs()))?;
        if a[pivot][col].abs() < 1e-12 {
            return None;
        }
        a.swap(col, pivot);
        for row in 0..n {
            if row != col {
                let f = a[row][col] / a[col][col];
                let pivot_row = a[col].clone();
                for (x, p) in a[row].iter_mut().zip(&pivot_row).skip(col) {
                    *x -= f * p;
                }
            }
        }
    }
    let mut coef = vec![0.0; p];
    for (r, &i) in idx.iter().enumerate() {
        coef[i] = a[r][n] / a[r][r];
    }
    Some(coef)
}

/// Samples from a real run's batches.
pub fn samples(runs: &[RunResult]) -> Vec<Sample> {
    runs.iter()
        .flat_map(|r| r.batches.iter().map(move |b| (r, b)))
        .map(|(r, b)| Sample {
            strategy: r.strategy.clone(),
            misses: b.counters.cache_misses.unwrap_or(0) as f64,
            pages_written: b.counters.pages_written.unwrap_or(0) as f64,
            rows: b.rows as f64,
            ms: b.elapsed_ns as f64 / 1e6,
        })
        .collect()
}

/// Fits a [`Calibration`] to an existing real run's batches of `strategies` that end within the
/// first `rows` rows (e.g. the first tenth of a long run, to predict the rest).
pub fn from_results(doc: &ResultsDoc, strategies: &[&Strategy], rows: u64) -> Result<Calibration, Error> {
    let runs: Vec<RunResult> = doc
        .runs
        .iter()
        .filter(|r| r.engine == EngineKind::Sqlite.name() && strategies.iter().any(|s| s.name == r.strategy))
        .map(|r| {
            let mut r = r.clone();
            r.batches.retain(|b| b.rows_total <= rows);
            r
        })
        .collect();
    for s in strategies {
        if !runs.iter().any(|r| r.strategy == s.name && !r.batches.is_empty()) {
            return Err(Error::InvalidInput(format!(
                "the calibration file has no SQLite batches of '{}' within its first {rows} rows: pass a results.json from pkbench run with that strategy",
                s.name
            )));
        }
    }
    Calibration::fit(&samples(&runs), rows)
}

/// Runs a real insert-growth of `workload`'s rows per strategy on `engine` (any engine, through
/// the [`Engine`] trait; `environment` describes where it runs) and fits a [`Calibration`] to its
/// batches. Returns the real results too (to save beside the prediction).
pub fn calibrate(
    strategies: &[&'static Strategy],
    engine: &mut dyn Engine,
    environment: Environment,
    workload: &InsertGrowth,
    control: &RunControl,
) -> Result<(Calibration, ResultsDoc), Error> {
    let timer = MonotonicTimer::default();
    // The fit needs every batch's counters (SQLite's cost microseconds to read).
    let ctx = CaseContext { control, timer: &timer, observer: &Silent, counter_budget: CounterBudget::Unlimited };
    let plan = RunPlan {
        workload,
        strategies: strategies.to_vec(),
        command: vec!["pkbench".into(), "predict".into(), "--calibrate".into()],
    };
    let outcome = run(&plan, engine, environment, None, &ctx)?;
    if let Some(e) = outcome.error {
        return Err(e);
    }
    let fit = Calibration::fit(&samples(&outcome.doc.runs), workload.rows())?;
    Ok((fit, outcome.doc))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sample(strategy: &str, m: f64, w: f64, r: f64, ms: f64) -> Sample {
        Sample { strategy: strategy.into(), misses: m, pages_written: w, rows: r, ms }
    }

    #[test]
    fn recovers_known_costs() {
        let samples: Vec<Sample> = (0..30)
            .map(|i| {
                let (m, w, r) = (f64::from(i * 37 % 11) * 100.0, f64::from(i * 13 % 7) * 150.0, 10_000.0);
                let (name, per_row) = if i % 2 == 0 { ("a", 0.001) } else { ("b", 0.003) };
                sample(name, m, w, r, 0.01 * m + 0.02 * w + per_row * r)
            })
            .collect();
        let c = Calibration::fit(&samples, 1).unwrap();
        assert!((c.ms_per_miss - 0.01).abs() < 1e-6, "{c:?}");
        assert!((c.ms_per_page_written - 0.02).abs() < 1e-6, "{c:?}");
        assert!((c.ms_per_row["a"] - 0.001).abs() < 1e-7, "{c:?}");
        assert!((c.ms_per_row["b"] - 0.003).abs() < 1e-7, "{c:?}");
        assert!(c.fit_error < 1e-6);
        let counters = Counters { cache_misses: Some(100), pages_written: Some(10), ..Counters::default() };
        assert_eq!(c.predict_ns("b", &counters, 1000), 4_200_000);
    }

    #[test]
    fn too_few_batches_is_an_error() {
        let s = sample("a", 1.0, 1.0, 1.0, 1.0);
        assert!(Calibration::fit(&[s.clone(), s], 1).is_err());
    }
}
