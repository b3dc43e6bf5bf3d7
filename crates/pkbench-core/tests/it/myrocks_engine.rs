//! MyRocks against real servers: a managed one (MariaDB with Debian's RocksDB plugin, started by
//! the engine in a temporary folder) and a user's one the test starts itself and reaches by URL.
//! A machine without the plugin fails these tests with what to install; they never skip.

use crate::common;

use common::run;
use mysql::prelude::Queryable;
use pkbench_core::engines::EngineKind;
use pkbench_core::engines::mariadb::ManagedMariaDb;
use pkbench_core::engines::myrocks::MyRocksEngine;
use pkbench_core::engines::server::{
    ExternalOptions, ManagedOptions, ServerSetting, ServerSettings, ServerTarget, TcpListen, free_port,
};
use pkbench_core::results::RunResult;
use pkbench_core::strategy::find;

fn settings(target: ServerTarget) -> ServerSettings {
    ServerSettings { target, cache_mb: 16, durable_commits: false, shards: None }
}

/// A managed MyRocks server with `user` settings (`NAME=VALUE`).
fn managed(user: &[&str]) -> Result<MyRocksEngine, pkbench_core::Error> {
    let settings_given = user.iter().map(|s| ServerSetting::parse(s).unwrap()).collect();
    MyRocksEngine::open(&settings(ServerTarget::Managed(ManagedOptions {
        settings: settings_given,
        ..Default::default()
    })))
}

/// Every counter the registry says MyRocks reports is in every batch.
fn assert_every_counter_in_every_batch(r: &RunResult) {
    for b in &r.batches {
        for name in EngineKind::MyRocks.capabilities().counters {
            assert!(
                b.counters.get(name).is_some(),
                "{}: batch {} has no {name}: {:?}",
                r.strategy,
                b.index,
                b.counters
            );
        }
    }
}

/// Every batch whose counters were read has RocksDB's level layout, levels in order.
fn assert_levels_in_every_batch(r: &RunResult) {
    for b in r.batches.iter().filter(|b| b.counters_span > 0) {
        let levels =
            b.lsm_levels.as_deref().unwrap_or_else(|| panic!("{}: batch {} has no levels", r.strategy, b.index));
        let names: Vec<&str> = levels.iter().map(|l| l.level.as_str()).collect();
        let mut sorted = names.clone();
        sorted.sort_by_key(|n| n[1..].parse::<u32>().unwrap());
        assert_eq!(names, sorted, "{}: batch {}", r.strategy, b.index);
        assert!(levels.iter().all(|l| l.score >= 0.0), "{levels:?}");
    }
}

