//! The sharded engines on real servers the tests start themselves: Spider over four InnoDB
//! servers and postgres_fdw over four PostgreSQL servers, by range and by hash. Issue 21's
//! done-when: by range, ordered keys send ≥ 90% of a batch's rows to one shard (median over
//! batches) while random and spread keys keep every shard within 1.3× of the mean; by hash
//! every strategy is spread and UUIDv7 keeps its order within a shard (its leaves look like
//! int's, not uuid4's). Every row is verified, per shard and in total, and no server folder is
//! left behind. A missing server binary fails the test, it never skips.

use crate::common;

use common::run;
use pkbench_core::control::{MonotonicTimer, RunControl};
use pkbench_core::engines::postgres_fdw::PostgresFdwEngine;
use pkbench_core::engines::server::{ManagedOptions, ServerSettings, ServerTarget};
use pkbench_core::engines::spider::SpiderEngine;
use pkbench_core::engines::{Engine, EngineKind, schema_of};
use pkbench_core::keys::KeySettings;
use pkbench_core::predict::sharded::{ShardedConfig, forecast};
use pkbench_core::results::{RunResult, add_shards};
use pkbench_core::sharding::skew::{SkewSummary, summarize};
use pkbench_core::sharding::{ShardLayout, Sharding};
use pkbench_core::strategy::find;
use pkbench_core::workloads::{CaseContext, ConcurrentInsert, Silent, Workload};
use std::path::Path;
use std::time::Duration;

const ROWS: u64 = 100_000;
const BATCH: u64 = 10_000;

/// Servers in a folder of the test's own (`data_dir`), so that what is left there is theirs alone:
/// other tests of the binary run servers of their own meanwhile.
fn settings(sharding: Sharding, data_dir: &Path) -> ServerSettings {
    let options = ManagedOptions { data_dir: Some(data_dir.to_path_buf()), ..Default::default() };
    ServerSettings {
        target: ServerTarget::Managed(options),
        cache_mb: 16,
        durable_commits: false,
        shards: Some(ShardLayout::new(4, sharding).unwrap()),
    }
}

/// Runs `strategy` and checks every row reached exactly one shard.
fn skew_of(engine: &mut dyn Engine, strategy: &str) -> (RunResult, SkewSummary) {
    let result = run(engine, find(strategy).unwrap(), ROWS, BATCH);
    assert_eq!(result.verified_rows, Some(ROWS), "{strategy}");
    assert!(result.strategy_description.ends_with(", on each shard"), "{}", result.strategy_description);
    let intervals: Vec<Vec<u64>> = result
        .batches
        .iter()
        .map(|b| {
            let shards = b.shards.as_ref().unwrap_or_else(|| panic!("{strategy}: batch {} has no shards", b.index));
            assert_eq!(shards.len(), 4);
            shards.iter().map(|s| s.rows.expect("rows per shard")).collect()
        })
        .collect();
    for (b, i) in result.batches.iter().zip(&intervals) {
        assert_eq!(i.iter().sum::<u64>(), b.rows, "{strategy}: batch {}'s rows per shard {i:?}", b.index);
    }
    let skew = summarize(&intervals).unwrap();
    assert_eq!(skew.rows_per_shard.iter().sum::<u64>(), ROWS);
    (result, skew)
}

/// Leaves out of order over the primary-key trees of every shard.
fn out_of_order(result: &RunResult) -> f64 {
    let keys: Vec<_> = result
        .btrees
        .iter()
        .filter(|b| b.leaf_pages > 1 && (b.name.ends_with("/PRIMARY") || b.name.ends_with("_pkey")))
        .collect();
    assert!(!keys.is_empty(), "{}: no B-trees", result.strategy);
    keys.iter().map(|b| b.leaf_out_of_order * b.leaf_pages as f64).sum::<f64>()
        / keys.iter().map(|b| b.leaf_pages as f64).sum::<f64>()
}

/// predict's sharded model of the same run: its hottest shard's share must agree within 0.1.
fn check_model(strategy: &str, real: &SkewSummary, sharding: Sharding) {
    let config = ShardedConfig {
        rows: ROWS,
        batch_rows: BATCH,
        payload_bytes: 50,
        keys: KeySettings::from(common::SEED),
        layout: ShardLayout::new(4, sharding).unwrap(),
        range_split_bytes: None,
    };
    let model = forecast(find(strategy).unwrap(), &config).unwrap().skew;
    let gap = (model.hottest_share_median - real.hottest_share_median).abs();
    assert!(gap <= 0.1, "{strategy}: model {model:?}, real {real:?}");
}

fn check_range(engine: &mut dyn Engine) {
    for strategy in ["int", "uuid7"] {
        let (_, s) = skew_of(engine, strategy);
        check_model(strategy, &s, Sharding::Range);
        assert!(s.hottest_share_median >= 0.9, "{strategy}: {s:?}");
        assert!(s.hottest_count.iter().all(|&n| n > 0), "{strategy}: the hot spot moves through every range: {s:?}");
    }
    for strategy in ["uuid4", "uuid4-text", "hash-seq", "bitrev-seq"] {
        let (_, s) = skew_of(engine, strategy);
        check_model(strategy, &s, Sharding::Range);
        assert!(s.max_over_mean_max <= 1.3, "{strategy}: {s:?}");
    }
}

