//! A managed MyRocks server is MariaDB's ([`ManagedMariaDb`](crate::engines::mariadb::ManagedMariaDb))
//! started with the RocksDB plugin, a block cache of `--cache-mb`, commits synced from `--sync`
//! and bloom filters on; InnoDB keeps only the server's own tables, in its smallest pool. The
//! memtable, file and level sizes are the user's to set with
//! `--server-setting rocksdb_default_cf_options=write_buffer_size=…;max_bytes_for_level_base=…`,
//! read back with the run's settings.

use crate::Error;
use crate::engine_facts::innodb::MIN_POOL_MB;
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

/// The settings MariaDB's backend starts a managed MyRocks server with; a user's server's are
/// left as they are.
pub fn managed_settings(settings: &ServerSettings) -> Result<ServerSettings, Error> {
    let ServerTarget::Managed(options) = &settings.target else { return Ok(settings.clone()) };
    options.check_settings("MyRocks", RESERVED_SETTINGS)?;
    let setting = |name: &str, value: String| ServerSetting { name: name.into(), value };
    let mut cf_options = DEFAULT_CF_OPTIONS.to_string();
    let mut user = Vec::with_capacity(options.settings.len());
    for s in &options.settings {
        match s.name.as_str() {
            "rocksdb_default_cf_options" => cf_options = format!("{cf_options};{}", s.value),
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
    Ok(ServerSettings { target: ServerTarget::Managed(options), cache_mb: MIN_POOL_MB, ..settings.clone() })
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
