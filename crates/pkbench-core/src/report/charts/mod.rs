//! The report's charts. Each is one function from the runs to a [`Chart`] — or to nothing when
//! its data is absent (no invented numbers) — and one entry in [`CHARTS`]. A chart carries a
//! title, a sentence written from the data saying what it shows, and a plot spec that
//! [`crate::report::svg`] draws.
//!
//! Workloads beyond insert-growth add their charts the same way: a function that returns `None`
//! for results without their data (e.g. `throughput`, for phases with per-second intervals).

mod batch_times;
mod btrees;
mod counters;
mod indexes;
mod latency;
mod levels;
mod shards;
mod size;
mod slowdown;
mod throughput;
mod waits;

pub use batch_times::chart as batch_times;

use super::input::Source;
use super::svg::bar::{self, BarChart};
use super::svg::line::{self, LineChart, YScale};
use super::svg::palette::SeriesStyle;
use super::svg::{Head, legend::LegendItem};
use crate::metrics::{StrategySummary, summarize};
use crate::results::RunResult;

/// Every chart, in page order.
pub const CHARTS: &[fn(&ReportData<'_>) -> Option<Chart>] = &[
    batch_times::chart,
    slowdown::chart,
    throughput::chart,
    latency::chart,
    waits::chart,
    shards::chart,
    size::chart,
    counters::chart,
    counters::lsm_chart,
    btrees::chart,
    levels::chart,
    indexes::chart,
];

/// What a chart draws.
#[derive(Clone, Debug)]
pub enum Plot {
    /// Lines over a shared x axis (drawn on a linear and a log y scale).
    Line(LineChart),
    /// Horizontal bars in panels.
    Bars(BarChart),
    /// Shaded cells: rows (e.g. shards) over a shared x axis (e.g. batches).
    Heat(super::svg::heat::HeatMap),
}

/// One chart of the report.
#[derive(Clone, Debug)]
pub struct Chart {
    /// Stable id (HTML anchor, file name stem).
    pub id: &'static str,
    /// Title, with what is measured.
    pub title: String,
    /// One or two sentences written from the data: what a reader should see.
    pub shows: String,
    /// The drawing.
    pub plot: Plot,
}

impl Chart {
    /// The chart as SVG. `standalone` adds the title, the sentence and a stylesheet (for a file
    /// of its own); otherwise the page supplies those. `y` applies to line charts only.
    pub fn svg(&self, y: YScale, standalone: bool) -> String {
        let head = if standalone {
            Head { label: &self.title, title: Some(&self.title), subtitle: Some(&self.shows) }
        } else {
            Head { label: &self.title, title: None, subtitle: None }
        };
        match &self.plot {
            Plot::Line(chart) => line::render(chart, y, &head, standalone),
            Plot::Bars(chart) => bar::render(chart, &head, standalone),
            Plot::Heat(map) => super::svg::heat::render(map, &head, standalone),
        }
    }

    /// Whether a log-scale view exists.
    pub fn has_log_view(&self) -> bool {
        matches!(self.plot, Plot::Line(_))
    }
}

/// One strategy's run from one source, as charts see it.
#[derive(Clone, Debug)]
pub struct SeriesRun<'a> {
    /// Name in sentences: the strategy, with the source's label when several are compared.
    pub name: String,
    /// Name in charts: [`Self::name`], marked when the run is incomplete.
    pub label: String,
    /// Which source (index into [`ReportData::sources`]).
    pub source: usize,
    /// The measurements.
    pub run: &'a RunResult,
    /// Summary figures.
    pub summary: StrategySummary,
    /// Colour, marker and dash, the same in every chart.
    pub style: SeriesStyle,
    /// Index of the series this one is compared with (same source and engine), if any.
    pub baseline: Option<usize>,
}

/// All runs of a report, flattened into series.
#[derive(Clone, Debug)]
pub struct ReportData<'a> {
    /// The documents.
    pub sources: &'a [Source],
    /// Every run of every document, in order.
    pub series: Vec<SeriesRun<'a>>,
}

