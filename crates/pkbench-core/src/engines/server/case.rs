//! One strategy's tables (on a server, or in SQLite's file of the case's own) while a workload
//! inserts into them, and the extra connections of a concurrent workload.

use super::backend::{Backend, SettingsFor};
use super::engine::ServerEngine;
use crate::Error;
use crate::control::RunControl;
use crate::engines::dialect::Dialect;
use crate::engines::sql::BenchSql;
use crate::engines::txn::{ClientOptions, TxnShape};
use crate::engines::wire::{Connection, KeyField, KeySlot};
use crate::engines::{CaseReport, CaseSpec, InsertCase, InsertClient, Maintenance, Physical, WaitSampler};
use crate::generators::Key;
use crate::keys::KeyRow;
use crate::metrics::budget::{CounterAccount, CounterBudget};
use crate::results::Counters;
use crate::values::Param;
use std::collections::BTreeMap;

/// The bulk DELETEs of a case whose primary keys pkbench knows: `bench`, then the mapping table.
struct Deletes<C: Connection> {
    bench: C::Bulk,
    map: Option<C::Bulk>,
}

/// What the case's tables are called in errors.
const TABLES: &str = "benchmark table";

/// An insert case on any engine.
pub(super) struct ServerCase<'a, B: Backend> {
    engine: &'a mut ServerEngine<B>,
    /// The strategy's name, for errors.
    strategy: &'static str,
    sql: BenchSql,
    insert: <B::Conn as Connection>::Bulk,
    insert_map: Option<<B::Conn as Connection>::Bulk>,
    deletes: Option<Deletes<B::Conn>>,
    payload_bytes: usize,
    last: B::Snapshot,
    closed: bool,
}

/// A case's prepared statements: the bulk INSERTs, and the DELETEs where pkbench knows the keys.
struct Prepared<C: Connection> {
    insert: C::Bulk,
    insert_map: Option<C::Bulk>,
    deletes: Option<Deletes<C>>,
}

impl<C: Connection> Prepared<C> {
    fn prepare(
        conn: &mut C,
        dialect: &dyn Dialect,
        namespace: &str,
        sql: &BenchSql,
        payload: usize,
    ) -> Result<Self, Error> {
        let prepare = |e| Error::server("could not prepare INSERT", e);
        let insert = conn.bulk(&sql.insert, payload).map_err(prepare)?;
        let insert_map = sql.insert_map.as_ref().map(|m| conn.bulk(m, payload)).transpose().map_err(prepare)?;
        let deletes = match sql.delete_storage {
            Some(storage) => {
                let mut delete = |table: &str| {
                    let bulk = dialect.bulk_delete(&dialect.qualify(namespace, table), storage);
                    conn.bulk(&bulk, 0).map_err(|e| Error::server("could not prepare DELETE", e))
                };
                let bench = delete("bench")?;
                let map = if sql.insert_map.is_some() { Some(delete("bench_map")?) } else { None };
                Some(Deletes { bench, map })
            }
            None => None,
        };
        Ok(Prepared { insert, insert_map, deletes })
    }
}

impl<'a, B: Backend> ServerCase<'a, B> {
    /// Readies the case's database, creates `spec.strategy`'s tables and prepares its statements.
    pub(super) fn create(engine: &'a mut ServerEngine<B>, spec: &CaseSpec<'_>) -> Result<Self, Error> {
        let sql = engine.backend.bench_sql(spec.strategy, &engine.namespace)?;
        let payload = spec.payload_bytes;
        let tables = sql.tables.clone();
        let prepared = engine.open_case(SettingsFor::Insert, spec.strategy.name, (&tables, TABLES), |engine| {
            let dialect = engine.dialect();
            engine.backend.create_tables(&mut engine.conn, &sql, spec)?;
            Prepared::prepare(&mut engine.conn, dialect, &engine.namespace, &sql, payload)
        })?;
        let Prepared { insert, insert_map, deletes } = prepared;
        let mut case = ServerCase {
            engine,
            strategy: spec.strategy.name,
            sql,
            insert,
            insert_map,
            deletes,
            payload_bytes: payload,
            last: B::Snapshot::default(),
            closed: false,
        };
        case.last = case.snapshot()?;
        Ok(case)
    }

