//! What the sessions waited for: one stacked bar per sampled strategy, its busy sessions' sampled
//! time split over the waits the engine named (the concurrent workload on a server).

use super::{Chart, Plot, ReportData, and_list};
use crate::report::fmt;
use crate::report::svg::bar::{BarChart, BarRow, Panel, Segment};
use crate::report::svg::legend::{LegendItem, Swatch};
use crate::report::svg::palette::COLOURS;
use crate::report::waits::shares;

/// "Other" waits, in grey.
const OTHER: &str = "#BBBBBB";

/// Wait-share bars, when a run sampled its sessions' waits (the first results document that did).
pub fn chart(data: &ReportData<'_>) -> Option<Chart> {
    let w = data.sources.iter().find_map(|s| shares(&s.doc))?;
    let colour = |i: usize| if i < w.events.len() { COLOURS[i % COLOURS.len()] } else { OTHER };
    let names: Vec<String> =
        w.events.iter().map(|e| e.to_string()).chain(w.other.then(|| "other".to_string())).collect();
    let values = w
        .rows
        .iter()
        .map(|r| {
            (r.busy > 0).then(|| {
                r.shares
                    .iter()
                    .enumerate()
                    .map(|(i, s)| Segment { value: s * 100.0, colour: colour(i), name: names[i].clone().into() })
                    .collect()
            })
        })
        .collect();
    let legend = names
        .iter()
        .enumerate()
        .map(|(i, n)| LegendItem { label: n.clone(), swatch: Swatch::Fill(colour(i)) })
        .collect();
    let plot = Plot::Bars(BarChart {
        rows: w
            .rows
            .iter()
            .map(|r| BarRow { label: format!("{} · {}", r.strategy, r.phase.name), style: None })
            .collect(),
        panels: vec![Panel {
            title: "share of the busy sessions' sampled time (%)".into(),
            values,
            format: |v| format!("{v:.1}%"),
            tick: |v| format!("{v:.0}%"),
            max: Some(100.0),
            reference: None,
        }],
        legend,
    });
    let tops: Vec<String> = w
        .rows
        .iter()
        .filter(|r| r.busy > 0)
        .filter_map(|r| {
            let (i, s) = r.shares.iter().enumerate().max_by(|a, b| a.1.total_cmp(b.1))?;
            Some(format!("{} {} ({})", r.strategy, names[i], fmt::percent(*s)))
        })
        .collect();
    Some(Chart {
        id: "waits",
        title: "What the sessions waited for".into(),
        shows: format!("The most common wait: {}.", and_list(&tops)),
        plot,
    })
}
