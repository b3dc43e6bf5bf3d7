//! A managed MyRocks server is MariaDB's ([`ManagedMariaDb`](crate::engines::mariadb::ManagedMariaDb))
//! started with the RocksDB plugin, a block cache of `--cache-mb`, commits synced from `--sync`
//! and bloom filters on; InnoDB keeps only the server's own tables, in its smallest pool. The
//! memtable, file and level sizes are the user's to set with
//! `--server-setting rocksdb_default_cf_options=write_buffer_size=…;max_bytes_for_level_base=…`,
//! read back with the run's settings. A calibration's server ([`checkpoint_scale`](crate::engines::server::ManagedOptions::checkpoint_scale)
//! `k`) starts with all three divided by `k`.

use crate::Error;
use crate::engine_facts::innodb::MIN_POOL_MB;
use crate::engine_facts::myrocks;
use crate::engines::server::{ServerSetting, ServerSettings, ServerTarget};
use crate::engines::wire::mysql::MyConnection;
use mysql::prelude::Queryable;

/// Settings a user may not change on a managed MyRocks server, and what to do instead (beyond
/// MariaDB's own, [`crate::engines::mariadb::RESERVED_SETTINGS`]).
pub const RESERVED_SETTINGS: &[(&str, &str)] = &[
    ("rocksdb_block_cache_size", "set the block cache with --cache-mb"),
    ("rocksdb_flush_log_at_trx_commit", "pkbench sets it from --sync (off → 2, otherwise 1)"),
    ("plugin_load_add", "pkbench loads the RocksDB plugin (ha_rocksdb) itself"),
];

/// The column families' options pkbench starts with: a bloom filter of 10 bits per key, as
/// MyRocks deployments configure. The plugin's default has none, so every point read (each
/// unique-key check among them) would search every sorted file its key range overlaps. Options
/// the user gives in `rocksdb_default_cf_options` are appended, so theirs win.
pub const DEFAULT_CF_OPTIONS: &str = "block_based_table_factory={filter_policy=bloomfilter:10:false}";

/// Settings MariaDB takes only once running (it has no start-up option for them): a managed
/// server gets them with `SET GLOBAL` right after it starts, so every session pkbench opens
/// has them. `unique_checks=0` is how MariaDB's MyRocks skips the unique-key check of inserts
/// into tables with a primary key only (Facebook's MySQL calls it `rocksdb_skip_unique_check`).
pub const AFTER_START: &[&str] = &["unique_checks"];

/// The settings MariaDB's backend starts a managed MyRocks server with, and those it takes after
/// starting ([`AFTER_START`]); a user's server's are left as they are.
pub fn managed_settings(settings: &ServerSettings) -> Result<(ServerSettings, Vec<ServerSetting>), Error> {
    let ServerTarget::Managed(options) = &settings.target else { return Ok((settings.clone(), Vec::new())) };
    options.check_settings("MyRocks", RESERVED_SETTINGS)?;
    let setting = |name: &str, value: String| ServerSetting { name: name.into(), value };
    let mut cf_options = DEFAULT_CF_OPTIONS.to_string();
    // A calibration at 1/k of its target's rows gets the target's tree at 1/k; the user's
    // options come after, so theirs still win.
    if let Some(scaled) = options.checkpoint_scale.and_then(myrocks::scaled_cf_options) {
        cf_options = format!("{cf_options};{scaled}");
    }
    let mut user = Vec::with_capacity(options.settings.len());
    let mut after_start = Vec::new();
    for s in &options.settings {
        match s.name.as_str() {
            "rocksdb_default_cf_options" => cf_options = format!("{cf_options};{}", s.value),
            name if AFTER_START.contains(&name) => after_start.push(checked_switch(s)?),
            _ => user.push(s.clone()),
        }
    }
    let mut own = vec![
        setting("plugin_load_add", "ha_rocksdb".into()),
        setting("rocksdb_block_cache_size", format!("{}M", settings.cache_mb)),
        setting("rocksdb_flush_log_at_trx_commit", if settings.durable_commits { "1" } else { "2" }.into()),
        setting("rocksdb_default_cf_options", cf_options),
    ];
    // The user's settings after pkbench's, so they win.
    own.extend(user);
    let mut options = options.clone();
    options.settings = own;
    let settings = ServerSettings { target: ServerTarget::Managed(options), cache_mb: MIN_POOL_MB, ..settings.clone() };
    Ok((settings, after_start))
}

