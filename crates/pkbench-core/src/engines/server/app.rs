//! The application workload on any engine: its tables in pkbench's namespace (or SQLite's
//! file of the case's own), one prepared single-row statement per operation.

use super::backend::{Backend, SettingsFor};
use super::engine::ServerEngine;
use crate::Error;
use crate::control::RunControl;
use crate::engines::app::{AppCase, AppEngine, AppReport, AppSql, OrderRow, UserRow, load_rows};
use crate::engines::wire::{Connection, KeySlot, Value};
use crate::generators::Key;
use crate::keys::KeyRow;
use crate::metrics::budget::{CounterAccount, CounterBudget};
use crate::results::Counters;
use crate::strategy::{Storage, Strategy};
use crate::values::Param;
use std::collections::BTreeMap;
use std::fmt::Write;

impl<B: Backend> AppEngine for ServerEngine<B> {
    fn create_app(&mut self, strategy: &Strategy) -> Result<Box<dyn AppCase + '_>, Error> {
        use crate::engines::Engine;
        self.check(strategy)?;
        let sql = self.backend.app_sql(strategy, &self.namespace)?;
        let tables: Vec<&'static str> = sql.counted.iter().map(|(t, _)| *t).collect();
        let stmts = self.open_case(SettingsFor::App, strategy.name, (&tables, TABLES), |engine| {
            for stmt in &sql.create {
                engine.run(stmt, || format!("could not create the application's tables ({stmt})"))?;
            }
            Statements::prepare(&mut engine.conn, &sql)
        })?;
        let mut case = ServerApp {
            engine: self,
            tables,
            sql,
            stmts,
            primary: strategy.primary.storage,
            external: strategy.secondary.map(|s| s.storage),
            slots: [KeySlot::default(); 3],
            name: String::with_capacity(32),
            email: String::with_capacity(48),
            cursor: Cursor::Start,
            last: B::Snapshot::default(),
            closed: false,
        };
        case.last = case.snapshot()?;
        Ok(Box::new(case))
    }
}

/// The application's statements, prepared once per case.
struct Statements<S> {
    insert_user: S,
    insert_order: S,
    map_users: Option<S>,
    map_orders: Option<S>,
    user_by_public: S,
    user_by_id: Option<S>,
    orders_of_user: S,
    join_first: S,
    join_next: S,
    touch_user: S,
    delete_order: S,
    delete_order_map: Option<S>,
    average_age: S,
}

impl<S> Statements<S> {
    fn prepare<C: Connection<Statement = S>>(conn: &mut C, sql: &AppSql) -> Result<Self, Error> {
        let mut one = |s: &str| conn.prepare(s).map_err(|e| Error::server(format!("could not prepare '{s}'"), e));
        Ok(Statements {
            insert_user: one(&sql.insert_user)?,
            insert_order: one(&sql.insert_order)?,
            map_users: sql.map_users.as_deref().map(&mut one).transpose()?,
            map_orders: sql.map_orders.as_deref().map(&mut one).transpose()?,
            user_by_public: one(&sql.user_by_public)?,
            user_by_id: sql.user_by_id.as_deref().map(&mut one).transpose()?,
            orders_of_user: one(&sql.orders_of_user)?,
            join_first: one(&sql.join_first)?,
            join_next: one(&sql.join_next)?,
            touch_user: one(&sql.touch_user)?,
            delete_order: one(&sql.delete_order)?,
            delete_order_map: sql.delete_order_map.as_deref().map(&mut one).transpose()?,
            average_age: one(&sql.average_age)?,
        })
    }
}

/// Keyset pagination state of the join: the last (user id, order id) as the server sent them.
enum Cursor {
    Start,
    After(Value, Value),
    End,
}

/// Parameter slots: primary key, external key, and the user a row refers to.
const PK: usize = 0;
const EXT: usize = 1;
const USER: usize = 2;

