//! The 99th-percentile latency in each interval of timed phases that report it (the concurrent
//! workload): one line per strategy, so a stall shows when it happened.

use super::{Chart, Plot, ReportData, and_list};
use crate::report::fmt;
use crate::report::svg::line::{LineChart, LineSeries};
use crate::results::PhaseResult;

/// p99 per interval, ms, over the seconds of the timed part.
pub fn chart(data: &ReportData<'_>) -> Option<Chart> {
    let mut series = Vec::new();
    let mut worst: Vec<(String, f64, f64)> = Vec::new();
    for s in &data.series {
        let timed: Vec<&PhaseResult> =
            s.run.phases.iter().filter(|p| p.intervals.iter().any(|i| i.latency.is_some())).collect();
        for phase in &timed {
            let label = if timed.len() > 1 { format!("{} · {}", s.label, phase.name) } else { s.label.clone() };
            let points: Vec<(f64, f64)> = phase
                .intervals
                .iter()
                .filter_map(|i| Some(((i.start_ns + i.elapsed_ns) as f64 / 1e9, i.latency?.p99_ns as f64 / 1e6)))
                .collect();
            if let Some(&(at, ms)) = points.iter().max_by(|a, b| a.1.total_cmp(&b.1)) {
                worst.push((s.name.clone(), ms, at));
            }
            series.push(LineSeries { label, style: s.style, points, band: Vec::new() });
        }
    }
    if series.is_empty() {
        return None;
    }
    worst.sort_by(|a, b| b.1.total_cmp(&a.1));
    let parts: Vec<String> =
        worst.iter().map(|(name, ms, at)| format!("{name} {} ms (second {at:.0})", fmt::ms(Some(*ms)))).collect();
    Some(Chart {
        id: "latency",
        title: "99th-percentile latency per second".into(),
        shows: format!("Worst second's p99: {}.", and_list(&parts)),
        plot: Plot::Line(LineChart {
            x_label: "seconds into the timed part (warm-up excluded)".into(),
            y_label: "p99 latency, ms".into(),
            series,
        }),
    })
}
