//! Embedded SQLite through rusqlite's bundled build: one fresh database file per case. The
//! engine itself is the engine core over [`SqliteBackend`] (`backend.rs`: provisioning each
//! case's file, its settings and the concurrent clients' connections), with SQLite's counters
//! (`counters.rs`) and `dbstat` reader (`physical.rs`).
//!
//! `dialect.rs`, `schema.rs` (its tables per strategy: rowid and `WITHOUT ROWID` layouts) and
//! `settings.rs` need no driver; the rest needs the `sqlite` feature.

pub mod dialect;
mod schema;
mod settings;

#[cfg(feature = "sqlite")]
mod app_schema;
#[cfg(feature = "sqlite")]
mod backend;
#[cfg(feature = "sqlite")]
mod counters;
#[cfg(feature = "sqlite")]
mod log_table;
#[cfg(feature = "sqlite")]
mod physical;

#[cfg(feature = "sqlite")]
pub use app_schema::render as render_app_schema;
#[cfg(feature = "sqlite")]
pub use backend::{SqliteBackend, SqliteEngine};
#[cfg(feature = "sqlite")]
pub use log_table::{LogInsert, insert_log_lines};
#[cfg(feature = "sqlite")]
pub use physical::btree_stats;
pub use schema::{MAP_TABLE, SqliteSchema, TABLE, render as render_schema};
pub use settings::{Journal, SqliteSettings, Synchronous, check_page_size_and_cache};
