//! The extension point of `pkbench predict`: one [`PageModel`] per engine, chosen by
//! [`ModelEngine`].

use super::layout::Layout;
use super::model::Model;
use super::server::innodb::{self, InnodbModel};
use super::server::postgres::{self, PostgresModel};
use super::{Mode, PredictConfig};
use crate::Error;
use crate::engines::EngineKind;
use crate::results::{BtreeStats, Counters};
use crate::strategy::Strategy;
use crate::workloads::OwnSchema;
use std::collections::BTreeMap;

/// Most rows a server model simulates: it keeps every key, and 20M `uuid4` rows peaked at
/// 642 MB (`/usr/bin/time -v pkbench predict --engine postgres -s int,uuid7,uuid4 -n 20M`), so
/// 100M stay near 3.2 GB, under the machine budget the issue sets (4 GB). More rows are
/// predicted by a scale model ([`super::scale`]).
pub const MAX_EXACT_SERVER_ROWS: u64 = 100_000_000;

/// A simulated database of one strategy, fed its key stream batch by batch.
pub trait PageModel {
    /// Inserts the next `n` rows as one transaction and returns what the engine would count.
    fn insert_batch(&mut self, n: u64) -> Counters;
    /// Entries found by walking every tree (each must hold one per row).
    fn entries(&self) -> Vec<u64>;
    /// Per-tree statistics as the engine's own tools report them.
    fn btree_stats(&self) -> Vec<BtreeStats>;
    /// Bytes on disk the model accounts for (its `describe` says which).
    fn size_bytes(&self) -> u64;
    /// Size of the write-ahead log file of a 1/`scale` scale model scaled up, where the model
    /// has one.
    fn wal_size_bytes(&self, _scale: u64) -> Option<u64> {
        None
    }
    /// Approximate memory the model holds, bytes.
    fn memory_bytes(&self) -> u64;
    /// The memory the last batch's jumps (`leaf_jumps`) landed in, bytes, where the
    /// working-set probe's curve prices them: a B-tree's cache in use (the engine's cache of
    /// `cache_bytes`, or its files if smaller) of a 1/`scale` model scaled up.
    fn jump_in_use(&self, cache_bytes: u64, scale: u64) -> u64 {
        super::working_set::in_use(cache_bytes, self.size_bytes() * scale)
    }
    /// What stopped the rows of a user's table the model is fed, once (a model fed its own key
    /// stream never stops).
    fn take_error(&mut self) -> Option<Error> {
        None
    }
    /// An LSM model's sorted files by level now; `None` for a B-tree model.
    fn levels(&self) -> Option<Vec<crate::results::LsmLevel>> {
        None
    }
    /// The model's parameters and caveats, for `settings.workload_options`.
    fn describe(&self, options: &mut BTreeMap<String, String>);
}

impl PageModel for Model {
    fn insert_batch(&mut self, n: u64) -> Counters {
        super::counters(&Model::insert_batch(self, n))
    }
    fn entries(&self) -> Vec<u64> {
        Model::entries(self)
    }
    fn btree_stats(&self) -> Vec<BtreeStats> {
        Model::btree_stats(self)
    }
    fn size_bytes(&self) -> u64 {
        Model::size_bytes(self)
    }
    fn memory_bytes(&self) -> u64 {
        Model::memory_bytes(self)
    }
    fn wal_size_bytes(&self, scale: u64) -> Option<u64> {
        Some(Model::wal_size_bytes(self, scale))
    }
    fn describe(&self, _options: &mut BTreeMap<String, String>) {}
}

/// The engine whose pages are modelled: an engine of the registry whose capabilities say it has
/// a page model.
pub type ModelEngine = EngineKind;

