//! MariaDB's [`AppCase`]: the application workload's InnoDB tables in pkbench's database, one
//! server-side prepared single-row statement per operation.
//!
//! The mysql crate takes parameters by value, so each execution allocates a few small buffers
//! (as the concurrent client notes); its API offers no way to rebind in place.

use super::app_schema::render;
use super::client::value;
use super::counters::{self, Snapshot};
use super::{MariaDbEngine, physical};
use crate::Error;
use crate::control::RunControl;
use crate::engines::KeyRow;
use crate::engines::app::{AppCase, AppEngine, AppReport, AppSql, OrderRow, UserRow};
use crate::generators::{Key, decode_hyphenated};
use crate::results::Counters;
use crate::strategy::{Storage, Strategy};
use mysql::prelude::Queryable;
use mysql::{Params, Statement, Value};
use std::collections::BTreeMap;

impl AppEngine for MariaDbEngine {
    fn create_app(&mut self, strategy: &Strategy) -> Result<Box<dyn AppCase + '_>, Error> {
        use super::Engine;
        self.check(strategy)?;
        let sql = render(strategy, &self.database)?;
        for stmt in &sql.create {
            self.conn
                .query_drop(stmt)
                .map_err(|e| Error::mariadb(format!("could not create the application's tables ({stmt})"), e))?;
        }
        let stmts = Statements::prepare(&mut self.conn, &sql)?;
        let mut case = MariaDbApp {
            engine: self,
            sql,
            stmts,
            primary: strategy.primary.storage,
            external: strategy.secondary.map(|s| s.storage),
            cursor: Cursor::Start,
            last: Snapshot::default(),
            dropped: false,
        };
        case.last = case.snapshot()?;
        Ok(Box::new(case))
    }
}

/// The application's statements, prepared once per case.
struct Statements {
    insert_user: Statement,
    insert_order: Statement,
    map_users: Option<Statement>,
    map_orders: Option<Statement>,
    average_age: Statement,
    user_by_public: Statement,
    orders_of_user: Statement,
    join_first: Statement,
    join_next: Statement,
    touch_user: Statement,
    delete_order: Statement,
    delete_order_map: Option<Statement>,
}

impl Statements {
    fn prepare(conn: &mut mysql::Conn, sql: &AppSql) -> Result<Self, Error> {
        let mut one = |s: &str| conn.prep(s).map_err(|e| Error::mariadb(format!("could not prepare '{s}'"), e));
        Ok(Statements {
            insert_user: one(&sql.insert_user)?,
            insert_order: one(&sql.insert_order)?,
            map_users: sql.map_users.as_deref().map(&mut one).transpose()?,
            map_orders: sql.map_orders.as_deref().map(&mut one).transpose()?,
            average_age: one(&sql.average_age)?,
            user_by_public: one(&sql.user_by_public)?,
            orders_of_user: one(&sql.orders_of_user)?,
            join_first: one(&sql.join_first)?,
            join_next: one(&sql.join_next)?,
            touch_user: one(&sql.touch_user)?,
            delete_order: one(&sql.delete_order)?,
            delete_order_map: sql.delete_order_map.as_deref().map(&mut one).transpose()?,
        })
    }
}

/// Keyset pagination state of the join: the last (user id, order id) as the server sent them.
enum Cursor {
    Start,
    After(Value, Value),
    End,
}

/// A key the server assigned, from the value `RETURNING id` sent back.
fn returned_key(v: Value) -> Option<Key> {
    match v {
        Value::Int(i) => Some(Key::Int(i)),
        Value::UInt(u) => i64::try_from(u).ok().map(Key::Int),
        Value::Bytes(b) if b.len() == 16 => <[u8; 16]>::try_from(b.as_slice()).ok().map(Key::Uuid),
        // The UUID type is sent as its text.
        Value::Bytes(b) => decode_hyphenated(&b).ok().map(Key::Uuid),
        _ => None,
    }
}

/// One strategy's application tables.
struct MariaDbApp<'a> {
    engine: &'a mut MariaDbEngine,
    sql: AppSql,
    stmts: Statements,
    primary: Storage,
    external: Option<Storage>,
    cursor: Cursor,
    last: Snapshot,
    dropped: bool,
}

