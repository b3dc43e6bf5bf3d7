//! The SQLite engine: one fresh database file per case, through rusqlite's bundled build.

use super::super::{CaseReport, CaseSpec, Engine, EngineInfo, EngineKind, InsertCase, InsertClient, KeyRow, Physical};
use super::{SqliteSchema, SqliteSettings, client, counters, dbstat, render_schema, settings};
use crate::Error;
use crate::control::RunControl;
use crate::generators::Key;
use crate::results::Counters;
use crate::strategy::{Storage, Strategy};
use rusqlite::{Connection, OpenFlags, Statement};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;

/// The SQLite engine: creates each case's database in `settings.dir`.
#[derive(Debug, Clone)]
pub struct SqliteEngine {
    pub(super) settings: SqliteSettings,
}

impl SqliteEngine {
    /// The version of the SQLite library compiled in.
    pub fn version() -> String {
        rusqlite::version().to_string()
    }

    /// An engine with the given settings; nothing is opened until a case starts.
    pub fn new(settings: SqliteSettings) -> Result<Self, Error> {
        settings.validate()?;
        Ok(SqliteEngine { settings })
    }

    /// The settings in force.
    pub fn settings(&self) -> &SqliteSettings {
        &self.settings
    }
}

impl Engine for SqliteEngine {
    fn info(&self) -> EngineInfo {
        EngineInfo { name: EngineKind::Sqlite.name(), version: Self::version() }
    }

    fn insert_path(&self) -> &'static str {
        "one cached prepared single-row INSERT per row, BEGIN IMMEDIATE … COMMIT per batch"
    }

    fn check(&self, strategy: &Strategy) -> Result<(), Error> {
        render_schema(strategy).map(|_| ())
    }

    fn app(&mut self) -> Option<&mut dyn crate::engines::app::AppEngine> {
        Some(self)
    }

    fn own_schema(&mut self) -> Option<&mut dyn crate::engines::own_schema::SchemaEngine> {
        Some(self)
    }

    fn create_case(&mut self, spec: &CaseSpec<'_>) -> Result<Box<dyn InsertCase + '_>, Error> {
        let schema = render_schema(spec.strategy)?;
        let path = self.settings.dir.join(database_file_name(spec.strategy.name));
        refuse_existing(&path)?;
        let mut case = SqliteCase {
            conn: None,
            path,
            keep: self.settings.keep_db,
            schema,
            payload: vec![0xa5; spec.payload_bytes],
            primary_storage: spec.strategy.primary.storage,
            secondary_storage: spec.strategy.secondary.map(|s| s.storage),
            settings: self.settings.clone(),
            client_counters: Arc::default(),
        };
        let conn = Connection::open_with_flags(
            &case.path,
            OpenFlags::SQLITE_OPEN_READ_WRITE | OpenFlags::SQLITE_OPEN_CREATE | OpenFlags::SQLITE_OPEN_NO_MUTEX,
        )
        .map_err(|e| Error::sqlite(format!("could not create '{}'", case.path.display()), &case.path, e))?;
        self.settings.apply(&conn).map_err(|e| Error::sqlite("could not apply SQLite settings", &case.path, e))?;
        for stmt in &case.schema.create {
            conn.execute_batch(stmt)
                .map_err(|e| Error::sqlite(format!("could not create the table ({stmt})"), &case.path, e))?;
        }
        case.conn = Some(conn);
        // Start counting from here: schema creation is not part of any batch.
        case.take_counters()?;
        Ok(Box::new(case))
    }
}

/// Database file name for a strategy (strategy names are filesystem-safe).
fn database_file_name(strategy: &str) -> String {
    format!("{strategy}.sqlite")
}

/// One strategy's SQLite database.
struct SqliteCase {
    /// `None` only after `finish` closed it.
    conn: Option<Connection>,
    path: PathBuf,
    keep: bool,
    schema: SqliteSchema,
    payload: Vec<u8>,
    primary_storage: Storage,
    secondary_storage: Option<Storage>,
    /// For concurrent clients' connections.
    settings: SqliteSettings,
    client_counters: Arc<counters::ClientCounters>,
}

impl SqliteCase {
    fn conn(&self) -> &Connection {
        self.conn.as_ref().expect("connection is open until finish")
    }

    fn err(&self, context: &str, e: rusqlite::Error) -> Error {
        Error::sqlite(context, &self.path, e)
    }