/// What the application's tables are called in errors.
const TABLES: &str = "application's tables";

/// One strategy's application tables.
struct ServerApp<'a, B: Backend> {
    engine: &'a mut ServerEngine<B>,
    sql: AppSql,
    stmts: Statements<<B::Conn as Connection>::Statement>,
    primary: Storage,
    external: Option<Storage>,
    tables: Vec<&'static str>,
    slots: [KeySlot; 3],
    name: String,
    email: String,
    cursor: Cursor,
    last: B::Snapshot,
    closed: bool,
}

fn missing() -> Error {
    Error::Internal("a client-generated key is missing".into())
}

impl<B: Backend> ServerApp<'_, B> {
    fn snapshot(&mut self) -> Result<B::Snapshot, Error> {
        let ServerEngine { conn, namespace, backend, .. } = &mut *self.engine;
        backend.snapshot(conn, namespace, &self.tables)
    }

    fn conn(&mut self) -> &mut B::Conn {
        &mut self.engine.conn
    }

    /// Inserts one row: its keys, then `rest`; returns its primary key (read back where the
    /// server assigns it).
    fn insert(
        &mut self,
        keys: &KeyRow,
        stmt: &<B::Conn as Connection>::Statement,
        rest: &[Param<'_>],
    ) -> Result<Key, Error> {
        let [pk, ext, _] = &mut self.slots;
        let mut params = [Param::Null; 7];
        let mut n = 0;
        if self.sql.client_primary {
            params[n] = pk.bind(keys.primary.ok_or_else(missing)?, self.primary);
            n += 1;
        }
        if let Some(storage) = self.external {
            params[n] = ext.bind(keys.secondary.ok_or_else(missing)?, storage);
            n += 1;
        }
        for p in rest {
            params[n] = *p;
            n += 1;
        }
        let conn = &mut self.engine.conn;
        if self.sql.client_primary {
            conn.exec(stmt, &params[..n]).map_err(|e| Error::server("INSERT failed", e))?;
            return keys.primary.ok_or_else(missing);
        }
        let mut id = None;
        conn.query(stmt, &params[..n], &mut |row| id = row.first().and_then(Value::to_key))
            .map_err(|e| Error::server("INSERT failed", e))?;
        id.ok_or_else(|| Error::UnexpectedResponse("the server assigned a key pkbench cannot read back".into()))
    }

    /// Adds the mapping entry external key → `pk`, if the strategy has mapping tables.
    fn insert_map(
        &mut self,
        map: Option<&<B::Conn as Connection>::Statement>,
        keys: &KeyRow,
        pk: Key,
    ) -> Result<(), Error> {
        let (Some(map), Some(ext), Some(storage)) = (map, keys.secondary, self.external) else { return Ok(()) };
        let [pk_slot, ext_slot, _] = &mut self.slots;
        let params = [ext_slot.bind(ext, storage), pk_slot.bind(pk, self.primary)];
        self.engine.conn.exec(map, &params).map_err(|e| Error::server("INSERT into the mapping table failed", e))?;
        Ok(())
    }

    fn insert_one_order(&mut self, order: &OrderRow) -> Result<Key, Error> {
        let mut user_slot = self.slots[USER];
        let user = user_slot.bind(order.user, self.primary);
        let stmt = self.stmts.insert_order.clone();
        let pk = self.insert(&order.keys, &stmt, &[user, Param::Int(order.amount), Param::Int(order.created_at)])?;
        let map = self.stmts.map_orders.clone();
        self.insert_map(map.as_ref(), &order.keys, pk)?;
        Ok(pk)
    }

    /// Runs a SELECT by public id; returns rows read.
    fn count_by_public(&mut self, stmt: &<B::Conn as Connection>::Statement, public: Key) -> Result<u64, Error> {
        let storage = self.external.unwrap_or(self.primary);
        let p = self.slots[EXT].bind(public, storage);
        self.engine.conn.query(stmt, &[p], &mut |_| {}).map_err(|e| Error::server("a query by public id failed", e))
    }

    /// Runs `body` in one transaction: always for the load, and for a single row where the
    /// strategy writes it with two statements (mapping tables); else in autocommit.
    fn transaction<T>(&mut self, always: bool, body: impl FnOnce(&mut Self) -> Result<T, Error>) -> Result<T, Error> {
        if !always && self.sql.map_orders.is_none() {
            return body(self);
        }
        self.engine.begin()?;
        let result = body(self);
        self.engine.end(result)
    }

    /// Drops the tables (or removes SQLite's file: an application database is never kept), once.
    fn close(&mut self) -> Result<(), Error> {
        if !self.closed {
            self.closed = true;
            let tables = self.tables.clone();
            self.engine.close_case(&tables, TABLES, false)?;
        }
        Ok(())
    }
}

