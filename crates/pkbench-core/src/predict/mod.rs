//! `pkbench predict`: a page-level model of SQLite's B-trees and page cache that forecasts what
//! each strategy's inserts cost at sizes the machine cannot hold.
//!
//! The model replays a strategy's real key stream (the same `--seed` as `pkbench run`) into a
//! simulated database file: every B-tree page with its used bytes, split and rebalanced by
//! SQLite's own rules ([`balance`]), behind a page cache that evicts and spills like SQLite's
//! ([`cache`]). Per batch it counts cache misses, pages written and pages added by splits; at
//! the end, each tree's leaf pages and fill. With a calibration ([`calibrate`]) fitted on a
//! short real run, counts become predicted milliseconds per batch.
//!
//! PostgreSQL's and InnoDB's pages are modelled the same way in [`server`]; every model is a
//! [`PageModel`], chosen by [`ModelEngine`] ([`predict_engine`]).
//!
//! [`sharded`] is another kind of model: where each batch's rows land on a range- or
//! hash-sharded database (`--shards`), with [`range_split`]'s ranges that split as they grow.
//!
//! [`session`] runs a whole `pkbench predict` from its flags: calibration, probes, forecast and
//! check, each step told to an observer.
//!
//! Everything here except [`calibrate`] and [`session`] (the calibration and `--check`'s real
//! runs, the results folder) is pure: no engine, no I/O.

mod balance;
pub mod cache;
pub mod calibrate;
pub mod canary;
mod cells;
pub mod check;
mod descent;
mod engine;
pub mod fit;
pub mod layout;
pub mod lsm;
pub mod memory;
mod model;
pub mod moves;
mod nnls;
mod prefetch;
pub mod probe;
pub mod range_split;
pub mod scale;
mod schema;
mod search;
pub mod server;
pub mod session;
pub mod sharded;
pub mod table;
pub mod terms;
mod tree;
pub mod unexplained;
pub mod working_set;

pub use calibrate::{CacheFloor, Calibration, CalibrationPlan, OpenEngine, from_results, run_real};
pub use engine::{MAX_EXACT_SERVER_ROWS, ModelEngine, PageModel};
pub use model::{BatchCounts, Model};
pub use schema::{SCHEMA_ENGINES, predict_schema, predict_sqlite as predict_schema_sqlite};

use crate::Error;
use crate::control::RunControl;
use crate::engines::EngineInfo;
use crate::results::{BatchResult, Counters, PREDICT_WORKLOAD, RunResult};
use crate::strategy::Strategy;
use crate::workloads::outcome::{self, SettingsBase};
use layout::CACHE_EXTRA_BYTES;
use std::collections::BTreeMap;

/// Engine name recorded in results.
pub const ENGINE: &str = "sqlite-model";

/// Engine version recorded in results: the SQLite whose rules the model follows.
#[cfg(feature = "sqlite")]
pub fn engine_version() -> String {
    format!("model of sqlite {}", rusqlite::version())
}

/// Engine version recorded in results (a build without SQLite cannot name its version).
#[cfg(not(feature = "sqlite"))]
pub fn engine_version() -> String {
    "model of sqlite".into()
}

/// How leaves are represented.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Mode {
    /// Every key of every leaf: exact, memory grows with rows (~16 bytes per row).
    Exact,
    /// Leaves as key ranges with counts: memory grows with leaves (~1/50 of rows).
    Bounded,
}

impl Mode {
    /// Lowercase name.
    pub fn name(self) -> &'static str {
        match self {
            Mode::Exact => "exact",
            Mode::Bounded => "bounded",
        }
    }
}

/// What to predict.
#[derive(Clone, Debug, PartialEq)]
pub struct PredictConfig {
    /// Rows per strategy.
    pub rows: u64,
    /// Rows per transaction.
    pub batch_rows: u64,
    /// Payload bytes per row.
    pub payload_bytes: u64,
    /// Key-stream seed (as `pkbench run --seed`).
    pub seed: u64,
    /// Page size, bytes.
    pub page_size: u32,
    /// Page cache, MiB (as `pkbench run --cache-mb`, i.e. `PRAGMA cache_size=-KiB`).
    pub cache_mb: u64,
    /// Exact or bounded leaves.
    pub mode: Mode,
    /// Scale model: simulate 1/`scale` of the rows with 1/`scale` of the batch and the cache
    /// and multiply the counts by `scale` ([`scale`]); 1 simulates every row.
    pub scale: u64,
}

