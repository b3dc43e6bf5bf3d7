use super::*;
use crate::engines::EngineKind;
use crate::engines::mock::{FakeTimer, MockEngine};
use crate::predict::Mode;
use std::path::Path;
use std::sync::Arc;

/// `pkbench predict -s STRATEGIES -n ROWS -b BATCH --payload 20 --cache-mb 1 -o DIR/out`.
fn request(dir: &Path, strategies: &str, rows: u64, batch_rows: u64) -> PredictRequest {
    PredictRequest {
        batch_rows,
        payload_bytes: 20,
        cache_mb: 1,
        out: Some(dir.join("out")),
        command: vec!["pkbench".into(), "predict".into()],
        ..PredictRequest::new(EngineKind::Sqlite, strategies, rows)
    }
}

fn page_plan(request: PredictRequest) -> PagePlan {
    match request.validate() {
        Ok(PredictPlan::Page(plan)) => *plan,
        other => panic!("not a page plan: {other:?}"),
    }
}

/// The stand-ins `request`'s plan pairs, by name.
fn paired(request: PredictRequest) -> Vec<(&'static str, &'static str)> {
    page_plan(request).stand_ins.iter().map(|(s, c)| (s.name, c.name)).collect()
}

/// Every event's line, in order.
#[derive(Default)]
struct Recorder(Vec<String>);

impl PredictObserver for Recorder {
    fn event(&mut self, event: &PredictEvent<'_>) {
        self.0.push(event.to_string());
    }
}

impl Recorder {
    /// Each line's first words (the kind of event), repeats of a kind in a row merged.
    fn kinds(&self) -> Vec<String> {
        let mut kinds: Vec<String> = Vec::new();
        for line in &self.0 {
            let kind = match line.trim_start() {
                l if l.starts_with("int:") || l.starts_with("uuid4:") => "progress".to_string(),
                l if l.ends_with("/2)…") => "real run".to_string(),
                l => l.split([':', '(', '/']).next().unwrap_or(l).trim().to_string(),
            };
            if kinds.last() != Some(&kind) {
                kinds.push(kind);
            }
        }
        kinds
    }
}

/// Mock engines for the real runs; the `cancel_on`-th one opened (from 1) asks the run to stop,
/// as Ctrl-C would.
struct Mocks<'a> {
    opened: usize,
    cancel_on: Option<usize>,
    control: &'a RunControl,
}

impl RealEngines for Mocks<'_> {
    fn open(&mut self, _plan: &CalibrationPlan, dir: &Path) -> Result<RealEngine, Error> {
        self.opened += 1;
        if self.cancel_on == Some(self.opened) {
            self.control.cancel();
        }
        std::fs::create_dir_all(dir).unwrap();
        Ok(RealEngine {
            engine: Box::new(MockEngine::new(Arc::new(FakeTimer::default()))),
            environment: Environment::detect("mock", "1.0", dir),
            data_dir: dir.to_path_buf(),
        })
    }
}

/// A 60,000-row forecast of int and uuid4 in `dir`, with `change` made to its request.
fn changed(dir: &Path, change: &dyn Fn(&mut PredictRequest)) -> PredictRequest {
    let mut r = request(dir, "int,uuid4", 60_000, 2_000);
    change(&mut r);
    r
}

