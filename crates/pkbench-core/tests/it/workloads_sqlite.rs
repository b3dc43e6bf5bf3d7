//! Engine tests of the workloads beyond insert-growth, on real SQLite with small sizes: every
//! figure present, positive and consistent with the others.

use pkbench_core::control::{MonotonicTimer, RunControl};
use pkbench_core::engines::Engine;
use pkbench_core::engines::sqlite::{SqliteEngine, SqliteSettings, Synchronous};
use pkbench_core::results::{PhaseResult, RunResult};
use pkbench_core::strategy::find;
use pkbench_core::workloads::{
    App, CaseContext, Churn, FileBaseline, InsertGrowth, MemoryCap, PAGE_ROWS, Remedy, Scale, Silent, Workload,
};
use std::path::Path;

/// Seed of every key stream here.
const SEED: u64 = 7;

fn engine(dir: &Path) -> SqliteEngine {
    SqliteEngine::new(SqliteSettings { cache_mb: 2, ..SqliteSettings::seed_000(dir.to_path_buf()) }).unwrap()
}

fn run(workload: &dyn Workload, engine: &mut dyn Engine, strategy: &str) -> RunResult {
    let control = RunControl::new();
    let ctx = CaseContext {
        control: &control,
        timer: &MonotonicTimer::default(),
        observer: &Silent,
        counter_budget: Default::default(),
    };
    let (result, error) = workload.run_case(engine, find(strategy).unwrap(), &ctx);
    assert!(error.is_none(), "{strategy}: {error:?}");
    assert!(result.complete && result.error.is_none());
    result
}

fn phase<'a>(result: &'a RunResult, name: &str) -> &'a PhaseResult {
    result.phases.iter().find(|p| p.name == name).unwrap_or_else(|| panic!("no phase {name}: {result:#?}"))
}

fn figure(p: &PhaseResult, name: &str) -> f64 {
    *p.figures.get(name).unwrap_or_else(|| panic!("{}: no figure {name}: {:?}", p.name, p.figures))
}

#[test]
fn file_baseline_times_every_method_and_verifies_what_it_wrote() {
    let dir = tempfile::tempdir().unwrap();
    let rows = 5_000;
    let workload = FileBaseline::new(rows, dir.path().to_path_buf()).unwrap();
    let result = run(&workload, &mut engine(dir.path()), "int");
    let names: Vec<&str> = result.phases.iter().map(|p| p.name.as_str()).collect();
    assert_eq!(
        names,
        [
            "write-per-row",
            "write-per-row-fsync",
            "buffered-write",
            "buffered-write-fsync",
            "sqlite-sync-off",
            "sqlite-sync-normal",
            "sqlite-sync-full",
            "sqlite-sync-extra"
        ]
    );
    let expected_bytes: u64 = (1..=rows).map(|i| format!("test{i}\n").len() as u64).sum();
    let mut fastest = 0;
    for p in &result.phases {
        assert_eq!(p.rows, rows, "{}", p.name);
        assert!(p.elapsed_ns > 0 && p.operations > 0, "{p:?}");
        let ratio = figure(p, "ratio_to_fastest");
        assert!(ratio >= 1.0, "{p:?}");
        fastest += usize::from(ratio == 1.0);
        if p.name.starts_with("sqlite") {
            assert_eq!(p.operations, rows);
            assert!(figure(p, "database_bytes") > 0.0);
        } else {
            assert_eq!(figure(p, "file_bytes"), expected_bytes as f64, "{}", p.name);
            let writes = if p.name.starts_with("buffered") { 1 } else { rows };
            assert_eq!(p.operations, writes, "{}", p.name);
        }
    }
    assert!(fastest >= 1, "one method is the fastest");
    assert_eq!(result.verified_rows, Some(rows));
    let leftovers: Vec<_> = std::fs::read_dir(dir.path()).unwrap().filter_map(|e| e.ok()).collect();
    assert!(leftovers.is_empty(), "files left behind: {leftovers:?}");
}

