//! Engine tests against a real, managed PostgreSQL cluster started by the test itself (on a free
//! port, in a temporary directory). A missing server binary fails the test, it never skips.

use crate::common;

use common::run;
use pkbench_core::control::RunControl;
use pkbench_core::engines::postgres::PostgresEngine;
use pkbench_core::engines::server::{ServerSettings, ServerTarget};
use pkbench_core::engines::{CaseSpec, Engine};
use pkbench_core::generators::{Key, decode_hex, decode_hyphenated};
use pkbench_core::keys::KeyRow;
use pkbench_core::keys::{KeySettings, KeyStream};
use pkbench_core::strategy::{CATALOG, KeySource, Storage, find, swap_time_fields};

fn managed(cache_mb: u64) -> PostgresEngine {
    let settings = ServerSettings { target: ServerTarget::managed(), cache_mb, durable_commits: true, shards: None };
    PostgresEngine::open(&settings).unwrap_or_else(|e| panic!("could not start a managed PostgreSQL server: {e}"))
}

/// The major version the managed cluster reports (e.g. 15).
fn server_major(engine: &PostgresEngine) -> i32 {
    let mut client = engine.managed().unwrap().config().connect(postgres::NoTls).unwrap();
    let num: String = client.query_one("SHOW server_version_num", &[]).unwrap().get(0);
    num.parse::<i32>().unwrap() / 10_000
}

#[test]
fn every_strategy_inserts_and_verifies_on_postgres() {
    let mut engine = managed(16);
    let major = server_major(&engine);
    for strategy in CATALOG {
        // MariaDB's UUID type and v1 generators are MariaDB's; uuidv7() needs PostgreSQL 18.
        let refused = match (strategy.primary.source, strategy.primary.storage) {
            (KeySource::Server(_), _) if strategy.name.starts_with("uuid1-") => {
                Some("no built-in uuid1 generator".to_string())
            }
            (_, Storage::MariaDbUuid) => Some("MariaDB".to_string()),
            (KeySource::Server(_), _) if strategy.name == "uuid7-server" && major < 18 => {
                Some(format!("PostgreSQL 18 and newer; this server is {major}."))
            }
            _ => None,
        };
        if let Some(reason) = refused {
            let err = engine.check(strategy).unwrap_err().to_string();
            assert!(err.contains(&reason) && !err.contains('\n'), "{}: {err}", strategy.name);
            continue;
        }
        let r = run(&mut engine, strategy, 3_000, 1_000);
        assert!(r.complete, "{}", strategy.name);
        assert_eq!(r.verified_rows, Some(3_000), "{}", strategy.name);
        assert!(r.strategy_description.contains("; PostgreSQL heap table"), "{}", r.strategy_description);
        assert_eq!(r.batches.len(), 3);
        for b in &r.batches {
            assert!(b.counters.wal_bytes.unwrap() > 0, "{}: {b:?}", strategy.name);
            assert!(b.counters.wal_records.unwrap() > 0, "{}: {b:?}", strategy.name);
            assert!(b.counters.index_blocks_touched.unwrap() > 0, "{}: {b:?}", strategy.name);
        }
        assert!(r.size_bytes.unwrap() > 0);
        let pk = r
            .btrees
            .iter()
            .find(|b| b.kind == "index")
            .unwrap_or_else(|| panic!("{}: no index in {:?}", strategy.name, r.btrees));
        assert!(pk.leaf_pages > 0 && pk.leaf_fill > 0.3, "{}: {pk:?}", strategy.name);
        assert_eq!(r.settings.engine["autovacuum"], "off");
    }
}

#[test]
fn random_keys_write_more_wal_and_full_page_images_than_ordered_keys() {
    let mut engine = managed(1);
    let totals = |engine: &mut PostgresEngine, name: &str| {
        let r = run(engine, find(name).unwrap(), 60_000, 20_000);
        (r.total_counters(), r)
    };
    let (int, _) = totals(&mut engine, "int");
    let (v7, _) = totals(&mut engine, "uuid7");
    let (v4, v4_run) = totals(&mut engine, "uuid4");
    let blocks = |c: &pkbench_core::results::Counters| c.index_blocks_touched.unwrap();
    // Same rows, so totals compare per row: each batch of random keys touches nearly every leaf
    // of the index, an ordered key's batch only the leaves it appends.
    assert!(
        blocks(&v4) > 2 * blocks(&int) && blocks(&v4) > 2 * blocks(&v7),
        "index blocks touched: int {}, uuid7 {}, uuid4 {}",
        blocks(&int),
        blocks(&v7),
        blocks(&v4)
    );
    let wal = |c: &pkbench_core::results::Counters| c.wal_bytes.unwrap();
    let fpi = |c: &pkbench_core::results::Counters| c.wal_fpi.unwrap();
    assert!(
        wal(&v4) > wal(&int) && wal(&v4) > wal(&v7),
        "WAL bytes: int {}, uuid7 {}, uuid4 {}",
        wal(&int),
        wal(&v7),
        wal(&v4)
    );
    assert!(fpi(&v4) > 2 * fpi(&v7).max(1), "FPI: int {}, uuid7 {}, uuid4 {}", fpi(&int), fpi(&v7), fpi(&v4));
    assert!(
        v4.cache_misses.unwrap() > v7.cache_misses.unwrap(),
        "misses: uuid7 {:?}, uuid4 {:?}",
        v7.cache_misses,
        v4.cache_misses
    );
    assert!(
        v4.page_splits.unwrap() > v7.page_splits.unwrap(),
        "splits: uuid7 {:?}, uuid4 {:?}",
        v7.page_splits,
        v4.page_splits
    );
    let index = v4_run.btrees.iter().find(|b| b.kind == "index").unwrap();
    assert!(index.leaf_fill < 0.85, "random inserts leave index leaves partly empty: {index:?}");
}

