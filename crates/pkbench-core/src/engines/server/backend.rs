//! The extension point of an engine: what is truly one engine's own. Everything else — the
//! insert case, concurrent clients, the application workload, a user's own schema,
//! verification and cleanup — is written once in [`super::ServerEngine`] over a [`Backend`],
//! its [`Connection`] and its [`Dialect`]. A server backend starts or reaches its server and
//! works in one namespace; SQLite's opens a fresh database file per case.

use crate::engines::CaseSpec;
use crate::engines::app::AppSql;
use crate::engines::dialect::Dialect;
use crate::engines::kind::EngineKind;
use crate::engines::own_schema::TreeCounters;
use crate::engines::sql::BenchSql;
use crate::engines::txn::ClientOptions;
use crate::engines::wire::Connection;
use crate::metrics::budget::CounterAccount;
use crate::results::{BtreeStats, Counters, LsmLevel, ShardCounters};
use crate::strategy::Strategy;
use crate::{Error, ServerError};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// How long pkbench tries to reach the user's server again after losing its session (a restart
/// takes a few seconds), to count what was committed and drop its namespace.
pub const RECONNECT_WINDOW: std::time::Duration = std::time::Duration::from_secs(10);

/// What a case is for: which settings it reports, and (on SQLite) which file and settings its
/// database gets.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SettingsFor {
    /// An insert case (insert-growth, concurrent, remedy, churn, scale).
    Insert,
    /// The application workload.
    App,
    /// A user's own schema (`run --schema`).
    Schema,
}

