//! MyRocks: MariaDB with the RocksDB storage engine (Debian's `mariadb-plugin-rocksdb`), whose
//! tables are log-structured merge trees rather than B-trees. A managed throwaway server with the
//! plugin loaded, or the user's server at a URL, run by the shared server engine
//! ([`ServerEngine`](super::server::ServerEngine)) over MariaDB's own backend.
//!
//! The folder holds what only MyRocks has: `dialect.rs` (MariaDB's SQL with `ENGINE=ROCKSDB`),
//! `server.rs` (what a managed server adds: the plugin, the block cache, bloom filters),
//! `backend.rs` (the plugin check and the settings recorded), `counters.rs` (RocksDB's
//! statistics), `physical.rs` (a table's share of the sorted files) and `memtable.rs` (what an
//! insert costs as the memtable grows, for `pkbench predict`'s calibration).

pub mod dialect;

#[cfg(feature = "mysql")]
mod backend;
#[cfg(feature = "mysql")]
mod counters;
#[cfg(feature = "mysql")]
pub mod memtable;
#[cfg(feature = "mysql")]
mod physical;
#[cfg(feature = "mysql")]
mod server;

#[cfg(feature = "mysql")]
pub use backend::MyRocksBackend;
#[cfg(feature = "mysql")]
pub use physical::levels;
#[cfg(feature = "mysql")]
pub use server::{DEFAULT_CF_OPTIONS, RESERVED_SETTINGS};

/// The MyRocks engine.
#[cfg(feature = "mysql")]
pub type MyRocksEngine = super::server::ServerEngine<MyRocksBackend>;