impl EngineKind {
    /// Engine name recorded in a prediction's results (`sqlite-model`, …).
    pub fn model_name(self) -> &'static str {
        match self {
            EngineKind::Sqlite => super::ENGINE,
            // Each shard of a sharded engine holds its base engine's trees.
            EngineKind::Postgres | EngineKind::PostgresFdw => postgres::ENGINE,
            EngineKind::MariaDb | EngineKind::Spider => innodb::ENGINE,
            EngineKind::MyRocks => super::lsm::ENGINE,
        }
    }

    /// Which engine's rules, recorded as the engine version.
    pub fn model_version(self) -> String {
        match self {
            EngineKind::Sqlite => super::engine_version(),
            EngineKind::Postgres | EngineKind::PostgresFdw => postgres::VERSION.into(),
            EngineKind::MariaDb | EngineKind::Spider => innodb::VERSION.into(),
            EngineKind::MyRocks => super::lsm::VERSION.into(),
        }
    }

    /// The page size the engine uses (fixed on the servers); `None` for SQLite (any).
    pub fn fixed_page_size(self) -> Option<u32> {
        self.capabilities().fixed_page_size
    }

    /// Pages of the engine's cache for `config.cache_mb` (SQLite's pager, PostgreSQL's shared
    /// buffers, InnoDB's LRU list).
    pub fn cache_pages(self, config: &PredictConfig) -> u64 {
        match self {
            EngineKind::Sqlite => config.cache_pages(),
            EngineKind::Postgres | EngineKind::PostgresFdw => postgres::cache_pages(config.cache_mb),
            EngineKind::MariaDb | EngineKind::Spider => innodb::lru_pages(config.cache_mb),
            // RocksDB's block cache, in its default 4 KiB blocks.
            EngineKind::MyRocks => config.cache_mb * 256,
        }
    }

    /// Checks `config` for this engine; messages say what is allowed.
    pub fn validate_model(self, config: &PredictConfig) -> Result<(), Error> {
        if self == EngineKind::MyRocks {
            return validate_lsm(config);
        }
        let Some(page) = self.fixed_page_size() else { return config.validate() };
        crate::workloads::InsertGrowth::new(config.rows, config.batch_rows, config.payload_bytes, config.seed)?;
        if config.page_size != page {
            return Err(Error::InvalidInput(format!(
                "--page-size {} is not modelled for {}: its pages are {page} bytes (leave --page-size out)",
                config.page_size,
                self.model_name()
            )));
        }
        if config.mode == Mode::Bounded {
            return Err(Error::InvalidInput(format!(
                "bounded mode is SQLite's; {} keeps every key of a scale model instead (leave --bounded out, or give --scale)",
                self.model_name()
            )));
        }
        if config.cache_mb == 0 {
            return Err(Error::InvalidInput("--cache-mb must be at least 1".into()));
        }
        let k = config.scale;
        if k == 0 || !config.batch_rows.is_multiple_of(k) {
            return Err(Error::InvalidInput(format!(
                "--scale {k} must divide the batch ({} rows): each simulated batch is 1/scale of a real one",
                config.batch_rows
            )));
        }
        let pages = self.cache_pages(config);
        if k > 1 && pages / k < super::scale::MIN_SCALED_CACHE_PAGES {
            return Err(Error::InvalidInput(format!(
                "--scale {k} leaves fewer than {} pages of a {pages}-page cache: use a smaller --scale or a larger --cache-mb",
                super::scale::MIN_SCALED_CACHE_PAGES
            )));
        }
        if config.rows.div_ceil(k) > MAX_EXACT_SERVER_ROWS {
            let need = config.rows.div_ceil(MAX_EXACT_SERVER_ROWS).next_power_of_two();
            return Err(Error::InvalidInput(format!(
                "--rows {} with --scale {k} simulates {} rows, above the {MAX_EXACT_SERVER_ROWS} {} holds (it keeps every key, about 32 bytes per row): use --scale {need} or more, or leave --scale out",
                config.rows,
                config.rows.div_ceil(k),
                self.model_name()
            )));
        }
        Ok(())
    }

    /// A fresh model of `strategy` for `config` (refused if `config` asks for a scale model of a
    /// key stream that does not scale).
    pub fn build_model(self, strategy: &Strategy, config: &PredictConfig) -> Result<Box<dyn PageModel>, Error> {
        self.build_table_model(strategy, config, None)
    }

    /// Whether this engine's model keeps a user's secondary indexes beside the key's trees
    /// ([`EngineKind::build_table_model`]).
    pub fn models_table_indexes(self) -> bool {
        matches!(self, EngineKind::Postgres | EngineKind::PostgresFdw)
    }

    /// [`EngineKind::build_model`] fed a user's `table` (its rows the simulated rows of
    /// `config`), where the engine's model keeps its secondary indexes: PostgreSQL's. The other
    /// models keep the key's trees alone, and the calibration carries what those leave
    /// unexplained.
    pub fn build_table_model(
        self,
        strategy: &Strategy,
        config: &PredictConfig,
        table: Option<&OwnSchema>,
    ) -> Result<Box<dyn PageModel>, Error> {
        if config.scale > 1
            && let Some(reason) = super::scale::unscalable(strategy)
        {
            return Err(Error::InvalidInput(reason));
        }
        Ok(match self {
            EngineKind::Sqlite => {
                let layout = Layout::sqlite(strategy, config.payload_bytes as u32, config.page_size)?;
                let bounded = config.mode == Mode::Bounded;
                let k = config.scale;
                let mut model = Model::new(strategy, layout, config.seed, config.cache_pages() / k, bounded);
                model.scale_wal(k);
                Box::new(model)
            }
            EngineKind::Postgres | EngineKind::PostgresFdw => {
                let model =
                    PostgresModel::new(strategy, config.payload_bytes, config.seed, config.cache_mb, config.scale)?;
                Box::new(postgres_of_table(model, strategy, table)?)
            }
            EngineKind::MariaDb | EngineKind::Spider => {
                Box::new(InnodbModel::new(strategy, config.payload_bytes, config.seed, config.cache_mb, config.scale)?)
            }
            EngineKind::MyRocks => Box::new(super::lsm::LsmModel::new(
                strategy,
                config.payload_bytes,
                config.seed,
                config.rows,
                super::lsm::Shape::MYROCKS,
            )?),
        })
    }
}