    fn insert_rows(&self, rows: &[KeyRow], control: &RunControl) -> Result<(), Error> {
        let conn = self.conn();
        let params = self.schema.params;
        let mut stmt = conn.prepare_cached(&self.schema.insert).map_err(|e| self.err("could not prepare INSERT", e))?;
        let mut map = match &self.schema.insert_map {
            Some(sql) => Some(conn.prepare_cached(sql).map_err(|e| self.err("could not prepare INSERT", e))?),
            None => None,
        };
        // The payload is identical in every row: bind it once; SQLite keeps bindings across steps.
        stmt.raw_bind_parameter(params.payload, &self.payload[..]).map_err(|e| self.err("could not bind", e))?;
        let mut text = [0u8; 36];
        for chunk in rows.chunks(RunControl::PROGRESS_STEP) {
            for row in chunk {
                if let (Some(i), Some(k)) = (params.primary, row.primary) {
                    bind_key(&mut stmt, i, k, self.primary_storage, &mut text)
                        .map_err(|e| self.err("could not bind", e))?;
                }
                if let (Some(i), Some(k), Some(storage)) = (params.secondary, row.secondary, self.secondary_storage) {
                    bind_key(&mut stmt, i, k, storage, &mut text).map_err(|e| self.err("could not bind", e))?;
                }
                stmt.raw_execute().map_err(|e| self.err("INSERT failed", e))?;
                if let (Some(map), Some(ext), Some(storage)) = (map.as_mut(), row.secondary, self.secondary_storage) {
                    bind_key(map, 1, ext, storage, &mut text).map_err(|e| self.err("could not bind", e))?;
                    if let Some(pk) = row.primary {
                        bind_key(map, 2, pk, self.primary_storage, &mut text)
                            .map_err(|e| self.err("could not bind", e))?;
                    }
                    map.raw_execute().map_err(|e| self.err("INSERT into the mapping table failed", e))?;
                }
            }
            control.add_rows(chunk.len() as u64);
            if control.is_cancelled() {
                return Err(Error::Interrupted);
            }
        }
        Ok(())
    }
}

impl SqliteCase {
    fn delete_rows(&self, keys: &[Key], control: &RunControl) -> Result<u64, Error> {
        let conn = self.conn();
        let mut stmt = conn.prepare_cached(&self.schema.delete).map_err(|e| self.err("could not prepare DELETE", e))?;
        let mut map = match &self.schema.delete_map {
            Some(sql) => Some(conn.prepare_cached(sql).map_err(|e| self.err("could not prepare DELETE", e))?),
            None => None,
        };
        let mut text = [0u8; 36];
        let mut deleted = 0;
        for chunk in keys.chunks(RunControl::PROGRESS_STEP) {
            for &key in chunk {
                if let Some(map) = map.as_mut() {
                    bind_key(map, 1, key, self.primary_storage, &mut text)
                        .map_err(|e| self.err("could not bind", e))?;
                    map.raw_execute().map_err(|e| self.err("DELETE from the mapping table failed", e))?;
                }
                bind_key(&mut stmt, 1, key, self.primary_storage, &mut text)
                    .map_err(|e| self.err("could not bind", e))?;
                deleted += stmt.raw_execute().map_err(|e| self.err("DELETE failed", e))? as u64;
            }
            if control.is_cancelled() {
                return Err(Error::Interrupted);
            }
        }
        Ok(deleted)
    }
}

/// Binds one key in its storage form, without allocating.
#[inline]
pub(super) fn bind_key(
    stmt: &mut Statement<'_>,
    index: usize,
    key: Key,
    storage: Storage,
    text: &mut [u8; 36],
) -> rusqlite::Result<()> {
    match (key, storage.text_encoding()) {
        (Key::Int(v), _) => stmt.raw_bind_parameter(index, v),
        (Key::Uuid(b), Some(encoding)) => stmt.raw_bind_parameter(index, encoding.encode(&b, text)),
        (Key::Uuid(b), None) => stmt.raw_bind_parameter(index, &storage.binary_form(b)[..]),
    }
}

impl InsertCase for SqliteCase {
    fn effective_settings(&mut self) -> Result<BTreeMap<String, String>, Error> {
        settings::read_back(self.conn()).map_err(|e| self.err("could not read SQLite settings", e))
    }

    fn insert_batch(&mut self, rows: &[KeyRow], control: &RunControl) -> Result<(), Error> {
        self.conn().execute_batch("BEGIN IMMEDIATE").map_err(|e| self.err("could not begin a transaction", e))?;
        let result = self
            .insert_rows(rows, control)
            .and_then(|()| self.conn().execute_batch("COMMIT").map_err(|e| self.err("COMMIT failed", e)));
        if result.is_err() && !self.conn().is_autocommit() {
            let _ = self.conn().execute_batch("ROLLBACK");
        }
        result
    }

    fn take_counters(&mut self) -> Result<Counters, Error> {
        let mut c = counters::take(self.conn())?;
        c.accumulate(&self.client_counters.take());
        Ok(c)
    }