impl PredictConfig {
    /// Checks sizes; messages say what is allowed.
    pub fn validate(&self) -> Result<(), Error> {
        crate::workloads::InsertGrowth::new(self.rows, self.batch_rows, self.payload_bytes, self.seed)?;
        crate::engines::sqlite::check_page_size_and_cache(self.page_size, self.cache_mb)?;
        if self.scale == 0 || !self.batch_rows.is_multiple_of(self.scale) {
            return Err(Error::InvalidInput(format!(
                "--scale {} must divide the batch ({} rows): each simulated batch is 1/scale of a real one",
                self.scale, self.batch_rows
            )));
        }
        if self.cache_pages() / self.scale < scale::MIN_SCALED_CACHE_PAGES {
            return Err(Error::InvalidInput(format!(
                "--scale {} leaves fewer than {} pages of a {}-page cache: use a smaller --scale or a larger --cache-mb",
                self.scale,
                scale::MIN_SCALED_CACHE_PAGES,
                self.cache_pages()
            )));
        }
        Ok(())
    }

    /// Pages SQLite's cache holds for `--cache-mb` (`numberOfCachePages()` in pcache.c).
    pub fn cache_pages(&self) -> u64 {
        self.cache_mb * 1024 * 1024 / (u64::from(self.page_size) + CACHE_EXTRA_BYTES)
    }
}

/// Model counts as result counters.
pub fn counters(c: &BatchCounts) -> Counters {
    Counters {
        cache_hits: Some(c.cache.hits),
        cache_misses: Some(c.cache.misses),
        pages_written: Some(c.cache.pages_written),
        cache_spills: Some(c.cache.spills),
        checkpoint_pages: Some(c.cache.checkpoint_pages),
        pages_dirtied: Some(c.cache.pages_dirtied),
        page_splits: Some(c.page_splits),
        wal_hash_searches: Some(c.cache.wal_hash_searches),
        syncs: Some(c.cache.syncs),
        leaf_jumps: Some(c.leaf_jumps),
        ..Counters::default()
    }
}

/// Predicts one strategy: a [`RunResult`] with one batch per transaction (predicted counters;
/// `elapsed_ns` from `calibration`, else 0), the trees' predicted leaves and fill, and the
/// model's parameters in `settings.workload_options`. `on_batch` sees each batch as it is done.
pub fn predict(
    strategy: &Strategy,
    config: &PredictConfig,
    calibration: Option<&Calibration>,
    control: &RunControl,
    on_batch: &mut dyn FnMut(&BatchResult),
) -> Result<RunResult, Error> {
    predict_engine(ModelEngine::Sqlite, strategy, config, calibration, control, on_batch)
}

/// [`predict`] on the model of `engine`.
pub fn predict_engine(
    engine: ModelEngine,
    strategy: &Strategy,
    config: &PredictConfig,
    calibration: Option<&Calibration>,
    control: &RunControl,
    on_batch: &mut dyn FnMut(&BatchResult),
) -> Result<RunResult, Error> {
    predict_table(engine, strategy, config, None, calibration, control, on_batch)
}

