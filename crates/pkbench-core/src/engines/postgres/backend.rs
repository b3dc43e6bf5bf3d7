//! What only PostgreSQL has: its managed cluster, the version check (13+; what an older server
//! lacks is left out of its counters), `synchronous_commit` per session, counters
//! from its statistics views and WAL, `pgstattuple` statistics, `VACUUM` after deletes and
//! `VACUUM FULL` to compact.
//!
//! A user's server may be CockroachDB or YugabyteDB ([`DistributedSql`]): it gets its own
//! dialect, and none of PostgreSQL's statistics, session settings, VACUUM or extensions.

use super::dialect::{PostgresDialect, version_num};
use super::server::ManagedPostgres;
use super::walinspect::WalInspector;
use super::{counters, physical};
use crate::Error;
use crate::engines::dialect::Dialect;
use crate::engines::distributed::{self, DistributedSql, Sharding};
use crate::engines::kind::{EngineKind, Wire};
use crate::engines::own_schema::TreeCounters;
use crate::engines::server::{Backend, ServerSettings, ServerTarget, SettingsFor, StatementLimit};
use crate::engines::wire::Connection;
use crate::engines::wire::postgres::PgConnection;
use crate::engines::wire::postgres_target::PgTarget;
use crate::engines::wire::tls::TlsStatus;
use crate::metrics::budget::CounterAccount;
use crate::results::{BtreeStats, Counters};
use std::collections::BTreeMap;
use std::path::Path;

/// PostgreSQL's own parts of a server engine.
pub struct PostgresBackend {
    version: String,
    /// Reads the WAL back, when the `pg_walinspect` extension is there.
    walinspect: Option<WalInspector>,
    pgstattuple: bool,
    durable_commits: bool,
    /// Which statistics the server offers.
    stats: counters::StatsVersion,
    target: String,
    /// Settings the user gave a managed cluster: read back and recorded with pkbench's own.
    user_settings: Vec<String>,
    /// How more sessions connect (the same server, user, database and TLS).
    pg: PgTarget,
    /// What the first connection ended up with (TLS or not), recorded in results.
    tls: TlsStatus,
    server: Option<ManagedPostgres>,
    /// CockroachDB or YugabyteDB behind the PostgreSQL wire, and how its keys are sharded.
    distributed: Option<(DistributedSql, Sharding)>,
    /// `statement_timeout` of every session on a user's server.
    statement_timeout: StatementLimit,
    /// `--keep-leftovers`: only list the schemas killed runs left on a user's server.
    keep_leftovers: bool,
}

impl PostgresBackend {
    /// A session with the run's commit mode.
    fn session(&self, mut client: postgres::Client) -> Result<PgConnection, Error> {
        // Distributed SQL commits through consensus: there is no asynchronous commit to choose.
        if self.distributed.is_none() {
            let commit = if self.durable_commits { "on" } else { "off" };
            client
                .batch_execute(&format!("SET synchronous_commit = {commit}"))
                .map_err(|e| Error::postgres("could not set synchronous_commit", e))?;
        }
        let sql = match self.statement_timeout {
            StatementLimit::Off => None,
            StatementLimit::Given(limit) => Some(format!("SET statement_timeout = '{}ms'", limit.as_millis())),
            // '0' is no limit: a limit of the server's or the role's stays.
            StatementLimit::Default(limit) => Some(format!(
                "SELECT set_config('statement_timeout', CASE current_setting('statement_timeout') WHEN '0' THEN '{}ms' ELSE current_setting('statement_timeout') END, false)",
                limit.as_millis()
            )),
        };
        if let Some(sql) = sql {
            client.batch_execute(&sql).map_err(|e| Error::postgres("could not set statement_timeout", e))?;
        }
        Ok(PgConnection::new(client))
    }
}

impl Backend for PostgresBackend {
    type Settings = ServerSettings;
    type Conn = PgConnection;
    type Managed = ManagedPostgres;
    type Snapshot = counters::Snapshot;

