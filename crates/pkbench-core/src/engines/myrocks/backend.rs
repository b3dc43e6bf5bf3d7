//! What MyRocks adds to MariaDB's backend, which it runs on: the plugin and block cache of a
//! managed server (or a check for RocksDB on the user's), RocksDB's counters, sizes from its file
//! map, and its settings. Sessions, labels, leftovers and the wait sampler are MariaDB's.

use super::dialect::ROCKSDB;
use super::{counters, physical, server};
use crate::Error;
use crate::engines::dialect::Dialect;
use crate::engines::kind::EngineKind;
use crate::engines::mariadb::{ManagedMariaDb, MariaDbBackend};
use crate::engines::server::{Backend, ServerSettings, SettingsFor};
use crate::engines::wire::mysql::MyConnection;
use crate::metrics::budget::CounterAccount;
use crate::results::{BtreeStats, Counters, LsmLevel};
use mysql::prelude::Queryable;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::Mutex;

/// The server variables recorded with every case.
const VARIABLES: [&str; 6] = [
    "rocksdb_block_cache_size",
    "rocksdb_flush_log_at_trx_commit",
    "rocksdb_default_cf_options",
    "rocksdb_max_background_jobs",
    "unique_checks",
    "rocksdb_rate_limiter_bytes_per_sec",
];

/// The default column family's options recorded (`ROCKSDB_CF_OPTIONS`): what shapes the tree.
const CF_OPTIONS: [&str; 11] = [
    "WRITE_BUFFER_SIZE",
    "MAX_WRITE_BUFFER_NUMBER",
    "LEVEL0_FILE_NUM_COMPACTION_TRIGGER",
    "LEVEL0_SLOWDOWN_WRITES_TRIGGER",
    "LEVEL0_STOP_WRITES_TRIGGER",
    "TARGET_FILE_SIZE_BASE",
    "MAX_BYTES_FOR_LEVEL_BASE",
    "MAX_BYTES_FOR_LEVEL_MULTIPLIER",
    "LEVEL_COMPACTION_DYNAMIC_LEVEL_BYTES",
    "COMPRESSION_TYPE",
    "TABLE_FACTORY::FILTER_POLICY",
];

/// MyRocks' own parts of a server engine, over MariaDB's.
pub struct MyRocksBackend {
    maria: MariaDbBackend,
    /// The settings the user gave a managed server (pkbench's own are not listed as theirs).
    user_settings: Vec<String>,
    /// The sorted files by level at the last counters' `after` snapshot.
    levels: Mutex<Option<Vec<LsmLevel>>>,
    /// Whether the server skips the unique-key check of inserts (`unique_checks` off).
    skips_unique_check: bool,
}

impl MyRocksBackend {
    fn settings_of_rocksdb(&self, conn: &mut MyConnection, out: &mut BTreeMap<String, String>) -> Result<(), Error> {
        let read = |e| Error::mariadb("could not read RocksDB's settings", e);
        let list = |names: &[&str]| names.iter().map(|n| format!("'{n}'")).collect::<Vec<_>>().join(", ");
        let sql = format!("SHOW GLOBAL VARIABLES WHERE Variable_name IN ({})", list(&VARIABLES));
        let rows: Vec<(String, String)> = conn.conn().query(sql).map_err(read)?;
        out.extend(rows);
        let sql = format!(
            "SELECT OPTION_TYPE, VALUE FROM information_schema.ROCKSDB_CF_OPTIONS \
             WHERE CF_NAME = 'default' AND OPTION_TYPE IN ({})",
            list(&CF_OPTIONS)
        );
        let rows: Vec<(String, String)> = conn.conn().query(sql).map_err(read)?;
        out.extend(rows.into_iter().map(|(name, value)| {
            let name = name.rsplit("::").next().unwrap_or(&name).to_ascii_lowercase();
            (format!("rocksdb_cf_{name}"), value)
        }));
        Ok(())
    }
}

impl Backend for MyRocksBackend {
    type Settings = ServerSettings;
    type Conn = MyConnection;
    type Managed = ManagedMariaDb;
    type Snapshot = counters::Snapshot;

