//! The concurrent workload on real engines: SQLite (separate connections to one WAL file),
//! and managed PostgreSQL and MariaDB servers started by the test itself (a missing server
//! binary fails the test, it never skips). 4 threads, about 2 s each.

use pkbench_core::control::{MonotonicTimer, RunControl};
use pkbench_core::engines::Engine;
use pkbench_core::engines::sqlite::{SqliteEngine, SqliteSettings};
use pkbench_core::engines::txn::{ClientOptions, TxnShape};
use pkbench_core::generators::Key;
use pkbench_core::keys::{KeySettings, KeyStream};
use pkbench_core::results::{PhaseResult, RunResult};
use pkbench_core::strategy::find;
use pkbench_core::workloads::{CaseContext, ConcurrentInsert, Silent, Workload};
use std::collections::HashSet;
use std::time::Duration;

const THREADS: u32 = 4;
const SEED: u64 = 11;

fn run(engine: &mut dyn Engine, strategy: &str) -> RunResult {
    run_at(engine, strategy, None)
}

/// Two measured seconds after half a second of warm-up, in a closed loop or at `rate` rows/s.
fn run_at(engine: &mut dyn Engine, strategy: &str, rate: Option<u64>) -> RunResult {
    run_with(engine, strategy, rate, ClientOptions::default()).unwrap_or_else(|e| panic!("{strategy}: {e}"))
}

/// [`run_at`] with the clients' transactions `options`; the error's text if the case failed.
fn run_with(
    engine: &mut dyn Engine,
    strategy: &str,
    rate: Option<u64>,
    options: ClientOptions,
) -> Result<RunResult, String> {
    let workload = ConcurrentInsert::new(THREADS, Duration::from_secs(2), Duration::from_millis(500), 50, SEED)
        .unwrap()
        .with_rate(rate)
        .unwrap()
        .with_transactions(options);
    let control = RunControl::new();
    let ctx = CaseContext {
        control: &control,
        timer: &MonotonicTimer::default(),
        observer: &Silent,
        counter_budget: Default::default(),
    };
    match workload.run_case(engine, find(strategy).unwrap(), &ctx) {
        (result, None) => Ok(result),
        (_, Some(e)) => Err(e.to_string()),
    }
}

/// What every engine must show: rows verified = rows counted, operations in every second,
/// ordered percentiles, intervals that add up.
fn check(result: &RunResult) -> &PhaseResult {
    let name = &result.strategy;
    assert!(result.complete, "{name}");
    assert_eq!(result.phases.len(), 1);
    let phase = &result.phases[0];
    assert_eq!(phase.name, "concurrent-insert");
    let warmup_rows = phase.figures["warmup_rows"] as u64;
    assert!(phase.operations > 0 && warmup_rows > 0, "{name}: {phase:?}");
    assert_eq!(result.verified_rows, Some(warmup_rows + phase.operations), "{name}: every counted row is there");
    assert_eq!(phase.figures["errors"], 0.0);
    assert_eq!(phase.figures["threads"], f64::from(THREADS));
    let l = phase.latency.unwrap();
    assert_eq!(l.count, phase.operations);
    assert!(l.min_ns <= l.p50_ns && l.p50_ns <= l.p95_ns && l.p95_ns <= l.p99_ns && l.p99_ns <= l.max_ns, "{l:?}");
    assert!(phase.elapsed_ns >= 2_000_000_000);
    assert!((2..=3).contains(&phase.intervals.len()), "{name}: {:?}", phase.intervals);
    assert_eq!(phase.intervals.iter().map(|i| i.operations).sum::<u64>(), phase.operations);
    assert!(phase.intervals.iter().all(|i| i.operations > 0), "{name}: {:?}", phase.intervals);
    // Every measured statement's latency lands in the second it completed in.
    let per_second: u64 = phase.intervals.iter().map(|i| i.latency.map_or(0, |l| l.count)).sum();
    assert_eq!(per_second, l.count, "{name}: {:?}", phase.intervals);
    assert_eq!(result.settings.workload_options["threads"], THREADS.to_string());
    phase
}

