//! What only MariaDB/InnoDB has: its managed server, the version string that says which UUID
//! features it has, InnoDB's status counters, sizes after `ANALYZE TABLE`, B-tree statistics
//! read from a managed server's `.ibd` files (after InnoDB's purge), and `OPTIMIZE TABLE`.
//!
//! A user's server may be TiDB ([`DistributedSql`]): it gets its own dialect and none of
//! InnoDB's counters or rebuild.

use super::dialect::INNODB;
use super::flavor::Flavor;
use super::server::ManagedMariaDb;
use super::{counters, physical};
use crate::engines::dialect::Dialect;
use crate::engines::distributed::{DistributedSql, Sharding};
use crate::engines::kind::{EngineKind, Wire};
use crate::engines::server::{Backend, ServerSettings, ServerTarget, SettingsFor, StatementLimit};
use crate::engines::wire::mysql::MyConnection;
use crate::engines::wire::mysql_target::MyTarget;
use crate::engines::wire::tls::TlsStatus;
use crate::engines::wire::{Connection, Value};
use crate::metrics::budget::CounterAccount;
use crate::results::{BtreeStats, Counters};
use crate::{Error, ServerError, ServerErrorKind};
use mysql::prelude::Queryable;
use std::collections::BTreeMap;
use std::path::Path;

/// The one-row table that labels pkbench's database on a user's server.
const LABEL_TABLE: &str = "pkbench_scratch_label";

/// MariaDB's own parts of a server engine.
pub struct MariaDbBackend {
    version: String,
    /// MariaDB or MySQL, from the version string.
    flavor: Flavor,
    target: String,
    /// How more sessions connect (the same server, user and TLS).
    my: MyTarget,
    /// What the first connection ended up with (TLS or not), recorded in results.
    tls: TlsStatus,
    server: Option<ManagedMariaDb>,
    /// Settings the user gave a managed server: read back and recorded with pkbench's own.
    user_settings: Vec<String>,
    /// TiDB behind the MySQL wire, and what its keys do against hot spots.
    distributed: Option<(DistributedSql, Sharding)>,
    /// Longest statement of every session on a user's server.
    statement_timeout: StatementLimit,
    /// `--keep-leftovers`: only list the databases killed runs left on a user's server.
    keep_leftovers: bool,
}

impl MariaDbBackend {
    /// A session with the run's statement time limit: MariaDB's `max_statement_time` (every
    /// statement); MySQL and TiDB have only `max_execution_time`, for SELECTs.
    fn session(&self, mut conn: mysql::Conn) -> Result<MyConnection, Error> {
        let (limit, given) = match self.statement_timeout {
            StatementLimit::Off => return Ok(MyConnection::new(conn)),
            StatementLimit::Given(limit) => (limit, true),
            StatementLimit::Default(limit) => (limit, false),
        };
        let (variable, value) = match (self.flavor, self.distributed) {
            (Flavor::MariaDb, None) => ("max_statement_time", limit.as_secs_f64().to_string()),
            _ => ("max_execution_time", limit.as_millis().to_string()),
        };
        // 0 is no limit: pkbench's default leaves a limit of the server's as it is.
        let value = if given { value } else { format!("IF(@@SESSION.{variable} = 0, {value}, @@SESSION.{variable})") };
        conn.query_drop(format!("SET SESSION {variable} = {value}"))
            .map_err(|e| Error::mariadb("could not set the statement time limit", e))?;
        Ok(MyConnection::new(conn))
    }

    /// The managed server's data folder, where InnoDB's `.ibd` files are.
    fn datadir(&self) -> Option<std::path::PathBuf> {
        self.server.as_ref().map(|s| s.dir().join("data"))
    }
}

impl Backend for MariaDbBackend {
    type Settings = ServerSettings;
    type Conn = MyConnection;
    type Managed = ManagedMariaDb;
    type Snapshot = counters::Snapshot;

    const KIND: EngineKind = EngineKind::MariaDb;

