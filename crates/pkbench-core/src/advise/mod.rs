//! `pkbench advise`: which key to use for a table, on its engine, and what each choice costs at
//! the size the table will reach — in one step, from the library's own instruments.
//!
//! 1. [`profile`]: read the table — a typical table, the user's schema file, or an existing table
//!    (read-only, as `doctor` reads it: definition, value shapes, rows, current key's scheme).
//! 2. [`target`]: the size to forecast — `--rows`, `--growth` over a `--horizon`, or ten times
//!    today's rows.
//! 3. [`candidates`]: the current key and every strategy that fits the engine.
//! 4. [`shape`]: the engine's schema model of the table for each candidate (every tree), and the
//!    row width the plain page model matches.
//! 5. A calibrated page-model forecast of each candidate at the target (`predict --calibrate`:
//!    short real runs of the user's table, its indexes included, at the target's cache pressure;
//!    90% intervals).
//! 6. [`figures`] per candidate and the [`verdict`], rendered by [`render`].

pub mod candidates;
pub mod contention;
pub mod figures;
mod not_measured;
mod pressure;
pub mod profile;
pub mod references;
pub mod render;
mod report;
pub mod shape;
pub mod switch_over;
pub mod target;
pub mod verdict;
mod version;

pub use contention::{Contention, ContentionRequest};
pub use figures::{CandidateFigures, Estimate, TreeSize};
pub use profile::{CurrentKey, TYPICAL_TABLE_SQL, TableProfile, TableSource};
pub use report::{ADVICE_SCHEMA_VERSION, AdviceReport, ContentionSetup};
pub use target::{Target, TargetRequest};
pub use version::ServerBinaries;

use crate::Error;
use crate::control::RunControl;
use crate::engines::EngineKind;
use crate::predict::session::{
    CalibrationSource, Forecast, Forecasted, PredictEvent, PredictObserver, PredictPlan, PredictRequest,
    PredictSession, SchemaRequest,
};
use crate::results::{ResultsDoc, RunResult};
use crate::util::folder::write_atomically;
use crate::util::text::thousands;
use pressure::Pressure;
use std::path::{Path, PathBuf};
use switch_over::SwitchOver;

/// Page cache of the forecast, MiB, unless given: `pkbench run`'s default.
pub const DEFAULT_CACHE_MB: u64 = 8;

/// Rows per candidate of the calibration's real runs, unless given.
pub const DEFAULT_CALIBRATE_ROWS: u64 = 200_000;

/// What advise is asked.
#[derive(Clone, Debug, PartialEq)]
pub struct AdviseRequest {
    /// The engine, if given (an existing table's is its own).
    pub engine: Option<EngineKind>,
    /// The table.
    pub source: TableSource,
    /// The size to forecast.
    pub target: TargetRequest,
    /// `-s`: the candidates, if chosen.
    pub strategies: Option<String>,
    /// The target's page cache, MiB, if given (else an existing server's own, else
    /// [`DEFAULT_CACHE_MB`]).
    pub cache_mb: Option<u64>,
    /// Rows per candidate of the calibration.
    pub calibrate_rows: u64,
    /// Whether every candidate runs a calibration of its own, also those whose rows land where
    /// an earlier candidate's do (by default they take its calibration:
    /// [`crate::strategy::stand_ins`]; the current key comes first, so it always runs its own).
    pub calibrate_each: bool,
    /// `--pg-version N`: the PostgreSQL major version of the throwaway servers (the
    /// calibration's and the contention check's; else an existing server's own where installed
    /// here, else the one pkbench starts by default).
    pub pg_version: Option<u32>,
    /// `--server-bin DIR`: the folder of the server binaries of the throwaway servers.
    pub server_bin: Option<PathBuf>,
    /// `--shards N`: also place each candidate's rows on N shards.
    pub shards: Option<u32>,
    /// `--sharding range|hash` (with `--shards`; default range).
    pub sharding: Option<String>,
    /// `--insert-rate R`: the contention check at the table's peak arrivals.
    pub contention: Option<ContentionRequest>,
    /// Key-stream seed.
    pub seed: u64,
    /// The results folder.
    pub out_dir: PathBuf,
    /// The command line, recorded in the results.
    pub command: Vec<String>,
}

/// Watches advise's steps.
pub trait AdviseObserver {
    /// Each step, as a line, as it begins.
    fn step(&mut self, line: &str);
}

