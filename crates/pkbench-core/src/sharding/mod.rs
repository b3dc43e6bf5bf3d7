//! Sharding: how a sharded engine splits one table over several servers, where each strategy's
//! keys land, and the skew figures that show it. The layout and its bounds need no driver, so
//! the sharded engines, `predict` and the reports share them.

pub mod bounds;
pub mod skew;

use crate::Error;
use crate::strategy::{KeySource, Storage, Strategy};

/// Why a sharded engine cannot run `strategy`, or `None` if it can.
pub fn refusal(strategy: &Strategy) -> Option<String> {
    if strategy.secondary.is_some() {
        return Some(
            "a sharded table here holds one key column; a second key beside it needs an index across all shards, which neither Spider nor postgres_fdw keeps (use the strategy without the second key)".into(),
        );
    }
    if let KeySource::Server(_) = strategy.primary.source {
        return Some(
            "on a sharded engine the head routes each row by its key, so keys are made by the client or the head's integer sequence (int): use the client-generated form of this key".into(),
        );
    }
    if strategy.primary.storage == Storage::MariaDbUuid {
        return Some("MariaDB's UUID type reorders a UUID's bytes on disk, so pkbench cannot place range bounds for it: use the BINARY(16) strategy".into());
    }
    None
}

/// How rows are assigned to shards.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Sharding {
    /// Each shard holds one contiguous range of keys (CockroachDB, Spanner, TiDB, HBase): new
    /// ordered keys all go to the last range.
    #[default]
    Range,
    /// Each row goes to the shard a hash of its key picks (Citus, Vitess, YugabyteDB's default).
    Hash,
}

impl Sharding {
    /// The `--sharding` name.
    pub fn name(self) -> &'static str {
        match self {
            Sharding::Range => "range",
            Sharding::Hash => "hash",
        }
    }

    /// Both, in the order `--sharding` lists them.
    pub const ALL: [Sharding; 2] = [Sharding::Range, Sharding::Hash];

    /// The sharding called `name`, ignoring case, or an error naming both.
    pub fn parse(name: &str) -> Result<Sharding, Error> {
        Self::ALL
            .into_iter()
            .find(|s| s.name().eq_ignore_ascii_case(name))
            .ok_or_else(|| Error::InvalidInput(format!("--sharding '{name}' is not known: use range or hash")))
    }
}

impl std::fmt::Display for Sharding {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

/// How many shards, and how rows are assigned to them.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
pub struct ShardLayout {
    /// Number of shards (backend servers).
    pub shards: u32,
    /// Range or hash.
    pub sharding: Sharding,
}

impl Default for ShardLayout {
    fn default() -> Self {
        ShardLayout { shards: Self::DEFAULT_SHARDS, sharding: Sharding::Range }
    }
}

impl ShardLayout {
    /// Shards when `--shards` is not given.
    pub const DEFAULT_SHARDS: u32 = 4;
    /// The most shards pkbench starts (each is a server on this machine).
    pub const MAX_SHARDS: u32 = 16;

    /// A layout of `shards` shards, checked.
    pub fn new(shards: u32, sharding: Sharding) -> Result<Self, Error> {
        if !(2..=Self::MAX_SHARDS).contains(&shards) {
            return Err(Error::InvalidInput(format!(
                "--shards {shards} is out of range: use 2 to {} (each shard is a server pkbench starts on this machine)",
                Self::MAX_SHARDS
            )));
        }
        Ok(ShardLayout { shards, sharding })
    }

    /// The shard names, `shard0` … (servers, partitions and results use them).
    pub fn names(&self) -> Vec<String> {
        (0..self.shards).map(|i| format!("shard{i}")).collect()
    }
}