/// An on/off setting with its value as MariaDB's `SET` takes it (0 or 1), or what to give.
fn checked_switch(s: &ServerSetting) -> Result<ServerSetting, Error> {
    let value = match s.value.to_ascii_lowercase().as_str() {
        "0" | "off" => "0",
        "1" | "on" => "1",
        _ => return Err(Error::InvalidInput(format!("--server-setting {}={}: give 0 or 1", s.name, s.value))),
    };
    Ok(ServerSetting { name: s.name.clone(), value: value.into() })
}

/// Applies `settings` (from [`managed_settings`]) to the server and to `conn`'s own session.
pub fn apply_after_start(conn: &mut MyConnection, settings: &[ServerSetting]) -> Result<(), Error> {
    for s in settings {
        let sql = format!("SET GLOBAL {0} = {1}, SESSION {0} = {1}", s.name, s.value);
        conn.conn().query_drop(sql).map_err(|e| Error::mariadb(format!("could not set {}", s.name), e))?;
    }
    Ok(())
}

/// What to do when a managed server has no RocksDB plugin.
const INSTALL_PLUGIN: &str = "install Debian's mariadb-plugin-rocksdb (scripts/setup-test-deps does)";

/// A managed server that did not start because it found no RocksDB plugin — its log names the
/// plugin it could not load, or the RocksDB variable it then did not know — said so plainly;
/// any other error as it is.
pub fn explain_start_failure(error: Error) -> Error {
    let Error::System(log) = &error else { return error };
    let no_plugin = log.contains("ha_rocksdb") || log.contains("unknown variable 'rocksdb");
    if !no_plugin {
        return error;
    }
    Error::NotFound(format!(
        "the managed MariaDB server could not load the RocksDB storage engine (ha_rocksdb): {INSTALL_PLUGIN} ({log})"
    ))
}

/// What a run on a server that skips the unique-key check is told.
pub const SKIPS_UNIQUE_CHECK: &str = "unique_checks is off: MyRocks inserts into a table with a primary key only without looking each key up first, \
     which is faster but lets a duplicate key silently replace a row; the runs measure that trade, not a checked insert";

/// Whether the server's sessions skip the unique-key check (`unique_checks` off globally).
pub fn skips_unique_check(conn: &mut MyConnection) -> Result<bool, Error> {
    let on: Option<u64> = conn
        .conn()
        .query_first("SELECT @@global.unique_checks")
        .map_err(|e| Error::mariadb("could not read unique_checks", e))?;
    Ok(on == Some(0))
}