/// How advise ended.
#[derive(Clone, Debug)]
pub enum Advised {
    /// The answer, saved.
    Done(Box<AdviceReport>),
    /// A stop was asked; what was measured is in the results folder.
    Interrupted(String),
}

impl AdviseRequest {
    /// Reads the table, forecasts every candidate at the target, and decides; saves
    /// `advice.json`, `advice.md` and `advice.html` in the results folder, which it creates (the
    /// files it reads the table into go in its `input/`, the forecast in its `forecast/`).
    pub fn run(&self, control: &RunControl, observer: &mut dyn AdviseObserver) -> Result<Advised, Error> {
        let engine = self.engine()?;
        self.check_flags(engine)?;
        let input = self.out_dir.join("input");
        crate::util::folder::create(&self.out_dir)?;
        crate::util::folder::create(&input)?;
        observer.step(&format!("Reading the table ({})", self.source_words()));
        let mut profile = self.source.read(engine, &input)?;
        let target = self.target.resolve(profile.rows_now)?;
        let candidates = candidates::choose(engine, profile.current_key.as_ref(), self.strategies.as_deref())?;
        let names: Vec<&str> = candidates.iter().map(|s| s.name).collect();
        let stand_ins = if self.calibrate_each { Vec::new() } else { crate::strategy::stand_ins(&candidates) };
        observer.step(&format!(
            "Target: {} rows ({}); candidates: {}",
            thousands(target.rows),
            target.chosen_by,
            names.join(", ")
        ));
        observer.step(&format!("Modelling the table's trees for each candidate ({} model)", engine.name()));
        let table = (!profile.table.is_empty()).then_some(profile.table.as_str());
        let shape = shape::model(
            engine,
            &profile.schema_file,
            table,
            profile.values_file.as_deref(),
            &candidates,
            target.rows,
            self.seed,
        )?;
        profile.references = references::read(&profile.schema_file, &shape.key_table, engine, &profile.table_rows)?;
        // The server's own cache, where advise read one (at least a MiB: the models' smallest).
        let server_cache = profile.cache_bytes.map(|b| (b >> 20).max(1));
        let cache_mb = self.cache_mb.or(server_cache).unwrap_or(DEFAULT_CACHE_MB);
        let mut request = self.forecast_request(engine, &names, target.rows, shape.payload_bytes, cache_mb, &profile);
        request.stand_ins = stand_ins.iter().map(|(s, c)| (s.name.into(), c.name.into())).collect();
        let rebuilt = request.calibrate_on.as_ref().and_then(|c| c.rebuild.clone());
        let binaries = self.binaries(engine, &profile, observer);
        (request.pg_version, request.server_bin) = (binaries.pg_version, binaries.server_bin.clone());
        let PredictPlan::Page(plan) = request.validate()? else {
            return Err(Error::Internal("a forecast without shards or a schema planned another model".into()));
        };
        let pressure = Pressure::of(&plan, engine);
        let calibrated = (candidates.len() - stand_ins.len(), candidates.len());
        observer.step(&self.forecasting_words(target.rows, calibrated, pressure.as_ref()));
        let (forecast, calibration) = match calibrated_forecast(*plan, control, observer)? {
            Ok(done) => done,
            Err(interrupted) => return Ok(Advised::Interrupted(interrupted)),
        };
        let calibrated_on = calibration.as_ref().and_then(not_measured::calibrated_on);
        let runs = CalibrationRuns { doc: calibration.as_ref(), stand_ins: &stand_ins };
        let mut figures = each_candidate(engine, &candidates, &forecast.doc, &runs, &shape, &profile, target.rows);
        let sharded = self.place_on_shards(target.rows, shape.payload_bytes, &mut figures, observer)?;
        let contention = match self.check_contention(
            engine,
            &binaries,
            shape.payload_bytes,
            cache_mb,
            &mut figures,
            control,
            observer,
        ) {
            Err(Error::Interrupted) => {
                return Ok(Advised::Interrupted(format!(
                    "Interrupted during the contention check: the forecast is in {}",
                    forecast.results_dir.display()
                )));
            }
            other => other?,
        };
        let verdict = verdict::decide(&figures, target.rows);
        let switch_over = SwitchOver::read(calibration.as_ref(), rebuilt.as_deref(), profile.rows_now);
        let migration = migration(engine, &profile, &verdict.advised, switch_over.as_ref());
        let mut unmeasured =
            not_measured::for_table(engine, &profile, self.shards.is_some(), contention.as_ref(), pressure.as_ref());
        unmeasured.extend(not_measured::stand_ins(&stand_ins));
        unmeasured.extend(not_measured::of_calibration(&profile, calibration.as_ref(), &forecast.doc));
        let report = AdviceReport {
            schema_version: ADVICE_SCHEMA_VERSION,
            command: self.command.clone(),
            verdict: verdict.line,
            advised: verdict.advised.clone(),
            tied: verdict.tied,
            migration_sql: profile.migration_sql.clone().filter(|_| !migration.is_empty()),
            switch_over: switch_over.filter(|_| !migration.is_empty()),
            migration,
            not_measured: unmeasured,
            table: profile,
            target,
            cache_mb,
            sharded,
            contention,
            payload_bytes: shape.payload_bytes,
            sample_rows: shape.sample_rows,
            calibrated_on,
            candidates: figures,
            why: verdict.why,
            forecast_dir: forecast.results_dir.clone(),
        };
        save(&report, &forecast.doc, &self.out_dir)?;
        Ok(Advised::Done(Box::new(report)))
    }