#[test]
fn remedy_switches_keys_then_vacuums() {
    let dir = tempfile::tempdir().unwrap();
    let workload = Remedy::new(6_000, 1_000, 50, SEED).unwrap();
    for strategy in ["uuid4", "int+uuid4"] {
        let result = run(&workload, &mut engine(dir.path()), strategy);
        assert_eq!(result.verified_rows, Some(6_000), "{strategy}");
        assert_eq!(result.batches.len(), 6);
        let (v4, v7) = (phase(&result, "insert-uuid4"), phase(&result, "insert-uuid7"));
        assert_eq!((v4.rows, v7.rows), (3_000, 3_000), "{strategy}");
        assert_eq!(figure(v7, "first_batch_index"), 3.0);
        assert_eq!(v4.elapsed_ns + v7.elapsed_ns, result.insert_ns());
        let vacuum = phase(&result, "vacuum");
        assert!(vacuum.elapsed_ns > 0);
        for f in
            ["size_before_bytes", "size_after_bytes", "leaf_fill_before", "leaf_fill_after", "free_space_needed_bytes"]
        {
            assert!(figure(vacuum, f) > 0.0, "{strategy}: {f}");
        }
        // VACUUM rebuilds every tree packed: never less full, never more pages.
        assert!(figure(vacuum, "leaf_fill_after") >= figure(vacuum, "leaf_fill_before"), "{vacuum:?}");
        assert!(figure(vacuum, "pages_after") <= figure(vacuum, "pages_before"), "{vacuum:?}");
        assert!(figure(vacuum, "free_space_needed_bytes") >= figure(vacuum, "size_before_bytes") * 0.5);
    }
}

#[test]
fn remedy_refuses_strategies_without_a_random_uuid() {
    assert!(Remedy::switched(find("uuid7").unwrap()).is_err());
    assert!(Remedy::switched(find("int").unwrap()).is_err());
    assert!(Remedy::new(1_000, 1_000, 50, 1).is_err(), "one batch cannot switch");
}

#[test]
fn presort_inserts_each_batch_in_key_order_and_keeps_every_row() {
    let dir = tempfile::tempdir().unwrap();
    let workload = InsertGrowth::new(4_000, 1_000, 50, SEED).unwrap().with_presort(true);
    let settings = SqliteSettings { keep_db: true, ..SqliteSettings::seed_000(dir.path().to_path_buf()) };
    let result = run(&workload, &mut SqliteEngine::new(settings).unwrap(), "uuid4-rowid");
    assert_eq!(result.verified_rows, Some(4_000));
    assert_eq!(result.settings.workload_options.get("presort").map(String::as_str), Some("true"));
    assert!(
        result
            .strategy_description
            .ends_with("; SQLite rowid table: rows in the order of a hidden rowid, the key in a unique index"),
        "{}",
        result.strategy_description
    );
    // A rowid table keeps insertion order: within each batch the keys must ascend.
    let conn = rusqlite::Connection::open(result.kept_database.unwrap()).unwrap();
    let ids: Vec<Vec<u8>> = conn
        .prepare("SELECT id FROM bench ORDER BY rowid")
        .unwrap()
        .query_map([], |r| r.get(0))
        .unwrap()
        .map(Result::unwrap)
        .collect();
    assert_eq!(ids.len(), 4_000);
    for batch in ids.chunks(1_000) {
        assert!(batch.windows(2).all(|w| w[0] < w[1]), "a batch is not sorted");
    }
    assert!(!ids.windows(2).all(|w| w[0] < w[1]), "batches are sorted separately, not the whole stream");
}

#[test]
fn app_measures_every_step_and_its_rows_add_up() {
    let dir = tempfile::tempdir().unwrap();
    let (users, per_user) = (3_000, 4);
    let workload = App::new(users, per_user, 1_000, SEED).unwrap();
    for strategy in ["int", "snowflake", "uuid4", "int+uuid4", "int+uuid4-noindex", "uuid7+uuid4-map", "uuid4-rowid"] {
        let settings = SqliteSettings {
            sync: Synchronous::Normal,
            page_size: 8192,
            ..SqliteSettings::seed_000(dir.path().to_path_buf())
        };
        let result = run(&workload, &mut SqliteEngine::new(settings).unwrap(), strategy);
        let names: Vec<&str> = result.phases.iter().map(|p| p.name.as_str()).collect();
        // A key beside the primary key is also looked up by the primary key.
        let mut expected = vec!["load", "avg-age", "point-select", "join-page", "orders-of-user", "mixed-crud"];
        if find(strategy).unwrap().secondary.is_some() {
            expected.insert(3, "point-select-by-id");
        }
        assert_eq!(names, expected, "{strategy}");
        for p in &result.phases {
            assert!(p.elapsed_ns > 0 && p.operations > 0 && p.rows > 0, "{strategy}: {p:?}");
            assert!(p.counters.cache_hits.unwrap_or(0) > 0, "{strategy}: {} has no cache counters", p.name);
            if p.name != "load" {
                let l = p.latency.unwrap_or_else(|| panic!("{strategy}: {} has no latency", p.name));
                assert_eq!(l.count, p.operations);
                assert!(l.min_ns > 0 && l.min_ns <= l.p50_ns && l.p50_ns <= l.p99_ns && l.p99_ns <= l.max_ns);
            }
        }
        assert_eq!(result.settings.engine["auto_vacuum"], "2", "incremental auto-vacuum took effect");
        assert_eq!(result.settings.engine["foreign_keys"], "1");
        assert_eq!(result.settings.engine["page_size"], "8192");
        let load = phase(&result, "load");
        assert_eq!(load.rows, users + users * per_user);
        assert!(figure(load, "users_per_s") > 0.0 && figure(load, "orders_per_s") > 0.0);
        assert!(figure(load, "size_after_load_bytes") > 0.0);
        let mean_age = (1..=users).map(|n| (18 + (n * 37) % 63) as f64).sum::<f64>() / users as f64;
        assert!((figure(phase(&result, "avg-age"), "avg_age_years") - mean_age).abs() < 1e-9);
        let select = phase(&result, "point-select");
        assert_eq!(select.rows, select.operations, "{strategy}: every public id is found");
        let join = phase(&result, "join-page");
        assert_eq!(join.rows, join.operations * u64::from(PAGE_ROWS), "{strategy}: rows read = page size × pages");
        let orders = phase(&result, "orders-of-user");
        assert_eq!(orders.rows, orders.operations * per_user, "{strategy}");
        let crud = phase(&result, "mixed-crud");
        assert_eq!(crud.operations, 100 * figure(crud, "iterations") as u64);
        assert!(crud.note.as_deref().unwrap().contains("50 point reads"));
        // Users plus orders, after CRUD added 20 and deleted 10 orders per iteration.
        let iterations = figure(crud, "iterations") as u64;
        assert_eq!(result.verified_rows, Some(users + users * per_user + 10 * iterations), "{strategy}");
        assert!(result.size_bytes.unwrap() > 0);
    }
    let leftovers: Vec<_> = std::fs::read_dir(dir.path()).unwrap().filter_map(|e| e.ok()).collect();
    assert!(leftovers.is_empty(), "databases left behind: {leftovers:?}");
}

