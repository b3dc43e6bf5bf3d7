//! `pkbench run`: turn flags into a plan, run it with live progress, print and save results.

use super::engine;
use crate::cli::{
    DEFAULT_STRATEGIES, FkLocalityArg, FormatArg, IsolationArg, ReadLocalityArg, RunArgs, TxnArg, WorkloadArg,
};
use crate::commands::key_args::SchemeArgs;
use crate::output::out;
use crate::progress::Progress;
use anyhow::Context;
use clap::ValueEnum;
use pkbench_core::Error;
use pkbench_core::control::{MonotonicTimer, RunControl};
use pkbench_core::doctor::export::{self, EXPORT_SAMPLE_ROWS};
use pkbench_core::doctor::export_target;
use pkbench_core::engines::EngineKind;
use pkbench_core::engines::server::{redact_url, remove_stale_server_dirs, server_dirs_in_memory};
use pkbench_core::engines::txn::{ClientOptions, Isolation, TxnShape};
use pkbench_core::report::{Format, ResultsWriter, render_repeats};
use pkbench_core::results::Environment;
use pkbench_core::run::{RunPlan, run as run_plan};
use pkbench_core::schema::parse as parse_schema;
use pkbench_core::strategy::{Strategy, parse_list};
use pkbench_core::util::time::folder_stamp_now;
use pkbench_core::values::Sidecar;
use pkbench_core::workloads::strategy_schemes;
use pkbench_core::workloads::{
    App, CaseContext, Churn, ConcurrentInsert, FileBaseline, FkLocality, InsertGrowth, KeySettings, MemoryCap,
    OwnSchema, ReadLocality, Remedy, Scale, SchemaSizes, Workload,
};
use std::io::IsTerminal;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::sync::Arc;

/// The checks `run` makes before it creates any file: strategies, workload flags, and what the
/// engine can run (a plan checks every case with them before its first case runs).
pub fn check(args: &RunArgs) -> Result<(), Error> {
    let out_dir = args.out.clone().unwrap_or_else(default_out_dir);
    validated(args, &out_dir)?;
    // The engine's flags (which apply to which engine); nothing is started or created.
    engine::plan(args, &out_dir).map(|_| ())
}

/// The strategies and workload of `args`, checked.
fn validated(args: &RunArgs, out_dir: &Path) -> Result<(Vec<&'static Strategy>, Box<dyn Workload>), Error> {
    let strategies = repeated(parse_list(strategies_for(args)?)?, args)?;
    let workload = workload(args, &strategies, out_dir)?;
    if args.workload == WorkloadArg::Remedy {
        for s in &strategies {
            Remedy::switched(s)?;
        }
    }
    engine::precheck(args.engine, &strategies)?;
    Ok((strategies, workload))
}

