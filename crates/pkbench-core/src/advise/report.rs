//! The answer as `advice.json` holds it.

use super::figures::CandidateFigures;
use super::profile::TableProfile;
use super::switch_over::SwitchOver;
use super::target::Target;
use crate::Error;
use serde::{Deserialize, Serialize};
use std::path::PathBuf;

/// Version of the advice's JSON (`schema/advice.schema.json`).
pub const ADVICE_SCHEMA_VERSION: u32 = 1;

/// The answer, as saved in `advice.json`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct AdviceReport {
    /// [`ADVICE_SCHEMA_VERSION`].
    pub schema_version: u32,
    /// The command line.
    pub command: Vec<String>,
    /// The verdict line.
    pub verdict: String,
    /// The candidate advised.
    pub advised: String,
    /// Candidates not measurably different from the advised one.
    pub tied: Vec<String>,
    /// The table as read.
    pub table: TableProfile,
    /// The size forecast.
    pub target: Target,
    /// The forecast's page cache, MiB.
    pub cache_mb: u64,
    /// With `--shards`: the shards and their layout, in words.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sharded: Option<String>,
    /// With `--insert-rate`: how the contention check ran.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub contention: Option<ContentionSetup>,
    /// Payload bytes per row the page model's table carries to match the table's row width.
    pub payload_bytes: u64,
    /// Rows of the schema model whose trees were scaled to the target.
    pub sample_rows: u64,
    /// The calibration's engine and version (the machine's own engine, started by pkbench).
    pub calibrated_on: Option<String>,
    /// Each candidate, in order (the current key first).
    pub candidates: Vec<CandidateFigures>,
    /// One paragraph per notable candidate: the counters that explain its cost.
    pub why: Vec<String>,
    /// How to move to the advised key, where there is a key today.
    pub migration: Vec<String>,
    /// Doctor's migration script for the table, where advise names one in `migration` (also
    /// saved as `migration.sql`; advise never runs it).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub migration_sql: Option<String>,
    /// Where `migration` applies: the rebuild of the table with its current key that the
    /// calibration timed, scaled to its rows today.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub switch_over: Option<SwitchOver>,
    /// What advise did not measure.
    pub not_measured: Vec<String>,
    /// The forecast's results folder (its results.json and report.html).
    pub forecast_dir: PathBuf,
}

impl AdviceReport {
    /// The answer as `advice.json` holds it.
    pub fn to_json(&self) -> Result<String, Error> {
        serde_json::to_string_pretty(self).map_err(|e| Error::Internal(format!("advice as JSON: {e}")))
    }
}

/// How the contention check ran.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ContentionSetup {
    /// Rows per second asked.
    pub rate: u64,
    /// Clients sending at once.
    pub clients: u32,
    /// The set-up, in words.
    pub setup: String,
    /// Candidates the check could not run, with why.
    pub skipped: Vec<String>,
    /// Its results folder (results.json and report.html of the concurrent runs).
    pub results_dir: PathBuf,
}
