//! `report.html`: one self-contained page (inline SVG and CSS, no scripts, nothing fetched) with
//! the charts, each with a sentence written from the data, then the summary, the B-trees, and
//! how the run was made.

mod sections;
mod style;

use super::charts::{self, Chart, ReportData};
use super::input::Source;
use super::svg::esc;
use super::svg::line::YScale;
use super::{Exporter, columns};
use crate::Error;
use crate::results::ResultsDoc;
use std::fmt::Write;

/// The HTML page of one results document (`report.html` in a run's folder).
pub struct HtmlExporter;

impl Exporter for HtmlExporter {
    fn render(&self, doc: &ResultsDoc) -> Result<String, Error> {
        Ok(render_html(&[Source::single(doc.clone())]))
    }
}

/// The page for one or more results documents; several are compared on the same charts, each
/// run labelled by its source.
pub fn render_html(sources: &[Source]) -> String {
    render_page(sources, None)
}

/// [`render_html`] with `lead` (HTML, e.g. `pkbench advise`'s verdict) as the page's first
/// section, before the report's title and charts.
pub fn render_page(sources: &[Source], lead: Option<&str>) -> String {
    let data = ReportData::new(sources);
    let charts = charts::all(&data);
    let title = page_title(sources);
    let mut out = String::with_capacity(64 * 1024);
    let _ = write!(
        out,
        "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\
         <meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\
         <meta name=\"color-scheme\" content=\"light dark\">\
         <meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; style-src 'unsafe-inline'\">\
         <meta name=\"generator\" content=\"pkbench {}\"><title>{}</title><style>{}</style></head>\n<body><main>\n",
        crate::VERSION,
        esc(&title),
        style::CSS
    );
    if let Some(lead) = lead {
        out.push_str(lead);
    }
    header(&mut out, sources, &title);
    if charts.is_empty() {
        out.push_str("<p class=\"warn\">No measurements yet: no strategy finished a batch.</p>\n");
    }
    for chart in &charts {
        figure(&mut out, chart);
    }
    sections::summary(&mut out, sources);
    sections::btrees(&mut out, sources);
    sections::phases(&mut out, sources);
    sections::provenance(&mut out, sources);
    let _ = write!(
        out,
        "\n<footer>Written by pkbench {}. This page is self-contained: it loads nothing from the network.</footer>\n</main></body></html>\n",
        crate::VERSION,
    );
    out
}

fn page_title(sources: &[Source]) -> String {
    match sources {
        [one] => {
            let e = &one.doc.environment;
            format!("Primary-key strategies on {} {}", e.engine, e.engine_version)
        }
        many => format!(
            "Primary-key strategies compared: {}",
            many.iter().map(|s| s.label.as_str()).collect::<Vec<_>>().join(" vs ")
        ),
    }
}

fn header(out: &mut String, sources: &[Source], title: &str) {
    let _ = write!(out, "<header><p class=\"kicker\">pkbench report</p><h1>{}</h1>", esc(title));
    for source in sources {
        let prefix = if sources.len() > 1 { format!("{}: ", source.label) } else { String::new() };
        if let Some(line) = columns::settings_line(&source.doc) {
            let _ = write!(out, "<p class=\"lede\">{}</p>", esc(&format!("{prefix}{line}")));
        }
        for run in &source.doc.runs {
            if let Some(error) = &run.error {
                let _ = write!(
                    out,
                    "<p class=\"warn\">{}{} stopped early: {}</p>",
                    esc(&prefix),
                    esc(&run.strategy),
                    esc(error)
                );
            } else if !run.complete {
                let _ = write!(out, "<p class=\"warn\">{}{} did not finish.</p>", esc(&prefix), esc(&run.strategy));
            }
        }
    }
    out.push_str("</header>\n");
}

/// A chart in a `<figure>`: title, the sentence, and the SVG (with a log-scale switch for line
/// charts, done in CSS: both views are in the page, a checkbox shows one).
fn figure(out: &mut String, chart: &Chart) {
    let _ = write!(
        out,
        "<figure id=\"{id}\"><h2>{}</h2><p class=\"shows\">{}</p>",
        esc(&chart.title),
        esc(&chart.shows),
        id = chart.id
    );
    if chart.has_log_view() {
        let _ = write!(
            out,
            "\n<input type=\"checkbox\" class=\"toggle\" id=\"{id}-log\"><label for=\"{id}-log\">log scale</label>\n\
             <div class=\"view lin\">{}</div>\n<div class=\"view log\">{}</div>",
            chart.svg(YScale::Linear, false),
            chart.svg(YScale::Log, false),
            id = chart.id
        );
    } else {
        let _ = write!(out, "\n<div class=\"view\">{}</div>", chart.svg(YScale::Linear, false));
    }
    out.push_str("\n</figure>\n");
}
