//! The B-trees' shape after the run: how full the leaves are and how many are out of order —
//! where a random key's extra pages and reads come from.

use super::{Chart, Plot, ReportData, SeriesRun};
use crate::report::fmt;
use crate::report::svg::bar::{BarChart, BarRow, Panel, Segment};
use crate::results::BtreeStats;

/// Leaf fill and leaves out of order per B-tree, when any run reported its B-trees.
pub fn chart(data: &ReportData<'_>) -> Option<Chart> {
    let trees: Vec<(&SeriesRun<'_>, &BtreeStats)> =
        data.series.iter().flat_map(|s| s.run.btrees.iter().map(move |b| (s, b))).collect();
    if trees.is_empty() {
        return None;
    }
    let label = |s: &SeriesRun<'_>, b: &BtreeStats| {
        let same_kind = s.run.btrees.iter().filter(|o| o.kind == b.kind).count();
        match (s.run.btrees.len(), same_kind) {
            (1, _) => s.label.clone(),
            (_, 1) => format!("{} {}", s.label, b.kind),
            _ => format!("{} {} {}", s.label, b.kind, b.name),
        }
    };
    let panel = |title: &str, value: fn(&BtreeStats) -> f64| Panel {
        title: title.into(),
        values: trees
            .iter()
            .map(|(s, b)| Some(vec![Segment { value: value(b), colour: s.style.colour, name: "".into() }]))
            .collect(),
        format: fmt::percent,
        tick: |v| format!("{:.0}%", v * 100.0),
        max: Some(1.0),
        reference: None,
    };
    let plot = Plot::Bars(BarChart {
        rows: trees.iter().map(|(s, b)| BarRow { label: label(s, b), style: Some(s.style) }).collect(),
        panels: vec![
            panel("leaf fill (share of each leaf page in use)", |b| b.leaf_fill),
            panel("leaves out of order (next leaf earlier in the file)", |b| b.leaf_out_of_order),
        ],
        legend: vec![],
    });
    Some(Chart {
        id: "btrees",
        title: "B-tree leaves after the run: fill and order".into(),
        shows: sentence(data),
        plot,
    })
}

/// "uuid4's table ended with leaves 88.3% full, 32.1% of them out of order; int's 99.6% and 0.0%."
fn sentence(data: &ReportData<'_>) -> String {
    let Some(slow) = data.slowest() else {
        return String::new();
    };
    let Some(tree) = slow.run.btrees.iter().max_by_key(|b| b.size_bytes) else {
        return String::new();
    };
    let mut out = format!(
        "{}'s largest B-tree ({}) ended with leaves {} full on average, {} of them out of order",
        slow.name,
        tree.kind,
        fmt::percent(tree.leaf_fill),
        fmt::percent(tree.leaf_out_of_order)
    );
    let base = data.baseline_of(slow).filter(|b| !std::ptr::eq(b.run, slow.run));
    if let Some((b, bt)) = base.and_then(|b| b.run.btrees.iter().max_by_key(|t| t.size_bytes).map(|t| (b, t))) {
        out.push_str(&format!(
            "; {}'s {} and {}",
            b.name,
            fmt::percent(bt.leaf_fill),
            fmt::percent(bt.leaf_out_of_order)
        ));
    }
    out.push('.');
    out
}
