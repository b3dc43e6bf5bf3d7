//! Sharded PostgreSQL: a managed head whose partitioned table has one `postgres_fdw` foreign
//! table per shard, each on its own managed PostgreSQL server, by key range or hash. Run by the
//! shared sharded backend ([`ShardedBackend`](super::sharded::ShardedBackend)) over
//! PostgreSQL's own backend.
//!
//! The folder holds what only postgres_fdw has: `dialect.rs` (the head's partitioned table and
//! its foreign partitions) and `backend.rs` (the extension, the foreign servers and the shards'
//! row counts).

pub mod dialect;

#[cfg(feature = "postgres")]
mod backend;

/// The sharded PostgreSQL engine.
#[cfg(feature = "postgres")]
pub type PostgresFdwEngine =
    super::server::ServerEngine<super::sharded::ShardedBackend<super::postgres::PostgresBackend>>;
