//! `pkbench predict --check`: the prediction held against a real run of the same settings,
//! batch by batch — time (with whether the interval covered it) and two counts its time depends
//! on that the real run counts too (misses and pages written; on an LSM tree bloom filters
//! checked and bytes compacted, the compactions' own, which the time prices over the rows they
//! run beside) — and the size and leaf pages at the end. Each batch carries the machine's speed when it ran
//! ([`canary`]), so batches measured while the machine ran faster or slower than during the
//! calibration are counted apart — and still shown and counted.

use super::{ModelEngine, canary};
use crate::Error;
use crate::report::fmt;
use crate::results::{BatchResult, Counters, LsmLevel, ResultsDoc, RunResult};
use crate::strategy::Strategy;
use comfy_table::{CellAlignment, ContentArrangement, Table, presets::UTF8_FULL_CONDENSED};

/// Most batch lines per strategy in the table (evenly spaced, always with the last).
const MAX_LINES: usize = 12;
/// The done-when bound of issue 16 for SQLite: a batch within 25% counts as "within".
pub const WITHIN: f64 = 0.25;
/// The same for the servers, whose batches are noisier: 30%.
pub const WITHIN_SERVER: f64 = 0.30;

/// The bound a batch of `engine` is held to.
pub fn within(engine: ModelEngine) -> f64 {
    if engine == ModelEngine::Sqlite { WITHIN } else { WITHIN_SERVER }
}

/// One batch, predicted against measured.
#[derive(Clone, Debug, PartialEq)]
pub struct BatchCheck {
    /// Strategy.
    pub strategy: String,
    /// Batch number.
    pub index: u64,
    /// Rows after the batch.
    pub rows_total: u64,
    /// Predicted and measured ms.
    pub ms: (f64, f64),
    /// The error counted as within ([`within`]).
    pub bound: f64,
    /// The prediction interval, ms, if calibrated.
    pub interval: Option<(f64, f64)>,
    /// The two counts of [`Counted`], predicted and measured.
    pub counts: [(Option<u64>, Option<u64>); 2],
    /// How much slower the machine ran around the real batch than during the calibration
    /// ([`canary::slowdown`]; negative: faster), if both were timed.
    pub machine: Option<f64>,
}

impl BatchCheck {
    /// (predicted − measured) / measured time.
    pub fn error(&self) -> f64 {
        if self.ms.1 > 0.0 { self.ms.0 / self.ms.1 - 1.0 } else { f64::NAN }
    }

    /// Whether the interval holds the measured time.
    pub fn covered(&self) -> Option<bool> {
        self.interval.map(|(lo, hi)| lo <= self.ms.1 && self.ms.1 <= hi)
    }

    /// Whether the machine's speed around the real batch was more than [`canary::OFF`] off
    /// the calibration's, slower or faster.
    pub fn machine_off(&self) -> bool {
        self.machine.is_some_and(|m| m.abs() > canary::OFF)
    }
}