/// Fails clearly unless the server has the RocksDB storage engine enabled.
pub fn require_rocksdb(conn: &mut MyConnection, managed: bool) -> Result<(), Error> {
    let support: Option<String> = conn
        .conn()
        .query_first("SELECT SUPPORT FROM information_schema.ENGINES WHERE ENGINE = 'ROCKSDB'")
        .map_err(|e| Error::mariadb("could not list the server's storage engines", e))?;
    match support.as_deref() {
        Some("YES" | "DEFAULT") => Ok(()),
        _ if managed => Err(Error::NotFound(format!(
            "the managed MariaDB server has no RocksDB storage engine (ha_rocksdb): {INSTALL_PLUGIN}"
        ))),
        _ => Err(Error::InvalidInput(
            "this server has no RocksDB storage engine: install the plugin there (mariadb-plugin-rocksdb, then INSTALL SONAME 'ha_rocksdb') or use --engine mariadb".into(),
        )),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engines::server::ManagedOptions;

    fn managed(user: &[&str]) -> ServerSettings {
        let settings = user.iter().map(|s| ServerSetting::parse(s).unwrap()).collect();
        ServerSettings {
            target: ServerTarget::Managed(ManagedOptions { settings, ..Default::default() }),
            cache_mb: 256,
            durable_commits: false,
            shards: None,
        }
    }

    fn started_with(settings: &ServerSettings) -> Vec<(String, String)> {
        let ServerTarget::Managed(options) = &settings.target else { panic!("managed") };
        options.settings.iter().map(|s| (s.name.clone(), s.value.clone())).collect()
    }

    #[test]
    fn the_cache_is_rocksdbs_and_the_users_cf_options_come_last() {
        let own = managed_settings(&managed(&[
            "rocksdb_default_cf_options=write_buffer_size=16m;max_bytes_for_level_base=64m",
            "rocksdb_max_background_jobs=4",
        ]))
        .unwrap();
        let (own, after_start) = own;
        assert!(after_start.is_empty());
        assert_eq!(own.cache_mb, MIN_POOL_MB, "InnoDB keeps only the system tables");
        let set = started_with(&own);
        let get = |n: &str| set.iter().find(|(k, _)| k == n).map(|(_, v)| v.as_str());
        assert_eq!(get("plugin_load_add"), Some("ha_rocksdb"));
        assert_eq!(get("rocksdb_block_cache_size"), Some("256M"));
        assert_eq!(get("rocksdb_flush_log_at_trx_commit"), Some("2"));
        assert_eq!(
            get("rocksdb_default_cf_options"),
            Some(
                "block_based_table_factory={filter_policy=bloomfilter:10:false};write_buffer_size=16m;max_bytes_for_level_base=64m"
            )
        );
        assert_eq!(set.last().map(|(k, _)| k.as_str()), Some("rocksdb_max_background_jobs"));
    }

    #[test]
    fn a_calibrations_server_starts_with_the_tree_scaled_and_the_users_options_after() {
        let mut settings = managed(&["rocksdb_default_cf_options=level0_file_num_compaction_trigger=8"]);
        let ServerTarget::Managed(options) = &mut settings.target else { panic!("managed") };
        options.checkpoint_scale = Some(10);
        let (own, _) = managed_settings(&settings).unwrap();
        let set = started_with(&own);
        let cf = set.iter().find(|(k, _)| k == "rocksdb_default_cf_options").map(|(_, v)| v.as_str());
        assert_eq!(
            cf,
            Some(
                "block_based_table_factory={filter_policy=bloomfilter:10:false};write_buffer_size=6710886;target_file_size_base=6710886;max_bytes_for_level_base=26843545;level0_file_num_compaction_trigger=8"
            )
        );
    }

    #[test]
    fn unique_checks_is_set_once_the_server_runs_and_takes_only_on_or_off() {
        let (own, after_start) = managed_settings(&managed(&["unique_checks=OFF"])).unwrap();
        assert!(started_with(&own).iter().all(|(k, _)| k != "unique_checks"), "no start-up option");
        assert_eq!(after_start, [ServerSetting { name: "unique_checks".into(), value: "0".into() }]);
        let Err(e) = managed_settings(&managed(&["unique_checks=0; DROP TABLE t"])) else { panic!("taken") };
        assert_eq!(e.to_string(), "--server-setting unique_checks=0; DROP TABLE t: give 0 or 1");
    }

    #[test]
    fn a_server_without_the_plugin_says_what_to_install() {
        let log = "the MariaDB server did not start; its log says: [ERROR] Couldn't load plugins from 'ha_rocksdb.so'.";
        let e = explain_start_failure(Error::System(log.into())).to_string();
        assert!(e.contains("install Debian's mariadb-plugin-rocksdb") && e.contains("Couldn't load plugins"), "{e}");
        let other = explain_start_failure(Error::System("disk full".into())).to_string();
        assert!(!other.contains("mariadb-plugin-rocksdb"), "{other}");
    }

    #[test]
    fn the_block_cache_is_set_with_cache_mb_only() {
        let e = managed_settings(&managed(&["rocksdb_block_cache_size=1G"])).unwrap_err().to_string();
        assert!(e.contains("--cache-mb"), "{e}");
    }
}
