//! Public sample schemas, as their own dump tools write them, run on each engine they are
//! written for: every row verified by the run, the values valid for their types (the servers
//! run in strict mode and refuse any that is not), and the changes pkbench makes to the user's
//! tables said before the run and kept in each case's settings.

use assert_cmd::Command;
use predicates::str::contains;

const PUBLIC: &str = "../pkbench-core/tests/fixtures/schema/public";

fn run_public(file: &str, engine: &str, table: &str) {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("r");
    Command::cargo_bin("pkbench")
        .unwrap()
        .args(["run", "--engine", engine, "--schema", &format!("{PUBLIC}/{file}"), "--table", table])
        .args(["-s", "int,uuid4", "-n", "1k", "-b", "500", "--parent-rows", "50", "--reads", "50", "--quiet", "-o"])
        .arg(&out)
        .assert()
        .success()
        .stderr(contains("Your tables on "))
        .stderr(contains("(the strategy's key)"));
    let doc: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(out.join("results.json")).unwrap()).unwrap();
    let runs = doc["runs"].as_array().unwrap();
    assert_eq!(runs.len(), 2, "{file} on {engine}");
    for run in runs {
        assert_eq!(run["complete"], true, "{file} on {engine}: {run}");
        assert!(run["verified_rows"].as_u64().unwrap() >= 1_000, "{file} on {engine}");
        let changes = run["settings"]["workload_options"]["changes"].as_str().unwrap();
        assert!(changes.contains(&format!("{table}.")) && changes.contains("(the strategy's key)"), "{changes}");
    }
}

#[test]
fn sakila_runs_on_mariadb_keyed_at_rental() {
    run_public("sakila.mariadb.sql", "mariadb", "rental");
}

#[test]
fn employees_runs_on_mariadb() {
    run_public("employees.mariadb.sql", "mariadb", "employees");
}

#[test]
fn chinook_runs_on_each_engine_it_is_written_for() {
    run_public("chinook.mariadb.sql", "mariadb", "Track");
    run_public("chinook.postgres.sql", "postgres", "track");
    run_public("chinook.sqlite.sql", "sqlite", "Track");
}

#[test]
fn northwind_runs_on_postgres_keyed_at_orders() {
    run_public("northwind.postgres.sql", "postgres", "orders");
}
