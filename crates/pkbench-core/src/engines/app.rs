//! The small-SaaS application of "SQLite ID Benchmarks" (`users` and their `orders`, both keyed by
//! the strategy) as an engine extension: each engine's SQL ([`AppSql`]) behind [`AppCase`]. The
//! engine core ([`super::server::ServerEngine`]) implements it once for SQLite and every server.

use crate::Error;
use crate::control::RunControl;
use crate::generators::Key;
use crate::keys::KeyRow;
use crate::results::{BtreeStats, Counters};
use crate::strategy::Strategy;
use std::collections::BTreeMap;

/// Every statement the application needs for one strategy, in one engine's dialect and
/// placeholders; each engine's `app_schema.rs` renders it and its `AppCase` binds the parameters
/// in the order its renderer documents.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct AppSql {
    /// DDL, in order.
    pub create: Vec<String>,
    /// INSERT of a user: `[id,] [ext_id,] name, email, age, created_at`, with `RETURNING id`
    /// where the server assigns the key.
    pub insert_user: String,
    /// INSERT of an order: `[id,] [ext_id,] user_id, amount, created_at` (likewise).
    pub insert_order: String,
    /// Mapping-table INSERTs (external key, primary key), for `…-map` strategies.
    pub map_users: Option<String>,
    /// As `map_users`, for orders.
    pub map_orders: Option<String>,
    /// Whether INSERTs bind a client primary key first.
    pub client_primary: bool,
    /// The average age of all users, as a floating-point number.
    pub average_age: String,
    /// Point select of a user by public id.
    pub user_by_public: String,
    /// Point select of a user by primary key, for strategies whose public id is another
    /// (external) key: the lookup an application that keeps the integer id makes.
    pub user_by_id: Option<String>,
    /// All orders of the user with a public id.
    pub orders_of_user: String,
    /// First page of the join (page rows).
    pub join_first: String,
    /// Next page after the cursor (last user id, last order id, page rows; MariaDB spells the
    /// row comparison out and takes the last user id twice).
    pub join_next: String,
    /// Sets `created_at` (second parameter) of the user with a public id (first).
    pub touch_user: String,
    /// Deletes an order by primary key.
    pub delete_order: String,
    /// Deletes an order's mapping entry by external key.
    pub delete_order_map: Option<String>,
    /// Tables whose counts are reported, each with the table its count must match; dropped in
    /// reverse order.
    pub counted: Vec<(&'static str, &'static str)>,
}

/// Runs `each` on every row of a load, counting rows into `control` a chunk at a time and
/// stopping with [`Error::Interrupted`] once it is cancelled (every engine's user and order loads).
pub fn load_rows<T>(
    rows: &[T],
    control: &RunControl,
    mut each: impl FnMut(&T) -> Result<(), Error>,
) -> Result<(), Error> {
    for chunk in rows.chunks(RunControl::PROGRESS_STEP) {
        for row in chunk {
            each(row)?;
        }
        control.add_rows(chunk.len() as u64);
        if control.is_cancelled() {
            return Err(Error::Interrupted);
        }
    }
    Ok(())
}

/// An engine that can host the application schema.
pub trait AppEngine {
    /// Creates a fresh database holding `strategy`'s empty `users` and `orders` tables.
    fn create_app(&mut self, strategy: &Strategy) -> Result<Box<dyn AppCase + '_>, Error>;
}

/// One user to insert. Text columns are derived from `number` by the engine.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct UserRow {
    /// Client-generated keys (primary and external, where the strategy has them).
    pub keys: KeyRow,
    /// 1-based user number: name `user{n}`, email `user{n}@example.com`.
    pub number: u64,
    /// Age in years.
    pub age: i64,
    /// Creation time, seconds since the epoch.
    pub created_at: i64,
}

/// One order to insert.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct OrderRow {
    /// Client-generated keys of the order.
    pub keys: KeyRow,
    /// The owning user's primary key (foreign key).
    pub user: Key,
    /// Amount in cents.
    pub amount: i64,
    /// Creation time, seconds since the epoch.
    pub created_at: i64,
}

/// Row counts and physical state after an application run.
#[derive(Clone, Debug, PartialEq)]
pub struct AppReport {
    /// Rows in `users` (and its mapping table, which must match: the smaller count).
    pub users: u64,
    /// Rows in `orders` (likewise).
    pub orders: u64,
    /// Size on disk, bytes.
    pub size_bytes: u64,
    /// Of `size_bytes`, the write-ahead log's share.
    pub wal_size_bytes: Option<u64>,
    /// Per-B-tree statistics.
    pub btrees: Vec<BtreeStats>,
}

/// One strategy's application database. Every lookup of a user goes through its public id: the
/// external key where the strategy has one, else the primary key.
pub trait AppCase {
    /// Settings as the engine reports them.
    fn effective_settings(&mut self) -> Result<BTreeMap<String, String>, Error>;

    /// Inserts `users` in one transaction and appends each one's primary key to `ids` (read
    /// back where the engine assigns it).
    fn insert_users(&mut self, users: &[UserRow], ids: &mut Vec<Key>, control: &RunControl) -> Result<(), Error>;

    /// Inserts `orders` in one transaction.
    fn insert_orders(&mut self, orders: &[OrderRow], control: &RunControl) -> Result<(), Error>;

    /// `avg(age)` over all users.
    fn average_age(&mut self) -> Result<f64, Error>;

    /// Reads one user by public id; returns rows found (0 or 1).
    fn user_by_public_id(&mut self, public: Key) -> Result<u64, Error>;

    /// Reads one user by primary key where the public id is an external key; `None` when the
    /// public id is the primary key (the lookup above is that one).
    fn user_by_id(&mut self, id: Key) -> Option<Result<u64, Error>>;

    /// Reads the next page of users joined with their orders in key order (keyset pagination;
    /// `restart` goes back to the first page). Returns rows read; 0 once past the last page.
    fn join_page(&mut self, restart: bool, page_rows: u32) -> Result<u64, Error>;

    /// Reads every order of the user with this public id; returns rows read.
    fn orders_of_user(&mut self, public: Key) -> Result<u64, Error>;

    /// Inserts one order in its own transaction; returns its primary key.
    fn insert_order(&mut self, order: &OrderRow) -> Result<Key, Error>;

    /// Sets `created_at` of the user with this public id in its own transaction; returns rows
    /// changed.
    fn touch_user(&mut self, public: Key, created_at: i64) -> Result<u64, Error>;

    /// Deletes one order (by primary key; `external` is its external key, if any) in its own
    /// transaction; returns rows deleted.
    fn delete_order(&mut self, primary: Key, external: Option<Key>) -> Result<u64, Error>;

    /// Size on disk now, bytes.
    fn size_bytes(&mut self) -> Result<u64, Error>;

    /// Engine counters accumulated since the previous call (or since the case was created).
    fn take_counters(&mut self) -> Result<Counters, Error>;

    /// Counts rows, measures size and B-trees, and removes the database.
    fn finish(self: Box<Self>) -> Result<AppReport, Error>;
}