/// A count shown beside each batch's time: its column's name and where it is in the counters.
pub type Counted = (&'static str, fn(&Counters) -> Option<u64>);

/// The two counts a check shows for a forecast of `model` (its engine name): the cache misses
/// and pages written of a B-tree, the bloom filters checked and bytes compacted of an LSM tree.
pub fn counted(model: &str) -> [Counted; 2] {
    if model == super::lsm::ENGINE {
        [
            ("filters checked pred. / real", |c| c.bloom_checks),
            ("bytes compacted pred. / real", |c| {
                c.compaction_read_bytes.zip(c.compaction_write_bytes).map(|(r, w)| r + w)
            }),
        ]
    } else {
        [("misses pred. / real", |c| c.cache_misses), ("pages written pred. / real", |c| c.pages_written)]
    }
}

/// Whether [`compare`] will find a batch of `real` to hold a forecast of `strategies` against:
/// a run of one of them whose batch ends where the forecast's does (`batch_rows` a batch, up to
/// `rows`). Read before anything is forecast.
pub fn comparable(real: &ResultsDoc, strategies: &[&Strategy], batch_rows: u64, rows: u64) -> Result<(), Error> {
    let batches = rows.div_ceil(batch_rows.max(1));
    let found = real.runs.iter().filter(|r| strategies.iter().any(|s| s.name == r.strategy)).any(|r| {
        r.batches
            .iter()
            .take(usize::try_from(batches).unwrap_or(usize::MAX))
            .zip(1u64..)
            .any(|(b, i)| b.rows_total == i.saturating_mul(batch_rows).min(rows))
    });
    if found { Ok(()) } else { Err(no_batches_like()) }
}

/// The error of a real run with nothing to compare a forecast with.
pub fn no_batches_like() -> Error {
    Error::InvalidInput(
        "the real run has no batches like the prediction's: check against a run with the same --batch and strategies"
            .into(),
    )
}

/// Pairs each predicted batch with the real batch of the same strategy and number, each held
/// to `bound` ([`within`]). The machine's speed is set against `baseline_ns`, the calibration's
/// median canary ([`canary::MachineSpeed`]); without a calibration's, it is not set.
pub fn compare(predicted: &ResultsDoc, real: &ResultsDoc, baseline_ns: Option<u64>, bound: f64) -> Vec<BatchCheck> {
    let mut out = Vec::new();
    for p in &predicted.runs {
        let Some(r) = real.runs.iter().find(|r| r.strategy == p.strategy) else { continue };
        let counted = counted(&p.engine);
        for (i, (pb, rb)) in p.batches.iter().zip(&r.batches).enumerate() {
            if pb.rows_total == rb.rows_total {
                let machine = baseline_ns.and_then(|b| canary::slowdown(&r.batches, i, b));
                out.push(batch(&p.strategy, (pb, rb), bound, machine, &counted));
            }
        }
    }
    out
}

fn batch(
    strategy: &str,
    (p, r): (&BatchResult, &BatchResult),
    bound: f64,
    machine: Option<f64>,
    counted: &[Counted; 2],
) -> BatchCheck {
    let ms = |ns: u64| ns as f64 / 1e6;
    BatchCheck {
        strategy: strategy.to_string(),
        index: p.index,
        rows_total: p.rows_total,
        ms: (ms(p.elapsed_ns), ms(r.elapsed_ns)),
        bound,
        interval: p.elapsed_ns_low.zip(p.elapsed_ns_high).map(|(lo, hi)| (ms(lo), ms(hi))),
        counts: counted.map(|(_, count)| (count(&p.counters), count(&r.counters))),
        machine,
    }
}

/// Per strategy over its last half of batches: batches within their bound, intervals that
/// covered, and the worst error; then, if some of them ran while the machine's speed was off
/// the calibration's ([`BatchCheck::machine_off`]), the same for the others.
pub fn summary(checks: &[BatchCheck]) -> Vec<String> {
    let mut names: Vec<&str> = checks.iter().map(|c| c.strategy.as_str()).collect();
    names.dedup();
    let mut lines = Vec::new();
    for name in names {
        let all: Vec<&BatchCheck> = checks.iter().filter(|c| c.strategy == name).collect();
        let late = &all[all.len() / 2..];
        let (total_p, total_r) = late.iter().fold((0.0, 0.0), |(p, r), c| (p + c.ms.0, r + c.ms.1));
        lines.push(format!(
            "{name}, last {}: {}, total {:.1} s predicted vs {:.1} s measured ({:+.0}%)",
            crate::util::text::count(late.len(), "batch"),
            tally(late),
            total_p / 1e3,
            total_r / 1e3,
            (total_p / total_r - 1.0) * 100.0
        ));
        let steady: Vec<&BatchCheck> = late.iter().copied().filter(|c| !c.machine_off()).collect();
        if steady.len() < late.len() {
            let off = late.iter().filter_map(|c| c.machine.filter(|_| c.machine_off()));
            let (lo, hi) = off.fold((f64::MAX, f64::MIN), |(lo, hi), m| (lo.min(m), hi.max(m)));
            let range = if hi - lo < 0.005 {
                format!("{:+.0}%", hi * 100.0)
            } else {
                format!("{:+.0}% to {:+.0}%", lo * 100.0, hi * 100.0)
            };
            lines.push(format!(
                "  {} of them ran with the machine {range} off its speed in the calibration (canary; +: slower); the other {}: {}",
                late.len() - steady.len(),
                steady.len(),
                if steady.is_empty() { "none".into() } else { tally(&steady) }
            ));
        }
    }
    lines
}

/// "N within 25%, M inside the interval, worst ±E%".
fn tally(checks: &[&BatchCheck]) -> String {
    let within = checks.iter().filter(|c| c.error().abs() <= c.bound).count();
    let covered = checks.iter().filter(|c| c.covered() == Some(true)).count();
    let worst = checks.iter().map(|c| c.error()).fold(0.0_f64, |w, e| if e.abs() > w.abs() { e } else { w });
    let bound = checks.first().map_or(WITHIN, |c| c.bound);
    format!("{within} within {:.0}%, {covered} inside the interval, worst {:+.0}%", bound * 100.0, worst * 100.0)
}

fn ratio(p: Option<u64>, r: Option<u64>) -> String {
    match (p, r) {
        (Some(p), Some(r)) if r > 0 => format!("{p} / {r} ({:+.0}%)", (p as f64 / r as f64 - 1.0) * 100.0),
        (Some(p), Some(r)) => format!("{p} / {r}"),
        _ => "—".into(),
    }
}

/// One strategy's size at the end, predicted against measured (each at its own rows, when a
/// check ran fewer than the forecast), and its leaf pages (an LSM tree's sorted files have none).
fn sizes(p: &RunResult, r: &RunResult) -> String {
    let lsm = p.engine == super::lsm::ENGINE;
    let predicted = match lsm {
        true => p.size_bytes,
        false => p.size_bytes.map(|s| s + p.wal_size_bytes.unwrap_or(0)),
    };
    let (p_rows, r_rows) = (p.rows_inserted(), r.rows_inserted());
    let at = |rows: u64| match p_rows == r_rows {
        true => String::new(),
        false => format!(" at {rows} rows"),
    };
    let what = if lsm { "size in sorted files" } else { "size with the WAL" };
    let mut line = format!(
        "{}: {what} {} predicted{} vs {} measured{}",
        p.strategy,
        fmt::mib(predicted),
        at(p_rows),
        fmt::mib(r.size_bytes),
        at(r_rows)
    );
    if !lsm {
        line.push_str(&format!("; leaf pages {}", ratio(leaves(p), leaves(r))));
    }
    if let Some(levels) = level_sizes(p, r) {
        line.push_str(&format!("; {levels}"));
    }
    line.push('\n');
    line
}

/// An LSM tree's level sizes at the real run's last batch that read them, predicted / measured:
/// `levels at 1000000 rows, MiB pred. / real: L0 60.0 / 58.1 (+3%), L1 240.0 / 251.7 (-5%)`.
fn level_sizes(p: &RunResult, r: &RunResult) -> Option<String> {
    let (real, at) = r.batches.iter().rev().find_map(|b| b.lsm_levels.as_ref().map(|l| (l, b.rows_total)))?;
    let predicted = p.batches.iter().find(|b| b.rows_total == at)?.lsm_levels.as_ref()?;
    let mut names: Vec<&str> = real.iter().chain(predicted).map(|l| l.level.as_str()).collect();
    names.sort_by_key(|n| LsmLevel::order(n));
    names.dedup();
    let mib = |levels: &[LsmLevel], name: &str| {
        levels.iter().find(|l| l.level == name).map_or(0.0, |l| l.size_bytes as f64 / 1048576.0)
    };
    let parts: Vec<String> = names
        .iter()
        .map(|name| {
            let (pm, rm) = (mib(predicted, name), mib(real, name));
            let change = if rm > 0.0 { format!(" ({:+.0}%)", (pm / rm - 1.0) * 100.0) } else { String::new() };
            format!("{name} {pm:.1} / {rm:.1}{change}")
        })
        .collect();
    Some(format!("levels at {at} rows, MiB pred. / real: {}", parts.join(", ")))
}

/// The comparison table: a line per shown batch, then each strategy's size and leaf pages at
/// the end, then [`summary`].
pub fn render(checks: &[BatchCheck], predicted: &ResultsDoc, real: &ResultsDoc) -> String {
    let [first, second] = counted(predicted.runs.first().map_or("", |r| r.engine.as_str())).map(|(name, _)| name);
    let mut t = Table::new();
    t.load_style(UTF8_FULL_CONDENSED).force_no_tty().set_content_arrangement(ContentArrangement::Disabled).set_header(
        [
            "strategy",
            "batch",
            "rows",
            "ms predicted",
            "90% interval",
            "ms measured",
            "error",
            "covered",
            "machine slowdown",
            first,
            second,
        ]
        .map(String::from)
        .to_vec(),
    );
    let mut names: Vec<&str> = checks.iter().map(|c| c.strategy.as_str()).collect();
    names.dedup();
    for name in names {
        let all: Vec<&BatchCheck> = checks.iter().filter(|c| c.strategy == name).collect();
        let step = all.len().div_ceil(MAX_LINES).max(1);
        let shown = all.iter().enumerate().filter(|(i, _)| (i + 1) % step == 0 || i + 1 == all.len());
        for c in shown.map(|(_, c)| c) {
            t.add_row(vec![
                c.strategy.clone(),
                c.index.to_string(),
                c.rows_total.to_string(),
                fmt::ms(Some(c.ms.0)),
                c.interval.map_or("—".into(), |(lo, hi)| format!("{}–{}", fmt::ms(Some(lo)), fmt::ms(Some(hi)))),
                fmt::ms(Some(c.ms.1)),
                format!("{:+.0}%", c.error() * 100.0),
                c.covered().map_or("—", |y| if y { "yes" } else { "no" }).to_string(),
                c.machine.map_or("—".into(), |m| format!("{:+.0}%", m * 100.0)),
                ratio(c.counts[0].0, c.counts[0].1),
                ratio(c.counts[1].0, c.counts[1].1),
            ]);
        }
    }
    for i in 1..t.column_count() {
        if let Some(c) = t.column_mut(i) {
            c.set_cell_alignment(CellAlignment::Right);
        }
    }
    let mut out = t.to_string();
    out.push('\n');
    for p in &predicted.runs {
        if let Some(r) = real.runs.iter().find(|r| r.strategy == p.strategy) {
            out.push_str(&sizes(p, r));
        }
    }
    for line in summary(checks) {
        out.push_str(&line);
        out.push('\n');
    }
    out
}

fn leaves(r: &RunResult) -> Option<u64> {
    (!r.btrees.is_empty()).then(|| r.btrees.iter().map(|b| b.leaf_pages).sum())
}

#[cfg(test)]
mod tests {
    /// A run of `levels` at each batch's end: (rows so far, [(level, MiB)]).
    fn with_levels(engine: &str, batches: &[(u64, &[(&str, u64)])]) -> RunResult {
        let mut run: RunResult = serde_json::from_value(serde_json::json!({
            "engine": engine, "engine_version": "0", "workload": "insert-growth", "strategy": "uuid4",
            "strategy_description": "", "settings": { "rows": 0, "batch_rows": 0, "payload_bytes": 0, "seed": 0,
            "key_clock": "", "insert_path": "", "engine": {} }, "batches": [], "verified_rows": null,
            "size_bytes": null, "btrees": [], "kept_database": null, "complete": true, "error": null
        }))
        .unwrap();
        for &(rows_total, levels) in batches {
            let mut b: BatchResult = serde_json::from_value(serde_json::json!({
                "index": 0, "rows": 1, "rows_total": rows_total, "elapsed_ns": 1, "keygen_ns": 0, "counters": {}
            }))
            .unwrap();
            let level = |&(name, mib): &(&str, u64)| LsmLevel {
                level: name.into(),
                files: 1,
                size_bytes: mib << 20,
                score: 0.0,
            };
            b.lsm_levels = Some(levels.iter().map(level).collect());
            run.batches.push(b);
        }
        run
    }

    #[test]
    fn level_sizes_are_held_at_the_real_runs_last_levels() {
        let model = with_levels(super::super::lsm::ENGINE, &[(100, &[("L0", 10)]), (200, &[("L0", 20), ("L1", 60)])]);
        let real = with_levels("myrocks", &[(100, &[("L0", 8)]), (200, &[("L0", 25), ("L1", 50)])]);
        let line = level_sizes(&model, &real).unwrap();
        assert_eq!(line, "levels at 200 rows, MiB pred. / real: L0 20.0 / 25.0 (-20%), L1 60.0 / 50.0 (+20%)");
        // A real run of fewer rows is held against the forecast's batch at its rows.
        let short = with_levels("myrocks", &[(100, &[("L0", 8), ("L1", 1)])]);
        let line = level_sizes(&model, &short).unwrap();
        assert_eq!(line, "levels at 100 rows, MiB pred. / real: L0 10.0 / 8.0 (+25%), L1 0.0 / 1.0 (-100%)");
    }

    use super::*;

    fn check(ms: (f64, f64), machine: Option<f64>) -> BatchCheck {
        BatchCheck {
            strategy: "uuid4".into(),
            index: 0,
            rows_total: 0,
            ms,
            bound: WITHIN,
            interval: Some((ms.0 * 0.9, ms.0 * 1.1)),
            counts: [(None, None); 2],
            machine,
        }
    }

    #[test]
    fn batches_measured_on_a_slow_machine_are_counted_apart_and_still_counted() {
        let checks = [
            check((10.0, 10.0), Some(0.0)),
            check((10.0, 10.0), Some(0.0)),
            check((10.0, 10.0), Some(0.02)),
            check((10.0, 15.0), Some(0.40)),
            check((10.0, 10.5), Some(-0.05)),
            check((10.0, 7.0), Some(-0.30)),
        ];
        let lines = summary(&checks);
        assert_eq!(lines.len(), 2, "{lines:?}");
        assert!(lines[0].contains("last 3 batches: 1 within 25%, 1 inside the interval, worst +43%"), "{}", lines[0]);
        assert!(lines[1].contains("2 of them ran with the machine -30% to +40% off its speed"), "{}", lines[1]);
        assert!(lines[1].contains("the other 1: 1 within 25%, 1 inside the interval, worst -5%"), "{}", lines[1]);
    }

    #[test]
    fn a_steady_machine_adds_no_line() {
        let checks = [check((10.0, 11.0), Some(0.1)), check((10.0, 11.0), None)];
        assert_eq!(summary(&checks).len(), 1);
    }

    #[test]
    fn the_machine_is_set_against_the_calibration_s_median_and_nothing_else() {
        let doc: ResultsDoc = serde_json::from_str(include_str!("../../tests/fixtures/sqlite-small.json")).unwrap();
        let mut real = doc.clone();
        for b in &mut real.runs[0].batches {
            b.machine_ns = Some(1_200);
        }
        let checks = compare(&doc, &real, Some(1_000), within(ModelEngine::Postgres));
        let int: Vec<&BatchCheck> = checks.iter().filter(|c| c.strategy == "int").collect();
        assert!(int.iter().all(|c| (c.machine.unwrap() - 0.2).abs() < 1e-9 && c.machine_off()));
        assert!(checks.iter().filter(|c| c.strategy == "uuid4").all(|c| c.machine.is_none()));
        assert!(checks.iter().all(|c| c.bound == WITHIN_SERVER));
        assert_eq!(within(ModelEngine::Sqlite), WITHIN);
        // Without the calibration's canary there is nothing to set it against.
        assert!(compare(&doc, &real, None, WITHIN).iter().all(|c| c.machine.is_none()));
    }

    fn run(engine: &str, rows_total: u64, size_bytes: u64) -> RunResult {
        serde_json::from_value(serde_json::json!({
            "engine": engine, "engine_version": "0", "workload": "insert-growth", "strategy": "uuid4",
            "strategy_description": "", "settings": { "rows": 0, "batch_rows": 0, "payload_bytes": 0, "seed": 0,
            "key_clock": "", "insert_path": "", "engine": {} },
            "batches": [{ "index": 0, "rows": rows_total, "rows_total": rows_total, "elapsed_ns": 1, "keygen_ns": 0,
                "counters": {} }],
            "verified_rows": rows_total, "size_bytes": size_bytes, "btrees": [],
            "kept_database": null, "complete": true, "error": null
        }))
        .unwrap()
    }

    #[test]
    fn sizes_say_at_which_rows_each_was_taken_and_an_lsm_tree_has_no_leaf_pages() {
        let line = sizes(&run(super::super::lsm::ENGINE, 1_000_000, 8 << 20), &run("myrocks", 400_000, 4 << 20));
        assert_eq!(
            line,
            "uuid4: size in sorted files 8.0 MiB predicted at 1000000 rows vs 4.0 MiB measured at 400000 rows\n"
        );
        let line = sizes(&run("sqlite-model", 1000, 1 << 20), &run("sqlite", 1000, 1 << 20));
        assert_eq!(line, "uuid4: size with the WAL 1.0 MiB predicted vs 1.0 MiB measured; leaf pages —\n");
    }
}
