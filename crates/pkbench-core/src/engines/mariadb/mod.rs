//! MariaDB/MySQL (InnoDB): a managed throwaway server or the user's at a URL. pkbench works only
//! in its own database there (`pkbench` on a managed server, a fresh `pkbench_…` on the user's),
//! created and dropped by it.

mod app;
mod app_schema;
mod client;
mod counters;
mod maintenance;
mod physical;
mod schema;
mod server;
pub mod uuid_type;

pub use app_schema::render as render_app_schema;
pub use schema::{MariaDbSchema, render as render_schema};
pub use server::{MIN_POOL_MB, ManagedMariaDb, lru_scan_depth};

use super::server::{ServerSettings, ServerTarget, redact_url, unique_suffix};
use super::{CaseReport, CaseSpec, Engine, EngineInfo, InsertCase, InsertClient, KeyRow, Physical};
use crate::Error;
use crate::control::RunControl;
use crate::generators::Key;
use crate::results::Counters;
use crate::strategy::Storage;
use counters::Snapshot;
use mysql::prelude::Queryable;
use std::collections::BTreeMap;
use std::fmt::Write;

/// Rows per INSERT statement, at most (fewer when rows are large: see `rows_per_statement`).
const ROWS_PER_STATEMENT: usize = 1000;

/// The MariaDB engine. Field order matters: the connection closes before the server stops.
pub struct MariaDbEngine {
    conn: mysql::Conn,
    database: String,
    version: String,
    target: String,
    /// How concurrent clients connect (the same server and user).
    connect_opts: mysql::Opts,
    server: Option<ManagedMariaDb>,
}

impl std::fmt::Debug for MariaDbEngine {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("MariaDbEngine").field("database", &self.database).field("target", &self.target).finish()
    }
}

impl MariaDbEngine {
    /// Starts a managed server or connects to the user's, and creates pkbench's database.
    pub fn open(settings: &ServerSettings) -> Result<Self, Error> {
        let (mut conn, server, target, database, connect_opts) = match &settings.target {
            ServerTarget::Managed { server_bin } => {
                let server = ManagedMariaDb::start(server_bin.as_deref(), settings.cache_mb, settings.durable_commits)?;
                let conn = mysql::Conn::new(server.opts())
                    .map_err(|e| Error::mariadb("could not connect to the managed MariaDB server", e))?;
                let target = format!("managed server, socket in {}", server.dir().display());
                let opts = mysql::Opts::from(server.opts());
                (conn, Some(server), target, "pkbench".to_string(), opts)
            }
            ServerTarget::External { url } => {
                let shown = redact_url(url);
                let opts = mysql::Opts::from_url(url)
                    .map_err(|e| Error::InvalidInput(format!("'{shown}' is not a MySQL URL: {e}")))?;
                let conn = mysql::Conn::new(opts.clone())
                    .map_err(|e| Error::mariadb(format!("could not connect to {shown}"), e))?;
                let database = format!("pkbench_{}_{}", std::process::id(), unique_suffix() % 1_000_000);
                (conn, None, shown, database, opts)
            }
        };
        let version: String = conn
            .query_first("SELECT VERSION()")
            .map_err(|e| Error::mariadb("could not read the server version", e))?
            .unwrap_or_default();
        // CREATE DATABASE fails if the name exists: pkbench never works in a database it did not create.
        conn.query_drop(format!("CREATE DATABASE {database}")).map_err(|e| {
            Error::mariadb(
                format!("could not create database '{database}' (pkbench only works in a database it creates)"),
                e,
            )
        })?;
        Ok(MariaDbEngine { conn, database, version, target, connect_opts, server })
    }

    /// The managed server, if pkbench started one.
    pub fn managed(&self) -> Option<&ManagedMariaDb> {
        self.server.as_ref()
    }
}

impl Drop for MariaDbEngine {
    fn drop(&mut self) {
        let _ = self.conn.query_drop(format!("DROP DATABASE IF EXISTS {}", self.database));
    }
}

