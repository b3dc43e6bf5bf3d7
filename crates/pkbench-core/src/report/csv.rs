//! One CSV row per batch (the `results.csv` format), and one per timed step (`phases.csv`).

use super::Exporter;
use crate::Error;
use crate::results::{Counters, ResultsDoc};

/// CSV exporter.
pub struct CsvExporter;

const LEADING: [&str; 10] = [
    "engine",
    "workload",
    "strategy",
    "batch",
    "rows",
    "rows_total",
    "elapsed_ns",
    "keygen_ns",
    "counters_ns",
    "counters_span",
];

impl Exporter for CsvExporter {
    fn render(&self, doc: &ResultsDoc) -> Result<String, Error> {
        let mut w = ::csv::Writer::from_writer(Vec::new());
        let fail = |e: ::csv::Error| Error::Internal(format!("could not write CSV: {e}"));
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
                    b.counters_ns.to_string(),
                    b.counters_span.to_string(),
                ]
                .into_iter()
                .chain(counter_cells)
                .chain([run.complete.to_string()]);
                w.write_record(record).map_err(fail)?;
            }
        }
        let bytes = w.into_inner().map_err(|e| Error::Internal(format!("could not write CSV: {e}")))?;
        String::from_utf8(bytes).map_err(|e| Error::Internal(format!("CSV is not UTF-8: {e}")))
    }
}

/// One CSV row per timed step (`phases.csv`), or `None` when no run has any: latency
/// percentiles, every counter and every figure any step reports, and the note.
pub fn phases_csv(doc: &ResultsDoc) -> Result<Option<String>, Error> {
    let phases = || doc.runs.iter().flat_map(|r| r.phases.iter().map(move |p| (r, p)));
    if phases().next().is_none() {
        return Ok(None);
    }
    let fail = |e: ::csv::Error| Error::Internal(format!("could not write CSV: {e}"));
    let counters: Vec<&str> = Counters::default()
        .fields()
        .iter()
        .map(|(name, _)| *name)
        .filter(|name| phases().any(|(_, p)| p.counters.fields().iter().any(|(n, v)| n == name && v.is_some())))
        .collect();
    let mut figures: Vec<&str> = phases().flat_map(|(_, p)| p.figures.keys().map(String::as_str)).collect();
    figures.sort_unstable();
    figures.dedup();
    const LATENCY: [&str; 7] = ["count", "min_ns", "mean_ns", "p50_ns", "p95_ns", "p99_ns", "max_ns"];
    let mut w = ::csv::Writer::from_writer(Vec::new());
    let header = ["engine", "workload", "strategy", "step", "operations", "rows", "elapsed_ns"]
        .into_iter()
        .map(String::from)
        .chain(LATENCY.iter().map(|l| format!("latency_{l}")))
        .chain(counters.iter().map(|c| c.to_string()))
        .chain(figures.iter().map(|f| f.to_string()))
        .chain(["note".to_string(), "complete".to_string()]);
    w.write_record(header).map_err(fail)?;
    for (run, p) in phases() {
        let latency: Vec<String> = match &p.latency {
            Some(l) => [l.count, l.min_ns]
                .iter()
                .map(u64::to_string)
                .chain([l.mean_ns.to_string()])
                .chain([l.p50_ns, l.p95_ns, l.p99_ns, l.max_ns].iter().map(u64::to_string))
                .collect(),
            None => vec![String::new(); LATENCY.len()],
        };
        let fields = p.counters.fields();
        let counter_cells = counters.iter().map(|name| {
            fields.iter().find(|(n, _)| n == name).and_then(|(_, v)| *v).map(|v| v.to_string()).unwrap_or_default()
        });
        let figure_cells = figures.iter().map(|f| p.figures.get(*f).map(f64::to_string).unwrap_or_default());
        let record = [
            run.engine.clone(),
            run.workload.clone(),
            run.strategy.clone(),
            p.name.clone(),
            p.operations.to_string(),
            p.rows.to_string(),
            p.elapsed_ns.to_string(),
        ]
        .into_iter()
        .chain(latency)
        .chain(counter_cells)
        .chain(figure_cells)
        .chain([p.note.clone().unwrap_or_default(), run.complete.to_string()]);
        w.write_record(record).map_err(fail)?;
    }
    let bytes = w.into_inner().map_err(|e| Error::Internal(format!("could not write CSV: {e}")))?;
    String::from_utf8(bytes).map(Some).map_err(|e| Error::Internal(format!("CSV is not UTF-8: {e}")))
}