#[test]
fn churn_keeps_the_table_size_and_samples_every_step() {
    let dir = tempfile::tempdir().unwrap();
    let workload = Churn::new(3_000, 500, 50, SEED).unwrap();
    for strategy in ["int", "uuid7", "uuid4", "int+uuid4"] {
        let result = run(&workload, &mut engine(dir.path()), strategy);
        assert_eq!(result.verified_rows, Some(3_000), "{strategy}");
        // 6 fill batches, then 3 turnovers of 6 steps.
        assert_eq!(result.batches.len(), 6 + 18, "{strategy}");
        assert!(result.batches[6..].iter().all(|b| b.rows_total == 3_000 && b.rows == 500));
        assert_eq!(result.phases.len(), 1 + 18);
        assert_eq!(result.phases[0].name, "fill");
        for p in &result.phases {
            for f in ["size_bytes", "leaf_pages", "leaf_fill"] {
                assert!(figure(p, f) > 0.0, "{strategy}: {} {f}", p.name);
            }
            assert!(figure(p, "leaf_fill") <= 1.0);
        }
        for p in &result.phases[1..] {
            assert_eq!(p.rows, 1_000);
            let sum = figure(p, "delete_ms") + figure(p, "insert_ms");
            assert!((sum - p.elapsed_ns as f64 / 1e6).abs() < 1e-3, "{p:?}");
        }
    }
}

#[test]
fn scale_splits_batches_into_regimes_that_add_up() {
    let dir = tempfile::tempdir().unwrap();
    let growth = InsertGrowth::new(30_000, 2_000, 50, SEED).unwrap();
    // A 256 KiB "cache" and a 1 MiB "cap": a uuid4 table of 30k rows passes both.
    let cap = MemoryCap { bytes: 1 << 20, source: "test cap".into() };
    let workload = Scale::new(growth, 256 << 10, cap);
    let result = run(&workload, &mut engine(dir.path()), "uuid4");
    assert_eq!(result.workload, "scale");
    let names: Vec<&str> = result.phases.iter().map(|p| p.name.as_str()).collect();
    assert_eq!(names, ["fits-cache", "exceeds-cache", "exceeds-memory-cap"]);
    assert_eq!(result.phases.iter().map(|p| p.rows).sum::<u64>(), 30_000);
    assert_eq!(result.phases.iter().map(|p| p.operations).sum::<u64>(), result.batches.len() as u64);
    assert_eq!(result.phases.iter().map(|p| p.elapsed_ns).sum::<u64>(), result.insert_ns());
    for p in &result.phases {
        assert!(figure(p, "rows_per_s") > 0.0 && p.counters.cache_hits.unwrap() > 0, "{p:?}");
    }
    assert_eq!(result.settings.workload_options["memory_cap"], "test cap");
    let detected = MemoryCap::detect();
    assert!(detected.bytes > 0 && !detected.source.is_empty());
}