impl Engine for MariaDbEngine {
    fn info(&self) -> EngineInfo {
        EngineInfo { name: "mariadb", version: self.version.clone() }
    }

    fn insert_path(&self) -> &'static str {
        "multi-row INSERT … VALUES with literal keys (hex for binary), 1,000 rows per statement, one transaction per batch"
    }

    fn check(&self, strategy: &crate::strategy::Strategy) -> Result<(), Error> {
        render_schema(strategy, &self.database)?;
        // An unparsable version string is left to the server to refuse what it lacks.
        let requirement =
            uuid_type::ServerVersion::parse(&self.version).and_then(|v| uuid_type::version_requirement(strategy, &v));
        match requirement {
            Some(reason) => {
                Err(Error::Unsupported { strategy: strategy.name.into(), engine: "mariadb".into(), reason })
            }
            None => Ok(()),
        }
    }

    fn app(&mut self) -> Option<&mut dyn super::app::AppEngine> {
        Some(self)
    }

    fn create_case(&mut self, spec: &CaseSpec<'_>) -> Result<Box<dyn InsertCase + '_>, Error> {
        self.check(spec.strategy)?;
        let sql = render_schema(spec.strategy, &self.database)?;
        for stmt in &sql.create {
            self.conn
                .query_drop(stmt)
                .map_err(|e| Error::mariadb(format!("could not create the table ({stmt})"), e))?;
        }
        let max_packet: u64 = self
            .conn
            .query_first("SELECT @@max_allowed_packet")
            .map_err(|e| Error::mariadb("could not read max_allowed_packet", e))?
            .unwrap_or(16 << 20);
        // A row's literal: hex payload, up to two keys of at most 40 characters, punctuation.
        let row_bytes = 2 * spec.payload_bytes as u64 + 100;
        let rows_per_statement = ((max_packet / 2) / row_bytes).clamp(1, ROWS_PER_STATEMENT as u64) as usize;
        let mut payload = String::from("X'");
        for _ in 0..spec.payload_bytes {
            payload.push_str("a5");
        }
        payload.push('\'');
        let mut case = MariaDbCase {
            strategy: spec.strategy.name,
            delete_storage: maintenance::delete_storage(spec.strategy),
            engine: self,
            sql,
            payload,
            payload_bytes: spec.payload_bytes,
            primary: spec.strategy.client_primary().map(|_| spec.strategy.primary.storage),
            secondary: spec.strategy.secondary.map(|s| s.storage),
            buf: String::new(),
            map_buf: String::new(),
            rows_per_statement,
            last: Snapshot::default(),
            dropped: false,
        };
        case.last = case.snapshot()?;
        Ok(Box::new(case))
    }
}

struct MariaDbCase<'a> {
    engine: &'a mut MariaDbEngine,
    /// The strategy's name, for errors.
    strategy: &'static str,
    /// How primary keys are written in a DELETE; `None` when the server generates them.
    delete_storage: Option<Storage>,
    sql: MariaDbSchema,
    payload: String,
    /// Payload bytes per row (`payload` is their hex literal).
    payload_bytes: usize,
    primary: Option<Storage>,
    secondary: Option<Storage>,
    buf: String,
    map_buf: String,
    /// Rows per statement, so a statement stays within half of `max_allowed_packet`.
    rows_per_statement: usize,
    last: Snapshot,
    dropped: bool,
}

