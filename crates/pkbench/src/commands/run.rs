//! `pkbench run`: check the settings, run them with live progress, print and save results.

use crate::cli::{RunArgs, RunOptions};
use crate::output::out;
use crate::progress::Progress;
use anyhow::Context;
use pkbench_core::Error;
use pkbench_core::config::RunConfig;
use pkbench_core::control::{MonotonicTimer, RunControl};
use pkbench_core::engines::server::{redact_url, remove_stale_server_dirs, server_dirs_in_memory};
use pkbench_core::keys::strategy_schemes;
use pkbench_core::report::{Format, ResultsWriter, render_repeats};
use pkbench_core::results::Environment;
use pkbench_core::run::{RunPlan, run as run_plan};
use pkbench_core::util::time::new_results_dir;
use pkbench_core::workloads::CaseContext;
use std::io::IsTerminal;
use std::process::ExitCode;
use std::sync::Arc;

pub fn run(RunArgs { settings, options }: RunArgs) -> anyhow::Result<ExitCode> {
    // Every setting is checked before any file is created (a plan checks each case the same way).
    let out = options.out.clone().unwrap_or_else(|| new_results_dir(""));
    execute(RunConfig::new(settings, &out)?, &options)
}

/// Runs a checked configuration into its results folder.
pub fn execute(config: RunConfig, options: &RunOptions) -> anyhow::Result<ExitCode> {
    let out_dir = config.out_dir.clone();
    super::out_dir::prepare(&out_dir, options.force)?;
    let writer = ResultsWriter::create(&out_dir)?;

    // From here on Ctrl-C stops the run cleanly, also while a server is starting.
    let control = Arc::new(RunControl::new());
    let stop = crate::signals::install(Arc::clone(&control))?;
    if let Some(parent) = config.engine_plan.managed_parent_dir() {
        // A run that was killed (SIGKILL, power cut) could not remove its server's folder.
        for dir in remove_stale_server_dirs(&parent) {
            eprintln!("Removed {}, left by a pkbench run that was killed", dir.display());
        }
        if !options.quiet {
            eprintln!("Starting a throwaway {} server…", config.engine.name());
        }
        if server_dirs_in_memory(&parent) {
            eprintln!(
                "Note: the server's data folder is in {}, which is in memory (tmpfs): its figures leave the disk out (use --data-dir, or TMPDIR, to put it on disk)",
                parent.display()
            );
        }
    }
    let (mut engine, data_dir) = config.engine_plan.clone().open()?;
    for notice in engine.take_notices() {
        eprintln!("{notice}");
    }
    for s in &config.strategies {
        engine.check(s)?;
    }
    let timed: Vec<&str> =
        config.strategies.iter().filter(|s| strategy_schemes(s).any(|k| k.is_time_based())).map(|s| s.name).collect();
    if !timed.is_empty() {
        eprintln!(
            "Time-based keys ({}) are stamped as if inserted at {} rows/s (--key-rate)",
            timed.join(", "),
            config.keys.rate
        );
    }
    let plain = options.quiet || !std::io::stderr().is_terminal();
    let progress = Progress::start(Arc::clone(&control), plain);
    let timer = MonotonicTimer::default();
    let ctx =
        CaseContext { control: &control, timer: &timer, observer: &progress, counter_budget: config.counter_budget };
    let info = engine.info();
    let environment = Environment::detect(info.name, &info.version, data_dir.as_deref().unwrap_or(&out_dir));
    let plan = RunPlan {
        workload: config.workload.as_ref(),
        strategies: config.strategies.clone(),
        command: std::env::args_os().map(|a| redact_url(&a.to_string_lossy())).collect(),
    };
    let outcome = run_plan(&plan, engine.as_mut(), environment, Some(&writer), &ctx);
    progress.finish();
    let outcome = outcome?;

    if !outcome.doc.runs.is_empty() {
        let format = config.format;
        out!("{}", format.exporter().render(&outcome.doc)?)?;
        if matches!(format, Format::Table)
            && let Some(repeats) = render_repeats(&outcome.doc)
        {
            out!("{repeats}")?;
        }
    }
    match outcome.error {
        None => {
            eprintln!("Results written to {}", writer.dir().display());
            eprintln!("Report: {}", writer.html_path().display());
            Ok(ExitCode::SUCCESS)
        }
        Some(Error::Interrupted) => {
            eprintln!("Interrupted: results measured so far are in {}", writer.dir().display());
            Ok(ExitCode::from(stop.exit_code()))
        }
        Some(e) => {
            let saved = if outcome.doc.runs.is_empty() {
                String::new()
            } else {
                format!(" (results measured so far are in {})", writer.dir().display())
            };
            Err(anyhow::Error::new(e)).with_context(|| format!("the run stopped{saved}"))
        }
    }
}