    fn connect(&mut self) -> Result<Box<dyn InsertClient + Send>, Error> {
        if self.schema.insert_map.is_some() {
            return Err(Error::InvalidInput(
                "a concurrent client inserts one row per statement; mapping-table strategies need two".into(),
            ));
        }
        Ok(Box::new(client::SqliteClient::open(client::ClientSpec {
            path: &self.path,
            settings: &self.settings,
            insert: &self.schema.insert,
            params: self.schema.params,
            payload: &self.payload,
            primary_storage: self.primary_storage,
            secondary_storage: self.secondary_storage,
            counters: Arc::clone(&self.client_counters),
        })?))
    }

    fn physical(&mut self) -> Result<Physical, Error> {
        let wal = std::fs::metadata(wal_path(&self.path)).ok().map(|m| m.len());
        let size_bytes = file_len(&self.path) + wal.unwrap_or(0);
        let btrees = dbstat::btree_stats(self.conn()).map_err(|e| self.err("could not read dbstat", e))?;
        Ok(Physical { size_bytes, wal_size_bytes: wal, btrees })
    }

    fn delete_by_primary(&mut self, keys: &[Key], control: &RunControl) -> Result<u64, Error> {
        self.conn().execute_batch("BEGIN IMMEDIATE").map_err(|e| self.err("could not begin a transaction", e))?;
        let result = self.delete_rows(keys, control).and_then(|n| {
            self.conn().execute_batch("COMMIT").map_err(|e| self.err("COMMIT failed", e))?;
            Ok(n)
        });
        if result.is_err() && !self.conn().is_autocommit() {
            let _ = self.conn().execute_batch("ROLLBACK");
        }
        result
    }

    fn compact(&mut self) -> Result<&'static str, Error> {
        self.conn().execute_batch("VACUUM").map_err(|e| self.err("VACUUM failed", e))?;
        Ok("SQLite: VACUUM; free_space_needed_bytes = the temporary copy (database size before) + the WAL it grew by")
    }

    fn finish(mut self: Box<Self>) -> Result<CaseReport, Error> {
        let conn = self.conn();
        let mut verified_rows = None;
        for table in &self.schema.tables {
            let n: i64 = conn
                .query_row(&format!("SELECT count(*) FROM {table}"), [], |r| r.get(0))
                .map_err(|e| self.err("could not count rows", e))?;
            // Every table of the case must hold the same rows; report the smallest count.
            verified_rows = Some(verified_rows.map_or(n as u64, |v: u64| v.min(n as u64)));
        }
        let wal = std::fs::metadata(wal_path(&self.path)).ok().map(|m| m.len());
        let size_bytes = file_len(&self.path) + wal.unwrap_or(0);
        let btrees = dbstat::btree_stats(conn).map_err(|e| self.err("could not read dbstat", e))?;
        if let Some(conn) = self.conn.take() {
            conn.close().map_err(|(_, e)| Error::sqlite("could not close the database", &self.path, e))?;
        }
        let kept = self.keep.then(|| self.path.clone());
        Ok(CaseReport { verified_rows: verified_rows.unwrap_or(0), size_bytes, wal_size_bytes: wal, btrees, kept })
    }
}

impl Drop for SqliteCase {
    fn drop(&mut self) {
        // Close before removing; keep the files only when asked and the case finished.
        let finished = self.conn.is_none();
        drop(self.conn.take());
        if !(self.keep && finished) {
            remove_database(&self.path);
        }
    }
}

fn with_suffix(path: &Path, suffix: &str) -> PathBuf {
    let mut s = path.as_os_str().to_owned();
    s.push(suffix);
    PathBuf::from(s)
}

pub(super) fn wal_path(path: &Path) -> PathBuf {
    with_suffix(path, "-wal")
}

pub(super) fn shm_path(path: &Path) -> PathBuf {
    with_suffix(path, "-shm")
}

/// Refuses to create a case's database at `path` if a file is there already.
pub(super) fn refuse_existing(path: &Path) -> Result<(), Error> {
    if path.exists() {
        return Err(Error::InvalidInput(format!(
            "'{}' already exists; pkbench will not overwrite it: choose another --out folder or move the file",
            path.display()
        )));
    }
    Ok(())
}

/// Removes a database file with its WAL and shared-memory files, where they exist.
pub(super) fn remove_database(path: &Path) {
    for p in [path.to_path_buf(), wal_path(path), shm_path(path)] {
        let _ = std::fs::remove_file(p);
    }
}

pub(super) fn file_len(path: &Path) -> u64 {
    std::fs::metadata(path).map_or(0, |m| m.len())
}
