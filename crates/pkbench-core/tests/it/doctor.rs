//! `doctor` against databases grown by pkbench's own workload: it must name each key scheme and
//! layout, give the right top advice, see VACUUM repack a random-key table, and never write.

use pkbench_core::control::{MonotonicTimer, RunControl};
use pkbench_core::doctor::{
    AdviceKind, DoctorOptions, DoctorReport, KeyScheme, KeyStorage, Layout, TableReport, diagnose, migration_sql,
    to_json,
};
use pkbench_core::engines::sqlite::{SqliteEngine, SqliteSettings};
use pkbench_core::strategy::find;
use pkbench_core::workloads::{CaseContext, InsertGrowth, Silent, Workload};
use std::path::{Path, PathBuf};

const ROWS: u64 = 4_000;

/// Grows a kept database for `strategy` in `dir` and returns its path.
fn fixture(dir: &Path, strategy: &str) -> PathBuf {
    let settings = SqliteSettings { cache_mb: 2, keep_db: true, ..SqliteSettings::seed_000(dir.to_path_buf()) };
    let mut engine = SqliteEngine::new(settings).unwrap();
    let workload = InsertGrowth::new(ROWS, 1_000, 50, 7).unwrap();
    let (control, timer) = (RunControl::new(), MonotonicTimer::default());
    let ctx = CaseContext { control: &control, timer: &timer, observer: &Silent, counter_budget: Default::default() };
    let (result, error) = workload.run_case(&mut engine, find(strategy).unwrap(), &ctx);
    assert!(error.is_none(), "{strategy}: {error:?}");
    PathBuf::from(result.kept_database.expect("kept database"))
}

fn bench(report: &DoctorReport) -> &TableReport {
    report.tables.iter().find(|t| t.name == "bench").expect("table bench")
}

fn pk_scheme(t: &TableReport) -> (KeyScheme, KeyStorage, f64) {
    let s = t.primary_key.as_ref().and_then(|k| k.scheme.as_ref()).expect("primary key scheme");
    (s.scheme, s.storage, s.share)
}

fn kinds(t: &TableReport) -> Vec<AdviceKind> {
    t.advice.iter().map(|a| a.kind).collect()
}

fn validate(report: &DoctorReport) {
    let schema: serde_json::Value =
        serde_json::from_str(include_str!("../../../../schema/doctor.schema.json")).expect("schema parses");
    let validator = jsonschema::validator_for(&schema).expect("valid schema");
    let value: serde_json::Value = serde_json::from_str(&to_json(report)).unwrap();
    let errors: Vec<String> = validator.iter_errors(&value).map(|e| format!("{e} at {}", e.instance_path())).collect();
    assert!(errors.is_empty(), "{errors:#?}");
}

#[test]
fn names_every_scheme_layout_and_top_advice() {
    let dir = tempfile::tempdir().unwrap();
    let cases: &[(&str, KeyScheme, KeyStorage, Layout, &[AdviceKind])] = &[
        ("int", KeyScheme::Sequence, KeyStorage::Integer, Layout::RowidAlias, &[]),
        ("uuid7", KeyScheme::UuidV7, KeyStorage::Blob16, Layout::WithoutRowid, &[]),
        ("uuid4", KeyScheme::UuidV4, KeyStorage::Blob16, Layout::WithoutRowid, &[AdviceKind::TimeOrderedKey]),
        (
            "uuid4-text",
            KeyScheme::UuidV4,
            KeyStorage::Text36,
            Layout::WithoutRowid,
            &[AdviceKind::TimeOrderedKey, AdviceKind::BinaryStorage],
        ),
        ("ulid-text", KeyScheme::Ulid, KeyStorage::Text26, Layout::WithoutRowid, &[AdviceKind::BinaryStorage]),
        ("snowflake", KeyScheme::Snowflake, KeyStorage::Integer, Layout::RowidAlias, &[]),
        (
            "int+uuid4",
            KeyScheme::Sequence,
            KeyStorage::Integer,
            Layout::RowidAlias,
            &[AdviceKind::TimeOrderedUniqueColumn],
        ),
        (
            "uuid4-rowid",
            KeyScheme::UuidV4,
            KeyStorage::Blob16,
            Layout::RowidWithKeyIndex,
            &[AdviceKind::TimeOrderedKey],
        ),
    ];
    for &(strategy, scheme, storage, layout, top) in cases {
        let path = fixture(dir.path(), strategy);
        let report = diagnose(&path, &DoctorOptions::default()).unwrap();
        validate(&report);
        let t = bench(&report);
        let (got_scheme, got_storage, share) = pk_scheme(t);
        assert_eq!((got_scheme, got_storage, t.layout), (scheme, storage, layout), "{strategy}: {report:#?}");
        assert!(share > 0.95, "{strategy}: share {share}");
        assert_eq!(t.rows, ROWS, "{strategy}");
        let got = kinds(t);
        assert_eq!(&got[..top.len().min(got.len())], top, "{strategy}: {:#?}", t.advice);
        if top.is_empty() {
            assert!(t.advice.is_empty(), "{strategy}: {:#?}", t.advice);
            assert!(t.verdict.starts_with("The key is fine"), "{strategy}: {}", t.verdict);
        } else {
            assert_eq!(t.verdict, t.advice[0].text);
            assert!(!t.advice[0].evidence.is_empty());
        }
        if strategy == "int+uuid4" {
            let ext = &t.unique_keys[0];
            assert_eq!(ext.columns, ["ext_id"]);
            assert_eq!(ext.scheme.as_ref().unwrap().scheme, KeyScheme::UuidV4);
            assert_eq!(ext.order.as_ref().unwrap().appends_in_order, Some(false));
        }
        if strategy == "ulid-text" {
            check_ulid_text_migration(dir.path(), &path, &report);
        }
        if strategy == "uuid4-text" {
            check_uuid4_text_saving(dir.path(), &path, &report);
        }
    }
}

