//! An LSM run's sorted files by level after its last batch that read them, stacked per
//! strategy: a random key's tree holds the same rows in more levels (or more bytes waiting in
//! L0) than an ordered key's.

use super::{Chart, Plot, ReportData, SeriesRun, parts_legend};
use crate::report::levels;
use crate::report::svg::bar::{BarChart, BarRow, Panel, Segment};
use crate::report::svg::scale::short_number;
use crate::results::LsmLevel;

/// Each level's name and colour (deeper levels share the last).
const LEVELS: [(&str, &str); 7] = [
    ("L0", "#E69F00"),
    ("L1", "#56B4E9"),
    ("L2", "#009E73"),
    ("L3", "#0072B2"),
    ("L4", "#D55E00"),
    ("L5", "#CC79A7"),
    ("L6", "#8C8C8C"),
];
const MIB: f64 = 1024.0 * 1024.0;

fn colour(level: &str) -> &'static str {
    LEVELS.iter().find(|(name, _)| *name == level).map_or(LEVELS[6].1, |(_, c)| c)
}

fn segments(levels: &[LsmLevel]) -> Vec<Segment> {
    levels
        .iter()
        .map(|l| Segment { value: l.size_bytes as f64 / MIB, colour: colour(&l.level), name: l.level.clone().into() })
        .collect()
}

/// Stacked level bars, when any run read its levels.
pub fn chart(data: &ReportData<'_>) -> Option<Chart> {
    let runs: Vec<&SeriesRun<'_>> = data.series.iter().filter(|s| levels::last(s.run).is_some()).collect();
    if runs.is_empty() {
        return None;
    }
    let values: Vec<Option<Vec<Segment>>> = runs.iter().map(|s| levels::last(s.run).map(segments)).collect();
    let present = |name: &str| values.iter().flatten().flatten().any(|s| s.name == name && s.value > 0.0);
    let legend = parts_legend(&LEVELS, present);
    let panel = Panel {
        title: "sorted files by level".into(),
        values,
        format: |v| format!("{v:.1} MiB"),
        tick: |v| format!("{} MiB", short_number(v)),
        max: None,
        reference: None,
    };
    let plot = Plot::Bars(BarChart {
        rows: runs.iter().map(|s| BarRow { label: s.label.clone(), style: Some(s.style) }).collect(),
        panels: vec![panel],
        legend,
    });
    Some(Chart { id: "lsm-levels", title: "LSM levels after the run, MiB".into(), shows: sentence(&runs), plot })
}

/// "uuid4's files reach L2 (3 levels, 41.0 MiB); int's reach L1 (2 levels, 30.5 MiB)."
fn sentence(runs: &[&SeriesRun<'_>]) -> String {
    let phrases: Vec<String> = runs
        .iter()
        .filter_map(|s| {
            let levels = levels::last(s.run)?;
            let deepest = levels.iter().rfind(|l| l.files > 0)?;
            let total: u64 = levels.iter().map(|l| l.size_bytes).sum();
            let over = LsmLevel::bytes_over_target(levels) as f64 / MIB;
            let owed = if over > 0.0 { format!(", {over:.1} MiB over target") } else { String::new() };
            Some(format!("{}'s files reach {} ({:.1} MiB{owed})", s.name, deepest.level, total as f64 / MIB))
        })
        .collect();
    match phrases.is_empty() {
        true => String::new(),
        false => format!("{}.", phrases.join("; ")),
    }
}