    /// The calibrated page forecast of the candidates `names` at `rows`, each row carrying
    /// `payload` bytes beside its key, calibrated on the profiled table itself, saved in the
    /// results folder's `forecast/`.
    fn forecast_request(
        &self,
        engine: EngineKind,
        names: &[&str],
        rows: u64,
        payload: u64,
        cache_mb: u64,
        profile: &TableProfile,
    ) -> PredictRequest {
        PredictRequest {
            calibrate_on: Some(SchemaRequest {
                file: profile.schema_file.clone(),
                table: (!profile.table.is_empty()).then(|| profile.table.clone()),
                values: profile.values_file.clone(),
                parent_rows: None,
                // The current key's run rebuilds the table once measured: the switch-over's cost.
                rebuild: profile
                    .current_key
                    .as_ref()
                    .and_then(|k| k.strategy.clone())
                    .filter(|s| names.contains(&s.as_str()) && profile.rows_now > 0),
            }),
            payload_bytes: payload,
            cache_mb,
            seed: self.seed,
            calibration: Some(CalibrationSource::Run),
            calibrate_rows: Some(self.calibrate_rows),
            calibrate_each: self.calibrate_each,
            out: Some(self.out_dir.join("forecast")),
            command: self.command.clone(),
            ..PredictRequest::new(engine, &names.join(","), rows)
        }
    }

    /// The forecast's step: the target, the calibration's rows for `calibrated` (runs, of
    /// candidates) and its cache pressure.
    fn forecasting_words(&self, rows: u64, calibrated: (usize, usize), pressure: Option<&Pressure>) -> String {
        let which = match calibrated {
            (runs, all) if runs < all => format!(" for {runs} of the {all} candidates"),
            _ => String::new(),
        };
        format!(
            "Forecasting each candidate at {} rows: calibration runs of {} rows of your table{which} {}, then the page model",
            thousands(rows),
            thousands(self.calibrate_rows),
            pressure.map_or_else(|| "at the target's cache pressure".to_string(), Pressure::progress_words)
        )
    }

    /// Refuses an engine without a page model, and `--insert-rate`, `--shards` and `--sharding`
    /// values their checks would refuse, before anything runs.
    fn check_flags(&self, engine: EngineKind) -> Result<(), Error> {
        if !engine.capabilities().page_model {
            return Err(Error::InvalidInput(format!(
                "advise forecasts a table's time with the page models of SQLite, PostgreSQL and MariaDB; {} has none: measure it with pkbench run --engine {} (pkbench predict --engine {} --calibrate forecasts the plain table's bytes, levels and time)",
                engine.label(),
                engine.name(),
                engine.name()
            )));
        }
        if let Some(contention) = &self.contention {
            contention.check()?;
        }
        self.check_binaries(engine)?;
        self.check_sharding()
    }

