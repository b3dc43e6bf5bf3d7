//! The real run a calibration makes: the target's cache pressure at fewer rows, enough
//! batches per cost, and the checkpoint scale that keeps its server writing out as often per row.

use crate::Error;
use crate::engine_facts::myrocks;
use crate::engines::server::MAX_CHECKPOINT_SCALE;
use crate::engines::sqlite::{Journal, SqliteSettings, Synchronous};
use crate::predict::layout::CACHE_EXTRA_BYTES;
use crate::predict::{Mode, ModelEngine, PredictConfig};
use crate::workloads::InsertGrowth;
use std::path::PathBuf;

/// Fewest batches per strategy in a calibration (the fit needs [`crate::predict::fit::BATCHES_PER_TERM`]
/// per cost, and a third of them are held out).
pub const MIN_BATCHES_PER_STRATEGY: u64 = 30;
/// Smallest calibration batch: below it a commit's fixed cost would dominate.
pub const MIN_BATCH_ROWS: u64 = 1_000;
/// A run's last batch with less than 1/this of its other batches' rows is a remainder the fit
/// leaves out ([`super::is_remainder`]).
pub(super) const REMAINDER_SHARE: u64 = 2;
/// Smallest calibration cache, pages.
pub const MIN_CACHE_PAGES: u64 = 100;

/// Rows per strategy a new calibration run inserts by default on SQLite and MariaDB: what
/// `pkbench advise` calibrates on. Held to one real run of twenty to fifty times as many rows,
/// its forecasts came as close as a tenth's did, and their intervals covered all (SQLite) or
/// most (MariaDB) of the batches a tenth's covered (docs/findings/predict-accuracy.md,
/// "Calibrating on 200k rows").
pub const DEFAULT_ROWS: u64 = 200_000;
/// Rows per strategy a calibration takes by default elsewhere: on PostgreSQL, where 200k rows'
/// intervals covered none of a real run's late batches that a tenth's covered (the same
/// findings; `pkbench advise` still calibrates on 200k there, with its own check); on MyRocks
/// (which keeps the target's batch, and needs [`MIN_BATCHES_PER_STRATEGY`] of them); and from a
/// saved run (`--calibrate-from`), which costs no inserting.
pub const DEFAULT_ROWS_ELSEWHERE: u64 = 1_000_000;

/// The calibration's rows per strategy when none are given: [`DEFAULT_ROWS`] for a new run on
/// SQLite or MariaDB, else [`DEFAULT_ROWS_ELSEWHERE`].
pub fn default_rows(engine: ModelEngine, saved: bool) -> u64 {
    match engine {
        ModelEngine::Sqlite | ModelEngine::MariaDb if !saved => DEFAULT_ROWS,
        _ => DEFAULT_ROWS_ELSEWHERE,
    }
}

/// Most a calibration's cache per row may stand above the target's and still count as at its
/// pressure: a server's cache is set in whole MiB, which rounds a small one up by a little.
pub const PRESSURE_TOLERANCE: f64 = 1.25;

/// A calibration held above the target's cache pressure by the smallest cache it can run with,
/// or by a server's cache rounded up to whole MiB: its other trees fill a cache that is larger
/// per row than the target's, so the time they add is measured at a lighter pressure than the
/// target's.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct CacheFloor {
    /// The calibration's cache per row ÷ the target's.
    pub times: f64,
    /// Whether the smallest cache a calibration takes set it (else a server's whole MiB did).
    pub least: bool,
    /// Rows per strategy of a calibration whose scaled cache would be at least this one: from
    /// these rows on, it runs at the target's pressure.
    pub rows_at_pressure: u64,
}

/// The real run a calibration makes: the target's cache pressure (cache ÷ rows) at fewer rows,
/// with batches scaled the same way but at least [`MIN_BATCHES_PER_STRATEGY`] of them.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CalibrationPlan {
    /// The engine run (and modelled).
    pub engine: ModelEngine,
    /// Rows per strategy.
    pub rows: u64,
    /// Rows per batch.
    pub batch_rows: u64,
    /// Page cache, KiB (whole MiB on the servers, whose settings take MiB).
    pub cache_kib: u64,
    /// Page size, bytes.
    pub page_size: u32,
    /// Payload bytes per row.
    pub payload_bytes: u64,
    /// Key-stream seed.
    pub seed: u64,
    /// The calibration's checkpoints come after 1/k of the WAL the target's do (PostgreSQL:
    /// [`checkpoint_scale`]); 1 elsewhere.
    pub checkpoint_scale: u64,
    /// The folder of the server binaries the managed server runs, if not the ones pkbench
    /// starts by default (`--server-bin`, a `--pg-version`'s, or a user's server's major
    /// version where its binaries are installed here).
    pub server_bin: Option<PathBuf>,
}

