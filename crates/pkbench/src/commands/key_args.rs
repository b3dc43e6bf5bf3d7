//! The key parameters `run` and `ids gen` share, under the same names: the virtual clock's key
//! rate and each scheme's parameters.

use crate::size::parse_count;
use clap::{Args, ValueEnum};
use pkbench_core::Error;
use pkbench_core::generators::{SNOWFLAKE_DEFAULT_EPOCH_MS, Scheme, SchemeParams, V7Method, VirtualClock};
use pkbench_core::strategy::Strategy;
use pkbench_core::workloads::{KeySettings, strategy_schemes};

/// RFC 9562 §6.2 method for UUIDv7.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum V7MethodArg {
    /// Method 1: 42-bit counter after the millisecond.
    #[value(name = "1")]
    Counter,
    /// Method 3: 12-bit sub-millisecond fraction.
    #[value(name = "3")]
    SubMillisecond,
}

/// Key parameters: the key rate of seeded streams and each scheme's own.
#[derive(Debug, Args)]
pub struct SchemeArgs {
    /// Time-based keys (uuid1, uuid6, uuid7, ulid, snowflake, snowflake-workers, comb, comb-mssql,
    /// time-uuid): rows
    /// per second of key time, the insert rate of the application the keys model (accepts 500,
    /// 2k, 1M) [default: 1000, a busy OLTP table].
    #[arg(long, value_parser = parse_count)]
    pub key_rate: Option<u64>,
    /// seq-uuid: sequence values per block.
    #[arg(long, default_value = "65536", value_parser = parse_count)]
    pub block_size: u64,
    /// seq-uuid: blocks before the prefix wraps.
    #[arg(long, default_value = "65536", value_parser = parse_count)]
    pub block_count: u64,
    /// time-uuid: seconds per interval.
    #[arg(long, default_value_t = 60)]
    pub interval: u64,
    /// time-uuid: intervals before the prefix wraps.
    #[arg(long, default_value = "65536", value_parser = parse_count)]
    pub interval_count: u64,
    /// snowflake: worker number, 0-1023.
    #[arg(long, default_value_t = 1)]
    pub worker: u16,
    /// snowflake, snowflake-workers: epoch in Unix milliseconds (default: Twitter's, 2010-11-04).
    #[arg(long, default_value_t = SNOWFLAKE_DEFAULT_EPOCH_MS)]
    pub epoch: u64,
    /// snowflake-workers: workers taking turns, 1-1024 (each its own range of keys).
    #[arg(long, default_value_t = 4)]
    pub worker_count: u16,
    /// hash-seq: hash buckets in front of the sequence, 2-256.
    #[arg(long, default_value_t = 16)]
    pub hash_buckets: u16,
    /// shard-bits-seq: hashed shard bits below the sign bit, 1-15.
    #[arg(long, default_value_t = 4)]
    pub shard_bits: u8,
    /// uuid7: RFC 9562 monotonicity method.
    #[arg(long, value_enum, default_value = "1")]
    pub v7_method: V7MethodArg,
    /// masked-int: the 64-bit key (decimal or 0x-hex) [default: random, printed on stderr].
    #[arg(long, value_parser = parse_key)]
    pub key: Option<u64>,
}

/// Whether a scheme uses a flag.
type Uses = fn(Scheme) -> bool;

/// Each key flag (argument id, flag) and whether a scheme uses it.
const FLAGS: [(&str, &str, Uses); 12] = [
    ("key_rate", "--key-rate", Scheme::is_time_based),
    ("block_size", "--block-size", |s| s == Scheme::SeqUuid),
    ("block_count", "--block-count", |s| s == Scheme::SeqUuid),
    ("interval", "--interval", |s| s == Scheme::TimeUuid),
    ("interval_count", "--interval-count", |s| s == Scheme::TimeUuid),
    ("worker", "--worker", |s| s == Scheme::Snowflake),
    ("epoch", "--epoch", |s| matches!(s, Scheme::Snowflake | Scheme::SnowflakeWorkers)),
    ("worker_count", "--worker-count", |s| s == Scheme::SnowflakeWorkers),
    ("hash_buckets", "--hash-buckets", |s| s == Scheme::HashSeq),
    ("shard_bits", "--shard-bits", |s| s == Scheme::ShardBitsSeq),
    ("v7_method", "--v7-method", |s| s == Scheme::Uuid7),
    ("key", "--key", |s| s == Scheme::MaskedInt),
];

impl SchemeArgs {
    /// The schemes' parameters, checked.
    pub fn params(&self) -> Result<SchemeParams, Error> {
        let params = SchemeParams {
            v7_method: match self.v7_method {
                V7MethodArg::Counter => V7Method::Counter,
                V7MethodArg::SubMillisecond => V7Method::SubMillisecond,
            },
            snowflake_epoch_ms: self.epoch,
            snowflake_worker: self.worker,
            snowflake_workers: self.worker_count,
            hash_buckets: self.hash_buckets,
            shard_bits: self.shard_bits,
            mask_key: self.key,
            seq_block_size: self.block_size,
            seq_block_count: self.block_count,
            time_interval_secs: self.interval,
            time_interval_count: self.interval_count,
        };
        params.validate().map_err(|e| Error::InvalidInput(e.to_string()))?;
        Ok(params)
    }

    /// The key rate, checked.
    pub fn rate(&self) -> Result<u64, Error> {
        match self.key_rate {
            Some(0) => Err(Error::InvalidInput(
                "--key-rate 0 stops time: use a positive rate in rows per second (e.g. --key-rate 1000)".into(),
            )),
            Some(r) => Ok(r),
            None => Ok(VirtualClock::DEFAULT_KEYS_PER_S),
        }
    }

    /// Seed, rate and parameters of a benchmark key stream.
    pub fn settings(&self, seed: u64) -> Result<KeySettings, Error> {
        Ok(KeySettings { seed, rate: self.rate()?, params: self.params()? })
    }

    /// Refuses a key flag typed on the command line (`given` argument ids) that none of
    /// `strategies` uses, naming the schemes it is for.
    pub fn refuse_unused(given: &[String], strategies: &[&Strategy]) -> Result<(), Error> {
        for (id, flag, uses) in FLAGS {
            if !given.iter().any(|g| g == id) {
                continue;
            }
            if strategies.iter().flat_map(|s| strategy_schemes(s)).any(uses) {
                continue;
            }
            let for_schemes: Vec<&str> = Scheme::ALL.into_iter().filter(|s| uses(*s)).map(Scheme::name).collect();
            let names: Vec<&str> = strategies.iter().map(|s| s.name).collect();
            return Err(Error::InvalidInput(format!(
                "{flag} shapes {} keys, and none of -s {} uses them: remove it",
                for_schemes.join(", "),
                names.join(",")
            )));
        }
        Ok(())
    }
}

/// Parses a 64-bit key in decimal or `0x` hex.
pub fn parse_key(s: &str) -> Result<u64, String> {
    let t = s.trim().replace('_', "");
    let parsed = match t.strip_prefix("0x").or_else(|| t.strip_prefix("0X")) {
        Some(hex) => u64::from_str_radix(hex, 16),
        None => t.parse::<u64>(),
    };
    parsed.map_err(|_| format!("'{s}' is not a 64-bit key: use a decimal number or 0x followed by hex digits"))
}
