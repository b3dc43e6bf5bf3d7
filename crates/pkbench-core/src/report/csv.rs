//! One CSV row per batch (the `results.csv` format).

use super::Exporter;
use crate::Error;
use crate::results::{Counters, ResultsDoc};

/// CSV exporter.
pub struct CsvExporter;

const LEADING: [&str; 8] = ["engine", "workload", "strategy", "batch", "rows", "rows_total", "elapsed_ns", "keygen_ns"];

impl Exporter for CsvExporter {
    fn render(&self, doc: &ResultsDoc) -> Result<String, Error> {
        let mut w = ::csv::Writer::from_writer(Vec::new());
        let fail = |e: ::csv::Error| Error::InvalidInput(format!("could not write CSV: {e}"));
        // Counter columns: every counter any batch reports, in the schema's order.
        let present: Vec<&str> = Counters::default()
            .fields()
            .iter()
            .map(|(name, _)| *name)
            .filter(|name| {
                doc.runs
                    .iter()
                    .flat_map(|r| &r.batches)
                    .any(|b| b.counters.fields().iter().any(|(n, v)| n == name && v.is_some()))
            })
            .collect();
        let header = LEADING.iter().copied().chain(present.iter().copied()).chain(["complete"]);
        w.write_record(header).map_err(fail)?;
        let opt = |v: Option<u64>| v.map(|v| v.to_string()).unwrap_or_default();
        for run in &doc.runs {
            for b in &run.batches {
                let counters = b.counters.fields();
                let counter_cells =
                    present.iter().map(|name| opt(counters.iter().find(|(n, _)| n == name).and_then(|(_, v)| *v)));
                let record = [
                    run.engine.clone(),
                    run.workload.clone(),
                    run.strategy.clone(),
                    b.index.to_string(),
                    b.rows.to_string(),
                    b.rows_total.to_string(),
                    b.elapsed_ns.to_string(),
                    b.keygen_ns.to_string(),
                ]
                .into_iter()
                .chain(counter_cells)
                .chain([run.complete.to_string()]);
                w.write_record(record).map_err(fail)?;
            }
        }
        let bytes = w.into_inner().map_err(|e| Error::InvalidInput(format!("could not write CSV: {e}")))?;
        String::from_utf8(bytes).map_err(|e| Error::InvalidInput(format!("CSV is not UTF-8: {e}")))
    }
}
