//! One more connection to a case's SQLite database, for concurrent inserts. SQLite lets one
//! writer at a time hold the write lock: the others wait in a busy handler, which times how long
//! (reported as the lock wait).

use super::counters::{self, ClientCounters};
use super::schema::Params;
use super::{SqliteSettings, bind_key};
use crate::Error;
use crate::engines::{InsertClient, KeyRow};
use crate::strategy::Storage;
use rusqlite::{Connection, OpenFlags};
use std::cell::Cell;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::{Duration, Instant};

/// One statement gives up (SQLITE_BUSY) after waiting this long for the write lock.
const MAX_STATEMENT_WAIT: Duration = Duration::from_secs(60);
/// First back-off sleep of the busy handler; it doubles on every retry up to `MAX_BACKOFF`.
const FIRST_BACKOFF: Duration = Duration::from_micros(20);
/// Longest single back-off sleep (SQLite's own busy timeout sleeps whole milliseconds, which
/// would leave the lock idle most of the time with short transactions).
const MAX_BACKOFF: Duration = Duration::from_micros(500);

thread_local! {
    /// Nanoseconds this thread has spent in the busy handler, in total.
    static LOCK_WAIT_NS: Cell<u64> = const { Cell::new(0) };
    /// Nanoseconds spent in the busy handler by the current statement.
    static STATEMENT_WAIT_NS: Cell<u64> = const { Cell::new(0) };
}

/// Busy handler: sleeps with exponential back-off and counts the time slept as lock wait.
/// A plain function (rusqlite's busy handler takes no state), so the time goes to thread-locals
/// that the client reads around each statement on the same thread.
fn wait_for_lock(attempt: i32) -> bool {
    if attempt == 0 {
        STATEMENT_WAIT_NS.with(|c| c.set(0));
    }
    let shift = attempt.clamp(0, 16) as u32;
    let sleep = FIRST_BACKOFF.saturating_mul(1 << shift).min(MAX_BACKOFF);
    let t0 = Instant::now();
    std::thread::sleep(sleep);
    let waited = t0.elapsed().as_nanos() as u64;
    LOCK_WAIT_NS.with(|c| c.set(c.get() + waited));
    let total = STATEMENT_WAIT_NS.with(|c| {
        c.set(c.get() + waited);
        c.get()
    });
    total < MAX_STATEMENT_WAIT.as_nanos() as u64
}

/// A client connection inserting single rows in autocommit mode.
pub(super) struct SqliteClient {
    conn: Connection,
    path: PathBuf,
    insert: String,
    params: Params,
    payload: Vec<u8>,
    primary_storage: Storage,
    secondary_storage: Option<Storage>,
    counters: Arc<ClientCounters>,
    lock_wait_ns: u64,
}

/// What a client needs from its case.
pub(super) struct ClientSpec<'a> {
    /// The case's database file.
    pub path: &'a Path,
    /// The run's settings (`synchronous` and `cache_size` apply per connection).
    pub settings: &'a SqliteSettings,
    /// The case's single-row INSERT.
    pub insert: &'a str,
    /// Its parameter positions.
    pub params: Params,
    /// The payload bound in every row.
    pub payload: &'a [u8],
    /// How the primary key is stored.
    pub primary_storage: Storage,
    /// How the external key is stored, if there is one.
    pub secondary_storage: Option<Storage>,
    /// Where the client adds its page-cache counters.
    pub counters: Arc<ClientCounters>,
}

impl SqliteClient {
    /// Opens the case's existing database file with the run's per-connection settings.
    pub(super) fn open(spec: ClientSpec<'_>) -> Result<Self, Error> {
        let path = spec.path;
        let err = |context: &str, e| Error::sqlite(context, path, e);
        let mut conn =
            Connection::open_with_flags(path, OpenFlags::SQLITE_OPEN_READ_WRITE | OpenFlags::SQLITE_OPEN_NO_MUTEX)
                .map_err(|e| err("could not open another connection", e))?;
        spec.settings.apply_to_connection(&conn).map_err(|e| err("could not apply SQLite settings", e))?;
        conn.busy_handler(Some(wait_for_lock)).map_err(|e| err("could not set a busy handler", e))?;
        conn.prepare_cached(spec.insert).map_err(|e| err("could not prepare INSERT", e))?;
        // Start counting from here: opening and preparing are not part of any interval.
        counters::take(&conn)?;
        Ok(SqliteClient {
            conn,
            path: path.to_path_buf(),
            insert: spec.insert.to_string(),
            params: spec.params,
            payload: spec.payload.to_vec(),
            primary_storage: spec.primary_storage,
            secondary_storage: spec.secondary_storage,
            counters: spec.counters,
            lock_wait_ns: 0,
        })
    }

    fn execute(&mut self, row: &KeyRow) -> rusqlite::Result<()> {
        let params = self.params;
        let mut stmt = self.conn.prepare_cached(&self.insert)?;
        let mut text = [0u8; 36];
        stmt.raw_bind_parameter(params.payload, &self.payload[..])?;
        if let (Some(i), Some(k)) = (params.primary, row.primary) {
            bind_key(&mut stmt, i, k, self.primary_storage, &mut text)?;
        }
        if let (Some(i), Some(k), Some(storage)) = (params.secondary, row.secondary, self.secondary_storage) {
            bind_key(&mut stmt, i, k, storage, &mut text)?;
        }
        stmt.raw_execute().map(|_| ())
    }
}

impl InsertClient for SqliteClient {
    fn insert_one(&mut self, row: &KeyRow) -> Result<(), Error> {
        let waited_before = LOCK_WAIT_NS.with(Cell::get);
        let result = self.execute(row);
        self.lock_wait_ns += LOCK_WAIT_NS.with(Cell::get).saturating_sub(waited_before);
        result.map_err(|e| Error::sqlite("INSERT failed", &self.path, e))?;
        self.counters.add(&counters::take(&self.conn)?);
        Ok(())
    }

    fn lock_wait_ns(&self) -> Option<u64> {
        Some(self.lock_wait_ns)
    }
}

impl Drop for SqliteClient {
    fn drop(&mut self) {
        // Counters since the last insert (e.g. a failed statement's reads) still count.
        if let Ok(c) = counters::take(&self.conn) {
            self.counters.add(&c);
        }
    }
}
