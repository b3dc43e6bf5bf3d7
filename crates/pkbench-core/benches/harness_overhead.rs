//! Does pkbench's harness cost anything beside SQLite? Times the same inserts two ways, with the
//! same keys and settings:
//!
//! * **bare** — a minimal hand-written rusqlite loop: `BEGIN IMMEDIATE`, one cached prepared
//!   statement, `execute(params![…])` per row, `COMMIT`;
//! * **pkbench** — the library's SQLite engine driven by the insert-growth workload.
//!
//! Each strategy runs bare, pkbench, pkbench, bare (ABBA, so drift cancels) and the ratio of the
//! summed insert times is printed, as a Markdown table. Keys are generated before timing in both.
//!
//! `cargo bench -p pkbench-core --bench harness_overhead -- [ROWS] [BATCH] [CACHE_MB]`
//! (defaults 1000000 250000 16; synchronous=FULL, WAL, 4 KiB pages, 50-byte payload).

#![allow(clippy::unwrap_used, reason = "a benchmark unwraps what it set up: a failure there stops the benchmark")]

use pkbench_core::control::{MonotonicTimer, RunControl};
use pkbench_core::engines::sqlite::{SqliteEngine, SqliteSettings};
use pkbench_core::generators::Key;
use pkbench_core::keys::KeyStream;
use pkbench_core::strategy::find;
use pkbench_core::workloads::{CaseContext, InsertGrowth, Silent, Workload};
use rusqlite::{Connection, params};
use std::path::Path;
use std::time::{Duration, Instant};

const SEED: u64 = 42;
const PAYLOAD: usize = 50;

struct Config {
    rows: u64,
    batch: u64,
    cache_mb: u64,
}

/// The hand-written loop. `keys` is empty for `int` (SQLite assigns the rowid).
fn bare(dir: &Path, strategy: &str, keys: &[[u8; 16]], cfg: &Config) -> Duration {
    let path = dir.join(format!("bare-{strategy}.sqlite"));
    let conn = Connection::open(&path).unwrap();
    conn.execute_batch(&format!(
        "PRAGMA page_size = 4096; PRAGMA journal_mode = WAL; PRAGMA synchronous = FULL; PRAGMA cache_size = -{};",
        cfg.cache_mb * 1024
    ))
    .unwrap();
    let (create, insert) = match strategy {
        "int" => (
            "CREATE TABLE bench (id INTEGER PRIMARY KEY, payload BLOB NOT NULL)",
            "INSERT INTO bench (payload) VALUES (?1)",
        ),
        _ => (
            "CREATE TABLE bench (id BLOB NOT NULL PRIMARY KEY, payload BLOB NOT NULL) WITHOUT ROWID",
            "INSERT INTO bench (id, payload) VALUES (?1, ?2)",
        ),
    };
    conn.execute_batch(create).unwrap();
    let payload = vec![0xa5u8; PAYLOAD];
    let mut total = Duration::ZERO;
    let mut done = 0;
    while done < cfg.rows {
        let n = cfg.batch.min(cfg.rows - done) as usize;
        let start = Instant::now();
        conn.execute_batch("BEGIN IMMEDIATE").unwrap();
        {
            let mut stmt = conn.prepare_cached(insert).unwrap();
            if strategy == "int" {
                for _ in 0..n {
                    stmt.execute(params![payload]).unwrap();
                }
            } else {
                for key in &keys[done as usize..done as usize + n] {
                    stmt.execute(params![&key[..], payload]).unwrap();
                }
            }
        }
        conn.execute_batch("COMMIT").unwrap();
        total += start.elapsed();
        done += n as u64;
    }
    drop(conn);
    for suffix in ["", "-wal", "-shm"] {
        let _ = std::fs::remove_file(format!("{}{suffix}", path.display()));
    }
    total
}

/// The same inserts through pkbench's engine and workload; returns the summed batch times.
fn through_pkbench(dir: &Path, strategy: &str, cfg: &Config) -> Duration {
    let settings = SqliteSettings { cache_mb: cfg.cache_mb, ..SqliteSettings::seed_000(dir.to_path_buf()) };
    let mut engine = SqliteEngine::new(settings).unwrap();
    let workload = InsertGrowth::new(cfg.rows, cfg.batch, PAYLOAD as u64, SEED).unwrap();
    let control = RunControl::new();
    let timer = MonotonicTimer::default();
    let ctx = CaseContext { control: &control, timer: &timer, observer: &Silent, counter_budget: Default::default() };
    let (result, error) = workload.run_case(&mut engine, find(strategy).unwrap(), &ctx);
    assert!(error.is_none(), "{error:?}");
    assert_eq!(result.verified_rows, Some(cfg.rows));
    Duration::from_nanos(result.insert_ns())
}

fn main() {
    // `cargo bench` passes `--bench`; take the numeric arguments only.
    let nums: Vec<u64> = std::env::args().skip(1).filter_map(|a| a.parse().ok()).collect();
    let cfg = Config {
        rows: nums.first().copied().unwrap_or(1_000_000),
        batch: nums.get(1).copied().unwrap_or(250_000),
        cache_mb: nums.get(2).copied().unwrap_or(16),
    };
    let dir = tempfile::tempdir().unwrap();
    println!(
        "{} rows in batches of {}, a {} MiB cache, synchronous=FULL, WAL, a {PAYLOAD}-byte payload; \
         each time is the mean of two runs (bare, pkbench, pkbench, bare):\n",
        cfg.rows, cfg.batch, cfg.cache_mb
    );
    println!("| strategy | bare ms | pkbench ms | pkbench / bare |\n|---|---|---|---|");
    for strategy in ["int", "uuid7", "uuid4"] {
        // The very keys pkbench will insert.
        let mut stream = KeyStream::new(find(strategy).unwrap(), SEED);
        let keys: Vec<[u8; 16]> = if strategy == "int" {
            Vec::new()
        } else {
            (0..cfg.rows)
                .map(|_| match stream.next_row().primary {
                    Some(Key::Uuid(b)) => b,
                    other => panic!("unexpected key {other:?}"),
                })
                .collect()
        };
        let a1 = bare(dir.path(), strategy, &keys, &cfg);
        let b1 = through_pkbench(dir.path(), strategy, &cfg);
        let b2 = through_pkbench(dir.path(), strategy, &cfg);
        let a2 = bare(dir.path(), strategy, &keys, &cfg);
        let (bare_ms, pk_ms) = ((a1 + a2).as_secs_f64() * 500.0, (b1 + b2).as_secs_f64() * 500.0);
        println!("| {strategy} | {bare_ms:.0} | {pk_ms:.0} | {:.3}× |", pk_ms / bare_ms);
    }
}
