//! A user's own schema on any one-server engine and SQLite: its tables in pkbench's namespace
//! (or SQLite's file of the case's own), one prepared statement per insert and read.

use super::backend::{Backend, SettingsFor};
use super::engine::ServerEngine;
use crate::Error;
use crate::engines::Engine;
use crate::engines::own_schema::{Read, Rebuild, SchemaCase, SchemaEngine, SchemaReport, TreeCounters};
use crate::engines::schema_sql::{RunSql, run_sql};
use crate::engines::wire::{Connection, Value};
use crate::generators::Key;
use crate::metrics::budget::CounterAccount;
use crate::results::Counters;
use crate::schema::Plan;
use crate::strategy::Strategy;
use crate::values::Param;
use std::collections::BTreeMap;

impl<B: Backend> SchemaEngine for ServerEngine<B> {
    fn create_schema_case(&mut self, strategy: &Strategy, plan: &Plan) -> Result<Box<dyn SchemaCase + '_>, Error> {
        if B::KIND.is_sharded() {
            return Err(Error::InvalidInput(format!(
                "--schema runs on one server: use --engine postgres or mariadb, not {}",
                B::KIND.name()
            )));
        }
        self.check(strategy)?;
        crate::engines::schema_sql::check_strategy(strategy, self.dialect())?;
        let sql = run_sql(plan, strategy, B::KIND, &self.namespace)?;
        let tables: Vec<String> = plan.fills.iter().map(|f| f.table.name.clone()).collect();
        let names: Vec<&str> = tables.iter().map(String::as_str).collect();
        let stmts = self.open_case(SettingsFor::Schema, strategy.name, (&names, TABLES), |engine| {
            for stmt in &sql.create {
                engine.run(stmt, || format!("could not create the schema's tables ({stmt})"))?;
            }
            prepare(&mut engine.conn, &sql)
        })?;
        // From here on the case owns the tables: dropping it drops them.
        let mut case = ServerSchema { engine: self, sql, tables, stmts, last: B::Snapshot::default(), closed: false };
        case.last = case.snapshot()?;
        Ok(Box::new(case))
    }
}

/// What the schema's tables are called in errors.
const TABLES: &str = "schema's tables";

/// Prepares the inserts (one per table), then the reads by key, by each index and of the
/// children of each child table.
fn prepare<C: Connection>(conn: &mut C, sql: &RunSql) -> Result<Vec<C::Statement>, Error> {
    let mut one = |s: &str| conn.prepare(s).map_err(|e| Error::server(format!("could not prepare '{s}'"), e));
    let mut stmts = Vec::new();
    for s in sql.inserts.iter().map(|i| i.sql.as_str()) {
        stmts.push(one(s)?);
    }
    stmts.push(one(&sql.by_key)?);
    for s in sql.by_index.iter().map(|r| r.sql.as_str()).chain(sql.children_of.iter().map(|c| c.1.as_str())) {
        stmts.push(one(s)?);
    }
    Ok(stmts)
}

/// One strategy's copy of the user's tables.
struct ServerSchema<'a, B: Backend> {
    engine: &'a mut ServerEngine<B>,
    sql: RunSql,
    tables: Vec<String>,
    /// Inserts (one per table), then by key, by each index, children of each child table.
    stmts: Vec<<B::Conn as Connection>::Statement>,
    last: B::Snapshot,
    closed: bool,
}

impl<B: Backend> ServerSchema<'_, B> {
    fn snapshot(&mut self) -> Result<B::Snapshot, Error> {
        let tables = self.tables.clone();
        let names: Vec<&str> = tables.iter().map(String::as_str).collect();
        let ServerEngine { conn, namespace, backend, .. } = &mut *self.engine;
        backend.snapshot(conn, namespace, &names)
    }

    fn count(&mut self, sql: &str) -> Result<u64, Error> {
        let n =
            self.engine.conn.query_one_text(sql).map_err(|e| Error::server(format!("could not count ({sql})"), e))?;
        Ok(n.and_then(|v| v.as_u64()).unwrap_or(0))
    }

    /// Rebuilds `names` as the remedy workload's compaction does, timed, and measures the size
    /// after.
    fn rebuild(&mut self, names: &[&str]) -> Result<Rebuild, Error> {
        let list = self.engine.qualify_all(names);
        let ServerEngine { conn, namespace, backend, .. } = &mut *self.engine;
        let started = std::time::Instant::now();
        backend.compact(conn, &list)?;
        let elapsed_ns = started.elapsed().as_nanos() as u64;
        let (size_after_bytes, _) = backend.measure_schema(conn, namespace, names)?;
        let spent_ns = started.elapsed().as_nanos() as u64;
        Ok(Rebuild { elapsed_ns, spent_ns, size_after_bytes, note: B::COMPACT_NOTE })
    }

    /// Drops the tables (or closes SQLite's file, keeping it if asked and `finished`), once;
    /// returns where the database was kept.
    fn close(&mut self, finished: bool) -> Result<Option<std::path::PathBuf>, Error> {
        if self.closed {
            return Ok(None);
        }
        self.closed = true;
        let tables = self.tables.clone();
        let names: Vec<&str> = tables.iter().map(String::as_str).collect();
        self.engine.close_case(&names, TABLES, finished)
    }
}