#[test]
fn refused_combinations_are_refused_before_anything_is_created() {
    let dir = tempfile::tempdir().unwrap();
    let with = |change: &dyn Fn(&mut PredictRequest)| changed(dir.path(), change);
    let cases: Vec<(PredictRequest, &str)> = vec![
        (with(&|r| r.ram_gib = Some(4.0)), "--ram prices cache misses in time: add --calibrate"),
        (with(&|r| r.check = Some(CheckSource::Run(70_000))), "--check 70000 is more than --rows 60000"),
        (
            with(&|r| {
                r.calibration = Some(CalibrationSource::Run);
                r.calibrate_rows = Some(10_000);
            }),
            "--calibrate-rows 10000 is too few",
        ),
        (with(&|r| r.calibration = Some(CalibrationSource::File(dir.path().join("none.json")))), "none.json"),
        (with(&|r| r.check = Some(CheckSource::File(dir.path().join("none.json")))), "none.json"),
        (with(&|r| r.format = Format::Json), "--format json is for the sharded model"),
        (with(&|r| r.scale = Some(3)), "must divide the batch"),
        (with(&|r| r.strategies = "uuid5".into()), "unknown strategy"),
        (
            with(&|r| {
                r.engine = EngineKind::Postgres;
                r.mode = Some(Mode::Bounded);
            }),
            "bounded mode is SQLite's",
        ),
        (
            with(&|r| {
                r.shards = Some(4);
                r.calibration = Some(CalibrationSource::Run);
            }),
            "--calibrate is for the page model",
        ),
        (
            with(&|r| r.range_split_mb = Some(-1.0)),
            "--out is for the page model: the sharded model (--shards) is the same for every engine",
        ),
        (
            with(&|r| {
                r.out = None;
                r.range_split_mb = Some(-1.0);
            }),
            "--range-split-mb -1 is out of range",
        ),
        (
            with(&|r| {
                r.engine = EngineKind::Spider;
                r.schema = Some(SchemaRequest { file: "schema.sql".into(), ..SchemaRequest::default() });
            }),
            "predict --schema models sqlite, postgres, mariadb, not spider",
        ),
        (
            with(&|r| r.schema = Some(SchemaRequest { file: "schema.sql".into(), ..SchemaRequest::default() })),
            "--out is for the page model: predict --schema prints the key table's trees only",
        ),
        (
            with(&|r| {
                r.out = None;
                r.calibration = Some(CalibrationSource::Run);
                r.schema = Some(SchemaRequest { file: "schema.sql".into(), ..SchemaRequest::default() });
            }),
            "--calibrate is for the page model: predict --schema",
        ),
        (
            with(&|r| {
                r.out = None;
                r.format = Format::Json;
                r.schema = Some(SchemaRequest { file: "schema.sql".into(), ..SchemaRequest::default() });
            }),
            "--format json is for the sharded model (--shards): predict --schema prints",
        ),
        (
            with(&|r| {
                r.shards = Some(4);
                r.schema = Some(SchemaRequest { file: "schema.sql".into(), ..SchemaRequest::default() });
            }),
            "--schema is not modelled on shards",
        ),
    ];
    for (request, needle) in cases {
        let err = request.validate().expect_err(needle).to_string();
        assert!(err.contains(needle), "{needle}: {err}");
        assert!(!dir.path().join("out").exists(), "{needle}: a folder was created");
    }
}

#[test]
fn server_binaries_are_refused_where_no_server_of_theirs_starts() {
    let dir = tempfile::tempdir().unwrap();
    let with = |change: &dyn Fn(&mut PredictRequest)| changed(dir.path(), change);
    let cases: Vec<(PredictRequest, &str)> = vec![
        (
            with(&|r| {
                r.engine = EngineKind::Postgres;
                r.pg_version = Some(16);
            }),
            "--pg-version chooses the server that --calibrate and --check N start",
        ),
        (
            with(&|r| {
                r.pg_version = Some(16);
                r.calibration = Some(CalibrationSource::Run);
            }),
            "--pg-version applies to the server engines, and SQLite is built into pkbench",
        ),
        (
            with(&|r| {
                r.engine = EngineKind::MariaDb;
                r.cache_mb = 8;
                r.pg_version = Some(16);
                r.check = Some(CheckSource::Run(20_000));
            }),
            "--pg-version applies to --engine postgres; for MariaDB/MySQL pass --server-bin DIR",
        ),
        (
            with(&|r| {
                r.engine = EngineKind::MariaDb;
                r.cache_mb = 8;
                r.server_bin = Some(dir.path().join("no-such-folder"));
                r.calibration = Some(CalibrationSource::Run);
            }),
            "no-such-folder is not a folder",
        ),
        (
            with(&|r| {
                r.engine = EngineKind::Postgres;
                r.server_bin = Some(dir.path().into());
                r.pg_version = Some(16);
                r.calibration = Some(CalibrationSource::Run);
            }),
            "--server-bin and --pg-version both choose the server's binaries",
        ),
    ];
    for (request, needle) in cases {
        let err = request.validate().expect_err(needle).to_string();
        assert!(err.contains(needle), "{needle}: {err}");
        assert!(!dir.path().join("out").exists(), "{needle}: a folder was created");
    }
}

