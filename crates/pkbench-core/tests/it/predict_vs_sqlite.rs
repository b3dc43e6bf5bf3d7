//! The exact model against real SQLite: the same strategies, keys, cache and batches; the
//! model's leaf pages, leaf fill, cache misses and pages written must match what SQLite's
//! `dbstat` and `sqlite3_db_status` report.

use crate::common;

use pkbench_core::control::RunControl;
use pkbench_core::engines::sqlite::{SqliteEngine, SqliteSettings};
use pkbench_core::predict::{Mode, PredictConfig, predict};
use pkbench_core::results::{BtreeStats, RunResult};
use pkbench_core::strategy::find;

const ROWS: u64 = 100_000;
const BATCH: u64 = 10_000;
const CACHE_MB: u64 = 1;

fn real(dir: &std::path::Path, name: &str) -> RunResult {
    let settings = SqliteSettings { cache_mb: CACHE_MB, ..SqliteSettings::seed_000(dir.to_path_buf()) };
    let mut engine = SqliteEngine::new(settings).unwrap();
    common::run(&mut engine, find(name).unwrap(), ROWS, BATCH)
}

fn model(name: &str, mode: Mode) -> RunResult {
    let config = PredictConfig {
        rows: ROWS,
        batch_rows: BATCH,
        payload_bytes: 50,
        seed: common::SEED,
        page_size: 4096,
        cache_mb: CACHE_MB,
        mode,
        scale: 1,
    };
    predict(find(name).unwrap(), &config, None, &RunControl::new(), &mut |_| {}).unwrap()
}

fn per_1k(run: &RunResult, f: fn(&pkbench_core::results::Counters) -> Option<u64>) -> f64 {
    // Skip the first batch: the table still fits the cache, so counts are near zero.
    let rows: u64 = run.batches[1..].iter().map(|b| b.rows).sum();
    let n: u64 = run.batches[1..].iter().map(|b| f(&b.counters).unwrap()).sum();
    n as f64 * 1000.0 / rows as f64
}

fn tree<'a>(run: &'a RunResult, name: &str) -> &'a BtreeStats {
    run.btrees.iter().find(|t| t.name == name).unwrap_or_else(|| panic!("no tree {name} in {:?}", run.btrees))
}

fn within(label: &str, model: f64, real: f64, tolerance: f64) -> bool {
    let ok = if real.abs() < 1.0 && model.abs() < 1.0 { true } else { (model - real).abs() <= tolerance * real.abs() };
    eprintln!("{label}: model {model:.3} real {real:.3} {}", if ok { "ok" } else { "OUT OF TOLERANCE" });
    ok
}

#[test]
fn exact_model_matches_real_sqlite() {
    let dir = tempfile::tempdir().unwrap();
    let mut ok = true;
    for name in ["int", "uuid7", "uuid4", "uuid4-text", "int+uuid4"] {
        let r = real(dir.path(), name);
        let m = model(name, Mode::Exact);
        assert_eq!(m.verified_rows, Some(ROWS));
        for t in &r.btrees {
            let mt = tree(&m, &t.name);
            ok &= within(&format!("{name} {} leaf pages", t.name), mt.leaf_pages as f64, t.leaf_pages as f64, 0.05);
            let fill_ok = (mt.leaf_fill - t.leaf_fill).abs() <= 0.05;
            eprintln!("{name} {} leaf fill: model {:.3} real {:.3}", t.name, mt.leaf_fill, t.leaf_fill);
            ok &= fill_ok;
        }
        ok &=
            within(&format!("{name} misses/1k"), per_1k(&m, |c| c.cache_misses), per_1k(&r, |c| c.cache_misses), 0.25);
        ok &= within(
            &format!("{name} written/1k"),
            per_1k(&m, |c| c.pages_written),
            per_1k(&r, |c| c.pages_written),
            0.25,
        );
        // A page written twice in one transaction keeps one WAL frame: the WAL file's size
        // follows the distinct pages per transaction, not the pages written.
        let wal = |run: &RunResult| run.wal_size_bytes.unwrap() as f64;
        ok &= within(&format!("{name} WAL bytes"), wal(&m), wal(&r), 0.05);
    }
    assert!(ok, "the model is out of tolerance (see the lines above)");
}