impl<B: Backend> AppCase for ServerApp<'_, B> {
    fn effective_settings(&mut self) -> Result<BTreeMap<String, String>, Error> {
        self.engine.case_settings(SettingsFor::App)
    }

    fn insert_users(&mut self, users: &[UserRow], ids: &mut Vec<Key>, control: &RunControl) -> Result<(), Error> {
        let stmt = self.stmts.insert_user.clone();
        let map = self.stmts.map_users.clone();
        let (mut name, mut email) = (std::mem::take(&mut self.name), std::mem::take(&mut self.email));
        let result = self.transaction(true, |me| {
            load_rows(users, control, |user| {
                name.clear();
                email.clear();
                // Writing into a String cannot fail.
                let _ = write!(name, "user{}", user.number);
                let _ = write!(email, "user{}@example.com", user.number);
                let rest = [Param::Text(&name), Param::Text(&email), Param::Int(user.age), Param::Int(user.created_at)];
                let pk = me.insert(&user.keys, &stmt, &rest)?;
                me.insert_map(map.as_ref(), &user.keys, pk)?;
                ids.push(pk);
                Ok(())
            })
        });
        (self.name, self.email) = (name, email);
        result
    }

    fn insert_orders(&mut self, orders: &[OrderRow], control: &RunControl) -> Result<(), Error> {
        self.transaction(true, |me| load_rows(orders, control, |order| me.insert_one_order(order).map(|_| ())))
    }

    fn average_age(&mut self) -> Result<f64, Error> {
        let stmt = self.stmts.average_age.clone();
        let mut avg = None;
        self.conn()
            .query(&stmt, &[], &mut |row| avg = row.first().and_then(Value::as_f64))
            .map_err(|e| Error::server("avg(age) failed", e))?;
        Ok(avg.unwrap_or(0.0))
    }

    fn user_by_public_id(&mut self, public: Key) -> Result<u64, Error> {
        let stmt = self.stmts.user_by_public.clone();
        self.count_by_public(&stmt, public)
    }

    fn user_by_id(&mut self, id: Key) -> Option<Result<u64, Error>> {
        let stmt = self.stmts.user_by_id.clone()?;
        let p = self.slots[PK].bind(id, self.primary);
        Some(
            self.engine
                .conn
                .query(&stmt, &[p], &mut |_| {})
                .map_err(|e| Error::server("a query by primary key failed", e)),
        )
    }

    fn join_page(&mut self, restart: bool, page_rows: u32) -> Result<u64, Error> {
        if restart {
            self.cursor = Cursor::Start;
        }
        let limit = Param::Int(i64::from(page_rows));
        let twice = !self.engine.dialect().row_comparison();
        let (stmt, params): (_, Vec<Param<'_>>) = match &self.cursor {
            Cursor::Start => (&self.stmts.join_first, vec![limit]),
            Cursor::After(u, o) if twice => {
                (&self.stmts.join_next, vec![u.as_param(), u.as_param(), o.as_param(), limit])
            }
            Cursor::After(u, o) => (&self.stmts.join_next, vec![u.as_param(), o.as_param(), limit]),
            Cursor::End => return Ok(0),
        };
        let (mut n, mut next) = (0u64, None);
        let full = u64::from(page_rows);
        self.engine
            .conn
            .query(stmt, &params, &mut |row| {
                n += 1;
                // Only a full page can have a successor.
                if n == full {
                    next = Some((row.first().cloned(), row.get(2).cloned()));
                }
            })
            .map_err(|e| Error::server("the join failed", e))?;
        self.cursor = match next {
            None => Cursor::End,
            Some((Some(u), Some(o))) => Cursor::After(u, o),
            Some(_) => return Err(Error::UnexpectedResponse("the join returned a row without its keys".into())),
        };
        Ok(n)
    }

    fn orders_of_user(&mut self, public: Key) -> Result<u64, Error> {
        let stmt = self.stmts.orders_of_user.clone();
        self.count_by_public(&stmt, public)
    }

    fn insert_order(&mut self, order: &OrderRow) -> Result<Key, Error> {
        self.transaction(false, |me| me.insert_one_order(order))
    }

    fn touch_user(&mut self, public: Key, created_at: i64) -> Result<u64, Error> {
        let stmt = self.stmts.touch_user.clone();
        let storage = self.external.unwrap_or(self.primary);
        let p = self.slots[EXT].bind(public, storage);
        self.engine.conn.exec(&stmt, &[Param::Int(created_at), p]).map_err(|e| Error::server("UPDATE failed", e))
    }

    fn delete_order(&mut self, primary: Key, external: Option<Key>) -> Result<u64, Error> {
        self.transaction(false, |me| {
            if let (Some(stmt), Some(ext)) = (me.stmts.delete_order_map.clone(), external) {
                let storage = me.external.unwrap_or(me.primary);
                let p = me.slots[EXT].bind(ext, storage);
                me.engine
                    .conn
                    .exec(&stmt, &[p])
                    .map_err(|e| Error::server("DELETE from the mapping table failed", e))?;
            }
            let stmt = me.stmts.delete_order.clone();
            let p = me.slots[PK].bind(primary, me.primary);
            me.engine.conn.exec(&stmt, &[p]).map_err(|e| Error::server("DELETE failed", e))
        })
    }

    fn size_bytes(&mut self) -> Result<u64, Error> {
        let ServerEngine { conn, namespace, backend, .. } = &mut *self.engine;
        backend.size_bytes(conn, namespace, &self.tables)
    }

    fn take_counters(&mut self) -> Result<Counters, Error> {
        let now = self.snapshot()?;
        let ServerEngine { conn, namespace, backend, .. } = &mut *self.engine;
        let every = CounterAccount::new(CounterBudget::Unlimited);
        let c = backend.counters(conn, (&self.last, &now), namespace, &self.tables, &every);
        self.last = now;
        Ok(c)
    }

    fn finish(mut self: Box<Self>) -> Result<AppReport, Error> {
        let mut counts: BTreeMap<&str, u64> = BTreeMap::new();
        for (table, of) in self.sql.counted.clone() {
            let n = self.engine.count_rows(table)?;
            let entry = counts.entry(of).or_insert(n);
            *entry = (*entry).min(n);
        }
        let (size_bytes, btrees, wal_size_bytes) = {
            let ServerEngine { conn, namespace, backend, .. } = &mut *self.engine;
            let (size, btrees) = backend.measure(conn, namespace, &self.tables)?;
            (size, btrees, backend.wal_size_bytes())
        };
        self.close()?;
        Ok(AppReport {
            users: counts.get("users").copied().unwrap_or(0),
            orders: counts.get("orders").copied().unwrap_or(0),
            size_bytes,
            wal_size_bytes,
            btrees,
        })
    }
}

impl<B: Backend> Drop for ServerApp<'_, B> {
    fn drop(&mut self) {
        let _ = self.close();
    }
}
