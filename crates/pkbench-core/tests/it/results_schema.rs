//! `schema/results.schema.json` describes what pkbench really writes: documents produced by the
//! library (deterministic mock engine and real SQLite) validate against it, and broken ones don't.

use pkbench_core::control::{MonotonicTimer, RunControl};
use pkbench_core::engines::Engine;
use pkbench_core::engines::mock::{FakeTimer, MockEngine};
use pkbench_core::engines::sqlite::{SqliteEngine, SqliteSettings};
use pkbench_core::results::{Environment, ResultsDoc};
use pkbench_core::run::{RunPlan, run};
use pkbench_core::strategy::find;
use pkbench_core::workloads::{CaseContext, InsertGrowth, Silent};
use serde_json::{Value, json};
use std::path::{Path, PathBuf};
use std::sync::Arc;

const MOCK_STRATEGIES: &[&str] = &["int", "uuid7", "uuid4", "int+uuid4"];
const SQLITE_STRATEGIES: &[&str] = &["int", "uuid4", "uuid7+uuid4-map", "int+uuid4"];

fn schema_path() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../schema/results.schema.json")
}

fn schema() -> Value {
    let path = schema_path();
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("cannot read {}: {e}", path.display()));
    serde_json::from_str(&text).unwrap_or_else(|e| panic!("{} is not valid JSON: {e}", path.display()))
}

fn validator() -> jsonschema::Validator {
    jsonschema::validator_for(&schema()).unwrap_or_else(|e| panic!("schema does not compile: {e}"))
}

/// Every validation error of `instance`, as "instance path: message (schema path)".
fn errors(instance: &Value) -> Vec<String> {
    let validator = validator();
    validator
        .iter_errors(instance)
        .map(|e| format!("at '{}': {e} (schema {})", e.instance_path(), e.schema_path()))
        .collect()
}

fn assert_valid(what: &str, instance: &Value) {
    let errors = errors(instance);
    assert!(
        errors.is_empty(),
        "{what}: {} schema error(s):\n{}\ndocument:\n{}",
        errors.len(),
        errors.join("\n"),
        serde_json::to_string_pretty(instance).unwrap()
    );
}

fn assert_invalid(what: &str, instance: &Value) {
    let errors = errors(instance);
    assert!(!errors.is_empty(), "{what}: expected schema errors, found none");
    eprintln!("{what}: rejected as expected:\n  {}", errors.join("\n  "));
}

fn strategies(names: &[&str]) -> Vec<&'static pkbench_core::strategy::Strategy> {
    names.iter().map(|n| find(n).unwrap_or_else(|e| panic!("strategy {n}: {e}"))).collect()
}

fn command(engine: &str, names: &[&str]) -> Vec<String> {
    ["pkbench", "run", "--engine", engine, "--strategies", &names.join(",")].map(String::from).to_vec()
}

/// Runs `names` on the deterministic mock engine; `fail_at_batch` makes every case fail there.
fn mock_doc(names: &[&str], fail_at_batch: Option<u64>) -> ResultsDoc {
    let timer = Arc::new(FakeTimer::default());
    let mut engine = MockEngine::new(Arc::clone(&timer));
    engine.fail_at_batch = fail_at_batch;
    let workload = InsertGrowth::new(20_000, 5_000, 100, 42).unwrap();
    let plan = RunPlan { workload: &workload, strategies: strategies(names), command: command("mock", names) };
    let control = RunControl::new();
    let ctx =
        CaseContext { control: &control, timer: timer.as_ref(), observer: &Silent, counter_budget: Default::default() };
    let environment = Environment::detect("mock", "1.0", Path::new("."));
    let outcome = run(&plan, &mut engine, environment, None, &ctx).unwrap();
    if fail_at_batch.is_none() {
        assert!(outcome.error.is_none(), "mock run failed: {:?}", outcome.error);
        assert_eq!(outcome.doc.runs.len(), names.len());
    } else {
        assert!(outcome.error.is_some(), "mock run was expected to fail");
    }
    outcome.doc
}

/// Runs `names` on real SQLite in a temporary folder (small sizes).
fn sqlite_doc(names: &[&str], keep_db: bool) -> (ResultsDoc, tempfile::TempDir) {
    let dir = tempfile::tempdir().unwrap();
    let mut settings = SqliteSettings::seed_000(dir.path().to_path_buf());
    settings.keep_db = keep_db;
    let mut engine = SqliteEngine::new(settings).unwrap();
    let workload = InsertGrowth::new(3_000, 1_000, 100, 7).unwrap();
    let plan = RunPlan { workload: &workload, strategies: strategies(names), command: command("sqlite", names) };
    let control = RunControl::new();
    let timer = MonotonicTimer::default();
    let ctx = CaseContext { control: &control, timer: &timer, observer: &Silent, counter_budget: Default::default() };
    let environment = Environment::detect("sqlite", &engine.info().version, dir.path());
    let outcome = run(&plan, &mut engine, environment, None, &ctx).unwrap();
    assert!(outcome.error.is_none(), "sqlite run failed: {:?}", outcome.error);
    assert_eq!(outcome.doc.runs.len(), names.len());
    (outcome.doc, dir)
}