impl CalibrationPlan {
    /// The calibration for predicting `target` on `engine` from `rows` real rows per strategy:
    /// cache = target cache × rows ÷ target rows (at least [`MIN_CACHE_PAGES`]; on a server,
    /// rounded to whole MiB and at least its minimum), batch = target batch × rows ÷ target
    /// rows (between [`MIN_BATCH_ROWS`] and rows ÷ [`MIN_BATCHES_PER_STRATEGY`], [`evened`] so
    /// that the last batch is not a short remainder) — on an LSM engine the target's batch
    /// ([`lsm_batch`]).
    pub fn for_target(engine: ModelEngine, target: &PredictConfig, rows: u64) -> Result<CalibrationPlan, Error> {
        if rows < MIN_BATCHES_PER_STRATEGY * MIN_BATCH_ROWS {
            return Err(Error::InvalidInput(format!(
                "--calibrate-rows {rows} is too few: the calibration needs {MIN_BATCHES_PER_STRATEGY} batches of at least {MIN_BATCH_ROWS} rows (use at least {})",
                MIN_BATCHES_PER_STRATEGY * MIN_BATCH_ROWS
            )));
        }
        let ratio = (rows as f64 / target.rows as f64).min(1.0);
        let page_kib = (u64::from(target.page_size) + CACHE_EXTRA_BYTES) as f64 / 1024.0;
        let min_kib = (MIN_CACHE_PAGES as f64 * page_kib).ceil() as u64;
        let cache_kib = ((target.cache_mb * 1024) as f64 * ratio).round() as u64;
        let batch = match engine.capabilities().lsm_model {
            true => lsm_batch(target.batch_rows, rows)?,
            false => evened(
                ((target.batch_rows as f64 * ratio).round() as u64)
                    .clamp(MIN_BATCH_ROWS, rows / MIN_BATCHES_PER_STRATEGY),
                rows,
            ),
        };
        let least_mb = match engine {
            ModelEngine::Sqlite => 0,
            ModelEngine::Postgres
            | ModelEngine::MariaDb
            | ModelEngine::Spider
            | ModelEngine::PostgresFdw
            | ModelEngine::MyRocks => engine.capabilities().min_cache_mb.unwrap_or(1),
        };
        let cache_kib = whole_mib_on_servers(engine, cache_kib).max(least_mb * 1024);
        Ok(CalibrationPlan {
            engine,
            rows,
            batch_rows: batch,
            cache_kib: cache_kib.max(min_kib),
            page_size: target.page_size,
            payload_bytes: target.payload_bytes,
            seed: target.seed,
            checkpoint_scale: checkpoint_scale(engine, target.rows, rows),
            server_bin: None,
        })
    }

    /// Where the smallest cache a calibration takes (a server's own least, or
    /// [`MIN_CACHE_PAGES`]), or a server's whole MiB, holds this one above `target`'s pressure
    /// by more than [`PRESSURE_TOLERANCE`]: by how much, which of the two, and the rows that
    /// would reach it.
    pub fn cache_floor(&self, target: &PredictConfig) -> Option<CacheFloor> {
        let target_kib = (target.cache_mb * 1024) as f64;
        let scaled_kib = target_kib * (self.rows as f64 / target.rows as f64).min(1.0);
        let times = self.cache_kib as f64 / scaled_kib;
        let rounded_kib = whole_mib_on_servers(self.engine, scaled_kib.round() as u64);
        (times > PRESSURE_TOLERANCE).then(|| CacheFloor {
            times,
            least: self.cache_kib > rounded_kib,
            rows_at_pressure: ((target.rows as f64 * self.cache_kib as f64 / target_kib).ceil() as u64)
                .min(target.rows),
        })
    }

