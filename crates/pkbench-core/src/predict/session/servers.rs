//! The managed servers a forecast's real runs start: which server binaries (`--pg-version`,
//! `--server-bin`), and the plan of `--check N`'s run.

use super::request::{CalibrationSource, CheckSource, PredictRequest};
use crate::Error;
use crate::predict::{CalibrationPlan, ModelEngine, PredictConfig};
use std::path::PathBuf;

/// `--check N`'s real run: N rows per strategy with the forecast's settings, on the server
/// binaries in `server_bin` if given.
pub(super) fn check_plan(
    engine: ModelEngine,
    config: &PredictConfig,
    rows: u64,
    server_bin: Option<PathBuf>,
) -> Result<CalibrationPlan, Error> {
    if rows > config.rows {
        return Err(Error::InvalidInput(format!(
            "--check {rows} is more than --rows {}: check at most the predicted rows",
            config.rows
        )));
    }
    let plan = CalibrationPlan {
        engine,
        rows,
        batch_rows: config.batch_rows,
        cache_kib: config.cache_mb * 1024,
        page_size: config.page_size,
        payload_bytes: config.payload_bytes,
        seed: config.seed,
        checkpoint_scale: 1,
        server_bin,
    };
    plan.workload()?;
    Ok(plan)
}

/// The folder of the server binaries that the forecast's managed servers run (a calibration's,
/// MyRocks' memtable probe's, a check's): `--server-bin`'s, or `--pg-version`'s where it is
/// installed; `None` for the ones pkbench starts by default. Either flag on SQLite, or without
/// a server to start, is refused.
pub(super) fn server_bin(request: &PredictRequest, engine: ModelEngine) -> Result<Option<PathBuf>, Error> {
    let flag = match (&request.server_bin, request.pg_version) {
        (None, None) => return Ok(None),
        (Some(_), Some(_)) => {
            return Err(Error::InvalidInput(
                "--server-bin and --pg-version both choose the server's binaries: give one of them".into(),
            ));
        }
        (Some(_), None) => "--server-bin",
        (None, Some(_)) => "--pg-version",
    };
    if engine == ModelEngine::Sqlite {
        return Err(Error::InvalidInput(format!(
            "{flag} applies to the server engines, and SQLite is built into pkbench: leave {flag} out, or add --engine postgres, mariadb or myrocks"
        )));
    }
    // MyRocks' memtable probe starts a server of its own for a saved calibration too.
    let starts_a_server = request.calibration == Some(CalibrationSource::Run)
        || matches!(request.check, Some(CheckSource::Run(_)))
        || (engine == ModelEngine::MyRocks && request.calibration.is_some());
    if !starts_a_server {
        return Err(Error::InvalidInput(format!(
            "{flag} chooses the server that --calibrate and --check N start, and this forecast starts none: add --calibrate, or leave {flag} out"
        )));
    }
    match (request.pg_version, &request.server_bin) {
        (Some(major), _) => crate::config::pg_version_bin_dir(major, engine).map(Some),
        (None, Some(dir)) if !dir.is_dir() => Err(Error::InvalidInput(format!(
            "--server-bin {} is not a folder: give the folder that holds the server's binaries",
            dir.display()
        ))),
        (None, dir) => Ok(dir.clone()),
    }
}
