//! [`ServerEngine`]: the [`Engine`] of every server and of SQLite, written once over a
//! [`Backend`]. On a server it works only in a namespace it creates itself (`pkbench` on a
//! managed server, a fresh `pkbench_…` on the user's), and drops it when done; SQLite gives
//! every case a database file of its own instead.

use super::backend::{Backend, SettingsFor};
use super::case::ServerCase;
use super::unique_suffix;
use crate::engines::dialect::Dialect;
use crate::engines::wire::Connection;
use crate::engines::{CaseSpec, Engine, EngineInfo, InsertCase};
use crate::strategy::Strategy;
use crate::{Error, ServerErrorKind};
use std::path::PathBuf;

/// An engine written once over its [`Backend`]. Field order matters: the connection closes before the managed server (in
/// the backend) stops.
pub struct ServerEngine<B: Backend> {
    pub(super) conn: B::Conn,
    pub(super) namespace: String,
    pub(super) backend: B,
    /// What opening found and did besides (leftovers of killed runs), one line each, until the
    /// caller takes them.
    pub(super) notices: Vec<String>,
    /// The server could not be reached again after the session was lost: nothing more to try.
    pub(super) lost: bool,
}

impl<B: Backend> std::fmt::Debug for ServerEngine<B> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ServerEngine")
            .field("engine", &B::KIND)
            .field("namespace", &self.namespace)
            .field("target", &self.backend.target())
            .finish()
    }
}

impl<B: Backend> ServerEngine<B> {
    /// Starts a managed server or connects to the user's (or readies SQLite's folder), and
    /// creates pkbench's namespace.
    pub fn open(settings: &B::Settings) -> Result<Self, Error> {
        let (backend, mut conn) = B::open(settings)?;
        let namespace = match backend.managed_dir() {
            Some(_) => "pkbench".to_string(),
            None => format!("pkbench_{}_{}", std::process::id(), unique_suffix() % 1_000_000),
        };
        let mut notices = backend.notices();
        notices.extend(super::leftovers::sweep(&backend, &mut conn, backend.target()));
        backend.create_namespace(&mut conn, &namespace)?;
        let mut engine = ServerEngine { conn, namespace, backend, notices, lost: false };
        let label = super::leftovers::Label::of_this_process().text();
        let ServerEngine { conn, namespace, backend, notices, .. } = &mut engine;
        if let Err(e) = backend.label_namespace(conn, namespace, &label) {
            notices.push(format!(
                "Could not label {} {namespace} as this run's ({e}): if the run is killed, remove it by hand",
                backend.dialect().namespace_word()
            ));
        }
        Ok(engine)
    }

    /// The managed server, if pkbench started one.
    pub fn managed(&self) -> Option<&B::Managed> {
        self.backend.managed()
    }

    /// The managed server's folder, if pkbench started one.
    pub fn managed_dir(&self) -> Option<&std::path::Path> {
        self.backend.managed_dir()
    }

    /// The namespace (PostgreSQL schema, MySQL database) pkbench works in.
    pub fn namespace(&self) -> &str {
        &self.namespace
    }

