//! The PostgreSQL and InnoDB models against real managed servers that the test starts itself:
//! the same strategies, keys (seed 7), payload, batches and cache; the model's leaf pages and
//! leaf fill must match what `pgstatindex`/`pgstattuple` and pkbench's `.ibd` reader report,
//! and its cache misses what the server counted, where the table is well above the cache.
//! A missing server binary fails the test, it never skips.

use crate::common;

use pkbench_core::control::RunControl;
use pkbench_core::engines::Engine;
use pkbench_core::engines::mariadb::MariaDbEngine;
use pkbench_core::engines::postgres::PostgresEngine;
use pkbench_core::engines::server::{ServerSettings, ServerTarget};
use pkbench_core::predict::{Mode, ModelEngine, PredictConfig, predict_engine};
use pkbench_core::results::RunResult;
use pkbench_core::strategy::find;

const ROWS: u64 = 200_000;
const BATCH: u64 = 20_000;
const STRATEGIES: [&str; 5] = ["int", "uuid7", "uuid4", "uuid4-text", "int+uuid4"];

fn settings(cache_mb: u64) -> ServerSettings {
    ServerSettings { target: ServerTarget::managed(), cache_mb, durable_commits: false, shards: None }
}

fn model(engine: ModelEngine, name: &str, cache_mb: u64) -> RunResult {
    let config = PredictConfig {
        rows: ROWS,
        batch_rows: BATCH,
        payload_bytes: 50,
        seed: common::SEED,
        page_size: engine.fixed_page_size().unwrap_or(4096),
        cache_mb,
        mode: Mode::Exact,
        scale: 1,
    };
    predict_engine(engine, find(name).unwrap(), &config, None, &RunControl::new(), &mut |_| {}).unwrap()
}

/// Misses per 1k rows after the first batch (the server warms up its catalogs there).
fn misses_per_1k(run: &RunResult) -> f64 {
    let tail = &run.batches[1..];
    let rows: u64 = tail.iter().map(|b| b.rows).sum();
    let n: u64 = tail.iter().map(|b| b.counters.cache_misses.unwrap_or(0)).sum();
    n as f64 * 1000.0 / rows as f64
}

fn compare(engine: ModelEngine, real_engine: &mut dyn Engine, cache_mb: u64) {
    let mut ok = true;
    for name in STRATEGIES {
        let r = common::run(real_engine, find(name).unwrap(), ROWS, BATCH);
        let m = model(engine, name, cache_mb);
        assert_eq!(m.verified_rows, Some(ROWS));
        for t in &r.btrees {
            let Some(mt) = m.btrees.iter().find(|b| b.name == t.name) else {
                panic!("{name}: the model has no {} ({:?})", t.name, m.btrees);
            };
            let pages_ok = (mt.leaf_pages as f64 - t.leaf_pages as f64).abs() <= 0.05 * t.leaf_pages as f64;
            let fill_ok = (mt.leaf_fill - t.leaf_fill).abs() <= 0.05;
            eprintln!(
                "{engine:?} {name} {}: leaf pages real {} model {}, leaf fill real {:.3} model {:.3}{}",
                t.name,
                t.leaf_pages,
                mt.leaf_pages,
                t.leaf_fill,
                mt.leaf_fill,
                if pages_ok && fill_ok { "" } else { "  OUT OF TOLERANCE" }
            );
            ok &= pages_ok && fill_ok;
        }
        let (real, predicted) = (misses_per_1k(&r), misses_per_1k(&m));
        // Only where the table is well above the cache: a handful of misses per 1k rows is
        // the server's own pages (catalogs, undo), which the model leaves out.
        let checked = real > 10.0;
        let misses_ok = !checked || (predicted - real).abs() <= 0.25 * real;
        eprintln!(
            "{engine:?} {name}: misses /1k rows real {real:.1} model {predicted:.1}{}",
            match (checked, misses_ok) {
                (false, _) => " (not compared: the table fits the cache)",
                (true, true) => "",
                (true, false) => "  OUT OF TOLERANCE",
            }
        );
        ok &= misses_ok;
    }
    assert!(ok, "the {engine:?} model is out of tolerance (see the lines above)");
}

#[test]
fn postgres_model_matches_a_real_cluster() {
    let cache_mb = 4;
    let mut pg = PostgresEngine::open(&settings(cache_mb))
        .unwrap_or_else(|e| panic!("could not start a managed PostgreSQL server: {e}"));
    compare(ModelEngine::Postgres, &mut pg, cache_mb);
}

#[test]
fn innodb_model_matches_a_real_server() {
    let cache_mb = 8;
    let mut db = MariaDbEngine::open(&settings(cache_mb))
        .unwrap_or_else(|e| panic!("could not start a managed MariaDB server: {e}"));
    compare(ModelEngine::MariaDb, &mut db, cache_mb);
}
