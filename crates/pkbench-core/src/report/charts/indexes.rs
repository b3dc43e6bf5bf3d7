//! Per index, for a schema run (`run --schema`): each table's and index's size by strategy, the
//! key's bytes in it drawn solid and the rest faded, and its cache misses per 1,000 rows where
//! the engine counts them per tree — where a key's cost lands in the user's own table.

use super::{Chart, Plot, ReportData, SeriesRun};
use crate::report::fmt;
use crate::report::svg::bar::{BarChart, BarRow, Panel, Segment};
use crate::report::svg::legend::{LegendItem, Swatch};
use crate::report::svg::palette::faded;
use crate::results::BtreeStats;

const MIB: f64 = 1024.0 * 1024.0;

/// A per-tree figure of [`BtreeStats`].
type PerTree = fn(&BtreeStats) -> Option<f64>;

/// Size (and misses) per tree and strategy, when a run knows the key's share of its trees.
pub fn chart(data: &ReportData<'_>) -> Option<Chart> {
    // Only a schema run knows what part of each tree is the key.
    if !data.series.iter().flat_map(|s| &s.run.btrees).any(|b| b.key_share.is_some()) {
        return None;
    }
    let mut names: Vec<&str> = Vec::new();
    for b in data.series.iter().flat_map(|s| &s.run.btrees) {
        if !names.contains(&b.name.as_str()) {
            names.push(&b.name);
        }
    }
    // One row per tree and strategy, a tree's strategies together.
    let rows: Vec<(&SeriesRun<'_>, &BtreeStats)> = names
        .iter()
        .flat_map(|n| {
            data.series.iter().filter_map(move |s| s.run.btrees.iter().find(|b| b.name == *n).map(|b| (s, b)))
        })
        .collect();
    let size = |s: &SeriesRun<'_>, b: &BtreeStats| {
        let total = b.size_bytes as f64 / MIB;
        let key = total * b.key_share.unwrap_or(0.0);
        vec![
            Segment { value: key, colour: s.style.colour, name: "the key's bytes".into() },
            Segment { value: total - key, colour: faded(s.style.colour), name: "other bytes".into() },
        ]
    };
    let mut panels = vec![Panel {
        title: "size, MiB (solid: the key's bytes)".into(),
        values: rows.iter().map(|(s, b)| Some(size(s, b))).collect(),
        format: |v| format!("{v:.1} MiB"),
        tick: |v| format!("{v:.0}"),
        max: None,
        reference: None,
    }];
    let per_1k: [(&str, PerTree); 2] = [
        ("cache misses per 1,000 rows while loading", |b| b.misses_per_1k_rows),
        ("index pages each batch modified, per 1,000 rows", |b| b.index_blocks_touched_per_1k_rows),
    ];
    for (title, value) in per_1k {
        if rows.iter().any(|(_, b)| value(b).is_some()) {
            panels.push(Panel {
                title: title.into(),
                values: rows
                    .iter()
                    .map(|(s, b)| value(b).map(|v| vec![Segment { value: v, colour: s.style.colour, name: "".into() }]))
                    .collect(),
                format: |v| fmt::per_1k(Some(v)),
                tick: |v| format!("{v:.0}"),
                max: None,
                reference: None,
            });
        }
    }
    let plot = Plot::Bars(BarChart {
        rows: rows
            .iter()
            .map(|(s, b)| BarRow { label: format!("{} · {}", b.name, s.label), style: Some(s.style) })
            .collect(),
        panels,
        legend: vec![
            LegendItem { label: "the key's bytes".into(), swatch: Swatch::Fill("#8C8C8C") },
            LegendItem { label: "other bytes".into(), swatch: Swatch::Fill(faded("#8C8C8C")) },
        ],
    });
    Some(Chart {
        id: "indexes",
        title: "Your tables and indexes: size and the key in it".into(),
        shows: sentence(data),
        plot,
    })
}

/// "uuid4-text's tables and indexes add up to 612.4 MiB, 41.0% of it the key; int's 402.1 MiB,
/// 9.8%."
fn sentence(data: &ReportData<'_>) -> String {
    let total = |s: &SeriesRun<'_>| {
        let bytes: f64 = s.run.btrees.iter().map(|b| b.size_bytes as f64).sum();
        let key: f64 = s.run.btrees.iter().map(|b| b.size_bytes as f64 * b.key_share.unwrap_or(0.0)).sum();
        (bytes / MIB, if bytes > 0.0 { key / bytes } else { 0.0 })
    };
    let Some(largest) = data.series.iter().max_by(|a, b| total(a).0.total_cmp(&total(b).0)) else {
        return String::new();
    };
    let (mib, share) = total(largest);
    let mut out =
        format!("{}'s tables and indexes add up to {mib:.1} MiB, {} of it the key", largest.name, fmt::percent(share));
    if let Some(smallest) = data.series.iter().min_by(|a, b| total(a).0.total_cmp(&total(b).0))
        && !std::ptr::eq(smallest, largest)
    {
        let (mib, share) = total(smallest);
        out.push_str(&format!("; {}'s {mib:.1} MiB, {}", smallest.name, fmt::percent(share)));
    }
    out.push('.');
    out
}