/// The keys of the table `bench`, in key order.
fn bench_ids<T: rusqlite::types::FromSql>(conn: &rusqlite::Connection) -> Vec<T> {
    let mut stmt = conn.prepare("SELECT id FROM bench ORDER BY id").unwrap();
    stmt.query_map([], |r| r.get(0)).unwrap().collect::<Result<_, _>>().unwrap()
}

/// The ULID-as-text migration decodes Crockford base32 in plain SQL: run it on a copy.
fn check_ulid_text_migration(dir: &Path, path: &Path, report: &DoctorReport) {
    // Plain SQL decodes Crockford base32: every key becomes the ULID's own 16 bytes.
    let sql = migration_sql(path, report).unwrap();
    assert!(sql.contains("instr('0123456789ABCDEFGHJKMNPQRSTVWXYZ'"), "{sql}");
    let texts: Vec<String> = bench_ids(&rusqlite::Connection::open(path).unwrap());
    let copy = dir.join("ulid-copy.db");
    std::fs::copy(path, &copy).unwrap();
    let conn = rusqlite::Connection::open(&copy).unwrap();
    conn.execute_batch(&sql).unwrap();
    let blobs: Vec<Vec<u8>> = bench_ids(&conn);
    assert_eq!(blobs.len(), texts.len());
    for (text, blob) in texts.iter().zip(&blobs) {
        let want = ulid::Ulid::from_string(text).unwrap().to_bytes();
        assert_eq!(blob.as_slice(), want.as_slice(), "{text}");
    }
}

/// The UUID-as-text saving matches dbstat, and the migration script runs: check both.
fn check_uuid4_text_saving(dir: &Path, path: &Path, report: &DoctorReport) {
    let t = bench(report);
    // The saving is each key b-tree's share of text overhead in its dbstat leaf payload.
    let saved = t.advice.iter().find(|a| a.kind == AdviceKind::BinaryStorage).unwrap().gain_bytes.unwrap();
    let conn = rusqlite::Connection::open(path).unwrap();
    let (payload, cells, size): (i64, i64, i64) = conn
        .query_row(
            "SELECT sum(payload), sum(ncell) FILTER (WHERE pagetype = 'leaf' OR payload > 0), sum(pgsize) \
                 FROM dbstat WHERE name = 'bench'",
            [],
            |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)),
        )
        .unwrap();
    assert_eq!(cells as u64, ROWS);
    let expected = (cells * 20) as f64 / payload as f64 * size as f64;
    assert!((saved as f64 - expected).abs() <= 1.0, "saved {saved}, dbstat says {expected}");
    let b = t.btrees.iter().find(|b| b.stats.name == "bench").unwrap();
    assert_eq!((b.payload_bytes, b.entries), (Some(payload as u64), Some(ROWS)));
    drop(conn);
    let sql = migration_sql(path, report).unwrap();
    assert!(sql.contains("unhex(replace(\"id\", '-', ''))") && sql.contains("WITHOUT ROWID"), "{sql}");
    // The script is valid SQL and produces 16-byte keys: run it on a copy.
    let copy = dir.join("copy.db");
    std::fs::copy(path, &copy).unwrap();
    let conn = rusqlite::Connection::open(&copy).unwrap();
    conn.execute_batch(&sql).unwrap();
    let n: i64 = conn.query_row("SELECT count(*) FROM bench WHERE length(id) = 16", [], |r| r.get(0)).unwrap();
    assert_eq!(n as u64, ROWS);
}

