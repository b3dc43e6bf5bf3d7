//! `pkbench predict`: forecast each strategy's insert cost with the page-level model, optionally
//! calibrated by a short real SQLite run; save and print the prediction.

use crate::cli::{PredictArgs, PredictFormat};
use crate::output::out;
use anyhow::Context;
use pkbench_core::Error;
use pkbench_core::control::RunControl;
use pkbench_core::engines::EngineKind;
use pkbench_core::engines::sqlite::SqliteEngine;
use pkbench_core::predict::canary;
use pkbench_core::predict::probe::Probes;
use pkbench_core::predict::sharded::{self, ShardedConfig, ShardedPrediction};
use pkbench_core::predict::{self, Mode, ModelEngine, PredictConfig};
use pkbench_core::report::ResultsWriter;
use pkbench_core::results::{Environment, ResultsDoc, SCHEMA_VERSION};
use pkbench_core::sharding::{ShardLayout, Sharding};
use pkbench_core::strategy::parse_list;
use pkbench_core::util::time::{folder_stamp_now, rfc3339_now};
use pkbench_core::workloads::KeySettings;
use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::Arc;

/// Above this many rows the default mode is bounded (exact mode holds every key).
const EXACT_DEFAULT_MAX_ROWS: u64 = 20_000_000;

