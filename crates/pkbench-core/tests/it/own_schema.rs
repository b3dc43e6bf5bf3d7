//! `run --schema` on SQLite and on managed PostgreSQL and MariaDB servers the tests start
//! themselves: issue 18's test schema (plans → accounts with three secondary indexes, one
//! composite, TEXT and JSON columns with NULLs → orders) for int, uuid7, uuid4 and uuid4-text;
//! every row counted and every foreign key resolved by the workload itself, every index
//! measured; InnoDB's secondary indexes carry the key and PostgreSQL's do not; recent reads miss
//! the cache far more with uuid4 than with uuid7. A missing server binary fails the test.

use crate::common;

use pkbench_core::engines::Engine;
use pkbench_core::engines::EngineKind;
use pkbench_core::engines::sqlite::{SqliteEngine, SqliteSettings};
use pkbench_core::results::RunResult;
use pkbench_core::schema::parse;
use pkbench_core::strategy::find;
use pkbench_core::values::Sidecar;
use pkbench_core::workloads::{FkLocality, OwnSchema, ReadLocality, SchemaSizes};

const SCHEMA: &str = include_str!("../fixtures/schema/plans_accounts_orders.pg.sql");
/// NULLs in the TEXT and JSON columns.
const VALUES: &str = "[accounts.name]\nnulls = 0.2\n[accounts.profile]\nnulls = 0.3\n";
const STRATEGIES: [&str; 4] = ["int", "uuid7", "uuid4", "uuid4-text"];
/// A second key beside the key: an integer key and a UUID column with a unique index, which the
/// reads look rows up by.
const SECOND_KEY: &str = "int+uuid4";
const PARENT_ROWS: u64 = 50;

/// The strategy whose tables the test schema's runs rebuild once measured.
const REBUILT: &str = "uuid4";

fn workload(engine: EngineKind, rows: u64, children: u64, reads: u64) -> OwnSchema {
    let schema = parse(SCHEMA, Some(engine)).unwrap();
    let sizes = SchemaSizes {
        rows,
        batch_rows: rows / 4,
        parent_rows: PARENT_ROWS,
        children_per_row: children,
        fk_locality: FkLocality::Uniform,
        read_locality: ReadLocality::Recent,
        reads,
        rebuild: Some(REBUILT.into()),
    };
    OwnSchema::new(&schema, Some("accounts"), Some(&Sidecar::parse(VALUES).unwrap()), sizes, 7, "test.sql").unwrap()
}

fn run(workload: &OwnSchema, engine: &mut dyn Engine, strategy: &str) -> RunResult {
    common::run_workload(workload, engine, find(strategy).unwrap())
}

/// What every engine's run must show: every step, every table's rows, every index measured.
fn check(result: &RunResult, strategy: &str, rows: u64, children: u64) {
    let names: Vec<&str> = result.phases.iter().map(|p| p.name.as_str()).collect();
    let mut expected = vec![
        "fill-parents",
        "read-by-key",
        "read-by-accounts_email",
        "read-by-accounts_country_created",
        "read-by-accounts_created",
        "children-of-accounts-in-orders",
        "verify",
    ];
    if strategy == REBUILT {
        expected.push("rebuild");
        // Rebuilt once measured, as the remedy workload compacts: timed, every row, sizes.
        let r = &result.phases[7];
        assert!(r.elapsed_ns > 0 && Some(r.rows) == result.verified_rows, "{strategy}: {r:?}");
        assert_eq!(r.figures["size_before_bytes"], result.size_bytes.unwrap() as f64, "{strategy}");
        assert!(r.figures["size_after_bytes"] > 0.0, "{strategy}: {r:?}");
        assert!(["VACUUM", "OPTIMIZE TABLE"].iter().any(|c| r.note.as_deref().unwrap().contains(c)), "{r:?}");
    }
    assert_eq!(names, expected, "{strategy}");
    assert_eq!(result.verified_rows, Some(PARENT_ROWS + rows + rows * children), "{strategy}");
    let layout = match result.engine.as_str() {
        "sqlite" if strategy.starts_with("int") => "; SQLite rowid table whose rowid is the integer key",
        "sqlite" => "; SQLite WITHOUT ROWID table",
        "postgres" => "; PostgreSQL heap table",
        _ => "; InnoDB table clustered by the primary key",
    };
    assert!(result.strategy_description.contains(layout), "{strategy}: {}", result.strategy_description);
    let verify = &result.phases[6];
    for (table, n) in [("plans", PARENT_ROWS), ("accounts", rows), ("orders", rows * children)] {
        assert_eq!(verify.figures[&format!("rows.{table}")], n as f64, "{strategy}: {table}");
    }
    assert!(verify.note.as_deref().unwrap().contains("each of 2 foreign keys resolves"), "{strategy}");
    assert_eq!(result.batches.len(), 4, "{strategy}");
    assert_eq!(result.rows_inserted(), rows, "{strategy}");
    for p in &result.phases[1..6] {
        assert!(p.operations > 0 && p.rows >= p.operations / 2, "{strategy}: {p:?}");
        assert!(p.latency.is_some(), "{strategy}: {}", p.name);
        assert!(p.figures.contains_key("cache_hit_ratio"), "{strategy}: {}", p.name);
    }
    // Each account was read by key once per read.
    assert_eq!(result.phases[1].rows, result.phases[1].operations, "{strategy}");
    if strategy == SECOND_KEY {
        assert!(result.phases[1].note.as_deref().unwrap().contains("by its second key (ext_id)"), "{strategy}");
        let ext = result.btrees.iter().find(|b| b.name == "accounts.accounts_ext_id_key");
        assert!(ext.is_some_and(|b| b.leaf_pages > 0 && b.key_share.is_some()), "{strategy}: {:?}", result.btrees);
    }
    for tree in [
        "accounts",
        "orders",
        "accounts.accounts_email",
        "accounts.accounts_country_created",
        "accounts.accounts_created",
        "orders.orders_account",
    ] {
        let b = result.btrees.iter().find(|b| b.name == tree);
        assert!(b.is_some_and(|b| b.leaf_pages > 0), "{strategy}: no B-tree {tree} in {:?}", result.btrees);
    }
}

