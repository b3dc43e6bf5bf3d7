//! [`ShardedBackend`]: the [`Backend`] of every sharded engine, over one [`ShardFamily`]: it
//! starts a head and N shards in parallel, links them, creates each case's tables on every
//! shard and its routing table on the head, and reads counters, sizes and B-trees per shard.

use crate::Error;
use crate::engines::CaseSpec;
use crate::engines::dialect::Dialect;
use crate::engines::kind::EngineKind;
use crate::engines::server::{Backend, ManagedOptions, ServerSettings, ServerTarget, SettingsFor};
use crate::engines::sql::{self, BenchSql};
use crate::engines::wire::Connection;
use crate::metrics::budget::CounterAccount;
use crate::results::{BtreeStats, Counters, ShardCounters};
use crate::sharding::bounds::{Bound, range_bounds};
use crate::sharding::{ShardLayout, Sharding};
use crate::strategy::Strategy;
use std::collections::BTreeMap;
use std::path::Path;
use std::sync::Mutex;

/// What one sharded engine adds to its base engine's [`Backend`].
pub trait ShardFamily: Backend<Settings = ServerSettings> {
    /// The sharded engine.
    const SHARDED: EngineKind;
    /// How rows reach the shards, for results.
    const SHARDED_INSERT_PATH: &'static str;

    /// Adds what the head needs (Spider's plugin) to its managed server's options.
    fn head_options(options: &mut ManagedOptions);

    /// Adds what a shard needs (per-table statistics) to its managed server's options.
    fn shard_options(options: &mut ManagedOptions);

    /// Makes `shard` reachable from the head as `name` (a foreign server).
    fn link(conn: &mut Self::Conn, name: &str, shard: &Self) -> Result<(), Error>;

    /// The head's statements creating the routing table for `spec`'s strategy in `namespace`:
    /// the table partitioned over `names` by `layout`, with `bounds` for range sharding.
    fn head_table(
        spec: &CaseSpec<'_>,
        namespace: &str,
        layout: &ShardLayout,
        bounds: &[Bound],
        names: &[String],
    ) -> Result<Vec<String>, Error>;

    /// The tables shard `shard` holds for a case whose tables are `tables`, where the head's
    /// partitions need their own remote tables (Spider by hash); `None`: the same names.
    fn partition_tables(_layout: &ShardLayout, _shard: usize, _tables: &[&str]) -> Option<Vec<String>> {
        None
    }

    /// Rows that reached `tables` on `shard` so far and their size on disk, bytes, from readings
    /// cheap enough to take after every batch (`None` where the server has none).
    fn shard_fill(
        &self,
        conn: &mut Self::Conn,
        namespace: &str,
        tables: &[&str],
    ) -> Result<(Option<u64>, Option<u64>), Error>;
}

/// One shard server and pkbench's session on it (closed before the server stops).
struct Shard<F: ShardFamily> {
    conn: Mutex<F::Conn>,
    backend: F,
}

/// A shard's readings at one moment.
#[derive(Default)]
pub struct ShardSnapshot<S> {
    counters: S,
    rows: Option<u64>,
    size_bytes: Option<u64>,
}

/// A head server routing rows to shard servers of the same engine.
pub struct ShardedBackend<F: ShardFamily> {
    // Shards first: their sessions close, then their servers stop, before the head's.
    shards: Vec<Shard<F>>,
    head: F,
    layout: ShardLayout,
    names: Vec<String>,
    namespace: Mutex<String>,
    target: String,
    /// Each shard's part of the last counters span, until the case takes it.
    last: Mutex<Option<Vec<ShardCounters>>>,
}

impl<F: ShardFamily> ShardedBackend<F> {
    fn each_shard<T>(&self, mut f: impl FnMut(&F, &mut F::Conn) -> Result<T, Error>) -> Result<Vec<T>, Error> {
        self.each_shard_with(&[], |b, c, _| f(b, c))
    }

    /// Runs `f` on every shard with the tables it holds of a case whose tables are `tables`.
    fn each_shard_with<T>(
        &self,
        tables: &[&str],
        mut f: impl FnMut(&F, &mut F::Conn, &[&str]) -> Result<T, Error>,
    ) -> Result<Vec<T>, Error> {
        self.shards
            .iter()
            .enumerate()
            .map(|(i, s)| {
                let own = F::partition_tables(&self.layout, i, tables);
                let own: Vec<&str> = match &own {
                    Some(names) => names.iter().map(String::as_str).collect(),
                    None => tables.to_vec(),
                };
                let mut conn = s.conn.lock().unwrap_or_else(|p| p.into_inner());
                f(&s.backend, &mut conn, &own)
            })
            .collect()
    }

    fn run_on_shards(&self, stmts: &[String], what: &str) -> Result<(), Error> {
        self.each_shard(|_, conn| {
            stmts.iter().try_for_each(|s| conn.execute(s).map_err(|e| Error::server(format!("{what} ({s})"), e)))
        })?;
        Ok(())
    }
}

