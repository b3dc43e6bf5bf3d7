//! What `pkbench predict` is asked, flag by flag, and its validation into one of the three
//! models' plans. Every check that reads several flags together is here, and all of them run
//! before a file is created or a real run starts.

use super::schema::SchemaPlan;
use super::shards::ShardedPlan;
use crate::Error;
use crate::engines::EngineKind;
use crate::predict::{self, CalibrationPlan, Mode, ModelEngine, PredictConfig};
use crate::results::ResultsDoc;
use crate::strategy::{Strategy, parse_list};
use crate::util::time::new_results_dir;
use crate::workloads::OwnSchema;
use std::path::PathBuf;

/// Above this many rows SQLite's default mode is bounded (exact mode holds every key).
pub const EXACT_DEFAULT_MAX_ROWS: u64 = 20_000_000;

/// Where the time model comes from.
#[derive(Clone, Debug, PartialEq)]
pub enum CalibrationSource {
    /// A short real run of each strategy (`--calibrate`).
    Run,
    /// An existing `pkbench run` results.json (`--calibrate-from FILE`).
    File(PathBuf),
}

/// What the forecast is checked against.
#[derive(Clone, Debug, PartialEq)]
pub enum CheckSource {
    /// A real run of this many rows per strategy with the forecast's settings (`--check N`).
    Run(u64),
    /// An existing `pkbench run` results.json of the same settings (`--check-from FILE`).
    File(PathBuf),
}

/// What the sharded model prints.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Format {
    /// A table.
    Table,
    /// JSON.
    Json,
}

/// `--schema FILE.sql` and the flags that go with it.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct SchemaRequest {
    /// The schema file.
    pub file: PathBuf,
    /// The table whose key each strategy replaces (`--table`).
    pub table: Option<String>,
    /// Per-column value settings (`--values FILE.toml`).
    pub values: Option<PathBuf>,
    /// Rows in each referenced table (`--parent-rows`).
    pub parent_rows: Option<u64>,
    /// The strategy whose calibration run rebuilds its tables once measured, timed (advise's
    /// switch-over cost).
    pub rebuild: Option<String>,
}

/// Every flag of `pkbench predict`, as given; [`PredictRequest::validate`] checks them together.
#[derive(Clone, Debug, PartialEq)]
pub struct PredictRequest {
    /// The engine whose pages are modelled.
    pub engine: ModelEngine,
    /// Comma-separated strategy names.
    pub strategies: String,
    /// Rows per strategy.
    pub rows: u64,
    /// Rows per transaction.
    pub batch_rows: u64,
    /// Payload bytes per row.
    pub payload_bytes: u64,
    /// Page cache, MiB.
    pub cache_mb: u64,
    /// Page size, bytes, if given.
    pub page_size: Option<u32>,
    /// Key-stream seed.
    pub seed: u64,
    /// `--exact` or `--bounded`, if given.
    pub mode: Option<Mode>,
    /// Scale model's K, if given.
    pub scale: Option<u64>,
    /// Where the time model comes from, if anywhere.
    pub calibration: Option<CalibrationSource>,
    /// Rows per strategy of the calibration (or of the calibration file read), if not the
    /// engine's default ([`predict::calibrate::default_rows`]).
    pub calibrate_rows: Option<u64>,
    /// The PostgreSQL major version the managed server of a calibration and of a check runs
    /// (`--pg-version`), if not the one pkbench starts by default.
    pub pg_version: Option<u32>,
    /// The folder of the server binaries the managed server of a calibration and of a check
    /// runs (`--server-bin`), if not the ones pkbench starts by default.
    pub server_bin: Option<PathBuf>,
    /// The table a calibration run inserts, if not the page model's plain table: a schema
    /// file's key table with its indexes and parents, as `run --schema` makes it (the key
    /// table's rows as wide as the model's). The time its secondary indexes and foreign keys add,
    /// which the key's tree leaves unexplained, is carried to the target
    /// ([`crate::predict::unexplained`]).
    pub calibrate_on: Option<SchemaRequest>,
    /// Strategies the calibration runs no real run of, each forecast with another's: the
    /// pair's first strategy with its second's costs. Both are among the strategies, the
    /// second is calibrated itself, and its rows land where the first's do
    /// ([`Strategy::places_rows_like`]). Empty by default: the pairs are then chosen as
    /// [`PredictRequest::calibrate_each`] says.
    pub stand_ins: Vec<(String, String)>,
    /// Whether every strategy is calibrated on a run of its own. Otherwise, where no
    /// [`PredictRequest::stand_ins`] are given, a strategy whose rows land where another's do
    /// takes that one's run: in a new calibration, as [`crate::strategy::stand_ins`] pairs them;
    /// from a saved one, a strategy it has no run of takes the first alike strategy's it has.
    pub calibrate_each: bool,
    /// Memory for the database, GiB, if given.
    pub ram_gib: Option<f64>,
    /// What the forecast is checked against, if anything.
    pub check: Option<CheckSource>,
    /// Shards of the sharded model, if given.
    pub shards: Option<u32>,
    /// The sharded model's `range` or `hash`, if given.
    pub sharding: Option<String>,
    /// The sharded model's range split size, MiB, if given.
    pub range_split_mb: Option<f64>,
    /// `--schema` and its flags, if given.
    pub schema: Option<SchemaRequest>,
    /// What the sharded model prints.
    pub format: Format,
    /// Results folder, if given.
    pub out: Option<PathBuf>,
    /// The command line, recorded in results.
    pub command: Vec<String>,
}

