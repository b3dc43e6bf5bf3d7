//! Where each batch's rows landed on a sharded engine: for every strategy, one stacked bar per
//! batch (at most [`MAX_BARS`], neighbouring batches merged), split over the shards — shards ×
//! time, as a heat map shows it: an ordered key's bars are one colour at a time, a spread key's
//! bars hold every colour.

use super::{Chart, Plot, ReportData, and_list};
use crate::report::fmt;
use crate::report::shards::{intervals, summary};
use crate::report::svg::bar::{BarChart, BarRow, Panel, Segment};
use crate::report::svg::legend::{LegendItem, Swatch};
use crate::report::svg::palette::COLOURS;

/// Bars per strategy.
const MAX_BARS: usize = 12;

/// The chart, when a run placed rows on shards.
pub fn chart(data: &ReportData<'_>) -> Option<Chart> {
    let mut rows = Vec::new();
    let mut values = Vec::new();
    let mut tops = Vec::new();
    let mut shards = 0;
    for source in data.sources {
        for run in &source.doc.runs {
            let each = intervals(run);
            let Some(s) = summary(run) else { continue };
            shards = shards.max(s.rows_per_shard.len());
            tops.push(format!("{} {}", run.strategy, fmt::percent(s.hottest_share_median)));
            let group = each.len().div_ceil(MAX_BARS).max(1);
            for (g, chunk) in each.chunks(group).enumerate() {
                let mut counts = vec![0u64; s.rows_per_shard.len()];
                for c in chunk {
                    counts.iter_mut().zip(c).for_each(|(t, v)| *t += v);
                }
                let total: u64 = counts.iter().sum();
                let first = g * group + 1;
                let label = if chunk.len() == 1 {
                    format!("{} · batch {first}", run.strategy)
                } else {
                    format!("{} · batches {first}–{}", run.strategy, first + chunk.len() - 1)
                };
                rows.push(BarRow { label, style: None });
                values.push((total > 0).then(|| {
                    counts
                        .iter()
                        .enumerate()
                        .map(|(i, c)| Segment {
                            value: *c as f64 * 100.0 / total as f64,
                            colour: COLOURS[i % COLOURS.len()],
                            name: format!("shard{i}").into(),
                        })
                        .collect()
                }));
            }
        }
    }
    if rows.is_empty() {
        return None;
    }
    let legend = (0..shards)
        .map(|i| LegendItem { label: format!("shard{i}"), swatch: Swatch::Fill(COLOURS[i % COLOURS.len()]) })
        .collect();
    let plot = Plot::Bars(BarChart {
        rows,
        panels: vec![Panel {
            title: "share of the batch's rows on each shard (%)".into(),
            values,
            format: |v| format!("{v:.0}%"),
            tick: |v| format!("{v:.0}%"),
            max: Some(100.0),
            reference: None,
        }],
        legend,
    });
    Some(Chart {
        id: "shards",
        title: "Where each batch's rows landed, by shard".into(),
        shows: format!(
            "The hottest shard's median share of a batch: {}. All shards ran on this one machine: this shows where rows go, not how a cluster scales.",
            and_list(&tops)
        ),
        plot,
    })
}
