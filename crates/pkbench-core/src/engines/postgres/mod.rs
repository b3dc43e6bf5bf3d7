//! PostgreSQL: a managed throwaway cluster or the user's server at a URL. pkbench works only in
//! its own schema there (`pkbench` on a managed cluster, a fresh `pkbench_…` on the user's),
//! created and dropped by it.

mod app;
mod app_bound;
mod app_schema;
mod client;
mod column;
mod counters;
mod maintenance;
mod physical;
mod schema;
mod server;

pub use app_schema::render as render_app_schema;
pub use schema::{PgSchema, render as render_schema};
pub use server::{MAX_WAL_MB, ManagedPostgres, WAL_KEEP_MB};

use super::server::{ServerSettings, ServerTarget, redact_url};
use super::{CaseReport, CaseSpec, Engine, EngineInfo, InsertCase, InsertClient, KeyRow, Physical};
use crate::Error;
use crate::control::RunControl;
use crate::generators::Key;
use crate::results::Counters;
use crate::strategy::{Storage, Strategy};
use column::Column;
use counters::Snapshot;
use postgres::types::ToSql;
use postgres::{Client, NoTls, Statement};
use std::collections::BTreeMap;
use std::str::FromStr;

/// Rows per INSERT statement (one array element per row).
const ROWS_PER_STATEMENT: usize = 1000;

/// What each counter covers, recorded with the settings: on a server other sessions use, the
/// WAL counters include their writes too.
const COUNTER_SCOPE: &str = "WAL counters (wal_bytes, wal_records, wal_fpi, wal_fpi_bytes, page_splits) are server-wide; \
cache hits/misses are this case's tables (pg_statio_user_tables); index_blocks_touched is this case's indexes";

/// The PostgreSQL engine. Field order matters: the client closes before the managed server
/// stops.
pub struct PostgresEngine {
    client: Client,
    schema: String,
    created_schema: bool,
    version: String,
    version_num: i32,
    walinspect: bool,
    pgstattuple: bool,
    durable_commits: bool,
    target: String,
    /// How concurrent clients connect (the same server, user and database).
    connect_config: postgres::Config,
    server: Option<ManagedPostgres>,
}

impl std::fmt::Debug for PostgresEngine {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("PostgresEngine").field("schema", &self.schema).field("target", &self.target).finish()
    }
}