impl PredictRequest {
    /// A page-model forecast of `strategies` at `rows` with every other flag at `pkbench
    /// predict`'s default (the batch grows with the rows; no calibration, no check).
    pub fn new(engine: ModelEngine, strategies: &str, rows: u64) -> Self {
        PredictRequest {
            engine,
            strategies: strategies.into(),
            rows,
            batch_rows: predict::scale::default_batch_rows(rows).min(rows),
            payload_bytes: 50,
            cache_mb: 8,
            page_size: None,
            seed: 42,
            mode: None,
            scale: None,
            calibration: None,
            calibrate_rows: None,
            pg_version: None,
            server_bin: None,
            calibrate_on: None,
            stand_ins: Vec::new(),
            calibrate_each: false,
            ram_gib: None,
            check: None,
            shards: None,
            sharding: None,
            range_split_mb: None,
            schema: None,
            format: Format::Table,
            out: None,
            command: Vec::new(),
        }
    }

    /// Refuses, rather than ignores, the first flag given that only the page model reads
    /// (calibration, check, mode, scale, `--ram`, results folder), or of the model's own `also`:
    /// "FLAG is for the page model: `model`; leave FLAG out".
    pub(super) fn refuse_page_model_flags(
        &self,
        also: impl IntoIterator<Item = Option<&'static str>>,
        model: &str,
    ) -> Result<(), Error> {
        let page_model = [
            (self.calibration == Some(CalibrationSource::Run), "--calibrate"),
            (matches!(self.calibration, Some(CalibrationSource::File(_))), "--calibrate-from"),
            (matches!(self.check, Some(CheckSource::Run(_))), "--check"),
            (matches!(self.check, Some(CheckSource::File(_))), "--check-from"),
            (self.mode == Some(Mode::Exact), "--exact"),
            (self.mode == Some(Mode::Bounded), "--bounded"),
            (self.scale.is_some(), "--scale"),
            (self.ram_gib.is_some(), "--ram"),
            (self.pg_version.is_some(), "--pg-version"),
            (self.server_bin.is_some(), "--server-bin"),
            (self.out.is_some(), "--out"),
        ];
        let mut given =
            also.into_iter().flatten().chain(page_model.into_iter().filter_map(|(g, flag)| g.then_some(flag)));
        match given.next() {
            Some(flag) => Err(Error::InvalidInput(format!("{flag} is for the page model: {model}; leave {flag} out"))),
            None => Ok(()),
        }
    }

