//! The terminal table printed at the end of `pkbench run`.

use super::{Exporter, columns};
use crate::Error;
use crate::results::ResultsDoc;
use comfy_table::{CellAlignment, ContentArrangement, Table, presets::UTF8_FULL_CONDENSED};

/// Terminal table exporter.
pub struct TableExporter;

/// A terminal table of `header` and `rows`, columns from `right_from` on right-aligned.
pub fn table(header: Vec<String>, rows: Vec<Vec<String>>, right_from: usize) -> Table {
    let mut t = Table::new();
    t.load_style(UTF8_FULL_CONDENSED)
        .force_no_tty()
        .set_content_arrangement(ContentArrangement::Disabled)
        .set_header(header);
    for row in rows {
        t.add_row(row);
    }
    for i in right_from..t.column_count() {
        if let Some(c) = t.column_mut(i) {
            c.set_cell_alignment(CellAlignment::Right);
        }
    }
    t
}

impl Exporter for TableExporter {
    fn render(&self, doc: &ResultsDoc) -> Result<String, Error> {
        let mut out = String::new();
        if let Some(line) = columns::settings_line(doc) {
            out.push_str(&line);
            out.push('\n');
        }
        if columns::has_summary(doc) {
            let (header, rows) = columns::summary(doc);
            let mut summary = table(header, rows, 1);
            if let Some(c) = summary.column_mut(4) {
                c.set_cell_alignment(CellAlignment::Left);
            }
            out.push_str(&summary.to_string());
            out.push('\n');
        }
        let (header, rows) = columns::btrees(doc);
        if !rows.is_empty() {
            out.push_str("B-trees after the run:\n");
            out.push_str(&table(header, rows, 3).to_string());
            out.push('\n');
            if let Some(note) = columns::btree_note(doc) {
                out.push_str(&note);
                out.push('\n');
            }
        }
        let (header, rows) = columns::phases(doc);
        if !rows.is_empty() {
            out.push_str("Timed steps:\n");
            let mut steps = table(header, rows, 2);
            if let Some(c) = steps.column_mut(10) {
                c.set_cell_alignment(CellAlignment::Left);
            }
            out.push_str(&steps.to_string());
            out.push('\n');
        }
        let (header, rows) = super::shards::table(doc);
        if !rows.is_empty() {
            out.push_str("Where each batch's rows landed, by shard:\n");
            out.push_str(&table(header, rows, 2).to_string());
            out.push('\n');
            out.push_str(super::shards::NOTE);
            out.push('\n');
        }
        let (header, rows) = super::levels::table(doc);
        if !rows.is_empty() {
            out.push_str("LSM levels after the run:\n");
            out.push_str(&table(header, rows, 1).to_string());
            out.push('\n');
            out.push_str(super::levels::NOTE);
            out.push('\n');
        }
        let (header, rows) = super::waits::table(doc);
        if !rows.is_empty() {
            out.push_str("What the sessions waited for (share of sampled busy-session time):\n");
            out.push_str(&table(header, rows, 2).to_string());
            out.push('\n');
        }
        Ok(out)
    }
}
