//! The registry of workloads: every workload with its name, what it measures, its default
//! strategies, the engines it runs on and the settings it reads. `pkbench list`, the command
//! line's value list and every refusal of a setting a workload would ignore read it; nothing
//! matches on a workload or a setting with a wildcard arm, so adding either makes the compiler
//! list every place that must decide.

use super::choices::Choice;
use super::settings::Setting;
use crate::engines::EngineKind;
use crate::generators::Scheme;

/// One workload `pkbench run --workload` runs.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum WorkloadKind {
    /// Insert rows in batches and time every batch as the table grows.
    InsertGrowth,
    /// N connections insert single rows in autocommit statements for a fixed time.
    Concurrent,
    /// N rows to a plain file vs SQLite in one transaction at every `synchronous` level.
    FileBaseline,
    /// Grow with uuid4, switch new rows to uuid7, then compact.
    Remedy,
    /// The user's own tables (`--schema FILE.sql` or `--like URL`).
    Schema,
    /// A small SaaS app: users + orders.
    App,
    /// Retention: a fixed-size table turned over three times.
    Churn,
    /// insert-growth with each batch placed by table size against the cache and memory.
    Scale,
}

/// The strategies every workload compares unless it has its own.
pub const DEFAULT_STRATEGIES: &str = "int,uuid7,uuid4,uuid4-text,int+uuid4";

/// The sharded engines' default comparison: ordered, random, and keys made to spread.
pub const SHARDED_STRATEGIES: &str = "int,uuid7,uuid4,hash-seq,bitrev-seq";

impl WorkloadKind {
    /// Every workload, in the order `pkbench list` shows them.
    pub const ALL: [WorkloadKind; 8] = [
        WorkloadKind::InsertGrowth,
        WorkloadKind::Concurrent,
        WorkloadKind::App,
        WorkloadKind::FileBaseline,
        WorkloadKind::Remedy,
        WorkloadKind::Churn,
        WorkloadKind::Schema,
        WorkloadKind::Scale,
    ];

    /// The name `--workload` takes.
    pub fn name(self) -> &'static str {
        match self {
            WorkloadKind::InsertGrowth => "insert-growth",
            WorkloadKind::Concurrent => "concurrent",
            WorkloadKind::FileBaseline => "file-baseline",
            WorkloadKind::Remedy => "remedy",
            WorkloadKind::Schema => "schema",
            WorkloadKind::App => "app",
            WorkloadKind::Churn => "churn",
            WorkloadKind::Scale => "scale",
        }
    }

    /// One line on what it measures (`pkbench list`, `--help`).
    pub fn describe(self) -> &'static str {
        match self {
            WorkloadKind::InsertGrowth => {
                "insert rows in batches, timing each batch as the table grows (--presort sorts each batch)"
            }
            WorkloadKind::Concurrent => {
                "--threads N connections insert single rows (autocommit) for --duration after --warmup; per-second rows/s, latency p50/p95/p99/max, SQLite lock wait"
            }
            WorkloadKind::App => {
                "a small-SaaS app (users + orders): load, aggregate, point select, paginated join, CRUD (SQLite, PostgreSQL, MariaDB)"
            }
            WorkloadKind::FileBaseline => {
                "plain-file writes (per row, buffered, ± fsync) vs SQLite at every synchronous level"
            }
            WorkloadKind::Remedy => {
                "switching to uuid7 tested: grow with uuid4, switch new rows to uuid7, then VACUUM / VACUUM FULL / OPTIMIZE TABLE (default --strategies uuid4)"
            }
            WorkloadKind::Churn => {
                "retention: fixed-size table, delete oldest --batch rows and insert new ones; size and leaf fill over time"
            }
            WorkloadKind::Schema => {
                "your own tables (--schema FILE.sql): parents, batches of rows with their children, reads by key, index and children; every row and foreign key verified"
            }
            WorkloadKind::Scale => {
                "three regimes: insert-growth split by table size vs engine cache and memory cap (cgroup limit or RAM)"
            }
        }
    }

    /// The strategies it compares when `--strategies` is not given; `None` for a workload that
    /// takes none (and refuses the flag).
    pub fn default_strategies(self, engine: EngineKind) -> Option<&'static str> {
        match self {
            WorkloadKind::FileBaseline => None,
            WorkloadKind::Remedy => Some("uuid4"),
            // One key column replaced: no second key beside it.
            WorkloadKind::Schema => Some("int,uuid7,uuid4,uuid4-text"),
            // One key column: the default's int+uuid4 needs an index across shards.
            WorkloadKind::InsertGrowth
            | WorkloadKind::Concurrent
            | WorkloadKind::App
            | WorkloadKind::Churn
            | WorkloadKind::Scale
                if engine.is_sharded() =>
            {
                Some(SHARDED_STRATEGIES)
            }
            WorkloadKind::InsertGrowth
            | WorkloadKind::Concurrent
            | WorkloadKind::App
            | WorkloadKind::Churn
            | WorkloadKind::Scale => Some(DEFAULT_STRATEGIES),
        }
    }

    /// Whether it runs on `engine`.
    pub fn runs_on(self, engine: EngineKind) -> bool {
        match engine {
            EngineKind::Sqlite => true,
            // Every workload but SQLite's own file baseline.
            EngineKind::Postgres | EngineKind::MariaDb => self != WorkloadKind::FileBaseline,
            // Inserts, from one session or many.
            EngineKind::Spider | EngineKind::PostgresFdw => {
                matches!(self, WorkloadKind::InsertGrowth | WorkloadKind::Concurrent)
            }
            // Inserts from one session or many, the app's and a schema file's tables (without
            // foreign keys, which RocksDB's tables refuse).
            EngineKind::MyRocks => matches!(
                self,
                WorkloadKind::InsertGrowth | WorkloadKind::Concurrent | WorkloadKind::App | WorkloadKind::Schema
            ),
        }
    }

    /// Whether it reads `setting`; a setting given to a workload that does not read it is
    /// refused. Settings of the engine, the keys and the output apply to every workload (the
    /// engine and the strategies decide those).
    pub fn reads(self, setting: Setting) -> bool {
        match scope(setting) {
            Scope::Workloads(workloads) => workloads.contains(&self),
            Scope::Strategies => self.default_strategies(EngineKind::Sqlite).is_some(),
            Scope::Keys(_) | Scope::Every => true,
        }
    }

    /// The workloads that read `setting`, by name, for a refusal's advice.
    pub fn readers(setting: Setting) -> Vec<&'static str> {
        Self::ALL.iter().filter(|w| w.reads(setting)).map(|w| w.name()).collect()
    }
}