#[test]
fn managed_myrocks_verifies_every_row_and_reports_every_rocksdb_counter() {
    // A 256 KiB memtable: 20,000 rows of ~70 bytes fill several, flushed within the run (the
    // write after the one that fills a memtable switches it; a background job flushes it).
    let mut engine = managed(&["rocksdb_default_cf_options=write_buffer_size=256k;target_file_size_base=256k"])
        .unwrap_or_else(|e| panic!("could not start a managed MyRocks server: {e}"));
    for name in ["int", "uuid4"] {
        let r = run(&mut engine, find(name).unwrap(), 20_000, 2_000);
        assert_eq!(r.verified_rows, Some(20_000), "{name}");
        assert!(
            r.strategy_description.ends_with("; RocksDB table: rows in primary-key order in an LSM tree"),
            "{name}"
        );
        assert_every_counter_in_every_batch(&r);
        let c = r.total_counters();
        assert!(c.wal_bytes.unwrap() > 0 && c.ingest_bytes.unwrap() > 0, "{name}: {c:?}");
        assert!(c.flush_bytes.unwrap() > 0, "{name}: full memtables were flushed: {c:?}");
        assert!(c.write_amplification().is_some_and(|w| w > 1.0), "{name}: {c:?}");
        assert!(r.size_bytes.unwrap() > 0, "{name}: measured from the sorted files");
        assert!(r.btrees.is_empty(), "{name}: an LSM tree lists no B-trees");
        // Compacted to the bottom level, every row is still there, in fewer bytes than the
        // memtables' many small files with their sequence numbers.
        let compacted = r.compacted_size_bytes.unwrap_or_else(|| panic!("{name}: no size after a full compaction"));
        assert!(compacted > 0 && compacted < r.size_bytes.unwrap(), "{name}: {compacted} vs {:?}", r.size_bytes);
        // Each insert into the primary key looked its key up first (the unique check).
        assert!(c.keys_read.unwrap() >= 20_000, "{name}: {c:?}");
        assert_levels_in_every_batch(&r);
        let last = r.batches.last().and_then(|b| b.lsm_levels.as_deref()).unwrap();
        assert!(last.iter().map(|l| l.files).sum::<u64>() > 0, "{name}: flushed memtables are files: {last:?}");
        let engine_settings = &r.settings.engine;
        assert_eq!(engine_settings["rocksdb_block_cache_size"], (16u64 << 20).to_string());
        assert_eq!(engine_settings["rocksdb_cf_write_buffer_size"], (256u64 << 10).to_string());
        let filter = engine_settings["rocksdb_cf_filter_policy"].to_ascii_lowercase();
        assert!(filter.contains("bloom"), "{engine_settings:?}");
        assert_eq!(engine_settings["given_with_server_setting"], "rocksdb_default_cf_options");
        assert!(!engine_settings.contains_key("innodb_buffer_pool_size"), "InnoDB holds no measured table here");
    }
}

#[test]
fn skipping_the_unique_check_reads_no_keys_and_says_what_it_trades() {
    let mut engine =
        managed(&["unique_checks=0"]).unwrap_or_else(|e| panic!("could not start a managed MyRocks server: {e}"));
    let notices = pkbench_core::engines::Engine::take_notices(&mut engine);
    assert!(notices.iter().any(|n| n.contains("a duplicate key silently replace a row")), "{notices:?}");
    let r = run(&mut engine, find("uuid4").unwrap(), 5_000, 1_000);
    assert_eq!(r.verified_rows, Some(5_000));
    let c = r.total_counters();
    assert!(c.keys_read.unwrap() < 100, "no key looked up before its insert: {c:?}");
    assert_eq!(r.settings.engine["unique_checks"], "OFF");
}

#[test]
fn a_managed_server_without_the_plugin_says_what_to_install() {
    let Err(e) = managed(&["plugin_dir=/nonexistent-plugins"]) else { panic!("no plugin, no server") };
    let e = e.to_string();
    assert!(e.contains("install Debian's mariadb-plugin-rocksdb"), "{e}");
}

/// A MariaDB server with the RocksDB plugin, on TCP with a password user, as a user runs one.
fn users_myrocks_server() -> (ManagedMariaDb, String) {
    let port = free_port().unwrap();
    let plugin = ServerSetting { name: "plugin_load_add".into(), value: "ha_rocksdb".into() };
    let options =
        ManagedOptions { settings: vec![plugin], tcp: Some(TcpListen { port, tls: None }), ..Default::default() };
    let server = ManagedMariaDb::start(&options, 16, false).unwrap_or_else(|e| {
        panic!("could not start a MariaDB server with RocksDB (install Debian's mariadb-plugin-rocksdb): {e}")
    });
    let mut admin = mysql::Conn::new(server.opts()).unwrap();
    admin.query_drop("CREATE USER 'pk'@'127.0.0.1' IDENTIFIED BY 'rocks-pw'").unwrap();
    admin.query_drop("GRANT ALL ON *.* TO 'pk'@'127.0.0.1'").unwrap();
    (server, format!("mysql://pk:rocks-pw@127.0.0.1:{port}/mysql"))
}

fn external(url: &str) -> ServerSettings {
    settings(ServerTarget::External { url: url.into(), options: ExternalOptions::default() })
}

