//! The library's integration tests, in one binary: every test binary links the whole library,
//! so one binary builds far faster than one per file.
//!
//! Tier one runs on any machine with Rust: unit-level, snapshot, property, mock-engine and SQLite
//! tests. Tier two (the `server-tests` feature, which `scripts/test` and CI turn on) starts real
//! PostgreSQL and MariaDB servers — TLS, sharded and version tests among them. A tier-two test
//! that cannot start its server fails and says why; it never skips. Tests that need *a* server,
//! not one of their own, share one cluster of each per binary ([`common::shared`]), each in a
//! database of its own.

#![allow(clippy::unwrap_used, reason = "a test unwraps what it set up: a failure there is the test failing")]

mod common;

mod code_shape;
mod concurrent;
mod doctor;
mod doctor_render;
mod doctor_sampling;
mod html_report;
mod ids_golden_streams;
mod ids_vectors;
mod input_properties;
mod own_schema;
mod predict_model;
mod predict_server_model;
mod predict_time_fit;
mod predict_vs_sqlite;
mod reports;
mod results_schema;
mod sqlite_engine;
mod workloads_sqlite;

#[cfg(feature = "server-tests")]
mod app_servers;
#[cfg(feature = "server-tests")]
mod doctor_export;
#[cfg(feature = "server-tests")]
mod doctor_mariadb;
#[cfg(feature = "server-tests")]
mod doctor_postgres;
#[cfg(feature = "server-tests")]
mod mariadb_engine;
#[cfg(feature = "server-tests")]
mod myrocks_engine;
#[cfg(feature = "server-tests")]
mod postgres_engine;
#[cfg(feature = "server-tests")]
mod predict_vs_servers;
#[cfg(feature = "server-tests")]
mod schema_round_trip;
#[cfg(feature = "server-tests")]
mod schema_servers;
#[cfg(feature = "server-tests")]
mod sharded_engines;
#[cfg(feature = "server-tests")]
mod tls_servers;
#[cfg(feature = "server-tests")]
mod workloads_servers;