    /// Checks every flag and the flags together, and chooses the model: the sharded model
    /// with `--shards`, `--sharding` or `--range-split-mb`; else `--schema`'s trees; else the
    /// page model. Reads the files given as calibration or check; creates nothing.
    pub fn validate(self) -> Result<PredictPlan, Error> {
        if self.shards.is_some() || self.sharding.is_some() || self.range_split_mb.is_some() {
            return ShardedPlan::from_request(&self).map(PredictPlan::Sharded);
        }
        if let Some(schema) = &self.schema {
            return SchemaPlan::from_request(&self, schema.clone()).map(|p| PredictPlan::Schema(Box::new(p)));
        }
        PagePlan::from_request(self).map(|plan| PredictPlan::Page(Box::new(plan)))
    }
}

/// A validated request: which model runs, with what.
#[derive(Debug)]
pub enum PredictPlan {
    /// The page model: a results folder, optionally calibrated and checked.
    Page(Box<PagePlan>),
    /// The sharded model: where rows land; printed only.
    Sharded(ShardedPlan),
    /// The key table's trees of a schema file; printed only.
    Schema(Box<SchemaPlan>),
}

/// The calibration a page forecast makes or reads.
#[derive(Clone, Debug)]
pub enum CalibrationStep {
    /// A real run of each strategy as the plan says, saved in the results folder's
    /// `calibration/`.
    Run(CalibrationPlan),
    /// An existing run's batches within its first `rows` rows.
    File {
        /// The run's results.
        doc: Box<ResultsDoc>,
        /// Rows of it to fit on.
        rows: u64,
    },
}

/// What a page forecast is checked against.
#[derive(Clone, Debug)]
pub enum CheckStep {
    /// A real run as the plan says, saved in the results folder's `check/`.
    Run(CalibrationPlan),
    /// An existing run's results.
    File(Box<ResultsDoc>),
}

/// A validated page-model forecast.
#[derive(Clone, Debug)]
pub struct PagePlan {
    /// The engine whose pages are modelled.
    pub engine: ModelEngine,
    /// The strategies, in order.
    pub strategies: Vec<&'static Strategy>,
    /// The model's settings.
    pub config: PredictConfig,
    /// The calibration, if any.
    pub calibration: Option<CalibrationStep>,
    /// The table the calibration's real runs insert, if not the plain table (see
    /// [`PredictRequest::calibrate_on`]).
    pub calibration_table: Option<Box<OwnSchema>>,
    /// Strategies forecast with another's calibration ([`PredictRequest::stand_ins`]).
    pub stand_ins: Vec<(&'static Strategy, &'static Strategy)>,
    /// The table the calibration inserts at the rows the target's model simulates, fed to a
    /// model that keeps its secondary indexes ([`ModelEngine::models_table_indexes`]).
    pub table: Option<Box<OwnSchema>>,
    /// Memory for the database, bytes, if given (else the machine's).
    pub ram_bytes: Option<u64>,
    /// The check, if any.
    pub check: Option<CheckStep>,
    /// The folder of the server binaries of the managed servers the forecast starts (the
    /// calibration's, MyRocks' memtable probe's, the check's), if not the machine's own.
    pub server_bin: Option<PathBuf>,
    /// A larger batch that would let the scale model simulate fewer rows (and finish sooner),
    /// when the batch given holds the automatic scale back.
    pub faster_batch: Option<u64>,
    /// The results folder.
    pub out_dir: PathBuf,
    /// The command line, recorded in results.
    pub command: Vec<String>,
}