    /// The engine's dialect.
    pub fn dialect(&self) -> &'static dyn Dialect {
        self.backend.dialect()
    }

    /// Runs `sql` in pkbench's session, naming `what` in the error.
    pub(super) fn run(&mut self, sql: &str, what: impl FnOnce() -> String) -> Result<(), Error> {
        self.conn.execute(sql).map_err(|e| Error::server(what(), e))
    }

    /// `table` in pkbench's namespace.
    pub(super) fn qualify(&self, table: &str) -> String {
        self.dialect().qualify(&self.namespace, table)
    }

    /// `tables` in pkbench's namespace, comma-separated (as a statement over several names them).
    pub(super) fn qualify_all<T: AsRef<str>>(&self, tables: &[T]) -> String {
        tables.iter().map(|t| self.qualify(t.as_ref())).collect::<Vec<_>>().join(", ")
    }

    /// Readies the database of a case of `purpose` for `strategy`, then runs `create` in it;
    /// if `create` fails, ends the case again (`tables` and `what` as in
    /// [`close_case`](Self::close_case)).
    pub(super) fn open_case<T>(
        &mut self,
        purpose: SettingsFor,
        strategy: &str,
        (tables, what): (&[&str], &str),
        create: impl FnOnce(&mut Self) -> Result<T, Error>,
    ) -> Result<T, Error> {
        self.backend.open_case(&mut self.conn, purpose, strategy)?;
        let created = create(self);
        if created.is_err() {
            let _ = self.close_case(tables, what, false);
        }
        created
    }

    /// Ends a case: drops its `tables` (unqualified, last first) or closes its file, keeping it
    /// where asked if the case `finished`; returns where it was kept.
    pub(super) fn close_case(&mut self, tables: &[&str], what: &str, finished: bool) -> Result<Option<PathBuf>, Error> {
        let ServerEngine { conn, namespace, backend, .. } = self;
        backend.close_case(conn, namespace, tables, what, finished)
    }

    /// The settings a case reports for `purpose`, with where the server is and its version.
    pub(super) fn case_settings(
        &mut self,
        purpose: SettingsFor,
    ) -> Result<std::collections::BTreeMap<String, String>, Error> {
        let mut out = self.backend.settings(&mut self.conn, purpose)?;
        self.backend.settings_context(purpose, &mut out);
        Ok(out)
    }

    /// Replaces a lost session with a new one (see [`Backend::reconnect`]); false if the server
    /// cannot be reached.
    pub(super) fn replace_lost_session(&mut self) -> bool {
        if self.lost {
            return false;
        }
        match self.backend.reconnect() {
            Some(conn) => self.conn = conn,
            None => self.lost = true,
        }
        !self.lost
    }

    /// Rows in `table` (unqualified).
    pub(super) fn count_rows(&mut self, table: &str) -> Result<u64, Error> {
        let sql = format!("SELECT count(*) FROM {}", self.qualify(table));
        let n = self.conn.query_one_text(&sql).map_err(|e| Error::server("could not count rows", e))?;
        Ok(n.and_then(|v| v.as_u64()).unwrap_or(0))
    }

    /// Runs `body` in one transaction, committing if it succeeds and rolling back if not.
    pub(super) fn transaction<T>(&mut self, body: impl FnOnce(&mut Self) -> Result<T, Error>) -> Result<T, Error> {
        self.begin()?;
        let result = body(self);
        self.end(result)
    }

    /// Starts a transaction.
    pub(super) fn begin(&mut self) -> Result<(), Error> {
        let begin = self.dialect().begin();
        self.run(begin, || "could not begin a transaction".into())
    }

    /// Ends the open transaction: COMMIT if `result` is `Ok`, else ROLLBACK; returns `result`,
    /// or the COMMIT's error.
    pub(super) fn end<T>(&mut self, result: Result<T, Error>) -> Result<T, Error> {
        let end = if result.is_ok() { "COMMIT" } else { "ROLLBACK" };
        let ended = self.run(end, || format!("{end} failed"));
        result.and_then(|v| ended.map(|()| v))
    }

    /// Checks `strategy` renders and the server is new enough for it.
    fn check_strategy(&self, strategy: &Strategy) -> Result<(), Error> {
        let dialect = self.dialect();
        self.backend.bench_sql(strategy, &self.namespace)?;
        if let Some(reason) = self.backend.refusal(strategy) {
            return Err(Error::Unsupported { strategy: strategy.name.into(), engine: B::KIND.name().into(), reason });
        }
        match dialect.version_requirement(strategy, self.backend.version()) {
            Some(reason) => Err(dialect.unsupported(strategy, reason)),
            None => Ok(()),
        }
    }
}

impl<B: Backend> Drop for ServerEngine<B> {
    fn drop(&mut self) {
        let deadline = std::time::Instant::now() + DISK_FULL_WAIT;
        loop {
            match self.backend.drop_namespace(&mut self.conn, &self.namespace) {
                Ok(()) => return,
                // A server whose disk just filled has room again once it has undone the batch.
                Err(e) if e.kind == ServerErrorKind::DiskFull && std::time::Instant::now() < deadline => {
                    std::thread::sleep(std::time::Duration::from_millis(250));
                }
                Err(_) => break,
            }
        }
        // A lost session (a cut connection, a restarted server) leaves the namespace to a new one.
        if !self.lost
            && let Some(mut conn) = self.backend.reconnect()
        {
            let _ = self.backend.drop_namespace(&mut conn, &self.namespace);
        }
    }
}

/// How long dropping pkbench's namespace is tried again on a server whose disk is full.
const DISK_FULL_WAIT: std::time::Duration = std::time::Duration::from_secs(5);

impl<B: Backend> Engine for ServerEngine<B> {
    fn info(&self) -> EngineInfo {
        EngineInfo { name: B::KIND.name(), version: self.backend.version().to_string() }
    }

    fn describe(&self, strategy: &Strategy) -> String {
        let described = crate::engines::dialect::describe(self.dialect(), strategy);
        // A sharded engine's head spells its shards' tables.
        if self.dialect().kind() == B::KIND { described } else { format!("{described}, on each shard") }
    }

    fn insert_path(&self) -> &'static str {
        B::INSERT_PATH
    }

    fn check(&self, strategy: &Strategy) -> Result<(), Error> {
        self.check_strategy(strategy)
    }

    fn create_case(&mut self, spec: &CaseSpec<'_>) -> Result<Box<dyn InsertCase + '_>, Error> {
        self.check_strategy(spec.strategy)?;
        Ok(Box::new(ServerCase::create(self, spec)?))
    }

    fn app(&mut self) -> Option<&mut dyn crate::engines::app::AppEngine> {
        Some(self)
    }

    fn own_schema(&mut self) -> Option<&mut dyn crate::engines::own_schema::SchemaEngine> {
        Some(self)
    }

    fn take_notices(&mut self) -> Vec<String> {
        std::mem::take(&mut self.notices)
    }
}
