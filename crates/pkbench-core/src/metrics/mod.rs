//! Derived figures: pure statistics, and per-strategy summaries computed from results.

pub mod budget;
mod latency;
mod repeats;
pub mod stats;
mod summary;

pub use latency::LatencyRecorder;
pub use repeats::{RepeatedFigure, WIDE_SPREAD, repeated_figures};

pub use summary::{StrategySummary, Summary, summarize};
