//! The PostgreSQL and InnoDB models on their own (no server): the split rule and the cache show
//! in the numbers, so a wrong rule fails here before any comparison with a real server.

use pkbench_core::control::RunControl;
use pkbench_core::predict::{Mode, ModelEngine, PredictConfig, predict_engine};
use pkbench_core::results::{BtreeStats, Counters, RunResult};
use pkbench_core::strategy::find;

fn run(engine: ModelEngine, name: &str, rows: u64, cache_mb: u64) -> RunResult {
    let config = PredictConfig {
        rows,
        batch_rows: rows / 5,
        payload_bytes: 50,
        seed: 3,
        page_size: engine.fixed_page_size().unwrap_or(4096),
        cache_mb,
        mode: Mode::Exact,
        scale: 1,
    };
    let r = predict_engine(engine, find(name).unwrap(), &config, None, &RunControl::new(), &mut |_| {}).unwrap();
    assert_eq!(r.verified_rows, Some(rows), "{name}");
    r
}

fn tree<'a>(r: &'a RunResult, name: &str) -> &'a BtreeStats {
    r.btrees.iter().find(|b| b.name == name).unwrap_or_else(|| panic!("no {name} in {:?}", r.btrees))
}

fn total(r: &RunResult, f: fn(&Counters) -> Option<u64>) -> u64 {
    r.batches.iter().map(|b| f(&b.counters).unwrap()).sum()
}

/// Random keys split pages in two at arbitrary points, so leaves settle near ln 2 ≈ 69% full
/// (Yao's result for random insertions with 50:50 splits). The band, 0.63–0.75, leaves room
/// for the "waves" of a young tree (leaves created together fill and split together, so the
/// average swings a few points around ln 2 as the tree grows: 0.657 for InnoDB's uuid4 at
/// 200k rows here, 0.663 on the real server with another seed), and still fails a rule that
/// splits unevenly (the 90% rightmost rule everywhere gives ~0.8 and more) or redistributes
/// among siblings as SQLite does (~0.88).
const RANDOM_FILL: std::ops::Range<f64> = 0.63..0.75;

#[test]
fn postgres_leaves_follow_nbtree_split_rules() {
    let random = run(ModelEngine::Postgres, "uuid4", 200_000, 1024);
    let fill = tree(&random, "bench_pkey").leaf_fill;
    assert!(RANDOM_FILL.contains(&fill), "uuid4 bench_pkey fill {fill}");
    assert!(tree(&random, "bench_pkey").leaf_out_of_order > 0.3);
    // Appends split the rightmost leaf at the 90% leaf fillfactor (BTREE_DEFAULT_FILLFACTOR).
    for name in ["int", "uuid7"] {
        let seq = run(ModelEngine::Postgres, name, 200_000, 1024);
        let pk = tree(&seq, "bench_pkey");
        assert!((0.88..0.92).contains(&pk.leaf_fill), "{name}: {pk:?}");
        assert_eq!(pk.leaf_out_of_order, 0.0, "{name}");
        // The heap is filled page by page: 88 rows of 92 bytes per 8 KiB page for int.
        assert!(tree(&seq, "bench").leaf_fill > 0.98, "{name}: {:?}", seq.btrees);
    }
    let heap = tree(&run(ModelEngine::Postgres, "int", 88_000, 1024), "bench").leaf_pages;
    assert_eq!(heap, 1000);
}

#[test]
fn innodb_leaves_follow_btr_page_split_and_insert() {
    let random = run(ModelEngine::MariaDb, "uuid4", 200_000, 1024);
    let fill = tree(&random, "PRIMARY").leaf_fill;
    assert!(RANDOM_FILL.contains(&fill), "uuid4 PRIMARY fill {fill}");
    // Appends split at the insert point and leave 1/16 of each clustered leaf free.
    for name in ["int", "uuid7"] {
        let seq = run(ModelEngine::MariaDb, name, 200_000, 1024);
        let pk = tree(&seq, "PRIMARY");
        assert!((0.92..0.95).contains(&pk.leaf_fill), "{name}: {pk:?}");
    }
    // A secondary index gets no reserve: random external keys settle near ln 2 too.
    let dual = run(ModelEngine::MariaDb, "int+uuid4", 200_000, 1024);
    assert!(RANDOM_FILL.contains(&tree(&dual, "ext_id").leaf_fill), "{:?}", dual.btrees);
    assert!(tree(&dual, "PRIMARY").leaf_fill > 0.92, "{:?}", dual.btrees);
}

#[test]
fn random_keys_miss_a_small_cache_and_not_a_large_one() {
    // 1 MiB of shared buffers (128 pages); InnoDB's smallest pool, 6 MiB (284 LRU pages): far
    // below uuid4's ~1,000 index leaves (PostgreSQL) or ~1,600 clustered leaves (InnoDB).
    for (engine, small_mb) in [(ModelEngine::Postgres, 1), (ModelEngine::MariaDb, 6)] {
        let small = run(engine, "uuid4", 200_000, small_mb);
        let large = run(engine, "uuid4", 200_000, 1024);
        let seq = run(engine, "int", 200_000, small_mb);
        let pages = |r: &RunResult| r.btrees.iter().map(|b| b.pages).sum::<u64>();
        let (s, l, q) =
            (total(&small, |c| c.cache_misses), total(&large, |c| c.cache_misses), total(&seq, |c| c.cache_misses));
        match engine {
            // PostgreSQL counts the zero-filled page of every relation extension as a read
            // (ReadBufferExtended): with room for everything, reads are the pages created.
            ModelEngine::Postgres => {
                assert!(
                    l <= pages(&large) + 3 && l + 3 >= pages(&large),
                    "{engine:?}: {l} reads, {} pages",
                    pages(&large)
                );
                assert!(q <= pages(&seq) + 3, "appends never read a page back: {q}");
            }
            _ => {
                assert_eq!(l, 0, "{engine:?}");
                // Until the first eviction InnoDB moves nothing in the LRU list
                // (`buf_page_peek_if_too_old`), so the root, created early, drifts to the tail
                // and is evicted and read back once; appends read nothing else.
                assert!(q <= 2, "{engine:?}: appends leave the pool: {q}");
            }
        }
        assert!(s > l + 50_000, "{engine:?}: small {s} large {l}");
    }
}

