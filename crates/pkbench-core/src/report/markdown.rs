//! Markdown: summary, milliseconds per batch, B-tree state and settings (`results.md`).

use super::{Exporter, columns, fmt};
use crate::Error;
use crate::results::ResultsDoc;
use std::fmt::Write;

/// Markdown exporter.
pub struct MarkdownExporter;

fn escape(cell: &str) -> String {
    cell.replace('|', "\\|")
}

fn md_table(out: &mut String, header: &[String], rows: &[Vec<String>]) {
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
        let (h, r) = columns::summary(doc);
        md_table(&mut out, &h, &r);
        out.push_str("\n## Milliseconds per batch\n\n");
        let (h, r) = batch_grid(doc);
        md_table(&mut out, &h, &r);
        let (h, r) = columns::btrees(doc);
        if !r.is_empty() {
            out.push_str("\n## B-trees after the run\n\n");
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
