//! Sharded MariaDB: a managed head with Debian's Spider storage engine (`mariadb-plugin-spider`)
//! whose partitioned table sends every row to one of N managed InnoDB servers, by key range or
//! by MariaDB's KEY hash. Run by the shared sharded backend
//! ([`ShardedBackend`](super::sharded::ShardedBackend)) over MariaDB's own backend.
//!
//! The folder holds what only Spider has: `dialect.rs` (the head's partitioned Spider table)
//! and `backend.rs` (the plugin, the foreign servers and the shards' row counts).

pub mod dialect;

#[cfg(feature = "mysql")]
mod backend;

/// The sharded MariaDB engine.
#[cfg(feature = "mysql")]
pub type SpiderEngine = super::server::ServerEngine<super::sharded::ShardedBackend<super::mariadb::MariaDbBackend>>;
