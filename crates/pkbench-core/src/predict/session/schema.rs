//! `predict --schema`: the key table's trees after `--rows` rows of each strategy, from the
//! engine's page model fed with the rows `run --schema` would insert. Nothing is written: the
//! trees are printed.

use super::request::{Format, PredictRequest, SchemaRequest};
use crate::Error;
use crate::engines::EngineKind;
use crate::predict::{ModelEngine, SCHEMA_ENGINES, predict_schema};
use crate::results::BtreeStats;
use crate::strategy::Strategy;
use crate::util::input::{InputKind, read_text};
use crate::workloads::{FkLocality, OwnSchema, ReadLocality, SchemaSizes};
use std::fmt::Write as _;

/// A validated `predict --schema`.
#[derive(Clone, Debug)]
pub struct SchemaPlan {
    /// The engine whose page model is fed.
    pub engine: ModelEngine,
    /// The schema file and its flags.
    pub schema: SchemaRequest,
    /// SQLite's page size, bytes.
    pub page_size: u32,
    /// The strategies, each checked against the engine's dialect.
    pub strategies: Vec<&'static Strategy>,
    /// Rows of the key table.
    pub rows: u64,
    /// The rows `run --schema` would insert, from the schema (and values) file read and checked.
    pub workload: OwnSchema,
}

/// The trees `predict --schema` found: per strategy, the key table's table and indexes.
#[derive(Clone, Debug)]
pub struct SchemaForecast {
    /// The engine modelled.
    pub engine: ModelEngine,
    /// The key table's name.
    pub key_table: String,
    /// Rows of the key table.
    pub rows: u64,
    /// SQLite's page size, bytes.
    pub page_size: u32,
    /// Each strategy's name and trees, in order.
    pub trees: Vec<(&'static str, Vec<BtreeStats>)>,
}

impl SchemaPlan {
    /// `--schema`'s plan of `request`: an engine that has a schema model, `--page-size` on
    /// SQLite only, the schema (and values) file read and planned, every strategy checked.
    pub(super) fn from_request(request: &PredictRequest, schema: SchemaRequest) -> Result<SchemaPlan, Error> {
        let engine = request.engine;
        if !SCHEMA_ENGINES.contains(&engine) {
            let names: Vec<&str> = SCHEMA_ENGINES.iter().map(|e| e.name()).collect();
            return Err(Error::InvalidInput(format!(
                "predict --schema models {}, not {}: use --engine with one of them",
                names.join(", "),
                engine.name()
            )));
        }
        if engine != EngineKind::Sqlite && request.page_size.is_some() {
            return Err(Error::InvalidInput(format!(
                "--page-size is SQLite's: {}'s pages are fixed; leave --page-size out",
                engine.name()
            )));
        }
        // Flags of the other models would be silently ignored: refuse them.
        if request.format != Format::Table {
            return Err(Error::InvalidInput(
                "--format json is for the sharded model (--shards): predict --schema prints the key table's trees; leave out --format".into(),
            ));
        }
        request.refuse_page_model_flags([], "predict --schema prints the key table's trees only")?;
        let page_size = request.page_size.unwrap_or(4096);
        let workload = workload(&schema, engine, request.rows, request.batch_rows, request.seed)?;
        let strategies = crate::strategy::parse_list(&request.strategies)?;
        for s in &strategies {
            crate::engines::schema_sql::check_strategy(s, engine.dialect())?;
        }
        Ok(SchemaPlan { engine, schema, page_size, strategies, rows: request.rows, workload })
    }

    /// Models each strategy's trees.
    pub fn run(&self) -> Result<SchemaForecast, Error> {
        let mut trees = Vec::new();
        for s in &self.strategies {
            trees.push((s.name, predict_schema(&self.workload, s, self.engine, self.page_size)?));
        }
        Ok(SchemaForecast {
            engine: self.engine,
            key_table: self.workload.plan().key_table().name.clone(),
            rows: self.rows,
            page_size: self.page_size,
            trees,
        })
    }
}

/// Reads the schema (and values) file and plans the rows `run --schema` would insert, `rows` of
/// the key table in batches of `batch_rows`: every error of either file before anything is
/// modelled or run.
pub(super) fn workload(
    files: &SchemaRequest,
    engine: ModelEngine,
    rows: u64,
    batch_rows: u64,
    seed: u64,
) -> Result<OwnSchema, Error> {
    let file = &files.file;
    // The file is read in its own syntax (as `run --schema` reads it); its trees are the engine's.
    let text = read_text(file, InputKind::Schema)?;
    let schema = crate::schema::parse(&text, Some(crate::schema::detect_engine(&text).unwrap_or(engine)))?;
    let sidecar = match &files.values {
        Some(path) => Some(crate::values::Sidecar::parse(&read_text(path, InputKind::Values)?)?),
        None => None,
    };
    let sizes = SchemaSizes {
        rows,
        batch_rows,
        parent_rows: files.parent_rows.unwrap_or(1000),
        children_per_row: 0,
        fk_locality: FkLocality::Recent,
        read_locality: ReadLocality::Recent,
        reads: 0,
        rebuild: files.rebuild.clone(),
    };
    let name = file.display().to_string();
    OwnSchema::new(&schema, files.table.as_deref(), sidecar.as_ref(), sizes, seed, &name)
}

impl SchemaForecast {
    /// The table `pkbench predict --schema` prints: a title line, a header, a line per tree.
    pub fn render(&self) -> String {
        let pages = match self.engine {
            EngineKind::Sqlite => format!("{}-byte pages", self.page_size),
            EngineKind::Postgres
            | EngineKind::MariaDb
            | EngineKind::Spider
            | EngineKind::PostgresFdw
            | EngineKind::MyRocks => "the server's pages".into(),
        };
        let mut out = format!(
            "predict --schema ({} page model): {} after {} rows, {pages}\n{:<14} {:<44} {:>12} {:>10} {:>12}\n",
            self.engine.name(),
            self.key_table,
            self.rows,
            "strategy",
            "b-tree",
            "leaf pages",
            "leaf fill",
            "size MiB"
        );
        for (strategy, trees) in &self.trees {
            for t in trees {
                // Writing to a String cannot fail.
                let _ = writeln!(
                    out,
                    "{:<14} {:<44} {:>12} {:>9.1}% {:>12.1}",
                    strategy,
                    t.name,
                    t.leaf_pages,
                    t.leaf_fill * 100.0,
                    t.size_bytes as f64 / (1 << 20) as f64
                );
            }
        }
        out
    }
}
