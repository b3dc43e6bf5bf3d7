//! `pkbench run`: check the settings, run them with live progress, print and save results.

use crate::cli::{RunArgs, RunOptions};
use crate::output::{out, say};
use crate::progress::Progress;
use anyhow::Context;
use pkbench_core::Error;
use pkbench_core::config::RunConfig;
use pkbench_core::control::{MonotonicTimer, RunControl};
use pkbench_core::engines::server::{redact_url, remove_stale_server_dirs, server_dirs_in_memory};
use pkbench_core::keys::strategy_schemes;
use pkbench_core::report::{Format, ResultsWriter, render_repeats};
use pkbench_core::results::{Environment, ResultsDoc};
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

/// Runs a checked configuration into its results folder; a run that measured nothing (a start
/// that failed, a stop before the first batch) leaves no folder behind.
pub fn execute(config: RunConfig, options: &RunOptions) -> anyhow::Result<ExitCode> {
    let folder = super::out_dir::prepare(&config.out_dir, options.force)?;
    let result = measure(config, options);
    if !result.as_ref().is_ok_and(|code| *code == ExitCode::SUCCESS) {
        folder.discard_unless_measured();
    }
    result
}

/// Runs a checked configuration into its prepared results folder.
fn measure(config: RunConfig, options: &RunOptions) -> anyhow::Result<ExitCode> {
    let out_dir = config.out_dir.clone();
    let writer = ResultsWriter::create(&out_dir)?;

    // From here on Ctrl-C stops the run cleanly, also while a server is starting.
    let control = Arc::new(RunControl::new());
    let stop = crate::signals::install(Arc::clone(&control))?;
    if let Some(parent) = config.engine_plan.managed_parent_dir() {
        // A run that was killed (SIGKILL, power cut) could not remove its server's folder.
        for dir in remove_stale_server_dirs(&parent) {
            say!("Removed {}, left by a pkbench run that was killed", dir.display());
        }
        if !options.quiet {
            say!("Starting a throwaway {} server…", config.engine.name());
        }
        if server_dirs_in_memory(&parent) {
            say!(
                "Note: the server's data folder is in {}, which is in memory (tmpfs): its figures leave the disk out (use --data-dir, or TMPDIR, to put it on disk)",
                parent.display()
            );
        }
    }
    let (mut engine, data_dir) = config.engine_plan.clone().open()?;
    for notice in engine.take_notices() {
        say!("{notice}");
    }
    for s in &config.strategies {
        engine.check(s)?;
    }
    for line in config.workload.notices(config.engine, &config.strategies) {
        say!("{line}");
    }
    let timed: Vec<&str> =
        config.strategies.iter().filter(|s| strategy_schemes(s).any(|k| k.is_time_based())).map(|s| s.name).collect();
    if !timed.is_empty() {
        say!(
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

    // The results files are written; what follows only prints.
    let measured = outcome.measured();
    match outcome.error {
        None => {
            print_results(&outcome.doc, config.format)?;
            say!("Results written to {}", writer.dir().display());
            say!("Report: {}", writer.html_path().display());
            Ok(ExitCode::SUCCESS)
        }
        Some(Error::Interrupted) => {
            print_results(&outcome.doc, config.format)?;
            if let Some(journal) = &outcome.journal {
                say!(
                    "Interrupted: the results files could not be written; the batches measured so far are in {} (pkbench report {} reads them)",
                    journal.display(),
                    writer.dir().display()
                );
            } else if measured {
                say!("Interrupted: results measured so far are in {}", writer.dir().display());
            } else {
                say!("Interrupted before a batch was measured: nothing saved");
            }
            Ok(ExitCode::from(stop.exit_code()))
        }
        Some(e) => {
            print_results(&outcome.doc, config.format)?;
            let saved = match (&outcome.journal, measured) {
                (Some(journal), _) => format!(
                    " (the results files could not be written; the batches measured so far are in {}: pkbench report {} reads them)",
                    journal.display(),
                    writer.dir().display()
                ),
                (None, true) => format!(" (results measured so far are in {})", writer.dir().display()),
                (None, false) => String::new(),
            };
            Err(anyhow::Error::new(e)).with_context(|| format!("the run stopped{saved}"))
        }
    }
}

/// The results table (or the chosen format) on standard output.
fn print_results(doc: &ResultsDoc, format: Format) -> anyhow::Result<()> {
    if doc.runs.is_empty() {
        return Ok(());
    }
    out!("{}", format.exporter().render(doc)?)?;
    if matches!(format, Format::Table)
        && let Some(repeats) = render_repeats(doc)
    {
        out!("{repeats}")?;
    }
    Ok(())
}
