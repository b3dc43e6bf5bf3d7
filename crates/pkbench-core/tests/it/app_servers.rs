//! The app workload on managed PostgreSQL and MariaDB servers started by the tests themselves,
//! with small sizes: every step measured, and its rows consistent with the others (as
//! `workloads_sqlite.rs` checks on SQLite). A missing server binary fails the test.

use pkbench_core::control::{MonotonicTimer, RunControl};
use pkbench_core::engines::Engine;
use pkbench_core::engines::mariadb::MariaDbEngine;
use pkbench_core::engines::postgres::PostgresEngine;
use pkbench_core::engines::server::{ServerSettings, ServerTarget};
use pkbench_core::results::{PhaseResult, RunResult};
use pkbench_core::strategy::find;
use pkbench_core::workloads::{App, CaseContext, PAGE_ROWS, Silent, Workload};

const SEED: u64 = 7;
const USERS: u64 = 2_000;
const PER_USER: u64 = 3;
/// The strategies both servers must run.
const STRATEGIES: [&str; 6] = ["int", "uuid4", "uuid7", "int+uuid4", "uuid4-text", "uuid7+uuid4-map"];

fn settings() -> ServerSettings {
    ServerSettings { target: ServerTarget::managed(), cache_mb: 16, durable_commits: false, shards: None }
}

fn run(engine: &mut dyn Engine, strategy: &str) -> RunResult {
    let workload = App::new(USERS, PER_USER, 1_000, SEED).unwrap();
    let control = RunControl::new();
    let ctx = CaseContext {
        control: &control,
        timer: &MonotonicTimer::default(),
        observer: &Silent,
        counter_budget: Default::default(),
    };
    let (result, error) = workload.run_case(engine, find(strategy).unwrap(), &ctx);
    assert!(error.is_none(), "{strategy}: {error:?}");
    assert!(result.complete && result.error.is_none(), "{strategy}");
    result
}

fn phase<'a>(result: &'a RunResult, name: &str) -> &'a PhaseResult {
    result.phases.iter().find(|p| p.name == name).unwrap_or_else(|| panic!("no phase {name}"))
}

fn figure(p: &PhaseResult, name: &str) -> f64 {
    *p.figures.get(name).unwrap_or_else(|| panic!("{}: no figure {name}", p.name))
}

/// The checks of the SQLite app test that do not depend on the engine.
fn check(result: &RunResult, strategy: &str) {
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
    let load = phase(result, "load");
    assert_eq!(load.rows, USERS + USERS * PER_USER);
    assert!(figure(load, "users_per_s") > 0.0 && figure(load, "orders_per_s") > 0.0);
    assert!(figure(load, "size_after_load_bytes") > 0.0, "{strategy}");
    let mean_age = (1..=USERS).map(|n| (18 + (n * 37) % 63) as f64).sum::<f64>() / USERS as f64;
    assert!((figure(phase(result, "avg-age"), "avg_age_years") - mean_age).abs() < 1e-9, "{strategy}: avg-age exact");
    let select = phase(result, "point-select");
    assert_eq!(select.rows, select.operations, "{strategy}: every public id is found");
    let join = phase(result, "join-page");
    // 200 pages of 50 cover more than the orders: every order is read once, in full pages.
    let pages_rows = join.operations * u64::from(PAGE_ROWS);
    assert!(pages_rows > USERS * PER_USER);
    assert_eq!(join.rows, USERS * PER_USER, "{strategy}: rows read = page size × full pages = orders");
    let orders = phase(result, "orders-of-user");
    assert_eq!(orders.rows, orders.operations * PER_USER, "{strategy}: orders read = orders per user × lookups");
    let crud = phase(result, "mixed-crud");
    assert_eq!(crud.rows, crud.operations, "{strategy}: every CRUD operation touched one row");
    // Users plus orders, after CRUD added 20 and deleted 10 orders per iteration.
    let iterations = figure(crud, "iterations") as u64;
    assert_eq!(result.verified_rows, Some(USERS + USERS * PER_USER + 10 * iterations), "{strategy}");
    assert!(result.size_bytes.unwrap() > 0, "{strategy}");
    assert!(!result.btrees.is_empty(), "{strategy}: no B-tree statistics");
}

#[test]
fn app_runs_and_adds_up_on_postgres() {
    let mut engine = PostgresEngine::open(&settings())
        .unwrap_or_else(|e| panic!("could not start a managed PostgreSQL server: {e}"));
    for strategy in STRATEGIES.into_iter().chain(["uuid4-server", "uuid4-rowid"]) {
        let result = run(&mut engine, strategy);
        check(&result, strategy);
        assert_eq!(result.settings.engine["synchronous_commit"], "off");
        assert!(phase(&result, "load").counters.wal_bytes.unwrap_or(0) > 0, "{strategy}");
    }
    // Every table was dropped after its case: a second run of a strategy starts afresh.
    check(&run(&mut engine, "int"), "int");
}

#[test]
fn app_runs_and_adds_up_on_mariadb() {
    let mut engine =
        MariaDbEngine::open(&settings()).unwrap_or_else(|e| panic!("could not start a managed MariaDB server: {e}"));
    for strategy in STRATEGIES.into_iter().chain(["uuid1-server", "uuid4-mariadb-uuid"]) {
        let result = run(&mut engine, strategy);
        check(&result, strategy);
        assert!(result.settings.engine.contains_key("innodb_buffer_pool_size"));
    }
    check(&run(&mut engine, "int"), "int");
    let workload = App::new(USERS, PER_USER, 1_000, SEED).unwrap();
    let control = RunControl::new();
    let ctx = CaseContext {
        control: &control,
        timer: &MonotonicTimer::default(),
        observer: &Silent,
        counter_budget: Default::default(),
    };
    let (_, error) = workload.run_case(&mut engine, find("uuid4-rowid").unwrap(), &ctx);
    let error = error.expect("InnoDB has no rowid tables").to_string();
    assert!(error.contains("InnoDB always clusters") && !error.contains('\n'), "{error}");
}

