//! Engine tests against real SQLite: every strategy inserts a few thousand rows; the table must
//! hold exactly the generated keys, unique, and in key order where the strategy promises it.

use crate::common;

use pkbench_core::control::{MonotonicTimer, RunControl};
use pkbench_core::engines::Engine;
use pkbench_core::engines::sqlite::{SqliteEngine, SqliteSettings};
use pkbench_core::generators::Key;
use pkbench_core::keys::KeyRow;
use pkbench_core::keys::KeyStream;
use pkbench_core::results::RunResult;
use pkbench_core::strategy::{CATALOG, KeySource, SecondaryLookup, Storage, Strategy, find};
use pkbench_core::workloads::{CaseContext, InsertGrowth, Silent, Workload};
use rusqlite::types::Value;
use std::path::Path;

const ROWS: u64 = 3_000;
const BATCH: u64 = 1_000;
use common::SEED;

fn run_one(dir: &Path, strategy: &Strategy, rows: u64, batch: u64, cache_mb: u64, keep: bool) -> RunResult {
    let settings = SqliteSettings { cache_mb, keep_db: keep, ..SqliteSettings::seed_000(dir.to_path_buf()) };
    let mut engine = SqliteEngine::new(settings).unwrap();
    common::run(&mut engine, strategy, rows, batch)
}

/// A key as SQLite stores it for `storage`.
fn stored(key: Key, storage: Storage) -> Value {
    match (key, storage.text_encoding()) {
        (Key::Int(v), _) => Value::Integer(v),
        (Key::Uuid(b), Some(encoding)) => Value::Text(encoding.encode(&b, &mut [0; 36]).to_string()),
        (Key::Uuid(b), None) => Value::Blob(storage.binary_form(b).to_vec()),
    }
}

fn column(conn: &rusqlite::Connection, sql: &str) -> Vec<Value> {
    conn.prepare(sql).unwrap().query_map([], |r| r.get(0)).unwrap().collect::<Result<_, _>>().unwrap()
}

fn sort_values(v: &mut [Value]) {
    v.sort_by(|a, b| match (a, b) {
        (Value::Integer(x), Value::Integer(y)) => x.cmp(y),
        (Value::Blob(x), Value::Blob(y)) => x.cmp(y),
        (Value::Text(x), Value::Text(y)) => x.cmp(y),
        _ => panic!("mixed key types"),
    });
}

#[test]
fn every_strategy_stores_exactly_its_keys() {
    let dir = tempfile::tempdir().unwrap();
    let engine = SqliteEngine::new(SqliteSettings::seed_000(dir.path().to_path_buf())).unwrap();
    for strategy in CATALOG {
        let name = strategy.name;
        // Server-generated keys and MariaDB's UUID type are refused with a one-line reason.
        if matches!(strategy.primary.source, KeySource::Server(_)) || strategy.primary.storage == Storage::MariaDbUuid {
            let err = engine.check(strategy).unwrap_err().to_string();
            assert!(err.contains("not supported on sqlite") && !err.contains('\n'), "{name}: {err}");
            continue;
        }
        let result = run_one(dir.path(), strategy, ROWS, BATCH, 2, true);
        assert!(result.complete, "{name}");
        assert_eq!(result.verified_rows, Some(ROWS), "{name}");
        assert_eq!(result.batches.len() as u64, ROWS / BATCH, "{name}");
        assert!(result.size_bytes.unwrap() > 0, "{name}");
        for b in &result.batches {
            assert!(b.elapsed_ns > 0 && b.counters.cache_hits.unwrap() > 0, "{name}: {b:?}");
        }
        let table = result.btrees.iter().find(|b| b.name == "bench").expect("bench b-tree");
        assert!(table.leaf_pages > 0 && table.leaf_fill > 0.3 && table.leaf_fill <= 1.0, "{name}: {table:?}");

        let path = result.kept_database.as_deref().expect("kept database");
        let conn = rusqlite::Connection::open(path).unwrap();
        let mut expected = KeyStream::new(strategy, SEED);
        let rows: Vec<KeyRow> = (0..ROWS).map(|_| expected.next_row()).collect();

        // Primary keys: exactly the generated ones (or 1..=N when the engine assigns them).
        let in_key_order = column(&conn, "SELECT id FROM bench ORDER BY id");
        assert_eq!(in_key_order.len() as u64, ROWS, "{name}");
        let mut generated: Vec<Value> = match strategy.primary.source {
            KeySource::EngineAssigned => (1..=ROWS as i64).map(Value::Integer).collect(),
            KeySource::Client(_) => rows.iter().map(|r| stored(r.primary.unwrap(), strategy.primary.storage)).collect(),
            KeySource::Server(_) => unreachable!("refused above"),
        };
        if strategy.primary_is_ordered() {
            // Ordered strategies: generation order already is key order.
            assert_eq!(in_key_order, generated, "{name}: keys not stored in generation order");
        } else {
            sort_values(&mut generated);
            assert_eq!(in_key_order, generated, "{name}: stored keys differ from generated keys");
        }
        generated.dedup();
        assert_eq!(generated.len() as u64, ROWS, "{name}: duplicate keys generated");

        // External keys: exactly the generated ones, unique.
        if let Some(sec) = strategy.secondary {
            let mut ext = column(&conn, "SELECT ext_id FROM bench");
            let mut want: Vec<Value> = rows.iter().map(|r| stored(r.secondary.unwrap(), sec.storage)).collect();
            sort_values(&mut ext);
            sort_values(&mut want);
            assert_eq!(ext, want, "{name}: external keys");
            want.dedup();
            assert_eq!(want.len() as u64, ROWS, "{name}: duplicate external keys");
            if sec.lookup == SecondaryLookup::MappingTable {
                let sql = "SELECT count(*) FROM bench_map m JOIN bench b ON b.id = m.id AND b.ext_id = m.ext_id";
                let joined: i64 = conn.query_row(sql, [], |r| r.get(0)).unwrap();
                assert_eq!(joined as u64, ROWS, "{name}: mapping table");
            }
        }
        // Rowid tables keep insertion order in the rowid: ordered keys must follow it.
        let has_rowid = column(&conn, "SELECT sql FROM sqlite_schema WHERE name = 'bench'")
            .first()
            .is_some_and(|v| matches!(v, Value::Text(s) if !s.contains("WITHOUT ROWID")));
        if has_rowid && strategy.primary_is_ordered() {
            let by_rowid = column(&conn, "SELECT id FROM bench ORDER BY rowid");
            assert_eq!(by_rowid, in_key_order, "{name}: rowid order differs from key order");
        }
    }
}