    /// Refuses `--pg-version` and `--server-bin` where no server of theirs would start, and a
    /// `--pg-version` not installed here, before anything runs.
    fn check_binaries(&self, engine: EngineKind) -> Result<(), Error> {
        let flag = match (self.pg_version, &self.server_bin) {
            (Some(_), _) => "--pg-version",
            (None, Some(_)) => "--server-bin",
            (None, None) => return Ok(()),
        };
        if engine == EngineKind::Sqlite {
            return Err(Error::InvalidInput(format!(
                "{flag} applies to the server engines, and this table is on SQLite, which is built into pkbench: leave {flag} out"
            )));
        }
        match self.pg_version {
            Some(major) => crate::config::pg_version_bin_dir(major, engine).map(|_| ()),
            None => Ok(()),
        }
    }

    /// Refuses `--shards` and `--sharding` values the sharded model would, before anything runs.
    fn check_sharding(&self) -> Result<(), Error> {
        let Some(shards) = self.shards else {
            return match self.sharding {
                Some(_) => {
                    Err(Error::InvalidInput("--sharding needs --shards: say how many shards (e.g. --shards 8)".into()))
                }
                None => Ok(()),
            };
        };
        // A key every layout places: the flags alone decide.
        let request = PredictRequest {
            shards: Some(shards),
            sharding: self.sharding.clone(),
            ..PredictRequest::new(EngineKind::Sqlite, "uuid4", target::NEW_TABLE_DEFAULT_ROWS)
        };
        request.validate().map(|_| ())
    }

    /// With `--shards`: each candidate's rows placed on the shards by the sharded model (as
    /// `predict --shards`), its hottest shard's share noted in its figures; the layout in words.
    fn place_on_shards(
        &self,
        rows: u64,
        payload: u64,
        figures: &mut [CandidateFigures],
        observer: &mut dyn AdviseObserver,
    ) -> Result<Option<String>, Error> {
        let Some(shards) = self.shards else { return Ok(None) };
        let sharding = self.sharding.clone().unwrap_or_else(|| "range".into());
        observer.step(&format!("Placing each candidate's rows on {shards} {sharding}-sharded nodes"));
        let mut model = String::new();
        for figure in figures.iter_mut() {
            let request = PredictRequest {
                payload_bytes: payload,
                seed: self.seed,
                shards: Some(shards),
                sharding: Some(sharding.clone()),
                ..PredictRequest::new(EngineKind::Sqlite, &figure.strategy, rows)
            };
            // A candidate the model cannot place (a server-generated key) keeps no share.
            let Ok(PredictPlan::Sharded(plan)) = request.validate() else { continue };
            let mut lines = Forward { observer: &mut *observer, calibration_dir: None };
            let placed = plan.run(&mut lines)?;
            figure.hottest_shard_share = placed.forecasts.first().map(|f| f.skew.hottest_share_median);
            model = placed.model;
        }
        Ok(Some(format!("{shards} {sharding}-sharded nodes ({model})")))
    }

    /// The binaries of the throwaway servers: `--pg-version` or `--server-bin` where given, else
    /// an existing PostgreSQL's own major version where installed here (a step says which).
    fn binaries(
        &self,
        engine: EngineKind,
        profile: &TableProfile,
        observer: &mut dyn AdviseObserver,
    ) -> ServerBinaries {
        if self.pg_version.is_some() || self.server_bin.is_some() {
            return ServerBinaries { pg_version: self.pg_version, server_bin: self.server_bin.clone() };
        }
        let (pg_version, line) = version::calibration_major(engine, profile, version::installed);
        line.inspect(|l| observer.step(l));
        ServerBinaries { pg_version, server_bin: None }
    }

    /// With `--insert-rate`: each candidate at the peak rate from many clients, its figures
    /// noted in `figures`; how the check ran.
    #[allow(clippy::too_many_arguments)]
    fn check_contention(
        &self,
        engine: EngineKind,
        binaries: &ServerBinaries,
        payload: u64,
        cache_mb: u64,
        figures: &mut [CandidateFigures],
        control: &RunControl,
        observer: &mut dyn AdviseObserver,
    ) -> Result<Option<ContentionSetup>, Error> {
        let Some(request) = &self.contention else { return Ok(None) };
        observer.step(&format!(
            "Contention at {} rows/s: {} clients, one candidate at a time, {:.1} s each",
            thousands(request.rate),
            request.clients,
            (request.warmup() + request.measured).as_secs_f64()
        ));
        let names: Vec<&str> = figures.iter().map(|f| f.strategy.as_str()).collect();
        let dir = self.out_dir.join("contention");
        let checked = request.run(engine, binaries, &names, payload, cache_mb, self.seed, &dir, control, observer)?;
        for (name, found) in checked.figures {
            if let Some(figure) = figures.iter_mut().find(|f| f.strategy == name) {
                figure.contention = Some(found);
            }
        }
        Ok(Some(ContentionSetup {
            rate: request.rate,
            clients: request.clients,
            setup: checked.setup,
            skipped: checked.skipped,
            results_dir: checked.dir,
        }))
    }