pub fn predict(args: PredictArgs) -> anyhow::Result<ExitCode> {
    if args.shards.is_some() || args.sharding.is_some() || args.range_split_mb.is_some() {
        return predict_sharded(&args);
    }
    if let Some(file) = &args.schema {
        return predict_schema(&args, file);
    }
    if args.format != PredictFormat::Table {
        return Err(Error::InvalidInput(
            "--format json is for the sharded model (--shards) so far: the page model writes results.json".into(),
        )
        .into());
    }
    let engine: ModelEngine = args.engine;
    if !engine.capabilities().page_model {
        return Err(Error::InvalidInput(format!("predict has no page model of {} yet", engine.label())).into());
    }
    let strategies = parse_list(&args.strategies)?;
    let mode = match (args.exact, args.bounded) {
        (true, _) => Mode::Exact,
        (_, true) => Mode::Bounded,
        // The server models keep every key of a scale model instead.
        _ if args.rows > EXACT_DEFAULT_MAX_ROWS && engine == ModelEngine::Sqlite => Mode::Bounded,
        _ => Mode::Exact,
    };
    let config = PredictConfig {
        rows: args.rows,
        batch_rows: args.batch,
        payload_bytes: args.payload,
        seed: args.seed,
        page_size: args.page_size.or(engine.fixed_page_size()).unwrap_or(4096),
        cache_mb: args.cache_mb,
        mode,
        scale: 1,
    };
    let config = PredictConfig {
        scale: args.scale.unwrap_or_else(|| {
            // The server models keep every key: their scale also bounds the rows they hold.
            let ceiling = match engine {
                EngineKind::Sqlite => u64::MAX,
                _ => predict::MAX_EXACT_SERVER_ROWS,
            };
            predict::scale::auto_within(args.rows, args.batch, engine.cache_pages(&config), &strategies, ceiling)
        }),
        ..config
    };
    engine.validate_model(&config)?;
    for s in &strategies {
        engine.build_model(s, &config)?;
    }
    if args.ram.is_some() && !args.calibrate && args.calibrate_from.is_none() {
        return Err(Error::InvalidInput(
            "--ram prices cache misses in time: add --calibrate (or --calibrate-from FILE)".into(),
        )
        .into());
    }
    let out_dir = args.out.clone().unwrap_or_else(default_out_dir);
    super::out_dir::prepare(&out_dir, args.force)?;
    let writer = ResultsWriter::create(&out_dir)?;
    let control = Arc::new(RunControl::new());
    let stop = crate::signals::install(Arc::clone(&control))?;

    let calibration = if args.calibrate {
        let dir = out_dir.join("calibration");
        let real_writer = ResultsWriter::create(&dir)?;
        let plan = predict::CalibrationPlan::for_target(engine, &config, args.calibrate_rows)?;
        if !args.quiet {
            eprintln!("Calibrating: a real run per strategy on {}…", plan.describe());
        }
        // The probes time the folder each strategy's engine writes to, while it exists, before
        // each strategy's run: a few moments spread over the calibration, each cost the median.
        let mut moments: Vec<predict::probe::DeviceCosts> = Vec::new();
        let mut canaries = Vec::new();
        let mut open = || {
            let (engine, environment, data_dir) = open_real(&plan, &dir)?;
            let costs = canary::around(
                || match moments.first() {
                    None => probe(&data_dir, plan.engine, &config, args.quiet),
                    Some(d) => d.measure_again(&data_dir),
                },
                &mut canaries,
            )?;
            moments.push(costs);
            Ok((engine, environment))
        };
        let doc = match predict::run_real(&strategies, &mut open, &plan.workload()?, &control, "--calibrate") {
            Err(Error::Interrupted) => {
                eprintln!("Interrupted during the calibration run; nothing predicted");
                return Ok(ExitCode::from(stop.exit_code()));
            }
            other => other?,
        };
        real_writer.write(&doc)?;
        let device = predict::probe::DeviceCosts::median(&moments);
        if let Some(d) = device.as_ref().filter(|_| moments.len() > 1 && !args.quiet) {
            eprintln!(
                "Probed the device before each of the {} runs, each cost the median of the {0} moments: {}",
                moments.len(),
                d.describe()
            );
        }
        let refs: Vec<&_> = strategies.to_vec();
        let working_set = probe_working_set(engine, &config, args.quiet, &mut canaries)?;
        let probes = Probes { device, working_set, machine_ns: canary::median(&canaries) };
        let fit = predict::Calibration::from_runs(&doc.runs, &refs, plan, probes)?;
        if !args.quiet {
            eprintln!("Calibration results written to {}", dir.display());
        }
        Some(fit)
    } else if let Some(path) = &args.calibrate_from {
        let doc = pkbench_core::report::load_results(path)?;
        let refs: Vec<&_> = strategies.to_vec();
        let mut canaries = Vec::new();
        let device = canary::around(|| probe(&out_dir, engine, &config, args.quiet), &mut canaries)?;
        let working_set = probe_working_set(engine, &config, args.quiet, &mut canaries)?;
        // Two more moments, after the working-set probe: each cost the median of the three.
        let mut moments = vec![device];
        for _ in 0..2 {
            moments.push(canary::around(|| device.measure_again(&out_dir), &mut canaries)?);
        }
        let device = predict::probe::DeviceCosts::median(&moments).unwrap_or(device);
        if !args.quiet {
            eprintln!(
                "Probed the device twice more, seconds apart, each cost the median of the three moments: {}",
                device.describe()
            );
        }
        let probes = Probes { device: Some(device), working_set, machine_ns: canary::median(&canaries) };
        Some(predict::from_results(&doc, engine, &refs, args.calibrate_rows, probes)?)
    } else {
        None
    };
    let calibration = calibration.map(|c| {
        let ram = match args.ram {
            Some(gib) => (gib * f64::from(1 << 30)) as u64,
            None => pkbench_core::predict::memory::available_bytes().unwrap_or(u64::MAX),
        };
        c.with_memory(ram, config.cache_mb << 20)
    });

    let mut doc = ResultsDoc {
        schema_version: SCHEMA_VERSION,
        command: std::env::args_os().map(|a| a.to_string_lossy().into_owned()).collect(),
        started_at: rfc3339_now(),
        environment: Environment::detect(engine.model_name(), &engine.model_version(), &out_dir),
        runs: Vec::new(),
    };
    for strategy in &strategies {
        if !args.quiet {
            let scale = match config.scale {
                1 => String::new(),
                k => format!(", scale model 1/{k}: {} rows simulated", args.rows.div_ceil(k)),
            };
            eprintln!("Predicting {} ({} mode, {} rows{scale})…", strategy.name, mode.name(), args.rows);
        }
        let started = std::time::Instant::now();
        let mut next_tenth = 1;
        let mut report = |b: &pkbench_core::results::BatchResult| {
            // A plain line every tenth of the rows: long predictions show they are alive.
            if !args.quiet && b.rows_total * 10 >= next_tenth * args.rows {
                eprintln!(
                    "  {}: {} of {} rows ({:.0} s)",
                    strategy.name,
                    b.rows_total,
                    args.rows,
                    started.elapsed().as_secs_f64()
                );
                next_tenth = b.rows_total * 10 / args.rows + 1;
            }
        };
        let result = predict::predict_engine(engine, strategy, &config, calibration.as_ref(), &control, &mut report);
        match result {
            Ok(run) => {
                let complete = run.complete;
                doc.runs.push(run);
                writer.write(&doc)?;
                if !complete {
                    eprintln!("Interrupted: results so far are in {}", writer.dir().display());
                    return Ok(ExitCode::from(stop.exit_code()));
                }
            }
            Err(e) => {
                writer.write(&doc)?;
                return Err(anyhow::Error::new(e)).with_context(|| {
                    format!("the prediction stopped (results so far are in {})", writer.dir().display())
                });
            }
        }
    }
    out!("{}", predict::table::render(&doc))?;
    let real = match (args.check, &args.check_from) {
        (Some(n), _) => Some(check_run(&args, &config, n, &strategies, &out_dir, &control)?),
        (None, Some(path)) => Some(pkbench_core::report::load_results(path)?),
        (None, None) => None,
    };
    if let Some(real) = real {
        // The machine's speed during the calibration, for the check's batches.
        let machine_ns = calibration.as_ref().and_then(|c| c.machine).map(|m| m.median_ns);
        let checks = predict::check::compare(&doc, &real, machine_ns, predict::check::within(engine));
        if checks.is_empty() {
            return Err(Error::InvalidInput(
                "the real run has no batches like the prediction's: check against a run with the same --batch and strategies".into(),
            )
            .into());
        }
        out!("Predicted against measured:\n{}", predict::check::render(&checks, &doc, &real))?;
    }
    eprintln!("Results written to {}", writer.dir().display());
    eprintln!("Report: {}", writer.html_path().display());
    Ok(ExitCode::SUCCESS)
}