#[test]
fn sqlite_writers_serialise_and_the_lock_wait_is_reported() {
    let dir = tempfile::tempdir().unwrap();
    let settings = SqliteSettings { cache_mb: 8, keep_db: true, ..SqliteSettings::seed_000(dir.path().to_path_buf()) };
    let mut engine = SqliteEngine::new(settings).unwrap();
    for strategy in ["uuid4", "int+uuid4"] {
        let result = run(&mut engine, strategy);
        let phase = check(&result);
        let wait = phase.figures["lock_wait_ns"];
        assert!(wait > 0.0, "{strategy}: 4 writers on one SQLite file wait for its lock");
        let share = phase.figures["lock_wait_share"];
        assert!(share > 0.0 && share < 1.0, "{strategy}: lock wait share {share}");
        assert!(phase.waits.is_empty() && !phase.figures.contains_key("wait_samples"), "SQLite has no activity view");
        assert!(phase.counters.pages_written.unwrap() > 0, "the clients' own counters are collected");
    }
    // Random keys: each connection drew from its own seeded stream, as separate application
    // servers would; every key comes from the start of one of them.
    let ids = stored_ids(&dir.path().join("uuid4.sqlite"));
    let mut expected: HashSet<Vec<u8>> = HashSet::new();
    for client in 0..THREADS {
        let keys = KeySettings::from(SEED).for_client(client);
        let mut stream = KeyStream::new(find("uuid4").unwrap(), keys);
        expected.extend((0..ids.len() + 16).map(|_| match stream.next_row().primary {
            Some(Key::Uuid(b)) => b.to_vec(),
            other => panic!("uuid4 gives UUIDs, got {other:?}"),
        }));
    }
    assert!(ids.iter().all(|id| expected.contains(id)), "every key comes from a client's seeded stream");
    assert_eq!(ids.iter().collect::<HashSet<_>>().len(), ids.len());
    // A sequence's keys (seq-uuid) come from one stream shared by all, 16 at a time, so the
    // table holds the start of that one stream (less at most one unused chunk per thread).
    let result = run(&mut engine, "seq-uuid");
    check(&result);
    let ids = stored_ids(&dir.path().join("seq-uuid.sqlite"));
    let mut stream = KeyStream::new(find("seq-uuid").unwrap(), SEED);
    let shared: HashSet<Vec<u8>> = (0..ids.len() + THREADS as usize * 16)
        .map(|_| match stream.next_row().primary {
            Some(Key::Uuid(b)) => b.to_vec(),
            other => panic!("seq-uuid gives UUIDs, got {other:?}"),
        })
        .collect();
    assert!(ids.iter().all(|id| shared.contains(id)), "a sequence is one stream");
    assert_eq!(ids.iter().collect::<HashSet<_>>().len(), ids.len());
}

/// The keys of a kept SQLite database's `bench` table.
fn stored_ids(path: &std::path::Path) -> Vec<Vec<u8>> {
    let conn = rusqlite::Connection::open(path).unwrap();
    let mut stmt = conn.prepare("SELECT id FROM bench").unwrap();
    stmt.query_map([], |r| r.get(0)).unwrap().collect::<Result<_, _>>().unwrap()
}

#[test]
fn an_open_loop_sends_on_schedule_and_says_when_it_falls_behind() {
    let dir = tempfile::tempdir().unwrap();
    let mut engine = SqliteEngine::new(SqliteSettings::seed_000(dir.path().to_path_buf())).unwrap();
    // 400 rows/s is far below what 4 SQLite writers manage: the schedule, not the engine, sets
    // the pace, and no statement is sent before it is due.
    let result = run_at(&mut engine, "uuid7", Some(400));
    let phase = check(&result);
    let secs = phase.elapsed_ns as f64 / 1e9;
    // At most the measured seconds' statements, plus any the warm-up left due (a loaded machine
    // can fall behind while the table is created).
    let most = 400.0 * (secs + 0.5) + f64::from(THREADS);
    assert!(phase.operations as f64 <= most, "{} rows in {secs} s", phase.operations);
    assert_eq!(phase.figures["rate_target_per_s"], 400.0);
    assert!(phase.note.as_deref().unwrap().contains("open loop at 400 rows/s"), "{:?}", phase.note);
    assert!(phase.figures["service_p50_ns"] <= phase.latency.unwrap().p99_ns as f64);
    assert_eq!(result.settings.workload_options["loop"].split(':').next(), Some("open"));
    // 10M rows/s cannot be kept: the run says so, and latency counts the backlog.
    let result = run_at(&mut engine, "uuid7", Some(10_000_000));
    let phase = &result.phases[0];
    assert!(phase.note.as_deref().unwrap().contains("fell behind"), "{:?}", phase.note);
    assert!(phase.latency.unwrap().p50_ns as f64 > phase.figures["service_p50_ns"], "queueing shows in latency");
}

