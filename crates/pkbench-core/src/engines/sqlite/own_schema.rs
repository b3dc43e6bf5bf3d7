//! SQLite's [`SchemaCase`]: a user's schema in its own database file per strategy, foreign keys
//! enforced (`PRAGMA foreign_keys = ON`), statements prepared once and cached.

use super::{SqliteEngine, dbstat, file_len, refuse_existing, remove_database, settings, wal_path};
use crate::Error;
use crate::engines::EngineKind;
use crate::engines::own_schema::{Read, SchemaCase, SchemaEngine, SchemaReport};
use crate::engines::wire::Param;
use crate::generators::Key;
use crate::metrics::budget::CounterAccount;
use crate::results::Counters;
use crate::schema::{Plan, RunSql, run_sql};
use crate::strategy::Strategy;
use rusqlite::types::{ToSqlOutput, ValueRef};
use rusqlite::{Connection, ToSql};
use std::collections::BTreeMap;
use std::path::PathBuf;

impl SchemaEngine for SqliteEngine {
    fn create_schema_case(&mut self, strategy: &Strategy, plan: &Plan) -> Result<Box<dyn SchemaCase + '_>, Error> {
        crate::engines::Engine::check(self, strategy)?;
        crate::schema::check_strategy(strategy, EngineKind::Sqlite.dialect())?;
        let sql = run_sql(plan, strategy, EngineKind::Sqlite, "")?;
        let tables = plan.fills.iter().map(|f| f.table.name.clone()).collect();
        let path = self.settings.dir.join(format!("schema-{}.sqlite", strategy.name));
        refuse_existing(&path)?;
        let conn = Connection::open(&path)
            .map_err(|e| Error::sqlite(format!("could not create '{}'", path.display()), &path, e))?;
        let case = SqliteSchema { conn: Some(conn), path, keep: self.settings.keep_db, sql, tables };
        let conn = case.conn();
        self.settings.apply(conn).map_err(|e| case.err("could not apply SQLite settings", e))?;
        conn.execute_batch("PRAGMA foreign_keys = ON").map_err(|e| case.err("could not enforce foreign keys", e))?;
        for stmt in &case.sql.create {
            conn.execute_batch(stmt)
                .map_err(|e| case.err(&format!("could not create the schema's tables ({stmt})"), e))?;
        }
        conn.set_prepared_statement_cache_capacity(64);
        // Start counting from here: creating the tables is not part of the load.
        super::counters::take(case.conn())?;
        Ok(Box::new(case))
    }
}

/// One strategy's copy of the user's tables.
struct SqliteSchema {
    /// `None` only after `finish` closed it.
    conn: Option<Connection>,
    path: PathBuf,
    keep: bool,
    sql: RunSql,
    tables: Vec<String>,
}

/// A wire parameter as SQLite binds it.
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

impl SqliteSchema {
    fn conn(&self) -> &Connection {
        self.conn.as_ref().expect("connection is open until finish")
    }

    fn err(&self, context: &str, e: rusqlite::Error) -> Error {
        Error::sqlite(context, &self.path, e)
    }

