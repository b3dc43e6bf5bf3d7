//! SQLite through rusqlite's bundled build, behind the same [`Connection`] as the servers'
//! wires, so the engine core runs SQLite's statements as it runs theirs. A statement is a
//! cached prepared statement looked up by its SQL; parameters are bound borrowed and rows are
//! read into reused buffers (no allocation per row); a multi-row statement is the single-row
//! one stepped once per row. A client connection can time its waits for the write lock.

use super::{BulkSql, Connection, KeyField, KeySlot, ServerError, Value, counted};
use crate::ServerErrorKind;
use crate::control::RunControl;
use crate::engines::kind::EngineKind;
use crate::generators::Key;
use crate::keys::KeyRow;
use crate::strategy::Storage;
use crate::values::Param;
use rusqlite::types::{ToSqlOutput, ValueRef};
use rusqlite::{CachedStatement, ErrorCode, OpenFlags, ToSql, ffi};
use std::cell::Cell;
use std::path::Path;
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
/// that the connection reads around each statement on the same thread.
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

/// What runs after every statement of a connection, and once more when it closes.
pub type AfterStatement = Box<dyn FnMut(&rusqlite::Connection) + Send>;

/// A connection to one SQLite database file (or an in-memory one while no case is open).
pub struct SqliteConnection {
    conn: rusqlite::Connection,
    /// E.g. a concurrent client adding its page-cache counters to its case's.
    after: Option<AfterStatement>,
    /// Time spent waiting for the write lock so far, where a busy handler times it.
    lock_wait_ns: Option<u64>,
    /// The row handed to query callbacks, its text and bytes reused from row to row.
    row: Vec<Value>,
}

/// A prepared statement: its SQL, the key of the connection's statement cache.
#[derive(Clone, Debug)]
pub struct SqliteStatement(Arc<str>);

/// A statement stepped once per row: its single-row SQL, key columns and payload.
pub struct SqliteBulk {
    statement: SqliteStatement,
    keys: Vec<(KeyField, Storage)>,
    payload: Option<Vec<u8>>,
    slots: [KeySlot; 2],
}

/// A wire parameter as SQLite binds it (borrowed: nothing is copied).
struct Bind<'a>(Param<'a>);

impl ToSql for Bind<'_> {
    fn to_sql(&self) -> rusqlite::Result<ToSqlOutput<'_>> {
        Ok(ToSqlOutput::Borrowed(match &self.0 {
            Param::Null => ValueRef::Null,
            Param::Int(v) => ValueRef::Integer(*v),
            Param::Uuid(b) => ValueRef::Blob(b),
            Param::Text(t) => ValueRef::Text(t.as_bytes()),
            Param::Bytes(b) => ValueRef::Blob(b),
        }))
    }
}

/// rusqlite's error as a [`ServerError`], its kind from SQLite's result code.
pub fn server_error(e: &rusqlite::Error) -> ServerError {
    let kind = match e {
        rusqlite::Error::SqliteFailure(f, _) => match f.code {
            ErrorCode::DiskFull => ServerErrorKind::DiskFull,
            ErrorCode::ConstraintViolation
                if matches!(f.extended_code, ffi::SQLITE_CONSTRAINT_PRIMARYKEY | ffi::SQLITE_CONSTRAINT_UNIQUE) =>
            {
                ServerErrorKind::UniqueViolation
            }
            ErrorCode::CannotOpen => ServerErrorKind::Unreachable,
            _ => ServerErrorKind::Other,
        },
        rusqlite::Error::SqlInputError { .. } => ServerErrorKind::Rejected,
        _ => ServerErrorKind::Other,
    };
    ServerError { engine: EngineKind::Sqlite.label(), kind, message: e.to_string() }
}

fn error(e: rusqlite::Error) -> ServerError {
    server_error(&e)
}

impl SqliteConnection {
    /// Creates the database file at `path` (or opens it, if `create` is false: one more
    /// connection to a case's database).
    pub fn open(path: &Path, create: bool) -> Result<Self, ServerError> {
        let mut flags = OpenFlags::SQLITE_OPEN_READ_WRITE | OpenFlags::SQLITE_OPEN_NO_MUTEX;
        if create {
            flags |= OpenFlags::SQLITE_OPEN_CREATE;
        }
        Ok(Self::over(rusqlite::Connection::open_with_flags(path, flags).map_err(error)?))
    }