/// `--shards`: where each strategy's rows land on a sharded database (no results folder: the
/// figures are printed, as a table or JSON).
fn predict_sharded(args: &PredictArgs) -> anyhow::Result<ExitCode> {
    // Page-model flags would be silently ignored: refuse them.
    for (given, flag) in [
        (args.engine != EngineKind::Sqlite, "--engine"),
        (args.page_size.is_some(), "--page-size"),
        (args.calibrate, "--calibrate"),
        (args.calibrate_from.is_some(), "--calibrate-from"),
        (args.check.is_some(), "--check"),
        (args.check_from.is_some(), "--check-from"),
        (args.exact, "--exact"),
        (args.bounded, "--bounded"),
        (args.scale.is_some(), "--scale"),
        (args.out.is_some(), "--out"),
    ] {
        if given {
            return Err(Error::InvalidInput(format!(
                "{flag} is for the page model: the sharded model (--shards) is the same for every engine and prints its figures only; leave {flag} out"
            ))
            .into());
        }
    }
    let sharding = args.sharding.as_deref().map_or(Ok(Sharding::Range), Sharding::parse)?;
    let range_split_bytes = match args.range_split_mb {
        None => None,
        Some(mb) if mb.is_finite() && mb > 0.0 && mb <= 1e9 => Some((mb * 1048576.0).round().max(1.0) as u64),
        Some(mb) => {
            return Err(Error::InvalidInput(format!(
                "--range-split-mb {mb} is out of range: give MiB above 0, e.g. 512"
            ))
            .into());
        }
    };
    let config = ShardedConfig {
        rows: args.rows,
        batch_rows: args.batch,
        payload_bytes: args.payload,
        keys: KeySettings::from(args.seed),
        layout: ShardLayout { shards: args.shards.unwrap_or(ShardLayout::DEFAULT_SHARDS), sharding },
        range_split_bytes,
    };
    config.validate()?;
    let strategies = parse_list(&args.strategies)?;
    for s in &strategies {
        sharded::check_strategy(s, &config)?;
    }
    let mut prediction = ShardedPrediction::new(&config);
    for strategy in strategies {
        if !args.quiet {
            eprintln!(
                "Placing {} ({} rows on {} shards, {})…",
                strategy.name,
                config.rows,
                config.layout.shards,
                config.model_name()
            );
        }
        prediction.forecasts.push(sharded::forecast(strategy, &config)?);
    }
    match args.format {
        PredictFormat::Table => out!("{}", predict::table::render_sharded(&prediction))?,
        PredictFormat::Json => out!("{}", prediction.to_json()?)?,
    }
    Ok(ExitCode::SUCCESS)
}