/// By hash every batch stays within 1.3× of the mean (Spider: 31 KEY partitions dealt over the
/// four shards, since MariaDB's KEY hash is uneven over four: see engines/spider/dialect.rs), the
/// model's stated hash agrees, UUIDv7's leaves stay in order within a shard, and every tree
/// (Spider: one per partition) has its own name.
fn check_hash(engine: &mut dyn Engine) {
    let mut disorder = Vec::new();
    for strategy in ["int", "uuid7", "uuid4"] {
        let (result, s) = skew_of(engine, strategy);
        assert!(s.max_over_mean_max <= 1.3, "{strategy}: {s:?}");
        check_model(strategy, &s, Sharding::Hash);
        assert!(s.rows_per_shard.iter().all(|&n| n >= ROWS / 20), "{strategy}: {s:?}");
        let names: std::collections::BTreeSet<_> = result.btrees.iter().map(|b| &b.name).collect();
        assert_eq!(names.len(), result.btrees.len(), "{strategy}: two trees share a name: {names:?}");
        disorder.push(out_of_order(&result));
    }
    let [int, uuid7, uuid4] = disorder[..] else { unreachable!() };
    assert!(uuid7 < 0.05 && int < 0.05, "ordered within a shard: int {int}, uuid7 {uuid7}");
    assert!(uuid4 > 0.3, "uuid4's leaves are out of order: {uuid4}");
}

/// The concurrent workload: four sessions through the head; every interval's rows are on the
/// shards and the summed counters are the shards' sums.
fn check_concurrent(engine: &mut dyn Engine) {
    let workload =
        ConcurrentInsert::new(4, Duration::from_secs(2), Duration::from_millis(300), 50, common::SEED).unwrap();
    for strategy in ["int", "uuid4"] {
        let control = RunControl::new();
        let ctx = CaseContext {
            control: &control,
            timer: &MonotonicTimer::default(),
            observer: &Silent,
            counter_budget: Default::default(),
        };
        let (result, error) = workload.run_case(engine, find(strategy).unwrap(), &ctx);
        assert!(error.is_none(), "{strategy}: {error:?}");
        let phase = &result.phases[0];
        assert!(phase.rows > 100, "{strategy}: {} rows", phase.rows);
        let mut sum = None;
        for i in &phase.intervals {
            add_shards(&mut sum, i.shards.clone());
        }
        let shards = sum.unwrap_or_else(|| panic!("{strategy}: no per-shard readings"));
        let rows: u64 = shards.iter().map(|s| s.rows.unwrap()).sum();
        // The shards are read at the interval boundaries, the sessions count their own
        // completions: the statements that complete while the first and the last boundary's
        // readings are taken (every shard read one after another; up to ~100 ms each on a
        // loaded 2-core machine) fall on different sides of them.
        let seconds = phase.elapsed_ns as f64 / 1e9;
        let slack = ((phase.rows as f64 / seconds * 0.2) as u64).max(8);
        assert!(rows.abs_diff(phase.rows) <= slack, "{strategy}: {rows} rows on the shards, {} measured", phase.rows);
        for field in ["cache_hits", "wal_bytes"] {
            let per_shard: u64 = shards.iter().filter_map(|s| s.counters.get(field)).sum();
            assert_eq!(phase.counters.get(field), Some(per_shard), "{strategy}: {field}");
        }
        // A timed run's range bounds come from an estimate of its rows (1,000 a second), so
        // ordered keys may pass through every range; random keys reach every shard.
        if strategy == "uuid4" {
            assert!(shards.iter().all(|s| s.rows.unwrap() > 0), "{strategy}: {shards:?}");
        }
    }
}

/// The managed servers' folders of this process in `data_dir`.
fn managed_dirs(data_dir: &Path) -> Vec<String> {
    let me = format!("-{}-", std::process::id());
    std::fs::read_dir(data_dir)
        .unwrap()
        .filter_map(|e| e.ok())
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .filter(|n| n.starts_with("pkbench-") && n.contains(&me))
        .collect()
}

#[test]
fn spider_by_range_and_by_hash() {
    let dir = tempfile::tempdir().unwrap();
    {
        let mut engine = SpiderEngine::open(&settings(Sharding::Range, dir.path()))
            .unwrap_or_else(|e| panic!("could not start a managed Spider set-up: {e}"));
        check_range(&mut engine);
        check_concurrent(&mut engine);
    }
    {
        let mut engine = SpiderEngine::open(&settings(Sharding::Hash, dir.path())).unwrap();
        check_hash(&mut engine);
    }
    let left = managed_dirs(dir.path());
    assert!(left.iter().all(|d| !d.starts_with("pkbench-mariadb-")), "{left:?}");
}

#[test]
fn postgres_fdw_by_range_and_by_hash() {
    let dir = tempfile::tempdir().unwrap();
    {
        let mut engine = PostgresFdwEngine::open(&settings(Sharding::Range, dir.path()))
            .unwrap_or_else(|e| panic!("could not start a managed postgres_fdw set-up: {e}"));
        check_range(&mut engine);
        check_concurrent(&mut engine);
    }
    {
        let mut engine = PostgresFdwEngine::open(&settings(Sharding::Hash, dir.path())).unwrap();
        check_hash(&mut engine);
    }
    let left = managed_dirs(dir.path());
    assert!(left.iter().all(|d| !d.starts_with("pkbench-postgres")), "{left:?}");
}

#[test]
fn sharded_engines_refuse_a_second_key_and_server_made_keys_before_starting() {
    for kind in [EngineKind::Spider, EngineKind::PostgresFdw] {
        for strategy in ["int+uuid4", "uuid4-server"] {
            let e = schema_of(kind, find(strategy).unwrap()).unwrap_err().to_string();
            assert!(e.contains(kind.name()), "{strategy}: {e}");
        }
        assert!(schema_of(kind, find("uuid7").unwrap()).is_ok());
    }
}