    /// An in-memory database: the engine's connection while no case is open.
    pub fn in_memory() -> Result<Self, ServerError> {
        Ok(Self::over(rusqlite::Connection::open_in_memory().map_err(error)?))
    }

    fn over(conn: rusqlite::Connection) -> Self {
        SqliteConnection { conn, after: None, lock_wait_ns: None, row: Vec::new() }
    }

    /// The rusqlite connection, for what only SQLite has (pragmas, counters, `dbstat`).
    pub fn raw(&self) -> &rusqlite::Connection {
        &self.conn
    }

    /// Waits for the write lock with a timed back-off instead of failing at once; the time
    /// waited is [`Connection::lock_wait_ns`].
    pub fn time_lock_waits(&mut self) -> Result<(), ServerError> {
        self.conn.busy_handler(Some(wait_for_lock)).map_err(error)?;
        self.lock_wait_ns = Some(0);
        Ok(())
    }

    /// Runs `after` after every statement and once more when the connection closes.
    pub fn after_each_statement(&mut self, after: AfterStatement) {
        self.after = Some(after);
    }

    /// Closes the connection, reporting what SQLite says (e.g. a failed checkpoint).
    pub fn close(mut self) -> Result<(), ServerError> {
        self.finish_statements();
        let conn = std::mem::replace(&mut self.conn, rusqlite::Connection::open_in_memory().map_err(error)?);
        conn.close().map_err(|(_, e)| error(e))
    }

    fn finish_statements(&mut self) {
        if let Some(mut after) = self.after.take() {
            after(&self.conn);
        }
    }

    /// Runs `body`, adding the write-lock wait it caused to this connection's, then the
    /// after-statement hook.
    #[inline]
    fn timed<T>(&mut self, body: impl FnOnce(&mut Self) -> rusqlite::Result<T>) -> Result<T, ServerError> {
        let before = self.lock_wait_ns.map(|_| LOCK_WAIT_NS.with(Cell::get));
        let result = body(self);
        if let (Some(total), Some(before)) = (self.lock_wait_ns.as_mut(), before) {
            *total += LOCK_WAIT_NS.with(Cell::get).saturating_sub(before);
        }
        if let Some(after) = self.after.as_mut() {
            after(&self.conn);
        }
        result.map_err(error)
    }
}

impl Drop for SqliteConnection {
    fn drop(&mut self) {
        // Counters since the last statement (e.g. a failed statement's reads) still count.
        self.finish_statements();
    }
}

