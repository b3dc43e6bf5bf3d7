//! `pkbench compare BASE NEW`: for each case both runs hold (engine × workload × strategy), how
//! its time per row changed, with a 95% bootstrap confidence interval and a verdict — faster,
//! slower, or no detectable change.
//!
//! The samples of a case are its repeats' times per row when it ran several times (`--repeat`),
//! else its batches' (insert batches) or its per-second intervals' (timed phases). Batches and
//! seconds of the same plan are paired — batch i against batch i, at the same table size — and
//! the change is the median of their ratios; repeats are independent, and the change is NEW's
//! median ÷ BASE's. Intervals are percentile bootstraps, seeded: the same inputs give the same
//! interval.

use crate::Error;
use crate::metrics::stats::{bootstrap_median_ci, median, quantile_sorted};
use crate::results::{ResultsDoc, RunResult};
use crate::util::pick::Pick;
use serde::Serialize;

/// Bootstrap resamples per case.
const RESAMPLES: usize = 2_000;
/// Fewest samples a side needs for an interval.
const MIN_SAMPLES: usize = 3;

/// One case's change.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct CaseChange {
    /// Engine name.
    pub engine: String,
    /// Workload name.
    pub workload: String,
    /// Strategy name.
    pub strategy: String,
    /// The figure compared: `ns per row`, or an engine counter per 1,000 rows
    /// (`cache_misses /1k rows`).
    pub figure: String,
    /// What the samples are (`repeats`, `batches`, `seconds`).
    pub samples_of: &'static str,
    /// Samples on each side.
    pub samples: (usize, usize),
    /// The figure's median on each side.
    pub base: f64,
    /// See [`CaseChange::base`].
    pub new: f64,
    /// Whether sample i of NEW was set against sample i of BASE (batches or seconds of the same
    /// plan), rather than the two medians against each other (repeats).
    pub paired: bool,
    /// NEW ÷ BASE time per row (the median of the paired ratios, or the ratio of the medians),
    /// and its 95% interval.
    pub ratio: f64,
    /// Lower bound.
    pub low: f64,
    /// Upper bound.
    pub high: f64,
    /// `faster`/`slower` (time), `lower`/`higher` (counters) or `no detectable change`.
    pub verdict: &'static str,
}

/// Every case's change, in BASE's order; a one-line error when the two runs do not hold the same
/// cases (naming the first missing and extra ones).
pub fn compare(base: &ResultsDoc, new: &ResultsDoc) -> Result<Vec<CaseChange>, Error> {
    let keys = |doc: &ResultsDoc| -> Vec<(String, String, String)> {
        let mut k: Vec<_> = doc.runs.iter().map(key).collect();
        k.dedup();
        k
    };
    let (bk, nk) = (keys(base), keys(new));
    let missing: Vec<String> = bk.iter().filter(|k| !nk.contains(k)).map(show).collect();
    let extra: Vec<String> = nk.iter().filter(|k| !bk.contains(k)).map(show).collect();
    if !missing.is_empty() || !extra.is_empty() {
        return Err(Error::InvalidInput(format!(
            "the two runs hold different cases (missing from NEW: {}; only in NEW: {}): compare runs of the same plan",
            list_or_none(&missing),
            list_or_none(&extra)
        )));
    }
    let mut out = Vec::new();
    for (i, k) in bk.iter().enumerate() {
        let runs =
            |doc: &ResultsDoc| doc.runs.iter().filter(|r| key(r) == *k && r.complete).cloned().collect::<Vec<_>>();
        let (base_runs, new_runs) = (runs(base), runs(new));
        for (f, figure) in figures(&base_runs).into_iter().enumerate() {
            let ((samples_of, b), (_, n)) = (samples(&base_runs, figure), samples(&new_runs, figure));
            if b.len() < MIN_SAMPLES || n.len() < MIN_SAMPLES {
                if figure == Figure::Time {
                    return Err(Error::InvalidInput(format!(
                        "{}: too few samples to compare ({} and {}; at least {MIN_SAMPLES} batches, seconds or repeats on each side)",
                        show(k),
                        b.len(),
                        n.len()
                    )));
                }
                continue;
            }
            let (bm, nm) = (median(&b).unwrap_or(0.0), median(&n).unwrap_or(0.0));
            if bm <= 0.0 {
                continue; // A counter that stayed at 0 has no ratio.
            }
            let seed = (i * 64 + f) as u64 + 1;
            // Batch i of one run against batch i of the other (same plan, same table size): the
            // growth of the table cancels out. Repeats are independent runs: unpaired.
            let paired = samples_of != "repeats" && b.len() == n.len();
            let (ratio, low, high) = if paired {
                let ratios: Vec<f64> = b.iter().zip(&n).filter(|(b, _)| **b > 0.0).map(|(b, n)| n / b).collect();
                match bootstrap_median_ci(&ratios, 0.95, RESAMPLES, seed) {
                    Some(ci) => (ci.median, ci.low, ci.high),
                    None => continue,
                }
            } else {
                let (low, high) = ratio_interval(&b, &n, 0.95, seed);
                (nm / bm, low, high)
            };
            let (up, down) = if figure == Figure::Time { ("slower", "faster") } else { ("higher", "lower") };
            let verdict = if low > 1.0 {
                up
            } else if high < 1.0 {
                down
            } else {
                "no detectable change"
            };
            out.push(CaseChange {
                engine: k.0.clone(),
                workload: k.1.clone(),
                strategy: k.2.clone(),
                figure: figure.name(),
                samples_of,
                samples: (b.len(), n.len()),
                base: bm,
                new: nm,
                paired,
                ratio,
                low,
                high,
                verdict,
            });
        }
    }
    Ok(out)
}

