//! app: the small-SaaS benchmark of "SQLite ID Benchmarks". `users` and their `orders`, both keyed
//! by the strategy; load, then an average-age aggregate, random point selects by public id, a
//! keyset-paginated join, all orders of one user, and a mixed CRUD load — one phase each.

use super::outcome::{SettingsBase, conclude, empty_result, verify};
use super::{CaseContext, Workload};
use crate::Error;
use crate::engines::Engine;
use crate::engines::app::{AppCase, OrderRow, UserRow};
use crate::generators::Key;
use crate::keys::{KeySettings, KeyStream};
use crate::metrics::LatencyRecorder;
use crate::results::{PhaseResult, RunResult};
use crate::strategy::Strategy;
use crate::util::pick::Pick;
use std::collections::{BTreeMap, VecDeque};
use std::time::Duration;

/// Rows per page of the paginated join.
pub const PAGE_ROWS: u32 = 50;
/// Pages read by the paginated join.
const PAGES: u64 = 200;
/// Point selects timed (after [`WARMUP`] untimed ones).
const POINT_SELECTS: u64 = 10_000;
/// Untimed operations before a timed query phase.
const WARMUP: u64 = 1_000;
/// Users whose orders are read.
const ORDER_LOOKUPS: u64 = 1_000;
/// Average-age queries timed.
const AGGREGATES: u64 = 10;
/// Mixed-CRUD iterations of 100 operations.
const CRUD_ITERATIONS: u64 = 100;
/// The mixed-CRUD operations, per 10: 2 inserts, 2 updates, 1 delete, 5 reads.
const CRUD_MIX: &str = "per 100 operations: 50 point reads of a user by public id, 20 order inserts, \
     20 user updates by public id, 10 deletes of the oldest order inserted here; one transaction each";
/// Largest `--users` accepted.
pub const MAX_USERS: u64 = 100_000_000;
/// Largest `--orders-per-user` accepted.
pub const MAX_ORDERS_PER_USER: u64 = 1_000;

/// The app workload's sizes.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct App {
    users: u64,
    orders_per_user: u64,
    batch_rows: u64,
    keys: KeySettings,
    /// Untimed warm-up before each timed query step: `None` = [`WARMUP`] operations.
    warmup: Option<Duration>,
}

/// How long the untimed warm-up before a timed step lasts.
#[derive(Clone, Copy)]
enum Warmup {
    /// This many operations.
    Ops(u64),
    /// Operations until this much time has passed.
    For(Duration),
}

/// Age of user `n` (1-based): deterministic, 18–80.
fn age(n: u64) -> i64 {
    18 + ((n * 37) % 63) as i64
}

/// What the load left behind for the later phases.
struct Loaded {
    ids: Vec<Key>,
    publics: Vec<Key>,
    /// Whether the public id is an external key beside the primary key (`int+uuid4`, …).
    external: bool,
    /// The orders' key stream, continued by mixed CRUD (deterministic schemes such as
    /// Snowflake would repeat keys if restarted).
    order_keys: KeyStream,
}

impl App {
    /// Validates sizes: `users` ≥ 1, `orders_per_user` ≥ 1, `batch_rows` rows per load
    /// transaction.
    pub fn new(users: u64, orders_per_user: u64, batch_rows: u64, keys: impl Into<KeySettings>) -> Result<Self, Error> {
        let keys = keys.into();
        if users == 0 || users > MAX_USERS {
            return Err(Error::InvalidInput(format!(
                "--users {users} is out of range: use 1 to {MAX_USERS} (e.g. --users 200k)"
            )));
        }
        if orders_per_user == 0 || orders_per_user > MAX_ORDERS_PER_USER {
            return Err(Error::InvalidInput(format!(
                "--orders-per-user {orders_per_user} is out of range: use 1 to {MAX_ORDERS_PER_USER}"
            )));
        }
        if batch_rows == 0 || batch_rows > super::MAX_BATCH_ROWS {
            return Err(Error::InvalidInput(format!(
                "--batch {batch_rows} is out of range: use 1 to {} rows per transaction",
                super::MAX_BATCH_ROWS
            )));
        }
        Ok(App { users, orders_per_user, batch_rows, keys, warmup: None })
    }

    /// Warms each timed query step (point select, a user's orders) up for `warmup` instead of
    /// a fixed [`WARMUP`] operations (`--warmup`).
    pub fn with_warmup(mut self, warmup: Option<Duration>) -> Self {
        self.warmup = warmup;
        self
    }