/// Appends `key` as an SQL literal for its storage, without allocating.
pub(super) fn push_literal(buf: &mut String, key: Option<Key>, storage: Storage) {
    const HEX: &[u8; 16] = b"0123456789abcdef";
    match (key, storage.text_encoding()) {
        (Some(Key::Int(v)), _) => {
            let _ = write!(buf, "{v}");
        }
        (Some(Key::Uuid(b)), Some(encoding)) => {
            // Text encodings are ASCII letters, digits and hyphens: no quoting needed inside ''.
            buf.push('\'');
            buf.push_str(encoding.encode(&b, &mut [0u8; 36]));
            buf.push('\'');
        }
        (Some(Key::Uuid(b)), None) => {
            buf.push_str("X'");
            for byte in storage.binary_form(b) {
                buf.push(HEX[usize::from(byte >> 4)] as char);
                buf.push(HEX[usize::from(byte & 0xf)] as char);
            }
            buf.push('\'');
        }
        (None, _) => buf.push_str("NULL"),
    }
}

impl MariaDbCase<'_> {
    fn snapshot(&mut self) -> Result<Snapshot, Error> {
        counters::snapshot(&mut self.engine.conn).map_err(|e| Error::mariadb("could not read InnoDB statistics", e))
    }

    fn insert_rows(&mut self, rows: &[KeyRow], control: &RunControl) -> Result<(), Error> {
        for chunk in rows.chunks(self.rows_per_statement) {
            self.buf.clear();
            self.buf.push_str(&self.sql.insert_prefix);
            self.map_buf.clear();
            if let Some(p) = &self.sql.map_prefix {
                self.map_buf.push_str(p);
            }
            for (i, row) in chunk.iter().enumerate() {
                if i > 0 {
                    self.buf.push(',');
                    self.map_buf.push(',');
                }
                self.buf.push('(');
                if let Some(s) = self.primary {
                    push_literal(&mut self.buf, row.primary, s);
                    self.buf.push(',');
                }
                if let Some(s) = self.secondary {
                    push_literal(&mut self.buf, row.secondary, s);
                    self.buf.push(',');
                }
                self.buf.push_str(&self.payload);
                self.buf.push(')');
                if self.sql.map_prefix.is_some() {
                    self.map_buf.push('(');
                    push_literal(&mut self.map_buf, row.secondary, self.secondary.unwrap_or(Storage::Binary16));
                    self.map_buf.push(',');
                    push_literal(&mut self.map_buf, row.primary, self.primary.unwrap_or(Storage::Binary16));
                    self.map_buf.push(')');
                }
            }
            self.engine.conn.query_drop(&self.buf).map_err(|e| Error::mariadb("INSERT failed", e))?;
            if self.sql.map_prefix.is_some() {
                self.engine
                    .conn
                    .query_drop(&self.map_buf)
                    .map_err(|e| Error::mariadb("INSERT into the mapping table failed", e))?;
            }
            control.add_rows(chunk.len() as u64);
            if control.is_cancelled() {
                return Err(Error::Interrupted);
            }
        }
        Ok(())
    }

    /// Size and B-tree statistics of the case's tables now.
    fn measure(&mut self) -> Result<(u64, Vec<crate::results::BtreeStats>), Error> {
        let datadir = self.engine.server.as_ref().map(|s| s.dir().join("data"));
        maintenance::measure(&mut self.engine.conn, &self.engine.database, &self.sql.tables, datadir.as_deref())
    }

    fn drop_tables(&mut self) -> Result<(), Error> {
        if !self.dropped {
            self.dropped = true;
            let list: Vec<String> = self.sql.tables.iter().map(|t| format!("{}.{t}", self.engine.database)).collect();
            self.engine
                .conn
                .query_drop(format!("DROP TABLE IF EXISTS {}", list.join(", ")))
                .map_err(|e| Error::mariadb("could not drop the benchmark table", e))?;
        }
        Ok(())
    }
}