fn to_value(doc: &ResultsDoc) -> Value {
    serde_json::to_value(doc).unwrap()
}

/// The valid mock document, as JSON.
fn mock_value() -> Value {
    to_value(&mock_doc(MOCK_STRATEGIES, None))
}

/// Removes `key` from the object at JSON pointer `pointer`, asserting it was there.
fn remove(doc: &mut Value, pointer: &str, key: &str) {
    let object = doc.pointer_mut(pointer).and_then(Value::as_object_mut).unwrap_or_else(|| panic!("no {pointer}"));
    assert!(object.remove(key).is_some(), "{pointer}/{key} was not present");
}

/// Replaces the value at JSON pointer `pointer`, asserting it was there.
fn set(doc: &mut Value, pointer: &str, value: Value) {
    *doc.pointer_mut(pointer).unwrap_or_else(|| panic!("no {pointer}")) = value;
}

#[test]
fn schema_file_is_json_with_draft_2020_12() {
    let schema = schema();
    assert_eq!(schema["$schema"], "https://json-schema.org/draft/2020-12/schema");
    assert_eq!(schema["$id"], "https://pkbench.invalid/schema/results.schema.json");
    assert!(schema["title"].as_str().is_some_and(|t| !t.is_empty()), "schema has no title");
    if let Err(e) = jsonschema::draft202012::meta::validate(&schema) {
        panic!("schema violates the 2020-12 meta-schema at '{}': {e}", e.instance_path());
    }
}

/// Every property of a closed object is required: pkbench always serialises every field
/// (Options as null) except Counters', which are omitted when absent.
#[test]
fn schema_requires_every_property_of_closed_objects() {
    let schema = schema();
    let mut objects = vec![("(root)".to_string(), &schema)];
    for (name, def) in schema["$defs"].as_object().unwrap() {
        objects.push((name.clone(), def));
    }
    let mut closed = 0;
    for (name, def) in objects {
        let Some(properties) = def.get("properties").and_then(Value::as_object) else { continue };
        for (prop, body) in properties {
            assert!(
                body.get("description").is_some() || body.get("$ref").is_some(),
                "{name}.{prop} has no description"
            );
        }
        // Fields added after schema version 1 was first written stay optional, so older
        // results files remain valid; a phase's latency, intervals, figures and note are
        // omitted when a step has none; a predicted batch's interval only when calibrated.
        const OPTIONAL: [&str; 21] = [
            // Only a sharded engine's batches and intervals have them.
            "shards",
            // Only a schema run's trees know the key's share of them.
            "key_share",
            // Only a schema run on an engine that counts reads per tree has them.
            "misses_per_1k_rows",
            "index_blocks_touched_per_1k_rows",
            "wal_size_bytes",
            "phases",
            "workload_options",
            "latency",
            "intervals",
            "figures",
            "note",
            "db_size_bytes",
            "key_parameters",
            // Absent from results written before the counter budget.
            "counters_ns",
            "counters_span",
            "waits",
            "elapsed_ns_low",
            "elapsed_ns_high",
            // Only predict's calibration and check runs time the canary.
            "machine_ns",
            // Only an LSM engine has levels.
            "lsm_levels",
            "compacted_size_bytes",
        ];
        let mut props: Vec<&str> = properties.keys().map(String::as_str).filter(|p| !OPTIONAL.contains(p)).collect();
        let mut required: Vec<&str> = def
            .get("required")
            .and_then(Value::as_array)
            .map_or(vec![], |r| r.iter().filter_map(Value::as_str).collect());
        props.sort_unstable();
        required.sort_unstable();
        if name == "Counters" {
            assert!(required.is_empty(), "Counters fields are optional");
            assert_ne!(def["additionalProperties"], json!(false), "Counters must stay open");
        } else if name == "ShardCounters" {
            // A shard's rows and size are absent where the server has no reading of them.
            assert_eq!(def["additionalProperties"], json!(false), "{name} must be closed");
            assert_eq!(required, ["counters"], "{name}");
            closed += 1;
        } else {
            assert_eq!(def["additionalProperties"], json!(false), "{name} must be closed");
            assert_eq!(props, required, "{name}: required must list every property");
            closed += 1;
        }
    }
    assert_eq!(
        closed, 11,
        "root, Environment, RunResult, Settings, BatchResult, ShardCounters, LsmLevel, BtreeStats, PhaseResult, LatencySummary, IntervalResult"
    );
}

#[test]
fn mock_run_matches_schema() {
    let doc = mock_doc(MOCK_STRATEGIES, None);
    assert!(doc.runs.iter().all(|r| r.complete && !r.batches.is_empty()));
    assert_valid("mock run", &to_value(&doc));
}

#[test]
fn failed_mock_run_matches_schema() {
    // Nulls and an error string: the shape of a run a fault stopped (the rows its one committed
    // batch left are counted; nothing is measured).
    let doc = mock_doc(&["uuid4"], Some(1));
    let last = doc.runs.last().unwrap();
    assert!(!last.complete && last.error.is_some() && last.size_bytes.is_none());
    assert_eq!(last.verified_rows, Some(5_000));
    assert_valid("failed mock run", &to_value(&doc));
}