    /// The warm-up of a timed query step of at most `count` operations.
    fn query_warmup(&self, count: u64) -> Warmup {
        self.warmup.map_or(Warmup::Ops(WARMUP.min(count)), Warmup::For)
    }

    fn orders(&self) -> u64 {
        self.users * self.orders_per_user
    }

    fn load(
        &self,
        case: &mut dyn AppCase,
        strategy: &Strategy,
        ctx: &CaseContext<'_>,
    ) -> Result<(Loaded, PhaseResult), Error> {
        let mut keys = KeyStream::new(strategy, self.keys);
        let mut ids = Vec::with_capacity(self.users as usize);
        let mut publics = Vec::with_capacity(self.users as usize);
        let mut users: Vec<UserRow> = Vec::with_capacity(self.batch_rows as usize);
        let (mut users_ns, mut n) = (0, 0);
        while n < self.users {
            let take = self.batch_rows.min(self.users - n);
            users.clear();
            users.extend((n + 1..=n + take).map(|number| {
                let keys = keys.next_row();
                UserRow { keys, number, age: age(number), created_at: 1_700_000_000 + number as i64 }
            }));
            publics.extend(users.iter().map(|u| u.keys.secondary.or(u.keys.primary)));
            let t0 = ctx.timer.now_ns();
            case.insert_users(&users, &mut ids, ctx.control)?;
            users_ns += ctx.timer.now_ns() - t0;
            n += take;
        }
        // Engine-assigned primary keys are public too where there is no external key.
        let publics: Vec<Key> = publics.iter().zip(&ids).map(|(p, id)| p.unwrap_or(*id)).collect();
        let mut order_keys = KeyStream::new(strategy, self.keys.reseeded(self.keys.seed ^ 0x0de5));
        let mut orders: Vec<OrderRow> = Vec::with_capacity(self.batch_rows as usize);
        let (mut orders_ns, mut n) = (0, 0);
        while n < self.orders() {
            let take = self.batch_rows.min(self.orders() - n);
            orders.clear();
            // Round-robin over users: each user's orders arrive spread over the load, as in life.
            orders.extend((n..n + take).map(|j| OrderRow {
                keys: order_keys.next_row(),
                user: ids[(j % self.users) as usize],
                amount: ((j * 7919) % 100_000) as i64,
                created_at: 1_700_000_000 + j as i64,
            }));
            let t0 = ctx.timer.now_ns();
            case.insert_orders(&orders, ctx.control)?;
            orders_ns += ctx.timer.now_ns() - t0;
            n += take;
        }
        let counters = case.take_counters()?;
        let rate = |rows: u64, ns: u64| rows as f64 * 1e9 / ns.max(1) as f64;
        let figures = BTreeMap::from([
            ("users_per_s".to_string(), rate(self.users, users_ns)),
            ("orders_per_s".to_string(), rate(self.orders(), orders_ns)),
            ("size_after_load_bytes".to_string(), case.size_bytes()? as f64),
        ]);
        let phase = PhaseResult {
            name: "load".into(),
            operations: self.users + self.orders(),
            rows: self.users + self.orders(),
            elapsed_ns: users_ns + orders_ns,
            counters,
            figures,
            note: Some(format!("users, then orders round-robin over users; {} rows per transaction", self.batch_rows)),
            ..PhaseResult::default()
        };
        Ok((Loaded { ids, publics, external: strategy.secondary.is_some(), order_keys }, phase))
    }

    /// Times `count` calls of `op` on `case` (after `warmup` untimed ones); each returns rows
    /// read. Counters cover the timed calls only.
    fn timed(
        name: &str,
        count: u64,
        warmup: Warmup,
        case: &mut dyn AppCase,
        ctx: &CaseContext<'_>,
        mut op: impl FnMut(&mut dyn AppCase, u64) -> Result<u64, Error>,
    ) -> Result<PhaseResult, Error> {
        let started = ctx.timer.now_ns();
        let mut warm_ops = 0;
        loop {
            let done = match warmup {
                Warmup::Ops(n) => warm_ops >= n,
                Warmup::For(d) => ctx.timer.now_ns() - started >= d.as_nanos() as u64,
            };
            if done || ctx.control.is_cancelled() {
                break;
            }
            op(case, warm_ops)?;
            warm_ops += 1;
        }
        let warm_secs = (ctx.timer.now_ns() - started) as f64 / 1e9;
        case.take_counters()?;
        let mut latency = LatencyRecorder::new();
        let (mut rows, mut elapsed_ns) = (0, 0);
        for i in 0..count {
            if ctx.control.is_cancelled() {
                return Err(Error::Interrupted);
            }
            let t0 = ctx.timer.now_ns();
            rows += op(case, i)?;
            let ns = ctx.timer.now_ns() - t0;
            latency.record(ns);
            elapsed_ns += ns;
        }
        let note = (warm_ops > 0).then(|| format!("after {warm_ops} untimed warm-up operations ({warm_secs:.2} s)"));
        Ok(PhaseResult {
            name: name.into(),
            operations: count,
            rows,
            elapsed_ns,
            latency: latency.summary(),
            counters: case.take_counters()?,
            note,
            ..PhaseResult::default()
        })
    }