#[test]
fn databases_are_removed_unless_kept() {
    let dir = tempfile::tempdir().unwrap();
    let result = run_one(dir.path(), find("uuid7").unwrap(), 2_000, 500, 2, false);
    assert!(result.kept_database.is_none());
    let left: Vec<_> = std::fs::read_dir(dir.path()).unwrap().collect();
    assert!(left.is_empty(), "files left behind: {left:?}");
}

#[test]
fn random_keys_miss_the_cache_and_write_more_pages_than_ordered_keys() {
    // 40k rows of ~70 bytes (~3 MB) against a 1 MiB cache.
    let dir = tempfile::tempdir().unwrap();
    let totals = |name: &str| {
        let r = run_one(dir.path(), find(name).unwrap(), 40_000, 10_000, 1, false);
        let c = r.total_counters();
        (c.cache_misses.unwrap(), c.pages_written.unwrap(), r)
    };
    let (int_miss, int_written, int_run) = totals("int");
    let (v7_miss, v7_written, _) = totals("uuid7");
    let (v4_miss, v4_written, v4_run) = totals("uuid4");
    assert!(
        v4_miss > 10 * (int_miss + 1) && v4_miss > 10 * (v7_miss + 1),
        "misses: int {int_miss}, uuid7 {v7_miss}, uuid4 {v4_miss}"
    );
    assert!(
        v4_written > 3 * int_written && v4_written > 3 * v7_written,
        "written: int {int_written}, uuid7 {v7_written}, uuid4 {v4_written}"
    );
    let bench = |r: &RunResult| r.btrees.iter().find(|b| b.name == "bench").unwrap().clone();
    // Appends fill leaves; random inserts leave them partly empty and scattered in the file.
    assert!(bench(&int_run).leaf_fill > 0.95, "int leaf fill {}", bench(&int_run).leaf_fill);
    assert!(bench(&v4_run).leaf_fill < bench(&int_run).leaf_fill);
    assert!(bench(&v4_run).leaf_out_of_order > 0.1, "uuid4: {:?}", bench(&v4_run));
    assert_eq!(bench(&int_run).leaf_out_of_order, 0.0, "int: {:?}", bench(&int_run));
}

#[test]
fn settings_are_applied_and_reported() {
    let dir = tempfile::tempdir().unwrap();
    let r = run_one(dir.path(), find("int").unwrap(), 100, 100, 3, false);
    let e = &r.settings.engine;
    assert_eq!(e["page_size"], "4096");
    assert_eq!(e["journal_mode"], "wal");
    assert_eq!(e["synchronous"], "2");
    assert_eq!(e["cache_size"], "-3072");
}

#[test]
fn an_existing_database_file_is_never_overwritten() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("int.sqlite"), b"precious").unwrap();
    let mut engine = SqliteEngine::new(SqliteSettings::seed_000(dir.path().to_path_buf())).unwrap();
    let workload = InsertGrowth::new(10, 10, 0, 1).unwrap();
    let control = RunControl::new();
    let ctx = CaseContext {
        control: &control,
        timer: &MonotonicTimer::default(),
        observer: &Silent,
        counter_budget: Default::default(),
    };
    let (result, error) = workload.run_case(&mut engine, find("int").unwrap(), &ctx);
    assert!(!result.complete);
    let error = error.unwrap();
    assert!(matches!(&error, pkbench_core::Error::AlreadyExists(_)), "{error:?}");
    assert!(error.to_string().contains("already exists"));
    assert_eq!(std::fs::read(dir.path().join("int.sqlite")).unwrap(), b"precious");
}

/// Cancels the run once batch `at` has committed.
struct CancelAfter<'a>(&'a RunControl, u64);

impl pkbench_core::workloads::Observer for CancelAfter<'_> {
    fn batch_done(&self, _: &str, b: &pkbench_core::results::BatchResult) {
        if b.index == self.1 {
            self.0.cancel();
        }
    }
}

#[test]
fn cancelling_keeps_completed_batches_and_removes_the_database() {
    let dir = tempfile::tempdir().unwrap();
    let mut engine = SqliteEngine::new(SqliteSettings::seed_000(dir.path().to_path_buf())).unwrap();
    let workload = InsertGrowth::new(10_000, 2_000, 10, 1).unwrap();
    let control = RunControl::new();
    let observer = CancelAfter(&control, 1);
    let ctx = CaseContext {
        control: &control,
        timer: &MonotonicTimer::default(),
        observer: &observer,
        counter_budget: Default::default(),
    };
    let (result, error) = workload.run_case(&mut engine, find("uuid4").unwrap(), &ctx);
    assert!(matches!(error, Some(pkbench_core::Error::Interrupted)), "{error:?}");
    assert_eq!(result.batches.len(), 2);
    assert!(!result.complete);
    assert!(std::fs::read_dir(dir.path()).unwrap().next().is_none(), "database left behind");
}