/// `model` fed `table`'s rows, with its secondary indexes, if given.
pub(super) fn postgres_of_table(
    model: PostgresModel,
    strategy: &Strategy,
    table: Option<&OwnSchema>,
) -> Result<PostgresModel, Error> {
    let Some(table) = table else { return Ok(model) };
    let (trees, feed) = super::schema::time_indexes(table, strategy, model.heap_rows_per_page())?;
    Ok(model.with_table(trees, feed))
}

/// Checks `config` for the LSM model, which keeps no keys (any size runs whole) and has no
/// pages or page cache.
fn validate_lsm(config: &PredictConfig) -> Result<(), Error> {
    crate::workloads::InsertGrowth::new(config.rows, config.batch_rows, config.payload_bytes, config.seed)?;
    if config.scale != 1 {
        return Err(Error::InvalidInput(format!(
            "--scale {} is for the B-tree models: the MyRocks model keeps no keys and runs every row (leave --scale out)",
            config.scale
        )));
    }
    if config.mode == Mode::Bounded {
        return Err(Error::InvalidInput("bounded mode is SQLite's: leave --bounded out for MyRocks".into()));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_registry_fixes_the_page_sizes_the_models_use() {
        assert_eq!(EngineKind::Postgres.fixed_page_size(), Some(super::super::server::nbtree::PAGE));
        assert_eq!(EngineKind::MariaDb.fixed_page_size(), Some(super::super::server::innodb_page::PAGE));
        assert_eq!(EngineKind::Sqlite.fixed_page_size(), None);
        // Every one-server B-tree engine has a page model; a sharded engine's shards are its base
        // engine's; MyRocks is an LSM tree, with its own model.
        assert!(
            EngineKind::ALL
                .iter()
                .all(|k| k.capabilities().page_model == (!k.is_sharded() && *k != EngineKind::MyRocks))
        );
        assert!(EngineKind::ALL.iter().all(|k| k.capabilities().lsm_model == (*k == EngineKind::MyRocks)));
    }

    #[test]
    fn the_server_models_size_is_their_pages_as_their_statistics_count_them() {
        let config = PredictConfig {
            rows: 60_000,
            batch_rows: 20_000,
            payload_bytes: 50,
            seed: 1,
            page_size: 8192,
            cache_mb: 8,
            mode: Mode::Exact,
            scale: 1,
        };
        for engine in [EngineKind::Postgres, EngineKind::MariaDb] {
            for name in ["int", "uuid4", "int+uuid4"] {
                let mut model = engine.build_model(crate::strategy::find(name).unwrap(), &config).unwrap();
                for _ in 0..3 {
                    model.insert_batch(config.batch_rows);
                    let counted: u64 = model.btree_stats().iter().map(|b| b.size_bytes).sum();
                    assert_eq!(model.size_bytes(), counted, "{engine:?} {name}");
                }
            }
        }
    }
}