#[test]
fn the_default_mode_is_bounded_above_20m_rows_on_sqlite_only() {
    let dir = tempfile::tempdir().unwrap();
    let plan = |engine, rows, mode| {
        let mut r = request(dir.path(), "int", rows, 100_000);
        (r.engine, r.mode, r.cache_mb) = (engine, mode, 64);
        page_plan(r).config.mode
    };
    assert_eq!(plan(EngineKind::Sqlite, 20_000_000, None), Mode::Exact);
    assert_eq!(plan(EngineKind::Sqlite, 20_100_000, None), Mode::Bounded);
    assert_eq!(plan(EngineKind::Sqlite, 20_100_000, Some(Mode::Exact)), Mode::Exact);
    assert_eq!(plan(EngineKind::Postgres, 20_100_000, None), Mode::Exact);
}

#[test]
fn a_forecast_then_a_check_tell_the_observer_in_order() {
    let dir = tempfile::tempdir().unwrap();
    let mut r = request(dir.path(), "int,uuid4", 10_000, 2_000);
    r.check = Some(CheckSource::Run(4_000));
    let control = RunControl::new();
    let mut recorder = Recorder::default();
    let mocks = Mocks { opened: 0, cancel_on: None, control: &control };
    let mut session = PredictSession::new(page_plan(r), &control, &mut recorder).with_engines(mocks);
    let Forecasted::Done(forecast) = session.forecast().unwrap() else { panic!("interrupted") };
    assert_eq!(forecast.doc.runs.len(), 2);
    assert!(forecast.render().contains("leaf fill"));
    let checked = session.check(&forecast).unwrap().expect("a check");
    assert_eq!(checked.checks.len(), 4, "two batches of each strategy");
    assert!(checked.real.runs.iter().all(|r| r.engine == "mock" && r.verified_rows == Some(4_000)));
    assert!(checked.render(&forecast).contains("int"));
    drop(session);
    assert_eq!(
        recorder.kinds(),
        ["Predicting int", "progress", "Predicting uuid4", "progress", "Checking", "real run"]
    );
    assert_eq!(recorder.0[1], "  int: 2000 of 10000 rows (0 s)");
    assert_eq!(recorder.0[recorder.0.len() - 2..], ["  int (1/2)…", "  uuid4 (2/2)…"], "each real run as it starts");
    for file in ["results.json", "report.html", "check/results.json"] {
        assert!(dir.path().join("out").join(file).exists(), "{file}");
    }
}

#[cfg(feature = "sqlite")]
#[test]
fn a_calibrated_checked_forecast_tells_calibration_probes_forecast_and_check_in_order() {
    let dir = tempfile::tempdir().unwrap();
    // Two strategies: the fit tells the costs apart only on tables that differ.
    let mut r = request(dir.path(), "int,uuid4", 60_000, 2_000);
    r.calibration = Some(CalibrationSource::Run);
    r.calibrate_rows = Some(30_000);
    r.check = Some(CheckSource::Run(10_000));
    let control = RunControl::new();
    let mut recorder = Recorder::default();
    let mut session = PredictSession::new(page_plan(r), &control, &mut recorder);
    let Forecasted::Done(forecast) = session.forecast().unwrap() else { panic!("interrupted") };
    let batch = &forecast.doc.runs[0].batches[0];
    assert!(batch.elapsed_ns > 0, "calibrated: a time per batch");
    let options = &forecast.doc.runs[0].settings.workload_options;
    assert!(!options.contains_key("calibration_unexplained"), "the plain table's fit carries nothing more");
    assert!(session.check(&forecast).unwrap().is_some());
    drop(session);
    assert_eq!(
        recorder.kinds(),
        [
            "Calibrating",
            "Probed the device",
            "real run",
            "Calibration results written to",
            "Probed the device before each of the 2 runs, each cost the median of the 2 moments",
            "Probed the working set",
            "Predicting int",
            "progress",
            "Predicting uuid4",
            "progress",
            "Checking",
            "real run"
        ],
        "{:#?}",
        recorder.0
    );
    for file in ["results.json", "calibration/results.json", "check/results.json"] {
        assert!(dir.path().join("out").join(file).exists(), "{file}");
    }
}