#[test]
fn sqlite_run_matches_schema() {
    let (doc, _dir) = sqlite_doc(SQLITE_STRATEGIES, false);
    assert!(doc.runs.iter().all(|r| r.complete && r.verified_rows == Some(3_000)));
    assert!(doc.runs.iter().all(|r| !r.btrees.is_empty()));
    assert!(doc.runs.iter().any(|r| r.btrees.iter().any(|b| b.kind == "index")), "int+uuid4 has an index");
    assert_valid("sqlite run", &to_value(&doc));
}

#[test]
fn sqlite_run_with_kept_database_matches_schema() {
    let (doc, _dir) = sqlite_doc(&["uuid7"], true);
    assert!(doc.runs[0].kept_database.is_some());
    assert_valid("sqlite run with --keep-db", &to_value(&doc));
}

#[test]
fn optional_values_and_open_objects_are_accepted() {
    let mut doc = mock_value();
    set(&mut doc, "/environment/data_filesystem", Value::Null);
    // Counters may be missing (an engine without them) or carry counters added later.
    set(&mut doc, "/runs/0/batches/0/counters", json!({}));
    set(&mut doc, "/runs/0/batches/1/counters", json!({"cache_hits": 1, "future_counter": 7}));
    set(&mut doc, "/runs/0/settings/engine", json!({}));
    assert_valid("mock run with optional values", &doc);
}

#[test]
fn missing_required_field_is_rejected() {
    let mut doc = mock_value();
    remove(&mut doc, "/runs/0/batches/0", "elapsed_ns");
    assert_invalid("batch without elapsed_ns", &doc);

    // A None Option is written as null, never omitted.
    let mut doc = mock_value();
    remove(&mut doc, "/runs/0", "error");
    assert_invalid("run without error", &doc);
}

#[test]
fn wrong_types_and_ranges_are_rejected() {
    let cases: &[(&str, &str, Value)] = &[
        ("verified_rows as a string", "/runs/0/verified_rows", json!("20000")),
        ("negative elapsed_ns", "/runs/0/batches/0/elapsed_ns", json!(-1)),
        ("fractional rows", "/runs/0/batches/0/rows", json!(1.5)),
        ("leaf_fill above 1", "/runs/0/btrees/0/leaf_fill", json!(1.5)),
        ("leaf_out_of_order below 0", "/runs/0/btrees/0/leaf_out_of_order", json!(-0.1)),
        ("unknown btree kind", "/runs/0/btrees/0/kind", json!("view")),
        ("schema_version 2", "/schema_version", json!(2)),
        ("null counter (counters are omitted, not null)", "/runs/0/batches/0/counters/cache_hits", Value::Null),
        ("non-integer extra counter", "/runs/0/batches/0/counters/future", json!("x")),
        ("non-string engine setting", "/runs/0/settings/engine/mode", json!(1)),
        ("complete run with an error", "/runs/0/error", json!("boom")),
        ("incomplete run without an error", "/runs/0/complete", json!(false)),
        ("unknown top-level field", "/extra", json!(1)),
        ("unknown run field", "/runs/0/extra", json!(1)),
        ("unknown environment field", "/environment/extra", json!(1)),
    ];
    for (what, pointer, value) in cases {
        let mut doc = mock_value();
        let (parent, key) = pointer.rsplit_once('/').unwrap();
        let object = doc.pointer_mut(parent).and_then(Value::as_object_mut).unwrap();
        object.insert(key.to_string(), value.clone());
        assert_invalid(what, &doc);
    }
}

#[test]
fn phases_and_workload_options_match_schema() {
    use pkbench_core::metrics::LatencyRecorder;
    use pkbench_core::results::{IntervalResult, PhaseResult};
    let mut doc = mock_doc(MOCK_STRATEGIES, None);
    let mut latency = LatencyRecorder::new();
    for ns in [120_000, 180_000, 2_500_000] {
        latency.record(ns);
    }
    let run = &mut doc.runs[0];
    run.settings.workload_options.insert("threads".into(), "4".into());
    run.phases.push(PhaseResult {
        name: "concurrent-insert".into(),
        operations: 3,
        rows: 3,
        elapsed_ns: 1_000_000_000,
        latency: latency.summary(),
        intervals: vec![IntervalResult { start_ns: 0, elapsed_ns: 1_000_000_000, operations: 3, ..Default::default() }],
        figures: [("lock_wait_ns".to_string(), 1234.0)].into(),
        note: Some("autocommit single-row inserts".into()),
        ..Default::default()
    });
    let value = to_value(&doc);
    assert_valid("run with phases", &value);
    // Written files round-trip, and files without phases still read.
    let back: ResultsDoc = serde_json::from_value(value.clone()).unwrap();
    assert_eq!(back, doc);
    let mut bad = value;
    set(&mut bad, "/runs/0/phases/0/latency/p99_ns", json!(-5));
    assert_invalid("negative percentile", &bad);
}