/// `stmt` with `params` bound from position 1.
fn bound<'c>(conn: &'c rusqlite::Connection, sql: &str, params: &[Param<'_>]) -> rusqlite::Result<CachedStatement<'c>> {
    let mut stmt = conn.prepare_cached(sql)?;
    for (i, p) in params.iter().enumerate() {
        stmt.raw_bind_parameter(i + 1, Bind(*p))?;
    }
    Ok(stmt)
}

/// Reads `row`'s columns into `out`, reusing the text and bytes buffers already there.
fn read_row(row: &rusqlite::Row<'_>, out: &mut Vec<Value>, columns: usize) -> rusqlite::Result<()> {
    out.resize(columns, Value::Null);
    for (i, slot) in out.iter_mut().enumerate() {
        match row.get_ref(i)? {
            ValueRef::Null => *slot = Value::Null,
            ValueRef::Integer(v) => *slot = Value::Int(v),
            ValueRef::Real(f) => *slot = Value::Float(f),
            ValueRef::Text(t) => {
                let text = String::from_utf8_lossy(t);
                match slot {
                    Value::Text(s) => {
                        s.clear();
                        s.push_str(&text);
                    }
                    other => *other = Value::Text(text.into_owned()),
                }
            }
            ValueRef::Blob(b) => match slot {
                Value::Bytes(v) => {
                    v.clear();
                    v.extend_from_slice(b);
                }
                other => *other = Value::Bytes(b.to_vec()),
            },
        }
    }
    Ok(())
}

impl Connection for SqliteConnection {
    type Statement = SqliteStatement;
    type Bulk = SqliteBulk;

    fn execute(&mut self, sql: &str) -> Result<(), ServerError> {
        self.timed(|me| me.conn.execute_batch(sql))
    }

    fn prepare(&mut self, sql: &str) -> Result<SqliteStatement, ServerError> {
        // Prepared now so errors show here; kept in the connection's statement cache.
        self.conn.prepare_cached(sql).map_err(error)?;
        Ok(SqliteStatement(sql.into()))
    }

    fn exec(&mut self, stmt: &SqliteStatement, params: &[Param<'_>]) -> Result<u64, ServerError> {
        self.timed(|me| bound(&me.conn, &stmt.0, params)?.raw_execute().map(|n| n as u64))
    }

    fn query(
        &mut self,
        stmt: &SqliteStatement,
        params: &[Param<'_>],
        row: &mut dyn FnMut(&[Value]),
    ) -> Result<u64, ServerError> {
        self.timed(|me| {
            let SqliteConnection { conn, row: buffer, .. } = me;
            let mut statement = bound(conn, &stmt.0, params)?;
            let columns = statement.column_count();
            let mut rows = statement.raw_query();
            let mut n = 0;
            while let Some(r) = rows.next()? {
                read_row(r, buffer, columns)?;
                row(buffer);
                n += 1;
            }
            Ok(n)
        })
    }

    fn last_insert_rowid(&self) -> Option<i64> {
        Some(self.conn.last_insert_rowid())
    }

    fn query_text(&mut self, sql: &str) -> Result<Vec<Vec<Value>>, ServerError> {
        // Not cached: catalog reads would push the case's statements out of the cache.
        let mut stmt = self.conn.prepare(sql).map_err(error)?;
        let columns = stmt.column_count();
        let mut rows = stmt.raw_query();
        let mut out = Vec::new();
        while let Some(r) = rows.next().map_err(error)? {
            let mut values = Vec::with_capacity(columns);
            read_row(r, &mut values, columns).map_err(error)?;
            out.push(values);
        }
        Ok(out)
    }

    fn bulk(&mut self, sql: &BulkSql, payload_bytes: usize) -> Result<SqliteBulk, ServerError> {
        Ok(SqliteBulk {
            statement: self.prepare(&sql.sql)?,
            keys: sql.keys.clone(),
            payload: sql.payload.then(|| vec![0xa5; payload_bytes]),
            slots: [KeySlot::default(); 2],
        })
    }

    fn insert_rows(
        &mut self,
        bulk: &mut SqliteBulk,
        rows: &[KeyRow],
        control: &RunControl,
    ) -> Result<bool, ServerError> {
        let SqliteBulk { statement, keys, payload, slots } = bulk;
        self.timed(|me| {
            let mut stmt = me.conn.prepare_cached(&statement.0)?;
            // The payload is identical in every row: bind it once; SQLite keeps bindings across steps.
            if let Some(payload) = payload.as_deref() {
                stmt.raw_bind_parameter(keys.len() + 1, payload)?;
            }
            for chunk in rows.chunks(RunControl::PROGRESS_STEP) {
                for row in chunk {
                    for (i, ((field, storage), slot)) in keys.iter().zip(slots.iter_mut()).enumerate() {
                        if let Some(key) = field.of(row) {
                            stmt.raw_bind_parameter(i + 1, Bind(slot.bind(key, *storage)))?;
                        }
                    }
                    stmt.raw_execute()?;
                }
                if !counted(control, chunk.len()) {
                    return Ok(false);
                }
            }
            Ok(true)
        })
    }

    fn delete_keys(
        &mut self,
        bulk: &mut SqliteBulk,
        keys: &[Key],
        _per_statement: usize,
        control: &RunControl,
    ) -> Result<Option<u64>, ServerError> {
        let SqliteBulk { statement, keys: columns, slots, .. } = bulk;
        let storage = columns.first().map_or(Storage::Integer, |(_, s)| *s);
        self.timed(|me| {
            let mut stmt = me.conn.prepare_cached(&statement.0)?;
            let mut deleted = 0;
            for chunk in keys.chunks(RunControl::PROGRESS_STEP) {
                for &key in chunk {
                    stmt.raw_bind_parameter(1, Bind(slots[0].bind(key, storage)))?;
                    deleted += stmt.raw_execute()? as u64;
                }
                if control.is_cancelled() {
                    return Ok(None);
                }
            }
            Ok(Some(deleted))
        })
    }

    fn max_statement_bytes(&mut self) -> Result<Option<u64>, ServerError> {
        Ok(None)
    }

    fn lock_wait_ns(&self) -> Option<u64> {
        self.lock_wait_ns
    }
}