pub fn run(args: RunArgs) -> anyhow::Result<ExitCode> {
    // Validate everything before creating any file.
    let out_dir = args.out.clone().unwrap_or_else(default_out_dir);
    let (strategies, workload) = validated(&args, &out_dir)?;
    let engine_plan = engine::plan(&args, &out_dir)?;
    super::out_dir::prepare(&out_dir, args.force)?;
    let writer = ResultsWriter::create(&out_dir)?;

    // From here on Ctrl-C stops the run cleanly, also while a server is starting.
    let control = Arc::new(RunControl::new());
    let stop = crate::signals::install(Arc::clone(&control))?;
    if let Some(parent) = engine_plan.managed_parent_dir() {
        // A run that was killed (SIGKILL, power cut) could not remove its server's folder.
        for dir in remove_stale_server_dirs(&parent) {
            eprintln!("Removed {}, left by a pkbench run that was killed", dir.display());
        }
        if !args.quiet {
            eprintln!("Starting a throwaway {} server…", args.engine.name());
        }
        if server_dirs_in_memory(&parent) {
            eprintln!(
                "Note: the server's data folder is in {}, which is in memory (tmpfs): its figures leave the disk out (use --data-dir, or TMPDIR, to put it on disk)",
                parent.display()
            );
        }
    }
    let (mut engine, data_dir) = engine_plan.open()?;
    for s in &strategies {
        engine.check(s)?;
    }
    let timed: Vec<&str> =
        strategies.iter().filter(|s| strategy_schemes(s).any(|k| k.is_time_based())).map(|s| s.name).collect();
    if !timed.is_empty() {
        eprintln!(
            "Time-based keys ({}) are stamped as if inserted at {} rows/s (--key-rate)",
            timed.join(", "),
            args.keys.rate()?
        );
    }
    let plain = args.quiet || !std::io::stderr().is_terminal();
    let progress = Progress::start(Arc::clone(&control), plain);
    let timer = MonotonicTimer::default();
    let ctx =
        CaseContext { control: &control, timer: &timer, observer: &progress, counter_budget: args.counter_budget };
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

/// Each strategy `--repeat` times in a row (each run gets a fresh database).
fn repeated(strategies: Vec<&'static Strategy>, args: &RunArgs) -> Result<Vec<&'static Strategy>, Error> {
    if !(1..=MAX_REPEAT).contains(&args.repeat) {
        return Err(Error::InvalidInput(format!("--repeat {} is out of range: use 1 to {MAX_REPEAT}", args.repeat)));
    }
    if args.repeat > 1 && args.keep_db {
        return Err(Error::InvalidInput(
            "--keep-db keeps one database per strategy and cannot be combined with --repeat; remove one".into(),
        ));
    }
    Ok(strategies.into_iter().flat_map(|s| std::iter::repeat_n(s, args.repeat as usize)).collect())
}

/// The sharded engines' default comparison: ordered, random, and keys made to spread.
const SHARDED_STRATEGIES: &str = "int,uuid7,uuid4,hash-seq,bitrev-seq";

/// `--warmup` of the concurrent workload when none is given.
const CONCURRENT_WARMUP: std::time::Duration = std::time::Duration::from_secs(5);

/// Largest `--repeat` accepted.
const MAX_REPEAT: u32 = 100;

/// The strategies to run: `--strategies`, or the workload's own default when it was not given.
fn strategies_for(args: &RunArgs) -> Result<&str, Error> {
    let given = args.strategies != DEFAULT_STRATEGIES;
    Ok(match args.workload {
        WorkloadArg::FileBaseline if given => {
            return Err(Error::InvalidInput(
                "file-baseline writes one rowid table `log(logline TEXT)` and takes no --strategies; remove it".into(),
            ));
        }
        WorkloadArg::FileBaseline => "int",
        WorkloadArg::Remedy if !given => "uuid4",
        // One key column replaced: no second key beside it.
        WorkloadArg::Schema if !given => "int,uuid7,uuid4,uuid4-text",
        // One key column: the default's int+uuid4 needs an index across shards.
        _ if !given && args.engine.is_sharded() => SHARDED_STRATEGIES,
        _ => &args.strategies,
    })
}

/// Refuses a flag typed for a workload that does not use it, rather than ignoring it.
fn refuse_unused_flags(args: &RunArgs) -> Result<(), Error> {
    use WorkloadArg::{App, Churn, Concurrent, FileBaseline, InsertGrowth, Remedy, Scale, Schema};
    let uses: [(&str, &str, &[WorkloadArg]); 19] = [
        ("rows", "--rows", &[InsertGrowth, FileBaseline, Remedy, Scale, Churn, Schema]),
        ("batch", "--batch", &[InsertGrowth, Remedy, Scale, Churn, App, Schema]),
        ("schema", "--schema", &[Schema]),
        ("like", "--like", &[Schema]),
        ("table", "--table", &[Schema]),
        ("values", "--values", &[Schema]),
        ("parent_rows", "--parent-rows", &[Schema]),
        ("children_per_row", "--children-per-row", &[Schema]),
        ("fk_locality", "--fk-locality", &[Schema]),
        ("read_locality", "--read-locality", &[Schema]),
        ("reads", "--reads", &[Schema]),
        ("threads", "--threads", &[Concurrent]),
        ("duration", "--duration", &[Concurrent]),
        ("rate", "--rate", &[Concurrent]),
        ("txn", "--txn", &[Concurrent]),
        ("isolation", "--isolation", &[Concurrent]),
        ("users", "--users", &[App]),
        ("orders_per_user", "--orders-per-user", &[App]),
        ("payload", "--payload", &[InsertGrowth, Concurrent, Remedy, Scale, Churn]),
    ];
    let name = |w: &WorkloadArg| w.to_possible_value().map(|v| v.get_name().to_string()).unwrap_or_default();
    for (id, flag, workloads) in uses {
        if args.given.iter().any(|g| g == id) && !workloads.contains(&args.workload) {
            let takers: Vec<String> = workloads.iter().map(name).collect();
            return Err(Error::InvalidInput(format!(
                "{flag} does not apply to --workload {} (it is for {}); remove it",
                name(&args.workload),
                takers.join(", ")
            )));
        }
    }
    Ok(())
}

/// The workload `--workload` names, with its flags validated against the engine and strategies.
fn workload(args: &RunArgs, strategies: &[&'static Strategy], out_dir: &Path) -> Result<Box<dyn Workload>, Error> {
    if args.warmup.is_some() && !matches!(args.workload, WorkloadArg::Concurrent | WorkloadArg::App) {
        return Err(Error::InvalidInput("--warmup applies to --workload concurrent and app only; remove it".into()));
    }
    if args.presort && args.workload != WorkloadArg::InsertGrowth {
        return Err(Error::InvalidInput("--presort applies to --workload insert-growth only; remove it".into()));
    }
    let name = args.workload.to_possible_value().map(|v| v.get_name().to_string()).unwrap_or_default();
    if !args.engine.capabilities().workloads.contains(&name.as_str()) {
        let on: Vec<&str> = EngineKind::ALL
            .iter()
            .filter(|k| k.capabilities().workloads.contains(&name.as_str()))
            .map(|k| k.name())
            .collect();
        return Err(Error::InvalidInput(format!(
            "--workload {name} does not run on {}: use --engine {}",
            args.engine.label(),
            on.join(" or --engine ")
        )));
    }
    if args.keep_db && matches!(args.workload, WorkloadArg::App | WorkloadArg::FileBaseline) {
        return Err(Error::InvalidInput(
            "--keep-db applies to insert-growth, remedy, churn and scale; remove it for this workload".into(),
        ));
    }
    SchemeArgs::refuse_unused(&args.given, strategies)?;
    let keys = args.keys.settings(args.seed)?;
    let workload: Box<dyn Workload> = match args.workload {
        WorkloadArg::InsertGrowth => {
            Box::new(InsertGrowth::new(args.rows, args.batch, args.payload, keys)?.with_presort(args.presort))
        }
        WorkloadArg::Concurrent => {
            let w = ConcurrentInsert::new(
                args.threads,
                args.duration,
                args.warmup.unwrap_or(CONCURRENT_WARMUP),
                args.payload,
                keys,
            )?
            .with_rate(args.rate)?
            .with_transactions(client_options(args));
            for s in strategies {
                w.check(s, args.engine.name())?;
            }
            Box::new(w)
        }
        WorkloadArg::FileBaseline => Box::new(FileBaseline::new(args.rows, out_dir.to_path_buf())?),
        WorkloadArg::Remedy => Box::new(Remedy::new(args.rows, args.batch, args.payload, keys)?),
        WorkloadArg::Scale => Box::new(Scale::new(
            InsertGrowth::new(args.rows, args.batch, args.payload, keys)?,
            args.cache_mb * 1024 * 1024,
            MemoryCap::detect(),
        )),
        WorkloadArg::Churn => Box::new(Churn::new(args.rows, args.batch, args.payload, keys)?),
        WorkloadArg::App => {
            Box::new(App::new(args.users, args.orders_per_user, args.batch, keys)?.with_warmup(args.warmup))
        }
        WorkloadArg::Schema => {
            for s in strategies {
                pkbench_core::schema::check_strategy(s, args.engine.dialect())?;
            }
            Box::new(own_schema(args, keys)?)
        }
    };
    // After the workload's own checks, whose messages are more specific.
    refuse_unused_flags(args)?;
    Ok(workload)
}

/// The schema workload of `--schema` (and `--values`), read and planned before anything starts.
fn own_schema(args: &RunArgs, keys: KeySettings) -> Result<OwnSchema, Error> {
    let read = |path: &Path, what: &str| {
        std::fs::read_to_string(path).map_err(|e| {
            Error::InvalidInput(format!("could not read {what} '{}': {e}; give the path of the file", path.display()))
        })
    };
    let (schema, mut sidecar, name) = match (&args.schema, &args.like) {
        (Some(file), _) => {
            let name =
                file.file_name().map_or_else(|| file.display().to_string(), |n| n.to_string_lossy().into_owned());
            (parse_schema(&read(file, "the schema file")?, Some(args.engine))?, None, name)
        }
        (None, Some(url)) => {
            // Read-only, statistics only: as doctor --export-schema.
            let table = args.table.as_deref().unwrap_or_default();
            let (engine, version, tables) = export_target(url, None, table, EXPORT_SAMPLE_ROWS)?;
            let files = export::render(engine, &version, table, &tables, "--like")?;
            let schema = parse_schema(&files.schema, Some(engine))?;
            (schema, Some(Sidecar::parse(&files.values)?), format!("like {}", redact_url(url)))
        }
        (None, None) => {
            return Err(Error::InvalidInput(
                "--workload schema needs your schema: add --schema FILE.sql (CREATE TABLE statements) or --like URL --table T".into(),
            ));
        }
    };
    if let Some(path) = &args.values {
        if sidecar.is_some() {
            return Err(Error::InvalidInput(
                "--values refines a --schema file; --like reads the values from your table: remove --values".into(),
            ));
        }
        sidecar = Some(Sidecar::parse(&read(path, "the values file")?)?);
    }
    let sizes = SchemaSizes {
        rows: args.rows,
        batch_rows: args.batch,
        parent_rows: args.parent_rows,
        children_per_row: args.children_per_row,
        fk_locality: match args.fk_locality {
            FkLocalityArg::Recent => FkLocality::Recent,
            FkLocalityArg::Uniform => FkLocality::Uniform,
        },
        read_locality: match args.read_locality {
            ReadLocalityArg::Recent => ReadLocality::Recent,
            ReadLocalityArg::Uniform => ReadLocality::Uniform,
            ReadLocalityArg::Zipf => ReadLocality::Zipf,
        },
        reads: args.reads,
    };
    OwnSchema::new(&schema, args.table.as_deref(), sidecar.as_ref(), sizes, keys, &name)
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

/// The concurrent clients' transactions, from `--txn` and `--isolation`.
fn client_options(args: &RunArgs) -> ClientOptions {
    ClientOptions {
        txn: match args.txn {
            TxnArg::Insert => TxnShape::Insert,
            TxnArg::InsertReadRecent => TxnShape::InsertReadRecent,
            TxnArg::InsertUpdateRecent => TxnShape::InsertUpdateRecent,
        },
        isolation: args.isolation.map(|i| match i {
            IsolationArg::ReadCommitted => Isolation::ReadCommitted,
            IsolationArg::RepeatableRead => Isolation::RepeatableRead,
            IsolationArg::Serializable => Isolation::Serializable,
        }),
    }
}
