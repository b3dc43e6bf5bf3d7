//! `pkbench compare BASE NEW`: each case's change in time per row, with a 95% confidence
//! interval and a verdict; `--fail-above` makes a detectable regression an exit status (CI).

use crate::output::say;
use clap::{Args, ValueEnum};
use pkbench_core::compare::{compare, percent, regressions, render, to_json};
use pkbench_core::report::load_results;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum CompareFormat {
    /// A table on the terminal.
    Table,
    /// Markdown, e.g. for a pull-request comment.
    Md,
    /// JSON.
    Json,
}

#[derive(Debug, Args)]
pub struct CompareArgs {
    /// The baseline: a results folder or its results.json.
    #[arg(value_name = "BASE")]
    pub base: PathBuf,
    /// The run to judge against it.
    #[arg(value_name = "NEW")]
    pub new: PathBuf,
    /// Exit with status 1 when a case is slower by more than this beyond doubt (its interval's
    /// lower bound above it), e.g. 5%.
    #[arg(long, value_name = "PERCENT", value_parser = parse_percent, allow_hyphen_values = true)]
    pub fail_above: Option<f64>,
    /// Output format.
    #[arg(long, value_enum, default_value = "table")]
    pub format: CompareFormat,
}

fn parse_percent(text: &str) -> Result<f64, String> {
    let v: f64 =
        text.trim_end_matches('%').parse().map_err(|_| format!("'{text}' is not a percentage: give e.g. 5% or 2.5"))?;
    if !(0.0..=1000.0).contains(&v) {
        return Err(format!("'{text}' is out of range: give 0% to 1000%"));
    }
    Ok(v / 100.0)
}

fn load(path: &Path) -> anyhow::Result<pkbench_core::results::ResultsDoc> {
    let file = if path.is_dir() { path.join("results.json") } else { path.to_path_buf() };
    Ok(load_results(&file)?)
}

/// Loads both runs, compares every case, prints, and fails on a regression above the threshold.
pub fn compare_cmd(args: CompareArgs) -> anyhow::Result<ExitCode> {
    let (base, new) = (load(&args.base)?, load(&args.new)?);
    let changes = compare(&base, &new)?;
    let text = match args.format {
        CompareFormat::Table => render(&changes, false),
        CompareFormat::Md => render(&changes, true),
        CompareFormat::Json => to_json(&changes)?,
    };
    crate::output::write_out(&text)?;
    if let Some(threshold) = args.fail_above {
        let worse = regressions(&changes, threshold);
        if !worse.is_empty() {
            let names: Vec<String> = worse.iter().map(|c| format!("{} {}", c.strategy, percent(c.ratio))).collect();
            say!("Regression above {}: {}", percent(1.0 + threshold), names.join(", "));
            return Ok(ExitCode::from(1));
        }
    }
    Ok(ExitCode::SUCCESS)
}