    /// The engine: an existing table's own (refusing a different `--engine`); else the one
    /// given; else the one a schema file's dump was written by; else SQLite.
    fn engine(&self) -> Result<EngineKind, Error> {
        let target = match &self.source {
            TableSource::Typical => return Ok(self.engine.unwrap_or(EngineKind::Sqlite)),
            TableSource::SchemaFile { file, .. } => {
                // A dump says which engine wrote it; a plain file is SQLite's unless --engine says.
                let written_for = || -> Result<Option<EngineKind>, Error> {
                    let text = crate::util::input::read_text(file, crate::util::input::InputKind::Schema)?;
                    Ok(crate::schema::detect_engine(&text))
                };
                return match self.engine {
                    Some(given) => Ok(given),
                    None => Ok(written_for()?.unwrap_or(EngineKind::Sqlite)),
                };
            }
            TableSource::Existing { target, .. } => target,
        };
        let found = crate::doctor::target_kind(target)?;
        match self.engine {
            Some(given) if given != found => Err(Error::InvalidInput(format!(
                "--engine {} does not match the table's engine ({}): leave --engine out for an existing table",
                given.name(),
                found.name()
            ))),
            Some(_) | None => Ok(found),
        }
    }

    /// The source in a few words (a URL without its password).
    fn source_words(&self) -> String {
        match &self.source {
            TableSource::Typical => "a typical table".into(),
            TableSource::SchemaFile { file, .. } => file.display().to_string(),
            TableSource::Existing { target, table, .. } => {
                format!("{table} in {}, read-only", crate::engines::server::redact_url(target))
            }
        }
    }
}

/// Each candidate's figures, from its forecast and its trees (the first candidate is the
/// current key where the table has one).
fn each_candidate(
    engine: EngineKind,
    candidates: &[&'static crate::strategy::Strategy],
    forecast: &ResultsDoc,
    calibration: &CalibrationRuns<'_>,
    shape: &shape::TableShape,
    profile: &TableProfile,
    target_rows: u64,
) -> Vec<CandidateFigures> {
    let current_key = profile.current_key.as_ref().and_then(|k| k.strategy.as_deref());
    candidates
        .iter()
        .enumerate()
        .filter_map(|(i, s)| {
            let run = forecast.runs.iter().find(|r| r.strategy == s.name)?;
            let trees = shape.trees.iter().find(|(n, _)| *n == s.name).map(|(_, t)| t.as_slice())?;
            let current = i == 0 && current_key == Some(s.name);
            let (calibrated_as, calibrated) = calibration.of(s.name);
            let mut f = figures::figures(s, current, run, calibrated, trees, shape.sample_rows, profile.rows_now);
            f.calibrated_as = calibrated_as.map(String::from);
            let refs = &profile.references;
            f.referencing_bytes = references::bytes_at(refs, s, engine, profile.rows_now, target_rows);
            f.referencing_copy_bytes =
                (!refs.is_empty()).then(|| crate::schema::stored_key_bytes(s, engine, target_rows));
            Some(f)
        })
        .collect()
}

/// The calibration's real runs, and the candidates forecast with another's run.
struct CalibrationRuns<'a> {
    doc: Option<&'a ResultsDoc>,
    stand_ins: &'a [(&'static crate::strategy::Strategy, &'static crate::strategy::Strategy)],
}

impl CalibrationRuns<'_> {
    /// The candidate whose run `strategy`'s forecast took, if another's, and that run.
    fn of(&self, strategy: &str) -> (Option<&'static str>, Option<&RunResult>) {
        let other = self.stand_ins.iter().find(|(s, _)| s.name == strategy).map(|(_, c)| c.name);
        let name = other.unwrap_or(strategy);
        (other, self.doc.and_then(|d| d.runs.iter().find(|r| r.strategy == name)))
    }
}

