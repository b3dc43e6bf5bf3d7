//! The table's shape in the page model's terms: the candidates' trees from the engine's schema
//! model (`predict --schema`), and the payload per row that gives the plain page model's table
//! the same bytes per row as the user's table, so that its calibrated time forecast inserts
//! rows as wide as the user's.

use crate::Error;
use crate::control::RunControl;
use crate::predict::session::{PredictPlan, PredictRequest, SchemaForecast, SchemaRequest};
use crate::predict::{Mode, ModelEngine, PredictConfig, predict_engine};
use crate::results::BtreeStats;
use crate::strategy::Strategy;
use std::path::Path;

/// Rows of the schema model whose trees are scaled to the target (a larger target's trees are
/// this sample's times the target's rows over these).
pub const SAMPLE_ROWS: u64 = 100_000;

/// The candidates' trees at [`SAMPLE_ROWS`] (or the target, when smaller), and the payload that
/// matches the table's row width.
#[derive(Clone, Debug)]
pub struct TableShape {
    /// The key table's name in the schema.
    pub key_table: String,
    /// Rows the trees were modelled at.
    pub sample_rows: u64,
    /// Each candidate's trees (table and every index) at `sample_rows`.
    pub trees: Vec<(&'static str, Vec<BtreeStats>)>,
    /// Payload bytes per row of the plain page model whose table takes the same bytes per row as
    /// the user's (with the engine-assigned integer key).
    pub payload_bytes: u64,
}

/// Models the schema file's key table for every candidate and matches its row width.
pub fn model(
    engine: ModelEngine,
    schema_file: &Path,
    table: Option<&str>,
    values: Option<&Path>,
    candidates: &[&'static Strategy],
    target_rows: u64,
    seed: u64,
) -> Result<TableShape, Error> {
    let sample_rows = SAMPLE_ROWS.min(target_rows);
    // The integer key's table is the one whose width the plain model matches: model it always.
    let mut names: Vec<&str> = candidates.iter().map(|s| s.name).collect();
    if !names.contains(&"int") {
        names.push("int");
    }
    let request = PredictRequest {
        batch_rows: sample_rows.min(10_000),
        payload_bytes: 0,
        cache_mb: super::DEFAULT_CACHE_MB,
        seed,
        calibrate_rows: Some(sample_rows),
        schema: Some(SchemaRequest {
            file: schema_file.to_path_buf(),
            table: table.map(String::from),
            values: values.map(Path::to_path_buf),
            parent_rows: None,
            rebuild: None,
        }),
        ..PredictRequest::new(engine, &names.join(","), sample_rows)
    };
    let forecast: SchemaForecast = match request.validate()? {
        PredictPlan::Schema(plan) => plan.run()?,
        PredictPlan::Page(_) | PredictPlan::Sharded(_) => {
            return Err(Error::Internal("a request with a schema file planned another model".into()));
        }
    };
    let int = crate::strategy::find("int")?;
    let int_trees = forecast.trees.iter().find(|(name, _)| *name == "int").map(|(_, trees)| trees.as_slice());
    let user_row = table_bytes(int_trees.unwrap_or_default(), &forecast.key_table) as f64 / sample_rows as f64;
    let plain = |payload| plain_row_bytes(engine, int, payload, sample_rows, seed);
    let (empty, wide) = (plain(0)?, plain(PROBE_PAYLOAD)?);
    // Bytes per row grow linearly with the payload (at the fill the key order keeps).
    let per_payload_byte = (wide - empty) / PROBE_PAYLOAD as f64;
    let payload = if per_payload_byte > 0.0 { ((user_row - empty) / per_payload_byte).round().max(0.0) } else { 0.0 };
    let trees = forecast.trees.into_iter().filter(|(name, _)| candidates.iter().any(|c| c.name == *name)).collect();
    Ok(TableShape { key_table: forecast.key_table, sample_rows, trees, payload_bytes: payload as u64 })
}

/// Payload of the second plain model whose row width is compared with the first's.
const PROBE_PAYLOAD: u64 = 200;

/// The key table's own tree (the table, not its indexes), bytes.
fn table_bytes(trees: &[BtreeStats], key_table: &str) -> u64 {
    trees.iter().filter(|t| t.kind == "table" && t.name.eq_ignore_ascii_case(key_table)).map(|t| t.size_bytes).sum()
}

/// Bytes per row of the plain page model's table tree with `payload` bytes per row.
fn plain_row_bytes(engine: ModelEngine, strategy: &Strategy, payload: u64, rows: u64, seed: u64) -> Result<f64, Error> {
    let config = PredictConfig {
        rows,
        batch_rows: rows.min(10_000),
        payload_bytes: payload,
        seed,
        page_size: engine.fixed_page_size().unwrap_or(4096),
        cache_mb: super::DEFAULT_CACHE_MB,
        mode: Mode::Exact,
        scale: 1,
    };
    let run = predict_engine(engine, strategy, &config, None, &RunControl::new(), &mut |_| {})?;
    let table: u64 = run.btrees.iter().filter(|t| t.kind == "table").map(|t| t.size_bytes).sum();
    Ok(table as f64 / rows as f64)
}
