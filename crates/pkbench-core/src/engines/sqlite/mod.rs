//! Embedded SQLite through rusqlite's bundled build: one fresh database file per case.
//!
//! `dialect.rs`, `schema.rs` (its tables per strategy) and `settings.rs` need no driver; the
//! engine itself (`engine.rs`), its counters, `dbstat` reader, concurrent client and app
//! workload need the `sqlite` feature.

pub mod dialect;
mod schema;
mod settings;

#[cfg(feature = "sqlite")]
mod app;
#[cfg(feature = "sqlite")]
mod app_schema;
#[cfg(feature = "sqlite")]
mod client;
#[cfg(feature = "sqlite")]
mod counters;
#[cfg(feature = "sqlite")]
mod dbstat;
#[cfg(feature = "sqlite")]
mod engine;
#[cfg(feature = "sqlite")]
mod log_table;
#[cfg(feature = "sqlite")]
mod own_schema;

#[cfg(feature = "sqlite")]
pub use app_schema::render as render_app_schema;
#[cfg(feature = "sqlite")]
pub use dbstat::btree_stats;
#[cfg(feature = "sqlite")]
pub use engine::SqliteEngine;
#[cfg(feature = "sqlite")]
use engine::{bind_key, file_len, refuse_existing, remove_database, shm_path, wal_path};
#[cfg(feature = "sqlite")]
pub use log_table::{LogInsert, insert_log_lines};
pub use schema::{MAP_TABLE, SqliteSchema, TABLE, render as render_schema};
pub use settings::{Journal, SqliteSettings, Synchronous, check_page_size_and_cache};