    fn queries(
        &self,
        case: &mut dyn AppCase,
        loaded: &Loaded,
        ctx: &CaseContext<'_>,
    ) -> Result<Vec<PhaseResult>, Error> {
        let mut phases = Vec::new();
        let mut avg = 0.0;
        let mut p = Self::timed("avg-age", AGGREGATES, Warmup::Ops(1), case, ctx, |c, _| {
            avg = c.average_age()?;
            Ok(self.users)
        })?;
        let expected = (1..=self.users).map(|n| age(n) as f64).sum::<f64>() / self.users as f64;
        if (avg - expected).abs() > 1e-6 * expected {
            return Err(Error::UnexpectedResponse(format!(
                "avg(age) returned {avg}, expected {expected}: the users table is wrong"
            )));
        }
        p.figures.insert("avg_age_years".into(), avg);
        phases.push(p);

        let mut pick = Pick(self.keys.seed);
        let users = loaded.publics.len();
        let mut p = Self::timed("point-select", POINT_SELECTS, self.query_warmup(POINT_SELECTS), case, ctx, |c, _| {
            c.user_by_public_id(loaded.publics[pick.below(users)])
        })?;
        verify("app point-select", p.operations, p.rows)?;
        let what = if loaded.external {
            "users looked up by their public id, the external key ext_id"
        } else {
            "users looked up by their public id, the primary key"
        };
        add_note(&mut p, what);
        phases.push(p);
        if loaded.external {
            // The other question for a key beside an integer: the same lookups by the integer.
            let mut pick = Pick(self.keys.seed);
            let mut p = Self::timed(
                "point-select-by-id",
                POINT_SELECTS,
                self.query_warmup(POINT_SELECTS),
                case,
                ctx,
                |c, _| {
                    let id = loaded.ids[pick.below(users)];
                    c.user_by_id(id).unwrap_or_else(|| Err(Error::Internal("no lookup by primary key".into())))
                },
            )?;
            verify("app point-select-by-id", p.operations, p.rows)?;
            add_note(&mut p, "the same users looked up by the primary key id");
            phases.push(p);
        }

        let mut p = Self::timed("join-page", PAGES, Warmup::Ops(0), case, ctx, |c, i| c.join_page(i == 0, PAGE_ROWS))?;
        verify("app join-page", (PAGES * u64::from(PAGE_ROWS)).min(self.orders()), p.rows)?;
        p.figures.insert("page_rows".into(), f64::from(PAGE_ROWS));
        p.note = Some(format!(
            "keyset pagination over users ⋈ orders in (user id, order id) order, {PAGE_ROWS} rows per page"
        ));
        phases.push(p);

        let p = Self::timed("orders-of-user", ORDER_LOOKUPS, self.query_warmup(ORDER_LOOKUPS), case, ctx, |c, _| {
            c.orders_of_user(loaded.publics[pick.below(users)])
        })?;
        verify("app orders-of-user", ORDER_LOOKUPS * self.orders_per_user, p.rows)?;
        phases.push(p);
        Ok(phases)
    }

