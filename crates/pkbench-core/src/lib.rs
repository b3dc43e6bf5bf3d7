//! pkbench's library: key generators, strategies, engines, workloads, results and reports.
//!
//! The `pkbench` binary is a thin command line over this crate; nothing here parses arguments
//! or writes to the terminal.

#![warn(missing_docs)]
// The docs are read with their private items (`cargo doc --document-private-items`): a public
// item's doc may name the private constant or helper it follows.
#![allow(rustdoc::private_intra_doc_links)]

pub mod advise;
pub mod compare;
pub mod config;
pub mod control;
pub mod doctor;
pub mod engine_facts;
pub mod engine_kind;
pub mod engines;
mod error;
pub mod generators;
pub mod keys;
pub mod metrics;
pub mod plan;
pub mod platform;
pub mod predict;
pub mod report;
pub mod results;
pub mod run;
pub mod schema;
pub mod sharding;
pub mod strategy;
pub mod util;
pub mod values;
pub mod workloads;

pub use error::{Error, ServerError, ServerErrorKind};

/// pkbench's version, recorded in every results file.
pub const VERSION: &str = env!("CARGO_PKG_VERSION");