fn default_out_dir() -> PathBuf {
    let base = PathBuf::from("pkbench-results");
    let stamp = format!("predict-{}", folder_stamp_now());
    let mut dir = base.join(&stamp);
    let mut n = 2;
    while dir.exists() {
        dir = base.join(format!("{stamp}-{n}"));
        n += 1;
    }
    dir
}

/// The real engine of a calibration or check run: SQLite in `dir`, or a managed server with the
/// plan's cache (stopped and removed when dropped); the environment it runs in, and the folder
/// it writes to.
fn open_real(
    plan: &predict::CalibrationPlan,
    dir: &std::path::Path,
) -> Result<(Box<dyn pkbench_core::engines::Engine>, Environment, PathBuf), Error> {
    use pkbench_core::engines::server::{ManagedOptions, ServerSettings, ServerTarget};
    let (engine, data_dir): (Box<dyn pkbench_core::engines::Engine>, PathBuf) = match plan.engine {
        EngineKind::Sqlite => (Box::new(SqliteEngine::new(plan.sqlite_settings(dir.to_path_buf()))?), dir.into()),
        kind => {
            let settings = ServerSettings {
                target: ServerTarget::Managed(ManagedOptions::default()),
                cache_mb: plan.cache_mb(),
                durable_commits: true,
                shards: None,
            };
            let (engine, data) = pkbench_core::engines::open_server(kind, &settings)?;
            (engine, data.unwrap_or_else(|| dir.into()))
        }
    };
    let info = engine.info();
    let environment = Environment::detect(info.name, &info.version, &data_dir);
    Ok((engine, environment, data_dir))
}

/// The micro-probes' costs, timed in `dir` (where the engine writes), the cached-read curve up
/// to about the target's files: rows × (payload + 100 bytes), within a quarter of the memory
/// (none past its first point for an engine that reads the device directly, which it does not
/// price).
fn probe(
    dir: &std::path::Path,
    engine: EngineKind,
    config: &PredictConfig,
    quiet: bool,
) -> Result<predict::probe::DeviceCosts, Error> {
    use pkbench_core::predict::memory;
    let files = if memory::direct_io(engine) { 0 } else { target_bytes(config) };
    let costs = predict::probe::DeviceCosts::measure(dir, config.page_size, files)?;
    if !quiet {
        eprintln!("Probed the device: {}", costs.describe());
    }
    Ok(costs)
}

/// About the target's data, for the probes: rows × (payload + 100 bytes), within a quarter of
/// the memory.
fn target_bytes(config: &PredictConfig) -> u64 {
    let available = predict::memory::available_bytes().unwrap_or(1 << 30);
    config.rows.saturating_mul(config.payload_bytes + 100).min(available / 4)
}

/// The working-set probe, up to the target's cache in use (its cache, or about its data if
/// smaller; within a quarter of the memory): SQLite's, which it runs in memory, with the
/// machine's canary before and after it in `canaries`; `None` on the servers, which it cannot
/// run.
fn probe_working_set(
    engine: EngineKind,
    config: &PredictConfig,
    quiet: bool,
    canaries: &mut Vec<u64>,
) -> Result<Option<predict::working_set::WorkingSet>, Error> {
    if engine != EngineKind::Sqlite {
        return Ok(None);
    }
    let largest = (engine.cache_pages(config) * u64::from(config.page_size)).min(target_bytes(config));
    let curve = canary::around(
        || predict::working_set::measure_sqlite(config.page_size, config.payload_bytes, largest),
        canaries,
    )?;
    if !quiet {
        eprintln!("Probed the working set: {}", curve.describe());
    }
    Ok(Some(curve))
}