    fn mixed_crud(
        &self,
        case: &mut dyn AppCase,
        loaded: &mut Loaded,
        ctx: &CaseContext<'_>,
    ) -> Result<PhaseResult, Error> {
        let keys = &mut loaded.order_keys;
        let mut pick = Pick(self.keys.seed ^ 0xc0de);
        let mut inserted: VecDeque<(Key, Option<Key>)> = VecDeque::new();
        let users = loaded.publics.len();
        let mut n = 0u64;
        let mut p = Self::timed("mixed-crud", CRUD_ITERATIONS * 100, Warmup::Ops(0), case, ctx, |case, _| {
            n += 1;
            let user = pick.below(users);
            Ok(match n % 10 {
                0 | 1 => {
                    let order = OrderRow {
                        keys: keys.next_row(),
                        user: loaded.ids[user],
                        amount: (n % 100_000) as i64,
                        created_at: 1_800_000_000 + n as i64,
                    };
                    let pk = case.insert_order(&order)?;
                    inserted.push_back((pk, order.keys.secondary));
                    1
                }
                2 | 3 => case.touch_user(loaded.publics[user], 1_800_000_000 + n as i64)?,
                4 => match inserted.pop_front() {
                    Some((pk, ext)) => case.delete_order(pk, ext)?,
                    None => 0,
                },
                _ => case.user_by_public_id(loaded.publics[user])?,
            })
        })?;
        // Every operation touches exactly one row.
        verify("app mixed-crud", p.operations, p.rows)?;
        p.figures.insert("iterations".into(), CRUD_ITERATIONS as f64);
        p.figures.insert("iteration_ms_mean".into(), p.elapsed_ns as f64 / 1e6 / CRUD_ITERATIONS as f64);
        p.note = Some(CRUD_MIX.into());
        Ok(p)
    }
}

impl Workload for App {
    fn name(&self) -> &'static str {
        "app"
    }

    fn rows_per_case(&self) -> u64 {
        self.users + self.orders()
    }

    fn case_plan(&self) -> String {
        format!("inserting {} users and {} orders, then timed queries", self.users, self.orders())
    }

    fn run_case(
        &self,
        engine: &mut dyn Engine,
        strategy: &Strategy,
        ctx: &CaseContext<'_>,
    ) -> (RunResult, Option<Error>) {
        let mut options = BTreeMap::from([
            ("users".to_string(), self.users.to_string()),
            ("orders_per_user".to_string(), self.orders_per_user.to_string()),
        ]);
        // RocksDB's tables take no foreign keys: orders.user_id is then not enforced.
        if let Some(kind) =
            crate::engines::EngineKind::from_name(engine.info().name).filter(|k| !k.dialect().foreign_keys())
        {
            options.insert(
                "foreign_keys".into(),
                format!("none: {} tables take none, so orders.user_id is not enforced", kind.label()),
            );
        }
        let base = SettingsBase {
            rows: self.users + self.orders(),
            batch_rows: self.batch_rows,
            payload_bytes: 0,
            keys: self.keys,
            insert_path: "one cached prepared single-row INSERT per row, one transaction per batch".into(),
            options,
        };
        let info = engine.info();
        let mut result = empty_result(engine, self.name(), strategy, base);
        ctx.control.set_rows(0);
        let outcome = (|| -> Result<(), Error> {
            let app = engine.app().ok_or_else(|| {
                Error::InvalidInput(format!(
                    "the app workload has no SQL for {}: use --engine sqlite, postgres or mariadb",
                    info.name
                ))
            })?;
            let mut case = app.create_app(strategy)?;
            result.settings.engine = case.effective_settings()?;
            let (mut loaded, load) = self.load(case.as_mut(), strategy, ctx)?;
            result.phases.push(load);
            ctx.observer.phase_recorded(&result);
            for query in self.queries(case.as_mut(), &loaded, ctx)? {
                result.phases.push(query);
                ctx.observer.phase_recorded(&result);
            }
            result.phases.push(self.mixed_crud(case.as_mut(), &mut loaded, ctx)?);
            ctx.observer.phase_recorded(&result);
            let report = case.finish()?;
            verify(strategy.name, self.users, report.users)?;
            // Mixed CRUD adds 20 orders and deletes 10 per iteration.
            verify(strategy.name, self.orders() + 10 * CRUD_ITERATIONS, report.orders)?;
            result.verified_rows = Some(report.users + report.orders);
            result.size_bytes = Some(report.size_bytes);
            result.wal_size_bytes = report.wal_size_bytes;
            result.btrees = report.btrees;
            Ok(())
        })();
        conclude(result, outcome)
    }
}

/// Adds `what` to `phase`'s note (which may already say how it warmed up).
fn add_note(phase: &mut PhaseResult, what: &str) {
    phase.note = Some(match phase.note.take() {
        Some(note) => format!("{note}; {what}"),
        None => what.to_string(),
    });
}
