//! The counters that explain a slowdown, per 1,000 rows: cache misses, pages written, WAL bytes
//! (full-page images stacked within), page splits, and an LSM tree's compaction and flush bytes,
//! key reads (its unique-key checks), bloom-filter checks and negatives and write stalls — one
//! panel for each the engine reported.

use super::{Chart, Plot, ReportData, SeriesRun, and_list};
use crate::metrics::stats::per_thousand;
use crate::report::fmt;
use crate::report::svg::bar::{BarChart, BarRow, Panel, Segment};
use crate::report::svg::legend::{LegendItem, Swatch};
use crate::report::svg::palette::faded;
use crate::report::svg::scale::short_number;
use crate::results::Counters;

/// A counter panel: which counter, its title, and how a sentence says it.
struct Measure {
    field: &'static str,
    title: &'static str,
    /// Phrase with `{}` for the value, e.g. "missed the cache {} times".
    phrase: &'static str,
    /// Divides the per-1k value for display (1024 for bytes shown in KiB).
    scale: f64,
}

/// The counters that explain a slowdown on any engine (an LSM tree's compaction and key reads
/// among them).
const MEASURES: [Measure; 6] = [
    Measure { field: "cache_misses", title: "cache misses", phrase: "missed the cache {} times", scale: 1.0 },
    Measure { field: "pages_written", title: "pages written", phrase: "wrote {} pages", scale: 1.0 },
    Measure { field: "wal_bytes", title: "WAL KiB", phrase: "wrote {} KiB of WAL", scale: 1024.0 },
    Measure { field: "page_splits", title: "page splits", phrase: "split {} pages", scale: 1.0 },
    Measure {
        field: "compaction_write_bytes",
        title: "compaction KiB written",
        phrase: "compacted {} KiB into new files",
        scale: 1024.0,
    },
    Measure { field: "keys_read", title: "keys read", phrase: "read {} keys", scale: 1.0 },
];

/// The rest of an LSM tree's work: what its compactions read, its flushes, its bloom filters
/// and its write stalls.
const LSM_MEASURES: [Measure; 5] = [
    Measure {
        field: "compaction_read_bytes",
        title: "compaction KiB read",
        phrase: "read {} KiB to compact",
        scale: 1024.0,
    },
    Measure { field: "flush_bytes", title: "flush KiB", phrase: "flushed {} KiB of memtable", scale: 1024.0 },
    Measure {
        field: "bloom_checks",
        title: "bloom-filter checks",
        phrase: "checked a bloom filter {} times",
        scale: 1.0,
    },
    Measure {
        field: "bloom_useful",
        title: "bloom-filter negatives",
        phrase: "had a bloom filter rule a file out {} times",
        scale: 1.0,
    },
    Measure { field: "write_stalls", title: "write stalls", phrase: "stalled writes {} times", scale: 1.0 },
];

fn field(c: &Counters, name: &str) -> Option<u64> {
    c.fields().iter().find(|(n, _)| *n == name).and_then(|(_, v)| *v)
}

/// `name` per 1k rows of a run, in the measure's display unit.
fn per_1k(s: &SeriesRun<'_>, m: &Measure, name: &str) -> Option<f64> {
    s.run.counter_with_rows(name).and_then(|(v, rows)| per_thousand(v, rows)).map(|v| v / m.scale)
}

/// Counter panels, when any run reported any of the counters.
pub fn chart(data: &ReportData<'_>) -> Option<Chart> {
    panels(data, &MEASURES, "counters", "Why: engine counters per 1,000 rows")
}

/// An LSM tree's other counters, when any run reported any of them.
pub fn lsm_chart(data: &ReportData<'_>) -> Option<Chart> {
    let title = "An LSM tree's other work per 1,000 rows: compaction reads, flushes, bloom filters, stalls";
    panels(data, &LSM_MEASURES, "lsm-counters", title)
}

/// A panel for each of `measures` that a run reported.
fn panels(data: &ReportData<'_>, measures: &[Measure], id: &'static str, title: &str) -> Option<Chart> {
    let runs: Vec<&SeriesRun<'_>> = data.series.iter().filter(|s| s.run.rows_inserted() > 0).collect();
    let measures: Vec<&Measure> =
        measures.iter().filter(|m| runs.iter().any(|s| per_1k(s, m, m.field).is_some())).collect();
    if measures.is_empty() {
        return None;
    }
    let fpi_known = runs.iter().any(|s| field(&s.run.total_counters(), "wal_fpi_bytes").is_some());
    let panels = measures
        .iter()
        .map(|m| Panel {
            title: format!("{} per 1k rows", m.title),
            values: runs.iter().map(|s| segments(s, m, fpi_known)).collect(),
            format: |v| fmt::per_1k(Some(v)),
            tick: short_number,
            max: None,
            reference: None,
        })
        .collect();
    let legend = if fpi_known && measures.iter().any(|m| m.field == "wal_bytes") {
        vec![
            LegendItem { label: "WAL: full-page images".into(), swatch: Swatch::Fill("#8C8C8C") },
            LegendItem { label: "WAL: other records".into(), swatch: Swatch::Fill(faded("#8C8C8C")) },
        ]
    } else {
        vec![]
    };
    let plot = Plot::Bars(BarChart {
        rows: runs.iter().map(|s| BarRow { label: s.label.clone(), style: Some(s.style) }).collect(),
        panels,
        legend,
    });
    Some(Chart { id, title: title.into(), shows: sentence(data, &measures), plot })
}

/// A run's bar in one panel: WAL bytes split into full-page images and the rest when known.
fn segments(s: &SeriesRun<'_>, m: &Measure, fpi_known: bool) -> Option<Vec<Segment>> {
    let total = per_1k(s, m, m.field)?;
    let whole = |value| vec![Segment { value, colour: s.style.colour, name: "".into() }];
    if m.field != "wal_bytes" || !fpi_known {
        return Some(whole(total));
    }
    Some(match per_1k(s, m, "wal_fpi_bytes") {
        Some(fpi) => vec![
            Segment { value: fpi.min(total), colour: s.style.colour, name: "full-page images".into() },
            Segment { value: (total - fpi).max(0.0), colour: faded(s.style.colour), name: "other records".into() },
        ],
        None => whole(total),
    })
}

/// "Per 1k rows, uuid4 missed the cache 923 times (int: 0.0) and wrote 922 pages (int: 14.6)."
fn sentence(data: &ReportData<'_>, measures: &[&Measure]) -> String {
    let Some(slow) = data.slowest() else {
        return String::new();
    };
    let base = data.baseline_of(slow).filter(|b| !std::ptr::eq(b.run, slow.run));
    let phrases: Vec<String> = measures
        .iter()
        .filter_map(|m| {
            let v = per_1k(slow, m, m.field)?;
            let mut p = m.phrase.replace("{}", &fmt::per_1k(Some(v)));
            if let Some(b) = base {
                p.push_str(&format!(" ({}: {})", b.name, fmt::per_1k(per_1k(b, m, m.field))));
            }
            Some(p)
        })
        .collect();
    if phrases.is_empty() {
        return String::new();
    }
    let who = if base.is_some() { format!("the slowest per row, {}", slow.name) } else { slow.name.clone() };
    format!("Per 1k rows, {who}, {}.", and_list(&phrases))
}