impl InsertCase for MariaDbCase<'_> {
    fn effective_settings(&mut self) -> Result<BTreeMap<String, String>, Error> {
        let names = [
            "innodb_buffer_pool_size",
            "innodb_lru_scan_depth",
            "innodb_flush_log_at_trx_commit",
            "innodb_doublewrite",
            "innodb_page_size",
            "innodb_log_file_size",
            "character_set_server",
        ];
        let list = names.iter().map(|n| format!("'{n}'")).collect::<Vec<_>>().join(", ");
        let rows: Vec<(String, String)> = self
            .engine
            .conn
            .query(format!("SHOW GLOBAL VARIABLES WHERE Variable_name IN ({list})"))
            .map_err(|e| Error::mariadb("could not read server variables", e))?;
        let mut out: BTreeMap<String, String> = rows.into_iter().collect();
        out.insert("server".into(), self.engine.target.clone());
        out.insert("server_version".into(), self.engine.version.clone());
        // On a server other sessions use, every InnoDB counter includes their work too.
        out.insert(
            "counter_scope".into(),
            "server-wide: buffer pool, pages written, redo, doublewrite and index_page_* counters count every session"
                .into(),
        );
        Ok(out)
    }

    fn insert_batch(&mut self, rows: &[KeyRow], control: &RunControl) -> Result<(), Error> {
        self.engine
            .conn
            .query_drop("START TRANSACTION")
            .map_err(|e| Error::mariadb("could not begin a transaction", e))?;
        let result = self
            .insert_rows(rows, control)
            .and_then(|()| self.engine.conn.query_drop("COMMIT").map_err(|e| Error::mariadb("COMMIT failed", e)));
        if result.is_err() {
            let _ = self.engine.conn.query_drop("ROLLBACK");
        }
        result
    }

    fn take_counters(&mut self) -> Result<Counters, Error> {
        let now = self.snapshot()?;
        let c = counters::between(&self.last, &now);
        self.last = now;
        Ok(c)
    }

    fn connect(&mut self) -> Result<Box<dyn InsertClient + Send>, Error> {
        if self.sql.map_prefix.is_some() {
            return Err(Error::InvalidInput(
                "a concurrent client inserts one row per statement; mapping-table strategies need two".into(),
            ));
        }
        let sql = client::single_row_insert(&self.engine.database, self.primary, self.secondary);
        let payload = vec![0xa5; self.payload_bytes];
        let c = client::MariaDbClient::connect(
            self.engine.connect_opts.clone(),
            &sql,
            &payload,
            [self.primary, self.secondary],
        )?;
        Ok(Box::new(c))
    }

    fn physical(&mut self) -> Result<Physical, Error> {
        let (size_bytes, btrees) = self.measure()?;
        Ok(Physical { size_bytes, wal_size_bytes: None, btrees })
    }

    fn delete_by_primary(&mut self, keys: &[Key], control: &RunControl) -> Result<u64, Error> {
        let storage = self.delete_storage.ok_or_else(|| maintenance::server_keys_unknown(self.strategy))?;
        let delete = maintenance::Delete {
            db: &self.engine.database,
            tables: &self.sql.tables,
            storage,
            per_statement: self.rows_per_statement,
        };
        delete.run(&mut self.engine.conn, &mut self.buf, keys, control)
    }

    fn delete_note(&self) -> Option<&'static str> {
        Some(maintenance::DELETE_NOTE)
    }

    fn compact(&mut self) -> Result<&'static str, Error> {
        maintenance::optimize(&mut self.engine.conn, &self.engine.database, &self.sql.tables)?;
        Ok(maintenance::COMPACT_NOTE)
    }

    fn finish(mut self: Box<Self>) -> Result<CaseReport, Error> {
        let db = self.engine.database.clone();
        let mut verified_rows: Option<u64> = None;
        for table in &self.sql.tables {
            let n: u64 = self
                .engine
                .conn
                .query_first(format!("SELECT count(*) FROM {db}.{table}"))
                .map_err(|e| Error::mariadb("could not count rows", e))?
                .unwrap_or(0);
            verified_rows = Some(verified_rows.map_or(n, |v| v.min(n)));
        }
        let (size_bytes, btrees) = self.measure()?;
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

impl Drop for MariaDbCase<'_> {
    fn drop(&mut self) {
        let _ = self.drop_tables();
    }
}
