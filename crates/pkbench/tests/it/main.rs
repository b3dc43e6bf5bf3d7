//! The command-line tests, in one binary: every test binary links the whole library, so one
//! binary builds far faster than one per file.
//!
//! Tier one runs on any machine with Rust: `pkbench` on SQLite, models, reports, ids and every
//! error path. Tier two (the `server-tests` feature, which `scripts/test` and CI turn on) needs
//! what a bare machine lacks: managed PostgreSQL and MariaDB servers, Chromium, man-db, and root
//! for a tmpfs. A tier-two test that cannot find what it needs fails and says why; it never skips.

#![allow(clippy::unwrap_used, reason = "a test unwraps what it set up: a failure there is the test failing")]

mod common;

mod advise_cli;
mod bounded_inputs;
mod cli;
mod concurrent_cli;
mod connect_timeout_cli;
mod docs;
mod doctor_cli;
mod help;
mod ids_cli;
mod install;
mod no_history;
mod pipes;
mod plans_cli;
mod predict_cli;
mod report_cli;
mod results_folder_cli;
mod schema_cli;
mod workloads_cli;

#[cfg(feature = "server-tests")]
mod credentials_cli;
#[cfg(feature = "server-tests")]
mod faults;
#[cfg(feature = "server-tests")]
mod hostile_inputs;
#[cfg(feature = "server-tests")]
mod mariadb_cli;
#[cfg(feature = "server-tests")]
mod myrocks_cli;
#[cfg(feature = "server-tests")]
mod postgres_cli;
#[cfg(feature = "server-tests")]
mod public_schemas_cli;
#[cfg(feature = "server-tests")]
mod report_browser;
#[cfg(feature = "server-tests")]
mod sharded_cli;
#[cfg(feature = "server-tests")]
mod user_server_cli;
