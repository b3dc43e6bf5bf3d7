//! SQLite's [`AppCase`]: the application workload's database, one file per strategy.

use super::app_schema::render;
use super::{SqliteEngine, bind_key, file_len, refuse_existing, remove_database, settings, wal_path};
use crate::Error;
use crate::control::RunControl;
use crate::engines::KeyRow;
use crate::engines::app::{AppCase, AppEngine, AppReport, AppSql, OrderRow, UserRow, load_rows};
use crate::generators::Key;
use crate::results::Counters;
use crate::strategy::{Storage, Strategy};
use rusqlite::types::Value;
use rusqlite::{Connection, Statement};
use std::collections::BTreeMap;
use std::io::Write;
use std::path::PathBuf;

/// Seed 001's settings beyond the engine's own (`--sync`, `--page-size`, `--cache-mb`).
const APP_PRAGMAS: &str = "PRAGMA foreign_keys = ON; PRAGMA temp_store = MEMORY; \
     PRAGMA trusted_schema = OFF; PRAGMA busy_timeout = 5000; PRAGMA journal_size_limit = 67108864;";

impl AppEngine for SqliteEngine {
    fn create_app(&mut self, strategy: &Strategy) -> Result<Box<dyn AppCase + '_>, Error> {
        let schema = render(strategy)?;
        let path = self.settings.dir.join(format!("app-{}.sqlite", strategy.name));
        refuse_existing(&path)?;
        let conn = Connection::open(&path)
            .map_err(|e| Error::sqlite(format!("could not create '{}'", path.display()), &path, e))?;
        let case = SqliteApp {
            conn: Some(conn),
            path,
            schema,
            primary: strategy.primary.storage,
            external: strategy.secondary.map(|s| s.storage),
            cursor: Cursor::Start,
            text: Vec::with_capacity(64),
        };
        let conn = case.conn();
        // auto_vacuum takes effect only before the file is first written, i.e. before the
        // switch to WAL (seed 001 listed it last, where SQLite ignores it); and it fixes the
        // page size, so that comes first.
        conn.pragma_update(None, "page_size", self.settings.page_size)
            .map_err(|e| case.err("could not set page_size", e))?;
        conn.execute_batch("PRAGMA auto_vacuum = INCREMENTAL").map_err(|e| case.err("could not set auto_vacuum", e))?;
        self.settings.apply(conn).map_err(|e| case.err("could not apply SQLite settings", e))?;
        conn.execute_batch(APP_PRAGMAS).map_err(|e| case.err("could not apply the application's settings", e))?;
        for stmt in &case.schema.create {
            conn.execute_batch(stmt).map_err(|e| case.err("could not create the application's tables", e))?;
        }
        let mut case = case;
        // Start counting from here: schema creation is not part of the load.
        case.take_counters()?;
        Ok(Box::new(case))
    }
}

/// Keyset pagination state of the join.
enum Cursor {
    /// Before the first page.
    Start,
    /// After this (user id, order id).
    After(Value, Value),
    /// The previous page was the last.
    End,
}

/// One strategy's application database.
struct SqliteApp {
    /// `None` only after `finish` closed it.
    conn: Option<Connection>,
    path: PathBuf,
    schema: AppSql,
    primary: Storage,
    external: Option<Storage>,
    /// Where the next join page starts.
    cursor: Cursor,
    /// Reused buffer for text columns (no allocation per row).
    text: Vec<u8>,
}

impl SqliteApp {
    fn conn(&self) -> &Connection {
        self.conn.as_ref().expect("connection is open until finish")
    }

    fn err(&self, context: &str, e: rusqlite::Error) -> Error {
        Error::sqlite(context, &self.path, e)
    }

    fn transaction<T>(&mut self, body: impl FnOnce(&mut Self) -> Result<T, Error>) -> Result<T, Error> {
        self.conn().execute_batch("BEGIN IMMEDIATE").map_err(|e| self.err("could not begin a transaction", e))?;
        let result = body(self).and_then(|v| {
            self.conn().execute_batch("COMMIT").map_err(|e| self.err("COMMIT failed", e))?;
            Ok(v)
        });
        if result.is_err() && !self.conn().is_autocommit() {
            let _ = self.conn().execute_batch("ROLLBACK");
        }
        result
    }