impl PostgresEngine {
    /// Starts a managed cluster or connects to the user's server, and creates pkbench's schema.
    pub fn open(settings: &ServerSettings) -> Result<Self, Error> {
        let (mut client, server, target, schema, connect_config) = match &settings.target {
            ServerTarget::Managed { server_bin } => {
                let server = ManagedPostgres::start(server_bin.as_deref(), settings.cache_mb)?;
                let client = server
                    .config()
                    .connect(NoTls)
                    .map_err(|e| Error::postgres("could not connect to the managed PostgreSQL server", e))?;
                let target = format!("managed cluster, socket in {}", server.dir().display());
                let config = server.config();
                (client, Some(server), target, "pkbench".to_string(), config)
            }
            ServerTarget::External { url } => {
                let shown = redact_url(url);
                let config = postgres::Config::from_str(url)
                    .map_err(|e| Error::InvalidInput(format!("'{shown}' is not a PostgreSQL URL: {e}")))?;
                let client =
                    config.connect(NoTls).map_err(|e| Error::postgres(format!("could not connect to {shown}"), e))?;
                let schema = format!("pkbench_{}_{}", std::process::id(), super::server::unique_suffix() % 1_000_000);
                (client, None, shown, schema, config)
            }
        };
        let version: String = client
            .query_one("SHOW server_version", &[])
            .map_err(|e| Error::postgres("could not read the server version", e))?
            .get(0);
        // pg_stat_force_next_flush() and pg_walinspect arrived in PostgreSQL 15.
        let version_num: i32 = client
            .query_one("SELECT current_setting('server_version_num')::int", &[])
            .map_err(|e| Error::postgres("could not read the server version", e))?
            .get(0);
        if version_num < 150_000 {
            return Err(Error::InvalidInput(format!(
                "PostgreSQL {version} is too old: pkbench needs PostgreSQL 15 or newer (pg_stat_force_next_flush, pg_walinspect)"
            )));
        }
        if server.is_some() {
            client
                .batch_execute(
                    "CREATE EXTENSION IF NOT EXISTS pg_walinspect; CREATE EXTENSION IF NOT EXISTS pgstattuple;",
                )
                .map_err(|e| Error::postgres("could not create the pg_walinspect and pgstattuple extensions", e))?;
        }
        let installed: Vec<String> = client
            .query("SELECT extname::text FROM pg_extension WHERE extname IN ('pg_walinspect', 'pgstattuple')", &[])
            .map_err(|e| Error::postgres("could not list extensions", e))?
            .iter()
            .map(|r| r.get(0))
            .collect();
        // CREATE SCHEMA fails if the name exists: pkbench never works in a schema it did not create.
        client.batch_execute(&format!("CREATE SCHEMA {schema}")).map_err(|e| {
            Error::postgres(
                format!("could not create schema '{schema}' (pkbench only works in a schema it creates)"),
                e,
            )
        })?;
        let commit = if settings.durable_commits { "on" } else { "off" };
        client
            .batch_execute(&format!("SET synchronous_commit = {commit}"))
            .map_err(|e| Error::postgres("could not set synchronous_commit", e))?;
        Ok(PostgresEngine {
            client,
            schema,
            created_schema: true,
            version,
            version_num,
            walinspect: installed.iter().any(|e| e == "pg_walinspect"),
            pgstattuple: installed.iter().any(|e| e == "pgstattuple"),
            durable_commits: settings.durable_commits,
            target,
            connect_config,
            server,
        })
    }

    /// The managed cluster, if pkbench started one.
    pub fn managed(&self) -> Option<&ManagedPostgres> {
        self.server.as_ref()
    }

    /// The schema pkbench works in.
    pub fn schema(&self) -> &str {
        &self.schema
    }
}

impl Drop for PostgresEngine {
    fn drop(&mut self) {
        if self.created_schema {
            let _ = self.client.batch_execute(&format!("DROP SCHEMA IF EXISTS {} CASCADE", self.schema));
        }
    }
}

impl Engine for PostgresEngine {
    fn info(&self) -> EngineInfo {
        EngineInfo { name: "postgres", version: self.version.clone() }
    }

    fn insert_path(&self) -> &'static str {
        "multi-row INSERT … SELECT FROM unnest($arrays) (generate_series for engine-assigned keys), 1,000 rows per statement, one transaction per batch"
    }

    fn check(&self, strategy: &Strategy) -> Result<(), Error> {
        render_schema(strategy, &self.schema)?;
        match schema::version_requirement(strategy, self.version_num) {
            Some(reason) => {
                Err(Error::Unsupported { strategy: strategy.name.into(), engine: "postgres".into(), reason })
            }
            None => Ok(()),
        }
    }

    fn app(&mut self) -> Option<&mut dyn super::app::AppEngine> {
        Some(self)
    }

    fn create_case(&mut self, spec: &CaseSpec<'_>) -> Result<Box<dyn InsertCase + '_>, Error> {
        self.check(spec.strategy)?;
        let sql = render_schema(spec.strategy, &self.schema)?;
        for stmt in &sql.create {
            self.client
                .batch_execute(stmt)
                .map_err(|e| Error::postgres(format!("could not create the table ({stmt})"), e))?;
        }
        let prepare = |client: &mut Client, s: &str| {
            client.prepare(s).map_err(|e| Error::postgres("could not prepare INSERT", e))
        };
        let insert = prepare(&mut self.client, &sql.insert)?;
        let insert_map = match &sql.insert_map {
            Some(s) => Some(prepare(&mut self.client, s)?),
            None => None,
        };
        let deleter =
            maintenance::Deleter::prepare(&mut self.client, &self.schema, spec.strategy, sql.insert_map.is_some())?;
        let mut case = PgCase {
            strategy: spec.strategy.name,
            deleter,
            payload: vec![0xa5; spec.payload_bytes],
            tables: sql.tables.clone(),
            insert,
            insert_map,
            primary: Column::for_storage(spec.strategy.client_primary().map(|_| spec.strategy.primary.storage)),
            secondary: Column::for_storage(spec.strategy.secondary.map(|s| s.storage)),
            storages: [
                spec.strategy.client_primary().map(|_| spec.strategy.primary.storage),
                spec.strategy.secondary.map(|s| s.storage),
            ],
            last: Snapshot::default(),
            dropped: false,
            engine: self,
        };
        case.last = case.snapshot()?;
        Ok(Box::new(case))
    }
}

