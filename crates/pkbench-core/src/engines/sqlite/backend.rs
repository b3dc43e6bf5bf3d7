//! SQLite as a [`Backend`] of the engine core: what only SQLite has. Every case gets a fresh
//! database file in the run's folder with the run's settings (page size, journal mode,
//! `synchronous`, cache size), concurrent clients open more connections to it with a timed
//! busy handler, counters come from `sqlite3_db_status`, and size and B-trees from the files
//! and `dbstat`. The insert case, clients, application and own-schema workloads are the core's.

use super::counters::{self, ClientCounters};
use super::dialect::SqliteDialect;
use super::{SqliteSettings, app_schema, physical, render_schema, settings};
use crate::Error;
use crate::engines::app::AppSql;
use crate::engines::dialect::Dialect;
use crate::engines::kind::EngineKind;
use crate::engines::server::{Backend, ServerEngine, SettingsFor};
use crate::engines::sql::BenchSql;
use crate::engines::txn::ClientOptions;
use crate::engines::wire::sqlite::SqliteConnection;
use crate::metrics::budget::CounterAccount;
use crate::results::{BtreeStats, Counters};
use crate::strategy::Strategy;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;

/// The SQLite engine: the engine core over [`SqliteBackend`].
pub type SqliteEngine = ServerEngine<SqliteBackend>;

impl ServerEngine<SqliteBackend> {
    /// An engine with the given settings, creating each case's database in `settings.dir`;
    /// nothing is opened until a case starts.
    pub fn new(settings: SqliteSettings) -> Result<Self, Error> {
        Self::open(&settings)
    }
}

/// The application's settings beyond the engine's own (`--sync`, `--page-size`, `--cache-mb`).
const APP_PRAGMAS: &str = "PRAGMA foreign_keys = ON; PRAGMA temp_store = MEMORY; \
     PRAGMA trusted_schema = OFF; PRAGMA busy_timeout = 5000; PRAGMA journal_size_limit = 67108864;";

/// A reader of `dbstat`'s B-trees.
type Trees = fn(&rusqlite::Connection) -> rusqlite::Result<Vec<BtreeStats>>;

/// The database file of the case in progress.
#[derive(Debug)]
struct CaseFile {
    path: PathBuf,
    purpose: SettingsFor,
}

/// SQLite's own parts.
#[derive(Debug)]
pub struct SqliteBackend {
    settings: SqliteSettings,
    version: String,
    folder: String,
    case: Option<CaseFile>,
    /// Counters of the case's concurrent clients, added as they go and taken with the case's.
    clients: Arc<ClientCounters>,
}

impl SqliteBackend {
    fn case(&self) -> Result<&CaseFile, Error> {
        self.case.as_ref().ok_or_else(|| Error::Internal("no SQLite case is open".into()))
    }

    fn err(&self, context: &str, e: impl Into<rusqlite::Error>) -> Error {
        let path = self.case.as_ref().map_or(self.settings.dir.as_path(), |c| c.path.as_path());
        Error::sqlite(context, path, e.into())
    }

    /// Applies the settings a fresh database of `purpose` takes.
    fn provision(&self, conn: &rusqlite::Connection, purpose: SettingsFor) -> Result<(), Error> {
        let settings = &self.settings;
        if purpose == SettingsFor::App {
            // auto_vacuum takes effect only before the file is first written, i.e. before the
            // switch to WAL; and it fixes the page size, so that comes first.
            conn.pragma_update(None, "page_size", settings.page_size)
                .map_err(|e| self.err("could not set page_size", e))?;
            conn.execute_batch("PRAGMA auto_vacuum = INCREMENTAL")
                .map_err(|e| self.err("could not set auto_vacuum", e))?;
        }
        settings.apply(conn).map_err(|e| self.err("could not apply SQLite settings", e))?;
        match purpose {
            SettingsFor::Insert => {}
            SettingsFor::App => conn
                .execute_batch(APP_PRAGMAS)
                .map_err(|e| self.err("could not apply the application's settings", e))?,
            SettingsFor::Schema => {
                conn.execute_batch("PRAGMA foreign_keys = ON")
                    .map_err(|e| self.err("could not enforce foreign keys", e))?;
                conn.set_prepared_statement_cache_capacity(64);
            }
        }
        Ok(())
    }

    /// The database's size (with its WAL) and the B-trees `trees` reads from `dbstat`.
    fn measured(&self, conn: &SqliteConnection, trees: Trees) -> Result<(u64, Vec<BtreeStats>), Error> {
        let (size, _) = self.sizes()?;
        let btrees = trees(conn.raw()).map_err(|e| self.err("could not read dbstat", e))?;
        Ok((size, btrees))
    }

