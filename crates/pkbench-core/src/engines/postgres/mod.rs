//! PostgreSQL: a managed throwaway cluster or the user's server at a URL, run by the shared
//! server engine ([`ServerEngine`](super::server::ServerEngine)) over PostgreSQL's wire.
//!
//! The folder holds what only PostgreSQL has: `dialect.rs` (its SQL spellings), `backend.rs`
//! (version check, sessions, settings), `server.rs` (the managed cluster), `counters.rs` (WAL
//! and buffer counters from the statistics views), `walinspect.rs` (the WAL read back, within the
//! counter budget), `physical.rs` (`pgstattuple` statistics) and `wal_size.rs` (the managed
//! cluster's WAL sizes, which the page model's checkpoints follow).

pub mod dialect;
pub mod wal_size;

#[cfg(feature = "postgres")]
mod backend;
#[cfg(feature = "postgres")]
pub mod counters;
#[cfg(feature = "postgres")]
pub mod physical;
#[cfg(feature = "postgres")]
mod server;
#[cfg(feature = "postgres")]
mod walinspect;

#[cfg(feature = "postgres")]
pub use backend::PostgresBackend;
#[cfg(feature = "postgres")]
pub use server::{ManagedPostgres, RESERVED_SETTINGS, WAL_KEEP_MB, bin_dir_for_version, wheel_dir};

use crate::Error;
use crate::engines::app::AppSql;
use crate::engines::sql::{self, BenchSql};
use crate::strategy::Strategy;
use dialect::PostgresDialect;

/// The PostgreSQL engine.
#[cfg(feature = "postgres")]
pub type PostgresEngine = super::server::ServerEngine<PostgresBackend>;

/// `strategy`'s insert-growth tables inside `schema`, in PostgreSQL's dialect.
pub fn render_schema(strategy: &Strategy, schema: &str) -> Result<BenchSql, Error> {
    sql::bench::render(&PostgresDialect, strategy, schema)
}

/// The application workload's tables for `strategy` inside `schema`, in PostgreSQL's dialect.
pub fn render_app_schema(strategy: &Strategy, schema: &str) -> Result<AppSql, Error> {
    sql::app::render(&PostgresDialect, strategy, schema)
}