    const KIND: EngineKind = EngineKind::MyRocks;
    const INSERT_PATH: &'static str = "multi-row INSERT … VALUES with literal keys (hex for binary), 1,000 rows per statement, one transaction per batch, into ROCKSDB tables";
    const COUNTER_SCOPE: &'static str = "server-wide: RocksDB's WAL, flush, compaction, block-cache, bloom-filter and stall statistics count every session and every background flush and compaction";
    const DELETE_NOTE: Option<&'static str> = Some(
        "MyRocks: multi-row DELETE … WHERE id IN (…) in one transaction (1,000 keys per statement), delete_ms is the DELETE and COMMIT; each deleted row leaves a tombstone that later compactions drop",
    );
    /// `OPTIMIZE TABLE` compacts each table's key ranges through every level, waiting for it.
    const SETTLES_BY_COMPACTION: bool = true;
    const COMPACT_NOTE: &'static str = "MyRocks: OPTIMIZE TABLE, which RocksDB runs as a manual compaction of the table's key ranges into new sorted files; free_space_needed_bytes = the new files, at most the size before";

    fn dialect(&self) -> &'static dyn Dialect {
        &ROCKSDB
    }

    fn open(settings: &ServerSettings) -> Result<(Self, MyConnection), Error> {
        let user_settings = settings.target.user_setting_names();
        let (settings, after_start) = server::managed_settings(settings)?;
        let (maria, mut conn) = MariaDbBackend::open(&settings).map_err(server::explain_start_failure)?;
        server::require_rocksdb(&mut conn, maria.managed().is_some())?;
        server::apply_after_start(&mut conn, &after_start)?;
        let skips_unique_check = server::skips_unique_check(&mut conn)?;
        let levels = Mutex::new(None);
        Ok((MyRocksBackend { maria, user_settings, levels, skips_unique_check }, conn))
    }

    fn label_namespace(&self, conn: &mut MyConnection, namespace: &str, label: &str) -> Result<(), Error> {
        self.maria.label_namespace(conn, namespace, label)
    }

    fn labelled_namespaces(&self, conn: &mut MyConnection) -> Result<Vec<(String, String)>, Error> {
        self.maria.labelled_namespaces(conn)
    }

    fn keep_leftovers(&self) -> bool {
        self.maria.keep_leftovers()
    }

    fn connect(&self) -> Result<MyConnection, Error> {
        self.maria.connect()
    }

    fn version(&self) -> &str {
        self.maria.version()
    }

    fn target(&self) -> &str {
        self.maria.target()
    }

    fn managed(&self) -> Option<&ManagedMariaDb> {
        self.maria.managed()
    }

    fn managed_dir(&self) -> Option<&Path> {
        self.maria.managed_dir()
    }

    /// On a managed server the dropped tables' keys are then compacted away, so the next case's
    /// counters count its own flushes and compactions, not the removal of this case's rows.
    fn close_case(
        &mut self,
        conn: &mut MyConnection,
        namespace: &str,
        tables: &[&str],
        what: &str,
        finished: bool,
    ) -> Result<Option<PathBuf>, Error> {
        let kept = self.maria.close_case(conn, namespace, tables, what, finished)?;
        if self.managed().is_some() {
            physical::compact_everything(conn.conn())?;
        }
        Ok(kept)
    }

    fn settings(&self, conn: &mut MyConnection, purpose: SettingsFor) -> Result<BTreeMap<String, String>, Error> {
        let mut out = self.maria.settings(conn, purpose)?;
        // InnoDB holds only the server's own tables here: its settings describe nothing measured.
        out.retain(|name, _| !name.starts_with("innodb_") || self.user_settings.contains(name));
        self.settings_of_rocksdb(conn, &mut out)?;
        // MariaDB's backend lists every setting of the server's start; the user's are fewer.
        out.remove("given_with_server_setting");
        if !self.user_settings.is_empty() {
            out.insert("given_with_server_setting".into(), self.user_settings.join(","));
        }
        Ok(out)
    }

    fn snapshot(
        &self,
        conn: &mut MyConnection,
        _namespace: &str,
        _tables: &[&str],
    ) -> Result<counters::Snapshot, Error> {
        counters::snapshot(conn.conn()).map_err(|e| Error::mariadb("could not read RocksDB statistics", e))
    }

    /// The level layout is the `after` snapshot's.
    fn counters(
        &self,
        _conn: &mut MyConnection,
        (before, after): (&counters::Snapshot, &counters::Snapshot),
        _namespace: &str,
        _tables: &[&str],
        _account: &CounterAccount,
    ) -> Counters {
        *self.levels.lock().unwrap_or_else(|p| p.into_inner()) = Some(after.levels.clone());
        counters::between(before, after)
    }

    fn take_levels(&self) -> Option<Vec<LsmLevel>> {
        self.levels.lock().unwrap_or_else(|p| p.into_inner()).take()
    }

    fn notices(&self) -> Vec<String> {
        match self.skips_unique_check {
            true => vec![server::SKIPS_UNIQUE_CHECK.to_string()],
            false => Vec::new(),
        }
    }

    fn wait_sample_sql(&self, namespace: &str, table: &str) -> Option<String> {
        self.maria.wait_sample_sql(namespace, table)
    }

    fn size_bytes(&self, conn: &mut MyConnection, namespace: &str, tables: &[&str]) -> Result<u64, Error> {
        physical::tables_size(conn.conn(), namespace, tables)
    }

    /// On a managed server the memtables are flushed first, so every row is in a measured file.
    /// RocksDB has no B-trees: none are listed.
    fn measure(
        &self,
        conn: &mut MyConnection,
        namespace: &str,
        tables: &[&str],
    ) -> Result<(u64, Vec<BtreeStats>), Error> {
        if self.managed().is_some() {
            physical::flush_memtables(conn.conn())?;
        }
        Ok((self.size_bytes(conn, namespace, tables)?, Vec::new()))
    }

    fn compact(&self, conn: &mut MyConnection, tables: &str) -> Result<(), Error> {
        self.maria.compact(conn, tables)
    }
}