    fn snapshot(&mut self) -> Result<B::Snapshot, Error> {
        let ServerEngine { conn, namespace, backend, .. } = &mut *self.engine;
        backend.snapshot(conn, namespace, &self.sql.tables)
    }

    /// The case's tables, qualified and comma-separated.
    fn table_list(&self) -> String {
        self.engine.qualify_all(&self.sql.tables)
    }

    /// The case's size once a full compaction has merged its tables into the bottom level.
    fn compacted_size_bytes(&mut self) -> Result<u64, Error> {
        let list = self.table_list();
        let ServerEngine { conn, namespace, backend, .. } = &mut *self.engine;
        backend.compact(conn, &list)?;
        backend.size_bytes(conn, namespace, &self.sql.tables)
    }

    /// Drops the case's tables (or closes its database), once; returns where it was kept.
    fn close(&mut self, finished: bool) -> Result<Option<std::path::PathBuf>, Error> {
        if self.closed {
            return Ok(None);
        }
        self.closed = true;
        let tables = self.sql.tables.clone();
        let kept = self.engine.close_case(&tables, TABLES, finished)?;
        self.engine.backend.tables_dropped(&self.engine.namespace, &tables)?;
        Ok(kept)
    }

    fn measure(&mut self) -> Result<Physical, Error> {
        let ServerEngine { conn, namespace, backend, .. } = &mut *self.engine;
        let (size_bytes, btrees) = backend.measure(conn, namespace, &self.sql.tables)?;
        Ok(Physical { size_bytes, wal_size_bytes: backend.wal_size_bytes(), btrees })
    }
}

impl<B: Backend> InsertCase for ServerCase<'_, B> {
    fn effective_settings(&mut self) -> Result<BTreeMap<String, String>, Error> {
        self.engine.case_settings(SettingsFor::Insert)
    }

    fn insert_batch(&mut self, rows: &[KeyRow], control: &RunControl) -> Result<(), Error> {
        let ServerCase { engine, insert, insert_map, .. } = self;
        engine.transaction(|engine| {
            let conn = &mut engine.conn;
            if !conn.insert_rows(insert, rows, control).map_err(|e| Error::server("INSERT failed", e))? {
                return Err(Error::Interrupted);
            }
            if let Some(map) = insert_map {
                let quiet = RunControl::new();
                conn.insert_rows(map, rows, &quiet)
                    .map_err(|e| Error::server("INSERT into the mapping table failed", e))?;
            }
            Ok(())
        })
    }

    fn take_counters(&mut self) -> Result<Counters, Error> {
        self.take_counters_within(&CounterAccount::new(CounterBudget::Unlimited))
    }

    fn take_counters_within(&mut self, account: &CounterAccount) -> Result<Counters, Error> {
        let now = self.snapshot()?;
        let ServerEngine { conn, namespace, backend, .. } = &mut *self.engine;
        let c = backend.counters(conn, (&self.last, &now), namespace, &self.sql.tables, account);
        self.last = now;
        Ok(c)
    }

    fn take_shards(&mut self) -> Option<Vec<crate::results::ShardCounters>> {
        self.engine.backend.take_shards()
    }

    fn take_levels(&mut self) -> Option<Vec<crate::results::LsmLevel>> {
        self.engine.backend.take_levels()
    }

    fn counters_every_batch(&self) -> bool {
        B::KIND.is_sharded()
    }

    fn connect_with(&mut self, options: &ClientOptions) -> Result<Box<dyn InsertClient + Send>, Error> {
        if let Some(reason) = self.engine.backend.client_refusal(options) {
            return Err(Error::InvalidInput(reason));
        }
        if self.insert_map.is_some() {
            return Err(Error::InvalidInput(
                "a concurrent client inserts one row per statement; mapping-table strategies need two".into(),
            ));
        }
        let keys = self.sql.insert.keys.clone();
        let primary = keys.iter().find(|(f, _)| *f == KeyField::Primary).map(|(_, s)| *s);
        if options.txn.uses_recent() && primary.is_none() {
            return Err(options.txn.server_keys_refusal(self.strategy));
        }
        let dialect = self.engine.dialect();
        let mut conn = self.engine.backend.connect()?;
        if let Some(level) = options.isolation {
            conn.execute(&dialect.set_isolation(level))
                .map_err(|e| Error::server("could not set the isolation level", e))?;
        }
        let prepare =
            |conn: &mut B::Conn, sql: &str| conn.prepare(sql).map_err(|e| Error::server("could not prepare", e));
        let insert = prepare(&mut conn, &self.sql.insert_one)?;
        let recent = match options.txn {
            TxnShape::Insert => None,
            TxnShape::InsertReadRecent => Some(prepare(&mut conn, &self.sql.read_after)?),
            TxnShape::InsertUpdateRecent => Some(prepare(&mut conn, &self.sql.update_payload)?),
        };
        let client = ServerClient::<B::Conn> {
            conn,
            insert,
            txn: options.txn,
            recent,
            primary,
            begin: dialect.begin(),
            payload: vec![0xa5; self.payload_bytes],
            keys,
            slots: [KeySlot::default(); 2],
        };
        Ok(Box::new(client))
    }

    fn wait_sampler(&mut self) -> Result<Option<Box<dyn WaitSampler>>, Error> {
        let table = self.engine.qualify("bench");
        let Some(sql) = self.engine.backend.wait_sample_sql(&self.engine.namespace, &table) else { return Ok(None) };
        let mut conn = self.engine.backend.connect()?;
        let query = conn.prepare(&sql).map_err(|e| Error::server("could not prepare the wait-event query", e))?;
        Ok(Some(Box::new(ServerWaitSampler::<B::Conn> { conn, query })))
    }

    fn maintenance(&mut self) -> Option<&mut dyn Maintenance> {
        Some(self)
    }

    fn finish(mut self: Box<Self>) -> Result<CaseReport, Error> {
        let mut verified_rows: Option<u64> = None;
        for table in self.sql.tables.clone() {
            let n = self.engine.count_rows(table)?;
            verified_rows = Some(verified_rows.map_or(n, |v| v.min(n)));
        }
        let Physical { size_bytes, wal_size_bytes, btrees } = self.measure()?;
        let compacted_size_bytes = match B::SETTLES_BY_COMPACTION {
            true => Some(self.compacted_size_bytes()?),
            false => None,
        };
        let kept = self.close(true)?;
        Ok(CaseReport {
            verified_rows: verified_rows.unwrap_or(0),
            size_bytes,
            wal_size_bytes,
            compacted_size_bytes,
            btrees,
            kept,
        })
    }

    fn committed_rows(&mut self) -> Option<u64> {
        let tables = self.sql.tables.clone();
        let count = |engine: &mut ServerEngine<B>| -> Option<u64> {
            tables.iter().map(|t| engine.count_rows(t).ok()).collect::<Option<Vec<u64>>>()?.into_iter().min()
        };
        match count(self.engine) {
            Some(n) => Some(n),
            // The case's session is lost (a cut connection, a restart): count on a new one.
            None if self.engine.replace_lost_session() => count(self.engine),
            None => None,
        }
    }
}

