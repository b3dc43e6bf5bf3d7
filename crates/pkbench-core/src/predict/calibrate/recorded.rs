//! A calibration from a saved run: its batches within the first rows asked for, and the plan
//! read back from the settings its engine recorded.

use super::{Calibration, CalibrationPlan};
use crate::Error;
use crate::engine_facts::myrocks;
use crate::engines::postgres::wal_size::WalSize;
use crate::engines::server::MAX_CHECKPOINT_SCALE;
use crate::predict::ModelEngine;
use crate::predict::layout::CACHE_EXTRA_BYTES;
use crate::predict::lsm::Shape as LsmShape;
use crate::predict::probe::Probes;
use crate::results::{ResultsDoc, RunResult};
use crate::strategy::Strategy;
use std::collections::BTreeMap;

/// Fits a [`Calibration`] to an existing real run's batches of `strategies` on `engine` (SQLite,
/// or a PostgreSQL or MariaDB server) within its first `rows` rows (e.g. the first tenth of a
/// long run, to predict the rest); the plan is read from the run's settings. `probes`: as
/// [`Calibration::from_runs`].
pub fn from_results(
    doc: &ResultsDoc,
    engine: ModelEngine,
    strategies: &[&Strategy],
    rows: u64,
    probes: Probes,
) -> Result<Calibration, Error> {
    let (runs, plan) = recorded_runs(doc, engine, strategies, rows)?;
    Calibration::from_runs(&runs, strategies, plan, probes)
}

/// Whether [`from_results`] can fit `doc`: its runs of `strategies` on `engine` within its first
/// `rows` rows, replayed through the model and fitted without the device's probes (whose costs
/// only move the times, never which costs the fit needs). Called before anything is probed.
pub fn check_results(doc: &ResultsDoc, engine: ModelEngine, strategies: &[&Strategy], rows: u64) -> Result<(), Error> {
    from_results(doc, engine, strategies, rows, Probes::default()).map(|_| ())
}

/// The runs of `doc` a calibration fits (see [`from_results`]) and the plan they were run with.
fn recorded_runs(
    doc: &ResultsDoc,
    engine: ModelEngine,
    strategies: &[&Strategy],
    rows: u64,
) -> Result<(Vec<RunResult>, CalibrationPlan), Error> {
    let runs: Vec<RunResult> = doc
        .runs
        .iter()
        .filter(|r| r.engine == engine.name() && strategies.iter().any(|s| s.name == r.strategy))
        .map(|r| {
            let mut r = r.clone();
            r.batches.retain(|b| b.rows_total <= rows);
            r
        })
        .collect();
    let first = runs.iter().find(|r| !r.batches.is_empty()).ok_or_else(|| {
        Error::InvalidInput(format!(
            "the calibration file has no {} batches within its first {rows} rows: pass a results.json from pkbench run --engine {} with these strategies",
            engine.label(),
            engine.name()
        ))
    })?;
    let settings = &first.settings.engine;
    let (page_size, cache_kib) = page_and_cache(engine, settings).ok_or_else(|| {
        Error::InvalidInput(format!(
            "the calibration file does not record {}'s page size and cache: pass a results.json from pkbench run",
            engine.label()
        ))
    })?;
    let plan = CalibrationPlan {
        engine,
        rows: rows.min(first.settings.rows),
        batch_rows: first.settings.batch_rows,
        cache_kib,
        page_size,
        payload_bytes: first.settings.payload_bytes,
        seed: first.settings.seed,
        checkpoint_scale: recorded_checkpoint_scale(engine, settings),
        server_bin: None,
    };
    Ok((runs, plan))
}

pub(super) fn no_batches_of(strategy: &str) -> Error {
    Error::InvalidInput(format!("the calibration has no batches of '{strategy}': calibrate every strategy predicted"))
}