    /// Foreign keys among a case's own tables may form a cycle, which no drop order satisfies:
    /// they are not checked while the case's tables are dropped.
    fn close_case(
        &mut self,
        conn: &mut MyConnection,
        namespace: &str,
        tables: &[&str],
        what: &str,
        _finished: bool,
    ) -> Result<Option<std::path::PathBuf>, Error> {
        let unchecked = |on: u8| format!("SET SESSION foreign_key_checks = {on}");
        conn.execute(&unchecked(0)).map_err(|e| Error::server(format!("could not drop the {what}"), e))?;
        let dropped = crate::engines::server::drop_tables(self.dialect(), conn, namespace, tables, what);
        conn.execute(&unchecked(1)).map_err(|e| Error::server(format!("could not drop the {what}"), e))?;
        dropped.map(|()| None)
    }
    const INSERT_PATH: &'static str = "multi-row INSERT … VALUES with literal keys (hex for binary), 1,000 rows per statement, one transaction per batch";
    // On a server other sessions use, every InnoDB counter includes their work too.
    const COUNTER_SCOPE: &'static str =
        "server-wide: buffer pool, pages written, redo, doublewrite and index_page_* counters count every session";
    const DELETE_NOTE: Option<&'static str> = Some(
        "MariaDB: multi-row DELETE … WHERE id IN (…) in one transaction (1,000 keys per statement), delete_ms is the DELETE and COMMIT; before each size and leaf-fill reading on a managed server, SET GLOBAL innodb_max_purge_lag_wait = 0 waits until InnoDB's purge has removed the delete-marked records",
    );
    const COMPACT_NOTE: &'static str = "MariaDB: OPTIMIZE TABLE, which InnoDB runs as a rebuild (recreate + analyze) into a new .ibd file; free_space_needed_bytes = the new copy, at most the size before (redo log not counted)";

    fn dialect(&self) -> &'static dyn Dialect {
        match self.distributed {
            Some((system, sharding)) => system.dialect(sharding),
            None => &INNODB,
        }
    }

    fn open(settings: &ServerSettings) -> Result<(Self, MyConnection), Error> {
        let (server, target, mut my, (statement_timeout, keep_leftovers)) = match &settings.target {
            ServerTarget::Managed(options) => {
                let server = ManagedMariaDb::start(options, settings.cache_mb, settings.durable_commits)?;
                let target = format!("managed server, socket in {}", server.dir().display());
                let my = MyTarget::managed(server.opts().into(), &Default::default());
                (Some(server), target, my, (StatementLimit::Off, false))
            }
            ServerTarget::External { url, options } => {
                let my = MyTarget::from_url(url, &options.connect)?;
                (None, my.shown().to_string(), my, (options.statement_timeout, options.keep_leftovers))
            }
        };
        let (mut conn, tls) = my.connect_first("could not connect to")?;
        let version: String = conn
            .query_first("SELECT VERSION()")
            .map_err(|e| Error::mariadb("could not read the server version", e))?
            .unwrap_or_default();
        EngineKind::identify(Wire::Mysql, &version).map_err(Error::InvalidInput)?;
        let distributed = DistributedSql::recognise(Wire::Mysql, &version)
            .map(|s| (s, settings.shards.map_or(s.default_sharding(), |l| l.sharding)));
        if distributed.is_none() && settings.shards.is_some() {
            return Err(Error::InvalidInput(
                "--sharding applies to a distributed SQL server (CockroachDB, YugabyteDB, TiDB) or a sharded engine; this server is one node: leave out --sharding".into(),
            ));
        }
        let flavor = match distributed {
            // TiDB reports the MySQL it speaks (5.7.25 or 8.0.11); InnoDB's flavour-specific
            // statistics are never read from it.
            Some(_) => Flavor::MySql { major: 8, minor: 0, patch: 11 },
            None => Flavor::of(&version).map_err(Error::InvalidInput)?,
        };
        let user_settings = settings.target.user_setting_names();
        let backend = MariaDbBackend {
            version,
            flavor,
            target,
            my,
            tls,
            server,
            user_settings,
            distributed,
            statement_timeout,
            keep_leftovers,
        };
        let conn = backend.session(conn)?;
        Ok((backend, conn))
    }

    fn label_namespace(&self, conn: &mut MyConnection, namespace: &str, label: &str) -> Result<(), Error> {
        if self.server.is_some() {
            return Ok(());
        }
        // MySQL has no database comments: a one-row table holds the label (it has no quote).
        for sql in [
            format!("CREATE TABLE {namespace}.{LABEL_TABLE} (label VARCHAR(255) NOT NULL)"),
            format!("INSERT INTO {namespace}.{LABEL_TABLE} VALUES ('{label}')"),
        ] {
            conn.execute(&sql).map_err(|e| Error::server("could not write the label table", e))?;
        }
        Ok(())
    }

    fn labelled_namespaces(&self, conn: &mut MyConnection) -> Result<Vec<(String, String)>, Error> {
        if self.server.is_some() {
            return Ok(Vec::new());
        }
        let sql = format!(
            "SELECT TABLE_SCHEMA FROM information_schema.TABLES WHERE TABLE_NAME = '{LABEL_TABLE}' AND TABLE_SCHEMA LIKE 'pkbench%'"
        );
        let list = |e| Error::server("could not list the databases", e);
        let mut rows = Vec::new();
        for row in conn.query_text(&sql).map_err(list)? {
            let Some(db) = row.first().and_then(|v| v.as_text()) else { continue };
            if !db.chars().all(|c| c.is_ascii_alphanumeric() || c == '_') {
                continue;
            }
            let label = conn.query_one_text(&format!("SELECT label FROM {db}.{LABEL_TABLE} LIMIT 1")).map_err(list)?;
            rows.extend(label.map(|l| vec![Value::Text(db), l]));
        }
        Ok(crate::engines::server::leftovers::labelled(rows))
    }

    fn keep_leftovers(&self) -> bool {
        self.keep_leftovers
    }

    fn connect(&self) -> Result<MyConnection, Error> {
        let (conn, _) = self.my.connect("could not open another connection to")?;
        self.session(conn)
    }

    fn version(&self) -> &str {
        &self.version
    }

    fn target(&self) -> &str {
        &self.target
    }

    fn managed(&self) -> Option<&ManagedMariaDb> {
        self.server.as_ref()
    }

    fn managed_dir(&self) -> Option<&Path> {
        self.server.as_ref().map(|s| s.dir())
    }

    fn settings(&self, conn: &mut MyConnection, purpose: SettingsFor) -> Result<BTreeMap<String, String>, Error> {
        let (scope, names): (&str, &[&str]) = match purpose {
            SettingsFor::Insert => (
                "GLOBAL ",
                &[
                    "innodb_buffer_pool_size",
                    "innodb_lru_scan_depth",
                    "innodb_flush_log_at_trx_commit",
                    "innodb_doublewrite",
                    "innodb_page_size",
                    "innodb_log_file_size",
                    "character_set_server",
                ],
            ),
            SettingsFor::App | SettingsFor::Schema => (
                "",
                &[
                    "innodb_buffer_pool_size",
                    "innodb_flush_log_at_trx_commit",
                    "innodb_page_size",
                    "foreign_key_checks",
                ],
            ),
        };
        // User setting names were checked when parsed (letters, digits, `_` and `.`).
        let user = self.user_settings.iter().map(String::as_str);
        let list = names.iter().copied().chain(user).map(|n| format!("'{n}'")).collect::<Vec<_>>().join(", ");
        let rows: Vec<(String, String)> = conn
            .conn()
            .query(format!("SHOW {scope}VARIABLES WHERE Variable_name IN ({list})"))
            .map_err(|e| Error::mariadb("could not read server variables", e))?;
        let mut out: BTreeMap<String, String> = rows.into_iter().collect();
        if let Some((system, sharding)) = self.distributed {
            out.insert("distributed_sql".into(), system.label().into());
            out.insert("sharding".into(), sharding.name().into());
        }
        if !self.user_settings.is_empty() {
            out.insert("given_with_server_setting".into(), self.user_settings.join(","));
        }
        self.tls.record(&mut out);
        Ok(out)
    }

    fn snapshot(
        &self,
        conn: &mut MyConnection,
        _namespace: &str,
        _tables: &[&str],
    ) -> Result<counters::Snapshot, Error> {
        // TiDB has no InnoDB statistics: no counter, rather than an error or zeros.
        if self.distributed.is_some() {
            return Ok(counters::Snapshot::default());
        }
        counters::snapshot(conn.conn(), self.flavor).map_err(|e| Error::mariadb("could not read InnoDB statistics", e))
    }

    fn counters(
        &self,
        _conn: &mut MyConnection,
        (before, after): (&counters::Snapshot, &counters::Snapshot),
        _namespace: &str,
        _tables: &[&str],
        _account: &CounterAccount,
    ) -> Counters {
        counters::between(before, after)
    }

    fn wait_sample_sql(&self, _namespace: &str, table: &str) -> Option<String> {
        // MariaDB's performance schema is off by default; the process list's thread state
        // ("Update", "Commit", "Waiting for …") is there on every server. The clients name the
        // table qualified, without a default database: they are found by their statement.
        let table = table.replace('\\', "\\\\").replace('\'', "''");
        Some(format!(
            "SELECT CONCAT(COMMAND, ':', IF(STATE = '', '-', STATE)), COUNT(*) FROM information_schema.PROCESSLIST \
             WHERE ID <> CONNECTION_ID() AND COMMAND <> 'Sleep' AND LOCATE('{table}', INFO) > 0 GROUP BY 1"
        ))
    }

    fn size_bytes(&self, conn: &mut MyConnection, namespace: &str, tables: &[&str]) -> Result<u64, Error> {
        let mut total = 0;
        for table in tables {
            total += physical::table_size(conn.conn(), namespace, table)?;
        }
        Ok(total)
    }

    /// There, it first waits for InnoDB's purge (needs SUPER), so delete-marked records of a
    /// churn step are gone from the pages it reads.
    fn measure(
        &self,
        conn: &mut MyConnection,
        namespace: &str,
        tables: &[&str],
    ) -> Result<(u64, Vec<BtreeStats>), Error> {
        let datadir = self.datadir();
        if datadir.is_some() {
            conn.conn()
                .query_drop("SET GLOBAL innodb_max_purge_lag_wait = 0")
                .map_err(|e| Error::mariadb("could not wait for InnoDB purge", e))?;
        }
        let size = self.size_bytes(conn, namespace, tables)?;
        let mut btrees = Vec::new();
        if let Some(dir) = datadir {
            for table in tables {
                let ibd = dir.join(namespace).join(format!("{table}.ibd"));
                btrees.extend(physical::tablespace_stats(conn.conn(), self.flavor, namespace, table, &ibd)?);
            }
        }
        Ok((size, btrees))
    }

    fn compact(&self, conn: &mut MyConnection, tables: &str) -> Result<(), Error> {
        if let Some((system, _)) = self.distributed {
            return Err(system.not_supported("compacting (OPTIMIZE TABLE does not rebuild there)"));
        }
        let rows: Vec<(String, String, String, String)> =
            conn.conn().query(INNODB.compact(tables)).map_err(|e| Error::mariadb("OPTIMIZE TABLE failed", e))?;
        match rows.into_iter().find(|(_, _, kind, _)| kind.eq_ignore_ascii_case("error")) {
            // The server reports a failed rebuild as a result row, not as an error.
            Some((table, _, _, text)) => Err(Error::server(
                format!("OPTIMIZE TABLE {table} failed"),
                ServerError { engine: EngineKind::MariaDb.label(), kind: ServerErrorKind::Other, message: text },
            )),
            None => Ok(()),
        }
    }
}
