//! The summary and B-tree tables as plain rows of cells, shared by the terminal and Markdown
//! exporters.

use super::engine_settings::ReadableSetting;
use super::fmt;
use crate::metrics::{StrategySummary, stats, summarize};
use crate::results::{ResultsDoc, RunResult};

/// A counter column: its title and how to read it from a summary.
type CounterColumn = (&'static str, fn(&StrategySummary) -> Option<f64>);

/// The counters that explain a result, per row or per 1,000 rows.
const COUNTER_COLUMNS: [CounterColumn; 9] = [
    ("cache misses /1k rows", |s| s.cache_misses_per_1k),
    ("pages written /1k rows", |s| s.pages_written_per_1k),
    ("WAL bytes /row", |s| s.wal_bytes_per_row),
    ("full-page images /1k rows", |s| s.wal_fpi_per_1k),
    ("page splits /1k rows", |s| s.page_splits_per_1k),
    ("index blocks touched /1k rows", |s| s.index_blocks_touched_per_1k),
    ("write amplification", |s| s.write_amplification),
    ("compaction bytes written /row", |s| s.compaction_write_bytes_per_row),
    ("keys read /1k rows", |s| s.keys_read_per_1k),
];

/// Width of the batch-time sparkline.
const TREND_WIDTH: usize = 20;

/// The strategy the summary's `vs` column divides by (`int` if it ran, else the fastest per row).
pub fn baseline(doc: &ResultsDoc) -> Option<String> {
    summarize(doc).baseline
}

/// Header and rows of the per-strategy summary.
pub fn summary(doc: &ResultsDoc) -> (Vec<String>, Vec<Vec<String>>) {
    let summary = summarize(doc);
    let baseline = summary.baseline.clone().unwrap_or_else(|| "–".into());
    let mut header: Vec<String> = [
        "strategy",
        "first batch ms",
        "last batch ms",
        "last/first",
        "batch ms trend",
        &format!("vs {baseline}"),
        "rows/s",
        "size",
    ]
    .map(String::from)
    .to_vec();
    // An LSM engine's size once compacted, beside the size the run left.
    let compacted = doc.runs.iter().any(|r| r.compacted_size_bytes.is_some());
    if compacted {
        header.push("size compacted".into());
    }
    // Counter columns appear only when some run has the counter (engines report different ones).
    let counters: Vec<&CounterColumn> =
        COUNTER_COLUMNS.iter().filter(|(_, get)| summary.rows.iter().any(|s| get(s).is_some())).collect();
    header.extend(counters.iter().map(|(title, _)| title.to_string()));
    // One scale for every sparkline, so a flat line and a cliff look like what they are.
    let max_ms = doc.runs.iter().flat_map(|r| &r.batches).map(|b| b.elapsed_ns as f64 / 1e6).fold(0.0, f64::max);
    let rows = summary
        .rows
        .iter()
        .zip(&doc.runs)
        .map(|(s, run)| {
            let batch_ms: Vec<f64> = run.batches.iter().map(|b| b.elapsed_ns as f64 / 1e6).collect();
            let name = if s.complete { s.strategy.clone() } else { format!("{} (incomplete)", s.strategy) };
            let mut cells = vec![
                name,
                fmt::ms(s.first_batch_ms),
                fmt::ms(s.last_batch_ms),
                fmt::times(s.growth),
                fmt::sparkline(&batch_ms, max_ms, TREND_WIDTH),
                fmt::times(s.slowdown),
                fmt::rate(s.rows_per_sec),
                fmt::size_with_wal(s.size_bytes, s.wal_size_bytes),
            ];
            if compacted {
                cells.push(fmt::mib(run.compacted_size_bytes));
            }
            cells.extend(counters.iter().map(|(_, get)| fmt::per_1k(get(s))));
            cells
        })
        .collect();
    (header, rows)
}

/// Header and rows of the per-B-tree state after each run (with the key's share of each tree
/// where the run knows it, and its cache misses per 1,000 rows where the engine counts them per
/// tree: `run --schema`).
pub fn btrees(doc: &ResultsDoc) -> (Vec<String>, Vec<Vec<String>>) {
    let mut header = ["strategy", "b-tree", "kind", "pages", "leaf pages", "leaf fill", "leaves out of order", "size"]
        .map(String::from)
        .to_vec();
    let shares = doc.runs.iter().flat_map(|r| &r.btrees).any(|b| b.key_share.is_some());
    if shares {
        header.push("key's share".into());
    }
    let misses = doc.runs.iter().flat_map(|r| &r.btrees).any(|b| b.misses_per_1k_rows.is_some());
    if misses {
        header.push("cache misses /1k rows".into());
    }
    let touched = doc.runs.iter().flat_map(|r| &r.btrees).any(|b| b.index_blocks_touched_per_1k_rows.is_some());
    if touched {
        header.push("pages touched /1k rows".into());
    }
    let rows = doc
        .runs
        .iter()
        .flat_map(|run| {
            run.btrees.iter().map(move |b| {
                let mut cells = vec![
                    run.strategy.clone(),
                    b.name.clone(),
                    b.kind.clone(),
                    b.pages.to_string(),
                    b.leaf_pages.to_string(),
                    fmt::percent(b.leaf_fill),
                    fmt::percent(b.leaf_out_of_order),
                    fmt::mib(Some(b.size_bytes)),
                ];
                if shares {
                    cells.push(b.key_share.map_or("–".into(), fmt::percent));
                }
                if misses {
                    cells.push(fmt::per_1k(b.misses_per_1k_rows));
                }
                if touched {
                    cells.push(fmt::per_1k(b.index_blocks_touched_per_1k_rows));
                }
                cells
            })
        })
        .collect();
    (header, rows)
}

/// For `run --schema` results: the key table's secondary indexes per strategy, against the
/// first strategy, and what the engine's index entries carry of the key; `None` otherwise.
pub fn btree_note(doc: &ResultsDoc) -> Option<String> {
    let first = doc.runs.iter().find(|r| r.workload == "schema")?;
    let key_table = first.settings.workload_options.get("key_table")?;
    let engine = crate::engines::EngineKind::parse(&first.engine).ok()?;
    let primary =
        |name: &str| name.ends_with("_pkey") || name.contains("sqlite_autoindex_") || name.ends_with(".PRIMARY");
    let secondary = |run: &RunResult| -> u64 {
        run.btrees
            .iter()
            .filter(|b| b.kind == "index" && b.name.starts_with(&format!("{key_table}.")) && !primary(&b.name))
            .map(|b| b.size_bytes)
            .sum()
    };
    let base = secondary(first).max(1) as f64;
    let parts: Vec<String> = doc
        .runs
        .iter()
        .filter(|r| r.workload == "schema" && !r.btrees.is_empty())
        .map(|r| {
            let bytes = secondary(r);
            let vs = if std::ptr::eq(r, first) {
                String::new()
            } else {
                format!(" ({:+.0}%)", (bytes as f64 / base - 1.0) * 100.0)
            };
            format!("{} {}{vs}", r.strategy, fmt::mib(Some(bytes)))
        })
        .collect();
    Some(format!(
        "Secondary indexes of {key_table}, all together: {} (against {}). {}",
        parts.join(", "),
        first.strategy,
        crate::schema::carried_note(engine)
    ))
}

/// Header and rows of every run's timed steps other than insert batches (empty when no
/// workload reported any): operations, rate and latency percentiles, then the step's own
/// figures and note.
pub fn phases(doc: &ResultsDoc) -> (Vec<String>, Vec<Vec<String>>) {
    let header = [
        "strategy",
        "step",
        "operations",
        "rows",
        "ops/s",
        "rows/s",
        "p50 ms",
        "p95 ms",
        "p99 ms",
        "max ms",
        "details",
    ]
    .map(String::from)
    .to_vec();
    let ms = |ns: Option<u64>| fmt::ms(ns.map(|v| v as f64 / 1e6));
    let rows = doc
        .runs
        .iter()
        .flat_map(|run| {
            run.phases.iter().map(move |p| {
                let lat = p.latency.as_ref();
                let mut details: Vec<String> = p.figures.iter().map(|(k, v)| format!("{k}={v}")).collect();
                details.extend(p.note.clone());
                vec![
                    run.strategy.clone(),
                    p.name.clone(),
                    p.operations.to_string(),
                    p.rows.to_string(),
                    // One operation (a single buffered write) has a duration, not a rate.
                    fmt::rate(stats::rate_per_sec(p.operations, p.elapsed_ns).filter(|_| p.operations > 1)),
                    fmt::rate(stats::rate_per_sec(p.rows, p.elapsed_ns)),
                    ms(lat.map(|l| l.p50_ns)),
                    ms(lat.map(|l| l.p95_ns)),
                    ms(lat.map(|l| l.p99_ns)),
                    ms(lat.map(|l| l.max_ns)),
                    details.join("; "),
                ]
            })
        })
        .collect();
    (header, rows)
}

/// Whether the summary table has anything to show: insert batches, or the concurrent
/// workload's measured phase. Other timed workloads (app, file-baseline) show only their steps.
pub fn has_summary(doc: &ResultsDoc) -> bool {
    doc.runs
        .iter()
        .any(|r| !r.batches.is_empty() || r.phases.iter().any(|p| p.name == crate::results::CONCURRENT_PHASE))
}

/// One line describing the run's settings (from the first run).
pub fn settings_line(doc: &ResultsDoc) -> Option<String> {
    let run = doc.runs.first()?;
    let s = &run.settings;
    let engine: Vec<String> = s
        .engine
        .iter()
        .filter(|(k, _)| k.as_str() != "sqlite_version")
        .map(|(k, v)| ReadableSetting::new(k, v).inline())
        .collect();
    // Each strategy's own row count when they differ (a timed workload inserts what it can).
    let rows = if doc.runs.iter().all(|r| r.settings.rows == s.rows) {
        format!("{} rows", s.rows)
    } else {
        let each: Vec<String> = doc.runs.iter().map(|r| format!("{} {}", r.strategy, r.settings.rows)).collect();
        format!("rows {}", each.join(", "))
    };
    let size = if doc.runs.iter().any(|r| !r.batches.is_empty()) {
        format!("{rows} in batches of {}", s.batch_rows)
    } else {
        rows
    };
    let mut line = format!(
        "{} {} · {} · {size} · payload {} B · seed {}",
        run.engine, run.engine_version, run.workload, s.payload_bytes, s.seed
    );
    if !engine.is_empty() {
        line = format!("{line} · {}", engine.join(" "));
    }
    let line = match key_note(doc) {
        Some(keys) => format!("{line} · {keys}"),
        None => line,
    };
    Some(match prediction_note(run) {
        Some(note) => format!("{line} · {note}"),
        None => line,
    })
}

/// The key parameters each strategy's keys were made with (`uuid7: key_rate=1000/s`), for the
/// strategies any parameter shapes; `None` if none does.
pub fn key_note(doc: &ResultsDoc) -> Option<String> {
    let mut seen = Vec::new();
    for run in &doc.runs {
        let p = &run.settings.key_parameters;
        if p.is_empty() || seen.iter().any(|(name, _)| *name == run.strategy) {
            continue;
        }
        let text: Vec<String> =
            p.iter().map(|(k, v)| if k == "key_rate" { format!("{k}={v}/s") } else { format!("{k}={v}") }).collect();
        seen.push((run.strategy.clone(), format!("{}: {}", run.strategy, text.join(" "))));
    }
    (!seen.is_empty()).then(|| format!("keys {}", seen.into_iter().map(|(_, t)| t).collect::<Vec<_>>().join(", ")))
}

/// For a `pkbench predict` run: that its figures are the model's, how they were made and, when
/// calibrated, the fit error — so a chart beside measured runs says which series is which.
fn prediction_note(run: &RunResult) -> Option<String> {
    if !run.is_predicted() {
        return None;
    }
    let o = &run.settings.workload_options;
    let mut parts = vec![format!("predicted by the model, not measured ({} mode)", o.get("mode")?)];
    parts.extend(o.get("scale").map(|s| format!("scale model {s}")));
    parts.extend(o.get("timing").cloned());
    parts.extend(o.get("calibrated_as").cloned());
    parts.extend(o.get("calibration_error").map(|e| format!("calibration error {e}")));
    parts.extend(o.get("calibration_leave_one_out").map(|e| format!("leaving one strategy out, {e}")));
    parts.extend(o.get("calibration_pinned").cloned());
    parts.extend(o.get("calibration_above_probes").cloned());
    parts.extend(o.get("device_costs").map(|d| format!("device costs {d}")));
    parts.extend(o.get("memory_regimes").map(|r| format!("misses served by: {r}")));
    parts.extend(o.get("extrapolation").cloned());
    Some(parts.join("; "))
}
