//! `--repeat N`: the same case run several times, each in a fresh database. For every figure a
//! run reports, the median over the repeats with a bootstrap 95% confidence interval, flagged
//! when the interval is too wide to rank strategies by it.

use super::stats::{MedianCi, bootstrap_median_ci, rate_per_sec};
use crate::results::{ResultsDoc, RunResult};

/// Interval width ÷ median above which a figure is flagged as too noisy to rank by.
pub const WIDE_SPREAD: f64 = 0.10;
/// Bootstrap resamples per figure.
const RESAMPLES: usize = 2_000;

/// One figure of one strategy over its repeats.
#[derive(Clone, Debug, PartialEq)]
pub struct RepeatedFigure {
    /// Engine name.
    pub engine: String,
    /// Strategy name.
    pub strategy: String,
    /// What was measured, unit in the name (`insert rows/s`, `point-select p50 ns`).
    pub figure: String,
    /// Runs the figure was found in.
    pub runs: usize,
    /// Median and 95% interval.
    pub ci: MedianCi,
    /// Whether the interval is wider than [`WIDE_SPREAD`] of the median.
    pub wide: bool,
}

/// The figures compared across repeats: insert rate, size, and each phase's rate and median
/// latency.
fn figures(run: &RunResult) -> Vec<(String, f64)> {
    let mut out = Vec::new();
    if let Some(r) = rate_per_sec(run.rows_inserted(), run.insert_ns()) {
        out.push(("insert rows/s".to_string(), r));
    }
    if let Some(size) = run.size_bytes {
        out.push(("size bytes".to_string(), size as f64));
    }
    for p in &run.phases {
        if let Some(r) = rate_per_sec(p.operations, p.elapsed_ns) {
            out.push((format!("{} ops/s", p.name), r));
        }
        if let Some(l) = p.latency {
            out.push((format!("{} p50 ns", p.name), l.p50_ns as f64));
        }
    }
    out
}

/// Every figure of every (engine, workload, strategy) that ran more than once, in run order.
pub fn repeated_figures(doc: &ResultsDoc) -> Vec<RepeatedFigure> {
    let mut groups: Vec<(&RunResult, Vec<&RunResult>)> = Vec::new();
    for run in doc.runs.iter().filter(|r| r.complete) {
        let same = |g: &&RunResult| g.engine == run.engine && g.workload == run.workload && g.strategy == run.strategy;
        match groups.iter_mut().find(|(first, _)| same(first)) {
            Some((_, runs)) => runs.push(run),
            None => groups.push((run, vec![run])),
        }
    }
    let mut out = Vec::new();
    for (first, runs) in groups.into_iter().filter(|(_, runs)| runs.len() > 1) {
        for (name, _) in figures(first) {
            let values: Vec<f64> =
                runs.iter().filter_map(|r| figures(r).into_iter().find(|(n, _)| *n == name).map(|(_, v)| v)).collect();
            let Some(ci) = bootstrap_median_ci(&values, 0.95, RESAMPLES, 0x5eed) else { continue };
            let wide = ci.relative_width().is_none_or(|w| w > WIDE_SPREAD);
            out.push(RepeatedFigure {
                engine: first.engine.clone(),
                strategy: first.strategy.clone(),
                figure: name,
                runs: values.len(),
                ci,
                wide,
            });
        }
    }
    out
}