fn misses_per_read(result: &RunResult) -> f64 {
    result.phases.iter().find(|p| p.name == "read-by-key").unwrap().figures["cache_misses_per_read"]
}

#[test]
fn the_test_schema_runs_on_sqlite_for_every_strategy() {
    let dir = tempfile::tempdir().unwrap();
    let w = workload(EngineKind::Sqlite, 2_000, 2, 300);
    let mut engine =
        SqliteEngine::new(SqliteSettings { cache_mb: 2, ..SqliteSettings::seed_000(dir.path().into()) }).unwrap();
    for s in STRATEGIES.into_iter().chain([SECOND_KEY]) {
        check(&run(&w, &mut engine, s), s, 2_000, 2);
    }
}

#[test]
fn recent_reads_miss_the_cache_with_uuid4_far_more_than_with_uuid7() {
    let dir = tempfile::tempdir().unwrap();
    // A 1 MiB cache against a table of several MiB.
    let w = workload(EngineKind::Sqlite, 20_000, 0, 2_000);
    let mut engine =
        SqliteEngine::new(SqliteSettings { cache_mb: 1, ..SqliteSettings::seed_000(dir.path().into()) }).unwrap();
    let uuid7 = misses_per_read(&run(&w, &mut engine, "uuid7"));
    let uuid4 = misses_per_read(&run(&w, &mut engine, "uuid4"));
    assert!(uuid4 > 5.0 * uuid7.max(0.01), "misses per recent read: uuid4 {uuid4}, uuid7 {uuid7}");
}

/// A unique index that leads with a timestamp: every row's value is a valid, distinct
/// timestamp (whole seconds apart, so a column without fractional seconds keeps them apart too).
const EVENTS: &str = "CREATE TABLE events (id bigint PRIMARY KEY, happened_at timestamp NOT NULL, note text);\n\
                      CREATE UNIQUE INDEX events_happened ON events (happened_at, note);\n";
const EVENT_ROWS: u64 = 3_000;

fn events(engine: EngineKind) -> OwnSchema {
    let schema = parse(EVENTS, Some(engine)).unwrap();
    let sizes = SchemaSizes {
        rows: EVENT_ROWS,
        batch_rows: 1_000,
        parent_rows: 1,
        children_per_row: 0,
        fk_locality: FkLocality::Uniform,
        read_locality: ReadLocality::Recent,
        reads: 100,
        rebuild: None,
    };
    OwnSchema::new(&schema, Some("events"), None, sizes, 7, "events.sql").unwrap()
}

#[test]
fn a_unique_timestamp_gets_valid_distinct_timestamps_on_sqlite() {
    let dir = tempfile::tempdir().unwrap();
    let mut engine =
        SqliteEngine::new(SqliteSettings { keep_db: true, ..SqliteSettings::seed_000(dir.path().into()) }).unwrap();
    for strategy in ["int", "uuid4"] {
        let result = run(&events(EngineKind::Sqlite), &mut engine, strategy);
        assert_eq!(result.verified_rows, Some(EVENT_ROWS), "{strategy}");
        let db = rusqlite::Connection::open(result.kept_database.as_deref().expect("the database is kept")).unwrap();
        let (rows, distinct, valid): (i64, i64, i64) = db
            .query_row(
                "SELECT count(*), count(DISTINCT happened_at), \
                 count(*) FILTER (WHERE datetime(happened_at) IS NOT NULL AND happened_at >= '1970') FROM events",
                [],
                |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)),
            )
            .unwrap();
        let n = EVENT_ROWS as i64;
        assert_eq!((rows, distinct, valid), (n, n, n), "{strategy}");
    }
}