/// Replaces each `?` of `sql` with the next literal.
fn with_literals(sql: &str, literals: &[&str]) -> String {
    let mut parts = sql.split('?');
    let mut out = parts.next().unwrap_or_default().to_string();
    for (part, literal) in parts.zip(literals.iter().cycle()) {
        out.push_str(literal);
        out.push_str(part);
    }
    out
}

#[test]
fn keyset_pages_need_no_sort_on_mariadb() {
    use mysql::prelude::Queryable;
    let server = pkbench_core::engines::mariadb::ManagedMariaDb::start(&Default::default(), 16, false)
        .unwrap_or_else(|e| panic!("could not start a managed MariaDB server: {e}"));
    let mut conn = mysql::Conn::new(server.opts()).unwrap();
    conn.query_drop("CREATE DATABASE plan").unwrap();
    conn.query_drop("USE plan").unwrap();
    for (strategy, id, user, after) in [
        ("int", "", "", ["100", "100", "5", "50"]),
        ("uuid4", "UNHEX(MD5(seq)), ", "UNHEX(MD5(CONCAT('o', u.id, s.seq))), ", ["X'80'", "X'80'", "X'80'", "50"]),
    ] {
        let sql = pkbench_core::engines::mariadb::render_app_schema(find(strategy).unwrap(), "plan").unwrap();
        for stmt in &sql.create {
            conn.query_drop(stmt).unwrap();
        }
        let cols = if id.is_empty() { "" } else { "id, " };
        conn.query_drop(format!(
            "INSERT INTO plan.users ({cols}name, email, age, created_at) SELECT {id}CONCAT('user', seq), 'e', 30, seq FROM seq_1_to_20000"
        ))
        .unwrap();
        conn.query_drop(format!(
            "INSERT INTO plan.orders ({cols}user_id, amount, created_at) SELECT {user}u.id, s.seq, s.seq FROM plan.users u JOIN seq_1_to_5 s"
        ))
        .unwrap();
        conn.query_drop("ANALYZE TABLE plan.users, plan.orders").unwrap();
        for query in [with_literals(&sql.join_first, &["50"]), with_literals(&sql.join_next, &after)] {
            let plan: Vec<mysql::Row> = conn.query(format!("EXPLAIN {query}")).unwrap();
            let extra: Vec<String> = plan
                .iter()
                .map(|r| r.get_opt::<Option<String>, _>("Extra").and_then(Result::ok).flatten().unwrap_or_default())
                .collect();
            assert!(
                !extra.iter().any(|e| e.contains("temporary") || e.contains("filesort")),
                "{strategy}: {query}: {extra:?}"
            );
            let keys: Vec<String> = plan
                .iter()
                .map(|r| r.get_opt::<Option<String>, _>("key").and_then(Result::ok).flatten().unwrap_or_default())
                .collect();
            assert_eq!(keys[0], "orders_user_id", "{strategy}: {query}: orders lead through the join index");
        }
        conn.query_drop("DROP TABLE plan.orders, plan.users").unwrap();
    }
}

#[test]
fn keyset_pages_need_no_sort_on_postgres() {
    let server = pkbench_core::engines::postgres::ManagedPostgres::start(&Default::default(), 16)
        .unwrap_or_else(|e| panic!("could not start a managed PostgreSQL server: {e}"));
    let mut client = server.config().connect(postgres::NoTls).unwrap();
    client.batch_execute("CREATE SCHEMA plan").unwrap();
    for (strategy, id, user, after) in [
        ("int", "", "", ["100", "5"]),
        (
            "uuid4",
            "md5(n::text)::uuid, ",
            "md5('o' || u.id::text || s)::uuid, ",
            ["'8000abcd-0000-4000-8000-000000000000'"; 2],
        ),
    ] {
        let sql = pkbench_core::engines::postgres::render_app_schema(find(strategy).unwrap(), "plan").unwrap();
        for stmt in &sql.create {
            client.batch_execute(stmt).unwrap();
        }
        let cols = if id.is_empty() { "" } else { "id, " };
        client
            .batch_execute(&format!(
                "INSERT INTO plan.users ({cols}name, email, age, created_at) SELECT {id}'user' || n, 'e', 30, n FROM generate_series(1, 20000) n; \
                 INSERT INTO plan.orders ({cols}user_id, amount, created_at) SELECT {user}u.id, s, s FROM plan.users u, generate_series(1, 5) s; \
                 ANALYZE plan.users; ANALYZE plan.orders"
            ))
            .unwrap();
        let limit = "50";
        let next = sql.join_next.replace("$1", after[0]).replace("$2", after[1]).replace("$3", limit);
        for query in [sql.join_first.replace("$1", limit), next] {
            let plan: Vec<String> =
                client.query(&format!("EXPLAIN {query}"), &[]).unwrap().iter().map(|r| r.get(0)).collect();
            assert!(!plan.iter().any(|line| line.contains("Sort")), "{strategy}: {query}: {plan:#?}");
            assert!(plan.iter().any(|line| line.contains("orders_user_id")), "{strategy}: {query}: {plan:#?}");
        }
        client.batch_execute("DROP TABLE plan.orders, plan.users").unwrap();
    }
}
