//! Markdown: summary, the key chart as an image link, milliseconds per batch, B-tree state and
//! settings (`results.md`).

use super::charts::{self, ReportData};
use super::input::Source;
use super::svg::line::YScale;
use super::{Exporter, columns, fmt};
use crate::Error;
use crate::results::ResultsDoc;
use std::fmt::Write;

/// File name of the key chart (time per batch) that Markdown output links to; whoever writes
/// the Markdown writes [`key_chart_svg`] beside it under this name.
pub const KEY_CHART_FILE: &str = "batch-times.svg";

/// Markdown exporter.
pub struct MarkdownExporter {
    /// Link [`KEY_CHART_FILE`] as an image after the summary (when any batch finished).
    pub chart_link: bool,
}

/// The key chart as a standalone SVG file (title, sentence and light/dark style included), or
/// `None` when no batch finished.
pub fn key_chart_svg(sources: &[Source]) -> Option<String> {
    charts::batch_times(&ReportData::new(sources)).map(|c| c.svg(YScale::Linear, true))
}

/// Image link to the key chart and its sentence, as Markdown.
fn chart_link(sources: &[Source]) -> Option<String> {
    let chart = charts::batch_times(&ReportData::new(sources))?;
    Some(format!("![{}]({KEY_CHART_FILE})\n\n*{}*\n", chart.title, chart.shows.replace('*', "\\*")))
}

/// Markdown for one or more results documents: for several, the key chart compares them all,
/// then each document follows under its label.
pub fn render_markdown(sources: &[Source]) -> Result<String, Error> {
    if let [one] = sources {
        return MarkdownExporter { chart_link: true }.render(&one.doc);
    }
    let mut out = String::from("# pkbench comparison\n\n");
    if let Some(link) = chart_link(sources) {
        out.push_str(&link);
    }
    for source in sources {
        let text = MarkdownExporter { chart_link: false }.render(&source.doc)?;
        let _ = write!(out, "\n## {}\n", source.label);
        // Each document's headings move one level down, under its label.
        for line in text.lines().skip(1) {
            if line.starts_with('#') {
                out.push('#');
            }
            out.push_str(line);
            out.push('\n');
        }
    }
    Ok(out)
}

fn escape(cell: &str) -> String {
    cell.replace('|', "\\|")
}

/// Appends a Markdown table of `header` and `rows` (cells escaped) to `out`.
pub fn md_table(out: &mut String, header: &[String], rows: &[Vec<String>]) {
    let line = |cells: &[String]| format!("| {} |\n", cells.iter().map(|c| escape(c)).collect::<Vec<_>>().join(" | "));
    out.push_str(&line(header));
    out.push_str(&format!("|{}\n", "---|".repeat(header.len())));
    for row in rows {
        out.push_str(&line(row));
    }
}

/// Milliseconds per batch: one row per batch position, one column per strategy.
fn batch_grid(doc: &ResultsDoc) -> (Vec<String>, Vec<Vec<String>>) {
    let mut header = vec!["rows in table".to_string()];
    header.extend(doc.runs.iter().map(|r| r.strategy.clone()));
    let longest = doc.runs.iter().max_by_key(|r| r.batches.len());
    let rows = longest
        .map(|l| {
            l.batches
                .iter()
                .enumerate()
                .map(|(i, b)| {
                    let mut row = vec![b.rows_total.to_string()];
                    row.extend(doc.runs.iter().map(|r| fmt::ms(r.batches.get(i).map(|b| b.elapsed_ns as f64 / 1e6))));
                    row
                })
                .collect()
        })
        .unwrap_or_default();
    (header, rows)
}

impl Exporter for MarkdownExporter {
    fn render(&self, doc: &ResultsDoc) -> Result<String, Error> {
        let mut out = String::from("# pkbench results\n\n");
        if let Some(line) = columns::settings_line(doc) {
            let _ = writeln!(out, "{line}\n");
        }
        let _ = writeln!(out, "Command: `{}`\n", doc.command.join(" "));
        if columns::has_summary(doc) {
            let (h, r) = columns::summary(doc);
            md_table(&mut out, &h, &r);
        }
        let link = if self.chart_link { chart_link(&[Source::single(doc.clone())]) } else { None };
        if let Some(link) = link {
            out.push('\n');
            out.push_str(&link);
        }
        // A timed workload (concurrent) has no batches to tabulate, an uncalibrated prediction
        // no batch times.
        let (h, r) = batch_grid(doc);
        if !r.is_empty() && doc.has_batch_times() {
            out.push_str("\n## Milliseconds per batch\n\n");
            md_table(&mut out, &h, &r);
        }
        let (h, r) = columns::btrees(doc);
        if !r.is_empty() {
            out.push_str("\n## B-trees after the run\n\n");
            md_table(&mut out, &h, &r);
            if let Some(note) = columns::btree_note(doc) {
                let _ = write!(out, "\n{note}\n");
            }
        }
        let (h, r) = columns::phases(doc);
        if !r.is_empty() {
            out.push_str("\n## Timed steps\n\n");
            md_table(&mut out, &h, &r);
        }
        let (h, r) = super::shards::table(doc);
        if !r.is_empty() {
            let _ = write!(out, "\n## Where each batch's rows landed, by shard\n\n{}\n\n", super::shards::NOTE);
            md_table(&mut out, &h, &r);
        }
        let (h, r) = super::levels::table(doc);
        if !r.is_empty() {
            let _ = write!(out, "\n## LSM levels after the run\n\n{}\n\n", super::levels::NOTE);
            md_table(&mut out, &h, &r);
        }
        let (h, r) = super::waits::table(doc);
        if !r.is_empty() {
            out.push_str("\n## What the sessions waited for\n\nShare of the sampled busy-session time per wait the engine named.\n\n");
            md_table(&mut out, &h, &r);
        }
        let e = &doc.environment;
        let _ = writeln!(
            out,
            "\n## Environment\n\npkbench {} · {} {} · {} · kernel {} · {} ({} cores) · {:.1} GiB RAM · data on {} · started {}",
            e.pkbench_version,
            e.engine,
            e.engine_version,
            e.os,
            e.kernel,
            e.cpu_model,
            e.cpu_cores,
            e.memory_bytes as f64 / (1u64 << 30) as f64,
            e.data_filesystem.as_deref().unwrap_or("unknown filesystem"),
            doc.started_at,
        );
        for run in doc.runs.iter().filter(|r| r.error.is_some()) {
            let _ = writeln!(out, "\n**{} stopped early:** {}", run.strategy, run.error.as_deref().unwrap_or_default());
        }
        Ok(out)
    }
}