/// A figure compared between two runs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Figure {
    /// Time per row, ns.
    Time,
    /// An engine counter (a [`crate::results::Counters`] field) per 1,000 rows.
    Counter(&'static str),
}

impl Figure {
    fn name(self) -> String {
        match self {
            Figure::Time => "ns per row".into(),
            Figure::Counter(c) => format!("{c} /1k rows"),
        }
    }
}

/// Time per row, then every counter the runs report.
fn figures(runs: &[RunResult]) -> Vec<Figure> {
    let mut out = vec![Figure::Time];
    let reported = |name: &str| {
        runs.iter().any(|r| {
            r.batches.iter().any(|b| b.counters.get(name).is_some())
                || r.phases.iter().any(|p| p.counters.get(name).is_some())
        })
    };
    for (name, _) in crate::results::Counters::default().fields() {
        if reported(name) {
            out.push(Figure::Counter(name));
        }
    }
    out
}

/// The changes as a terminal table, or Markdown (e.g. for a pull-request comment).
pub fn render(changes: &[CaseChange], markdown: bool) -> String {
    let header: Vec<String> =
        ["engine", "workload", "strategy", "figure", "base → new", "change", "95% interval", "verdict", "samples"]
            .map(String::from)
            .to_vec();
    let rows: Vec<Vec<String>> = changes.iter().map(cells).collect();
    let mut out = if markdown {
        let mut out = String::new();
        crate::report::markdown::md_table(&mut out, &header, &rows);
        out
    } else {
        format!("{}\n", crate::report::table::table(header, rows, 4))
    };
    if changes.iter().any(|c| c.samples_of != "repeats") {
        out.push_str(WITHIN_RUN_NOTE);
        out.push('\n');
    }
    out
}

/// What an interval over one run's batches or seconds leaves out.
pub const WITHIN_RUN_NOTE: &str = "Intervals over the batches or seconds of one run on each side measure the noise within a run, not between runs (a busy machine moves whole runs by ±20%): for a verdict about a change in code or settings, compare runs made with --repeat N.";

/// The changes as JSON.
pub fn to_json(changes: &[CaseChange]) -> Result<String, Error> {
    serde_json::to_string_pretty(changes)
        .map(|s| s + "\n")
        .map_err(|e| Error::Json { context: "could not serialise the comparison".into(), cause: e })
}

/// `1.073` as `+7.3%`.
pub fn percent(ratio: f64) -> String {
    format!("{:+.1}%", (ratio - 1.0) * 100.0)
}