/// [`predict_engine`] of a user's `table` ([`ModelEngine::build_table_model`]), if given.
pub fn predict_table(
    engine: ModelEngine,
    strategy: &Strategy,
    config: &PredictConfig,
    table: Option<&crate::workloads::OwnSchema>,
    calibration: Option<&Calibration>,
    control: &RunControl,
    on_batch: &mut dyn FnMut(&BatchResult),
) -> Result<RunResult, Error> {
    engine.validate_model(config)?;
    if let Some(c) = calibration
        && c.plan.engine != engine
    {
        return Err(Error::InvalidInput(format!(
            "the calibration ran on {}, the prediction models {}: calibrate on the engine predicted",
            c.plan.engine.label(),
            engine.label()
        )));
    }
    let started = std::time::Instant::now();
    let mut model = engine.build_table_model(strategy, config, table)?;
    let mut result = empty_result(engine, strategy, config, calibration);
    // Server models replace the SQLite entries with their own (again at the end, with totals).
    model.describe(&mut result.settings.workload_options);
    let mut run = ModelRun {
        engine,
        strategy,
        config,
        calibration,
        cache_bytes: engine.cache_pages(config) * u64::from(config.page_size),
        total: 0,
        simulated: 0,
        peak_model_bytes: 0,
        jumps: 0,
        beyond: BTreeMap::new(),
        regimes: memory::Regimes::default(),
    };
    while run.total < config.rows {
        if control.is_cancelled() {
            result.error = Some(Error::Interrupted.to_string());
            return Ok(result);
        }
        let batch = run.next_batch(model.as_mut(), result.batches.len() as u64);
        if let Some(e) = model.take_error() {
            return Err(e);
        }
        control.set_rows(run.total);
        on_batch(&batch);
        result.batches.push(batch);
        if result.batches.len() % 16 == 1 || run.total == config.rows {
            run.peak_model_bytes = run.peak_model_bytes.max(model.memory_bytes());
        }
    }
    run.finish(model.as_ref(), result, started)
}

/// One strategy's model run, batch by batch, and what it notes on the way.
struct ModelRun<'a> {
    engine: ModelEngine,
    strategy: &'a Strategy,
    config: &'a PredictConfig,
    calibration: Option<&'a Calibration>,
    /// The target's engine cache, bytes.
    cache_bytes: u64,
    /// Rows inserted, and rows the scale model simulated.
    total: u64,
    simulated: u64,
    peak_model_bytes: u64,
    /// Jumps so far (`leaf_jumps`, at the target's scale).
    jumps: u64,
    /// Each cost term beyond the calibration's regimes: its worst ratio and where.
    beyond: BTreeMap<terms::Term, (f64, u64)>,
    regimes: memory::Regimes,
}