/// `--check N`: a real run of N rows per strategy with the prediction's settings (SQLite, or a
/// managed server), saved in the results folder's `check/`.
fn check_run(
    args: &PredictArgs,
    config: &PredictConfig,
    rows: u64,
    strategies: &[&'static pkbench_core::strategy::Strategy],
    out_dir: &std::path::Path,
    control: &RunControl,
) -> anyhow::Result<pkbench_core::results::ResultsDoc> {
    if rows > config.rows {
        return Err(Error::InvalidInput(format!(
            "--check {rows} is more than --rows {}: check at most the predicted rows",
            config.rows
        ))
        .into());
    }
    let dir = out_dir.join("check");
    let writer = ResultsWriter::create(&dir)?;
    let plan = predict::CalibrationPlan {
        engine: args.engine,
        rows,
        batch_rows: config.batch_rows,
        cache_kib: config.cache_mb * 1024,
        page_size: config.page_size,
        payload_bytes: config.payload_bytes,
        seed: config.seed,
    };
    if !args.quiet {
        eprintln!("Checking: a real {rows}-row {} run per strategy with the same settings…", args.engine.label());
    }
    let mut open = || open_real(&plan, &dir).map(|(engine, environment, _)| (engine, environment));
    let doc = predict::run_real(strategies, &mut open, &plan.workload()?, control, "--check")?;
    writer.write(&doc)?;
    Ok(doc)
}

/// `predict --schema`: the key table's trees after `--rows` rows of each strategy, from the
/// engine's page model fed with the rows `run --schema` would insert.
fn predict_schema(args: &PredictArgs, file: &std::path::Path) -> anyhow::Result<ExitCode> {
    use pkbench_core::predict::{SCHEMA_ENGINES, predict_schema as trees};
    use pkbench_core::workloads::{FkLocality, OwnSchema, ReadLocality, SchemaSizes};
    let engine = args.engine;
    if !SCHEMA_ENGINES.contains(&engine) {
        let names: Vec<&str> = SCHEMA_ENGINES.iter().map(|e| e.name()).collect();
        return Err(Error::InvalidInput(format!(
            "predict --schema models {}, not {}: use --engine with one of them",
            names.join(", "),
            engine.name()
        ))
        .into());
    }
    if engine != EngineKind::Sqlite && args.page_size.is_some() {
        return Err(Error::InvalidInput(format!(
            "--page-size is SQLite's: {}'s pages are fixed; leave --page-size out",
            engine.name()
        ))
        .into());
    }
    let read = |path: &std::path::Path| {
        std::fs::read_to_string(path).map_err(|e| {
            Error::InvalidInput(format!("could not read '{}': {e}; give the path of the file", path.display()))
        })
    };
    let schema = pkbench_core::schema::parse(&read(file)?, Some(engine))?;
    let sidecar = match &args.values {
        Some(path) => Some(pkbench_core::values::Sidecar::parse(&read(path)?)?),
        None => None,
    };
    let sizes = SchemaSizes {
        rows: args.rows,
        batch_rows: args.batch,
        parent_rows: args.parent_rows.unwrap_or(1000),
        children_per_row: 0,
        fk_locality: FkLocality::Recent,
        read_locality: ReadLocality::Recent,
        reads: 0,
    };
    let name = file.display().to_string();
    let workload = OwnSchema::new(&schema, args.table.as_deref(), sidecar.as_ref(), sizes, args.seed, &name)?;
    let page_size = args.page_size.unwrap_or(4096);
    let strategies = parse_list(&args.strategies)?;
    let pages = match engine {
        EngineKind::Sqlite => format!("{page_size}-byte pages"),
        _ => "the server's pages".into(),
    };
    let mut out = format!(
        "predict --schema ({} page model): {} after {} rows, {pages}\n{:<14} {:<44} {:>12} {:>10} {:>12}\n",
        engine.name(),
        workload.plan().key_table().name,
        args.rows,
        "strategy",
        "b-tree",
        "leaf pages",
        "leaf fill",
        "size MiB"
    );
    for s in strategies {
        pkbench_core::schema::check_strategy(s, engine.dialect())?;
        for t in trees(&workload, s, engine, page_size)? {
            out.push_str(&format!(
                "{:<14} {:<44} {:>12} {:>9.1}% {:>12.1}\n",
                s.name,
                t.name,
                t.leaf_pages,
                t.leaf_fill * 100.0,
                t.size_bytes as f64 / (1 << 20) as f64
            ));
        }
    }
    out!("{out}")?;
    Ok(ExitCode::SUCCESS)
}