#[cfg(feature = "sqlite")]
#[test]
fn a_stand_in_is_forecast_with_the_calibration_of_the_key_whose_rows_land_as_its_own() {
    let dir = tempfile::tempdir().unwrap();
    let mut r = request(dir.path(), "int-client,uuid4,snowflake", 60_000, 2_000);
    r.calibration = Some(CalibrationSource::Run);
    r.calibrate_rows = Some(30_000);
    r.stand_ins = vec![("snowflake".into(), "int-client".into())];
    let control = RunControl::new();
    let mut recorder = Recorder::default();
    let mut session = PredictSession::new(page_plan(r), &control, &mut recorder);
    let Forecasted::Done(forecast) = session.forecast().unwrap() else { panic!("interrupted") };
    drop(session);
    let calibration = crate::report::load_results(&dir.path().join("out/calibration/results.json")).unwrap();
    let ran: Vec<&str> = calibration.runs.iter().map(|r| r.strategy.as_str()).collect();
    assert_eq!(ran, ["int-client", "uuid4"], "no real run of the stand-in");
    let forecast_of = |name: &str| forecast.doc.runs.iter().find(|r| r.strategy == name).unwrap();
    let snowflake = forecast_of("snowflake");
    assert!(snowflake.batches.iter().all(|b| b.elapsed_ns > 0 && b.elapsed_ns_high.is_some()), "timed, with intervals");
    let options = &snowflake.settings.workload_options;
    assert!(options["calibrated_as"].contains("as int-client's do"), "{options:?}");
    let uuid4 = &forecast_of("uuid4").settings.workload_options;
    assert!(!uuid4.contains_key("calibrated_as"), "only the stand-in's own run says so: {uuid4:?}");
    assert!(recorder.0[0].contains("but snowflake takes int-client's"), "{:?}", recorder.0[0]);
    assert!(forecast.render().contains("snowflake: no calibration run of its own"), "the table says so too");
    // The saved calibration lends int-client's run to snowflake again, unless each is asked.
    let mut again = request(dir.path(), "int-client,uuid4,snowflake", 60_000, 2_000);
    again.calibration = Some(CalibrationSource::File(dir.path().join("out/calibration/results.json")));
    again.calibrate_rows = Some(30_000);
    assert_eq!(paired(again.clone()), [("snowflake", "int-client")]);
    again.calibrate_each = true;
    let e = again.clone().validate().unwrap_err().to_string();
    assert!(e.contains("no batches of 'snowflake'"), "{e}");
    // A run of snowflake's own stopped before its first batch calibrates nothing: it still
    // takes int-client's.
    let mut stopped = calibration.clone();
    let mut empty = stopped.runs[0].clone();
    (empty.strategy, empty.batches) = ("snowflake".into(), Vec::new());
    stopped.runs.push(empty);
    let file = dir.path().join("stopped.json");
    std::fs::write(&file, serde_json::to_string(&stopped).unwrap()).unwrap();
    again.calibration = Some(CalibrationSource::File(file));
    again.calibrate_each = false;
    assert_eq!(paired(again), [("snowflake", "int-client")]);
}

#[test]
fn a_new_calibration_runs_one_strategy_of_each_kind_unless_each_is_asked() {
    let dir = tempfile::tempdir().unwrap();
    let pairs = |strategies: &str, each: bool| {
        paired(PredictRequest {
            calibration: Some(CalibrationSource::Run),
            calibrate_each: each,
            ..request(dir.path(), strategies, 60_000, 2_000)
        })
    };
    assert_eq!(pairs("snowflake,int-client,uuid4", false), [("int-client", "snowflake")], "the first of a kind runs");
    assert_eq!(pairs("uuid7,ulid,uuid4,int", false), [("ulid", "uuid7")]);
    assert!(pairs("int-client,snowflake", false).is_empty(), "never a single run");
    assert!(pairs("snowflake,int-client,uuid4", true).is_empty());
    let r = PredictRequest { calibrate_each: true, ..request(dir.path(), "int-client,snowflake,uuid4", 60_000, 2_000) };
    let e = r.validate().unwrap_err().to_string();
    assert!(e.contains("--calibrate-each gives each strategy a calibration run of its own: add --calibrate"), "{e}");
}