    /// The database file's size and its WAL's, bytes.
    fn sizes(&self) -> Result<(u64, Option<u64>), Error> {
        let path = &self.case()?.path;
        let wal = std::fs::metadata(wal_path(path)).ok().map(|m| m.len());
        Ok((file_len(path) + wal.unwrap_or(0), wal))
    }
}

impl Backend for SqliteBackend {
    type Settings = SqliteSettings;
    type Conn = SqliteConnection;
    type Managed = ();
    type Snapshot = Counters;

    const KIND: EngineKind = EngineKind::Sqlite;
    const INSERT_PATH: &'static str =
        "one cached prepared single-row INSERT per row, BEGIN IMMEDIATE … COMMIT per batch";
    const COUNTER_SCOPE: &'static str =
        "page-cache counters (sqlite3_db_status) of every connection to the case's own database file";
    const DELETE_NOTE: Option<&'static str> = None;
    const COMPACT_NOTE: &'static str =
        "SQLite: VACUUM; free_space_needed_bytes = the temporary copy (database size before) + the WAL it grew by";

    fn dialect(&self) -> &'static dyn Dialect {
        &SqliteDialect
    }

    fn open(settings: &SqliteSettings) -> Result<(Self, SqliteConnection), Error> {
        settings.validate()?;
        let conn = SqliteConnection::in_memory().map_err(|e| Error::server("could not open SQLite", e))?;
        let backend = SqliteBackend {
            settings: settings.clone(),
            version: rusqlite::version().to_string(),
            folder: settings.dir.display().to_string(),
            case: None,
            clients: Arc::default(),
        };
        Ok((backend, conn))
    }

    fn connect(&self) -> Result<SqliteConnection, Error> {
        let path = &self.case()?.path;
        let err = |context: &str, e| Error::server(context, e);
        let mut conn = SqliteConnection::open(path, false).map_err(|e| err("could not open another connection", e))?;
        self.settings.apply_to_connection(conn.raw()).map_err(|e| self.err("could not apply SQLite settings", e))?;
        conn.time_lock_waits().map_err(|e| err("could not set a busy handler", e))?;
        // Start counting from here: opening is not part of any interval.
        counters::take(conn.raw())?;
        let clients = Arc::clone(&self.clients);
        conn.after_each_statement(Box::new(move |raw| {
            if let Ok(c) = counters::take(raw) {
                clients.add(&c);
            }
        }));
        Ok(conn)
    }

    fn version(&self) -> &str {
        &self.version
    }

    fn target(&self) -> &str {
        &self.folder
    }

    fn managed(&self) -> Option<&()> {
        None
    }

    fn managed_dir(&self) -> Option<&Path> {
        None
    }

    fn settings(&self, conn: &mut SqliteConnection, purpose: SettingsFor) -> Result<BTreeMap<String, String>, Error> {
        let raw = conn.raw();
        let read = |e| self.err("could not read SQLite settings", e);
        let mut out = settings::read_back(raw).map_err(read)?;
        let extra: &[&str] = match purpose {
            SettingsFor::Insert => &[],
            SettingsFor::App => &["foreign_keys", "auto_vacuum", "temp_store"],
            SettingsFor::Schema => &["foreign_keys"],
        };
        for pragma in extra {
            let v: i64 = raw.query_row(&format!("PRAGMA {pragma}"), [], |r| r.get(0)).map_err(read)?;
            out.insert((*pragma).to_string(), v.to_string());
        }
        Ok(out)
    }

    fn settings_context(&self, _purpose: SettingsFor, _out: &mut BTreeMap<String, String>) {
        // `read_back` names the SQLite version; there is no server and no one else's work.
    }

    fn bench_sql(&self, strategy: &Strategy, _namespace: &str) -> Result<BenchSql, Error> {
        Ok(render_schema(strategy)?.bench_sql(strategy))
    }

    fn app_sql(&self, strategy: &Strategy, _namespace: &str) -> Result<AppSql, Error> {
        app_schema::render(strategy)
    }

    fn client_refusal(&self, options: &ClientOptions) -> Option<String> {
        (*options != ClientOptions::default()).then(|| {
            "--txn and --isolation need a server engine (--engine postgres or mariadb): SQLite runs one writer at a time, always serializable".into()
        })
    }

    fn create_namespace(&self, _conn: &mut SqliteConnection, _namespace: &str) -> Result<(), Error> {
        // Every case has a database file of its own instead.
        Ok(())
    }

    fn drop_namespace(&self, _conn: &mut SqliteConnection, _namespace: &str) -> Result<(), crate::ServerError> {
        Ok(())
    }

    fn open_case(&mut self, conn: &mut SqliteConnection, purpose: SettingsFor, strategy: &str) -> Result<(), Error> {
        let prefix = match purpose {
            SettingsFor::Insert => "",
            SettingsFor::App => "app-",
            SettingsFor::Schema => "schema-",
        };
        // Strategy names are filesystem-safe.
        let path = self.settings.dir.join(format!("{prefix}{strategy}.sqlite"));
        refuse_existing(&path)?;
        crate::util::folder::claim_database(&path)?;
        let file = SqliteConnection::open(&path, true)
            .map_err(|e| Error::server(format!("could not create '{}'", path.display()), e))?;
        self.case = Some(CaseFile { path, purpose });
        self.clients.take();
        if let Err(e) = self.provision(file.raw(), purpose) {
            drop(file);
            self.close_file(false);
            return Err(e);
        }
        *conn = file;
        Ok(())
    }

    fn close_case(
        &mut self,
        conn: &mut SqliteConnection,
        _namespace: &str,
        _tables: &[&str],
        _what: &str,
        finished: bool,
    ) -> Result<Option<PathBuf>, Error> {
        let idle = SqliteConnection::in_memory().map_err(|e| Error::server("could not open SQLite", e))?;
        let closed = std::mem::replace(conn, idle).close();
        let keep = finished && closed.is_ok() && self.settings.keep_db;
        let kept = self.close_file(keep);
        closed.map_err(|e| Error::server("could not close the database", e))?;
        Ok(kept)
    }

    fn snapshot(&self, conn: &mut SqliteConnection, _namespace: &str, _tables: &[&str]) -> Result<Counters, Error> {
        let mut c = counters::take(conn.raw())?;
        c.accumulate(&self.clients.take());
        Ok(c)
    }

    fn counters(
        &self,
        _conn: &mut SqliteConnection,
        (_, now): (&Counters, &Counters),
        _namespace: &str,
        _tables: &[&str],
        _account: &CounterAccount,
    ) -> Counters {
        // Every snapshot reads and resets the counters: it is the span since the one before.
        *now
    }

    fn size_bytes(&self, _conn: &mut SqliteConnection, _namespace: &str, _tables: &[&str]) -> Result<u64, Error> {
        Ok(self.sizes()?.0)
    }

    fn measure(
        &self,
        conn: &mut SqliteConnection,
        _namespace: &str,
        _tables: &[&str],
    ) -> Result<(u64, Vec<BtreeStats>), Error> {
        self.measured(conn, physical::btree_stats)
    }

    fn wal_size_bytes(&self) -> Option<u64> {
        self.sizes().ok().and_then(|(_, wal)| wal)
    }

    fn measure_schema(
        &self,
        conn: &mut SqliteConnection,
        _namespace: &str,
        _tables: &[&str],
    ) -> Result<(u64, Vec<BtreeStats>), Error> {
        self.measured(conn, physical::schema_trees)
    }

    fn compact(&self, conn: &mut SqliteConnection, _tables: &str) -> Result<(), Error> {
        use crate::engines::wire::Connection;
        conn.execute("VACUUM").map_err(|e| Error::server("VACUUM failed", e))
    }
}