impl MariaDbApp<'_> {
    fn snapshot(&mut self) -> Result<Snapshot, Error> {
        counters::snapshot(&mut self.engine.conn).map_err(|e| Error::mariadb("could not read InnoDB statistics", e))
    }

    fn conn(&mut self) -> &mut mysql::Conn {
        &mut self.engine.conn
    }

    /// The public id as a parameter (the external key where the strategy has one).
    fn public(&self, key: Key) -> Value {
        value(Some(key), self.external.unwrap_or(self.primary))
    }

    /// Inserts one row: its keys, then `rest`; returns its primary key.
    fn insert(
        &mut self,
        keys: &KeyRow,
        insert: &Statement,
        rest: impl IntoIterator<Item = Value>,
    ) -> Result<Key, Error> {
        let mut params = Vec::with_capacity(6);
        if self.sql.client_primary {
            params.push(value(Some(keys.primary.ok_or_else(missing)?), self.primary));
        }
        if let Some(storage) = self.external {
            params.push(value(Some(keys.secondary.ok_or_else(missing)?), storage));
        }
        params.extend(rest);
        let conn = &mut self.engine.conn;
        if let (true, Some(pk)) = (self.sql.client_primary, keys.primary) {
            conn.exec_drop(insert, Params::Positional(params)).map_err(|e| Error::mariadb("INSERT failed", e))?;
            return Ok(pk);
        }
        let id: Option<Value> =
            conn.exec_first(insert, Params::Positional(params)).map_err(|e| Error::mariadb("INSERT failed", e))?;
        id.and_then(returned_key)
            .ok_or_else(|| Error::InvalidInput("the server assigned a key pkbench cannot read back".into()))
    }

    /// Adds the mapping entry external key → `pk`, if the strategy has mapping tables.
    fn insert_map(&mut self, map: Option<&Statement>, keys: &KeyRow, pk: Key) -> Result<(), Error> {
        let (Some(map), Some(ext), Some(storage)) = (map, keys.secondary, self.external) else { return Ok(()) };
        let params = vec![value(Some(ext), storage), value(Some(pk), self.primary)];
        self.conn()
            .exec_drop(map, Params::Positional(params))
            .map_err(|e| Error::mariadb("INSERT into the mapping table failed", e))
    }

    fn insert_one_order(&mut self, order: &OrderRow) -> Result<Key, Error> {
        let user = value(Some(order.user), self.primary);
        let rest = [user, Value::Int(order.amount), Value::Int(order.created_at)];
        let stmt = self.stmts.insert_order.clone();
        let pk = self.insert(&order.keys, &stmt, rest)?;
        let map = self.stmts.map_orders.clone();
        self.insert_map(map.as_ref(), &order.keys, pk)?;
        Ok(pk)
    }

    /// Runs a SELECT; returns rows read.
    fn count(&mut self, stmt: &Statement, params: Vec<Value>) -> Result<u64, Error> {
        let rows = self.conn().exec_iter(stmt, Params::Positional(params));
        let rows = rows.map_err(|e| Error::mariadb("a SELECT failed", e))?;
        let mut n = 0;
        for row in rows {
            row.map_err(|e| Error::mariadb("a SELECT failed", e))?;
            n += 1;
        }
        Ok(n)
    }

    /// Runs a data change; returns rows changed.
    fn change(&mut self, stmt: &Statement, params: Vec<Value>, what: &str) -> Result<u64, Error> {
        let conn = self.conn();
        conn.exec_drop(stmt, Params::Positional(params)).map_err(|e| Error::mariadb(format!("{what} failed"), e))?;
        Ok(conn.affected_rows())
    }

    /// Runs `body` in one transaction: always for the load, and for a single row where the
    /// strategy writes it with two statements (mapping tables); else in autocommit.
    fn transaction<T>(&mut self, always: bool, body: impl FnOnce(&mut Self) -> Result<T, Error>) -> Result<T, Error> {
        if !always && self.sql.map_orders.is_none() {
            return body(self);
        }
        self.conn().query_drop("START TRANSACTION").map_err(|e| Error::mariadb("could not begin a transaction", e))?;
        let result = body(self);
        let end = if result.is_ok() { "COMMIT" } else { "ROLLBACK" };
        let ended = self.conn().query_drop(end).map_err(|e| Error::mariadb(format!("{end} failed"), e));
        result.and_then(|v| ended.map(|()| v))
    }

    fn drop_tables(&mut self) -> Result<(), Error> {
        if !self.dropped {
            self.dropped = true;
            let db = &self.engine.database;
            let list: Vec<String> = self.sql.counted.iter().rev().map(|(t, _)| format!("{db}.{t}")).collect();
            let sql = format!("DROP TABLE IF EXISTS {}", list.join(", "));
            self.conn().query_drop(sql).map_err(|e| Error::mariadb("could not drop the application's tables", e))?;
        }
        Ok(())
    }
}