#[test]
fn sqlite_refuses_transaction_shapes_in_one_line() {
    let dir = tempfile::tempdir().unwrap();
    let mut engine = SqliteEngine::new(SqliteSettings::seed_000(dir.path().to_path_buf())).unwrap();
    let options = ClientOptions { txn: TxnShape::InsertUpdateRecent, isolation: None };
    let err = run_with(&mut engine, "uuid7", None, options).unwrap_err();
    assert!(err.contains("need a server engine") && !err.contains('\n'), "{err}");
}

/// The same workload on managed PostgreSQL and MariaDB servers (tier two).
#[cfg(feature = "server-tests")]
mod servers {
    use super::*;
    use pkbench_core::engines::mariadb::MariaDbEngine;
    use pkbench_core::engines::postgres::PostgresEngine;
    use pkbench_core::engines::server::{ServerSettings, ServerTarget, wait_until};
    use pkbench_core::engines::txn::Isolation;

    fn server_settings() -> ServerSettings {
        ServerSettings { target: ServerTarget::managed(), cache_mb: 16, durable_commits: true, shards: None }
    }

    #[test]
    fn postgres_clients_insert_concurrently_and_wal_is_counted() {
        let mut engine = PostgresEngine::open(&server_settings())
            .unwrap_or_else(|e| panic!("could not start a managed PostgreSQL server: {e}"));
        for strategy in ["int", "uuid4-text", "uuid7+uuid4"] {
            let result = run(&mut engine, strategy);
            let phase = check(&result);
            assert!(!phase.figures.contains_key("lock_wait_ns"), "PostgreSQL writers do not serialise on one lock");
            assert!(phase.counters.wal_bytes.unwrap() > 0, "{strategy}: {:?}", phase.counters);
            assert!(phase.intervals.iter().all(|i| i.counters.wal_bytes.unwrap_or(0) > 0));
            check_waits(phase, &["CPU", "LWLock:", "IO:", "Lock:", "Client:", "IPC:"]);
        }
    }

    /// The wait evidence: samples were taken, the sessions seen are this case's clients (at most
    /// THREADS busy per sample), every name is one the engine uses, and the intervals add up.
    fn check_waits(phase: &PhaseResult, prefixes: &[&str]) {
        let samples = phase.figures["wait_samples"];
        assert!(samples >= 10.0, "2 s at 50 Hz sampled only {samples} times");
        assert_eq!(phase.figures["wait_sample_hz"], 50.0);
        let busy: u64 = phase.waits.values().sum();
        assert!(busy > 0 && busy as f64 <= samples * f64::from(THREADS), "{busy} busy sessions in {samples} samples");
        for event in phase.waits.keys() {
            assert!(prefixes.iter().any(|p| event.starts_with(p)), "unexpected wait {event:?}: {:?}", phase.waits);
        }
        let mut summed = std::collections::BTreeMap::new();
        for i in &phase.intervals {
            for (e, n) in &i.waits {
                *summed.entry(e.clone()).or_insert(0) += n;
            }
        }
        assert_eq!(summed, phase.waits, "the per-second waits add up to the phase's");
    }

    #[test]
    fn mariadb_clients_insert_concurrently_and_redo_is_counted() {
        let mut engine = MariaDbEngine::open(&server_settings())
            .unwrap_or_else(|e| panic!("could not start a managed MariaDB server: {e}"));
        for strategy in ["int", "uuid4", "uuid4-text"] {
            let result = run(&mut engine, strategy);
            let phase = check(&result);
            assert!(phase.counters.wal_bytes.unwrap() > 0, "{strategy}: {:?}", phase.counters);
            check_waits(phase, &["Execute:", "Query:"]);
        }
    }

    /// Conflicts, retries and give-ups add up, and only committed transactions are rows.
    fn conflicts(phase: &PhaseResult) -> f64 {
        let (c, r, g) = (phase.figures["conflicts"], phase.figures["retries"], phase.figures["gave_up"]);
        assert_eq!(c, r + g, "every lost conflict is retried or given up: {:?}", phase.figures);
        c
    }

