//! SQLite's per-connection page-cache counters, read through `sqlite3_db_status`.

use crate::Error;
use crate::results::Counters;
use rusqlite::{Connection, ffi};
use std::os::raw::c_int;

/// Reads and resets one `SQLITE_DBSTATUS_*` counter of `conn`.
fn read_and_reset(conn: &Connection, op: c_int) -> Result<u64, Error> {
    let (mut current, mut highwater): (c_int, c_int) = (0, 0);
    // SAFETY: `conn.handle()` is a live connection owned by `conn` for the whole call, the
    // out-pointers are valid locals, and sqlite3_db_status only reads the connection's stats.
    let rc = unsafe { ffi::sqlite3_db_status(conn.handle(), op, &mut current, &mut highwater, 1) };
    if rc != ffi::SQLITE_OK {
        return Err(Error::InvalidInput(format!("sqlite3_db_status({op}) failed with code {rc}")));
    }
    // Resetting on every read keeps each span's count far below the 32-bit limit.
    Ok(u64::try_from(current).unwrap_or(0))
}

/// Cache hits, misses, writes and spills since the previous call.
pub fn take(conn: &Connection) -> Result<Counters, Error> {
    Ok(Counters {
        cache_hits: Some(read_and_reset(conn, ffi::SQLITE_DBSTATUS_CACHE_HIT)?),
        cache_misses: Some(read_and_reset(conn, ffi::SQLITE_DBSTATUS_CACHE_MISS)?),
        pages_written: Some(read_and_reset(conn, ffi::SQLITE_DBSTATUS_CACHE_WRITE)?),
        cache_spills: Some(read_and_reset(conn, ffi::SQLITE_DBSTATUS_CACHE_SPILL)?),
        ..Counters::default()
    })
}
