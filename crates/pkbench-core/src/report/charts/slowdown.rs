//! Time per row relative to the baseline (`int`), one bar per strategy.

use super::{Chart, Plot, ReportData, SeriesRun};
use crate::report::fmt;
use crate::report::svg::bar::{BarChart, BarRow, Panel, Segment};
use crate::report::svg::scale::short_number;
use std::collections::BTreeSet;

/// Slowdown bars, when at least two runs can be compared with a baseline.
pub fn chart(data: &ReportData<'_>) -> Option<Chart> {
    let runs: Vec<&SeriesRun<'_>> = data.series.iter().filter(|s| s.summary.slowdown.is_some()).collect();
    if runs.len() < 2 {
        return None;
    }
    let bases: BTreeSet<&str> =
        runs.iter().filter_map(|s| data.baseline_of(s)).map(|b| b.run.strategy.as_str()).collect();
    let base = match (bases.len(), bases.first()) {
        (1, Some(b)) => (*b).to_string(),
        _ => "each run's baseline".to_string(),
    };
    let values = runs
        .iter()
        .map(|s| s.summary.slowdown.map(|v| vec![Segment { value: v, colour: s.style.colour, name: "".into() }]))
        .collect();
    let plot = Plot::Bars(BarChart {
        rows: runs.iter().map(|s| BarRow { label: s.label.clone(), style: Some(s.style) }).collect(),
        panels: vec![Panel {
            title: format!("insert time per row ÷ {base}'s (× ; dashed line = 1×)"),
            values,
            format: |v| fmt::times(Some(v)),
            tick: |v| format!("{}×", short_number(v)),
            max: None,
            reference: Some(1.0),
        }],
        legend: vec![],
    });
    Some(Chart {
        id: "slowdown",
        title: format!("Time per row relative to {base}"),
        shows: sentence(data, &runs),
        plot,
    })
}

/// "Per row, uuid4-text took 12× as long as int; uuid7 2.07×."
fn sentence(data: &ReportData<'_>, runs: &[&SeriesRun<'_>]) -> String {
    let key = |s: &&&SeriesRun<'_>| s.summary.slowdown.unwrap_or(0.0);
    let is_base = |s: &SeriesRun<'_>| data.baseline_of(s).is_some_and(|b| std::ptr::eq(b.run, s.run));
    let others: Vec<&&SeriesRun<'_>> = runs.iter().filter(|s| !is_base(s)).collect();
    let Some(slowest) = others.iter().rev().copied().max_by(|a, b| key(a).total_cmp(&key(b))) else {
        return "Only the baseline ran.".into();
    };
    let base = data.baseline_of(slowest).map_or("the baseline".to_string(), |b| b.name.clone());
    let mut out = format!("Per row, {} took {} as long as {base}", slowest.name, fmt::times(slowest.summary.slowdown));
    let fastest = others.iter().copied().min_by(|a, b| key(a).total_cmp(&key(b)));
    if let Some(fastest) = fastest.filter(|f| !std::ptr::eq(f.run, slowest.run)) {
        out.push_str(&format!("; {} {}", fastest.name, fmt::times(fastest.summary.slowdown)));
    }
    out.push('.');
    if data.is_comparison() {
        out.push_str(" Each file's runs are compared with that file's baseline.");
    }
    out
}
