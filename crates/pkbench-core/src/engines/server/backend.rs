//! The extension point of a server engine: what is truly one server's own. Everything else —
//! the insert case, concurrent clients, the application workload, verification and cleanup — is
//! written once in [`super::ServerEngine`] over a [`Backend`], its wire [`Connection`] and its
//! [`Dialect`].

use super::ServerSettings;
use crate::Error;
use crate::engines::CaseSpec;
use crate::engines::dialect::Dialect;
use crate::engines::kind::EngineKind;
use crate::engines::own_schema::TreeCounters;
use crate::engines::sql::BenchSql;
use crate::engines::wire::Connection;
use crate::metrics::budget::CounterAccount;
use crate::results::{BtreeStats, Counters, ShardCounters};
use crate::strategy::Strategy;
use std::collections::BTreeMap;
use std::path::Path;

/// Which settings a case reports.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SettingsFor {
    /// An insert case (insert-growth, concurrent, remedy, churn, scale).
    Insert,
    /// The application workload.
    App,
}

/// One server engine's own parts.
pub trait Backend: Sized + Send + 'static {
    /// The wire connection it speaks.
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
    /// What the churn phases say happens after each DELETE.
    const DELETE_NOTE: &'static str;
    /// What remedy's compaction phase says ran.
    const COMPACT_NOTE: &'static str;

    /// The engine's dialect.
    fn dialect(&self) -> &'static dyn Dialect;

    /// Starts a managed server or connects to the user's (`settings.target`), checks the
    /// server's version and sets the session up. Returns the backend and its first connection.
    fn open(settings: &ServerSettings) -> Result<(Self, Self::Conn), Error>;

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
}