impl<B: Backend> Maintenance for ServerCase<'_, B> {
    fn physical(&mut self) -> Result<Physical, Error> {
        self.measure()
    }

    fn delete_by_primary(&mut self, keys: &[Key], control: &RunControl) -> Result<u64, Error> {
        let dialect = self.engine.dialect();
        let tables = self.table_list();
        let Some(deletes) = self.deletes.as_mut() else {
            return Err(Error::Unsupported {
                strategy: self.strategy.into(),
                engine: B::KIND.name().into(),
                reason: "the server generates this strategy's keys, so pkbench cannot delete rows by key; use the client-generated strategy".into(),
            });
        };
        let per_statement = dialect.keys_per_delete();
        let deleted = self.engine.transaction(|engine| {
            let conn = &mut engine.conn;
            // The mapping table first, as a foreign key would require; `bench` last.
            if let Some(map) = deletes.map.as_mut() {
                conn.delete_keys(map, keys, per_statement, control)
                    .map_err(|e| Error::server("DELETE from the mapping table failed", e))?
                    .ok_or(Error::Interrupted)?;
            }
            conn.delete_keys(&mut deletes.bench, keys, per_statement, control)
                .map_err(|e| Error::server("DELETE failed", e))?
                .ok_or(Error::Interrupted)
        })?;
        let ServerEngine { conn, backend, .. } = &mut *self.engine;
        backend.after_delete(conn, &tables)?;
        Ok(deleted)
    }

    fn delete_note(&self) -> Option<&'static str> {
        B::DELETE_NOTE
    }

    fn compact(&mut self) -> Result<&'static str, Error> {
        let tables = self.table_list();
        let ServerEngine { conn, backend, .. } = &mut *self.engine;
        backend.compact(conn, &tables)?;
        Ok(B::COMPACT_NOTE)
    }
}