/// One engine's own parts.
pub trait Backend: Sized + Send + 'static {
    /// What [`open`](Self::open) takes.
    type Settings;
    /// The connection it speaks through.
    type Conn: Connection;
    /// The throwaway server it starts itself.
    type Managed;
    /// Its counters at one moment.
    type Snapshot: Default + Send;

    /// The engine.
    const KIND: EngineKind;
    /// How rows reach the engine, for results.
    const INSERT_PATH: &'static str;
    /// What each counter covers, recorded with the settings.
    const COUNTER_SCOPE: &'static str;
    /// What the churn phases say happens besides each DELETE, if anything.
    const DELETE_NOTE: Option<&'static str>;
    /// What remedy's compaction phase says ran.
    const COMPACT_NOTE: &'static str;
    /// Whether a table's size settles only once a full compaction has merged it (an LSM engine):
    /// then a finished case also measures its size after [`compact`](Self::compact). On a B-tree
    /// engine a compaction is a rebuild, not a settling.
    const SETTLES_BY_COMPACTION: bool = false;

    /// The engine's dialect.
    fn dialect(&self) -> &'static dyn Dialect;

    /// Starts a managed server or connects to the user's (`settings.target`), checks the
    /// server's version and sets the session up. Returns the backend and its first connection.
    fn open(settings: &Self::Settings) -> Result<(Self, Self::Conn), Error>;

    /// Opens one more session with the run's settings (a concurrent client).
    fn connect(&self) -> Result<Self::Conn, Error>;

    /// The server's version as it reports it.
    fn version(&self) -> &str;

    /// Where the server is, for results (a URL with its password hidden, or the managed
    /// server's socket folder).
    fn target(&self) -> &str;

    /// The managed server, if pkbench started one.
    fn managed(&self) -> Option<&Self::Managed>;

    /// The managed server's folder, if pkbench started one.
    fn managed_dir(&self) -> Option<&Path>;

    /// Server settings worth recording, by name.
    fn settings(&self, conn: &mut Self::Conn, purpose: SettingsFor) -> Result<BTreeMap<String, String>, Error>;

    /// Adds to a case's settings where the server is, its version and (for an insert case)
    /// what its counters cover.
    fn settings_context(&self, purpose: SettingsFor, out: &mut BTreeMap<String, String>) {
        out.insert("server".into(), self.target().to_string());
        out.insert("server_version".into(), self.version().to_string());
        if purpose == SettingsFor::Insert {
            // Server-wide counters are exact on a server only pkbench uses, not on a shared one.
            let scope = match self.managed() {
                Some(_) => {
                    format!("{}; exact here: the managed server runs only this case's statements", Self::COUNTER_SCOPE)
                }
                None => format!("{}; on this shared server they include other sessions' work", Self::COUNTER_SCOPE),
            };
            out.insert("counter_scope".into(), scope);
        }
    }

    /// The insert-growth tables' SQL for `strategy` in `namespace`: the shared renderer over
    /// the engine's dialect, unless the engine lays its tables out itself.
    fn bench_sql(&self, strategy: &Strategy, namespace: &str) -> Result<BenchSql, Error> {
        crate::engines::sql::bench::render(self.dialect(), strategy, namespace)
    }

    /// The application's SQL for `strategy` in `namespace` (likewise).
    fn app_sql(&self, strategy: &Strategy, namespace: &str) -> Result<AppSql, Error> {
        crate::engines::sql::app::render(self.dialect(), strategy, namespace)
    }

    /// Why this engine's concurrent clients cannot run with `options`, if they cannot.
    fn client_refusal(&self, _options: &ClientOptions) -> Option<String> {
        None
    }

    /// Creates pkbench's namespace on the server `open` connected to; creating fails if the name
    /// exists, so pkbench never works in a namespace it did not create.
    fn create_namespace(&self, conn: &mut Self::Conn, namespace: &str) -> Result<(), Error> {
        let dialect = self.dialect();
        conn.execute(&dialect.create_namespace(namespace)).map_err(|e| {
            let word = dialect.namespace_word();
            Error::server(
                format!("could not create {word} '{namespace}' (pkbench only works in a {word} it creates)"),
                e,
            )
        })?;
        self.namespace_created(namespace)
    }

    /// Labels pkbench's namespace on a user's server as made by this process
    /// ([`super::leftovers`]); nothing where pkbench owns the whole server or file.
    fn label_namespace(&self, _conn: &mut Self::Conn, _namespace: &str, _label: &str) -> Result<(), Error> {
        Ok(())
    }

    /// The labelled `pkbench_…` namespaces on a user's server: (name, label as stored); none
    /// where pkbench owns the whole server or file.
    fn labelled_namespaces(&self, _conn: &mut Self::Conn) -> Result<Vec<(String, String)>, Error> {
        Ok(Vec::new())
    }

    /// Whether the leftovers of killed runs on a user's server are only listed
    /// (`--keep-leftovers`), not removed.
    fn keep_leftovers(&self) -> bool {
        false
    }

    /// Drops pkbench's namespace, when the engine closes.
    fn drop_namespace(&self, conn: &mut Self::Conn, namespace: &str) -> Result<(), ServerError> {
        conn.execute(&self.dialect().drop_namespace(namespace))
    }

    /// A new session after pkbench's own was lost. The user's server may be restarting: it is
    /// tried for up to [`RECONNECT_WINDOW`] while it is unreachable or going down; a managed
    /// server, once.
    fn reconnect(&self) -> Option<Self::Conn> {
        let window = if Self::KIND.is_server() && self.managed_dir().is_none() {
            RECONNECT_WINDOW
        } else {
            std::time::Duration::ZERO
        };
        let deadline = std::time::Instant::now() + window;
        loop {
            match self.connect() {
                Ok(conn) => return Some(conn),
                Err(e)
                    if std::time::Instant::now() < deadline
                        && matches!(
                            e.server_kind(),
                            Some(crate::ServerErrorKind::Unreachable | crate::ServerErrorKind::ServerGone)
                        ) =>
                {
                    std::thread::sleep(std::time::Duration::from_millis(250));
                }
                Err(_) => return None,
            }
        }
    }

    /// Readies the database a case of `purpose` for `strategy` works in: nothing on a server
    /// (its namespace holds every case's tables); a fresh file on SQLite, which `conn` then
    /// reaches.
    fn open_case(&mut self, _conn: &mut Self::Conn, _purpose: SettingsFor, _strategy: &str) -> Result<(), Error> {
        Ok(())
    }

    /// Ends a case: drops its `tables` (unqualified, last first; `what` names them in errors)
    /// on a server; closes the file on SQLite, keeping it if asked and the case `finished`.
    /// Returns where the database was kept, if it was.
    fn close_case(
        &mut self,
        conn: &mut Self::Conn,
        namespace: &str,
        tables: &[&str],
        what: &str,
        _finished: bool,
    ) -> Result<Option<PathBuf>, Error> {
        drop_tables(self.dialect(), conn, namespace, tables, what)?;
        Ok(None)
    }

    /// The counters now; `tables` (unqualified, in `namespace`) are the case's tables.
    fn snapshot(&self, conn: &mut Self::Conn, namespace: &str, tables: &[&str]) -> Result<Self::Snapshot, Error>;

    /// What happened between two snapshots; counters that cost more than the cheap statistics
    /// to read are read only if `account` affords them.
    fn counters(
        &self,
        conn: &mut Self::Conn,
        span: (&Self::Snapshot, &Self::Snapshot),
        namespace: &str,
        tables: &[&str],
        account: &CounterAccount,
    ) -> Counters;

    /// A query returning (what a session waits for, sessions) for the sessions of this case busy
    /// in a statement on `table` (qualified), from the server's activity view; `None` where the
    /// server has none pkbench reads.
    fn wait_sample_sql(&self, _namespace: &str, _table: &str) -> Option<String> {
        None
    }

    /// Size on disk of `tables`, bytes.
    fn size_bytes(&self, conn: &mut Self::Conn, namespace: &str, tables: &[&str]) -> Result<u64, Error>;

    /// Size on disk and B-tree statistics of `tables` (none where the server does not let
    /// pkbench read them, rather than zeros).
    fn measure(&self, conn: &mut Self::Conn, namespace: &str, tables: &[&str])
    -> Result<(u64, Vec<BtreeStats>), Error>;

    /// Of the size [`measure`](Self::measure) reports, the write-ahead log's share, where the
    /// engine keeps it in a file of the case's own.
    fn wal_size_bytes(&self) -> Option<u64> {
        None
    }

    /// Like [`measure`](Self::measure) for a user's schema: every tree named `table` or
    /// `table.index`.
    fn measure_schema(
        &self,
        conn: &mut Self::Conn,
        namespace: &str,
        tables: &[&str],
    ) -> Result<(u64, Vec<BtreeStats>), Error> {
        let (mut size_bytes, mut btrees) = (0, Vec::new());
        for &table in tables {
            let (size, trees) = self.measure(conn, namespace, &[table])?;
            size_bytes += size;
            btrees.extend(trees.into_iter().map(|mut b| {
                if b.kind == "index" && !b.name.starts_with(&format!("{table}.")) {
                    b.name = format!("{table}.{}", b.name);
                } else if b.kind == "table" {
                    // InnoDB names its clustered index PRIMARY.
                    b.name = table.to_string();
                }
                b
            }));
        }
        Ok((size_bytes, btrees))
    }

    /// Each tree's counters of `tables` so far (`table`, `table.index`), where the server
    /// counts them per tree; empty where it does not.
    fn tree_counters(
        &self,
        _conn: &mut Self::Conn,
        _namespace: &str,
        _tables: &[&str],
    ) -> Result<BTreeMap<String, TreeCounters>, Error> {
        Ok(BTreeMap::new())
    }

    /// Runs what follows a committed DELETE (PostgreSQL's plain VACUUM); `tables` is the
    /// comma-separated qualified list.
    fn after_delete(&self, _conn: &mut Self::Conn, _tables: &str) -> Result<(), Error> {
        Ok(())
    }

    /// Rebuilds `tables` (comma-separated, qualified) to give free pages back.
    fn compact(&self, conn: &mut Self::Conn, tables: &str) -> Result<(), Error>;

    /// Why this engine refuses `strategy` beyond its dialect's reasons (a sharded engine's).
    fn refusal(&self, _strategy: &Strategy) -> Option<String> {
        None
    }

    /// Called once pkbench's namespace exists on the server `open` connected to (a sharded
    /// engine creates it on its shards too).
    fn namespace_created(&self, _namespace: &str) -> Result<(), Error> {
        Ok(())
    }

    /// Creates a case's tables: `sql.create` in pkbench's session (a sharded engine creates them
    /// on every shard and a routing table on its head).
    fn create_tables(&self, conn: &mut Self::Conn, sql: &BenchSql, spec: &CaseSpec<'_>) -> Result<(), Error> {
        let _ = spec;
        for stmt in &sql.create {
            conn.execute(stmt).map_err(|e| Error::server(format!("could not create the table ({stmt})"), e))?;
        }
        Ok(())
    }

    /// Called after a case's tables were dropped in pkbench's session (a sharded engine drops
    /// them on its shards).
    fn tables_dropped(&self, _namespace: &str, _tables: &[&str]) -> Result<(), Error> {
        Ok(())
    }

    /// Each shard's part of the last [`counters`](Self::counters) span, on a sharded engine.
    fn take_shards(&self) -> Option<Vec<ShardCounters>> {
        None
    }

    /// On an LSM engine, its sorted files by level, read with the last
    /// [`counters`](Self::counters).
    fn take_levels(&self) -> Option<Vec<LsmLevel>> {
        None
    }

    /// What opening the engine noticed that the person running it should know (a setting that
    /// trades correctness for speed), one line each.
    fn notices(&self) -> Vec<String> {
        Vec::new()
    }
}

/// Drops `tables` (unqualified, in `namespace`), last first, in one statement.
pub fn drop_tables<C: Connection>(
    dialect: &dyn Dialect,
    conn: &mut C,
    namespace: &str,
    tables: &[&str],
    what: &str,
) -> Result<(), Error> {
    let list: Vec<String> = tables.iter().rev().map(|t| dialect.qualify(namespace, t)).collect();
    let sql = format!("DROP TABLE IF EXISTS {}", list.join(", "));
    conn.execute(&sql).map_err(|e| Error::server(format!("could not drop the {what}"), e))
}
