//! `predict --schema`: the key table's trees after `--rows` rows of each strategy, from the
//! engine's page model fed with the rows `run --schema` would insert. Nothing is written: the
//! trees are printed.

use super::request::{PredictRequest, SchemaRequest};
use crate::Error;
use crate::engines::EngineKind;
use crate::predict::{ModelEngine, SCHEMA_ENGINES, predict_schema};
use crate::results::BtreeStats;
use crate::workloads::{FkLocality, OwnSchema, ReadLocality, SchemaSizes};
use std::fmt::Write as _;
use std::path::Path;

/// A validated `predict --schema`.
#[derive(Clone, Debug)]
pub struct SchemaPlan {
    /// The engine whose page model is fed.
    pub engine: ModelEngine,
    /// The schema file and its flags.
    pub schema: SchemaRequest,
    /// SQLite's page size, bytes.
    pub page_size: u32,
    /// Comma-separated strategy names.
    pub strategies: String,
    /// Rows of the key table.
    pub rows: u64,
    /// Rows per transaction.
    pub batch_rows: u64,
    /// Key-stream seed.
    pub seed: u64,
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
    /// `--schema`'s plan of `request`: an engine that has a schema model, and `--page-size` on
    /// SQLite only.
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
        Ok(SchemaPlan {
            engine,
            schema,
            page_size: request.page_size.unwrap_or(4096),
            strategies: request.strategies.clone(),
            rows: request.rows,
            batch_rows: request.batch_rows,
            seed: request.seed,
        })
    }

    /// Reads the schema (and values) file and models each strategy's trees.
    pub fn run(&self) -> Result<SchemaForecast, Error> {
        let engine = self.engine;
        let read = |path: &Path| {
            std::fs::read_to_string(path).map_err(|e| {
                Error::InvalidInput(format!("could not read '{}': {e}; give the path of the file", path.display()))
            })
        };
        let file = &self.schema.file;
        let schema = crate::schema::parse(&read(file)?, Some(engine))?;
        let sidecar = match &self.schema.values {
            Some(path) => Some(crate::values::Sidecar::parse(&read(path)?)?),
            None => None,
        };
        let sizes = SchemaSizes {
            rows: self.rows,
            batch_rows: self.batch_rows,
            parent_rows: self.schema.parent_rows.unwrap_or(1000),
            children_per_row: 0,
            fk_locality: FkLocality::Recent,
            read_locality: ReadLocality::Recent,
            reads: 0,
        };
        let name = file.display().to_string();
        let table = self.schema.table.as_deref();
        let workload = OwnSchema::new(&schema, table, sidecar.as_ref(), sizes, self.seed, &name)?;
        let strategies = crate::strategy::parse_list(&self.strategies)?;
        let mut trees = Vec::new();
        for s in strategies {
            crate::engines::schema_sql::check_strategy(s, engine.dialect())?;
            trees.push((s.name, predict_schema(&workload, s, engine, self.page_size)?));
        }
        Ok(SchemaForecast {
            engine,
            key_table: workload.plan().key_table().name.clone(),
            rows: self.rows,
            page_size: self.page_size,
            trees,
        })
    }
}

impl SchemaForecast {
    /// The table `pkbench predict --schema` prints: a title line, a header, a line per tree.
    pub fn render(&self) -> String {
        let pages = match self.engine {
            EngineKind::Sqlite => format!("{}-byte pages", self.page_size),
            EngineKind::Postgres | EngineKind::MariaDb | EngineKind::Spider | EngineKind::PostgresFdw => {
                "the server's pages".into()
            }
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