impl<B: Backend> Drop for ServerCase<'_, B> {
    fn drop(&mut self) {
        let _ = self.close(false);
    }
}

/// A session that reads the server's activity view for a case's wait events.
struct ServerWaitSampler<C: Connection> {
    conn: C,
    query: C::Statement,
}

impl<C: Connection> WaitSampler for ServerWaitSampler<C> {
    fn sample(&mut self, tally: &mut BTreeMap<String, u64>) -> Result<(), Error> {
        let mut rows = Vec::new();
        self.conn
            .query(&self.query, &[], &mut |row| rows.push((row[0].as_text(), row[1].as_u64())))
            .map_err(|e| Error::server("could not sample wait events", e))?;
        for (event, sessions) in rows {
            *tally.entry(event.unwrap_or_else(|| "unknown".into())).or_insert(0) += sessions.unwrap_or(0);
        }
        Ok(())
    }
}

/// One more session inserting single rows in autocommit mode through a prepared INSERT, or in
/// transactions of a `--txn` shape.
struct ServerClient<C: Connection> {
    conn: C,
    insert: C::Statement,
    txn: TxnShape,
    /// The shape's read or update of a recent row.
    recent: Option<C::Statement>,
    /// Storage of the primary key, when the client makes it.
    primary: Option<crate::strategy::Storage>,
    begin: &'static str,
    payload: Vec<u8>,
    /// The client-side key columns, in parameter order.
    keys: Vec<(crate::engines::wire::KeyField, crate::strategy::Storage)>,
    slots: [KeySlot; 2],
}

impl<C: Connection> InsertClient for ServerClient<C> {
    fn transact(&mut self, row: &KeyRow, recent: Option<Key>) -> Result<(), Error> {
        if self.txn == TxnShape::Insert {
            return self.insert_one(row);
        }
        let fail = |what: &str, e| Error::server(format!("{what} failed"), e);
        self.conn.execute(self.begin).map_err(|e| fail("BEGIN", e))?;
        let result = self.insert_one(row).and_then(|()| self.touch_recent(recent));
        match result {
            Ok(()) => self.conn.execute("COMMIT").map_err(|e| fail("COMMIT", e)),
            Err(e) => {
                // A lost conflict leaves the transaction aborted: end it before any retry.
                let _ = self.conn.execute("ROLLBACK");
                Err(e)
            }
        }
    }

    fn insert_one(&mut self, row: &KeyRow) -> Result<(), Error> {
        let ServerClient { conn, insert, payload, keys, slots, .. } = self;
        let mut params = [Param::Null; 3];
        let mut n = 0;
        for ((field, storage), slot) in keys.iter().zip(slots.iter_mut()) {
            if let Some(key) = field.of(row) {
                params[n] = slot.bind(key, *storage);
            }
            n += 1;
        }
        params[n] = Param::Bytes(payload);
        conn.exec(insert, &params[..=n]).map_err(|e| Error::server("INSERT failed", e))?;
        Ok(())
    }

    fn lock_wait_ns(&self) -> Option<u64> {
        self.conn.lock_wait_ns()
    }
}

impl<C: Connection> ServerClient<C> {
    /// The shape's statement on the recent row with key `recent` (nothing without one yet).
    fn touch_recent(&mut self, recent: Option<Key>) -> Result<(), Error> {
        let (Some(stmt), Some(key), Some(storage)) = (self.recent.as_ref(), recent, self.primary) else {
            return Ok(());
        };
        let mut slot = KeySlot::default();
        let key = slot.bind(key, storage);
        match self.txn {
            TxnShape::InsertReadRecent => {
                self.conn
                    .query(stmt, &[key], &mut |_| {})
                    .map_err(|e| Error::server("SELECT of a recent row failed", e))?;
            }
            TxnShape::InsertUpdateRecent => {
                let params = [Param::Bytes(&self.payload), key];
                self.conn.exec(stmt, &params).map_err(|e| Error::server("UPDATE of a recent row failed", e))?;
            }
            TxnShape::Insert => {}
        }
        Ok(())
    }
}
