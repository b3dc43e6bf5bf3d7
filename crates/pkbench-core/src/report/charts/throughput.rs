//! Throughput over time of timed phases that report intervals (e.g. `concurrent-insert`): one
//! line per strategy and phase, operations per second in each interval.

use super::{Chart, Plot, ReportData, and_list};
use crate::metrics::stats::{rate_per_sec, ratio};
use crate::report::fmt;
use crate::report::svg::line::{LineChart, LineSeries};
use crate::results::PhaseResult;

/// A line whose last interval ran below this share of its first counts as falling.
const FELL: f64 = 0.8;

/// Operations per second in every interval, over the seconds of the timed part.
pub fn chart(data: &ReportData<'_>) -> Option<Chart> {
    let mut series = Vec::new();
    let mut lines: Vec<Line> = Vec::new();
    for s in &data.series {
        let timed: Vec<&PhaseResult> = s.run.phases.iter().filter(|p| !p.intervals.is_empty()).collect();
        for phase in &timed {
            let (label, name) = if timed.len() > 1 {
                (format!("{} · {}", s.label, phase.name), format!("{} ({})", s.name, phase.name))
            } else {
                (s.label.clone(), s.name.clone())
            };
            let points: Vec<(f64, f64)> = phase
                .intervals
                .iter()
                .filter_map(|i| {
                    let end_s = (i.start_ns + i.elapsed_ns) as f64 / 1e9;
                    Some((end_s, rate_per_sec(i.operations, i.elapsed_ns)?))
                })
                .collect();
            if points.is_empty() {
                continue;
            }
            lines.push(Line {
                name,
                mean: rate_per_sec(phase.operations, phase.elapsed_ns),
                first: points.first().map(|p| p.1),
                last: points.last().map(|p| p.1),
            });
            series.push(LineSeries { label, style: s.style, points, band: Vec::new() });
        }
    }
    if series.is_empty() {
        return None;
    }
    Some(Chart {
        id: "throughput",
        title: "Operations per second over time".into(),
        shows: sentence(&mut lines),
        plot: Plot::Line(LineChart {
            x_label: "seconds into the timed part (warm-up excluded)".into(),
            y_label: "operations per second".into(),
            series,
        }),
    })
}

struct Line {
    name: String,
    mean: Option<f64>,
    first: Option<f64>,
    last: Option<f64>,
}

impl Line {
    fn last_over_first(&self) -> Option<f64> {
        ratio(self.last?, self.first?)
    }
}

/// "Mean operations per second: int 1.5k, uuid4 647. uuid4's last interval ran at 0.45× its first."
fn sentence(lines: &mut [Line]) -> String {
    lines.sort_by(|a, b| b.mean.unwrap_or(0.0).total_cmp(&a.mean.unwrap_or(0.0)));
    let means: Vec<String> = lines.iter().map(|l| format!("{} {}", l.name, fmt::rate(l.mean))).collect();
    let mut out = format!("Mean operations per second: {}.", and_list(&means));
    let falling = lines
        .iter()
        .filter_map(|l| Some((l, l.last_over_first()?)))
        .filter(|(_, r)| *r < FELL)
        .min_by(|a, b| a.1.total_cmp(&b.1));
    match falling {
        Some((l, r)) => out.push_str(&format!(
            " {}'s last interval ran at {} its first ({} → {} per second).",
            l.name,
            fmt::times(Some(r)),
            fmt::rate(l.first),
            fmt::rate(l.last)
        )),
        None => out.push_str(" No line's last interval fell below 0.8× its first."),
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn line(name: &str, mean: f64, first: f64, last: f64) -> Line {
        Line { name: name.into(), mean: Some(mean), first: Some(first), last: Some(last) }
    }

    #[test]
    fn the_sentence_orders_by_mean_and_names_the_steepest_fall() {
        let mut lines = [line("uuid4", 600.0, 1_000.0, 400.0), line("int", 1_500.0, 1_500.0, 1_450.0)];
        let s = sentence(&mut lines);
        assert!(s.starts_with("Mean operations per second: int 1.5k and uuid4 600."), "{s}");
        assert!(s.contains("uuid4's last interval ran at 0.40× its first"), "{s}");
        let mut flat = [line("int", 1_500.0, 1_500.0, 1_450.0)];
        assert!(sentence(&mut flat).contains("No line's last interval fell"));
    }
}
