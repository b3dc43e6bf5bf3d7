//! PostgreSQL's [`AppCase`]: the application workload's tables in pkbench's schema, one
//! prepared single-row statement per operation.

use super::app_bound::{Bound, Cursor};
use super::app_schema::render;
use super::counters::{self, Snapshot};
use super::{PostgresEngine, physical};
use crate::Error;
use crate::control::RunControl;
use crate::engines::KeyRow;
use crate::engines::app::{AppCase, AppEngine, AppReport, AppSql, OrderRow, UserRow};
use crate::generators::Key;
use crate::results::Counters;
use crate::strategy::{Storage, Strategy};
use postgres::types::ToSql;
use postgres::{Client, Statement};
use std::collections::BTreeMap;
use std::fmt::Write;

impl AppEngine for PostgresEngine {
    fn create_app(&mut self, strategy: &Strategy) -> Result<Box<dyn AppCase + '_>, Error> {
        use super::Engine;
        self.check(strategy)?;
        let sql = render(strategy, &self.schema)?;
        for stmt in &sql.create {
            self.client
                .batch_execute(stmt)
                .map_err(|e| Error::postgres(format!("could not create the application's tables ({stmt})"), e))?;
        }
        let stmts = Statements::prepare(&mut self.client, &sql)?;
        let mut case = PgApp {
            engine: self,
            tables: sql.counted.iter().map(|(t, _)| *t).collect(),
            sql,
            stmts,
            primary: strategy.primary.storage,
            external: strategy.secondary.map(|s| s.storage),
            slots: [Bound::Int(0), Bound::Int(0), Bound::Int(0)],
            name: String::with_capacity(32),
            email: String::with_capacity(48),
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
    user_by_public: Statement,
    orders_of_user: Statement,
    join_first: Statement,
    join_next: Statement,
    touch_user: Statement,
    delete_order: Statement,
    delete_order_map: Option<Statement>,
    average_age: Statement,
}

impl Statements {
    fn prepare(client: &mut Client, sql: &AppSql) -> Result<Self, Error> {
        let mut one = |s: &str| client.prepare(s).map_err(|e| Error::postgres(format!("could not prepare '{s}'"), e));
        Ok(Statements {
            insert_user: one(&sql.insert_user)?,
            insert_order: one(&sql.insert_order)?,
            map_users: sql.map_users.as_deref().map(&mut one).transpose()?,
            map_orders: sql.map_orders.as_deref().map(&mut one).transpose()?,
            user_by_public: one(&sql.user_by_public)?,
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

/// Parameter slots of [`PgApp`]: primary key, external key, and the user a row refers to.
const PK: usize = 0;
const EXT: usize = 1;
const USER: usize = 2;

/// One strategy's application tables.
struct PgApp<'a> {
    engine: &'a mut PostgresEngine,
    sql: AppSql,
    stmts: Statements,
    primary: Storage,
    external: Option<Storage>,
    tables: Vec<&'static str>,
    slots: [Bound; 3],
    name: String,
    email: String,
    cursor: Cursor,
    last: Snapshot,
    dropped: bool,
}

impl PgApp<'_> {
    fn snapshot(&mut self) -> Result<Snapshot, Error> {
        counters::snapshot(&mut self.engine.client, &self.engine.schema, &self.tables, self.engine.durable_commits)
            .map_err(|e| Error::postgres("could not read PostgreSQL statistics", e))
    }

    /// Fills the key slots from `keys`; fails if a key the schema needs is missing.
    fn bind_keys(&mut self, keys: &KeyRow) -> Result<(), Error> {
        if self.sql.client_primary {
            let key = keys.primary.ok_or_else(|| Error::InvalidInput("a client primary key is missing".into()))?;
            self.slots[PK].set(key, self.primary);
        }
        if let Some(storage) = self.external {
            let key = keys.secondary.ok_or_else(|| Error::InvalidInput("an external key is missing".into()))?;
            self.slots[EXT].set(key, storage);
        }
        Ok(())
    }

    /// Runs an INSERT whose key parameters come first; returns the row's primary key.
    fn insert(&mut self, keys: &KeyRow, stmt: &Statement, rest: &[&(dyn ToSql + Sync)]) -> Result<Key, Error> {
        self.bind_keys(keys)?;
        let mut params: [&(dyn ToSql + Sync); 7] = [&0i64; 7];
        let mut n = 0;
        for (i, used) in [self.sql.client_primary, self.external.is_some()].into_iter().enumerate() {
            if used {
                params[n] = self.slots[i].param();
                n += 1;
            }
        }
        for p in rest {
            params[n] = *p;
            n += 1;
        }
        let client = &mut self.engine.client;
        if self.sql.client_primary {
            client.execute(stmt, &params[..n]).map_err(|e| Error::postgres("INSERT failed", e))?;
            return keys.primary.ok_or_else(|| Error::InvalidInput("a client primary key is missing".into()));
        }
        let row = client.query_one(stmt, &params[..n]).map_err(|e| Error::postgres("INSERT failed", e))?;
        Bound::read(&row, 0, self.primary)
            .map_err(|e| Error::postgres("could not read the assigned key", e))?
            .key()
            .ok_or_else(|| Error::InvalidInput("the server assigned a key pkbench cannot read back".into()))
    }

    /// Adds the mapping entry external key → `pk`, if the strategy has mapping tables.
    fn insert_map(&mut self, map: Option<&Statement>, keys: &KeyRow, pk: Key) -> Result<(), Error> {
        let (Some(map), Some(ext), Some(storage)) = (map, keys.secondary, self.external) else { return Ok(()) };
        self.slots[EXT].set(ext, storage);
        self.slots[PK].set(pk, self.primary);
        let params = [self.slots[EXT].param(), self.slots[PK].param()];
        self.engine
            .client
            .execute(map, &params)
            .map_err(|e| Error::postgres("INSERT into the mapping table failed", e))?;
        Ok(())
    }

    fn insert_one_order(&mut self, order: &OrderRow) -> Result<Key, Error> {
        self.slots[USER].set(order.user, self.primary);
        let user = std::mem::replace(&mut self.slots[USER], Bound::Int(0));
        let stmt = self.stmts.insert_order.clone();
        let pk = self.insert(&order.keys, &stmt, &[user.param(), &order.amount, &order.created_at]);
        self.slots[USER] = user;
        let pk = pk?;
        let map = self.stmts.map_orders.clone();
        self.insert_map(map.as_ref(), &order.keys, pk)?;
        Ok(pk)
    }

    /// Runs `stmt` with the public id `public` as `$1` (and `extra` after it); returns rows.
    fn by_public(&mut self, stmt: &Statement, public: Key, extra: Option<i64>) -> Result<u64, Error> {
        self.slots[EXT].set(public, self.external.unwrap_or(self.primary));
        let p = self.slots[EXT].param();
        let client = &mut self.engine.client;
        let result = match &extra {
            Some(v) => client.execute(stmt, &[p, v as &(dyn ToSql + Sync)]),
            None => client.query(stmt, &[p]).map(|rows| rows.len() as u64),
        };
        result.map_err(|e| Error::postgres("a query by public id failed", e))
    }

    /// Runs `body` in one transaction where the strategy needs two statements for one row.
    fn atomic<T>(&mut self, body: impl FnOnce(&mut Self) -> Result<T, Error>) -> Result<T, Error> {
        if self.sql.map_orders.is_none() {
            return body(self);
        }
        self.engine.client.batch_execute("BEGIN").map_err(|e| Error::postgres("could not begin a transaction", e))?;
        let result = body(self);
        self.end(result)
    }

    /// Commits the open transaction if `result` is `Ok`, else rolls it back.
    fn end<T>(&mut self, result: Result<T, Error>) -> Result<T, Error> {
        let end = if result.is_ok() { "COMMIT" } else { "ROLLBACK" };
        let ended = self.engine.client.batch_execute(end).map_err(|e| Error::postgres(format!("{end} failed"), e));
        result.and_then(|v| ended.map(|()| v))
    }

    fn drop_tables(&mut self) -> Result<(), Error> {
        if !self.dropped {
            self.dropped = true;
            let list: Vec<String> = self.tables.iter().rev().map(|t| format!("{}.{t}", self.engine.schema)).collect();
            self.engine
                .client
                .batch_execute(&format!("DROP TABLE IF EXISTS {}", list.join(", ")))
                .map_err(|e| Error::postgres("could not drop the application's tables", e))?;
        }
        Ok(())
    }
}

impl AppCase for PgApp<'_> {
    fn effective_settings(&mut self) -> Result<BTreeMap<String, String>, Error> {
        let mut out = BTreeMap::new();
        for name in ["shared_buffers", "synchronous_commit", "full_page_writes", "autovacuum", "fsync"] {
            let row = self.engine.client.query_one(&format!("SHOW {name}"), &[]);
            let v: String = row.map_err(|e| Error::postgres(format!("could not read {name}"), e))?.get(0);
            out.insert(name.to_string(), v);
        }
        out.insert("server".into(), self.engine.target.clone());
        out.insert("server_version".into(), self.engine.version.clone());
        Ok(out)
    }

    fn insert_users(&mut self, users: &[UserRow], ids: &mut Vec<Key>, control: &RunControl) -> Result<(), Error> {
        self.engine.client.batch_execute("BEGIN").map_err(|e| Error::postgres("could not begin a transaction", e))?;
        let stmt = self.stmts.insert_user.clone();
        let map = self.stmts.map_users.clone();
        let (mut name, mut email) = (std::mem::take(&mut self.name), std::mem::take(&mut self.email));
        let mut load = || -> Result<(), Error> {
            for chunk in users.chunks(RunControl::PROGRESS_STEP) {
                for user in chunk {
                    name.clear();
                    email.clear();
                    // Writing into a String cannot fail.
                    let _ = write!(name, "user{}", user.number);
                    let _ = write!(email, "user{}@example.com", user.number);
                    let pk = self.insert(&user.keys, &stmt, &[&name, &email, &user.age, &user.created_at])?;
                    self.insert_map(map.as_ref(), &user.keys, pk)?;
                    ids.push(pk);
                }
                control.add_rows(chunk.len() as u64);
                if control.is_cancelled() {
                    return Err(Error::Interrupted);
                }
            }
            Ok(())
        };
        let result = load();
        (self.name, self.email) = (name, email);
        self.end(result)
    }

    fn insert_orders(&mut self, orders: &[OrderRow], control: &RunControl) -> Result<(), Error> {
        self.engine.client.batch_execute("BEGIN").map_err(|e| Error::postgres("could not begin a transaction", e))?;
        let mut load = || -> Result<(), Error> {
            for chunk in orders.chunks(RunControl::PROGRESS_STEP) {
                for order in chunk {
                    self.insert_one_order(order)?;
                }
                control.add_rows(chunk.len() as u64);
                if control.is_cancelled() {
                    return Err(Error::Interrupted);
                }
            }
            Ok(())
        };
        let result = load();
        self.end(result)
    }

    fn average_age(&mut self) -> Result<f64, Error> {
        let row = self.engine.client.query_one(&self.stmts.average_age, &[]);
        let avg: Option<f64> = row.and_then(|r| r.try_get(0)).map_err(|e| Error::postgres("avg(age) failed", e))?;
        Ok(avg.unwrap_or(0.0))
    }

    fn user_by_public_id(&mut self, public: Key) -> Result<u64, Error> {
        let stmt = self.stmts.user_by_public.clone();
        self.by_public(&stmt, public, None)
    }

    fn join_page(&mut self, restart: bool, page_rows: u32) -> Result<u64, Error> {
        if restart {
            self.cursor = Cursor::Start;
        }
        let limit = i64::from(page_rows);
        let client = &mut self.engine.client;
        let rows = match &self.cursor {
            Cursor::Start => client.query(&self.stmts.join_first, &[&limit]),
            Cursor::After(u, o) => client.query(&self.stmts.join_next, &[u.param(), o.param(), &limit]),
            Cursor::End => return Ok(0),
        }
        .map_err(|e| Error::postgres("the join failed", e))?;
        // Only a full page can have a successor.
        self.cursor = match rows.last() {
            Some(last) if rows.len() as u64 == u64::from(page_rows) => {
                let read =
                    |i| Bound::read(last, i, self.primary).map_err(|e| Error::postgres("could not read the join", e));
                Cursor::After(read(0)?, read(2)?)
            }
            _ => Cursor::End,
        };
        Ok(rows.len() as u64)
    }

    fn orders_of_user(&mut self, public: Key) -> Result<u64, Error> {
        let stmt = self.stmts.orders_of_user.clone();
        self.by_public(&stmt, public, None)
    }

    fn insert_order(&mut self, order: &OrderRow) -> Result<Key, Error> {
        self.atomic(|me| me.insert_one_order(order))
    }

    fn touch_user(&mut self, public: Key, created_at: i64) -> Result<u64, Error> {
        let stmt = self.stmts.touch_user.clone();
        self.by_public(&stmt, public, Some(created_at))
    }

    fn delete_order(&mut self, primary: Key, external: Option<Key>) -> Result<u64, Error> {
        self.atomic(|me| {
            if let (Some(stmt), Some(ext), Some(storage)) = (&me.stmts.delete_order_map, external, me.external) {
                me.slots[EXT].set(ext, storage);
                let p = [me.slots[EXT].param()];
                me.engine
                    .client
                    .execute(stmt, &p)
                    .map_err(|e| Error::postgres("DELETE from the mapping table failed", e))?;
            }
            me.slots[PK].set(primary, me.primary);
            let p = [me.slots[PK].param()];
            me.engine.client.execute(&me.stmts.delete_order, &p).map_err(|e| Error::postgres("DELETE failed", e))
        })
    }

    fn size_bytes(&mut self) -> Result<u64, Error> {
        let mut total = 0;
        for table in &self.tables {
            let q = format!("{}.{table}", self.engine.schema);
            let row = self.engine.client.query_one("SELECT pg_total_relation_size($1::text::regclass)", &[&q]);
            let size: i64 = row.map_err(|e| Error::postgres("could not read a table's size", e))?.get(0);
            total += size.max(0) as u64;
        }
        Ok(total)
    }

    fn take_counters(&mut self) -> Result<Counters, Error> {
        let now = self.snapshot()?;
        let walinspect = self.engine.walinspect.then_some((self.engine.schema.as_str(), self.tables.as_slice()));
        let c = counters::between(&mut self.engine.client, &self.last, &now, walinspect);
        self.last = now;
        Ok(c)
    }

    fn finish(mut self: Box<Self>) -> Result<AppReport, Error> {
        let schema = self.engine.schema.clone();
        let mut counts: BTreeMap<&str, u64> = BTreeMap::new();
        let mut btrees = Vec::new();
        for (table, of) in self.sql.counted.clone() {
            let row = self.engine.client.query_one(&format!("SELECT count(*) FROM {schema}.{table}"), &[]);
            let n: i64 = row.map_err(|e| Error::postgres("could not count rows", e))?.get(0);
            let entry = counts.entry(of).or_insert(n.max(0) as u64);
            *entry = (*entry).min(n.max(0) as u64);
            // Without pgstattuple no B-tree figures are reported, rather than zeros.
            if self.engine.pgstattuple {
                btrees.extend(physical::btree_stats(&mut self.engine.client, &schema, table).unwrap_or_default());
            }
        }
        let size_bytes = self.size_bytes()?;
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

impl Drop for PgApp<'_> {
    fn drop(&mut self) {
        let _ = self.drop_tables();
    }
}