struct PgCase<'a> {
    engine: &'a mut PostgresEngine,
    /// The strategy's name, for errors.
    strategy: &'static str,
    /// DELETEs by primary key, unless the server generates the keys.
    deleter: Option<maintenance::Deleter>,
    payload: Vec<u8>,
    tables: Vec<&'static str>,
    insert: Statement,
    insert_map: Option<Statement>,
    primary: Column,
    secondary: Column,
    /// Storage of the client-side primary and external key columns (for concurrent clients).
    storages: [Option<Storage>; 2],
    last: Snapshot,
    dropped: bool,
}

impl PgCase<'_> {
    fn snapshot(&mut self) -> Result<Snapshot, Error> {
        counters::snapshot(&mut self.engine.client, &self.engine.schema, &self.tables, self.engine.durable_commits)
            .map_err(|e| Error::postgres("could not read PostgreSQL statistics", e))
    }

    /// The case's tables, schema-qualified and comma-separated.
    fn table_list(&self) -> String {
        let list: Vec<String> = self.tables.iter().map(|t| format!("{}.{t}", self.engine.schema)).collect();
        list.join(", ")
    }

    fn drop_tables(&mut self) -> Result<(), Error> {
        if !self.dropped {
            self.dropped = true;
            let list = self.table_list();
            self.engine
                .client
                .batch_execute(&format!("DROP TABLE IF EXISTS {list}"))
                .map_err(|e| Error::postgres("could not drop the benchmark table", e))?;
        }
        Ok(())
    }
}