#[test]
fn dropping_the_engine_stops_the_server_and_removes_its_directory() {
    let engine = managed(8);
    let server = engine.managed().unwrap();
    let (pid, dir) = (server.pid(), server.dir().to_path_buf());
    assert!(dir.exists());
    drop(engine);
    assert!(!dir.exists(), "{} left behind", dir.display());
    assert!(!std::path::Path::new(&format!("/proc/{pid}")).exists(), "server process {pid} still running");
}

#[test]
fn asynchronous_commits_still_attribute_every_page_split() {
    // The same keys make the same B-tree splits whether commits wait for the disk or not; with
    // asynchronous commits pkbench must still read every batch's WAL (it forces a flush).
    let splits = |durable_commits: bool| {
        let settings = ServerSettings { target: ServerTarget::managed(), cache_mb: 8, durable_commits, shards: None };
        let mut engine = PostgresEngine::open(&settings).expect("could not start a managed PostgreSQL server");
        let r = run(&mut engine, find("uuid4").unwrap(), 30_000, 10_000);
        let splits: Vec<Option<u64>> = r.batches.iter().map(|b| b.counters.page_splits).collect();
        assert!(splits.iter().all(Option::is_some), "durable_commits {durable_commits}: {:?}", r.batches);
        splits.into_iter().flatten().collect::<Vec<u64>>()
    };
    let (durable, asynchronous) = (splits(true), splits(false));
    assert!(durable.iter().all(|&s| s > 0), "{durable:?}");
    assert_eq!(durable, asynchronous, "splits per batch: durable {durable:?}, asynchronous {asynchronous:?}");
}

#[test]
fn gen_random_uuid_keys_are_unique_version_4_and_sent_by_no_client() {
    let mut engine = managed(16);
    let mut client = engine.managed().unwrap().config().connect(postgres::NoTls).unwrap();
    let strategy = find("uuid4-server").unwrap();
    let mut case =
        engine.create_case(&CaseSpec { strategy, payload_bytes: 50, rows: 1_000, keys: KeySettings::from(1) }).unwrap();
    let rows = vec![KeyRow { primary: None, secondary: None }; 1_000];
    for _ in 0..3 {
        case.insert_batch(&rows, &RunControl::new()).unwrap();
    }
    let row = client
        .query_one(
            "SELECT count(*), count(DISTINCT id), count(*) FILTER (WHERE substr(id::text, 15, 1) <> '4') FROM pkbench.bench",
            &[],
        )
        .unwrap();
    let (n, distinct, not_v4): (i64, i64, i64) = (row.get(0), row.get(1), row.get(2));
    assert_eq!((n, distinct, not_v4), (3_000, 3_000, 0));
    let c = case.take_counters().unwrap();
    assert!(c.index_blocks_touched.unwrap() > 0, "{c:?}");
    assert_eq!(case.finish().unwrap().verified_rows, 3_000);
    // And through the workload, as `pkbench run` does it.
    let r = run(&mut engine, strategy, 3_000, 1_000);
    assert_eq!(r.verified_rows, Some(3_000));
}