impl PagePlan {
    /// The strategies the calibration runs (or reads from a saved run): all but the stand-ins.
    pub fn calibrated_strategies(&self) -> Vec<&'static Strategy> {
        calibrated_strategies(&self.strategies, &self.stand_ins)
    }

    fn from_request(request: PredictRequest) -> Result<PagePlan, Error> {
        if request.format != Format::Table {
            return Err(Error::InvalidInput(
                "--format json is for the sharded model (--shards): the page model writes results.json; leave out --format".into(),
            ));
        }
        let engine = request.engine;
        let capabilities = engine.capabilities();
        if !capabilities.page_model && !capabilities.lsm_model {
            return Err(Error::InvalidInput(format!(
                "predict has no model of {}: use --engine sqlite, postgres, mariadb or myrocks, or --shards for the sharded model",
                engine.label()
            )));
        }
        let strategies = parse_list(&request.strategies)?;
        let config = model_config(&request, &strategies)?;
        let faster_batch = faster_batch(&request, &strategies, &config);
        if request.ram_gib.is_some() && request.calibration.is_none() {
            return Err(Error::InvalidInput(
                "--ram prices cache misses in time: add --calibrate (or --calibrate-from FILE)".into(),
            ));
        }
        let saved = match &request.calibration {
            Some(CalibrationSource::File(path)) => Some(crate::report::load_results(path)?),
            _ => None,
        };
        let stand_ins = stand_ins(&request, &strategies, saved.as_ref())?;
        let calibrated = calibrated_strategies(&strategies, &stand_ins);
        let server_bin = super::servers::server_bin(&request, engine)?;
        let mut calibration_table = None;
        let calibration = match &request.calibration {
            None => None,
            Some(CalibrationSource::Run) => {
                let plan = CalibrationPlan {
                    server_bin: server_bin.clone(),
                    ..CalibrationPlan::for_target(engine, &config, calibrate_rows(&request))?
                };
                plan.workload()?;
                if let Some(files) = &request.calibrate_on {
                    let table = super::schema::workload(files, engine, plan.rows, plan.batch_rows, plan.seed)?;
                    calibration_table = Some(Box::new(table));
                }
                Some(CalibrationStep::Run(plan))
            }
            Some(CalibrationSource::File(path)) => {
                let doc = saved.ok_or_else(|| Error::Internal("a saved calibration not loaded".into()))?;
                let rows = calibrate_rows(&request);
                crate::predict::calibrate::check_results(&doc, engine, &calibrated, rows)
                    .map_err(|e| Error::InvalidInput(format!("--calibrate-from '{}': {e}", path.display())))?;
                Some(CalibrationStep::File { doc: Box::new(doc), rows })
            }
        };
        let table = match &request.calibrate_on {
            Some(files) if engine.models_table_indexes() => {
                let rows = simulated_rows(&config);
                let batch = (config.batch_rows / config.scale).clamp(1, rows);
                Some(Box::new(super::schema::workload(files, engine, rows, batch, config.seed)?))
            }
            _ => None,
        };
        let check = match &request.check {
            None => None,
            Some(CheckSource::Run(rows)) => {
                Some(CheckStep::Run(super::servers::check_plan(engine, &config, *rows, server_bin.clone())?))
            }
            Some(CheckSource::File(path)) => {
                let doc = crate::report::load_results(path)?;
                crate::predict::check::comparable(&doc, &strategies, config.batch_rows, config.rows)
                    .map_err(|e| Error::InvalidInput(format!("--check-from '{}': {e}", path.display())))?;
                Some(CheckStep::File(Box::new(doc)))
            }
        };
        Ok(PagePlan {
            engine,
            strategies,
            config,
            calibration,
            calibration_table,
            stand_ins,
            table,
            ram_bytes: request.ram_gib.map(|gib| (gib * f64::from(1 << 30)) as u64),
            check,
            server_bin,
            faster_batch,
            out_dir: request.out.unwrap_or_else(|| new_results_dir("predict-")),
            command: request.command,
        })
    }
}

/// `strategies` but those forecast with another's calibration.
fn calibrated_strategies(
    strategies: &[&'static Strategy],
    stand_ins: &[(&'static Strategy, &'static Strategy)],
) -> Vec<&'static Strategy> {
    strategies.iter().copied().filter(|s| !stand_ins.iter().any(|(x, _)| x.name == s.name)).collect()
}