#[test]
fn checkpoints_bring_full_page_images_to_random_keys_only() {
    let random = run(ModelEngine::Postgres, "uuid4", 300_000, 16);
    let seq = run(ModelEngine::Postgres, "int", 300_000, 16);
    let fpi = |r: &RunResult| total(r, |c| c.wal_fpi);
    assert!(fpi(&random) > 20 * fpi(&seq).max(1), "uuid4 {} int {}", fpi(&random), fpi(&seq));
    let per_row = total(&seq, |c| c.wal_bytes) as f64 / 300_000.0;
    assert!((170.0..230.0).contains(&per_row), "int WAL bytes per row {per_row}");
    // Each checkpoint flushes every page first modified (an image) or added since the last.
    for r in [&random, &seq] {
        assert_eq!(total(r, |c| c.checkpoint_pages), fpi(r) + total(r, |c| c.pages_extended));
    }
    // A random key jumps to another leaf nearly every row; an ascending one once per leaf.
    let jumps = |r: &RunResult| total(r, |c| c.leaf_jumps) as f64 / 300_000.0;
    assert!(jumps(&random) > 0.9 && jumps(&seq) < 0.02, "uuid4 {} int {}", jumps(&random), jumps(&seq));
}

#[test]
fn server_models_refuse_what_they_do_not_model() {
    let config = PredictConfig {
        rows: 1000,
        batch_rows: 100,
        payload_bytes: 50,
        seed: 1,
        page_size: 4096,
        cache_mb: 8,
        mode: Mode::Exact,
        scale: 1,
    };
    let err = |engine, name: &str, config: &PredictConfig| {
        predict_engine(engine, find(name).unwrap(), config, None, &RunControl::new(), &mut |_| {})
            .unwrap_err()
            .to_string()
    };
    assert!(err(ModelEngine::Postgres, "uuid4", &config).contains("8192"));
    let pg = PredictConfig { page_size: 8192, ..config.clone() };
    assert!(err(ModelEngine::Postgres, "uuid4-server", &pg).contains("generates"));
    let inno = PredictConfig { page_size: 16384, ..config.clone() };
    assert!(err(ModelEngine::MariaDb, "uuid4-rowid", &inno).contains("clusters"));
    let bounded = PredictConfig { mode: Mode::Bounded, ..inno };
    assert!(err(ModelEngine::MariaDb, "uuid4", &bounded).contains("bounded"));
}

/// A 1/4 scale model of each server (a quarter of the rows, batch and buffers; PostgreSQL's
/// checkpoints after a quarter of the WAL; counts ×4) agrees with the full simulation, so a
/// billion rows can be forecast from the key stream's first 1/k with bounded memory.
#[test]
fn server_scale_models_agree_with_the_full_simulation() {
    for (engine, page, cache_mb) in [(ModelEngine::Postgres, 8192, 4), (ModelEngine::MariaDb, 16384, 16)] {
        let config = |scale| PredictConfig {
            rows: 400_000,
            batch_rows: 40_000,
            payload_bytes: 50,
            seed: 3,
            page_size: page,
            cache_mb,
            mode: Mode::Exact,
            scale,
        };
        for name in ["int", "uuid7", "uuid4", "int+uuid4"] {
            let go = |k| {
                predict_engine(engine, find(name).unwrap(), &config(k), None, &RunControl::new(), &mut |_| {}).unwrap()
            };
            let (full, scaled) = (go(1), go(4));
            assert_eq!(scaled.verified_rows, Some(400_000), "{engine:?} {name}");
            let close = |label: &str, a: f64, b: f64| {
                // 6%, or a few events per 1k rows where the full count is near zero (appends).
                assert!((a - b).abs() <= 0.06 * a + 2_000.0, "{engine:?} {name} {label}: full {a}, 1/4 scale {b}");
            };
            for (f, s) in full.btrees.iter().zip(&scaled.btrees) {
                close(&f.name, f.leaf_pages as f64, s.leaf_pages as f64);
                assert!((f.leaf_fill - s.leaf_fill).abs() < 0.02, "{engine:?} {name}: {f:?} {s:?}");
            }
            close("misses", total(&full, |c| c.cache_misses) as f64, total(&scaled, |c| c.cache_misses) as f64);
            close(
                "pages dirtied",
                total(&full, |c| c.pages_dirtied) as f64,
                total(&scaled, |c| c.pages_dirtied) as f64,
            );
            if engine == ModelEngine::Postgres {
                close("WAL bytes", total(&full, |c| c.wal_bytes) as f64, total(&scaled, |c| c.wal_bytes) as f64);
                close(
                    "pages written",
                    total(&full, |c| c.pages_written) as f64,
                    total(&scaled, |c| c.pages_written) as f64,
                );
            }
        }
    }
}