#[test]
fn vacuum_of_a_random_key_table_shows_better_fill() {
    let dir = tempfile::tempdir().unwrap();
    let path = fixture(dir.path(), "uuid4");
    let before = diagnose(&path, &DoctorOptions::default()).unwrap();
    rusqlite::Connection::open(&path).unwrap().execute_batch("VACUUM").unwrap();
    let after = diagnose(&path, &DoctorOptions { full: true, ..DoctorOptions::default() }).unwrap();
    let fill = |r: &DoctorReport| bench(r).btrees.iter().find(|b| b.stats.name == "bench").unwrap().stats.leaf_fill;
    let reclaim = |r: &DoctorReport| bench(r).btrees.iter().map(|b| b.reclaimable_bytes).sum::<u64>();
    assert!(fill(&after) > fill(&before) + 0.05, "before {} after {}", fill(&before), fill(&after));
    assert!(reclaim(&before) > 0 && reclaim(&after) == 0, "before {} after {}", reclaim(&before), reclaim(&after));
    assert!(!kinds(bench(&after)).contains(&AdviceKind::Repack));
    assert!(bench(&after).primary_key.as_ref().unwrap().scheme.as_ref().unwrap().sampling.contains("--full"));
}

/// Bytes and modification time of a file.
fn snapshot(path: &Path) -> (Vec<u8>, std::time::SystemTime) {
    (std::fs::read(path).unwrap(), std::fs::metadata(path).unwrap().modified().unwrap())
}

#[test]
fn never_writes_even_with_a_live_wal() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("live.db");
    let writer = rusqlite::Connection::open(&path).unwrap();
    writer
        .execute_batch(
            "PRAGMA journal_mode = WAL; PRAGMA wal_autocheckpoint = 0;
             CREATE TABLE t (id TEXT PRIMARY KEY, v BLOB) WITHOUT ROWID;",
        )
        .unwrap();
    for i in 0..500 {
        let id = format!("{:08x}-0000-4000-8000-{:012x}", i * 7_919_u64 % 65_521, i);
        writer.execute("INSERT INTO t VALUES (?1, zeroblob(40))", [id]).unwrap();
    }
    let wal = dir.path().join("live.db-wal");
    assert!(std::fs::metadata(&wal).unwrap().len() > 0, "the writes must still be in the WAL");
    let (db_before, wal_before) = (snapshot(&path), snapshot(&wal));
    std::thread::sleep(std::time::Duration::from_millis(20)); // so a write would show in mtime
    let report = diagnose(&path, &DoctorOptions::default()).unwrap();
    assert_eq!(report.tables[0].rows, 500, "doctor sees the uncheckpointed rows");
    let _ = migration_sql(&path, &report).unwrap();
    assert!(snapshot(&path) == db_before, "the database file changed");
    assert!(snapshot(&wal) == wal_before, "the -wal file changed");
    drop(writer);
}

#[test]
fn a_closed_wal_database_gets_no_sidecar_files() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("closed.db");
    let writer = rusqlite::Connection::open(&path).unwrap();
    writer
        .execute_batch(
            "PRAGMA journal_mode = WAL; CREATE TABLE t (id INTEGER PRIMARY KEY, v TEXT);
             WITH RECURSIVE s(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM s WHERE i < 100)
             INSERT INTO t (v) SELECT 'x' FROM s;",
        )
        .unwrap();
    drop(writer); // the last connection checkpoints and removes -wal and -shm
    let (wal, shm) = (dir.path().join("closed.db-wal"), dir.path().join("closed.db-shm"));
    assert!(!wal.exists() && !shm.exists());
    let before = snapshot(&path);
    std::thread::sleep(std::time::Duration::from_millis(20));
    let report = diagnose(&path, &DoctorOptions::default()).unwrap();
    assert!(report.notes.iter().any(|n| n.contains("immutable=1")), "{:?}", report.notes);
    assert!(report.tables[0].rows > 0);
    let _ = migration_sql(&path, &report).unwrap();
    assert!(!wal.exists() && !shm.exists(), "doctor created WAL side files");
    assert!(snapshot(&path) == before, "the database file changed");
}

