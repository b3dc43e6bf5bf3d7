//! Engine tests against a real, managed MariaDB server started by the test itself (free port,
//! temporary directory). A missing server binary fails the test, it never skips.

use crate::common;

use common::run;
use mysql::prelude::Queryable;
use pkbench_core::control::RunControl;
use pkbench_core::engine_facts::innodb::uuid_sort_key;
use pkbench_core::engines::mariadb::MariaDbEngine;
use pkbench_core::engines::server::{ServerSettings, ServerTarget};
use pkbench_core::engines::{CaseSpec, Engine};
use pkbench_core::generators::{Key, decode_hex, decode_hyphenated, v1_ticks};
use pkbench_core::keys::KeyRow;
use pkbench_core::keys::{KeySettings, KeyStream};
use pkbench_core::results::RunResult;
use pkbench_core::strategy::{CATALOG, KeySource, PrimaryIndex, Storage, Strategy, find};
use std::collections::HashSet;

fn managed(cache_mb: u64) -> MariaDbEngine {
    let settings = ServerSettings { target: ServerTarget::managed(), cache_mb, durable_commits: true, shards: None };
    MariaDbEngine::open(&settings).unwrap_or_else(|e| panic!("could not start a managed MariaDB server: {e}"))
}

/// The (major, minor) version the managed server reports (e.g. (10, 11)).
fn server_version(engine: &MariaDbEngine) -> (u32, u32) {
    let mut conn = mysql::Conn::new(engine.managed().unwrap().opts()).unwrap();
    let text: String = conn.query_first("SELECT VERSION()").unwrap().unwrap();
    let mut parts = text.split(['.', '-']).map(|p| p.parse::<u32>().unwrap_or(0));
    (parts.next().unwrap_or(0), parts.next().unwrap_or(0))
}