impl InsertCase for PgCase<'_> {
    fn effective_settings(&mut self) -> Result<BTreeMap<String, String>, Error> {
        let mut out = BTreeMap::new();
        for name in [
            "shared_buffers",
            "max_wal_size",
            "wal_keep_size",
            "synchronous_commit",
            "full_page_writes",
            "checkpoint_timeout",
            "autovacuum",
            "fsync",
        ] {
            let v: String = self
                .engine
                .client
                .query_one(&format!("SHOW {name}"), &[])
                .map_err(|e| Error::postgres(format!("could not read {name}"), e))?
                .get(0);
            out.insert(name.to_string(), v);
        }
        out.insert("server".into(), self.engine.target.clone());
        out.insert("server_version".into(), self.engine.version.clone());
        out.insert("counter_scope".into(), COUNTER_SCOPE.into());
        Ok(out)
    }

    fn insert_batch(&mut self, rows: &[KeyRow], control: &RunControl) -> Result<(), Error> {
        let PgCase { engine, payload, insert, insert_map, primary, secondary, .. } = self;
        let mut tx = engine.client.transaction().map_err(|e| Error::postgres("could not begin a transaction", e))?;
        for chunk in rows.chunks(ROWS_PER_STATEMENT) {
            primary.fill(chunk.iter().map(|r| r.primary));
            secondary.fill(chunk.iter().map(|r| r.secondary));
            let count = chunk.len() as i32;
            let mut params: Vec<&(dyn ToSql + Sync)> =
                [primary.param(), secondary.param()].into_iter().flatten().collect();
            if params.is_empty() {
                params.extend([payload as &(dyn ToSql + Sync), &count]);
            } else {
                params.push(payload);
            }
            tx.execute(&*insert, &params).map_err(|e| Error::postgres("INSERT failed", e))?;
            if let (Some(map), Some(ext), Some(pk)) = (insert_map.as_ref(), secondary.param(), primary.param()) {
                tx.execute(map, &[ext, pk]).map_err(|e| Error::postgres("INSERT into the mapping table failed", e))?;
            }
            control.add_rows(chunk.len() as u64);
            if control.is_cancelled() {
                return Err(Error::Interrupted);
            }
        }
        tx.commit().map_err(|e| Error::postgres("COMMIT failed", e))
    }

    fn take_counters(&mut self) -> Result<Counters, Error> {
        let now = self.snapshot()?;
        let walinspect = self.engine.walinspect.then_some((self.engine.schema.as_str(), self.tables.as_slice()));
        let c = counters::between(&mut self.engine.client, &self.last, &now, walinspect);
        self.last = now;
        Ok(c)
    }

    fn connect(&mut self) -> Result<Box<dyn InsertClient + Send>, Error> {
        if self.insert_map.is_some() {
            return Err(Error::InvalidInput(
                "a concurrent client inserts one row per statement; mapping-table strategies need two".into(),
            ));
        }
        let [primary, secondary] = self.storages;
        let sql = client::single_row_insert(&self.engine.schema, primary, secondary);
        let c = client::PgClient::connect(
            &self.engine.connect_config,
            self.engine.durable_commits,
            &sql,
            &self.payload,
            self.storages,
        )?;
        Ok(Box::new(c))
    }

    fn physical(&mut self) -> Result<Physical, Error> {
        let (size_bytes, btrees) =
            maintenance::measure(&mut self.engine.client, &self.engine.schema, &self.tables, self.engine.pgstattuple)?;
        Ok(Physical { size_bytes, wal_size_bytes: None, btrees })
    }

    fn delete_by_primary(&mut self, keys: &[Key], control: &RunControl) -> Result<u64, Error> {
        let tables = self.table_list();
        let deleter = self.deleter.as_mut().ok_or_else(|| maintenance::server_keys_unknown(self.strategy))?;
        deleter.delete(&mut self.engine.client, &tables, keys, control)
    }

    fn delete_note(&self) -> Option<&'static str> {
        Some(maintenance::DELETE_NOTE)
    }

    fn compact(&mut self) -> Result<&'static str, Error> {
        let tables = self.table_list();
        maintenance::vacuum_full(&mut self.engine.client, &tables)?;
        Ok(maintenance::COMPACT_NOTE)
    }

    fn finish(mut self: Box<Self>) -> Result<CaseReport, Error> {
        let schema = self.engine.schema.clone();
        let mut verified_rows: Option<u64> = None;
        for table in &self.tables {
            let n: i64 = self
                .engine
                .client
                .query_one(&format!("SELECT count(*) FROM {schema}.{table}"), &[])
                .map_err(|e| Error::postgres("could not count rows", e))?
                .get(0);
            verified_rows = Some(verified_rows.map_or(n as u64, |v| v.min(n as u64)));
        }
        let (size_bytes, btrees) =
            maintenance::measure(&mut self.engine.client, &schema, &self.tables, self.engine.pgstattuple)?;
        self.drop_tables()?;
        Ok(CaseReport {
            verified_rows: verified_rows.unwrap_or(0),
            size_bytes,
            wal_size_bytes: None,
            btrees,
            kept: None,
        })
    }
}

impl Drop for PgCase<'_> {
    fn drop(&mut self) {
        let _ = self.drop_tables();
    }
}
