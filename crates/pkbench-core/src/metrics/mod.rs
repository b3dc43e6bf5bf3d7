//! Derived figures: pure statistics, and per-strategy summaries computed from results.

mod latency;
pub mod stats;
mod summary;

pub use latency::LatencyRecorder;

pub use summary::{StrategySummary, Summary, summarize};