/// The options of a server of the sharded set: the user's, plus what its role needs.
fn role_settings(settings: &ServerSettings, add: fn(&mut ManagedOptions)) -> Result<ServerSettings, Error> {
    let ServerTarget::Managed(options) = &settings.target else {
        return Err(Error::InvalidInput(
            "a sharded engine starts its head and shards itself: leave out --url (it cannot use an existing sharded set-up)".into(),
        ));
    };
    let mut options = options.clone();
    add(&mut options);
    // Each server is one node: the layout is the sharded backend's.
    Ok(ServerSettings { target: ServerTarget::Managed(options), shards: None, ..settings.clone() })
}

impl<F: ShardFamily> Backend for ShardedBackend<F> {
    type Settings = ServerSettings;
    type Conn = F::Conn;
    type Managed = F::Managed;
    type Snapshot = Vec<ShardSnapshot<F::Snapshot>>;

    const KIND: EngineKind = F::SHARDED;
    const INSERT_PATH: &'static str = F::SHARDED_INSERT_PATH;
    const COUNTER_SCOPE: &'static str =
        "the shard servers' counters, summed (per shard in each batch's `shards`); the head's own work is not counted";
    const DELETE_NOTE: Option<&'static str> = F::DELETE_NOTE;
    const COMPACT_NOTE: &'static str = F::COMPACT_NOTE;

