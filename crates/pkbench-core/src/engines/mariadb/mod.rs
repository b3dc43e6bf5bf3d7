//! MariaDB/MySQL (InnoDB): a managed throwaway server or the user's at a URL, run by the shared
//! server engine ([`ServerEngine`](super::server::ServerEngine)) over the MySQL wire.
//!
//! The folder holds what only MariaDB has: `dialect.rs` (its SQL spellings, with the storage
//! engine as a parameter), `backend.rs` (version, sessions, settings), `flavor.rs` (MariaDB or MySQL 8, and
//! the statements that differ), `server.rs` (the managed
//! server), `counters.rs` (InnoDB's status counters), `physical.rs` (sizes and the `.ibd`
//! reader) and `uuid_type.rs` (what each version offers for UUID keys).

pub mod dialect;
pub mod uuid_type;

#[cfg(feature = "mysql")]
mod backend;
#[cfg(feature = "mysql")]
mod counters;
pub mod flavor;
#[cfg(feature = "mysql")]
pub mod physical;
#[cfg(feature = "mysql")]
mod server;

#[cfg(feature = "mysql")]
pub use backend::MariaDbBackend;
#[cfg(feature = "mysql")]
pub use server::{ManagedMariaDb, RESERVED_SETTINGS};
// The command line checks `--cache-mb` against InnoDB's smallest pool before starting a server.
pub use crate::engine_facts::innodb::MIN_POOL_MB;

use crate::Error;
use crate::engines::app::AppSql;
use crate::engines::sql::{self, BenchSql};
use crate::strategy::Strategy;
use dialect::INNODB;

/// The MariaDB engine.
#[cfg(feature = "mysql")]
pub type MariaDbEngine = super::server::ServerEngine<MariaDbBackend>;

/// `strategy`'s insert-growth tables inside database `db`, in MariaDB's dialect (InnoDB).
pub fn render_schema(strategy: &Strategy, db: &str) -> Result<BenchSql, Error> {
    sql::bench::render(&INNODB, strategy, db)
}

/// The application workload's tables for `strategy` inside database `db` (InnoDB).
pub fn render_app_schema(strategy: &Strategy, db: &str) -> Result<AppSql, Error> {
    sql::app::render(&INNODB, strategy, db)
}