    /// Prepares (or takes from the cache) `sql` and binds `params` from position 1.
    fn bound(&self, sql: &str, params: &[Param<'_>]) -> Result<rusqlite::CachedStatement<'_>, Error> {
        let mut stmt =
            self.conn().prepare_cached(sql).map_err(|e| self.err(&format!("could not prepare '{sql}'"), e))?;
        for (i, p) in params.iter().enumerate() {
            stmt.raw_bind_parameter(i + 1, Bind(*p)).map_err(|e| self.err("could not bind", e))?;
        }
        Ok(stmt)
    }

    fn count(&self, sql: &str) -> Result<u64, Error> {
        let n: i64 = self.conn().query_row(sql, [], |r| r.get(0)).map_err(|e| self.err("could not count rows", e))?;
        Ok(n.max(0) as u64)
    }

    /// `dbstat`'s trees, each index named `table.index`.
    fn btrees(&self) -> Result<Vec<crate::results::BtreeStats>, Error> {
        let conn = self.conn();
        let owners: BTreeMap<String, String> = conn
            .prepare("SELECT name, tbl_name FROM sqlite_schema WHERE type = 'index'")
            .and_then(|mut s| s.query_map([], |r| Ok((r.get(0)?, r.get(1)?)))?.collect())
            .map_err(|e| self.err("could not list indexes", e))?;
        let mut trees = dbstat::btree_stats(conn).map_err(|e| self.err("could not read dbstat", e))?;
        for t in &mut trees {
            if let Some(table) = owners.get(&t.name) {
                t.name = format!("{table}.{}", t.name);
            }
        }
        Ok(trees)
    }
}

impl SchemaCase for SqliteSchema {
    fn sql(&self) -> &RunSql {
        &self.sql
    }

    fn effective_settings(&mut self) -> Result<BTreeMap<String, String>, Error> {
        let mut out = settings::read_back(self.conn()).map_err(|e| self.err("could not read SQLite settings", e))?;
        let fk: i64 = self
            .conn()
            .query_row("PRAGMA foreign_keys", [], |r| r.get(0))
            .map_err(|e| self.err("could not read SQLite settings", e))?;
        out.insert("foreign_keys".into(), fk.to_string());
        Ok(out)
    }

    fn begin(&mut self) -> Result<(), Error> {
        self.conn().execute_batch("BEGIN IMMEDIATE").map_err(|e| self.err("could not begin a transaction", e))
    }

    fn end(&mut self, ok: bool) -> Result<(), Error> {
        let end = if ok { "COMMIT" } else { "ROLLBACK" };
        self.conn().execute_batch(end).map_err(|e| self.err(&format!("{end} failed"), e))
    }

    fn insert(&mut self, table: usize, params: &[Param<'_>]) -> Result<Option<Key>, Error> {
        let insert = &self.sql.inserts[table];
        let mut stmt = self.bound(&insert.sql, params)?;
        let what = || format!("INSERT into {} failed", self.tables[table]);
        if !insert.returns_key {
            stmt.raw_execute().map_err(|e| self.err(&what(), e))?;
            return Ok(None);
        }
        let mut rows = stmt.raw_query();
        let row = rows.next().map_err(|e| self.err(&what(), e))?;
        let key = row.and_then(|r| match r.get_ref(0).ok()? {
            ValueRef::Integer(v) => Some(Key::Int(v)),
            ValueRef::Blob(b) => b.try_into().ok().map(Key::Uuid),
            _ => None,
        });
        // Step past the end so the statement completes.
        while rows.next().map_err(|e| self.err(&what(), e))?.is_some() {}
        key.map(Some).ok_or_else(|| Error::InvalidInput("SQLite assigned a key pkbench cannot read back".into()))
    }

    fn read(&mut self, read: Read, params: &[Param<'_>]) -> Result<u64, Error> {
        let sql = match read {
            Read::ByKey => &self.sql.by_key,
            Read::ByIndex(i) => &self.sql.by_index[i].sql,
            Read::ChildrenOf(i) => &self.sql.children_of[i].1,
        };
        let mut stmt = self.bound(sql, params)?;
        let mut rows = stmt.raw_query();
        let mut n = 0;
        while rows.next().map_err(|e| self.err("a read failed", e))?.is_some() {
            n += 1;
        }
        Ok(n)
    }

    fn take_counters(&mut self, _: &CounterAccount) -> Result<Counters, Error> {
        super::counters::take(self.conn())
    }

    fn finish(mut self: Box<Self>) -> Result<SchemaReport, Error> {
        let rows = self.sql.counts.iter().map(|sql| self.count(sql)).collect::<Result<_, _>>()?;
        let orphans = self.sql.orphans.iter().map(|(_, sql)| self.count(sql)).collect::<Result<_, _>>()?;
        let wal = std::fs::metadata(wal_path(&self.path)).ok().map(|m| m.len());
        let size_bytes = file_len(&self.path) + wal.unwrap_or(0);
        let btrees = self.btrees()?;
        if let Some(conn) = self.conn.take() {
            conn.close().map_err(|(_, e)| Error::sqlite("could not close the database", &self.path, e))?;
        }
        let kept = self.keep.then(|| self.path.clone());
        Ok(SchemaReport { rows, orphans, size_bytes, wal_size_bytes: wal, btrees, kept })
    }
}

impl Drop for SqliteSchema {
    fn drop(&mut self) {
        // Close before removing; keep the files only when asked and the case finished.
        let finished = self.conn.is_none();
        drop(self.conn.take());
        if !(self.keep && finished) {
            remove_database(&self.path);
        }
    }
}