    const KIND: EngineKind = EngineKind::Postgres;
    const INSERT_PATH: &'static str = "multi-row INSERT … SELECT FROM unnest($arrays) (generate_series for engine-assigned keys), 1,000 rows per statement, one transaction per batch";
    const COUNTER_SCOPE: &'static str = "WAL counters (wal_bytes, wal_records, wal_fpi, wal_fpi_bytes, page_splits) are server-wide; \
cache hits/misses are this case's tables (pg_statio_user_tables); index_blocks_touched is this case's indexes";
    const DELETE_NOTE: Option<&'static str> = Some(
        "PostgreSQL: DELETE … WHERE id = ANY($1) in one transaction, then a plain VACUUM of the case's tables (autovacuum is off on them), so freed space and emptied index pages can be reused as autovacuum would let them; delete_ms includes that VACUUM",
    );
    const COMPACT_NOTE: &'static str = "PostgreSQL: VACUUM FULL (outside a transaction) rewrites the heap and rebuilds every index into new files; free_space_needed_bytes = the new copy, at most the size before (its WAL is not counted)";

    fn dialect(&self) -> &'static dyn Dialect {
        match self.distributed {
            Some((system, sharding)) => system.dialect(sharding),
            None => &PostgresDialect,
        }
    }

    fn open(settings: &ServerSettings) -> Result<(Self, PgConnection), Error> {
        let (server, target, mut pg, (statement_timeout, keep_leftovers)) = match &settings.target {
            ServerTarget::Managed(options) => {
                let server = ManagedPostgres::start(options, settings.cache_mb)?;
                let target = format!("managed cluster, socket in {}", server.dir().display());
                let pg = PgTarget::managed(server.config(), &Default::default());
                (Some(server), target, pg, (StatementLimit::Off, false))
            }
            ServerTarget::External { url, options } => {
                let pg = PgTarget::from_url(url, &options.connect)?;
                (None, pg.shown().to_string(), pg, (options.statement_timeout, options.keep_leftovers))
            }
        };
        let (mut client, tls) = pg.connect_first("could not connect to")?;
        let product: String = client
            .query_one("SELECT version()", &[])
            .map_err(|e| Error::postgres("could not read the server version", e))?
            .get(0);
        EngineKind::identify(Wire::Postgres, &product).map_err(Error::InvalidInput)?;
        let distributed = DistributedSql::recognise(Wire::Postgres, &product)
            .map(|s| (s, settings.shards.map_or(s.default_sharding(), |l| l.sharding)));
        if distributed.is_none() && settings.shards.is_some() {
            return Err(Error::InvalidInput(
                "--sharding applies to a distributed SQL server (CockroachDB, YugabyteDB, TiDB) or a sharded engine; this server is one node: leave out --sharding".into(),
            ));
        }
        let mut backend = PostgresBackend {
            version: String::new(),
            walinspect: None,
            pgstattuple: false,
            durable_commits: settings.durable_commits,
            stats: counters::StatsVersion::of(0),
            pg,
            tls,
            server,
            target,
            user_settings: settings.target.user_setting_names(),
            distributed,
            statement_timeout,
            keep_leftovers,
        };
        let mut conn = backend.session(client)?;
        let client = conn.client();
        backend.version = client
            .query_one("SHOW server_version", &[])
            .map_err(|e| Error::postgres("could not read the server version", e))?
            .get(0);
        match distributed {
            // `server_version` is the PostgreSQL release CockroachDB emulates; its own is in
            // `version()`. YugabyteDB's `11.2-YB-2.20.1.0-b0` names both.
            Some((DistributedSql::Cockroach, _)) => {
                backend.version = product;
                return Ok((backend, conn));
            }
            Some(_) => return Ok((backend, conn)),
            None => {}
        }
        // From 13 on; what an older server lacks (pg_stat_wal before 14, pg_stat_force_next_flush
        // and pg_walinspect before 15) is left out of its counters, never reported as zero.
        let num = version_num(&backend.version).unwrap_or(0);
        if num < 130_000 {
            return Err(Error::InvalidInput(format!(
                "PostgreSQL {} is too old: pkbench needs PostgreSQL 13 or newer",
                backend.version
            )));
        }
        backend.stats = counters::StatsVersion::of(num as u32);
        if backend.server.is_some() {
            // The extensions the server ships (a wheel may come without contrib).
            let available: Vec<String> = client
                .query(
                    "SELECT name::text FROM pg_available_extensions WHERE name IN ('pg_walinspect', 'pgstattuple')",
                    &[],
                )
                .map_err(|e| Error::postgres("could not list the available extensions", e))?
                .iter()
                .map(|r| r.get(0))
                .collect();
            for name in available {
                client
                    .batch_execute(&format!("CREATE EXTENSION IF NOT EXISTS {name}"))
                    .map_err(|e| Error::postgres(format!("could not create the {name} extension"), e))?;
            }
        }
        let installed: Vec<String> = client
            .query("SELECT extname::text FROM pg_extension WHERE extname IN ('pg_walinspect', 'pgstattuple')", &[])
            .map_err(|e| Error::postgres("could not list extensions", e))?
            .iter()
            .map(|r| r.get(0))
            .collect();
        backend.walinspect = installed.iter().any(|e| e == "pg_walinspect").then(WalInspector::default);
        backend.pgstattuple = installed.iter().any(|e| e == "pgstattuple");
        Ok((backend, conn))
    }

    fn label_namespace(&self, conn: &mut PgConnection, namespace: &str, label: &str) -> Result<(), Error> {
        if self.server.is_some() {
            return Ok(());
        }
        // The label holds no quote (leftovers::Label::text).
        conn.execute(&format!("COMMENT ON SCHEMA {namespace} IS '{label}'"))
            .map_err(|e| Error::server("COMMENT ON SCHEMA failed", e))
    }

    fn labelled_namespaces(&self, conn: &mut PgConnection) -> Result<Vec<(String, String)>, Error> {
        if self.server.is_some() {
            return Ok(Vec::new());
        }
        let rows = conn
            .query_text(
                "SELECT nspname::text, obj_description(oid, 'pg_namespace') FROM pg_namespace \
                 WHERE nspname LIKE 'pkbench%' AND obj_description(oid, 'pg_namespace') IS NOT NULL",
            )
            .map_err(|e| Error::server("could not list the schemas", e))?;
        Ok(crate::engines::server::leftovers::labelled(rows))
    }

    fn keep_leftovers(&self) -> bool {
        self.keep_leftovers
    }

    fn connect(&self) -> Result<PgConnection, Error> {
        let (client, _) = self.pg.connect("could not open another connection to")?;
        self.session(client)
    }

    fn version(&self) -> &str {
        &self.version
    }

    fn target(&self) -> &str {
        &self.target
    }

    fn managed(&self) -> Option<&ManagedPostgres> {
        self.server.as_ref()
    }

    fn managed_dir(&self) -> Option<&Path> {
        self.server.as_ref().map(|s| s.dir())
    }

    fn settings(&self, conn: &mut PgConnection, purpose: SettingsFor) -> Result<BTreeMap<String, String>, Error> {
        if let Some((system, sharding)) = self.distributed {
            let mut out = BTreeMap::from([
                ("distributed_sql".to_string(), system.label().to_string()),
                ("sharding".to_string(), sharding.name().to_string()),
            ]);
            self.tls.record(&mut out);
            return Ok(out);
        }
        let names: &[&str] = match purpose {
            SettingsFor::Insert => &[
                "shared_buffers",
                "max_wal_size",
                "wal_segment_size",
                "wal_keep_size",
                "synchronous_commit",
                "full_page_writes",
                "checkpoint_timeout",
                "autovacuum",
                "fsync",
            ],
            SettingsFor::App | SettingsFor::Schema => &[
                "shared_buffers",
                "max_wal_size",
                "wal_segment_size",
                "synchronous_commit",
                "full_page_writes",
                "autovacuum",
                "fsync",
            ],
        };
        let mut out = BTreeMap::new();
        for name in names.iter().copied().chain(self.user_settings.iter().map(String::as_str)) {
            // The name was checked when parsed (letters, digits, `_` and `.`).
            let row = conn.client().query_one(&format!("SHOW {name}"), &[]);
            let v: String = row.map_err(|e| Error::postgres(format!("could not read {name}"), e))?.get(0);
            out.insert(name.to_string(), v);
        }
        if !self.user_settings.is_empty() {
            out.insert("given_with_server_setting".into(), self.user_settings.join(","));
        }
        self.tls.record(&mut out);
        Ok(out)
    }

    fn snapshot(&self, conn: &mut PgConnection, namespace: &str, tables: &[&str]) -> Result<counters::Snapshot, Error> {
        if self.distributed.is_some() {
            return Ok(counters::Snapshot::default());
        }
        counters::snapshot(conn.client(), namespace, tables, self.durable_commits, self.stats)
            .map_err(|e| Error::postgres("could not read PostgreSQL statistics", e))
    }

    fn counters(
        &self,
        conn: &mut PgConnection,
        (before, after): (&counters::Snapshot, &counters::Snapshot),
        namespace: &str,
        tables: &[&str],
        account: &CounterAccount,
    ) -> Counters {
        // PostgreSQL's statistics views are absent or empty there: no counter, rather than zeros.
        if self.distributed.is_some() {
            return Counters::default();
        }
        let mut c = counters::between(before, after);
        if let Some(wal) = &self.walinspect {
            wal.read(conn.client(), counters::flushed_span(before, after), (namespace, tables), account, &mut c);
        }
        c
    }

    fn wait_sample_sql(&self, _namespace: &str, table: &str) -> Option<String> {
        if self.distributed.is_some() {
            return None;
        }
        // A session with no wait event is running (on CPU, or in code not instrumented with one).
        let table = table.replace('\'', "''");
        Some(format!(
            "SELECT coalesce(wait_event_type || ':' || wait_event, 'CPU'), count(*) FROM pg_stat_activity \
             WHERE datname = current_database() AND pid <> pg_backend_pid() AND state = 'active' \
             AND position('{table}' in query) > 0 GROUP BY 1"
        ))
    }

    fn size_bytes(&self, conn: &mut PgConnection, namespace: &str, tables: &[&str]) -> Result<u64, Error> {
        if let Some((DistributedSql::Cockroach, _)) = self.distributed {
            return cockroach_size(conn, namespace, tables);
        }
        let mut total = 0;
        for table in tables {
            let q = format!("{namespace}.{table}");
            let row = conn.client().query_one("SELECT pg_total_relation_size($1::text::regclass)", &[&q]);
            let size: i64 = row.map_err(|e| Error::postgres("could not read the table size", e))?.get(0);
            total += size.max(0) as u64;
        }
        Ok(total)
    }

    fn tree_counters(
        &self,
        conn: &mut PgConnection,
        namespace: &str,
        tables: &[&str],
    ) -> Result<BTreeMap<String, TreeCounters>, Error> {
        // Before 15 a session's counts reach the views late; a distributed system has none.
        if self.distributed.is_some() || !self.stats.force_flush {
            return Ok(BTreeMap::new());
        }
        let misses = counters::tree_misses(conn.client(), namespace, tables)
            .map_err(|e| Error::postgres("could not read PostgreSQL's per-relation statistics", e))?;
        let touched = self.walinspect.as_ref().map(WalInspector::touched_per_index).unwrap_or_default();
        Ok(misses
            .into_iter()
            .map(|(tree, m)| {
                // Without pg_walinspect no index's touched blocks are known, rather than zero.
                let blocks = self.walinspect.as_ref().map(|_| touched.get(&tree).copied().unwrap_or(0));
                let index = tree.contains('.');
                (tree, TreeCounters { misses: Some(m), index_blocks_touched: blocks.filter(|_| index) })
            })
            .collect())
    }

    fn measure(
        &self,
        conn: &mut PgConnection,
        namespace: &str,
        tables: &[&str],
    ) -> Result<(u64, Vec<BtreeStats>), Error> {
        let size = self.size_bytes(conn, namespace, tables)?;
        let mut btrees = Vec::new();
        // Without pgstattuple (or the right to use it, on a user's server) no B-tree figures are
        // reported, rather than zeros or a failed case.
        if self.pgstattuple {
            for table in tables {
                btrees.extend(physical::btree_stats(conn.client(), namespace, table).unwrap_or_default());
            }
        }
        Ok((size, btrees))
    }

    fn after_delete(&self, conn: &mut PgConnection, tables: &str) -> Result<(), Error> {
        if self.distributed.is_some() {
            return Ok(());
        }
        conn.client().batch_execute(&format!("VACUUM {tables}")).map_err(|e| Error::postgres("VACUUM failed", e))
    }

    fn compact(&self, conn: &mut PgConnection, tables: &str) -> Result<(), Error> {
        if let Some((system, _)) = self.distributed {
            return Err(system.not_supported("compacting (it has no VACUUM FULL)"));
        }
        let sql = PostgresDialect.compact(tables);
        conn.client().batch_execute(&sql).map_err(|e| Error::postgres("VACUUM FULL failed", e))
    }
}

/// The bytes in `tables`' ranges on CockroachDB (`range_size` of `SHOW RANGES … WITH DETAILS`).
fn cockroach_size(conn: &mut PgConnection, namespace: &str, tables: &[&str]) -> Result<u64, Error> {
    let mut total = 0;
    for table in tables {
        let rows = conn
            .client()
            .query(&distributed::cockroach::ranges_sql(&format!("{namespace}.{table}")), &[])
            .map_err(|e| Error::postgres("could not read the table's ranges", e))?;
        let rows: Vec<distributed::CatalogRow> =
            rows.iter().map(|r| (0..r.len()).map(|i| r.get::<_, Option<String>>(i)).collect()).collect();
        total += distributed::cockroach::parse_ranges(&rows)?.iter().filter_map(|r| r.size_bytes).sum::<u64>();
    }
    Ok(total)
}