#[test]
fn storage_variants_hold_exactly_the_generated_keys() {
    let mut engine = managed(16);
    let mut client = engine.managed().unwrap().config().connect(postgres::NoTls).unwrap();
    for name in ["uuid4-hex32", "uuid4-varhex32", "uuid4-varchar36", "uuid1-bin-swapped"] {
        let strategy = find(name).unwrap();
        let mut keys = KeyStream::new(strategy, common::SEED);
        let rows: Vec<KeyRow> = (0..3_000).map(|_| keys.next_row()).collect();
        let mut case = engine
            .create_case(&CaseSpec { strategy, payload_bytes: 50, rows: 1_000, keys: KeySettings::from(1) })
            .unwrap();
        for batch in rows.chunks(1_000) {
            case.insert_batch(batch, &RunControl::new()).unwrap();
        }
        let stored: Vec<[u8; 16]> = client
            .query("SELECT id::text FROM pkbench.bench ORDER BY id", &[])
            .unwrap()
            .iter()
            .map(|r| {
                let t: String = r.get(0);
                if t.len() == 36 { decode_hyphenated(t.as_bytes()) } else { decode_hex(t.as_bytes(), "hex") }
            })
            .collect::<Result<_, _>>()
            .unwrap_or_else(|e| panic!("{name}: {e}"));
        // What the column should hold, in the column's order (bytes, hex and hyphenated text
        // of lowercase hex all sort alike under the cluster's C collation).
        let mut want: Vec<[u8; 16]> = rows
            .iter()
            .map(|r| match r.primary {
                Some(Key::Uuid(b)) => strategy.primary.storage.binary_form(b),
                other => panic!("{name}: {other:?}"),
            })
            .collect();
        want.sort();
        assert_eq!(stored, want, "{name}");
        if name == "uuid1-bin-swapped" {
            // Swapped v1 keys arrive in time order, so the column's order is the insert order.
            let inserted: Vec<[u8; 16]> = rows
                .iter()
                .map(|r| if let Some(Key::Uuid(b)) = r.primary { swap_time_fields(b) } else { [0; 16] })
                .collect();
            assert_eq!(stored, inserted);
        }
        assert_eq!(case.finish().unwrap().verified_rows, 3_000, "{name}");
    }
}

#[test]
fn within_the_counter_budget_small_batches_share_counter_reads_and_every_row_is_counted() {
    use pkbench_core::control::MonotonicTimer;
    use pkbench_core::workloads::{CaseContext, InsertGrowth, Silent, Workload};
    // 100-row batches insert in about a millisecond: reading PostgreSQL's statistics (and
    // flushing for them) after each one would cost more than 5% of that.
    let mut engine = managed(16);
    let workload = InsertGrowth::new(20_000, 100, 50, common::SEED).unwrap();
    let control = RunControl::new();
    let timer = MonotonicTimer::default();
    let ctx = CaseContext { control: &control, timer: &timer, observer: &Silent, counter_budget: Default::default() };
    let (r, error) = workload.run_case(&mut engine, find("uuid4").unwrap(), &ctx);
    assert!(error.is_none(), "{error:?}");
    let spans: Vec<u64> = r.batches.iter().map(|b| b.counters_span).collect();
    assert_eq!(spans.iter().sum::<u64>(), 200, "every batch is counted exactly once: {spans:?}");
    assert!(spans.iter().any(|&s| s > 1), "reads were not spread over batches: {spans:?}");
    assert!(*spans.last().unwrap() >= 1, "the last batch is always read");
    assert!(r.batches.iter().all(|b| (b.counters_span == 0) == (b.counters_ns == 0)), "{:?}", r.batches);
    // The cheap counters cover every row; WAL bytes are at least the rows' keys and payloads.
    assert_eq!(r.counter_with_rows("wal_bytes").map(|(_, rows)| rows), Some(20_000));
    assert!(r.total_counters().wal_bytes.unwrap() > 20_000 * 66, "{:?}", r.total_counters());
    assert_eq!(r.verified_rows, Some(20_000));
}

#[test]
fn postgresql_16_without_contrib_reports_the_counters_it_lacks_as_absent() {
    use pkbench_core::engines::postgres::bin_dir_for_version;
    use pkbench_core::engines::server::ManagedOptions;
    // The `pgserver` wheel's PostgreSQL 16 ships no contrib: no pg_walinspect, no pgstattuple.
    let bin = bin_dir_for_version(16)
        .unwrap_or_else(|e| panic!("PostgreSQL 16 is needed (scripts/setup-test-deps installs it): {e}"));
    let options = ManagedOptions { server_bin: Some(bin), ..Default::default() };
    let settings =
        ServerSettings { target: ServerTarget::Managed(options), cache_mb: 16, durable_commits: true, shards: None };
    let mut engine = PostgresEngine::open(&settings).expect("could not start a managed PostgreSQL 16 server");
    let r = run(&mut engine, find("uuid4").unwrap(), 20_000, 5_000);
    assert!(r.settings.engine["server_version"].starts_with("16."), "{:?}", r.settings.engine);
    assert_eq!(r.verified_rows, Some(20_000));
    let c = r.total_counters();
    assert!(c.wal_bytes.unwrap() > 0 && c.wal_records.is_some() && c.cache_hits.is_some(), "{c:?}");
    // What needs the missing extensions is absent, not zero.
    assert_eq!((c.page_splits, c.wal_fpi_bytes, c.index_blocks_touched), (None, None, None), "{c:?}");
    assert!(r.btrees.is_empty(), "no pgstattuple: no B-tree figures rather than zeros");
    let summary = pkbench_core::metrics::summarize(&pkbench_core::results::ResultsDoc {
        schema_version: pkbench_core::results::SCHEMA_VERSION,
        command: vec![],
        started_at: String::new(),
        environment: pkbench_core::results::Environment::detect("postgres", "16", std::path::Path::new("/tmp")),
        runs: vec![r],
    });
    assert_eq!(summary.rows[0].page_splits_per_1k, None);
}