#[test]
fn reads_while_another_connection_writes() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("busy.db");
    let setup = rusqlite::Connection::open(&path).unwrap();
    setup
        .execute_batch("PRAGMA journal_mode = WAL; CREATE TABLE t (id BLOB PRIMARY KEY, v BLOB) WITHOUT ROWID;")
        .unwrap();
    let stop = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
    let writer = {
        let (path, stop) = (path.clone(), stop.clone());
        std::thread::spawn(move || {
            let conn = rusqlite::Connection::open(&path).unwrap();
            conn.busy_timeout(std::time::Duration::from_secs(5)).unwrap();
            let mut batches = 0u64;
            while !stop.load(std::sync::atomic::Ordering::Relaxed) || batches < 5 {
                conn.execute_batch(
                    "BEGIN IMMEDIATE; WITH RECURSIVE s(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM s WHERE i < 200)
                     INSERT INTO t SELECT randomblob(16), zeroblob(40) FROM s; COMMIT;",
                )
                .expect("the writer is never blocked by doctor");
                batches += 1;
            }
            batches
        })
    };
    for _ in 0..5 {
        let report = diagnose(&path, &DoctorOptions::default()).unwrap();
        assert_eq!(report.tables.len(), 1);
    }
    stop.store(true, std::sync::atomic::Ordering::Relaxed);
    let batches = writer.join().unwrap();
    let after = diagnose(&path, &DoctorOptions::default()).unwrap();
    assert_eq!(after.tables[0].rows, batches * 200, "doctor sees every committed row");
    assert_eq!(after.tables[0].primary_key.as_ref().unwrap().scheme.as_ref().unwrap().storage, KeyStorage::Blob16);
}

#[test]
fn edge_cases_give_reports_or_clear_errors() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("edge.db");
    let conn = rusqlite::Connection::open(&path).unwrap();
    conn.execute_batch(
        "CREATE TABLE empty (id BLOB PRIMARY KEY) WITHOUT ROWID;
         CREATE TABLE nokey (v TEXT);
         CREATE TABLE pair (a INT, b INT, PRIMARY KEY (a, b));
         INSERT INTO nokey VALUES ('x'), ('y');
         INSERT INTO pair VALUES (1, 2), (2, 1);",
    )
    .unwrap();
    drop(conn);
    let report = diagnose(&path, &DoctorOptions::default()).unwrap();
    validate(&report);
    let table = |n: &str| report.tables.iter().find(|t| t.name == n).unwrap();
    assert_eq!(table("empty").rows, 0);
    assert_eq!(table("nokey").layout, Layout::RowidNoKey);
    assert!(table("nokey").verdict.starts_with("No primary key"));
    assert_eq!(table("pair").primary_key.as_ref().unwrap().columns, ["a", "b"]);
    assert!(table("pair").advice.is_empty());
    let only = diagnose(&path, &DoctorOptions { table: Some("pair".into()), ..DoctorOptions::default() }).unwrap();
    assert_eq!(only.tables.len(), 1);
    let missing = diagnose(&path, &DoctorOptions { table: Some("nope".into()), ..DoctorOptions::default() });
    let missing = missing.unwrap_err();
    assert!(matches!(&missing, pkbench_core::Error::NotFound(_)), "{missing:?}");
    assert!(missing.to_string().contains("no table 'nope'"));

    let junk = dir.path().join("junk.db");
    std::fs::write(&junk, b"this is not a database, just some text that is long enough").unwrap();
    let err = diagnose(&junk, &DoctorOptions::default()).unwrap_err().to_string();
    assert!(err.contains("junk.db") && err.contains("not a database"), "{err}");
    let bytes = std::fs::read(&path).unwrap();
    let truncated = dir.path().join("truncated.db");
    std::fs::write(&truncated, &bytes[..bytes.len() / 3]).unwrap();
    let err = diagnose(&truncated, &DoctorOptions::default()).unwrap_err().to_string();
    assert!(err.contains("truncated.db") && !err.contains('\n'), "{err}");
    assert!(diagnose(&dir.path().join("absent.db"), &DoctorOptions::default()).is_err());
}