#[test]
fn a_stand_in_needs_a_calibrated_key_whose_rows_land_as_its_own() {
    let dir = tempfile::tempdir().unwrap();
    let with = |pairs: &[(&str, &str)], calibrated: bool| {
        let mut r = request(dir.path(), "int,int-client,snowflake,uuid4", 60_000, 2_000);
        r.calibration = calibrated.then_some(CalibrationSource::Run);
        r.stand_ins = pairs.iter().map(|(s, c)| (s.to_string(), c.to_string())).collect();
        r
    };
    let cases = [
        (with(&[("snowflake", "int-client")], false), "a stand-in takes another strategy's calibration"),
        (with(&[("ulid", "int-client")], true), "stand-in 'ulid' is not among the strategies forecast"),
        (with(&[("snowflake", "int")], true), "their rows do not land alike"),
        (with(&[("snowflake", "uuid4")], true), "their rows do not land alike"),
        (with(&[("snowflake", "int-client"), ("int-client", "snowflake")], true), "has no calibration of its own"),
        (with(&[("snowflake", "int-client"), ("snowflake", "int-client")], true), "is given twice"),
        (with(&[("snowflake", "snowflake")], true), "has no calibration of its own"),
        (
            {
                let mut r = with(&[("snowflake", "int-client")], true);
                let rebuild = Some("snowflake".to_string());
                r.calibrate_on = Some(SchemaRequest { file: "t.sql".into(), rebuild, ..SchemaRequest::default() });
                r
            },
            "its own run is the one rebuilt",
        ),
    ];
    for (request, expected) in cases {
        let e = request.validate().unwrap_err().to_string();
        assert!(e.contains(expected), "{e}");
    }
}

#[test]
fn an_interrupted_calibration_predicts_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let mut r = request(dir.path(), "int,uuid4", 60_000, 2_000);
    (r.calibration, r.calibrate_rows) = (Some(CalibrationSource::Run), Some(30_000));
    let control = RunControl::new();
    let mut recorder = Recorder::default();
    let mocks = Mocks { opened: 0, cancel_on: Some(1), control: &control };
    let mut session = PredictSession::new(page_plan(r), &control, &mut recorder).with_engines(mocks);
    let Forecasted::Interrupted(interruption) = session.forecast().unwrap() else { panic!("not interrupted") };
    assert_eq!(interruption, Interruption::Calibration);
    assert_eq!(interruption.to_string(), "Interrupted during the calibration; nothing predicted");
    drop(session);
    assert_eq!(recorder.kinds(), ["Calibrating", "Probed the device", "real run"]);
    assert!(!dir.path().join("out/results.json").exists());
}

#[test]
fn an_interrupted_forecast_keeps_what_it_predicted() {
    let dir = tempfile::tempdir().unwrap();
    let r = request(dir.path(), "int,uuid4", 10_000, 2_000);
    let control = RunControl::new();
    control.cancel();
    let mut recorder = Recorder::default();
    let mut session = PredictSession::new(page_plan(r), &control, &mut recorder);
    let Forecasted::Interrupted(interruption) = session.forecast().unwrap() else { panic!("not interrupted") };
    let results_dir = dir.path().join("out");
    assert_eq!(interruption, Interruption::Forecast { results_dir: results_dir.clone() });
    assert_eq!(interruption.to_string(), format!("Interrupted: results so far are in {}", results_dir.display()));
    drop(session);
    assert_eq!(recorder.kinds(), ["Predicting int"]);
    let doc = crate::report::load_results(&results_dir.join("results.json")).unwrap();
    assert_eq!(doc.runs.len(), 1);
    assert!(!doc.runs[0].complete);
}

#[test]
fn a_failed_forecast_says_where_the_results_so_far_are() {
    let error = PredictError::Stopped { dir: "out".into(), error: Error::InvalidInput("no room".into()) };
    assert_eq!(error.to_string(), "the prediction stopped (results so far are in out)");
    assert_eq!(std::error::Error::source(&error).map(ToString::to_string).as_deref(), Some("no room"));
    let refused = PredictError::from(Error::InvalidInput("no".into()));
    assert_eq!(refused.to_string(), "no");
}

#[test]
fn the_sharded_model_places_each_strategy() {
    let dir = tempfile::tempdir().unwrap();
    let mut r = request(dir.path(), "int,uuid4", 100_000, 10_000);
    (r.shards, r.out) = (Some(4), None);
    let Ok(PredictPlan::Sharded(plan)) = r.validate() else { panic!("not sharded") };
    let mut recorder = Recorder::default();
    let prediction = plan.run(&mut recorder).unwrap();
    assert_eq!(prediction.forecasts.len(), 2);
    assert_eq!(recorder.kinds(), ["Placing int", "Placing uuid4"]);
    assert!(recorder.0[0].starts_with("Placing int (100000 rows on 4 shards, "), "{}", recorder.0[0]);
}