fn cells(c: &CaseChange) -> Vec<String> {
    vec![
        c.engine.clone(),
        c.workload.clone(),
        c.strategy.clone(),
        c.figure.clone(),
        format!("{} → {}", short(c.base), short(c.new)),
        percent(c.ratio),
        format!("{} … {}", percent(c.low), percent(c.high)),
        c.verdict.to_string(),
        format!("{} / {} {}", c.samples.0, c.samples.1, c.samples_of),
    ]
}

/// A figure's value, to three decimals below 100, else as a whole number.
fn short(v: f64) -> String {
    if v >= 100.0 {
        format!("{v:.0}")
    } else {
        format!("{v:.3}").trim_end_matches('0').trim_end_matches('.').to_string()
    }
}

/// The cases slower than `threshold` (e.g. 0.05) beyond doubt: their interval's lower bound is
/// above 1 + `threshold`.
pub fn regressions(changes: &[CaseChange], threshold: f64) -> Vec<&CaseChange> {
    changes.iter().filter(|c| c.figure == "ns per row" && c.low > 1.0 + threshold).collect()
}

fn key(run: &RunResult) -> (String, String, String) {
    (run.engine.clone(), run.workload.clone(), run.strategy.clone())
}

fn show(k: &(String, String, String)) -> String {
    format!("{} {} {}", k.0, k.1, k.2)
}

fn list_or_none(items: &[String]) -> String {
    if items.is_empty() { "none".into() } else { items.join(", ") }
}

/// One value of `figure` per sample: per repeat when the case ran several times, else per batch
/// (counters: the batches read on their own), else per second of its first timed phase.
fn samples(runs: &[RunResult], figure: Figure) -> (&'static str, Vec<f64>) {
    let per_row = |ns: u64, rows: u64| (rows > 0).then(|| ns as f64 / rows as f64);
    let per_1k = |v: Option<u64>, rows: u64| Some(v? as f64 * 1000.0 / (rows > 0).then_some(rows)? as f64);
    if runs.len() > 1 {
        let v = runs.iter().filter_map(|r| match figure {
            Figure::Time if !r.batches.is_empty() => per_row(r.insert_ns(), r.rows_inserted()),
            Figure::Time => r.phases.first().and_then(|p| per_row(p.elapsed_ns, p.rows)),
            Figure::Counter(c) => r.counter_with_rows(c).and_then(|(v, rows)| per_1k(Some(v), rows)),
        });
        return ("repeats", v.collect());
    }
    let Some(run) = runs.first() else { return ("batches", Vec::new()) };
    if !run.batches.is_empty() {
        let v = run.batches.iter().filter_map(|b| match figure {
            Figure::Time => per_row(b.elapsed_ns, b.rows),
            Figure::Counter(c) if b.counters_span == 1 => per_1k(b.counters.get(c), b.rows),
            Figure::Counter(_) => None,
        });
        return ("batches", v.collect());
    }
    let intervals = run.phases.iter().find(|p| !p.intervals.is_empty()).map(|p| p.intervals.as_slice()).unwrap_or(&[]);
    let v = intervals.iter().filter_map(|i| match figure {
        Figure::Time => per_row(i.elapsed_ns, i.operations),
        Figure::Counter(c) => per_1k(i.counters.get(c), i.operations),
    });
    ("seconds", v.collect())
}

