//! The registry of engines: every engine pkbench knows, with its names, wire protocol and
//! capabilities. The CLI's value lists, `pkbench list`, doctor, predict and the JSON schemas all
//! read it, and nothing matches on an engine with a wildcard arm: adding a variant makes the
//! compiler list every place that must decide what the new engine does.
//!
//! This module needs no database driver, so every build of the library has it.

use crate::Error;
use std::fmt;

/// How pkbench talks to an engine.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Wire {
    /// Linked into the process (SQLite).
    Embedded,
    /// PostgreSQL's frontend/backend protocol.
    Postgres,
    /// The MySQL client/server protocol (MariaDB, MySQL).
    Mysql,
}

/// What an engine can do, for validating flags before anything starts.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Capabilities {
    /// The engine's own counters pkbench reads, as named in the results' `counters`.
    pub counters: &'static [&'static str],
    /// The command that rebuilds a table to give free pages back (remedy).
    pub compaction: &'static str,
    /// The page size, where the engine fixes it (servers); `None` where `--page-size` sets it.
    pub fixed_page_size: Option<u32>,
    /// Whether `pkbench predict` has a page model of this engine (B-tree pages and their time).
    pub page_model: bool,
    /// Whether `pkbench predict` has a model of this engine's LSM tree (bytes and levels, no
    /// time).
    pub lsm_model: bool,
    /// Whether pkbench can start a throwaway server of this engine itself.
    pub managed_server: bool,
    /// The smallest cache (`--cache-mb`) a managed server starts with, if it has a floor.
    pub min_cache_mb: Option<u64>,
}

/// PostgreSQL's counters (summed over the shards on `postgres-fdw`).
const POSTGRES_COUNTERS: &[&str] = &[
    "cache_hits",
    "cache_misses",
    "wal_bytes",
    "wal_records",
    "wal_fpi",
    "wal_fpi_bytes",
    "page_splits",
    "index_blocks_touched",
    "deadlocks",
];

/// InnoDB's counters (summed over the shards on `spider`).
const INNODB_COUNTERS: &[&str] = &[
    "cache_hits",
    "cache_misses",
    "pages_written",
    "wal_bytes",
    "doublewrite_pages",
    "page_splits",
    "page_merges",
    "row_lock_waits",
    "row_lock_wait_ms",
    "deadlocks",
];

/// RocksDB's counters, read from MyRocks' status variables.
const ROCKSDB_COUNTERS: &[&str] = &[
    "cache_hits",
    "cache_misses",
    "wal_bytes",
    "ingest_bytes",
    "flush_bytes",
    "compaction_read_bytes",
    "compaction_write_bytes",
    "bloom_checks",
    "bloom_useful",
    "write_stalls",
    "write_stall_us",
    "deadlocks",
    "keys_read",
];

/// One engine pkbench can run, diagnose or model.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum EngineKind {
    /// Embedded SQLite (rusqlite's bundled build).
    Sqlite,
    /// PostgreSQL: a managed throwaway cluster or the user's server.
    Postgres,
    /// MariaDB or MySQL with InnoDB: a managed throwaway server or the user's server.
    MariaDb,
    /// Sharded MariaDB: a Spider head routing each row to one of N managed InnoDB servers, by
    /// key range or hash.
    Spider,
    /// Sharded PostgreSQL: a partitioned table whose partitions are `postgres_fdw` foreign
    /// tables on N managed PostgreSQL servers, by key range or hash.
    PostgresFdw,
    /// MariaDB with the RocksDB storage engine (MyRocks, a log-structured merge tree): a managed
    /// throwaway server with the plugin loaded or the user's server.
    MyRocks,
}

impl EngineKind {
    /// Every engine, in the order lists show them.
    pub const ALL: [EngineKind; 6] = [
        EngineKind::Sqlite,
        EngineKind::Postgres,
        EngineKind::MariaDb,
        EngineKind::Spider,
        EngineKind::PostgresFdw,
        EngineKind::MyRocks,
    ];