#[test]
fn every_clustered_strategy_inserts_and_verifies_and_rowid_ones_are_refused() {
    let mut engine = managed(16);
    let version = server_version(&engine);
    for strategy in CATALOG {
        if strategy.index == PrimaryIndex::HeapWithIndex {
            let err = engine.check(strategy).unwrap_err().to_string();
            assert!(err.contains("InnoDB always clusters"), "{}: {err}", strategy.name);
            continue;
        }
        // UUID_v4() and UUID_v7() arrived in MariaDB 11.7: an older server refuses them.
        if matches!(strategy.name, "uuid4-server" | "uuid7-server") && version < (11, 7) {
            let err = engine.check(strategy).unwrap_err().to_string();
            assert!(err.contains("MariaDB 11.7 and newer") && !err.contains('\n'), "{}: {err}", strategy.name);
            continue;
        }
        let r = run(&mut engine, strategy, 3_000, 1_000);
        assert!(r.complete, "{}", strategy.name);
        assert_eq!(r.verified_rows, Some(3_000), "{}", strategy.name);
        assert!(
            r.strategy_description.contains("; InnoDB table clustered by the primary key"),
            "{}",
            r.strategy_description
        );
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

/// Inserts `rows` rows of `strategy` in batches of 1,000, then returns every stored key in index
/// order (as 16 bytes, the UUID's own byte order) and the rows the client generated.
fn stored_keys(engine: &mut MariaDbEngine, strategy: &Strategy, rows: u64) -> (Vec<[u8; 16]>, Vec<KeyRow>) {
    let mut conn = mysql::Conn::new(engine.managed().unwrap().opts()).unwrap();
    let mut keys = KeyStream::new(strategy, common::SEED);
    let generated: Vec<KeyRow> = (0..rows).map(|_| keys.next_row()).collect();
    let mut case =
        engine.create_case(&CaseSpec { strategy, payload_bytes: 50, rows: 1_000, keys: KeySettings::from(1) }).unwrap();
    for batch in generated.chunks(1_000) {
        case.insert_batch(batch, &RunControl::new()).unwrap();
    }
    let select = match strategy.primary.storage {
        Storage::MariaDbUuid => "SELECT CAST(id AS CHAR) FROM pkbench.bench ORDER BY id",
        Storage::Binary16 | Storage::Binary16TimeSwapped => "SELECT LOWER(HEX(id)) FROM pkbench.bench ORDER BY id",
        _ => "SELECT id FROM pkbench.bench ORDER BY id",
    };
    let text: Vec<String> = conn.query(select).unwrap();
    let bytes = text
        .iter()
        .map(|t| if t.len() == 36 { decode_hyphenated(t.as_bytes()) } else { decode_hex(t.as_bytes(), "hex") })
        .collect::<Result<Vec<_>, _>>()
        .unwrap_or_else(|e| panic!("{}: {e}", strategy.name));
    let report = case.finish().unwrap();
    assert_eq!(report.verified_rows, rows, "{}", strategy.name);
    assert_eq!(bytes.len() as u64, rows, "{}", strategy.name);
    assert_eq!(bytes.iter().collect::<HashSet<_>>().len() as u64, rows, "{}: duplicate keys", strategy.name);
    (bytes, generated)
}

fn uuid(key: Option<Key>) -> [u8; 16] {
    match key {
        Some(Key::Uuid(b)) => b,
        other => panic!("not a UUID key: {other:?}"),
    }
}

#[test]
fn storage_variants_hold_exactly_the_generated_keys_in_the_types_order() {
    let mut engine = managed(16);
    for name in [
        "uuid4-hex32",
        "uuid4-varhex32",
        "uuid4-varchar36",
        "uuid1-bin-swapped",
        "uuid4-mariadb-uuid",
        "uuid7-mariadb-uuid",
        "uuid1-mariadb-uuid",
    ] {
        let strategy = find(name).unwrap();
        let (stored, rows) = stored_keys(&mut engine, strategy, 3_000);
        let inserted: Vec<[u8; 16]> = rows.iter().map(|r| uuid(r.primary)).collect();
        let stored: Vec<[u8; 16]> = match strategy.primary.storage {
            // The swapped form is what the column holds: undo it to compare with the UUIDs.
            Storage::Binary16TimeSwapped => {
                stored.iter().map(|b| pkbench_core::strategy::unswap_time_fields(*b)).collect()
            }
            _ => stored,
        };
        // Index order: text and binary columns compare the stored bytes; MariaDB's UUID type
        // compares the key `uuid_sort_key` models (groups reversed for v1-v5).
        let mut want = inserted.clone();
        match strategy.primary.storage {
            Storage::MariaDbUuid => want.sort_by_key(|u| uuid_sort_key(*u)),
            Storage::Binary16TimeSwapped => want.sort_by_key(|u| pkbench_core::strategy::swap_time_fields(*u)),
            _ => want.sort(),
        }
        assert_eq!(stored, want, "{name}: rows are not in the modelled index order");
        let in_insert_order = stored == inserted;
        match name {
            // v7 is stored unreordered (10.11.2+), so it keeps time order: rows append. v1 with
            // one node and one clock sequence (kept from tick to tick, as RFC 9562 §5.1 says)
            // sorts by time once the type reverses its groups, as does the swapped binary form.
            "uuid7-mariadb-uuid" | "uuid1-bin-swapped" | "uuid1-mariadb-uuid" => {
                assert!(in_insert_order, "{name}")
            }
            // v4's reversed groups are still random.
            "uuid4-mariadb-uuid" => assert!(!in_insert_order, "{name}"),
            _ => {}
        }
    }
}

#[test]
fn server_generated_v1_keys_are_unique_and_the_uuid_type_orders_them_by_time() {
    let mut engine = managed(16);
    for name in ["uuid1-server", "uuid1-server-bin"] {
        let strategy = find(name).unwrap();
        assert!(matches!(strategy.primary.source, KeySource::Server(_)));
        let (stored, rows) = stored_keys(&mut engine, strategy, 3_000);
        assert!(rows.iter().all(|r| r.primary.is_none()), "{name}: the client sent keys");
        assert!(stored.iter().all(|u| u[6] >> 4 == 1 && u[8] & 0xc0 == 0x80), "{name}: not RFC v1 UUIDs");
        let ticks: Vec<u64> = stored.iter().map(v1_ticks).collect();
        if name == "uuid1-server" {
            // UUID() keeps one node and clock sequence, so the type's order is time order.
            assert!(ticks.windows(2).all(|w| w[0] < w[1]), "{name}: index order is not time order");
        }
    }
}