#[test]
fn a_users_myrocks_server_at_a_url_runs_and_a_server_without_rocksdb_is_refused() {
    let (server, url) = users_myrocks_server();
    let mut engine = MyRocksEngine::open(&external(&url)).unwrap_or_else(|e| panic!("{url}: {e}"));
    let r = run(&mut engine, find("uuid7").unwrap(), 5_000, 1_000);
    assert_eq!(r.verified_rows, Some(5_000));
    assert_every_counter_in_every_batch(&r);
    drop(engine);
    // pkbench worked in a database of its own there, and dropped it.
    let mut admin = mysql::Conn::new(server.opts()).unwrap();
    let left: Vec<String> = admin.query("SHOW DATABASES LIKE 'pkbench%'").unwrap();
    assert!(left.is_empty(), "{left:?}");

    let (_opts, socket) = common::shared::mariadb_database("myrocks_refused");
    let plain = format!("mysql://root@localhost/myrocks_refused?socket={}", socket.display());
    let Err(e) = MyRocksEngine::open(&external(&plain)) else { panic!("a server with InnoDB only was taken") };
    let e = e.to_string();
    assert!(e.contains("this server has no RocksDB storage engine") && !e.contains('\n'), "{e}");
}

/// Inserts `rows` rows of `strategy`'s primary keys into `table` (`id`, `v`), 1,000 a statement;
/// an engine-assigned key (`int`) counts up from 1 as the engine would.
fn fill(conn: &mut mysql::Conn, table: &str, strategy: &str, rows: u64) {
    let mut stream = pkbench_core::keys::KeyStream::new(find(strategy).unwrap(), 7);
    let mut next = 0;
    for _ in 0..rows / 1_000 {
        let values: Vec<String> = (0..1_000)
            .map(|_| match stream.next_row().primary {
                Some(pkbench_core::generators::Key::Int(i)) => format!("({i}, 'v')"),
                Some(pkbench_core::generators::Key::Uuid(b)) => format!("(X'{}', 'v')", hex(&b)),
                None => {
                    next += 1;
                    format!("({next}, 'v')")
                }
            })
            .collect();
        conn.query_drop(format!("INSERT INTO {table} VALUES {}", values.join(", "))).unwrap();
    }
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

#[test]
fn doctor_reads_a_myrocks_tables_key_and_sorted_files_read_only() {
    use pkbench_core::doctor::{AdviceKind, DoctorOptions, Layout, render::render, to_json};
    let (server, _) = users_myrocks_server();
    let mut admin = mysql::Conn::new(server.opts()).unwrap();
    admin
        .query_drop(
            "CREATE DATABASE lsm; \
             CREATE TABLE lsm.random_key (id BINARY(16) PRIMARY KEY, v VARCHAR(8)) ENGINE=ROCKSDB; \
             CREATE TABLE lsm.ordered_key (id BIGINT PRIMARY KEY, v VARCHAR(8)) ENGINE=ROCKSDB",
        )
        .unwrap();
    fill(&mut admin, "lsm.random_key", "uuid4", 20_000);
    fill(&mut admin, "lsm.ordered_key", "int", 20_000);
    admin.query_drop("SET GLOBAL rocksdb_force_flush_memtable_now = 1").unwrap();
    let url = format!("mysql://root@localhost/lsm?socket={}", server.dir().join("mariadb.sock").display());
    let report = pkbench_core::doctor::mariadb::diagnose(&url, &DoctorOptions::default()).unwrap();

    let schema: serde_json::Value =
        serde_json::from_str(include_str!("../../../../schema/doctor.schema.json")).unwrap();
    let validator = jsonschema::validator_for(&schema).unwrap();
    let json: serde_json::Value = serde_json::from_str(&to_json(&report)).unwrap();
    assert!(validator.is_valid(&json), "the report follows doctor's schema: {json}");
    assert!(report.read_only.as_deref().is_some_and(|r| r.contains("READ ONLY")), "{:?}", report.read_only);
    assert!(report.notes.iter().any(|n| n.contains("no leaf fill to measure")), "{:?}", report.notes);

    let table = |name: &str| report.tables.iter().find(|t| t.name == name).unwrap();
    for t in [table("random_key"), table("ordered_key")] {
        assert_eq!(t.layout, Layout::SortedOnKey, "{}", t.name);
        assert!(t.btrees.is_empty(), "{}: an LSM tree has no B-trees", t.name);
        let lsm = t.lsm.as_ref().unwrap_or_else(|| panic!("{}: no sorted files read", t.name));
        let primary = &lsm.indexes[0];
        assert_eq!((primary.name.as_str(), primary.entries), ("PRIMARY", 20_000), "{lsm:?}");
        assert!(primary.files >= 1 && primary.size_bytes > 0, "{lsm:?}");
        assert!(lsm.levels.iter().any(|l| l.files > 0), "{lsm:?}");
    }
    let random = table("random_key");
    let top = &random.advice[0];
    assert_eq!(top.kind, AdviceKind::TimeOrderedKey);
    assert!(top.text.contains("moves down the levels without being rewritten"), "{}", top.text);
    assert!(top.evidence.contains("sorted files: PRIMARY in"), "{}", top.evidence);
    let ordered = table("ordered_key");
    assert!(ordered.advice.is_empty(), "{:?}", ordered.advice);
    assert!(ordered.verdict.contains("no leaf fill to lose"), "{}", ordered.verdict);

    let text = render(&report, false);
    assert!(text.contains("Sorted files of PRIMARY:") && text.contains("Levels of column family 'default':"), "{text}");
    assert!(text.contains("--engine myrocks"), "the benchmark command runs MyRocks: {text}");
    assert!(!text.contains("out of order"), "no B-tree columns for an LSM table: {text}");
    let header = text.lines().next().unwrap();
    assert!(header.contains("MiB in sorted files") && !header.contains("pages"), "no pages in an LSM tree: {header}");
    println!("{text}");
    let n: Option<u64> = admin.query_first("SELECT COUNT(*) FROM lsm.random_key").unwrap();
    assert_eq!(n, Some(20_000), "doctor changed nothing");
}

#[test]
fn the_memtable_probe_times_a_growing_memtable_that_is_never_flushed() {
    use pkbench_core::control::RunControl;
    use pkbench_core::engines::myrocks::memtable::time_random_inserts;
    use pkbench_core::predict::working_set::{Jumps, measure_myrocks};
    let largest = 4 << 20;
    let control = RunControl::new();
    let rounds = time_random_inserts(50, largest, 2, None, &control).unwrap();
    assert_eq!(rounds.len(), 2);
    for samples in &rounds {
        // Each chunk is taken halfway through it, the memtable growing chunk by chunk.
        assert!(samples.windows(2).all(|w| w[0].0 < w[1].0), "{samples:?}");
        assert!(samples.iter().all(|s| s.1 > 0.0 && s.1.is_finite()), "{samples:?}");
        let last = samples.last().unwrap().0;
        assert!((largest / 2..2 * largest).contains(&last), "the last chunk at {last} bytes: {samples:?}");
    }
    let curve = measure_myrocks(50, largest, None, &control).unwrap();
    assert_eq!(curve.jumps, Jumps::Memtable { commit_rows: 1_000 });
    assert!(curve.points.len() >= 3, "{curve:?}");
    assert!(curve.points.windows(2).all(|p| p[0].0 < p[1].0 && p[0].1 <= p[1].1), "{curve:?}");
    assert!(curve.describe().contains("memtable"), "{}", curve.describe());
    // A cancelled run stops the probe before its first statement.
    control.cancel();
    let started = std::time::Instant::now();
    let stopped = measure_myrocks(50, 64 << 20, None, &control);
    assert!(matches!(stopped, Err(pkbench_core::Error::Interrupted)), "{stopped:?}");
    assert!(started.elapsed().as_secs() < 15, "stopped at once, its server removed: {:?}", started.elapsed());
}
