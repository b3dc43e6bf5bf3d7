//! Bounded work on large SQLite files: random root-to-leaf descents instead of `dbstat`'s walk
//! of every page. The estimates must agree with `dbstat` (and `count(*)`) on the same file.

use pkbench_core::doctor::page_sample::sample_btree;
use pkbench_core::doctor::{DoctorOptions, diagnose};

/// A WITHOUT ROWID table grown with random 16-byte keys and a rowid table grown in order.
fn build(path: &std::path::Path) {
    let conn = rusqlite::Connection::open(path).unwrap();
    conn.execute_batch(
        "PRAGMA journal_mode = DELETE;
         CREATE TABLE r (id BLOB PRIMARY KEY, v BLOB) WITHOUT ROWID;
         CREATE TABLE s (id INTEGER PRIMARY KEY, v BLOB);
         WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 150000)
         INSERT INTO r SELECT randomblob(16), zeroblob(40) FROM n;
         WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 150000)
         INSERT INTO s (v) SELECT zeroblob(40) FROM n;",
    )
    .unwrap();
}

fn close(a: f64, b: f64, tolerance: f64) -> bool {
    (a - b).abs() <= tolerance * b.abs().max(1.0)
}

#[test]
fn descents_agree_with_dbstat() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("big.db");
    build(&path);
    let exact =
        diagnose(&path, &DoctorOptions { page_sample_above_bytes: u64::MAX, ..DoctorOptions::default() }).unwrap();
    let sampled = diagnose(&path, &DoctorOptions { page_sample_above_bytes: 0, ..DoctorOptions::default() }).unwrap();
    assert!(sampled.notes.iter().any(|n| n.contains("root-to-leaf descents")), "{:?}", sampled.notes);
    for name in ["r", "s"] {
        let e = exact.tables.iter().find(|t| t.name == name).unwrap();
        let s = sampled.tables.iter().find(|t| t.name == name).unwrap();
        assert!(!e.rows_estimated && s.rows_estimated);
        assert!(close(s.rows as f64, e.rows as f64, 0.1), "{name}: rows {} vs {}", s.rows, e.rows);
        let (eb, sb) = (&e.btrees[0], &s.btrees[0]);
        assert!(sb.estimated.is_some() && eb.estimated.is_none());
        assert!(close(sb.stats.leaf_pages as f64, eb.stats.leaf_pages as f64, 0.1), "{name}: {sb:?} vs {eb:?}");
        assert!(close(sb.stats.pages as f64, eb.stats.pages as f64, 0.1), "{name}: {sb:?} vs {eb:?}");
        assert!((sb.stats.leaf_fill - eb.stats.leaf_fill).abs() < 0.03, "{name}: {sb:?} vs {eb:?}");
        assert!((sb.stats.leaf_out_of_order - eb.stats.leaf_out_of_order).abs() < 0.1, "{name}: {sb:?} vs {eb:?}");
        // The verdicts agree.
        let kinds = |t: &pkbench_core::doctor::TableReport| t.advice.iter().map(|a| a.kind).collect::<Vec<_>>();
        assert_eq!(kinds(s), kinds(e), "{name}");
    }
}

#[test]
fn descents_read_a_bounded_number_of_pages() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("big.db");
    build(&path);
    let conn = rusqlite::Connection::open(&path).unwrap();
    let (root, pages): (i64, i64) = conn
        .query_row(
            "SELECT rootpage, (SELECT count(*) FROM dbstat WHERE name = 'r') FROM sqlite_schema WHERE name = 'r'",
            [],
            |r| Ok((r.get(0)?, r.get(1)?)),
        )
        .unwrap();
    let b = sample_btree(&path, "r", "table", root as u32, 64).unwrap();
    // 64 descents of a 3-level tree read at most 64 × 3 pages, however large the tree.
    assert!(b.pages_read <= 64 * 3 && (b.pages_read as i64) < pages / 4, "{} of {pages}", b.pages_read);
    // A page that is not a b-tree page is an error, not a panic.
    assert!(sample_btree(&path, "r", "table", pages as u32 + 10_000, 4).is_err());
}