#[test]
fn scale_places_batches_by_the_b_trees_that_take_scattered_inserts() {
    let dir = tempfile::tempdir().unwrap();
    let growth = InsertGrowth::new(20_000, 2_000, 50, SEED).unwrap();
    let cap = MemoryCap { bytes: 64 << 20, source: "test cap".into() };
    let workload = Scale::new(growth, 256 << 10, cap);
    // int+uuid4: the table appends (rowid order); the UNIQUE index on the UUID takes the
    // scattered inserts, and only its size places the batches.
    let result = run(&workload, &mut engine(dir.path()), "int+uuid4");
    let note = result.phases[0].note.clone().unwrap();
    let scattered: Vec<&str> =
        result.btrees.iter().filter(|b| b.leaf_out_of_order >= 0.10).map(|b| b.name.as_str()).collect();
    assert_eq!(scattered.len(), 1, "{:?}", result.btrees);
    assert!(scattered[0] != "bench", "the index, not the table: {scattered:?}");
    assert!(note.contains(&format!("the B-trees taking scattered inserts ({})", scattered[0])), "{note}");
    // int: every B-tree appends, so all of them place the batches.
    let result = run(&workload, &mut engine(dir.path()), "int");
    let note = result.phases[0].note.clone().unwrap();
    assert!(note.contains("all B-trees (every one appends)"), "{note}");
}

#[test]
fn every_workload_writes_results_the_json_schema_accepts() {
    use pkbench_core::results::{Environment, ResultsDoc, SCHEMA_VERSION};
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../schema/results.schema.json");
    let schema: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap();
    let validator = jsonschema::validator_for(&schema).unwrap();
    let dir = tempfile::tempdir().unwrap();
    let settings = SqliteSettings { sync: Synchronous::Off, ..SqliteSettings::seed_000(dir.path().to_path_buf()) };
    let mut engine = SqliteEngine::new(settings).unwrap();
    let cap = MemoryCap { bytes: 1 << 20, source: "test cap".into() };
    let workloads: Vec<(Box<dyn Workload>, &str)> = vec![
        (Box::new(FileBaseline::new(500, dir.path().to_path_buf()).unwrap()), "int"),
        (Box::new(App::new(100, 1, 1_000, SEED).unwrap()), "int+uuid4"),
        (Box::new(Remedy::new(2_000, 1_000, 50, SEED).unwrap()), "uuid4"),
        (Box::new(Churn::new(1_000, 500, 50, SEED).unwrap()), "uuid7"),
        (Box::new(Scale::new(InsertGrowth::new(2_000, 1_000, 50, SEED).unwrap(), 1 << 16, cap)), "uuid4"),
    ];
    let runs = workloads.iter().map(|(w, s)| run(w.as_ref(), &mut engine, s)).collect();
    let doc = ResultsDoc {
        schema_version: SCHEMA_VERSION,
        command: vec!["pkbench".into()],
        started_at: "2026-01-01T00:00:00Z".into(),
        environment: Environment::detect("sqlite", &engine.info().version, dir.path()),
        runs,
    };
    let value = serde_json::to_value(&doc).unwrap();
    let errors: Vec<String> = validator.iter_errors(&value).map(|e| format!("{}: {e}", e.instance_path())).collect();
    assert!(errors.is_empty(), "{errors:#?}");
    let app = &doc.runs[1];
    assert_eq!(phase(app, "join-page").rows, 100, "fewer orders than one page × pages: every order once");
}

#[test]
fn app_warmup_by_time_runs_untimed_operations_before_each_query_step() {
    let dir = tempfile::tempdir().unwrap();
    let workload = App::new(500, 2, 1_000, SEED).unwrap().with_warmup(Some(std::time::Duration::from_millis(50)));
    let result =
        run(&workload, &mut SqliteEngine::new(SqliteSettings::seed_000(dir.path().to_path_buf())).unwrap(), "int");
    assert!(result.complete, "{:?}", result.error);
    for name in ["point-select", "orders-of-user"] {
        let p = result.phases.iter().find(|p| p.name == name).unwrap();
        let note = p.note.as_deref().unwrap_or_default();
        // The warm-up clause comes first; other clauses (what was looked up) follow after "; ".
        let warmup = note.split("; ").next().unwrap_or_default();
        let secs: f64 = warmup
            .rsplit_once('(')
            .and_then(|(_, s)| s.strip_suffix(" s)"))
            .and_then(|s| s.parse().ok())
            .unwrap_or_else(|| panic!("{name}: no warm-up time in {note:?}"));
        assert!(note.starts_with("after ") && secs >= 0.05, "{name}: {note}");
        // The timed operations are the step's own count, warm-up excluded.
        assert_eq!(p.latency.unwrap().count, p.operations, "{name}");
    }
}
