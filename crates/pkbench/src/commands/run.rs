//! `pkbench run`: turn flags into a plan, run it with live progress, print and save results.

use super::engine;
use crate::cli::{EngineArg, FormatArg, RunArgs, WorkloadArg};
use crate::progress::Progress;
use anyhow::Context;
use pkbench_core::Error;
use pkbench_core::control::{MonotonicTimer, RunControl};
use pkbench_core::engines::server::{abort_all, redact_url};
use pkbench_core::report::Format;
use pkbench_core::results::{Environment, ResultsWriter};
use pkbench_core::run::{RunPlan, run as run_plan};
use pkbench_core::strategy::{Strategy, parse_list};
use pkbench_core::util::time::folder_stamp_now;
use pkbench_core::workloads::{CaseContext, ConcurrentInsert, InsertGrowth, Workload};
use std::io::IsTerminal;
use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::Arc;
use std::sync::atomic::{AtomicU32, Ordering};

/// Exit code after Ctrl-C (128 + SIGINT), as shells expect.
const EXIT_INTERRUPTED: u8 = 130;

pub fn run(args: RunArgs) -> anyhow::Result<ExitCode> {
    // Validate everything before creating any file.
    let strategies = parse_list(&args.strategies)?;
    let workload = workload(&args, &strategies)?;
    let out_dir = args.out.clone().unwrap_or_else(default_out_dir);
    engine::precheck(args.engine, &strategies)?;
    let engine_plan = engine::plan(&args, &out_dir)?;
    let writer = ResultsWriter::create(&out_dir)?;

    // From here on Ctrl-C stops the run cleanly, also while a server is starting.
    let control = Arc::new(RunControl::new());
    install_ctrl_c(Arc::clone(&control))?;
    if args.engine != EngineArg::Sqlite && args.url.is_none() && !args.quiet {
        eprintln!("Starting a throwaway {} server…", format!("{:?}", args.engine).to_lowercase());
    }
    let (mut engine, data_dir) = engine_plan.open()?;
    for s in &strategies {
        engine.check(s)?;
    }
    let plain = args.quiet || !std::io::stderr().is_terminal();
    let progress = Progress::start(Arc::clone(&control), plain);
    let timer = MonotonicTimer::default();
    let ctx = CaseContext { control: &control, timer: &timer, observer: &progress };
    let info = engine.info();
    let environment = Environment::detect(info.name, &info.version, data_dir.as_deref().unwrap_or(&out_dir));
    let plan = RunPlan {
        workload: workload.as_ref(),
        strategies,
        command: std::env::args_os().map(|a| redact_url(&a.to_string_lossy())).collect(),
    };
    let outcome = run_plan(&plan, engine.as_mut(), environment, Some(&writer), &ctx);
    progress.finish();
    let outcome = outcome?;

    if !outcome.doc.runs.is_empty() {
        let format = match args.format {
            FormatArg::Table => Format::Table,
            FormatArg::Json => Format::Json,
            FormatArg::Csv => Format::Csv,
            FormatArg::Md => Format::Markdown,
        };
        print!("{}", format.exporter().render(&outcome.doc)?);
    }
    match outcome.error {
        None => {
            eprintln!("Results written to {}", writer.dir().display());
            eprintln!("Report: {}", writer.html_path().display());
            Ok(ExitCode::SUCCESS)
        }
        Some(Error::Interrupted) => {
            eprintln!("Interrupted: results measured so far are in {}", writer.dir().display());
            Ok(ExitCode::from(EXIT_INTERRUPTED))
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

/// The workload `--workload` names, with its flags validated against the strategies.
fn workload(args: &RunArgs, strategies: &[&'static Strategy]) -> Result<Box<dyn Workload>, Error> {
    Ok(match args.workload {
        WorkloadArg::InsertGrowth => Box::new(InsertGrowth::new(args.rows, args.batch, args.payload, args.seed)?),
        WorkloadArg::Concurrent => {
            let w = ConcurrentInsert::new(args.threads, args.duration, args.warmup, args.payload, args.seed)?;
            let engine = format!("{:?}", args.engine).to_lowercase();
            for s in strategies {
                w.check(s, &engine)?;
            }
            Box::new(w)
        }
    })
}

fn default_out_dir() -> PathBuf {
    let base = PathBuf::from("pkbench-results");
    let stamp = folder_stamp_now();
    let mut dir = base.join(&stamp);
    let mut n = 2;
    while dir.exists() {
        dir = base.join(format!("{stamp}-{n}"));
        n += 1;
    }
    dir
}

/// First Ctrl-C: stop after the current step, keep results. Second: kill managed servers,
/// remove their folders and exit at once.
fn install_ctrl_c(control: Arc<RunControl>) -> anyhow::Result<()> {
    let presses = AtomicU32::new(0);
    ctrlc::set_handler(move || {
        if presses.fetch_add(1, Ordering::SeqCst) == 0 {
            control.cancel();
        } else {
            // No destructors run on exit: stop and remove managed servers first.
            abort_all();
            std::process::exit(i32::from(EXIT_INTERRUPTED));
        }
    })
    .context("could not install the Ctrl-C handler")
}