impl<B: Backend> SchemaCase for ServerSchema<'_, B> {
    fn sql(&self) -> &RunSql {
        &self.sql
    }

    fn effective_settings(&mut self) -> Result<BTreeMap<String, String>, Error> {
        self.engine.case_settings(SettingsFor::Schema)
    }

    fn execute(&mut self, sql: &str) -> Result<(), Error> {
        self.engine.run(sql, || format!("could not run {sql}"))
    }

    fn begin(&mut self) -> Result<(), Error> {
        self.engine.begin()
    }

    fn end(&mut self, ok: bool) -> Result<(), Error> {
        let result = if ok { Ok(()) } else { Err(Error::Interrupted) };
        match self.engine.end(result) {
            Err(Error::Interrupted) => Ok(()),
            other => other,
        }
    }

    fn insert(&mut self, table: usize, params: &[Param<'_>]) -> Result<Option<Key>, Error> {
        let stmt = &self.stmts[table];
        let conn = &mut self.engine.conn;
        let what = || format!("INSERT into {} failed", self.tables[table]);
        let insert = &self.sql.inserts[table];
        if !insert.returns_key {
            conn.exec(stmt, params).map_err(|e| Error::server(what(), e))?;
            return Ok(None);
        }
        if insert.key_is_rowid {
            conn.exec(stmt, params).map_err(|e| Error::server(what(), e))?;
            let id = conn.last_insert_rowid().map(Key::Int);
            return id
                .map(Some)
                .ok_or_else(|| Error::UnexpectedResponse("the connection keeps no rowid to read".into()));
        }
        let mut id = None;
        conn.query(stmt, params, &mut |row| id = row.first().and_then(Value::to_key))
            .map_err(|e| Error::server(what(), e))?;
        match id {
            Some(id) => Ok(Some(id)),
            None => Err(Error::UnexpectedResponse("the server assigned a key pkbench cannot read back".into())),
        }
    }

    fn read(&mut self, read: Read, params: &[Param<'_>]) -> Result<u64, Error> {
        let first_read = self.sql.inserts.len();
        let (n, what) = match read {
            Read::ByKey => (first_read, "a read by key"),
            Read::ByIndex(i) => (first_read + 1 + i, "a read by a secondary index"),
            Read::ChildrenOf(i) => (first_read + 1 + self.sql.by_index.len() + i, "a read of a row's children"),
        };
        self.engine
            .conn
            .query(&self.stmts[n], params, &mut |_| {})
            .map_err(|e| Error::server(format!("{what} failed"), e))
    }

    fn tree_counters(&mut self) -> Result<BTreeMap<String, TreeCounters>, Error> {
        let tables = self.tables.clone();
        let names: Vec<&str> = tables.iter().map(String::as_str).collect();
        let ServerEngine { conn, namespace, backend, .. } = &mut *self.engine;
        backend.tree_counters(conn, namespace, &names)
    }

    fn take_counters(&mut self, account: &CounterAccount) -> Result<Counters, Error> {
        let now = self.snapshot()?;
        let tables = self.tables.clone();
        let names: Vec<&str> = tables.iter().map(String::as_str).collect();
        let ServerEngine { conn, namespace, backend, .. } = &mut *self.engine;
        let c = backend.counters(conn, (&self.last, &now), namespace, &names, account);
        self.last = now;
        Ok(c)
    }

    fn take_levels(&mut self) -> Option<Vec<crate::results::LsmLevel>> {
        self.engine.backend.take_levels()
    }

    fn finish(mut self: Box<Self>, rebuild: bool) -> Result<SchemaReport, Error> {
        let mut rows = Vec::new();
        for sql in self.sql.counts.clone() {
            rows.push(self.count(&sql)?);
        }
        let mut orphans = Vec::new();
        for (_, sql) in self.sql.orphans.clone() {
            orphans.push(self.count(&sql)?);
        }
        let tables = self.tables.clone();
        let names: Vec<&str> = tables.iter().map(String::as_str).collect();
        let (size_bytes, btrees, wal_size_bytes) = {
            let ServerEngine { conn, namespace, backend, .. } = &mut *self.engine;
            let (size, btrees) = backend.measure_schema(conn, namespace, &names)?;
            (size, btrees, backend.wal_size_bytes())
        };
        // An extra measurement: where it fails, the run's own figures stand.
        let rebuild = rebuild.then(|| self.rebuild(&names).map_err(|e| e.to_string()));
        let kept = self.close(true)?;
        Ok(SchemaReport { rows, orphans, size_bytes, wal_size_bytes, btrees, kept, rebuild })
    }
}

impl<B: Backend> Drop for ServerSchema<'_, B> {
    fn drop(&mut self) {
        let _ = self.close(false);
    }
}
