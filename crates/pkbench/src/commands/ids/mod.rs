//! `pkbench ids`: generate, inspect and time IDs of every scheme, without any database.

mod bench;
mod generate;
mod inspect;

use super::key_args::SchemeArgs;
use crate::size::parse_count;
use clap::{Args, Subcommand, ValueEnum};
use pkbench_core::config::values::parse_key;
use pkbench_core::generators::inspect::shard_aware_layout;
use pkbench_core::generators::{SNOWFLAKE_DEFAULT_EPOCH_MS, Scheme};
use std::process::ExitCode;

#[derive(Debug, Args)]
pub struct IdsArgs {
    #[command(subcommand)]
    pub command: IdsCommand,
}

#[derive(Debug, Subcommand)]
pub enum IdsCommand {
    /// Print N IDs of a scheme, one per line.
    Gen(GenArgs),
    /// Decode IDs (arguments, or one per line on stdin): scheme, version, time, fields, order.
    Inspect(InspectArgs),
    /// Time every scheme's generator: ns per ID and IDs/s, one thread and all cores.
    Bench(BenchArgs),
}

/// Output format of `ids gen`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum IdFormat {
    /// The scheme's canonical text: hyphenated UUID, 26-character ULID, decimal integer.
    Text,
    /// 32 lowercase hex digits (128-bit schemes).
    Hex,
    /// 26 characters of Crockford base32 (128-bit schemes).
    Base32,
    /// Decimal 64-bit integer (integer schemes).
    Int,
}

#[derive(Debug, Args)]
pub struct GenArgs {
    /// int, snowflake, masked-int, hash-seq, bitrev-seq, shard-bits-seq, snowflake-workers, uuid1,
    /// uuid4, uuid6, uuid7, ulid, seq-uuid, time-uuid, comb, comb-mssql.
    #[arg(value_parser = parse_scheme)]
    pub scheme: Scheme,
    /// How many IDs (accepts 10k, 10M, …).
    #[arg(short = 'n', long = "count", default_value = "1", value_parser = parse_count, allow_hyphen_values = true)]
    pub count: u64,
    /// Output format.
    #[arg(long, value_enum, default_value = "text")]
    pub format: IdFormat,
    /// Reproducible stream: seeded ChaCha8 and pkbench's virtual clock, the keys `pkbench run
    /// --seed S` inserts [default: OS-seeded CSPRNG and the real clock].
    #[arg(long)]
    pub seed: Option<u64>,
    #[command(flatten)]
    pub params: SchemeArgs,
}

#[derive(Debug, Args)]
pub struct InspectArgs {
    /// IDs to decode; none (or `-`) reads one per line from stdin.
    #[arg(allow_hyphen_values = true)]
    pub ids: Vec<String>,
    /// Snowflake epoch in Unix milliseconds used to read integers.
    #[arg(long, default_value_t = SNOWFLAKE_DEFAULT_EPOCH_MS)]
    pub epoch: u64,
    /// masked-int key: also unmask integers with it (decimal or 0x-hex).
    #[arg(long, value_parser = parse_key)]
    pub key: Option<u64>,
    /// Read integers as a shard-aware layout, which cannot be told from the value alone:
    /// hash-seq, bitrev-seq, shard-bits-seq or snowflake-workers.
    #[arg(long, value_parser = parse_layout)]
    pub scheme: Option<Scheme>,
    /// hash-seq: the bucket count, to check a bucket against its sequence's hash.
    #[arg(long, default_value_t = 16)]
    pub hash_buckets: u16,
    /// shard-bits-seq: the shard bits, to split a value.
    #[arg(long, default_value_t = 4)]
    pub shard_bits: u8,
}

#[derive(Debug, Args)]
pub struct BenchArgs {
    /// Schemes to time (default: all).
    #[arg(value_parser = parse_scheme)]
    pub schemes: Vec<Scheme>,
    /// Milliseconds of generation per scheme and thread count.
    #[arg(long, default_value_t = 300)]
    pub ms: u64,
    /// Threads for the all-cores run [default: available cores].
    #[arg(long)]
    pub threads: Option<usize>,
}

fn parse_scheme(s: &str) -> Result<Scheme, String> {
    Scheme::from_name(s).map_err(|e| e.to_string())
}

/// A scheme `ids inspect --scheme` reads: only the layouts it cannot detect.
fn parse_layout(s: &str) -> Result<Scheme, String> {
    let scheme = parse_scheme(s)?;
    if shard_aware_layout(scheme) {
        return Ok(scheme);
    }
    let layouts: Vec<&str> = Scheme::ALL.into_iter().filter(|s| shard_aware_layout(*s)).map(Scheme::name).collect();
    Err(format!(
        "{scheme} is recognised without --scheme; --scheme reads the layouts a value cannot reveal: {}",
        layouts.join(", ")
    ))
}

/// Runs `pkbench ids …`.
pub fn ids(args: IdsArgs) -> anyhow::Result<ExitCode> {
    match args.command {
        IdsCommand::Gen(a) => generate::generate(a),
        IdsCommand::Inspect(a) => inspect::inspect(a),
        IdsCommand::Bench(a) => bench::bench(a),
    }
}