/// Saves the answer as JSON, Markdown and an HTML page with the forecast's charts.
fn save(report: &AdviceReport, forecast: &ResultsDoc, dir: &Path) -> Result<(), Error> {
    write_atomically(&dir.join("advice.json"), report.to_json()?.as_bytes())?;
    if let Some(sql) = &report.migration_sql {
        write_atomically(&dir.join("migration.sql"), sql.as_bytes())?;
    }
    write_atomically(&dir.join("advice.md"), render::markdown(report).as_bytes())?;
    write_atomically(&dir.join("advice.html"), render::html(report, forecast).as_bytes())
}

/// How to move an existing table to the advised key, what rewriting it costs, and how to measure
/// the two keys on its shape.
fn migration(
    engine: EngineKind,
    profile: &TableProfile,
    advised: &str,
    switch_over: Option<&SwitchOver>,
) -> Vec<String> {
    let Some(key) = &profile.current_key else { return Vec::new() };
    let current = key.strategy.as_deref().unwrap_or_default();
    if current == advised || advised.is_empty() {
        return Vec::new();
    }
    let (source, table) = (&profile.source, &profile.table);
    let mut out = vec![match &profile.migration_sql {
        Some(_) => format!(
            "Doctor's migration script for {table} (what pkbench doctor {source} --table {table} --sql writes) ends this section and is saved as migration.sql. It carries out doctor's advice for the table, which may name another key than the one advised here: review it against this answer and take a backup first; advise has not run it."
        ),
        None => format!(
            "pkbench doctor {source} --table {table} --sql writes a migration script to review (doctor never runs it)."
        ),
    }];
    out.extend(switch_over.map(|s| s.sentence(table, engine.dialect().compact(table).trim())));
    let measure = match &profile.values_file {
        Some(values) => format!(
            "pkbench run --schema {} --values {} --table {table}",
            profile.schema_file.display(),
            values.display()
        ),
        None => format!("pkbench run --schema {} --table {table}", profile.schema_file.display()),
    };
    let both = if current.is_empty() { advised.to_string() } else { format!("{current},{advised}") };
    out.push(format!(
        "{measure} --engine {} -s {both} measures both keys on your table's shape, on a throwaway server or file.",
        profile.engine
    ));
    if advised == "uuid7" && current.starts_with("uuid4") {
        out.push(format!(
            "pkbench run --workload remedy --engine {} measures switching new rows from uuid4 to uuid7 and rebuilding the table, on pkbench's own table.",
            profile.engine
        ));
    }
    out
}

/// A calibrated forecast, and its calibration's results.
type Calibrated = (Box<Forecast>, Option<ResultsDoc>);

/// The calibrated forecast of `plan`, its events forwarded to `observer` as steps: the forecast
/// and the calibration's results; or, where a stop was asked, what was interrupted.
fn calibrated_forecast(
    plan: crate::predict::session::PagePlan,
    control: &RunControl,
    observer: &mut dyn AdviseObserver,
) -> Result<Result<Calibrated, String>, Error> {
    let mut lines = Forward { observer, calibration_dir: None };
    let forecasted = PredictSession::new(plan, control, &mut lines).forecast().map_err(|e| match e {
        crate::predict::session::PredictError::Failed(e) => e,
        crate::predict::session::PredictError::Stopped { error, .. } => error,
    })?;
    Ok(match forecasted {
        Forecasted::Done(forecast) => Ok((forecast, lines.calibration())),
        Forecasted::Interrupted(i) => Err(i.to_string()),
    })
}

/// Passes the forecast's steps on as lines, noting where the calibration was saved.
struct Forward<'a> {
    observer: &'a mut dyn AdviseObserver,
    calibration_dir: Option<PathBuf>,
}

impl Forward<'_> {
    /// The calibration's saved results.
    fn calibration(&self) -> Option<ResultsDoc> {
        crate::report::load_results(&self.calibration_dir.as_ref()?.join("results.json")).ok()
    }
}

impl PredictObserver for Forward<'_> {
    fn event(&mut self, event: &PredictEvent<'_>) {
        if let PredictEvent::CalibrationWritten { dir } = event {
            self.calibration_dir = Some(dir.to_path_buf());
        }
        self.observer.step(&format!("  {event}"));
    }
}