/// What a setting applies to.
#[derive(Clone, Copy)]
pub enum Scope {
    /// These workloads read it.
    Workloads(&'static [WorkloadKind]),
    /// Every workload that takes strategies.
    Strategies,
    /// Keys of the schemes for which this is true (every workload).
    Keys(fn(Scheme) -> bool),
    /// Every workload (the engine, the output and the run as a whole).
    Every,
}

/// The registry of settings: what each one applies to.
pub fn scope(setting: Setting) -> Scope {
    use WorkloadKind::{App, Churn, Concurrent, FileBaseline, InsertGrowth, Remedy, Scale, Schema};
    match setting {
        Setting::Rows => Scope::Workloads(&[InsertGrowth, FileBaseline, Remedy, Scale, Churn, Schema]),
        Setting::Batch => Scope::Workloads(&[InsertGrowth, Remedy, Scale, Churn, App, Schema]),
        Setting::Schema
        | Setting::Like
        | Setting::Table
        | Setting::Values
        | Setting::ParentRows
        | Setting::ChildrenPerRow
        | Setting::FkLocality
        | Setting::ReadLocality
        | Setting::Reads => Scope::Workloads(&[Schema]),
        Setting::Threads | Setting::Duration | Setting::Rate | Setting::Txn | Setting::Isolation => {
            Scope::Workloads(&[Concurrent])
        }
        Setting::Users | Setting::OrdersPerUser => Scope::Workloads(&[App]),
        Setting::Payload => Scope::Workloads(&[InsertGrowth, Concurrent, Remedy, Scale, Churn]),
        Setting::Warmup => Scope::Workloads(&[Concurrent, App]),
        Setting::Presort => Scope::Workloads(&[InsertGrowth]),
        Setting::MemoryCapMb => Scope::Workloads(&[Scale]),
        Setting::KeepDb => Scope::Workloads(&[InsertGrowth, Remedy, Churn, Scale, Concurrent, Schema]),
        Setting::Strategies => Scope::Strategies,
        Setting::KeyRate => Scope::Keys(Scheme::is_time_based),
        Setting::BlockSize | Setting::BlockCount => Scope::Keys(|s| s == Scheme::SeqUuid),
        Setting::Interval | Setting::IntervalCount => Scope::Keys(|s| s == Scheme::TimeUuid),
        Setting::Worker => Scope::Keys(|s| s == Scheme::Snowflake),
        Setting::Epoch => Scope::Keys(|s| matches!(s, Scheme::Snowflake | Scheme::SnowflakeWorkers)),
        Setting::WorkerCount => Scope::Keys(|s| s == Scheme::SnowflakeWorkers),
        Setting::HashBuckets => Scope::Keys(|s| s == Scheme::HashSeq),
        Setting::ShardBits => Scope::Keys(|s| s == Scheme::ShardBitsSeq),
        Setting::V7Method => Scope::Keys(|s| s == Scheme::Uuid7),
        Setting::Key => Scope::Keys(|s| s == Scheme::MaskedInt),
        Setting::Engine
        | Setting::Workload
        | Setting::Repeat
        | Setting::CacheMb
        | Setting::Sync
        | Setting::PageSize
        | Setting::Journal
        | Setting::Url
        | Setting::PasswordFile
        | Setting::ConnectTimeout
        | Setting::StatementTimeout
        | Setting::KeepLeftovers
        | Setting::ServerBin
        | Setting::PgVersion
        | Setting::ServerSettings
        | Setting::DataDir
        | Setting::Shards
        | Setting::Sharding
        | Setting::Seed
        | Setting::CounterBudget
        | Setting::Format => Scope::Every,
    }
}

impl Choice for WorkloadKind {
    fn choices() -> Vec<(Self, &'static str, &'static str)> {
        Self::ALL.iter().map(|w| (*w, w.name(), w.describe())).collect()
    }
}

impl std::fmt::Display for WorkloadKind {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_round_trip_and_every_engine_runs_insert_growth() {
        for w in WorkloadKind::ALL {
            assert_eq!(WorkloadKind::from_name(w.name()), Ok(w));
        }
        assert!(WorkloadKind::from_name("bogus").unwrap_err().contains("insert-growth"));
        for e in EngineKind::ALL {
            assert!(WorkloadKind::InsertGrowth.runs_on(e), "{e}");
        }
        assert!(!WorkloadKind::FileBaseline.runs_on(EngineKind::Postgres));
    }

    #[test]
    fn workload_settings_are_read_by_at_least_one_workload() {
        for s in Setting::ALL {
            assert!(!WorkloadKind::readers(*s).is_empty(), "{s:?}");
        }
        assert_eq!(WorkloadKind::readers(Setting::Threads), ["concurrent"]);
    }
}