#[test]
fn a_schemas_trees_are_rendered_per_strategy() {
    let dir = tempfile::tempdir().unwrap();
    let mut r = request(dir.path(), "int,uuid4", 5_000, 1_000);
    let file = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/schema/accounts_orders.pg.sql");
    (r.schema, r.out) = (Some(SchemaRequest { file, ..SchemaRequest::default() }), None);
    let Ok(PredictPlan::Schema(plan)) = r.validate() else { panic!("not a schema plan") };
    let text = plan.run().unwrap().render();
    let lines: Vec<&str> = text.lines().collect();
    assert!(lines[0].starts_with("predict --schema (sqlite page model): "), "{text}");
    assert!(lines[0].ends_with("after 5000 rows, 4096-byte pages"), "{text}");
    assert!(lines[1].starts_with("strategy") && lines[1].ends_with("size MiB"), "{text}");
    assert!(lines.iter().any(|l| l.starts_with("uuid4 ")), "{text}");
}

#[cfg(feature = "sqlite")]
#[test]
fn a_calibration_on_a_schema_table_inserts_that_table_with_its_indexes() {
    let dir = tempfile::tempdir().unwrap();
    let schema = dir.path().join("events.sql");
    std::fs::write(
        &schema,
        "CREATE TABLE events (id INTEGER PRIMARY KEY, account bigint NOT NULL, note text);\n\
         CREATE INDEX events_account ON events (account);\n",
    )
    .unwrap();
    let mut r = request(dir.path(), "int,uuid4", 60_000, 2_000);
    (r.calibration, r.calibrate_rows) = (Some(CalibrationSource::Run), Some(30_000));
    r.calibrate_on = Some(SchemaRequest { file: schema, table: Some("events".into()), ..SchemaRequest::default() });
    let control = RunControl::new();
    let mut recorder = Recorder::default();
    let mut session = PredictSession::new(page_plan(r), &control, &mut recorder);
    let Forecasted::Done(forecast) = session.forecast().unwrap() else { panic!("interrupted") };
    assert!(forecast.doc.runs[0].batches[0].elapsed_ns > 0, "calibrated: a time per batch");
    let options = &forecast.doc.runs[0].settings.workload_options;
    assert!(options.contains_key("calibration_unexplained"), "the other trees' time is carried: {options:?}");
    let calibration = crate::report::load_results(&dir.path().join("out/calibration/results.json")).unwrap();
    for run in &calibration.runs {
        assert_eq!(run.rows_inserted(), 30_000, "{}", run.strategy);
        let names: Vec<&str> = run.btrees.iter().map(|t| t.name.as_str()).collect();
        assert!(names.iter().any(|n| n.ends_with("events_account")), "{}: {names:?}", run.strategy);
    }
}

#[test]
fn a_calibration_tables_file_errors_come_before_anything_is_created() {
    let dir = tempfile::tempdir().unwrap();
    let mut r = request(dir.path(), "int,uuid4", 60_000, 2_000);
    (r.calibration, r.calibrate_rows) = (Some(CalibrationSource::Run), Some(30_000));
    r.calibrate_on = Some(SchemaRequest { file: dir.path().join("none.sql"), ..SchemaRequest::default() });
    let e = r.validate().expect_err("a missing schema file is refused");
    assert!(e.to_string().contains("none.sql"), "{e}");
    assert!(!dir.path().join("out").exists());
}

#[test]
fn the_myrocks_model_simulates_every_row_at_any_size() {
    let dir = tempfile::tempdir().unwrap();
    let request =
        PredictRequest { engine: EngineKind::MyRocks, ..request(dir.path(), "int,uuid4", 1_000_000_000, 1_000_000) };
    let plan = page_plan(request);
    assert_eq!(plan.config.scale, 1, "no scale model: the LSM model keeps no keys");
    assert_eq!(plan.faster_batch, None);
}

#[test]
fn a_calibration_takes_its_engines_default_rows_unless_given() {
    let mut r = PredictRequest::new(EngineKind::Sqlite, "int", 10_000_000);
    r.calibration = Some(CalibrationSource::Run);
    assert_eq!(request::calibrate_rows(&r), 200_000);
    r.engine = EngineKind::Postgres;
    assert_eq!(request::calibrate_rows(&r), 1_000_000, "the engine's, not the one the request began with");
    (r.engine, r.calibration) = (EngineKind::MariaDb, Some(CalibrationSource::File("run.json".into())));
    assert_eq!(request::calibrate_rows(&r), 1_000_000, "a saved run's first million");
    r.calibrate_rows = Some(300_000);
    assert_eq!(request::calibrate_rows(&r), 300_000);
}