/// The checkpoint scale a recorded run ran with: on PostgreSQL the one whose `max_wal_size`
/// ([`WalSize`]) it records, on MyRocks the one whose memtable (`write_buffer_size`) it records;
/// 1 for any other value, or an engine whose calibration keeps its own.
pub(crate) fn recorded_checkpoint_scale(engine: ModelEngine, settings: &BTreeMap<String, String>) -> u64 {
    match engine {
        ModelEngine::Postgres => {
            let recorded = settings.get("max_wal_size");
            (1..=MAX_CHECKPOINT_SCALE.ilog2())
                .map(|e| 1u64 << e)
                .find(|&k| WalSize::scaled(Some(k)).is_ok_and(|w| recorded == Some(&format!("{}MB", w.max_mb))))
                .unwrap_or(1)
        }
        ModelEngine::MyRocks => myrocks::tree_scale_of(LsmShape::from_settings(settings).memtable_bytes as u64),
        ModelEngine::Sqlite | ModelEngine::MariaDb | ModelEngine::Spider | ModelEngine::PostgresFdw => 1,
    }
}

/// A recorded run's page size and cache (KiB), from the settings its engine reports.
fn page_and_cache(engine: ModelEngine, settings: &BTreeMap<String, String>) -> Option<(u32, u64)> {
    let get = |k: &str| settings.get(k).map(String::as_str);
    match engine {
        ModelEngine::Sqlite => {
            let page: u32 = get("page_size").and_then(|v| v.parse().ok()).unwrap_or(4096);
            let kib = match get("cache_size")?.parse::<i64>().ok()? {
                kib if kib < 0 => kib.unsigned_abs(),
                pages => pages as u64 * (u64::from(page) + CACHE_EXTRA_BYTES) / 1024,
            };
            Some((page, kib))
        }
        ModelEngine::Postgres | ModelEngine::PostgresFdw => {
            // SHOW shared_buffers: "128kB", "8MB", "1GB".
            let v = get("shared_buffers")?;
            let digits = v.trim_end_matches(|c: char| c.is_ascii_alphabetic());
            let unit_kib = match &v[digits.len()..] {
                "kB" => 1,
                "MB" => 1024,
                "GB" => 1 << 20,
                _ => return None,
            };
            Some((8192, digits.parse::<u64>().ok()? * unit_kib))
        }
        ModelEngine::MariaDb | ModelEngine::Spider => {
            let page = get("innodb_page_size").and_then(|v| v.parse().ok()).unwrap_or(16384);
            Some((page, get("innodb_buffer_pool_size")?.parse::<u64>().ok()? / 1024))
        }
        // Block-based tables' default 16 KiB blocks (what MyRocks' cache counts in).
        ModelEngine::MyRocks => Some((16384, get("rocksdb_block_cache_size")?.parse::<u64>().ok()? / 1024)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_recorded_runs_page_and_cache_are_read_per_engine() {
        let settings = |pairs: &[(&str, &str)]| pairs.iter().map(|(k, v)| (k.to_string(), v.to_string())).collect();
        let read = |e, pairs: &[(&str, &str)]| page_and_cache(e, &settings(pairs));
        assert_eq!(read(ModelEngine::Sqlite, &[("cache_size", "-819"), ("page_size", "4096")]), Some((4096, 819)));
        assert_eq!(read(ModelEngine::Sqlite, &[("cache_size", "100")]), Some((4096, 100 * (4096 + 136) / 1024)));
        assert_eq!(read(ModelEngine::Postgres, &[("shared_buffers", "8MB")]), Some((8192, 8192)));
        assert_eq!(read(ModelEngine::Postgres, &[("shared_buffers", "128kB")]), Some((8192, 128)));
        assert_eq!(read(ModelEngine::Postgres, &[("shared_buffers", "lots")]), None);
        assert_eq!(read(ModelEngine::MariaDb, &[("innodb_buffer_pool_size", "6291456")]), Some((16384, 6144)));
        assert_eq!(read(ModelEngine::MariaDb, &[]), None);
    }
}