    /// Pages of the calibration's cache (as SQLite counts `cache_size=-KiB`, or the server's).
    pub fn cache_pages(&self) -> u64 {
        match self.engine {
            ModelEngine::Sqlite => self.cache_kib * 1024 / (u64::from(self.page_size) + CACHE_EXTRA_BYTES),
            ModelEngine::Postgres
            | ModelEngine::MariaDb
            | ModelEngine::Spider
            | ModelEngine::PostgresFdw
            | ModelEngine::MyRocks => self.engine.cache_pages(&self.model_config()),
        }
    }

    /// The cache of a server's calibration, MiB.
    pub fn cache_mb(&self) -> u64 {
        self.cache_kib.div_ceil(1024).max(1)
    }

    /// The page model's settings for this run (a server model's; SQLite's cache is finer).
    pub fn model_config(&self) -> PredictConfig {
        PredictConfig {
            rows: self.rows,
            batch_rows: self.batch_rows,
            payload_bytes: self.payload_bytes,
            seed: self.seed,
            page_size: self.page_size,
            cache_mb: self.cache_mb(),
            mode: Mode::Exact,
            scale: 1,
        }
    }

    /// The insert-growth workload of the real run.
    pub fn workload(&self) -> Result<InsertGrowth, Error> {
        InsertGrowth::new(self.rows, self.batch_rows, self.payload_bytes, self.seed)
    }

    /// SQLite settings of the real run in `dir` (WAL, `synchronous=FULL`, as `pkbench run`).
    pub fn sqlite_settings(&self, dir: PathBuf) -> SqliteSettings {
        SqliteSettings {
            dir,
            cache_mb: self.cache_kib.div_ceil(1024).max(1),
            cache_kib: Some(self.cache_kib),
            page_size: self.page_size,
            sync: Synchronous::Full,
            journal: Journal::Wal,
            keep_db: false,
        }
    }

    /// One line: engine, rows, batches and cache; on MyRocks, the tree's sizes if scaled.
    pub fn describe(&self) -> String {
        let tree = match self.engine {
            ModelEngine::MyRocks if self.checkpoint_scale > 1 => format!(
                ", memtable, files and levels at 1/{} of MyRocks' ({:.1} MiB memtable)",
                self.checkpoint_scale,
                (myrocks::MEMTABLE_BYTES / self.checkpoint_scale) as f64 / 1_048_576.0
            ),
            _ => String::new(),
        };
        format!(
            "{}, {} rows per strategy in batches of {}, {} KiB cache ({} pages){tree}",
            self.engine.label(),
            self.rows,
            self.batch_rows,
            self.cache_kib,
            self.cache_pages()
        )
    }
}

/// `kib` as a calibration's cache takes it: as given on SQLite (`cache_size=-KiB`), rounded up
/// to whole MiB on a server.
fn whole_mib_on_servers(engine: ModelEngine, kib: u64) -> u64 {
    match engine {
        ModelEngine::Sqlite => kib,
        ModelEngine::Postgres
        | ModelEngine::MariaDb
        | ModelEngine::Spider
        | ModelEngine::PostgresFdw
        | ModelEngine::MyRocks => kib.div_ceil(1024) * 1024,
    }
}

/// The batch of an LSM engine's calibration: the target's own. A MyRocks transaction holds its
/// rows' write batch index and locks until it commits, so each row costs more the more rows its
/// transaction holds (measured in the MyRocks findings), and a batch scaled down would price the
/// target's rows too low.
fn lsm_batch(target_batch: u64, rows: u64) -> Result<u64, Error> {
    match rows / target_batch.max(1) >= MIN_BATCHES_PER_STRATEGY {
        true => Ok(target_batch),
        false => Err(Error::InvalidInput(format!(
            "--calibrate-rows {rows} is too few for MyRocks' batches of {target_batch}: its calibration keeps the target's batch, since a row costs more the more rows its transaction holds, and needs {MIN_BATCHES_PER_STRATEGY} of them (use --calibrate-rows {} or more, or a smaller --batch)",
            MIN_BATCHES_PER_STRATEGY * target_batch
        ))),
    }
}

/// The batch of at least `batch` rows that splits `rows` into as many batches as `batch` fits
/// whole, the last one a little shorter at most (100,000 rows in batches of 3,333 would end with
/// 10; in batches of 3,334 they end with 3,314).
pub(super) fn evened(batch: u64, rows: u64) -> u64 {
    rows.div_ceil((rows / batch.max(1)).max(1))
}