/// The `level` percentile-bootstrap interval of median(`new`) ÷ median(`base`), each side
/// resampled with replacement from a SplitMix64 stream seeded with `seed`.
fn ratio_interval(base: &[f64], new: &[f64], level: f64, seed: u64) -> (f64, f64) {
    let mut pick = Pick(seed.wrapping_mul(0x9e37_79b9_7f4a_7c15));
    let mut resample = |values: &[f64], buf: &mut Vec<f64>| {
        buf.clear();
        buf.extend((0..values.len()).map(|_| values[pick.below(values.len())]));
        buf.sort_by(f64::total_cmp);
        quantile_sorted(buf, 0.5).unwrap_or(0.0)
    };
    let (mut b, mut n) = (Vec::new(), Vec::new());
    let mut ratios: Vec<f64> = (0..RESAMPLES)
        .filter_map(|_| {
            let bm = resample(base, &mut b);
            let nm = resample(new, &mut n);
            (bm > 0.0).then(|| nm / bm)
        })
        .collect();
    ratios.sort_by(f64::total_cmp);
    let tail = (1.0 - level) / 2.0;
    (quantile_sorted(&ratios, tail).unwrap_or(f64::NAN), quantile_sorted(&ratios, 1.0 - tail).unwrap_or(f64::NAN))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn noisy(center: f64, n: usize) -> Vec<f64> {
        (0..n).map(|i| center * (1.0 + 0.02 * ((i * 7 % 11) as f64 / 5.0 - 1.0))).collect()
    }

    /// A one-strategy run whose 20 batches take `base_ns` × `scale` × seeded noise (±10%, and a
    /// table that slows as it grows).
    fn synthetic(seed: u64, scale: f64) -> ResultsDoc {
        let mut pick = Pick(seed);
        let batches: Vec<serde_json::Value> = (0..20u64)
            .map(|i| {
                let noise = 0.9 + 0.2 * (pick.below(1_000_000) as f64 / 1e6);
                let ns = (1e6 * (1.0 + i as f64 * 0.1) * noise * scale) as u64;
                let misses = (500.0 * (1.0 + i as f64 * 0.05) * (0.9 + 0.2 * (pick.below(1_000_000) as f64 / 1e6))) as u64;
                let counters = serde_json::json!({"cache_misses": misses});
                serde_json::json!({"index": i, "rows": 1000, "rows_total": (i + 1) * 1000, "elapsed_ns": ns, "keygen_ns": 0, "counters": counters})
            })
            .collect();
        serde_json::from_value(serde_json::json!({
            "schema_version": 1, "command": [], "started_at": "",
            "environment": {"pkbench_version": "t", "engine": "sqlite", "engine_version": "3", "os": "t", "kernel": "t",
                "cpu_model": "t", "cpu_cores": 2, "memory_bytes": 1, "data_filesystem": null},
            "runs": [{"engine": "sqlite", "engine_version": "3", "workload": "insert-growth", "strategy": "uuid4",
                "strategy_description": "", "settings": {"rows": 20000, "batch_rows": 1000, "payload_bytes": 50, "seed": 0,
                "key_clock": "", "insert_path": "", "engine": {}}, "batches": batches, "verified_rows": 20000,
                "size_bytes": null, "btrees": [], "kept_database": null, "complete": true, "error": null}]
        }))
        .unwrap()
    }

    #[test]
    fn identical_code_shows_no_change_in_19_of_20_trials_and_a_30_percent_slowdown_always_shows() {
        let verdict = |base_seed, new_seed, scale| {
            compare(&synthetic(base_seed, 1.0), &synthetic(new_seed, scale)).unwrap()[0].verdict
        };
        // Every figure (time per row and cache misses per 1k rows) of identical code.
        let quiet = (0..20)
            .filter(|t| {
                let changes = compare(&synthetic(2 * t + 1, 1.0), &synthetic(2 * t + 2, 1.0)).unwrap();
                assert_eq!(changes.len(), 2, "{changes:?}");
                changes.iter().all(|c| c.verdict == "no detectable change")
            })
            .count();
        assert!(quiet >= 19, "identical code: no detectable change in every figure in only {quiet} of 20 trials");
        let caught = (0..20).filter(|t| verdict(2 * t + 1, 2 * t + 2, 1.3) == "slower").count();
        assert_eq!(caught, 20, "a 30% slowdown was missed");
        let changes = compare(&synthetic(1, 1.0), &synthetic(2, 1.3)).unwrap();
        assert_eq!(regressions(&changes, 0.05).len(), 1, "--fail-above 5% fails it");
        assert!(regressions(&changes, 0.50).is_empty(), "--fail-above 50% does not");
    }

    #[test]
    fn a_real_shift_is_detected_and_no_shift_is_not() {
        let base = noisy(1000.0, 30);
        let (low, high) = ratio_interval(&base, &noisy(1100.0, 30), 0.95, 1);
        assert!(low > 1.05 && high < 1.15, "a 10% slowdown: [{low}, {high}]");
        let (low, high) = ratio_interval(&base, &noisy(1000.0, 30), 0.95, 1);
        assert!(low < 1.0 && high > 1.0, "the same distribution: [{low}, {high}]");
        assert_eq!(ratio_interval(&base, &base, 0.95, 7), ratio_interval(&base, &base, 0.95, 7), "seeded");
    }
}