impl ModelRun<'_> {
    /// Inserts the next batch into `model` and prices it.
    fn next_batch(&mut self, model: &mut dyn PageModel, index: u64) -> BatchResult {
        let (config, k) = (self.config, self.config.scale);
        let n = config.batch_rows.min(config.rows - self.total);
        let counters = model.insert_batch(n.div_ceil(k)).scaled(k);
        self.simulated += n.div_ceil(k);
        self.total += n;
        self.jumps += counters.leaf_jumps.unwrap_or(0);
        let predicted = self.price(model, &counters, n);
        let ns = |ms: f64| (ms * 1e6).round() as u64;
        BatchResult {
            index,
            rows: n,
            rows_total: self.total,
            elapsed_ns: predicted.map_or(0, |p| ns(p.ms)),
            elapsed_ns_low: predicted.map(|p| ns(p.low)),
            elapsed_ns_high: predicted.map(|p| ns(p.high)),
            keygen_ns: 0,
            counters,
            counters_ns: 0,
            counters_span: 1,
            db_size_bytes: Some(model.size_bytes() * k),
            shards: None,
            machine_ns: None,
            lsm_levels: model.levels(),
        }
    }

    /// A batch's time from the calibration (none without one): its costs, the device's reads
    /// below the engine's cache, and leaf jumps in the target's larger cache.
    fn price(&mut self, model: &dyn PageModel, counters: &Counters, n: u64) -> Option<fit::Predicted> {
        let (engine, k, calibration) = (self.engine, self.config.scale, self.calibration?);
        // The user's other trees, if carried, at this batch's fraction of the target.
        let fraction = self.total as f64 / self.config.rows as f64;
        let mut p = calibration.predict_at(self.strategy.name, counters, n, fraction);
        if let Some(m) = calibration.memory {
            let (misses, files) = (counters.reads(), model.size_bytes() * k);
            // Misses the OS page cache serves cost more in larger files; the rest read the device.
            let growth = calibration.device.map_or(0.0, |d| d.read_growth_ms(engine, misses, files));
            let below = m.device_ms(misses, files) + growth * (1.0 - m.device_share(files));
            (p.ms, p.low, p.high) = (p.ms + below, p.low + below, p.high + below);
            self.regimes.record(m.regime(n, misses, files), self.total, n);
        }
        if let Some(w) = calibration.working_set.as_ref() {
            // A jump costs more in the target's cache (or memtable) than in the calibration's
            // smaller one.
            let in_use = model.jump_in_use(self.cache_bytes, k);
            let jumps = w.growth_ms(counters.leaf_jumps.unwrap_or(0), in_use);
            (p.ms, p.low, p.high) = (p.ms + jumps, p.low + jumps, p.high + jumps);
        }
        for (term, ratio) in calibration.beyond(self.strategy.name, counters, n) {
            let worst = self.beyond.entry(term).or_insert((ratio, self.total));
            if ratio > worst.0 {
                *worst = (ratio, self.total);
            }
        }
        Some(p)
    }

    /// The model's totals, trees and notes in `result`, verified.
    fn finish(
        self,
        model: &dyn PageModel,
        mut result: RunResult,
        started: std::time::Instant,
    ) -> Result<RunResult, Error> {
        let k = self.config.scale;
        let entries = model.entries();
        let verified = entries.iter().copied().min().unwrap_or(0) * k;
        let options = &mut result.settings.workload_options;
        options.insert("model_seconds".into(), format!("{:.1}", started.elapsed().as_secs_f64()));
        options.insert("model_memory_mib".into(), format!("{:.1}", self.peak_model_bytes as f64 / 1048576.0));
        if let Some(hwm) = peak_rss_bytes() {
            options.insert("process_peak_rss_mib".into(), format!("{:.1}", hwm as f64 / 1048576.0));
        }
        model.describe(options);
        self.notes(model, options);
        result.verified_rows = Some(verified);
        result.size_bytes = Some(model.size_bytes() * k);
        result.wal_size_bytes = model.wal_size_bytes(k);
        result.btrees = model.btree_stats().into_iter().map(|b| scale::btree(b, k)).collect();
        if entries.iter().any(|&e| e != self.simulated) || verified < self.total {
            return Err(Error::Verification {
                strategy: self.strategy.name.into(),
                expected: self.total,
                found: verified,
            });
        }
        result.complete = true;
        Ok(result)
    }

    /// What the reader of the times should know: extrapolation beyond the calibration, a leaf
    /// jump priced at the calibration's cache, and the memory regimes the batches crossed.
    fn notes(&self, model: &dyn PageModel, options: &mut BTreeMap<String, String>) {
        if !self.beyond.is_empty() {
            let parts: Vec<String> = self
                .beyond
                .iter()
                .map(|(t, (ratio, at))| {
                    format!("{} per row up to {ratio:.1}× the calibration's most (at {at} rows)", t.unit())
                })
                .collect();
            options.insert(
                "extrapolation".into(),
                format!("beyond the calibration's regimes: {}; read those batches' times with care", parts.join("; ")),
            );
        }
        let unprobed = self.calibration.filter(|c| c.working_set.is_none() && c.device.is_some());
        if self.engine == ModelEngine::MyRocks {
            if unprobed.is_some() && self.jumps > 0 {
                options.insert("working_set".into(), format!(
                    "not probed: no MyRocks server could be started here to probe its memtable, so an insert inside the memtable's key range is priced as in the calibration's memtable, not the target's {:.1} MiB, where it descends a larger skip list; random keys' times may be low",
                    lsm::Shape::MYROCKS.memtable_bytes / 1048576.0
                ));
            }
        } else if let Some(c) = unprobed {
            let target = working_set::in_use(self.cache_bytes, model.size_bytes() * self.config.scale);
            let calibrated = c.plan.cache_pages() * u64::from(c.plan.page_size);
            if target > 2 * calibrated {
                options.insert(
                    "working_set".into(),
                    format!(
                        "not probed on {}: a leaf jump is priced as in the calibration's {:.1} MiB cache, not the target's {:.1} MiB, where the CPU goes further for it; random keys' times may be low",
                        self.engine.label(),
                        calibrated as f64 / 1048576.0,
                        target as f64 / 1048576.0
                    ),
                );
            }
        }
        if let Some(m) = self.calibration.and_then(|c| c.memory) {
            options.insert("memory_regimes".into(), self.memory_note(&m));
        }
    }

    /// The memory regimes the batches crossed, and how the device's reads were priced.
    fn memory_note(&self, m: &memory::Memory) -> String {
        let gib = |b: u64| b as f64 / f64::from(1 << 30);
        let device = match (self.regimes.reaches_device(), m.device_extra_ms) {
            (false, _) => String::new(),
            (true, _) if m.direct_io => {
                "; the engine reads its files past the OS page cache (O_DIRECT), so every miss is a device read, as in the calibration".into()
            }
            (true, Some(ms)) => format!(
                "; the device's reads are the probe's alone (+{:.1} µs each over a cached read): the calibration fit in memory",
                ms * 1000.0
            ),
            (true, None) => {
                "; the device's reads are not priced: the probe could not bypass the OS cache in this folder".into()
            }
        };
        format!(
            "{} (--ram {:.2} GiB: {:.2} GiB for the OS page cache beside the engine's){device}",
            self.regimes.describe(),
            gib(m.ram_bytes),
            gib(m.os_cache_bytes())
        )
    }
}

