//! Engine tests against a real, managed MariaDB server started by the test itself (free port,
//! temporary directory). A missing server binary fails the test, it never skips.

mod common;

use common::run;
use pkbench_core::engines::Engine;
use pkbench_core::engines::mariadb::MariaDbEngine;
use pkbench_core::engines::server::{ServerSettings, ServerTarget};
use pkbench_core::results::RunResult;
use pkbench_core::strategy::{CATALOG, PrimaryIndex, find};

fn managed(cache_mb: u64) -> MariaDbEngine {
    let settings =
        ServerSettings { target: ServerTarget::Managed { server_bin: None }, cache_mb, durable_commits: true };
    MariaDbEngine::open(&settings).unwrap_or_else(|e| panic!("could not start a managed MariaDB server: {e}"))
}

#[test]
fn every_clustered_strategy_inserts_and_verifies_and_rowid_ones_are_refused() {
    let mut engine = managed(16);
    for strategy in CATALOG {
        if strategy.index == PrimaryIndex::HeapWithIndex {
            let err = engine.check(strategy).unwrap_err().to_string();
            assert!(err.contains("InnoDB always clusters"), "{}: {err}", strategy.name);
            continue;
        }
        let r = run(&mut engine, strategy, 3_000, 1_000);
        assert!(r.complete, "{}", strategy.name);
        assert_eq!(r.verified_rows, Some(3_000), "{}", strategy.name);
        let c = r.total_counters();
        assert!(c.cache_hits.unwrap() > 0 && c.wal_bytes.unwrap() > 0, "{}: {c:?}", strategy.name);
        assert!(r.size_bytes.unwrap() > 0, "{}", strategy.name);
        assert!(r.settings.engine["innodb_buffer_pool_size"].parse::<u64>().unwrap() <= 16 << 20);
        let primary = r
            .btrees
            .iter()
            .find(|b| b.name == "PRIMARY")
            .unwrap_or_else(|| panic!("{}: {:?}", strategy.name, r.btrees));
        assert!(
            primary.leaf_pages > 0 && primary.leaf_fill > 0.3 && primary.leaf_fill <= 1.0,
            "{}: {primary:?}",
            strategy.name
        );
    }
}

#[test]
fn random_keys_miss_the_buffer_pool_and_split_pages() {
    // 100k rows of ~90 bytes (~9 MB clustered) against InnoDB's smallest pool, 6 MiB.
    let mut engine = managed(6);
    let int_run = run(&mut engine, find("int").unwrap(), 100_000, 25_000);
    let v7 = run(&mut engine, find("uuid7").unwrap(), 100_000, 25_000).total_counters();
    let v4_run = run(&mut engine, find("uuid4").unwrap(), 100_000, 25_000);
    let (int, v4) = (int_run.total_counters(), v4_run.total_counters());
    // From the tablespace pages: appends fill leaves, random inserts split them and scatter them.
    let primary = |r: &RunResult| r.btrees.iter().find(|b| b.name == "PRIMARY").cloned().unwrap();
    assert!(primary(&int_run).leaf_fill > 0.85, "int: {:?}", primary(&int_run));
    assert!(primary(&v4_run).leaf_fill < primary(&int_run).leaf_fill - 0.1, "uuid4: {:?}", primary(&v4_run));
    assert!(primary(&v4_run).leaf_out_of_order > 0.2, "uuid4: {:?}", primary(&v4_run));
    assert!(
        v4.cache_misses.unwrap() > 5 * (v7.cache_misses.unwrap() + 1),
        "misses: int {:?} uuid7 {:?} uuid4 {:?}",
        int.cache_misses,
        v7.cache_misses,
        v4.cache_misses
    );
    assert!(
        v4.page_splits.unwrap() > v7.page_splits.unwrap(),
        "splits: int {:?} uuid7 {:?} uuid4 {:?}",
        int.page_splits,
        v7.page_splits,
        v4.page_splits
    );
}

#[test]
fn dropping_the_engine_stops_the_server_and_removes_its_directory() {
    let engine = managed(8);
    let server = engine.managed().unwrap();
    let (pid, dir) = (server.pid(), server.dir().to_path_buf());
    drop(engine);
    assert!(!dir.exists(), "{} left behind", dir.display());
    assert!(!std::path::Path::new(&format!("/proc/{pid}")).exists(), "server process {pid} still running");
}
