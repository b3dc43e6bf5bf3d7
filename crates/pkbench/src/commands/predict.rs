//! `pkbench predict`: forecast each strategy's insert cost with the page-level model, optionally
//! calibrated by a short real run; save and print the prediction. The library runs it
//! ([`pkbench_core::predict::session`]); this maps the flags and prints.

use crate::cli::{PredictArgs, PredictFormat};
use crate::output::{out, say};
use pkbench_core::control::RunControl;
use pkbench_core::predict::Mode;
use pkbench_core::predict::session::{
    CalibrationSource, CheckSource, Forecasted, Format, PagePlan, PredictEvent, PredictObserver, PredictPlan,
    PredictRequest, PredictSession, SchemaRequest,
};
use std::process::ExitCode;
use std::sync::Arc;

pub fn predict(args: PredictArgs) -> anyhow::Result<ExitCode> {
    let (force, quiet) = (args.force, args.quiet);
    let mut observer = Lines { quiet };
    match request(args).validate()? {
        PredictPlan::Page(plan) => predict_pages(*plan, force, &mut observer),
        PredictPlan::Sharded(plan) => {
            let prediction = plan.run(&mut observer)?;
            match plan.format {
                Format::Table => out!("{}", pkbench_core::predict::table::render_sharded(&prediction))?,
                Format::Json => out!("{}", prediction.to_json()?)?,
            }
            Ok(ExitCode::SUCCESS)
        }
        PredictPlan::Schema(plan) => {
            out!("{}", plan.run()?.render())?;
            Ok(ExitCode::SUCCESS)
        }
    }
}

/// The page model: calibrate, forecast and check in a results folder; Ctrl-C stops it with
/// what was predicted so far saved. A prediction that saved nothing leaves no folder behind.
fn predict_pages(plan: PagePlan, force: bool, observer: &mut Lines) -> anyhow::Result<ExitCode> {
    let folder = super::out_dir::prepare(&plan.out_dir, force)?;
    let result = forecast_pages(plan, observer);
    if !result.as_ref().is_ok_and(|code| *code == ExitCode::SUCCESS) {
        folder.discard_unless_measured();
    }
    result
}

/// [`predict_pages`] in its prepared folder.
fn forecast_pages(plan: PagePlan, observer: &mut Lines) -> anyhow::Result<ExitCode> {
    let control = Arc::new(RunControl::new());
    let stop = crate::signals::install(Arc::clone(&control))?;
    let mut session = PredictSession::new(plan, &control, observer);
    let forecast = match session.forecast()? {
        Forecasted::Done(forecast) => forecast,
        Forecasted::Interrupted(interruption) => {
            say!("{interruption}");
            return Ok(ExitCode::from(stop.exit_code()));
        }
    };
    out!("{}", forecast.render())?;
    if let Some(checked) = session.check(&forecast)? {
        out!("Predicted against measured:\n{}", checked.render(&forecast))?;
    }
    say!("Results written to {}", forecast.results_dir.display());
    say!("Report: {}", forecast.report_html.display());
    Ok(ExitCode::SUCCESS)
}

/// The flags as the library's request.
fn request(args: PredictArgs) -> PredictRequest {
    let calibration = match (args.calibrate, args.calibrate_from) {
        (true, _) => Some(CalibrationSource::Run),
        (false, Some(path)) => Some(CalibrationSource::File(path)),
        (false, None) => None,
    };
    let check = match (args.check, args.check_from) {
        (Some(rows), _) => Some(CheckSource::Run(rows)),
        (None, Some(path)) => Some(CheckSource::File(path)),
        (None, None) => None,
    };
    let mode = match (args.exact, args.bounded) {
        (true, _) => Some(Mode::Exact),
        (false, true) => Some(Mode::Bounded),
        (false, false) => None,
    };
    let schema = args.schema.map(|file| SchemaRequest {
        file,
        table: args.table,
        values: args.values,
        parent_rows: args.parent_rows,
        rebuild: None,
    });
    PredictRequest {
        engine: args.engine,
        strategies: args.strategies,
        rows: args.rows,
        batch_rows: args.batch.unwrap_or_else(|| pkbench_core::predict::scale::default_batch_rows(args.rows)),
        payload_bytes: args.payload,
        cache_mb: args.cache_mb,
        page_size: args.page_size,
        seed: args.seed,
        mode,
        scale: args.scale,
        calibration,
        calibrate_rows: args.calibrate_rows,
        pg_version: args.pg_version,
        server_bin: args.server_bin,
        calibrate_on: None,
        stand_ins: Vec::new(),
        calibrate_each: args.calibrate_each,
        ram_gib: args.ram,
        check,
        shards: args.shards,
        sharding: args.sharding,
        range_split_mb: args.range_split_mb,
        schema,
        format: match args.format {
            PredictFormat::Table => Format::Table,
            PredictFormat::Json => Format::Json,
        },
        out: args.out,
        command: std::env::args_os().map(|a| a.to_string_lossy().into_owned()).collect(),
    }
}

/// Each step a line on standard error, unless `--quiet`.
struct Lines {
    quiet: bool,
}

impl PredictObserver for Lines {
    fn event(&mut self, event: &PredictEvent<'_>) {
        if !self.quiet {
            say!("{event}");
        }
    }
}
