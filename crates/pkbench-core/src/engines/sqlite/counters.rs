//! SQLite's per-connection page-cache counters, read through `sqlite3_db_status`.

use crate::Error;
use crate::results::Counters;
use rusqlite::{Connection, ffi};
use std::os::raw::c_int;
use std::sync::atomic::{AtomicU64, Ordering};

/// Reads and resets one `SQLITE_DBSTATUS_*` counter of `conn`.
fn read_and_reset(conn: &Connection, op: c_int) -> Result<u64, Error> {
    let (current, _highwater) = crate::platform::sqlite_db_status(conn, op, true)?;
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

/// Counters of a case's extra connections (concurrent clients), added as they go and taken
/// with the case's own, so per-interval counters cover every connection.
#[derive(Debug, Default)]
pub struct ClientCounters {
    hits: AtomicU64,
    misses: AtomicU64,
    written: AtomicU64,
    spills: AtomicU64,
}

impl ClientCounters {
    /// Adds a client's counters (read and reset from its connection).
    pub fn add(&self, c: &Counters) {
        for (cell, value) in
            self.cells().into_iter().zip([c.cache_hits, c.cache_misses, c.pages_written, c.cache_spills])
        {
            cell.fetch_add(value.unwrap_or(0), Ordering::Relaxed);
        }
    }

    /// Everything added since the previous call.
    pub fn take(&self) -> Counters {
        let [hits, misses, written, spills] = self.cells().map(|cell| Some(cell.swap(0, Ordering::Relaxed)));
        Counters {
            cache_hits: hits,
            cache_misses: misses,
            pages_written: written,
            cache_spills: spills,
            ..Counters::default()
        }
    }

    fn cells(&self) -> [&AtomicU64; 4] {
        [&self.hits, &self.misses, &self.written, &self.spills]
    }
}