/// The request's stand-ins as strategies, each pair checked: both forecast, the second
/// calibrated itself and placing rows as the first does. None given: the pairs
/// [`PredictRequest::calibrate_each`] describes, of a new calibration or of the `saved` one.
fn stand_ins(
    request: &PredictRequest,
    strategies: &[&'static Strategy],
    saved: Option<&ResultsDoc>,
) -> Result<Vec<(&'static Strategy, &'static Strategy)>, Error> {
    if request.calibrate_each && request.calibration.is_none() {
        return Err(Error::InvalidInput(
            "--calibrate-each gives each strategy a calibration run of its own: add --calibrate".into(),
        ));
    }
    if !request.stand_ins.is_empty() && request.calibration.is_none() {
        return Err(Error::InvalidInput("a stand-in takes another strategy's calibration: add --calibrate".into()));
    }
    if request.stand_ins.is_empty() && !request.calibrate_each {
        let rebuilt = request.calibrate_on.as_ref().and_then(|t| t.rebuild.as_deref());
        return Ok(match (&request.calibration, saved) {
            (Some(CalibrationSource::Run), _) if rebuilt.is_none() => crate::strategy::stand_ins(strategies),
            (Some(CalibrationSource::File(_)), Some(doc)) => saved_stand_ins(doc, request.engine, strategies),
            _ => Vec::new(),
        });
    }
    let forecast = |name: &str| {
        strategies.iter().copied().find(|s| s.name == name).ok_or_else(|| {
            Error::InvalidInput(format!("stand-in '{name}' is not among the strategies forecast: add it to -s"))
        })
    };
    let pairs =
        request.stand_ins.iter().map(|(s, c)| Ok((forecast(s)?, forecast(c)?))).collect::<Result<Vec<_>, Error>>()?;
    let rebuilt = request.calibrate_on.as_ref().and_then(|t| t.rebuild.as_deref());
    for (i, &(s, c)) in pairs.iter().enumerate() {
        if pairs[..i].iter().any(|(x, _)| x.name == s.name) {
            return Err(Error::InvalidInput(format!("stand-in '{}' is given twice: give it once", s.name)));
        }
        if rebuilt == Some(s.name) {
            return Err(Error::InvalidInput(format!(
                "{} cannot take another's calibration: its own run is the one rebuilt",
                s.name
            )));
        }
        // A strategy paired with itself is a stand-in too.
        if pairs.iter().any(|(x, _)| x.name == c.name) {
            return Err(Error::InvalidInput(format!(
                "{} cannot take {}'s calibration: {} has no calibration of its own",
                s.name, c.name, c.name
            )));
        }
        if !s.places_rows_like(c) {
            return Err(Error::InvalidInput(format!(
                "{} cannot take {}'s calibration: their rows do not land alike (another key source, order, storage or second key)",
                s.name, c.name
            )));
        }
    }
    Ok(pairs)
}

/// The strategies `doc` has no run of on `engine`, each paired with the first strategy whose rows
/// land alike and that it has a run of (a calibration saved with stand-ins).
fn saved_stand_ins(
    doc: &ResultsDoc,
    engine: ModelEngine,
    strategies: &[&'static Strategy],
) -> Vec<(&'static Strategy, &'static Strategy)> {
    // A run with no batch (one stopped before its first) calibrates nothing.
    let ran = |s: &Strategy| {
        doc.runs.iter().any(|r| r.engine == engine.name() && r.strategy == s.name && !r.batches.is_empty())
    };
    strategies
        .iter()
        .filter(|s| !ran(s))
        .filter_map(|&s| strategies.iter().find(|c| ran(c) && c.places_rows_like(s)).map(|&c| (s, c)))
        .collect()
}

/// The calibration's rows per strategy: the request's, else the engine's default for a new run
/// or a saved one.
pub(super) fn calibrate_rows(request: &PredictRequest) -> u64 {
    let saved = matches!(request.calibration, Some(CalibrationSource::File(_)));
    request.calibrate_rows.unwrap_or_else(|| predict::calibrate::default_rows(request.engine, saved))
}

/// Rows a model of `config` simulates: each batch's rows over the scale, rounded up.
fn simulated_rows(config: &PredictConfig) -> u64 {
    let (batch, k) = (config.batch_rows, config.scale.max(1));
    config.rows / batch * batch.div_ceil(k) + (config.rows % batch).div_ceil(k)
}

/// The page model's settings: the mode and scale chosen for the engine and rows, checked
/// against the engine's model and every strategy's.
fn model_config(request: &PredictRequest, strategies: &[&'static Strategy]) -> Result<PredictConfig, Error> {
    let engine = request.engine;
    let mode = request.mode.unwrap_or_else(|| default_mode(engine, request.rows));
    let config = PredictConfig {
        rows: request.rows,
        batch_rows: request.batch_rows,
        payload_bytes: request.payload_bytes,
        seed: request.seed,
        page_size: request.page_size.or(engine.fixed_page_size()).unwrap_or(4096),
        cache_mb: request.cache_mb,
        mode,
        scale: 1,
    };
    let config = PredictConfig {
        scale: request
            .scale
            .unwrap_or_else(|| auto_scale(engine, request.rows, request.batch_rows, &config, strategies)),
        ..config
    };
    engine.validate_model(&config)?;
    for s in strategies {
        engine.build_model(s, &config)?;
    }
    Ok(config)
}

/// The default batch for the rows ([`predict::scale::default_batch_rows`]) when it is larger
/// than the batch given and would let the automatic scale simulate fewer rows.
fn faster_batch(request: &PredictRequest, strategies: &[&'static Strategy], config: &PredictConfig) -> Option<u64> {
    let batch = predict::scale::default_batch_rows(request.rows);
    if request.scale.is_some() || batch <= request.batch_rows {
        return None;
    }
    let k = auto_scale(request.engine, request.rows, batch, config, strategies);
    (k > config.scale).then_some(batch)
}

/// The scale model chosen for `rows` in batches of `batch_rows` when `--scale` is not given:
/// [`predict::scale::auto`] for SQLite, whose scaled cache misses more than the full one below
/// [`predict::scale::AUTO_MIN_CACHE_PAGES`] (docs/findings/predict-accuracy.md, "The automatic
/// scale"); the server models go on doubling down to [`predict::scale::auto_within`]'s floor,
/// since they keep every key they simulate; 1 for the LSM model, which keeps no keys and
/// simulates every row whatever the size.
fn auto_scale(
    engine: ModelEngine,
    rows: u64,
    batch_rows: u64,
    config: &PredictConfig,
    strategies: &[&'static Strategy],
) -> u64 {
    let cache_pages = engine.cache_pages(config);
    match engine {
        EngineKind::MyRocks => 1,
        EngineKind::Sqlite => predict::scale::auto(rows, batch_rows, cache_pages, strategies),
        EngineKind::Postgres | EngineKind::PostgresFdw | EngineKind::MariaDb | EngineKind::Spider => {
            let ceiling = predict::scale::AUTO_MAX_SIMULATED_ROWS;
            predict::scale::auto_within(rows, batch_rows, cache_pages, strategies, ceiling)
        }
    }
}

/// The mode without `--exact` or `--bounded`: exact, but bounded for SQLite above
/// [`EXACT_DEFAULT_MAX_ROWS`] (the server models keep every key of a scale model instead).
fn default_mode(engine: ModelEngine, rows: u64) -> Mode {
    match engine {
        EngineKind::Sqlite if rows > EXACT_DEFAULT_MAX_ROWS => Mode::Bounded,
        EngineKind::Sqlite
        | EngineKind::Postgres
        | EngineKind::MariaDb
        | EngineKind::Spider
        | EngineKind::PostgresFdw
        | EngineKind::MyRocks => Mode::Exact,
    }
}
