//! The real engines of a calibration or check run: SQLite in the run's folder, or a managed
//! server with the plan's cache. Behind a trait, so a forecast can be tested on another.

use crate::Error;
use crate::engines::{Engine, EngineKind};
use crate::predict::CalibrationPlan;
use crate::results::Environment;
use std::path::{Path, PathBuf};

/// A real engine opened for one strategy's run.
pub struct RealEngine {
    /// The engine.
    pub engine: Box<dyn Engine>,
    /// The environment it runs in.
    pub environment: Environment,
    /// The folder it writes to (where the device probes time).
    pub data_dir: PathBuf,
}

/// Opens the real engine of each strategy's calibration or check run.
pub trait RealEngines {
    /// A fresh engine for a run as `plan` says, its results saved in `dir`.
    fn open(&mut self, plan: &CalibrationPlan, dir: &Path) -> Result<RealEngine, Error>;
}

/// SQLite in the run's folder, or a managed server with the plan's cache (stopped and removed
/// when dropped).
#[derive(Clone, Copy, Debug, Default)]
pub struct ManagedEngines;

impl RealEngines for ManagedEngines {
    fn open(&mut self, plan: &CalibrationPlan, dir: &Path) -> Result<RealEngine, Error> {
        let (engine, data_dir) = match plan.engine {
            EngineKind::Sqlite => open_sqlite(plan, dir)?,
            EngineKind::Postgres
            | EngineKind::MariaDb
            | EngineKind::Spider
            | EngineKind::PostgresFdw
            | EngineKind::MyRocks => open_managed(plan, dir)?,
        };
        let info = engine.info();
        let environment = Environment::detect(info.name, &info.version, &data_dir);
        Ok(RealEngine { engine, environment, data_dir })
    }
}

#[cfg(feature = "sqlite")]
fn open_sqlite(plan: &CalibrationPlan, dir: &Path) -> Result<(Box<dyn Engine>, PathBuf), Error> {
    let engine = crate::engines::sqlite::SqliteEngine::new(plan.sqlite_settings(dir.to_path_buf()))?;
    Ok((Box::new(engine), dir.into()))
}

#[cfg(not(feature = "sqlite"))]
fn open_sqlite(_plan: &CalibrationPlan, _dir: &Path) -> Result<(Box<dyn Engine>, PathBuf), Error> {
    Err(Error::InvalidInput(
        "this pkbench was built without the 'sqlite' feature: rebuild with --features sqlite to calibrate or check on SQLite".into(),
    ))
}

fn open_managed(plan: &CalibrationPlan, dir: &Path) -> Result<(Box<dyn Engine>, PathBuf), Error> {
    use crate::engines::server::{ManagedOptions, ServerSettings, ServerTarget};
    let settings = ServerSettings {
        target: ServerTarget::Managed(ManagedOptions {
            server_bin: plan.server_bin.clone(),
            checkpoint_scale: Some(plan.checkpoint_scale),
            ..ManagedOptions::default()
        }),
        cache_mb: plan.cache_mb(),
        durable_commits: true,
        shards: None,
    };
    let (engine, data) = crate::engines::open_server(plan.engine, &settings)?;
    Ok((engine, data.unwrap_or_else(|| dir.into())))
}
