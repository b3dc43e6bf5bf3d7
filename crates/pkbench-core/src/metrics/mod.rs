//! Derived figures: pure statistics, and per-strategy summaries computed from results.

pub mod stats;
mod summary;

pub use summary::{StrategySummary, Summary, summarize};
