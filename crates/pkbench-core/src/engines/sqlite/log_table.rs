//! file-baseline's SQLite side: `N` short text rows (`test{i}`) into a rowid table
//! `log(logline TEXT)` in one transaction, WAL, a chosen `synchronous` level.

use super::Synchronous;
use super::backend::{file_len, shm_path, wal_path};
use crate::Error;
use crate::control::{RunControl, Timer};
use rusqlite::Connection;
use std::io::Write;
use std::path::Path;

/// What one SQLite log insert measured.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct LogInsert {
    /// From `BEGIN` to the end of `COMMIT` (before any checkpoint at close), nanoseconds.
    pub elapsed_ns: u64,
    /// Rows counted in `log` after the commit.
    pub verified_rows: u64,
    /// Size of the database file plus WAL right after the commit, bytes.
    pub size_bytes: u64,
}

/// Inserts `rows` lines `test1` … `testN` into a new database at `path` and removes it after.
/// `path` must not exist.
pub fn insert_log_lines(
    path: &Path,
    sync: Synchronous,
    rows: u64,
    timer: &dyn Timer,
    control: &RunControl,
) -> Result<LogInsert, Error> {
    if path.exists() {
        return Err(Error::AlreadyExists(format!(
            "'{}' already exists; pkbench will not overwrite it: choose another --out folder",
            path.display()
        )));
    }
    crate::util::folder::claim_database(path)?;
    let result = insert(path, sync, rows, timer, control);
    for p in [path.to_path_buf(), wal_path(path), shm_path(path)] {
        let _ = std::fs::remove_file(p);
    }
    result
}

fn insert(
    path: &Path,
    sync: Synchronous,
    rows: u64,
    timer: &dyn Timer,
    control: &RunControl,
) -> Result<LogInsert, Error> {
    let err = |context: &'static str| move |e| Error::sqlite(context, path, e);
    let conn = Connection::open(path).map_err(err("could not create the database"))?;
    let _: String = conn.query_row("PRAGMA journal_mode = WAL", [], |r| r.get(0)).map_err(err("could not set WAL"))?;
    conn.pragma_update(None, "synchronous", sync.pragma()).map_err(err("could not set synchronous"))?;
    conn.execute_batch("CREATE TABLE log (logline TEXT)").map_err(err("could not create the table"))?;
    let mut line: Vec<u8> = Vec::with_capacity(32);
    let t0 = timer.now_ns();
    conn.execute_batch("BEGIN").map_err(err("could not begin"))?;
    {
        let mut stmt = conn.prepare("INSERT INTO log (logline) VALUES (?1)").map_err(err("could not prepare"))?;
        for i in 1..=rows {
            line.clear();
            // Writing into a Vec cannot fail.
            let _ = write!(line, "test{i}");
            // `test{i}` is ASCII, so the bytes are valid UTF-8 text.
            let text = std::str::from_utf8(&line).unwrap_or_default();
            stmt.raw_bind_parameter(1, text).map_err(err("could not bind"))?;
            stmt.raw_execute().map_err(err("INSERT failed"))?;
            if i % RunControl::PROGRESS_STEP as u64 == 0 && control.is_cancelled() {
                return Err(Error::Interrupted);
            }
        }
    }
    conn.execute_batch("COMMIT").map_err(err("COMMIT failed"))?;
    let elapsed_ns = timer.now_ns() - t0;
    let size_bytes = file_len(path) + file_len(&wal_path(path));
    let n: i64 = conn.query_row("SELECT count(*) FROM log", [], |r| r.get(0)).map_err(err("could not count rows"))?;
    conn.close().map_err(|(_, e)| Error::sqlite("could not close the database", path, e))?;
    Ok(LogInsert { elapsed_ns, verified_rows: n as u64, size_bytes })
}
