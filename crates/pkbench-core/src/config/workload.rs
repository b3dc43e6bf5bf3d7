//! The workload a run's settings ask for, built and checked against its engine and strategies.

use super::keys;
use super::settings::{RunSettings, Setting};
use super::workload_kind::WorkloadKind;
use crate::Error;
use crate::doctor::export::{self, EXPORT_SAMPLE_ROWS};
use crate::doctor::export_target;
use crate::engines::EngineKind;
use crate::engines::server::redact_url;
use crate::engines::txn::ClientOptions;
use crate::keys::KeySettings;
use crate::schema::parse as parse_schema;
use crate::strategy::Strategy;
use crate::util::input::{InputKind, read_text};
use crate::values::Sidecar;
use crate::workloads::{
    App, Churn, ConcurrentInsert, InsertGrowth, MemoryCap, OwnSchema, Remedy, Scale, SchemaSizes, Workload,
};
use std::path::Path;
use std::time::Duration;

/// `--warmup` of the concurrent workload when none is given.
const CONCURRENT_WARMUP: Duration = Duration::from_secs(5);

/// The workload `kind` of `settings` on `engine`, with its settings checked against the engine
/// and strategies; file-baseline writes its file in `out_dir`.
pub fn build(
    kind: WorkloadKind,
    settings: &RunSettings,
    engine: EngineKind,
    strategies: &[&'static Strategy],
    out_dir: &Path,
) -> Result<Box<dyn Workload>, Error> {
    refuse_special_settings(kind, settings, engine)?;
    keys::refuse_unused(&settings.given(), strategies)?;
    let keys = keys::key_settings(settings)?;
    let workload = workload(kind, settings, engine, strategies, out_dir, keys)?;
    // After the workload's own checks, whose messages are more specific.
    refuse_unread(kind, settings)?;
    Ok(workload)
}

/// The settings whose refusal says more than "does not apply": checked first, as typed.
fn refuse_special_settings(kind: WorkloadKind, settings: &RunSettings, engine: EngineKind) -> Result<(), Error> {
    if settings.warmup.is_some() && !kind.reads(Setting::Warmup) {
        return Err(Error::InvalidInput("--warmup applies to --workload concurrent and app only; remove it".into()));
    }
    if settings.presort == Some(true) && !kind.reads(Setting::Presort) {
        return Err(Error::InvalidInput("--presort applies to --workload insert-growth only; remove it".into()));
    }
    if !kind.runs_on(engine) {
        let on: Vec<&str> = EngineKind::ALL.iter().filter(|k| kind.runs_on(**k)).map(|k| k.name()).collect();
        return Err(Error::InvalidInput(format!(
            "--workload {kind} does not run on {}: use --engine {}",
            engine.label(),
            on.join(" or --engine ")
        )));
    }
    if settings.keep_db == Some(true) && !kind.reads(Setting::KeepDb) {
        return Err(Error::InvalidInput(
            "--keep-db applies to insert-growth, remedy, churn and scale; remove it for this workload".into(),
        ));
    }
    Ok(())
}

/// Refuses a setting given for a workload that does not read it, rather than ignoring it.
fn refuse_unread(kind: WorkloadKind, settings: &RunSettings) -> Result<(), Error> {
    match settings.given().into_iter().find(|s| !kind.reads(*s)) {
        None => Ok(()),
        Some(setting) => Err(Error::InvalidInput(format!(
            "{} does not apply to --workload {kind} (it is for {}); remove it",
            setting.flag(),
            WorkloadKind::readers(setting).join(", ")
        ))),
    }
}

/// Builds the workload (each kind's own checks included).
fn workload(
    kind: WorkloadKind,
    s: &RunSettings,
    engine: EngineKind,
    strategies: &[&'static Strategy],
    out_dir: &Path,
    keys: KeySettings,
) -> Result<Box<dyn Workload>, Error> {
    Ok(match kind {
        WorkloadKind::InsertGrowth => {
            Box::new(InsertGrowth::new(s.rows(), s.batch(), s.payload(), keys)?.with_presort(s.presort == Some(true)))
        }
        WorkloadKind::Concurrent => {
            let options = ClientOptions { txn: s.txn(), isolation: s.isolation };
            let w = ConcurrentInsert::new(
                s.threads(),
                s.duration(),
                s.warmup.unwrap_or(CONCURRENT_WARMUP),
                s.payload(),
                keys,
            )?
            .with_rate(s.rate)?
            .with_transactions(options);
            for strategy in strategies {
                w.check(strategy, engine.name())?;
            }
            Box::new(w)
        }
        WorkloadKind::FileBaseline => file_baseline(s.rows(), out_dir)?,
        WorkloadKind::Remedy => Box::new(Remedy::new(s.rows(), s.batch(), s.payload(), keys)?),
        WorkloadKind::Scale => Box::new(Scale::new(
            InsertGrowth::new(s.rows(), s.batch(), s.payload(), keys)?,
            s.cache_mb() * 1024 * 1024,
            s.memory_cap_mb.map_or_else(MemoryCap::detect, MemoryCap::given),
        )),
        WorkloadKind::Churn => Box::new(Churn::new(s.rows(), s.batch(), s.payload(), keys)?),
        WorkloadKind::App => Box::new(App::new(s.users(), s.orders_per_user(), s.batch(), keys)?.with_warmup(s.warmup)),
        WorkloadKind::Schema => {
            for strategy in strategies {
                crate::engines::schema_sql::check_strategy(strategy, engine.dialect())?;
            }
            Box::new(own_schema(s, engine, keys)?)
        }
    })
}

/// SQLite against a plain file: needs the SQLite driver.
#[cfg(feature = "sqlite")]
fn file_baseline(rows: u64, out_dir: &Path) -> Result<Box<dyn Workload>, Error> {
    Ok(Box::new(crate::workloads::FileBaseline::new(rows, out_dir.to_path_buf())?))
}

/// SQLite against a plain file: needs the SQLite driver.
#[cfg(not(feature = "sqlite"))]
fn file_baseline(_rows: u64, _out_dir: &Path) -> Result<Box<dyn Workload>, Error> {
    Err(Error::InvalidInput("this build of pkbench has no SQLite driver: rebuild it with the `sqlite` feature".into()))
}

/// The schema workload of `--schema` (and `--values`) or `--like`, read and planned before
/// anything starts.
fn own_schema(s: &RunSettings, engine: EngineKind, keys: KeySettings) -> Result<OwnSchema, Error> {
    let (schema, mut sidecar, name) = match (&s.schema, &s.like) {
        (Some(file), _) => {
            let name =
                file.file_name().map_or_else(|| file.display().to_string(), |n| n.to_string_lossy().into_owned());
            // The file is read in its own syntax; the tables are made for the run's engine.
            let text = read_text(file, InputKind::Schema)?;
            let written_for = crate::schema::detect_engine(&text).unwrap_or(engine);
            (parse_schema(&text, Some(written_for))?, None, name)
        }
        (None, Some(url)) => {
            // Read-only, statistics only: as doctor --export-schema.
            let table = s.table.as_deref().unwrap_or_default();
            let connect = super::engine::connect_options(s)?;
            let (engine, version, tables) = export_target(url, None, table, EXPORT_SAMPLE_ROWS, &connect)?;
            let files = export::render(engine, &version, table, &tables, "--like")?;
            let schema = parse_schema(&files.schema, Some(engine))?;
            (schema, Some(Sidecar::parse(&files.values)?), format!("like {}", redact_url(url)))
        }
        (None, None) => {
            return Err(Error::InvalidInput(
                "--workload schema needs your schema: add --schema FILE.sql (CREATE TABLE statements) or --like URL --table T".into(),
            ));
        }
    };
    if let Some(path) = &s.values {
        if sidecar.is_some() {
            return Err(Error::InvalidInput(
                "--values refines a --schema file; --like reads the values from your table: remove --values".into(),
            ));
        }
        sidecar = Some(Sidecar::parse(&read_text(path, InputKind::Values)?)?);
    }
    let sizes = SchemaSizes {
        rows: s.rows(),
        batch_rows: s.batch(),
        parent_rows: s.parent_rows(),
        children_per_row: s.children_per_row(),
        fk_locality: s.fk_locality(),
        read_locality: s.read_locality(),
        reads: s.reads(),
        rebuild: None,
    };
    OwnSchema::new(&schema, s.table.as_deref(), sidecar.as_ref(), sizes, keys, &name)
}
