//! Exporters: turn a [`ResultsDoc`] into text. Each reads only the results document (and the
//! summaries computed from it); adding a format touches this file and one new one.
//! [`ResultsWriter`] writes a run's folder with them.
//!
//! The HTML report and the Markdown's key chart draw their charts with [`svg`]; the charts
//! themselves (one function each) are in `charts/`.

mod charts;
mod columns;
mod csv;
mod engine_settings;
pub(crate) mod fmt;
mod html;
mod input;
mod journal;
mod json;
pub mod levels;
pub(crate) mod markdown;
mod repeats;
mod shards;
mod svg;
pub(crate) mod table;
mod waits;
mod writer;

pub use csv::phases_csv;
pub use fmt::{rate, sparkline};
pub use html::{HtmlExporter, render_html, render_page};
pub use input::{Source, label_sources, load_results, load_sources};
pub use journal::{JOURNAL_FILE, Journal, recover};
pub use markdown::{KEY_CHART_FILE, MarkdownExporter, key_chart_svg, render_markdown};
pub use repeats::render_repeats;
pub use svg::esc as svg_escape;
pub use writer::{PHASES_CSV, ResultsWriter};

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
    /// Markdown: summary, key chart link, ms per batch, B-trees, settings.
    Markdown,
    /// A self-contained HTML page with charts.
    Html,
}

impl Format {
    /// The exporter for this format.
    pub fn exporter(self) -> Box<dyn Exporter> {
        match self {
            Format::Table => Box::new(table::TableExporter),
            Format::Json => Box::new(json::JsonExporter),
            Format::Csv => Box::new(csv::CsvExporter),
            Format::Markdown => Box::new(markdown::MarkdownExporter { chart_link: true }),
            Format::Html => Box::new(html::HtmlExporter),
        }
    }
}