fn empty_result(
    engine: ModelEngine,
    strategy: &Strategy,
    config: &PredictConfig,
    calibration: Option<&Calibration>,
) -> RunResult {
    let mut options = BTreeMap::new();
    options.insert("model".into(), "SQLite B-tree balance rules + pager cache (LRU, 90% dirty spill)".into());
    options.insert("mode".into(), config.mode.name().into());
    options.insert("page_size".into(), config.page_size.to_string());
    options.insert("cache_mb".into(), config.cache_mb.to_string());
    options.insert("cache_pages".into(), config.cache_pages().to_string());
    let k = config.scale;
    if k > 1 {
        let checkpoints = match engine {
            ModelEngine::Sqlite => {
                format!("a checkpoint every {} WAL frames", (cache::AUTOCHECKPOINT_FRAMES / k).max(1))
            }
            ModelEngine::Postgres | ModelEngine::PostgresFdw => {
                format!("a checkpoint every 2 WAL segments of 1/{k} of 16 MiB")
            }
            ModelEngine::MariaDb | ModelEngine::Spider => "no checkpoints modelled".into(),
            ModelEngine::MyRocks => "no LSM model".into(),
        };
        options.insert(
            "scale".into(),
            format!(
                "1/{k}: simulated {} rows in batches of {} with a {}-page cache and {checkpoints}; counts, pages and sizes ×{k} (syncs as counted)",
                config.rows.div_ceil(k),
                config.batch_rows / k,
                engine.cache_pages(config) / k,
            ),
        );
    }
    options.insert("size_bytes".into(), "main database file; the WAL's in wal_size_bytes".into());
    match calibration {
        Some(c) => c.describe(strategy.name, &mut options),
        None => {
            options.insert("timing".into(), "counts only, no calibration (elapsed_ns = 0)".into());
        }
    }
    let description = crate::engines::dialect::describe(engine.dialect(), strategy);
    let engine = EngineInfo { name: engine.model_name(), version: engine.model_version() };
    let base = SettingsBase {
        rows: config.rows,
        batch_rows: config.batch_rows,
        payload_bytes: config.payload_bytes,
        keys: config.seed.into(),
        insert_path: "simulated: one B-tree insert per row and tree, one commit per batch".into(),
        options,
    };
    outcome::result_skeleton(engine, description, PREDICT_WORKLOAD, strategy, base)
}

/// The process's peak resident memory, bytes.
pub fn peak_rss_bytes() -> Option<u64> {
    crate::platform::peak_rss_bytes()
}