/// The checkpoint scale of a calibration at `rows` for a target of `target_rows` on `engine`:
/// how much sooner than the target's its server writes its changes out to files
/// ([`ManagedOptions::checkpoint_scale`](crate::engines::server::ManagedOptions::checkpoint_scale)).
///
/// - PostgreSQL: the largest power of two up to both their ratio and [`MAX_CHECKPOINT_SCALE`].
///   A managed cluster checkpoints every two WAL segments; with 1/k of the target's rows and
///   cache, a calibration whose segments are 1/k as large sees what the target sees between
///   checkpoints — the same share of each index's pages written once more as a full-page image
///   — where 16 MiB segments would leave its smaller indexes nearly free of them.
/// - MyRocks: their ratio, up to [`myrocks::MAX_TREE_SCALE`]. A calibration whose memtable,
///   files and levels are 1/k the target's flushes and compacts as often per row, and its
///   unique-key checks meet as many files' bloom filters, as the target's; at the default sizes
///   a 1M-row calibration of uuid4 flushes once and never compacts, so it could not tell what a
///   filter check or a compacted byte costs from what a row does.
/// - The other engines: 1, their own.
pub fn checkpoint_scale(engine: ModelEngine, target_rows: u64, rows: u64) -> u64 {
    let ratio = (target_rows / rows.max(1)).max(1);
    match engine {
        ModelEngine::Postgres => 1 << ratio.min(MAX_CHECKPOINT_SCALE).ilog2(),
        ModelEngine::MyRocks => ratio.min(myrocks::MAX_TREE_SCALE),
        ModelEngine::Sqlite | ModelEngine::MariaDb | ModelEngine::Spider | ModelEngine::PostgresFdw => 1,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::predict::calibrate::recorded_checkpoint_scale;
    use std::collections::BTreeMap;

    #[test]
    fn a_calibration_held_above_the_targets_pressure_says_by_how_much_and_what_reaches_it() {
        let target = |cache_mb| PredictConfig {
            rows: 10_000_000,
            batch_rows: 100_000,
            payload_bytes: 50,
            seed: 1,
            page_size: 16384,
            cache_mb,
            mode: Mode::Exact,
            scale: 1,
        };
        // A 128 MiB buffer pool scaled to 200k of 10M rows is 2.56 MiB; InnoDB takes at least 6.
        let pool = target(128);
        let plan = CalibrationPlan::for_target(ModelEngine::MariaDb, &pool, 200_000).unwrap();
        assert_eq!(plan.cache_kib, 6 * 1024);
        let floor = plan.cache_floor(&pool).expect("held above the target's pressure");
        assert!((floor.times - 6.0 / 2.56).abs() < 1e-9, "{}", floor.times);
        assert!(floor.least, "InnoDB's least pool set it");
        assert_eq!(floor.rows_at_pressure, 468_750);
        let there = CalibrationPlan::for_target(ModelEngine::MariaDb, &pool, floor.rows_at_pressure).unwrap();
        assert_eq!(there.cache_floor(&pool), None, "at those rows the pressure is the target's");
        // A 1 GiB pool scales to 20 MiB: at the target's pressure.
        let large = target(1024);
        assert_eq!(
            CalibrationPlan::for_target(ModelEngine::MariaDb, &large, 200_000).unwrap().cache_floor(&large),
            None
        );
        // 64 MiB of shared_buffers scale to 1.28 MiB: whole MiB make it 2, not PostgreSQL's least.
        let buffers = PredictConfig { page_size: 8192, ..target(64) };
        let rounded = CalibrationPlan::for_target(ModelEngine::Postgres, &buffers, 200_000).unwrap();
        assert_eq!(rounded.cache_kib, 2 * 1024);
        let floor = rounded.cache_floor(&buffers).expect("rounded above the target's pressure");
        assert!(!floor.least, "whole MiB set it");
    }

    /// A 10M-row MyRocks target with a 1 GiB block cache, in batches of `batch_rows`.
    fn myrocks_target(batch_rows: u64) -> PredictConfig {
        PredictConfig {
            rows: 10_000_000,
            batch_rows,
            payload_bytes: 50,
            seed: 1,
            page_size: 16384,
            cache_mb: 1024,
            mode: Mode::Exact,
            scale: 1,
        }
    }

    #[test]
    fn an_lsm_calibration_keeps_the_targets_batch_or_says_how_many_rows_it_needs() {
        let target = myrocks_target(100_000);
        let e = CalibrationPlan::for_target(ModelEngine::MyRocks, &target, 1_000_000).unwrap_err().to_string();
        assert!(e.contains("use --calibrate-rows 3000000 or more, or a smaller --batch"), "{e}");
        let target = PredictConfig { batch_rows: 25_000, ..target };
        let plan = CalibrationPlan::for_target(ModelEngine::MyRocks, &target, 1_000_000).unwrap();
        assert_eq!((plan.batch_rows, plan.cache_mb()), (25_000, 103), "the target's batch, a scaled cache");
    }

    #[test]
    fn a_postgres_calibration_checkpoints_after_the_share_of_the_wal_its_rows_are() {
        let target = PredictConfig {
            rows: 1_000_000,
            batch_rows: 100_000,
            payload_bytes: 50,
            seed: 1,
            page_size: 8192,
            cache_mb: 64,
            mode: Mode::Exact,
            scale: 1,
        };
        let scale = |engine, rows| CalibrationPlan::for_target(engine, &target, rows).unwrap().checkpoint_scale;
        assert_eq!(scale(ModelEngine::Postgres, 100_000), 8, "a tenth of the rows: the power of two below 10");
        assert_eq!(scale(ModelEngine::Postgres, 1_000_000), 1, "the target's own rows");
        assert_eq!(scale(ModelEngine::Sqlite, 100_000), 1, "only PostgreSQL's checkpoints follow its WAL");
        assert_eq!(
            checkpoint_scale(ModelEngine::Postgres, 1_000_000_000, 1_000_000),
            MAX_CHECKPOINT_SCALE,
            "no segment below 1 MiB"
        );
        let settings = |v: &str| BTreeMap::from([("max_wal_size".to_string(), v.to_string())]);
        assert_eq!(recorded_checkpoint_scale(ModelEngine::Postgres, &settings("8MB")), 8);
        assert_eq!(recorded_checkpoint_scale(ModelEngine::Postgres, &settings("64MB")), 1);
        assert_eq!(recorded_checkpoint_scale(ModelEngine::Postgres, &settings("10GB")), 1, "a user's own size");
        assert_eq!(recorded_checkpoint_scale(ModelEngine::MariaDb, &settings("8MB")), 1);
    }

    #[test]
    fn a_new_calibration_takes_200k_rows_on_sqlite_and_mariadb_else_1m() {
        assert_eq!(default_rows(ModelEngine::Sqlite, false), 200_000);
        assert_eq!(default_rows(ModelEngine::MariaDb, false), 200_000);
        assert_eq!(default_rows(ModelEngine::Postgres, false), 1_000_000, "its 200k intervals missed");
        assert_eq!(default_rows(ModelEngine::MyRocks, false), 1_000_000);
        assert_eq!(default_rows(ModelEngine::Sqlite, true), 1_000_000, "a saved run costs no inserting");
    }

    #[test]
    fn a_myrocks_calibration_flushes_and_compacts_a_tree_the_share_of_the_targets_its_rows_are() {
        let target = myrocks_target(25_000);
        let scale = |rows| CalibrationPlan::for_target(ModelEngine::MyRocks, &target, rows).unwrap().checkpoint_scale;
        assert_eq!(scale(1_000_000), 10, "a tenth of the rows: a tenth of the tree, not a power of two");
        assert_eq!(scale(10_000_000), 1, "the target's own rows");
        assert_eq!(checkpoint_scale(ModelEngine::MyRocks, 1_000_000_000, 1_000_000), myrocks::MAX_TREE_SCALE);
        let memtable = |v: &str| BTreeMap::from([("rocksdb_cf_write_buffer_size".to_string(), v.to_string())]);
        assert_eq!(recorded_checkpoint_scale(ModelEngine::MyRocks, &memtable("6710886")), 10);
        assert_eq!(recorded_checkpoint_scale(ModelEngine::MyRocks, &memtable("67108864")), 1);
        assert_eq!(recorded_checkpoint_scale(ModelEngine::MyRocks, &memtable("5000000")), 1, "a user's own size");
    }
}
