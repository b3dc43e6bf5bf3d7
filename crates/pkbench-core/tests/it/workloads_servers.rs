//! The remedy and churn workloads on managed PostgreSQL and MariaDB servers that the tests start
//! themselves (small sizes): every figure present and consistent, every row verified, deletes
//! by key in every key storage. A missing server binary fails the test, it never skips.

use pkbench_core::control::{MonotonicTimer, RunControl};
use pkbench_core::engines::Engine;
use pkbench_core::engines::mariadb::MariaDbEngine;
use pkbench_core::engines::postgres::PostgresEngine;
use pkbench_core::engines::server::{ServerSettings, ServerTarget};
use pkbench_core::results::{PhaseResult, RunResult};
use pkbench_core::strategy::find;
use pkbench_core::workloads::{CaseContext, Churn, Remedy, Silent, Workload};

/// Seed of every key stream here.
const SEED: u64 = 7;

fn settings() -> ServerSettings {
    ServerSettings { target: ServerTarget::managed(), cache_mb: 16, durable_commits: false, shards: None }
}

fn postgres() -> PostgresEngine {
    PostgresEngine::open(&settings()).unwrap_or_else(|e| panic!("could not start a managed PostgreSQL server: {e}"))
}

fn mariadb() -> MariaDbEngine {
    MariaDbEngine::open(&settings()).unwrap_or_else(|e| panic!("could not start a managed MariaDB server: {e}"))
}

fn run_case(workload: &dyn Workload, engine: &mut dyn Engine, strategy: &str) -> (RunResult, Option<String>) {
    let control = RunControl::new();
    let ctx = CaseContext {
        control: &control,
        timer: &MonotonicTimer::default(),
        observer: &Silent,
        counter_budget: Default::default(),
    };
    let (result, error) = workload.run_case(engine, find(strategy).unwrap(), &ctx);
    (result, error.map(|e| e.to_string()))
}

fn run(workload: &dyn Workload, engine: &mut dyn Engine, strategy: &str) -> RunResult {
    let (result, error) = run_case(workload, engine, strategy);
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

/// Remedy on one engine: the switch, then the engine's compaction with before/after figures.
fn remedy(engine: &mut dyn Engine, command: &str) {
    let workload = Remedy::new(6_000, 1_000, 50, SEED).unwrap();
    for strategy in ["uuid4", "int+uuid4"] {
        let result = run(&workload, engine, strategy);
        assert_eq!(result.verified_rows, Some(6_000), "{strategy}");
        assert_eq!(result.batches.len(), 6);
        let (v4, v7) = (phase(&result, "insert-uuid4"), phase(&result, "insert-uuid7"));
        assert_eq!((v4.rows, v7.rows), (3_000, 3_000), "{strategy}");
        assert_eq!(figure(v7, "first_batch_index"), 3.0);
        let vacuum = phase(&result, "vacuum");
        assert!(vacuum.elapsed_ns > 0);
        assert!(vacuum.note.as_deref().is_some_and(|n| n.contains(command)), "{strategy}: {:?}", vacuum.note);
        for f in [
            "size_before_bytes",
            "size_after_bytes",
            "leaf_fill_before",
            "leaf_fill_after",
            "pages_before",
            "pages_after",
            "free_space_needed_bytes",
        ] {
            assert!(figure(vacuum, f) > 0.0, "{strategy}: {f} {vacuum:?}");
        }
        for f in ["leaf_fill_before", "leaf_fill_after"] {
            assert!(figure(vacuum, f) <= 1.0, "{strategy}: {f} {vacuum:?}");
        }
        // The server engines keep no WAL file in the case's size.
        assert_eq!(figure(vacuum, "wal_growth_bytes"), 0.0);
        assert_eq!(figure(vacuum, "size_before_bytes"), figure(vacuum, "file_before_bytes"));
        assert_eq!(figure(vacuum, "free_space_needed_bytes"), figure(vacuum, "size_before_bytes"));
        // A rebuild packs the random-key trees: never much emptier, never more pages.
        assert!(figure(vacuum, "leaf_fill_after") >= figure(vacuum, "leaf_fill_before") - 0.02, "{vacuum:?}");
        assert!(figure(vacuum, "pages_after") <= figure(vacuum, "pages_before"), "{vacuum:?}");
        assert_eq!(result.size_bytes, Some(figure(vacuum, "size_after_bytes") as u64), "{strategy}");
    }
}

/// Churn on one engine, deleting by key in each of `strategies`' storages.
fn churn(engine: &mut dyn Engine, strategies: &[&str], note: &str) {
    let workload = Churn::new(3_000, 500, 50, SEED).unwrap();
    for strategy in strategies {
        // Deleted rows = asked is checked by the workload at every step (the case fails if not).
        let result = run(&workload, engine, strategy);
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
            assert!(figure(p, "leaf_fill") <= 1.0, "{strategy}: {p:?}");
        }
        for p in &result.phases[1..] {
            assert_eq!(p.rows, 1_000);
            let sum = figure(p, "delete_ms") + figure(p, "insert_ms");
            assert!((sum - p.elapsed_ns as f64 / 1e6).abs() < 1e-3, "{p:?}");
        }
        assert!(result.phases[1].note.as_deref().is_some_and(|n| n.contains(note)), "{:?}", result.phases[1].note);
        // The table holds the same rows throughout: space is reused, so it cannot keep growing
        // (allow for the fill's last half-full pages and a random tree's splits).
        let (first, last) = (figure(&result.phases[0], "leaf_pages"), figure(&result.phases[18], "leaf_pages"));
        assert!(last <= 2.0 * first, "{strategy}: leaf pages {first} → {last}");
    }
}

#[test]
fn remedy_on_postgres_runs_vacuum_full() {
    remedy(&mut postgres(), "VACUUM FULL");
}

#[test]
fn remedy_on_mariadb_runs_optimize_table() {
    remedy(&mut mariadb(), "OPTIMIZE TABLE");
}

#[test]
fn churn_on_postgres_deletes_by_key_in_every_storage() {
    let mut engine = postgres();
    let strategies = [
        "int",
        "uuid7",
        "uuid4",
        "uuid7-text",
        "uuid4-hex32",
        "uuid4-varchar36",
        "uuid1-bin-swapped",
        "uuid7+uuid4-map",
    ];
    churn(&mut engine, &strategies, "VACUUM");
    let (result, error) = run_case(&Churn::new(3_000, 500, 50, SEED).unwrap(), &mut engine, "uuid4-server");
    let error = error.expect("server-generated keys cannot be deleted by key");
    assert!(error.contains("client-generated") && !error.contains('\n'), "{error}");
    assert!(!result.complete);
}

#[test]
fn churn_on_mariadb_deletes_by_key_in_every_storage() {
    let mut engine = mariadb();
    let strategies = [
        "int",
        "uuid7",
        "uuid4",
        "uuid7-text",
        "uuid4-varhex32",
        "uuid4-mariadb-uuid",
        "uuid1-bin-swapped",
        "uuid7+uuid4-map",
    ];
    churn(&mut engine, &strategies, "innodb_max_purge_lag_wait");
}