    /// The short lowercase name (`--engine`, results' `engine`, doctor's `engine`).
    pub fn name(self) -> &'static str {
        match self {
            EngineKind::Sqlite => "sqlite",
            EngineKind::Postgres => "postgres",
            EngineKind::MariaDb => "mariadb",
            EngineKind::Spider => "spider",
            EngineKind::PostgresFdw => "postgres-fdw",
            EngineKind::MyRocks => "myrocks",
        }
    }

    /// Other names `--engine` accepts.
    pub fn aliases(self) -> &'static [&'static str] {
        match self {
            EngineKind::Sqlite => &[],
            EngineKind::Postgres => &["postgresql"],
            EngineKind::MariaDb => &["mysql"],
            EngineKind::Spider => &["mariadb-spider"],
            EngineKind::PostgresFdw => &["postgres_fdw", "postgresql-fdw"],
            EngineKind::MyRocks => &["rocksdb", "mariadb-rocksdb"],
        }
    }

    /// The engine named for people.
    pub fn label(self) -> &'static str {
        match self {
            EngineKind::Sqlite => "SQLite",
            EngineKind::Postgres => "PostgreSQL",
            EngineKind::MariaDb => "MariaDB/MySQL",
            EngineKind::Spider => "MariaDB Spider (sharded)",
            EngineKind::PostgresFdw => "PostgreSQL postgres_fdw (sharded)",
            EngineKind::MyRocks => "MyRocks (MariaDB + RocksDB)",
        }
    }

    /// One line on what `--engine NAME` runs (`pkbench list`, `--help`).
    pub fn describe(self) -> &'static str {
        match self {
            EngineKind::Sqlite => "embedded SQLite (rusqlite's bundled build)",
            EngineKind::Postgres => "PostgreSQL: a throwaway managed cluster, or your server with --url",
            EngineKind::MariaDb => "MariaDB/MySQL (InnoDB): a throwaway managed server, or your server with --url",
            EngineKind::Spider => {
                "sharded MariaDB: a Spider head and --shards InnoDB servers, all managed, split by --sharding range|hash"
            }
            EngineKind::PostgresFdw => {
                "sharded PostgreSQL: postgres_fdw partitions on --shards servers, all managed, split by --sharding range|hash"
            }
            EngineKind::MyRocks => {
                "MariaDB with RocksDB tables (an LSM tree): a throwaway managed server with the plugin, or your server with --url"
            }
        }
    }

    /// URL schemes that name this engine's servers (none for an embedded engine).
    pub fn url_schemes(self) -> &'static [&'static str] {
        match self {
            EngineKind::Sqlite => &[],
            EngineKind::Postgres => &["postgres", "postgresql"],
            EngineKind::MariaDb => &["mysql", "mariadb"],
            // Sharded engines start their own servers; they are never named by a URL. A MyRocks
            // server's URL is a MariaDB one: `--engine myrocks` says which tables to make there.
            EngineKind::Spider | EngineKind::PostgresFdw | EngineKind::MyRocks => &[],
        }
    }

    /// The engine whose URL reaches a server of this one: a MyRocks server's URL is a MariaDB
    /// one (`--engine myrocks` says which tables to make there); `None` where no URL is taken.
    pub fn url_engine(self) -> Option<EngineKind> {
        match self {
            EngineKind::Postgres => Some(EngineKind::Postgres),
            EngineKind::MariaDb | EngineKind::MyRocks => Some(EngineKind::MariaDb),
            EngineKind::Sqlite | EngineKind::Spider | EngineKind::PostgresFdw => None,
        }
    }

    /// The environment variable holding the default `--url` for this engine.
    pub fn url_env(self) -> Option<&'static str> {
        match self {
            EngineKind::Sqlite => None,
            EngineKind::Postgres => Some("PKBENCH_PG_URL"),
            EngineKind::MariaDb => Some("PKBENCH_MYSQL_URL"),
            EngineKind::MyRocks => Some("PKBENCH_MYROCKS_URL"),
            EngineKind::Spider | EngineKind::PostgresFdw => None,
        }
    }

    /// How pkbench talks to it.
    pub fn wire(self) -> Wire {
        match self {
            EngineKind::Sqlite => Wire::Embedded,
            EngineKind::Postgres => Wire::Postgres,
            EngineKind::MariaDb | EngineKind::Spider | EngineKind::MyRocks => Wire::Mysql,
            EngineKind::PostgresFdw => Wire::Postgres,
        }
    }

    /// What it can do.
    pub fn capabilities(self) -> Capabilities {
        match self {
            EngineKind::Sqlite => Capabilities {
                counters: &["cache_hits", "cache_misses", "pages_written", "cache_spills"],
                compaction: "VACUUM",
                fixed_page_size: None,
                page_model: true,
                lsm_model: false,
                managed_server: false,
                min_cache_mb: None,
            },
            EngineKind::Postgres => Capabilities {
                counters: POSTGRES_COUNTERS,
                compaction: "VACUUM FULL",
                fixed_page_size: Some(8192),
                page_model: true,
                lsm_model: false,
                managed_server: true,
                min_cache_mb: None,
            },
            EngineKind::MariaDb => Capabilities {
                counters: INNODB_COUNTERS,
                compaction: "OPTIMIZE TABLE",
                fixed_page_size: Some(16384),
                page_model: true,
                lsm_model: false,
                managed_server: true,
                // InnoDB's minimum buffer pool with 16 KiB pages.
                min_cache_mb: Some(crate::engine_facts::innodb::MIN_POOL_MB),
            },
            EngineKind::Spider => Capabilities {
                counters: INNODB_COUNTERS,
                compaction: "OPTIMIZE TABLE",
                fixed_page_size: Some(16384),
                page_model: false,
                lsm_model: false,
                managed_server: true,
                min_cache_mb: Some(crate::engine_facts::innodb::MIN_POOL_MB),
            },
            EngineKind::PostgresFdw => Capabilities {
                counters: POSTGRES_COUNTERS,
                compaction: "VACUUM FULL",
                fixed_page_size: Some(8192),
                page_model: false,
                lsm_model: false,
                managed_server: true,
                min_cache_mb: None,
            },
            EngineKind::MyRocks => Capabilities {
                counters: ROCKSDB_COUNTERS,
                // MyRocks runs it as a manual compaction of the table's key range.
                compaction: "OPTIMIZE TABLE",
                // RocksDB has no pages: its blocks are 4 KiB before compression by default.
                fixed_page_size: None,
                page_model: false,
                lsm_model: true,
                managed_server: true,
                min_cache_mb: None,
            },
        }
    }

    /// Whether the engine spreads one table over several servers.
    pub fn is_sharded(self) -> bool {
        match self {
            EngineKind::Sqlite | EngineKind::Postgres | EngineKind::MariaDb | EngineKind::MyRocks => false,
            EngineKind::Spider | EngineKind::PostgresFdw => true,
        }
    }

    /// Whether `pkbench doctor` examines this engine's tables: one server's B-trees.
    pub fn has_doctor(self) -> bool {
        match self {
            EngineKind::Sqlite | EngineKind::Postgres | EngineKind::MariaDb => true,
            EngineKind::Spider | EngineKind::PostgresFdw | EngineKind::MyRocks => false,
        }
    }

    /// Whether the engine is a server reached over a wire protocol.
    pub fn is_server(self) -> bool {
        self.wire() != Wire::Embedded
    }

    /// The engine called `name` (or one of its aliases), ignoring case.
    pub fn from_name(name: &str) -> Option<EngineKind> {
        Self::ALL
            .into_iter()
            .find(|k| k.name().eq_ignore_ascii_case(name) || k.aliases().iter().any(|a| a.eq_ignore_ascii_case(name)))
    }

    /// [`from_name`](Self::from_name), or an error listing the valid names.
    pub fn parse(name: &str) -> Result<EngineKind, Error> {
        Self::from_name(name).ok_or_else(|| {
            let valid: Vec<&str> = Self::ALL.iter().map(|k| k.name()).collect();
            Error::InvalidInput(format!("unknown engine '{name}': use one of {}", valid.join(", ")))
        })
    }

    /// The engine a URL's scheme names (`postgres://…` → PostgreSQL), or `None` when the text is
    /// not a URL of a known scheme. The scheme is only a first guess: doctor confirms the engine
    /// from the server's own version string.
    pub fn from_url(url: &str) -> Option<EngineKind> {
        let (scheme, _) = url.trim_start().split_once("://")?;
        Self::ALL.into_iter().find(|k| k.url_schemes().iter().any(|s| s.eq_ignore_ascii_case(scheme)))
    }

    /// Every name and alias, for shell completion and help.
    pub fn all_names() -> impl Iterator<Item = &'static str> {
        Self::ALL.into_iter().flat_map(|k| std::iter::once(k.name()).chain(k.aliases().iter().copied()))
    }
}