    /// Binds the keys in `keys` from position 1; returns the next free position.
    fn bind_keys(&self, stmt: &mut Statement<'_>, keys: &KeyRow, text: &mut [u8; 36]) -> Result<usize, Error> {
        let mut next = 1;
        if self.schema.client_primary {
            let key = keys.primary.ok_or_else(|| Error::InvalidInput("a client primary key is missing".into()))?;
            bind_key(stmt, next, key, self.primary, text).map_err(|e| self.err("could not bind", e))?;
            next += 1;
        }
        if let Some(storage) = self.external {
            let key = keys.secondary.ok_or_else(|| Error::InvalidInput("an external key is missing".into()))?;
            bind_key(stmt, next, key, storage, text).map_err(|e| self.err("could not bind", e))?;
            next += 1;
        }
        Ok(next)
    }

    /// The primary key of the row just inserted with `keys`.
    fn inserted_primary(&self, keys: &KeyRow) -> Key {
        keys.primary.unwrap_or_else(|| Key::Int(self.conn().last_insert_rowid()))
    }

    /// Inserts one order and its mapping entry; returns its primary key.
    fn insert_one_order(&self, order: &OrderRow) -> Result<Key, Error> {
        let conn = self.conn();
        let mut text = [0u8; 36];
        let mut stmt =
            conn.prepare_cached(&self.schema.insert_order).map_err(|e| self.err("could not prepare INSERT", e))?;
        let next = self.bind_keys(&mut stmt, &order.keys, &mut text)?;
        bind_key(&mut stmt, next, order.user, self.primary, &mut text).map_err(|e| self.err("could not bind", e))?;
        stmt.raw_bind_parameter(next + 1, order.amount).map_err(|e| self.err("could not bind", e))?;
        stmt.raw_bind_parameter(next + 2, order.created_at).map_err(|e| self.err("could not bind", e))?;
        stmt.raw_execute().map_err(|e| self.err("INSERT into orders failed", e))?;
        let pk = self.inserted_primary(&order.keys);
        self.insert_map(self.schema.map_orders.as_deref(), &order.keys, pk)?;
        Ok(pk)
    }

    fn insert_map(&self, sql: Option<&str>, keys: &KeyRow, pk: Key) -> Result<(), Error> {
        let (Some(sql), Some(ext), Some(storage)) = (sql, keys.secondary, self.external) else { return Ok(()) };
        let mut text = [0u8; 36];
        let mut map = self.conn().prepare_cached(sql).map_err(|e| self.err("could not prepare INSERT", e))?;
        bind_key(&mut map, 1, ext, storage, &mut text).map_err(|e| self.err("could not bind", e))?;
        if self.schema.client_primary {
            bind_key(&mut map, 2, pk, self.primary, &mut text).map_err(|e| self.err("could not bind", e))?;
        }
        map.raw_execute().map_err(|e| self.err("INSERT into the mapping table failed", e))?;
        Ok(())
    }

    /// Runs a query with the public id bound to `?1`; returns rows read.
    fn count_rows(&self, sql: &str, public: Key) -> Result<u64, Error> {
        self.count_rows_as(sql, public, self.external.unwrap_or(self.primary))
    }

    /// Rows `sql` returns for `key` stored as `storage`.
    fn count_rows_as(&self, sql: &str, public: Key, storage: Storage) -> Result<u64, Error> {
        let mut stmt = self.conn().prepare_cached(sql).map_err(|e| self.err("could not prepare SELECT", e))?;
        bind_key(&mut stmt, 1, public, storage, &mut [0u8; 36]).map_err(|e| self.err("could not bind", e))?;
        let mut rows = stmt.raw_query();
        let mut n = 0;
        while rows.next().map_err(|e| self.err("SELECT failed", e))?.is_some() {
            n += 1;
        }
        Ok(n)
    }
}