    fn dialect(&self) -> &'static dyn Dialect {
        self.head.dialect()
    }

    fn open(settings: &ServerSettings) -> Result<(Self, F::Conn), Error> {
        let layout = settings.shards.unwrap_or_default();
        let head_settings = role_settings(settings, F::head_options)?;
        let shard_settings = role_settings(settings, F::shard_options)?;
        // One after another, on this thread: a managed server dies with the thread that started
        // it (its parent-death signal), so servers started on short-lived threads would not last.
        let shards: Vec<Shard<F>> = (0..layout.shards)
            .map(|_| F::open(&shard_settings).map(|(backend, conn)| Shard { conn: Mutex::new(conn), backend }))
            .collect::<Result<_, _>>()?;
        let (head, mut conn) = F::open(&head_settings)?;
        let names = layout.names();
        for (name, shard) in names.iter().zip(&shards) {
            F::link(&mut conn, name, &shard.backend)?;
        }
        let target = format!(
            "managed head ({}) and {} {} shards ({})",
            head.target(),
            layout.shards,
            layout.sharding.name(),
            shards.iter().map(|s| s.backend.target()).collect::<Vec<_>>().join("; ")
        );
        let backend = ShardedBackend {
            shards,
            head,
            layout,
            names,
            namespace: Mutex::new(String::new()),
            target,
            last: Mutex::new(None),
        };
        Ok((backend, conn))
    }

    fn connect(&self) -> Result<F::Conn, Error> {
        self.head.connect()
    }

    fn version(&self) -> &str {
        self.head.version()
    }

    fn target(&self) -> &str {
        &self.target
    }

    fn managed(&self) -> Option<&F::Managed> {
        self.head.managed()
    }

    fn managed_dir(&self) -> Option<&Path> {
        self.head.managed_dir()
    }

    fn settings(&self, conn: &mut F::Conn, purpose: SettingsFor) -> Result<BTreeMap<String, String>, Error> {
        let mut out = self.head.settings(conn, purpose)?;
        let shard = self.each_shard(|b, c| b.settings(c, purpose))?.into_iter().next().unwrap_or_default();
        out.extend(shard.into_iter().map(|(k, v)| (format!("shard_{k}"), v)));
        out.insert("shards".into(), self.layout.shards.to_string());
        out.insert("sharding".into(), self.layout.sharding.name().into());
        Ok(out)
    }

    fn snapshot(&self, _conn: &mut F::Conn, namespace: &str, tables: &[&str]) -> Result<Self::Snapshot, Error> {
        self.each_shard_with(tables, |b, c, tables| {
            let counters = b.snapshot(c, namespace, tables)?;
            let (rows, size_bytes) = b.shard_fill(c, namespace, tables)?;
            Ok(ShardSnapshot { counters, rows, size_bytes })
        })
    }

    fn counters(
        &self,
        _conn: &mut F::Conn,
        (before, after): (&Self::Snapshot, &Self::Snapshot),
        namespace: &str,
        tables: &[&str],
        account: &CounterAccount,
    ) -> Counters {
        let empty = ShardSnapshot::default();
        let mut total = Counters::default();
        let mut each = Vec::with_capacity(self.shards.len());
        for (i, (shard, now)) in self.shards.iter().zip(after).enumerate() {
            let then = before.get(i).unwrap_or(&empty);
            let own = F::partition_tables(&self.layout, i, tables);
            let own: Vec<&str> =
                own.as_ref().map_or_else(|| tables.to_vec(), |n| n.iter().map(String::as_str).collect());
            let mut conn = shard.conn.lock().unwrap_or_else(|p| p.into_inner());
            let c = shard.backend.counters(&mut conn, (&then.counters, &now.counters), namespace, &own, account);
            total.accumulate(&c);
            let rows = match (then.rows, now.rows) {
                (Some(a), Some(b)) => Some(b.saturating_sub(a)),
                (None, b) => b,
                _ => None,
            };
            each.push(ShardCounters { rows, size_bytes: now.size_bytes, counters: c });
        }
        *self.last.lock().unwrap_or_else(|p| p.into_inner()) = Some(each);
        total
    }

    fn wait_sample_sql(&self, namespace: &str, table: &str) -> Option<String> {
        self.head.wait_sample_sql(namespace, table)
    }

    fn size_bytes(&self, _conn: &mut F::Conn, namespace: &str, tables: &[&str]) -> Result<u64, Error> {
        Ok(self.each_shard_with(tables, |b, c, tables| b.size_bytes(c, namespace, tables))?.into_iter().sum())
    }

    fn measure(&self, _conn: &mut F::Conn, namespace: &str, tables: &[&str]) -> Result<(u64, Vec<BtreeStats>), Error> {
        let mut size = 0;
        let mut btrees = Vec::new();
        // A shard holding partitions of its own (Spider by hash) is measured partition by
        // partition, so each tree is named by its partition: `shard0/bench_p3/PRIMARY`.
        let each = self.each_shard_with(tables, |b, c, own| {
            if own == tables {
                return Ok(vec![(None, b.measure(c, namespace, own)?)]);
            }
            own.iter().map(|&t| Ok((Some(t.to_string()), b.measure(c, namespace, &[t])?))).collect()
        })?;
        for (name, parts) in self.names.iter().zip(each) {
            for (part, (s, trees)) in parts {
                size += s;
                let prefix = part.map_or_else(|| name.clone(), |p| format!("{name}/{p}"));
                btrees.extend(trees.into_iter().map(|t| BtreeStats { name: format!("{prefix}/{}", t.name), ..t }));
            }
        }
        Ok((size, btrees))
    }

    fn compact(&self, _conn: &mut F::Conn, _tables: &str) -> Result<(), Error> {
        Err(Error::InvalidInput(format!(
            "{} runs insert workloads only: compact one shard's table on its own server",
            F::SHARDED
        )))
    }

    fn refusal(&self, strategy: &Strategy) -> Option<String> {
        crate::sharding::refusal(strategy)
    }

    fn namespace_created(&self, namespace: &str) -> Result<(), Error> {
        *self.namespace.lock().unwrap_or_else(|p| p.into_inner()) = namespace.to_string();
        let create = self.dialect().create_namespace(namespace);
        self.run_on_shards(&[create], "could not create pkbench's namespace on a shard")
    }

    fn create_tables(&self, conn: &mut F::Conn, _sql: &BenchSql, spec: &CaseSpec<'_>) -> Result<(), Error> {
        let namespace = self.namespace.lock().unwrap_or_else(|p| p.into_inner()).clone();
        let shard_strategy = super::shard_strategy(spec.strategy);
        let dialect = self.dialect();
        let shard_sql = sql::bench::render(dialect, &shard_strategy, &namespace)?;
        let bench = format!("{} (", dialect.qualify(&namespace, "bench"));
        self.each_shard_with(&["bench"], |_, c, own| {
            for table in own {
                let renamed = format!("{} (", dialect.qualify(&namespace, table));
                for stmt in &shard_sql.create {
                    let stmt = stmt.replacen(&bench, &renamed, 1);
                    c.execute(&stmt)
                        .map_err(|e| Error::server(format!("could not create a shard's table ({stmt})"), e))?;
                }
            }
            Ok(())
        })?;
        let bounds = match self.layout.sharding {
            Sharding::Hash => Vec::new(),
            Sharding::Range => {
                range_bounds(spec.strategy, spec.keys, spec.rows, self.layout.shards).ok_or_else(|| {
                    Error::Unsupported {
                        strategy: spec.strategy.name.into(),
                        engine: F::SHARDED.name().into(),
                        reason: "pkbench cannot place range bounds for this key's storage: use --sharding hash".into(),
                    }
                })?
            }
        };
        for stmt in F::head_table(spec, &namespace, &self.layout, &bounds, &self.names)? {
            conn.execute(&stmt).map_err(|e| Error::server(format!("could not create the head's table ({stmt})"), e))?;
        }
        Ok(())
    }

    fn tables_dropped(&self, namespace: &str, tables: &[&str]) -> Result<(), Error> {
        let dialect = self.dialect();
        self.each_shard_with(tables, |_, c, own| {
            let list: Vec<String> = own.iter().rev().map(|t| dialect.qualify(namespace, t)).collect();
            let sql = format!("DROP TABLE IF EXISTS {}", list.join(", "));
            c.execute(&sql).map_err(|e| Error::server(format!("could not drop a shard's table ({sql})"), e))
        })?;
        Ok(())
    }

    fn take_shards(&self) -> Option<Vec<ShardCounters>> {
        self.last.lock().unwrap_or_else(|p| p.into_inner()).take()
    }
}