fn missing() -> Error {
    Error::InvalidInput("a client-generated key is missing".into())
}

impl AppCase for MariaDbApp<'_> {
    fn effective_settings(&mut self) -> Result<BTreeMap<String, String>, Error> {
        let names =
            ["innodb_buffer_pool_size", "innodb_flush_log_at_trx_commit", "innodb_page_size", "foreign_key_checks"];
        let list = names.iter().map(|n| format!("'{n}'")).collect::<Vec<_>>().join(", ");
        let rows: Vec<(String, String)> = self
            .conn()
            .query(format!("SHOW VARIABLES WHERE Variable_name IN ({list})"))
            .map_err(|e| Error::mariadb("could not read server variables", e))?;
        let mut out: BTreeMap<String, String> = rows.into_iter().collect();
        out.insert("server".into(), self.engine.target.clone());
        out.insert("server_version".into(), self.engine.version.clone());
        Ok(out)
    }

    fn insert_users(&mut self, users: &[UserRow], ids: &mut Vec<Key>, control: &RunControl) -> Result<(), Error> {
        let stmt = self.stmts.insert_user.clone();
        let map = self.stmts.map_users.clone();
        self.transaction(true, |me| {
            for chunk in users.chunks(RunControl::PROGRESS_STEP) {
                for user in chunk {
                    let rest = [
                        Value::Bytes(format!("user{}", user.number).into_bytes()),
                        Value::Bytes(format!("user{}@example.com", user.number).into_bytes()),
                        Value::Int(user.age),
                        Value::Int(user.created_at),
                    ];
                    let pk = me.insert(&user.keys, &stmt, rest)?;
                    me.insert_map(map.as_ref(), &user.keys, pk)?;
                    ids.push(pk);
                }
                control.add_rows(chunk.len() as u64);
                if control.is_cancelled() {
                    return Err(Error::Interrupted);
                }
            }
            Ok(())
        })
    }

    fn insert_orders(&mut self, orders: &[OrderRow], control: &RunControl) -> Result<(), Error> {
        self.transaction(true, |me| {
            for chunk in orders.chunks(RunControl::PROGRESS_STEP) {
                for order in chunk {
                    me.insert_one_order(order)?;
                }
                control.add_rows(chunk.len() as u64);
                if control.is_cancelled() {
                    return Err(Error::Interrupted);
                }
            }
            Ok(())
        })
    }

    fn average_age(&mut self) -> Result<f64, Error> {
        let stmt = self.stmts.average_age.clone();
        let avg: Option<Option<f64>> =
            self.conn().exec_first(&stmt, ()).map_err(|e| Error::mariadb("AVG(age) failed", e))?;
        Ok(avg.flatten().unwrap_or(0.0))
    }

    fn user_by_public_id(&mut self, public: Key) -> Result<u64, Error> {
        let stmt = self.stmts.user_by_public.clone();
        let p = self.public(public);
        self.count(&stmt, vec![p])
    }

    fn join_page(&mut self, restart: bool, page_rows: u32) -> Result<u64, Error> {
        if restart {
            self.cursor = Cursor::Start;
        }
        let limit = Value::UInt(u64::from(page_rows));
        let (stmt, params) = match &self.cursor {
            Cursor::Start => (self.stmts.join_first.clone(), vec![limit]),
            Cursor::After(u, o) => (self.stmts.join_next.clone(), vec![u.clone(), u.clone(), o.clone(), limit]),
            Cursor::End => return Ok(0),
        };
        let rows = self.conn().exec_iter(&stmt, Params::Positional(params));
        let rows = rows.map_err(|e| Error::mariadb("the join failed", e))?;
        let (mut n, mut next) = (0, Cursor::End);
        for row in rows {
            let mut row = row.map_err(|e| Error::mariadb("the join failed", e))?;
            n += 1;
            // Only a full page can have a successor.
            if n == u64::from(page_rows) {
                next = match (row.take::<Value, _>(0), row.take::<Value, _>(2)) {
                    (Some(u), Some(o)) => Cursor::After(u, o),
                    _ => return Err(Error::InvalidInput("the join returned a row without its keys".into())),
                };
            }
        }
        self.cursor = next;
        Ok(n)
    }

    fn orders_of_user(&mut self, public: Key) -> Result<u64, Error> {
        let stmt = self.stmts.orders_of_user.clone();
        let p = self.public(public);
        self.count(&stmt, vec![p])
    }

    fn insert_order(&mut self, order: &OrderRow) -> Result<Key, Error> {
        self.transaction(false, |me| me.insert_one_order(order))
    }

    fn touch_user(&mut self, public: Key, created_at: i64) -> Result<u64, Error> {
        let stmt = self.stmts.touch_user.clone();
        let params = vec![Value::Int(created_at), self.public(public)];
        self.change(&stmt, params, "UPDATE")
    }

    fn delete_order(&mut self, primary: Key, external: Option<Key>) -> Result<u64, Error> {
        self.transaction(false, |me| {
            if let (Some(stmt), Some(ext), Some(storage)) = (me.stmts.delete_order_map.clone(), external, me.external) {
                me.change(&stmt, vec![value(Some(ext), storage)], "DELETE from the mapping table")?;
            }
            let stmt = me.stmts.delete_order.clone();
            let p = value(Some(primary), me.primary);
            me.change(&stmt, vec![p], "DELETE")
        })
    }

    fn size_bytes(&mut self) -> Result<u64, Error> {
        let db = self.engine.database.clone();
        let mut total = 0;
        for (table, _) in self.sql.counted.clone() {
            total += physical::table_size(self.conn(), &db, table)?;
        }
        Ok(total)
    }

    fn take_counters(&mut self) -> Result<Counters, Error> {
        let now = self.snapshot()?;
        let c = counters::between(&self.last, &now);
        self.last = now;
        Ok(c)
    }

    fn finish(mut self: Box<Self>) -> Result<AppReport, Error> {
        let db = self.engine.database.clone();
        let mut counts: BTreeMap<&str, u64> = BTreeMap::new();
        for (table, of) in self.sql.counted.clone() {
            let n: Option<u64> = self
                .conn()
                .query_first(format!("SELECT count(*) FROM {db}.{table}"))
                .map_err(|e| Error::mariadb("could not count rows", e))?;
            let entry = counts.entry(of).or_insert(n.unwrap_or(0));
            *entry = (*entry).min(n.unwrap_or(0));
        }
        let size_bytes = self.size_bytes()?;
        let mut btrees = Vec::new();
        if let Some(dir) = self.engine.server.as_ref().map(|s| s.dir().join("data").join(&db)) {
            for (table, _) in self.sql.counted.clone() {
                let ibd = dir.join(format!("{table}.ibd"));
                btrees.extend(physical::tablespace_stats(&mut self.engine.conn, &db, table, &ibd)?);
            }
        }
        self.drop_tables()?;
        Ok(AppReport {
            users: counts.get("users").copied().unwrap_or(0),
            orders: counts.get("orders").copied().unwrap_or(0),
            size_bytes,
            wal_size_bytes: None,
            btrees,
        })
    }
}

impl Drop for MariaDbApp<'_> {
    fn drop(&mut self) {
        let _ = self.drop_tables();
    }
}