impl AppCase for SqliteApp {
    fn effective_settings(&mut self) -> Result<BTreeMap<String, String>, Error> {
        let mut out = settings::read_back(self.conn()).map_err(|e| self.err("could not read SQLite settings", e))?;
        for pragma in ["foreign_keys", "auto_vacuum", "temp_store"] {
            let v: i64 = self
                .conn()
                .query_row(&format!("PRAGMA {pragma}"), [], |r| r.get(0))
                .map_err(|e| self.err("could not read SQLite settings", e))?;
            out.insert(pragma.to_string(), v.to_string());
        }
        Ok(out)
    }

    fn insert_users(&mut self, users: &[UserRow], ids: &mut Vec<Key>, control: &RunControl) -> Result<(), Error> {
        let mut line = std::mem::take(&mut self.text);
        let result = self.transaction(|me| {
            let conn = me.conn();
            let mut stmt =
                conn.prepare_cached(&me.schema.insert_user).map_err(|e| me.err("could not prepare INSERT", e))?;
            let mut text = [0u8; 36];
            load_rows(users, control, |user| {
                let next = me.bind_keys(&mut stmt, &user.keys, &mut text)?;
                line.clear();
                // Writing into a Vec cannot fail; the text is ASCII.
                let _ = write!(line, "user{0}user{0}@example.com", user.number);
                let (name, email) = line.split_at(4 + digits(user.number));
                let name = std::str::from_utf8(name).unwrap_or_default();
                let email = std::str::from_utf8(email).unwrap_or_default();
                stmt.raw_bind_parameter(next, name).map_err(|e| me.err("could not bind", e))?;
                stmt.raw_bind_parameter(next + 1, email).map_err(|e| me.err("could not bind", e))?;
                stmt.raw_bind_parameter(next + 2, user.age).map_err(|e| me.err("could not bind", e))?;
                stmt.raw_bind_parameter(next + 3, user.created_at).map_err(|e| me.err("could not bind", e))?;
                stmt.raw_execute().map_err(|e| me.err("INSERT into users failed", e))?;
                let pk = me.inserted_primary(&user.keys);
                me.insert_map(me.schema.map_users.as_deref(), &user.keys, pk)?;
                ids.push(pk);
                Ok(())
            })
        });
        self.text = line;
        result
    }

    fn insert_orders(&mut self, orders: &[OrderRow], control: &RunControl) -> Result<(), Error> {
        self.transaction(|me| load_rows(orders, control, |order| me.insert_one_order(order).map(|_| ())))
    }

    fn average_age(&mut self) -> Result<f64, Error> {
        let mut stmt =
            self.conn().prepare_cached(&self.schema.average_age).map_err(|e| self.err("could not prepare", e))?;
        stmt.query_row([], |r| r.get::<_, Option<f64>>(0))
            .map_err(|e| self.err("the average-age query failed", e))
            .map(|v| v.unwrap_or(0.0))
    }

    fn user_by_public_id(&mut self, public: Key) -> Result<u64, Error> {
        self.count_rows(&self.schema.user_by_public, public)
    }

    fn user_by_id(&mut self, id: Key) -> Option<Result<u64, Error>> {
        let sql = self.schema.user_by_id.as_deref()?;
        Some(self.count_rows_as(sql, id, self.primary))
    }

    fn join_page(&mut self, restart: bool, page_rows: u32) -> Result<u64, Error> {
        if restart {
            self.cursor = Cursor::Start;
        }
        let conn = self.conn();
        let (sql, limit_at) = match self.cursor {
            Cursor::Start => (&self.schema.join_first, 1),
            Cursor::After(..) => (&self.schema.join_next, 3),
            Cursor::End => return Ok(0),
        };
        let mut stmt = conn.prepare_cached(sql).map_err(|e| self.err("could not prepare the join", e))?;
        if let Cursor::After(u, o) = &self.cursor {
            stmt.raw_bind_parameter(1, u).map_err(|e| self.err("could not bind", e))?;
            stmt.raw_bind_parameter(2, o).map_err(|e| self.err("could not bind", e))?;
        }
        stmt.raw_bind_parameter(limit_at, page_rows).map_err(|e| self.err("could not bind", e))?;
        let mut rows = stmt.raw_query();
        let (mut n, mut next) = (0, Cursor::End);
        while let Some(row) = rows.next().map_err(|e| self.err("the join failed", e))? {
            n += 1;
            // Only a full page can have a successor.
            if n == u64::from(page_rows) {
                let get = |i| row.get::<_, Value>(i).map_err(|e| self.err("could not read the join", e));
                next = Cursor::After(get(0)?, get(2)?);
            }
        }
        drop(rows);
        drop(stmt);
        self.cursor = next;
        Ok(n)
    }