    #[test]
    fn serializable_reads_at_the_right_edge_conflict_for_ordered_keys_and_are_retried() {
        let mut engine = PostgresEngine::open(&server_settings())
            .unwrap_or_else(|e| panic!("could not start a managed PostgreSQL server: {e}"));
        let options = ClientOptions { txn: TxnShape::InsertReadRecent, isolation: Some(Isolation::Serializable) };
        let mut seen = Vec::new();
        for strategy in ["int-client", "uuid4"] {
            let result = run_with(&mut engine, strategy, None, options).unwrap();
            let phase = check(&result);
            assert!(
                phase.note.as_deref().unwrap().contains("insert-read-recent transaction per operation at serializable")
            );
            assert_eq!(result.settings.workload_options["isolation"], "serializable");
            seen.push(conflicts(phase));
            assert!(phase.counters.deadlocks.is_some(), "pg_stat_database.deadlocks is read");
        }
        // Each transaction reads the row after a key just committed: with ordered keys that is the
        // right edge where every client inserts, so SSI finds read/write conflicts among them.
        assert!(seen[0] > 0.0, "int-client: no serialization conflict at the right edge");
        assert!(seen[0] > seen[1], "ordered keys conflict more than random ones: {seen:?}");
        // Engine-assigned keys cannot be read back by key.
        let err = run_with(&mut engine, "int", None, options).unwrap_err();
        assert!(err.contains("--txn insert-read-recent") && err.contains("int-client"), "{err}");
    }

    #[test]
    fn mariadb_updates_of_recent_rows_run_and_add_up() {
        let mut engine = MariaDbEngine::open(&server_settings())
            .unwrap_or_else(|e| panic!("could not start a managed MariaDB server: {e}"));
        let options = ClientOptions { txn: TxnShape::InsertUpdateRecent, isolation: Some(Isolation::RepeatableRead) };
        let result = run_with(&mut engine, "uuid7", None, options).unwrap();
        let phase = check(&result);
        conflicts(phase);
        assert_eq!(result.settings.workload_options["txn"], "insert-update-recent");
        // InnoDB's lock counters are read (4 clients updating the newest rows wait for each other).
        let c = phase.counters;
        assert!(c.row_lock_waits.is_some() && c.row_lock_wait_ms.is_some() && c.deadlocks.is_some(), "{c:?}");
    }

    #[test]
    fn an_open_loop_shows_a_stall_that_a_closed_loop_hides() {
        let mut engine = PostgresEngine::open(&server_settings())
            .unwrap_or_else(|e| panic!("could not start a managed PostgreSQL server: {e}"));
        let config = engine.managed().unwrap().config().clone();
        // 1 s after rows start to flow (0.5 s into the measured part), another session holds the
        // table for 500 ms.
        let stall = || {
            let mut config = config.clone();
            std::thread::spawn(move || {
                let mut client = config.application_name("stall").connect(postgres::NoTls).unwrap();
                let mut rows =
                    || client.query_one("SELECT count(*) FROM pkbench.bench", &[]).map_or(0, |r| r.get::<_, i64>(0));
                assert!(wait_until(Duration::from_secs(60), || rows() > 0), "the run inserted no rows");
                std::thread::sleep(Duration::from_millis(1_000));
                client
                    .batch_execute(
                        "BEGIN; LOCK TABLE pkbench.bench IN ACCESS EXCLUSIVE MODE; SELECT pg_sleep(0.5); COMMIT;",
                    )
                    .unwrap();
            })
        };
        let mut p99 = Vec::new();
        for rate in [None, Some(400)] {
            let holder = stall();
            let result = run_at(&mut engine, "uuid7", rate);
            holder.join().unwrap();
            let phase = check(&result);
            let l = phase.latency.unwrap();
            assert!(l.max_ns >= 300_000_000, "{rate:?}: the 500 ms stall held some statement: {l:?}");
            p99.push(l.p99_ns);
        }
        eprintln!(
            "p99 with a 500 ms stall: closed loop {} ms, open loop {} ms",
            p99[0] / 1_000_000,
            p99[1] / 1_000_000
        );
        // Closed: each of the 4 clients waits once, 4 statements of thousands — the p99 misses it.
        // Open: every statement due during the stall queues behind it — a fifth of the run.
        assert!(p99[1] >= 250_000_000, "open-loop p99 {} ms should include the stall", p99[1] / 1_000_000);
        assert!(p99[0] * 2 < p99[1], "closed-loop p99 {} ms hides it", p99[0] / 1_000_000);
    }
}