impl SqliteBackend {
    /// Forgets the case's file, removing it (with its WAL and shared memory) unless `keep`;
    /// returns where it was kept. An application database is never kept.
    fn close_file(&mut self, keep: bool) -> Option<PathBuf> {
        let case = self.case.take()?;
        if keep && case.purpose != SettingsFor::App {
            return Some(case.path);
        }
        remove_database(&case.path);
        None
    }
}

fn with_suffix(path: &Path, suffix: &str) -> PathBuf {
    let mut s = path.as_os_str().to_owned();
    s.push(suffix);
    PathBuf::from(s)
}

/// The write-ahead log beside the database at `path`.
pub(super) fn wal_path(path: &Path) -> PathBuf {
    with_suffix(path, "-wal")
}

/// The shared-memory file beside the database at `path`.
pub(super) fn shm_path(path: &Path) -> PathBuf {
    with_suffix(path, "-shm")
}

/// Refuses to create a case's database at `path` if a file is there already.
pub(super) fn refuse_existing(path: &Path) -> Result<(), Error> {
    if path.exists() {
        return Err(Error::AlreadyExists(format!(
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

/// Size of the file at `path`, bytes (0 if there is none).
pub(super) fn file_len(path: &Path) -> u64 {
    std::fs::metadata(path).map_or(0, |m| m.len())
}
