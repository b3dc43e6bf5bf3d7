//! The signature chart: time per batch against rows in the table, one line per strategy.

use super::{Chart, Plot, ReportData, SeriesRun, group};
use crate::metrics::stats::ratio;
use crate::report::fmt;
use crate::report::svg::line::{LineChart, LineSeries};
use crate::results::BatchResult;
use std::collections::BTreeSet;

/// Growth above this counts as slowing down in the sentence.
const SLOWED: f64 = 1.5;
/// The sentence names at most this many other lines.
const MAX_OTHERS: usize = 5;

/// Time per batch as the table grows (per row when batch sizes differ, so lines stay comparable),
/// of the runs whose batches were timed (an uncalibrated prediction's are not).
pub fn chart(data: &ReportData<'_>) -> Option<Chart> {
    let runs: Vec<&SeriesRun<'_>> = data.series.iter().filter(|s| s.run.has_batch_times()).collect();
    if runs.is_empty() {
        return None;
    }
    let sizes: BTreeSet<u64> = runs.iter().flat_map(|s| &s.run.batches).map(|b| b.rows).collect();
    let per_row = sizes.len() > 1;
    let y = |b: &BatchResult| {
        if per_row { b.elapsed_ns as f64 / b.rows.max(1) as f64 / 1e3 } else { b.elapsed_ns as f64 / 1e6 }
    };
    let series = runs
        .iter()
        .map(|s| LineSeries {
            label: s.label.clone(),
            style: s.style,
            points: s.run.batches.iter().map(|b| (b.rows_total as f64, y(b))).collect(),
            // A prediction's 90% interval, where every batch has one.
            band: s
                .run
                .batches
                .iter()
                .map(|b| {
                    let at = |ns: u64| y(&BatchResult { elapsed_ns: ns, ..b.clone() });
                    Some((at(b.elapsed_ns_low?), at(b.elapsed_ns_high?)))
                })
                .collect::<Option<Vec<_>>>()
                .unwrap_or_default(),
        })
        .collect();
    let (title, y_label, unit) = if per_row {
        ("Time per row as the table grows", "µs per row (batch sizes differ)".to_string(), "µs per row")
    } else {
        let rows = sizes.first().copied().unwrap_or(0);
        ("Time per batch as the table grows", format!("ms per batch of {} rows", group(rows)), "ms")
    };
    let growth: Vec<Growth<'_>> = runs
        .iter()
        .filter_map(|s| {
            let (first, last) = (y(s.run.batches.first()?), y(s.run.batches.last()?));
            Some(Growth { series: s, first, last, ratio: ratio(last, first)? })
        })
        .collect();
    Some(Chart {
        id: "batch-times",
        title: title.into(),
        shows: sentence(data, growth, unit),
        plot: Plot::Line(LineChart { x_label: "rows in the table".into(), y_label, series }),
    })
}

struct Growth<'a> {
    series: &'a SeriesRun<'a>,
    first: f64,
    last: f64,
    ratio: f64,
}

/// "uuid4's last batch took 5.56× as long as its first (310 → 1725 ms); int's 0.92×. Others: …"
fn sentence(data: &ReportData<'_>, mut growth: Vec<Growth<'_>>, unit: &str) -> String {
    growth.sort_by(|a, b| b.ratio.total_cmp(&a.ratio));
    let times = |g: &Growth<'_>| fmt::times(Some(g.ratio));
    let (Some(worst), Some(flattest)) = (growth.first(), growth.last()) else {
        return "No batch finished.".into();
    };
    let lead = format!(
        "{}'s last batch took {} as long as its first ({} → {} {unit})",
        worst.series.name,
        times(worst),
        fmt::ms(Some(worst.first)),
        fmt::ms(Some(worst.last)),
    );
    if growth.len() == 1 {
        return format!("{lead}.");
    }
    if worst.ratio < SLOWED {
        return format!(
            "No strategy slowed as the table grew: the last batch took from {} ({}) to {} ({}) as long as the first.",
            times(flattest),
            flattest.series.name,
            times(worst),
            worst.series.name
        );
    }
    // Compare with the worst one's baseline when it has one, else with the flattest line.
    let reference = data
        .baseline_of(worst.series)
        .and_then(|b| growth.iter().find(|g| std::ptr::eq(g.series.run, b.run)))
        .filter(|g| !std::ptr::eq(g.series.run, worst.series.run))
        .unwrap_or(flattest);
    let mut others: Vec<String> = growth
        .iter()
        .filter(|g| !std::ptr::eq(g.series.run, worst.series.run) && !std::ptr::eq(g.series.run, reference.series.run))
        .map(|g| format!("{} {}", g.series.name, times(g)))
        .collect();
    if others.len() > MAX_OTHERS {
        let more = others.len() - MAX_OTHERS + 1;
        others.truncate(MAX_OTHERS - 1);
        others.push(format!("{more} more"));
    }
    let mut out = format!("{lead}; {}'s {}.", reference.series.name, times(reference));
    if !others.is_empty() {
        out.push_str(&format!(" Others: {}.", others.join(", ")));
    }
    out
}