    fn orders_of_user(&mut self, public: Key) -> Result<u64, Error> {
        self.count_rows(&self.schema.orders_of_user, public)
    }

    fn insert_order(&mut self, order: &OrderRow) -> Result<Key, Error> {
        self.insert_one_order(order)
    }

    fn touch_user(&mut self, public: Key, created_at: i64) -> Result<u64, Error> {
        let storage = self.external.unwrap_or(self.primary);
        let mut stmt =
            self.conn().prepare_cached(&self.schema.touch_user).map_err(|e| self.err("could not prepare UPDATE", e))?;
        bind_key(&mut stmt, 1, public, storage, &mut [0u8; 36]).map_err(|e| self.err("could not bind", e))?;
        stmt.raw_bind_parameter(2, created_at).map_err(|e| self.err("could not bind", e))?;
        Ok(stmt.raw_execute().map_err(|e| self.err("UPDATE failed", e))? as u64)
    }

    fn delete_order(&mut self, primary: Key, external: Option<Key>) -> Result<u64, Error> {
        let mut text = [0u8; 36];
        if let (Some(sql), Some(ext), Some(storage)) = (&self.schema.delete_order_map, external, self.external) {
            let mut map = self.conn().prepare_cached(sql).map_err(|e| self.err("could not prepare DELETE", e))?;
            bind_key(&mut map, 1, ext, storage, &mut text).map_err(|e| self.err("could not bind", e))?;
            map.raw_execute().map_err(|e| self.err("DELETE from the mapping table failed", e))?;
        }
        let mut stmt = self
            .conn()
            .prepare_cached(&self.schema.delete_order)
            .map_err(|e| self.err("could not prepare DELETE", e))?;
        bind_key(&mut stmt, 1, primary, self.primary, &mut text).map_err(|e| self.err("could not bind", e))?;
        Ok(stmt.raw_execute().map_err(|e| self.err("DELETE failed", e))? as u64)
    }

    fn take_counters(&mut self) -> Result<Counters, Error> {
        super::counters::take(self.conn())
    }

    fn size_bytes(&mut self) -> Result<u64, Error> {
        Ok(file_len(&self.path) + file_len(&wal_path(&self.path)))
    }

    fn finish(mut self: Box<Self>) -> Result<AppReport, Error> {
        let mut counts = BTreeMap::new();
        for (table, of) in &self.schema.counted {
            let n: i64 = self
                .conn()
                .query_row(&format!("SELECT count(*) FROM {table}"), [], |r| r.get(0))
                .map_err(|e| self.err("could not count rows", e))?;
            let entry = counts.entry(*of).or_insert(n as u64);
            *entry = (*entry).min(n as u64);
        }
        let wal = std::fs::metadata(wal_path(&self.path)).ok().map(|m| m.len());
        let size_bytes = file_len(&self.path) + wal.unwrap_or(0);
        let btrees = super::dbstat::btree_stats(self.conn()).map_err(|e| self.err("could not read dbstat", e))?;
        if let Some(conn) = self.conn.take() {
            conn.close().map_err(|(_, e)| Error::sqlite("could not close the database", &self.path, e))?;
        }
        Ok(AppReport {
            users: counts.get("users").copied().unwrap_or(0),
            orders: counts.get("orders").copied().unwrap_or(0),
            size_bytes,
            wal_size_bytes: wal,
            btrees,
        })
    }
}

impl Drop for SqliteApp {
    fn drop(&mut self) {
        drop(self.conn.take());
        remove_database(&self.path);
    }
}

/// Decimal digits of `n`.
fn digits(n: u64) -> usize {
    n.checked_ilog10().map_or(1, |d| d as usize + 1)
}
