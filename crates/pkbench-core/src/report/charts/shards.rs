//! Where each batch's rows landed on a sharded engine: a heat map of shards × batches (or
//! seconds) per strategy, each cell shaded by the shard's share of that batch's rows. An
//! ordered key lights one cell per column, walking through the ranges; a spread key lights every
//! cell evenly.

use super::{Chart, Plot, ReportData, and_list};
use crate::report::fmt;
use crate::report::shards::{intervals, summary};
use crate::report::svg::heat::{HeatGroup, HeatMap, HeatRow};
use crate::report::svg::palette::COLOURS;

/// Columns drawn: neighbouring batches (or seconds) are merged beyond this many.
const MAX_COLUMNS: usize = 60;

/// The chart, when a run placed rows on shards.
pub fn chart(data: &ReportData<'_>) -> Option<Chart> {
    let mut groups = Vec::new();
    let mut tops = Vec::new();
    let mut timed = false;
    let mut widest = 0;
    for source in data.sources {
        for run in &source.doc.runs {
            let Some(s) = summary(run) else { continue };
            timed |= run.batches.is_empty();
            let all = intervals(run);
            widest = widest.max(all.len());
            let each: Vec<Vec<u64>> = all
                .chunks(merged(all.len()))
                .map(|chunk| (0..s.rows_per_shard.len()).map(|shard| chunk.iter().map(|c| c[shard]).sum()).collect())
                .collect();
            tops.push(format!("{} {}", run.strategy, fmt::percent(s.hottest_share_median)));
            let rows = (0..s.rows_per_shard.len())
                .map(|shard| HeatRow {
                    label: format!("shard{shard}"),
                    cells: each
                        .iter()
                        .map(|counts| {
                            let total: u64 = counts.iter().sum();
                            (total > 0).then(|| counts[shard] as f64 / total as f64)
                        })
                        .collect(),
                })
                .collect();
            groups.push(HeatGroup { name: run.strategy.clone(), rows });
        }
    }
    if groups.is_empty() {
        return None;
    }
    let (column, columns_word) = if timed { ("second", "seconds") } else { ("batch", "batches") };
    let step = merged(widest);
    let columns = (0..widest.div_ceil(step))
        .map(|i| match (i * step + 1, ((i + 1) * step).min(widest)) {
            (a, b) if a == b => format!("{column} {a}"),
            (a, b) => format!("{columns_word} {a}–{b}"),
        })
        .collect();
    Some(Chart {
        id: "shards",
        title: format!("Where each {column}'s rows landed, by shard"),
        shows: format!(
            "Darker is a larger share of the {column}'s rows. The hottest shard's median share: {}. All shards ran on this one machine: this shows where rows go, not how a cluster scales.",
            and_list(&tops)
        ),
        plot: Plot::Heat(HeatMap { groups, columns, colour: COLOURS[0] }),
    })
}

/// Batches per drawn column for `n` batches.
fn merged(n: usize) -> usize {
    n.div_ceil(MAX_COLUMNS).max(1)
}
