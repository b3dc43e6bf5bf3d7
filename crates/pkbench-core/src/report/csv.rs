//! One CSV row per batch (the `results.csv` format).

use super::Exporter;
use crate::Error;
use crate::results::ResultsDoc;

/// CSV exporter.
pub struct CsvExporter;

const HEADER: [&str; 13] = [
    "engine",
    "workload",
    "strategy",
    "batch",
    "rows",
    "rows_total",
    "elapsed_ns",
    "keygen_ns",
    "cache_hits",
    "cache_misses",
    "pages_written",
    "cache_spills",
    "complete",
];

impl Exporter for CsvExporter {
    fn render(&self, doc: &ResultsDoc) -> Result<String, Error> {
        let mut w = ::csv::Writer::from_writer(Vec::new());
        let fail = |e: ::csv::Error| Error::InvalidInput(format!("could not write CSV: {e}"));
        w.write_record(HEADER).map_err(fail)?;
        let opt = |v: Option<u64>| v.map(|v| v.to_string()).unwrap_or_default();
        for run in &doc.runs {
            for b in &run.batches {
                w.write_record([
                    run.engine.clone(),
                    run.workload.clone(),
                    run.strategy.clone(),
                    b.index.to_string(),
                    b.rows.to_string(),
                    b.rows_total.to_string(),
                    b.elapsed_ns.to_string(),
                    b.keygen_ns.to_string(),
                    opt(b.counters.cache_hits),
                    opt(b.counters.cache_misses),
                    opt(b.counters.pages_written),
                    opt(b.counters.cache_spills),
                    run.complete.to_string(),
                ])
                .map_err(fail)?;
            }
        }
        let bytes = w.into_inner().map_err(|e| Error::InvalidInput(format!("could not write CSV: {e}")))?;
        String::from_utf8(bytes).map_err(|e| Error::InvalidInput(format!("CSV is not UTF-8: {e}")))
    }
}