/// Rows of the page-model tests (`PKBENCH_SCHEMA_MODEL_ROWS`, default 100k).
fn model_rows() -> u64 {
    std::env::var("PKBENCH_SCHEMA_MODEL_ROWS").ok().and_then(|v| v.parse().ok()).unwrap_or(100_000)
}

/// `predict --schema`'s model of `kind` against the real trees: every tree of the key table
/// within 10% of its real leaf pages, and no real tree of the key table left out.
fn the_page_model_matches(kind: EngineKind, engine: &mut dyn Engine, strategies: &[&str]) -> Vec<RunResult> {
    let w = workload(kind, model_rows(), 0, 0);
    let mut runs = Vec::new();
    for &s in strategies {
        let real = run(&w, engine, s);
        let predicted = pkbench_core::predict::predict_schema(&w, find(s).unwrap(), kind, 4096).unwrap();
        let key_table: Vec<&str> = real
            .btrees
            .iter()
            .map(|b| b.name.as_str())
            .filter(|n| *n == "accounts" || n.starts_with("accounts."))
            .collect();
        let mut names: Vec<&str> = predicted.iter().map(|p| p.name.as_str()).collect();
        names.sort_unstable();
        let mut real_names = key_table.clone();
        real_names.sort_unstable();
        assert_eq!(names, real_names, "{s}: the model's trees against the real ones");
        for p in &predicted {
            let r = real.btrees.iter().find(|b| b.name == p.name).unwrap();
            let error = p.leaf_pages as f64 / r.leaf_pages as f64 - 1.0;
            println!(
                "{} {s} {}: predicted {} leaves, real {} ({:+.1}%)",
                kind.name(),
                p.name,
                p.leaf_pages,
                r.leaf_pages,
                error * 100.0
            );
            assert!(
                error.abs() <= 0.10,
                "{} {s} {}: predicted {} leaf pages, real {}",
                kind.name(),
                p.name,
                p.leaf_pages,
                r.leaf_pages
            );
        }
        runs.push(real);
    }
    runs
}

#[test]
fn the_sqlite_page_model_matches_every_tree_of_the_key_table() {
    let dir = tempfile::tempdir().unwrap();
    let mut engine = SqliteEngine::new(SqliteSettings::seed_000(dir.path().into())).unwrap();
    let runs =
        the_page_model_matches(EngineKind::Sqlite, &mut engine, &["int", "uuid7", "uuid4", "uuid4-text", SECOND_KEY]);
    // SQLite counts cache misses per connection, not per tree.
    assert!(runs.iter().flat_map(|r| &r.btrees).all(|b| b.misses_per_1k_rows.is_none()));
}

/// The same schema on managed PostgreSQL and MariaDB servers (tier two).
#[cfg(feature = "server-tests")]
mod servers {
    use super::*;
    use pkbench_core::engines::mariadb::MariaDbEngine;
    use pkbench_core::engines::postgres::PostgresEngine;
    use pkbench_core::engines::server::{ServerSettings, ServerTarget};

    /// Bytes of the key table's secondary indexes.
    fn secondary_bytes(result: &RunResult) -> u64 {
        let indexes = ["accounts.accounts_email", "accounts.accounts_country_created", "accounts.accounts_created"];
        result.btrees.iter().filter(|b| indexes.contains(&b.name.as_str())).map(|b| b.size_bytes).sum()
    }

    fn server_settings() -> ServerSettings {
        ServerSettings { target: ServerTarget::managed(), cache_mb: 8, durable_commits: false, shards: None }
    }

    #[test]
    fn the_test_schema_runs_on_postgres_for_every_strategy() {
        let mut engine = PostgresEngine::open(&server_settings()).expect("could not start a managed PostgreSQL server");
        let w = workload(EngineKind::Postgres, 2_000, 2, 300);
        for s in STRATEGIES.into_iter().chain([SECOND_KEY]) {
            check(&run(&w, &mut engine, s), s, 2_000, 2);
        }
        // PostgreSQL's secondary indexes point at heap tuples: the key is not in them.
        let w = workload(EngineKind::Postgres, 20_000, 0, 0);
        let sizes: Vec<u64> =
            ["int", "uuid4", "uuid4-text"].iter().map(|s| secondary_bytes(&run(&w, &mut engine, s))).collect();
        let (lo, hi) = (*sizes.iter().min().unwrap() as f64, *sizes.iter().max().unwrap() as f64);
        assert!(hi / lo < 1.05, "PostgreSQL's secondary indexes should not depend on the key: {sizes:?}");
    }