impl<'a> ReportData<'a> {
    /// Flattens `sources` into series: one colour and marker per strategy, one dash per source.
    pub fn new(sources: &'a [Source]) -> Self {
        let multi = sources.len() > 1;
        let mut strategies: Vec<&str> = Vec::new();
        let mut series = Vec::new();
        let mut baselines: Vec<Option<String>> = Vec::new();
        for (si, source) in sources.iter().enumerate() {
            let summary = summarize(&source.doc);
            baselines.push(summary.baseline);
            for (run, summary) in source.doc.runs.iter().zip(summary.rows) {
                let index = strategies.iter().position(|s| *s == run.strategy).unwrap_or_else(|| {
                    strategies.push(&run.strategy);
                    strategies.len() - 1
                });
                let name = if multi { format!("{} · {}", run.strategy, source.label) } else { run.strategy.clone() };
                let label = if run.complete { name.clone() } else { format!("{name} (incomplete)") };
                series.push(SeriesRun {
                    name,
                    label,
                    source: si,
                    run,
                    summary,
                    style: SeriesStyle::nth(index, si),
                    baseline: None,
                });
            }
        }
        let indices: Vec<Option<usize>> =
            series.iter().map(|s| baseline_index(&series, s, baselines[s.source].as_deref())).collect();
        for (s, b) in series.iter_mut().zip(indices) {
            s.baseline = b;
        }
        ReportData { sources, series }
    }

    /// Whether runs from several files are shown together.
    pub fn is_comparison(&self) -> bool {
        self.sources.len() > 1
    }

    /// The series `s` is compared with.
    pub fn baseline_of(&self, s: &SeriesRun<'_>) -> Option<&SeriesRun<'a>> {
        s.baseline.map(|i| &self.series[i])
    }

    /// The series that paid most per row relative to its baseline (else the steepest growth).
    pub fn slowest(&self) -> Option<&SeriesRun<'a>> {
        let key = |s: &&SeriesRun<'_>| s.summary.slowdown.or(s.summary.growth).unwrap_or(0.0);
        // Reversed so that ties go to the first series.
        self.series.iter().rev().filter(|s| s.summary.rows > 0).max_by(|a, b| key(a).total_cmp(&key(b)))
    }
}

/// The source's baseline strategy (as [`summarize`] chose it: `int`, else the fastest per row)
/// on the same engine, if it inserted rows.
fn baseline_index(all: &[SeriesRun<'_>], s: &SeriesRun<'_>, baseline: Option<&str>) -> Option<usize> {
    let baseline = baseline?;
    all.iter().position(|p| {
        p.source == s.source && p.run.engine == s.run.engine && p.run.strategy == baseline && p.summary.rows > 0
    })
}

/// Every chart whose data exists, in page order.
pub fn all(data: &ReportData<'_>) -> Vec<Chart> {
    CHARTS.iter().filter_map(|chart| chart(data)).collect()
}

/// An integer with thousands separators: `1,000,000`.
pub fn group(n: u64) -> String {
    let s = n.to_string();
    let mut out = String::new();
    for (i, c) in s.chars().enumerate() {
        if i > 0 && (s.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
}

/// Joins phrases as "a, b and c".
pub fn and_list(items: &[String]) -> String {
    match items {
        [] => String::new(),
        [one] => one.clone(),
        [rest @ .., last] => format!("{} and {last}", rest.join(", ")),
    }
}

/// Legend entries for stacked parts, keeping only parts that occur.
pub fn parts_legend(parts: &[(&'static str, &'static str)], present: impl Fn(&str) -> bool) -> Vec<LegendItem> {
    parts
        .iter()
        .filter(|(name, _)| present(name))
        .map(|(name, colour)| LegendItem { label: name.to_string(), swatch: super::svg::legend::Swatch::Fill(colour) })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn helpers() {
        assert_eq!(group(1_000_000), "1,000,000");
        assert_eq!(group(999), "999");
        assert_eq!(and_list(&["a".into(), "b".into(), "c".into()]), "a, b and c");
    }
}