impl fmt::Display for EngineKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_and_aliases_round_trip() {
        for k in EngineKind::ALL {
            assert_eq!(EngineKind::from_name(k.name()), Some(k));
            for a in k.aliases() {
                assert_eq!(EngineKind::from_name(a), Some(k));
            }
        }
        assert_eq!(EngineKind::from_name("MySQL"), Some(EngineKind::MariaDb));
        assert!(EngineKind::parse("oracle").unwrap_err().to_string().contains("sqlite, postgres, mariadb"));
    }

    #[test]
    fn urls_name_their_engine() {
        assert_eq!(EngineKind::from_url("postgresql://u@h/db"), Some(EngineKind::Postgres));
        assert_eq!(EngineKind::from_url(" MARIADB://u@h/db"), Some(EngineKind::MariaDb));
        assert_eq!(EngineKind::from_url("mysql://u@h"), Some(EngineKind::MariaDb));
        assert_eq!(EngineKind::from_url("db.sqlite"), None);
        assert_eq!(EngineKind::from_url("redis://h"), None);
    }

    #[test]
    fn the_doctor_schema_lists_every_engine() {
        let schema: serde_json::Value =
            serde_json::from_str(include_str!("../../../schema/doctor.schema.json")).expect("doctor schema is JSON");
        let listed: Vec<&str> = schema["properties"]["engine"]["enum"]
            .as_array()
            .expect("the engine property is an enum")
            .iter()
            .filter_map(|v| v.as_str())
            .collect();
        let names: Vec<&str> = EngineKind::ALL.iter().filter(|k| k.has_doctor()).map(|k| k.name()).collect();
        assert_eq!(listed, names, "schema/doctor.schema.json's engine enum must list the engines doctor examines");
    }

    #[test]
    fn capabilities_name_real_counters() {
        let fields: Vec<&str> = crate::results::Counters::default().fields().iter().map(|(n, _)| *n).collect();
        for k in EngineKind::ALL {
            for c in k.capabilities().counters {
                assert!(fields.contains(c), "{k}: '{c}' is not a results counter");
            }
        }
    }

    #[test]
    fn servers_are_identified_by_their_version_text() {
        let pg = "PostgreSQL 15.14 (Debian 15.14-0+deb12u1) on x86_64-pc-linux-gnu, compiled by gcc";
        assert_eq!(EngineKind::identify(Wire::Postgres, pg), Ok(EngineKind::Postgres));
        // CockroachDB, YugabyteDB and TiDB are flavours (engines::distributed).
        let crdb = "CockroachDB CCL v23.1.11 (x86_64-pc-linux-gnu, built 2023/09/27 01:53:43, go1.19.10)";
        assert_eq!(EngineKind::identify(Wire::Postgres, crdb), Ok(EngineKind::Postgres));
        let yb = "PostgreSQL 11.2-YB-2.18.0.0-b0 on x86_64-pc-linux-gnu";
        assert_eq!(EngineKind::identify(Wire::Postgres, yb), Ok(EngineKind::Postgres));
        assert!(EngineKind::identify(Wire::Mysql, crdb).is_ok(), "a MySQL-wire server is taken for MySQL");
        let redshift = "PostgreSQL 8.0.2 on i686-pc-linux-gnu, compiled by GCC gcc (GCC) 3.4.2 20041017 (Red Hat 3.4.2-6.fc3), Redshift 1.0.77467";
        assert!(EngineKind::identify(Wire::Postgres, redshift).unwrap_err().contains("Amazon Redshift"));
        assert_eq!(EngineKind::identify(Wire::Mysql, "10.11.6-MariaDB-0+deb12u1"), Ok(EngineKind::MariaDb));
        assert_eq!(EngineKind::identify(Wire::Mysql, "8.0.36"), Ok(EngineKind::MariaDb));
        assert_eq!(EngineKind::identify(Wire::Mysql, "8.0.11-TiDB-v7.5.0"), Ok(EngineKind::MariaDb));
        assert!(EngineKind::identify(Wire::Mysql, "8.0.11-vitess-17.0.0").unwrap_err().contains("Vitess"));
    }

    #[test]
    fn names_are_unique() {
        let names: Vec<&str> = EngineKind::all_names().collect();
        let mut sorted = names.clone();
        sorted.sort_unstable();
        sorted.dedup();
        assert_eq!(sorted.len(), names.len());
    }
}