    /// The servers refuse a value that is not a timestamp and a duplicate in the unique
    /// index: every row verified means every value was valid and distinct.
    #[test]
    fn a_unique_timestamp_gets_valid_distinct_timestamps_on_the_servers() {
        let mut pg = PostgresEngine::open(&server_settings()).expect("could not start a managed PostgreSQL server");
        let mut maria = MariaDbEngine::open(&server_settings()).expect("could not start a managed MariaDB server");
        for (kind, engine) in [(EngineKind::Postgres, &mut pg as &mut dyn Engine), (EngineKind::MariaDb, &mut maria)] {
            for strategy in ["int", "uuid7"] {
                let result = run(&events(kind), engine, strategy);
                assert_eq!(result.verified_rows, Some(EVENT_ROWS), "{kind:?} {strategy}");
            }
        }
    }

    #[test]
    fn the_test_schema_runs_on_mariadb_for_every_strategy() {
        let mut engine = MariaDbEngine::open(&server_settings()).expect("could not start a managed MariaDB server");
        let w = workload(EngineKind::MariaDb, 2_000, 2, 300);
        for s in STRATEGIES.into_iter().chain([SECOND_KEY]) {
            check(&run(&w, &mut engine, s), s, 2_000, 2);
        }
        // Every InnoDB secondary index entry carries the primary key.
        let w = workload(EngineKind::MariaDb, 20_000, 0, 0);
        let [int, uuid4, text] = ["int", "uuid4", "uuid4-text"].map(|s| secondary_bytes(&run(&w, &mut engine, s)));
        assert!(
            text > uuid4 && uuid4 > int,
            "InnoDB's secondary indexes carry the key: int {int}, uuid4 {uuid4}, uuid4-text {text}"
        );
    }

    #[test]
    fn the_postgres_page_model_matches_every_tree_of_the_key_table() {
        let mut engine = PostgresEngine::open(&server_settings()).expect("could not start a managed PostgreSQL server");
        let runs = the_page_model_matches(
            EngineKind::Postgres,
            &mut engine,
            &["int", "uuid7", "uuid4", "uuid4-text", SECOND_KEY],
        );
        // Per-tree cache misses: every tree of the key table has them, and the random key's own
        // index misses far more than the ordered key's (8 MiB of shared buffers).
        let pkey = |r: &RunResult| {
            let b = r.btrees.iter().find(|b| b.name == "accounts.accounts_pkey").unwrap();
            b.misses_per_1k_rows.unwrap()
        };
        for r in &runs {
            for b in r.btrees.iter().filter(|b| b.name.starts_with("accounts")) {
                assert!(b.misses_per_1k_rows.is_some(), "{}: {} has no misses", r.strategy, b.name);
            }
        }
        let (int, uuid4) = (pkey(&runs[0]), pkey(&runs[2]));
        println!("accounts_pkey misses per 1k rows: int {int:.1}, uuid4 {uuid4:.1}");
        assert!(uuid4 > 5.0 * int.max(1.0), "accounts_pkey misses per 1k rows: int {int}, uuid4 {uuid4}");
        // And index pages modified per batch: every index has them, the random key's several times
        // more (each 25k-row batch of uuid4 modifies most of the index's pages).
        let touched = |r: &RunResult, name: &str| {
            let b = r.btrees.iter().find(|b| b.name == name).unwrap();
            b.index_blocks_touched_per_1k_rows.unwrap_or_else(|| panic!("{}: {name} has no pages touched", r.strategy))
        };
        for r in &runs {
            for b in r.btrees.iter().filter(|b| b.name.starts_with("accounts.")) {
                touched(r, &b.name);
            }
        }
        let (int, uuid4) = (touched(&runs[0], "accounts.accounts_pkey"), touched(&runs[2], "accounts.accounts_pkey"));
        println!("accounts_pkey pages touched per 1k rows: int {int:.1}, uuid4 {uuid4:.1}");
        assert!(uuid4 > 3.0 * int.max(1.0), "accounts_pkey pages touched per 1k rows: int {int}, uuid4 {uuid4}");
    }

    #[test]
    fn the_innodb_page_model_matches_every_tree_of_the_key_table() {
        let mut engine = MariaDbEngine::open(&server_settings()).expect("could not start a managed MariaDB server");
        let runs = the_page_model_matches(
            EngineKind::MariaDb,
            &mut engine,
            &["int", "uuid7", "uuid4", "uuid4-text", SECOND_KEY],
        );
        // InnoDB counts buffer pool reads per server, not per index.
        assert!(runs.iter().flat_map(|r| &r.btrees).all(|b| b.misses_per_1k_rows.is_none()));
    }
}
