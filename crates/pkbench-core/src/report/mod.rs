//! Exporters: turn a [`ResultsDoc`] into text. Each reads only the results document (and the
//! summaries computed from it); adding a format touches this file and one new one.

mod columns;
mod csv;
mod fmt;
mod json;
mod markdown;
mod table;

pub use fmt::{rate, sparkline};

use crate::Error;
use crate::results::ResultsDoc;

/// Renders a results document as text.
pub trait Exporter {
    /// The rendered text.
    fn render(&self, doc: &ResultsDoc) -> Result<String, Error>;
}

/// Output formats.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Format {
    /// A terminal table of per-strategy summaries and B-tree state.
    Table,
    /// The full results document as JSON.
    Json,
    /// One CSV row per batch.
    Csv,
    /// Markdown: summary, ms per batch, B-trees, settings.
    Markdown,
}

impl Format {
    /// The exporter for this format.
    pub fn exporter(self) -> Box<dyn Exporter> {
        match self {
            Format::Table => Box::new(table::TableExporter),
            Format::Json => Box::new(json::JsonExporter),
            Format::Csv => Box::new(csv::CsvExporter),
            Format::Markdown => Box::new(markdown::MarkdownExporter),
        }
    }
}
