//! The schema workload's load: the key table's rows in timed batches, each with its children,
//! and the rows kept for the reads.

use super::reads::{Kept, Targets};
use super::rows::{MAX_COLUMNS, Ref, TableRows};
use super::{FkLocality, OwnSchema, transaction};
use crate::Error;
use crate::control::RunControl;
use crate::engines::own_schema::SchemaCase;
use crate::engines::own_schema::TreeCounters;
use crate::engines::schema_sql::RunSql;
use crate::engines::wire::KeySlot;
use crate::generators::Key;
use crate::keys::{KeyRow, KeyStream};
use crate::metrics::budget::CounterAccount;
use crate::results::{BatchResult, RunResult};
use crate::strategy::{SecondaryKey, Storage, Strategy};
use crate::util::pick::Pick;
use crate::values::Param;
use crate::workloads::CaseContext;
use crate::workloads::outcome::record_batch;
use std::collections::BTreeMap;

/// What the load leaves for the reads.
pub(super) struct Loaded {
    pub targets: Targets,
    /// Per tree (`table`, `table.index`), per 1,000 key-table rows during the load, where the
    /// engine counts them per tree: blocks read into the cache, and index blocks touched.
    pub per_tree: PerTree,
}

/// Per tree: blocks read and index blocks touched per 1,000 key-table rows.
pub(super) type PerTree = BTreeMap<String, (Option<f64>, Option<f64>)>;

/// The rows inserted so far and what the reads need of them.
struct Rows<'a> {
    workload: &'a OwnSchema,
    /// The key table's fill, and how its key is stored.
    key_fill: usize,
    storage: Storage,
    /// The child tables' fills, each with its position among the key table's joins.
    children: Vec<(usize, Option<usize>)>,
    /// Parameter positions of the indexed columns, kept for the sampled rows.
    indexed: Vec<usize>,
    /// A second key beside the key (`int+uuid4`): the last parameter, and what reads look up.
    second: Option<SecondaryKey>,
    second_slot: KeySlot,
    targets: Targets,
    keys: Vec<Key>,
}

impl OwnSchema {
    /// The key table's rows in timed batches, each with its children.
    pub(super) fn load(
        &self,
        case: &mut dyn SchemaCase,
        feeds: &mut [TableRows],
        strategy: &Strategy,
        pick: &mut Pick,
        result: &mut RunResult,
        ctx: &CaseContext<'_>,
    ) -> Result<Loaded, Error> {
        let sql = case.sql().clone();
        let mut rows = Rows::new(self, &sql, strategy);
        let mut stream = KeyStream::new(strategy, self.keys);
        let mut batch = Vec::with_capacity(self.sizes.batch_rows as usize);
        let mut account = CounterAccount::new(ctx.counter_budget);
        let before = case.tree_counters()?;
        while (rows.keys.len() as u64) < self.sizes.rows {
            let start = rows.keys.len();
            let n = self.sizes.batch_rows.min(self.sizes.rows - start as u64);
            let t0 = ctx.timer.now_ns();
            stream.fill(&mut batch, n);
            let t1 = ctx.timer.now_ns();
            transaction(case, |case| {
                rows.insert_keyed(case, feeds, &batch, pick, ctx)?;
                rows.insert_children(case, feeds, start, n, pick)
            })?;
            let t2 = ctx.timer.now_ns();
            ctx.control.add_rows(n % RunControl::PROGRESS_STEP as u64);
            account.earn(t2 - t1);
            let counters = case.take_counters(&account)?;
            let counters_ns = ctx.timer.now_ns() - t2;
            account.spend(counters_ns);
            let b = BatchResult {
                index: result.batches.len() as u64,
                rows: n,
                rows_total: rows.keys.len() as u64,
                elapsed_ns: t2 - t1,
                elapsed_ns_low: None,
                elapsed_ns_high: None,
                keygen_ns: t1 - t0,
                counters,
                counters_ns,
                counters_span: 1,
                db_size_bytes: None,
                shards: None,
                machine_ns: None,
                lsm_levels: case.take_levels(),
            };
            record_batch(result, b, ctx, strategy.name);
        }
        let per_tree = per_tree(case, &before, rows.keys.len(), result)?;
        Ok(Loaded { targets: rows.targets, per_tree })
    }
}

impl<'a> Rows<'a> {
    fn new(workload: &'a OwnSchema, sql: &RunSql, strategy: &Strategy) -> Self {
        let key_fill = workload.plan.key;
        let children = workload.plan.children().map(|c| (c, sql.children_of.iter().position(|j| j.0 == c))).collect();
        let sizes = &workload.sizes;
        let targets =
            Targets::choose(sizes.rows, sizes.reads, sizes.read_locality, workload.keys.seed, sql.children_of.len());
        let key_insert = &sql.inserts[key_fill];
        let mut indexed: Vec<usize> = sql
            .by_index
            .iter()
            .flat_map(|r| r.columns.iter().filter_map(|c| key_insert.columns.iter().position(|x| x == c)))
            .collect();
        indexed.sort_unstable();
        indexed.dedup();
        Rows {
            workload,
            key_fill,
            storage: strategy.primary.storage,
            children,
            indexed,
            second: strategy.secondary.filter(|_| key_insert.second_key),
            second_slot: KeySlot::default(),
            targets,
            keys: Vec::with_capacity(sizes.rows as usize),
        }
    }

    /// The key table's rows of one batch, keeping the sampled rows' keys and indexed values.
    fn insert_keyed(
        &mut self,
        case: &mut dyn SchemaCase,
        feeds: &mut [TableRows],
        batch: &[KeyRow],
        pick: &mut Pick,
        ctx: &CaseContext<'_>,
    ) -> Result<(), Error> {
        let start = self.keys.len();
        let parent_rows = self.workload.sizes.parent_rows as usize;
        for (i, row) in batch.iter().enumerate() {
            let mut params = [Param::Null; MAX_COLUMNS];
            let mut k = feeds[self.key_fill].next(
                row.primary,
                self.storage,
                &mut |_| Ref::Row(pick.below(parent_rows) as u64),
                &mut params,
            )?;
            if let Some(s) = self.second {
                let ext = row.secondary.ok_or_else(|| Error::Internal("a second key is missing".into()))?;
                params[k] = self.second_slot.bind(ext, s.storage);
                k += 1;
            }
            let assigned = case.insert(self.key_fill, &params[..k])?;
            let key = row.primary.or(assigned).ok_or_else(|| Error::Internal("a key is missing".into()))?;
            if let Some(s) = self.targets.rows.get_mut(&((start + i) as u64)) {
                s.key = if self.second.is_some() { row.secondary } else { Some(key) };
                for &p in &self.indexed {
                    s.values.insert(p, Kept::of(&params[p]));
                }
            }
            self.keys.push(key);
            if (i + 1) % RunControl::PROGRESS_STEP == 0 {
                ctx.control.add_rows(RunControl::PROGRESS_STEP as u64);
                if ctx.control.is_cancelled() {
                    return Err(Error::Interrupted);
                }
            }
        }
        Ok(())
    }

    /// The children of the batch of `n` key-table rows from `start`: each references a row of
    /// the batch or any row so far (`--fk-locality`).
    fn insert_children(
        &mut self,
        case: &mut dyn SchemaCase,
        feeds: &mut [TableRows],
        start: usize,
        n: u64,
        pick: &mut Pick,
    ) -> Result<(), Error> {
        let sizes = &self.workload.sizes;
        let (parent_rows, key_fill) = (sizes.parent_rows as usize, self.key_fill);
        for (c, join) in self.children.clone() {
            if self.workload.plan.fills[c].mapping {
                self.insert_mapped(case, feeds, (c, join), start, n)?;
                continue;
            }
            for _ in 0..n * sizes.children_per_row {
                let mut counted = false;
                let (keys, targets) = (&self.keys, &mut self.targets);
                let mut parent = |p: usize| {
                    if p != key_fill {
                        return Ref::Row(pick.below(parent_rows) as u64);
                    }
                    let j = match sizes.fk_locality {
                        FkLocality::Recent => start + pick.below(n as usize),
                        FkLocality::Uniform => pick.below(keys.len()),
                    };
                    if let (false, Some(join), Some(s)) = (counted, join, targets.rows.get_mut(&(j as u64))) {
                        s.children[join] += 1;
                    }
                    counted = true;
                    Ref::Key(keys[j])
                };
                let mut params = [Param::Null; MAX_COLUMNS];
                let k = feeds[c].next(None, self.storage, &mut parent, &mut params)?;
                case.insert(c, &params[..k])?;
            }
        }
        Ok(())
    }
}

impl Rows<'_> {
    /// The rows of mapping table `c` for key rows `start..start + n`: each key row gets
    /// `--children-per-row` rows, the k-th referencing other parents' row `(row + k) mod
    /// parent_rows`, so no two of a key row's rows share a parent.
    fn insert_mapped(
        &mut self,
        case: &mut dyn SchemaCase,
        feeds: &mut [TableRows],
        (c, join): (usize, Option<usize>),
        start: usize,
        n: u64,
    ) -> Result<(), Error> {
        let sizes = &self.workload.sizes;
        let (parent_rows, key_fill) = (sizes.parent_rows, self.key_fill);
        for j in start..start + n as usize {
            for k in 0..sizes.children_per_row {
                if let (Some(join), Some(s)) = (join, self.targets.rows.get_mut(&(j as u64))) {
                    s.children[join] += 1;
                }
                let key = self.keys[j];
                let mut parent =
                    |p: usize| if p == key_fill { Ref::Key(key) } else { Ref::Row((j as u64 + k) % parent_rows) };
                let mut params = [Param::Null; MAX_COLUMNS];
                let written = feeds[c].next(None, self.storage, &mut parent, &mut params)?;
                case.insert(c, &params[..written])?;
            }
        }
        Ok(())
    }
}

/// Each tree's blocks read and index blocks touched per 1,000 of the `rows` loaded, from the
/// engine's per-tree counters `before` the load and now.
fn per_tree(
    case: &mut dyn SchemaCase,
    before: &BTreeMap<String, TreeCounters>,
    rows: usize,
    result: &RunResult,
) -> Result<PerTree, Error> {
    let rows = rows.max(1) as f64;
    // Touched blocks are read within the counter budget: per the rows of the batches read.
    let touched_rows: u64 =
        result.batches.iter().filter(|b| b.counters.index_blocks_touched.is_some()).map(|b| b.rows).sum();
    let per_1k = |after: Option<u64>, before: Option<u64>, rows: f64| {
        after.filter(|_| rows > 0.0).map(|a| a.saturating_sub(before.unwrap_or(0)) as f64 * 1000.0 / rows)
    };
    Ok(case
        .tree_counters()?
        .into_iter()
        .map(|(tree, after)| {
            let b = before.get(&tree).copied().unwrap_or_default();
            let misses = per_1k(after.misses, b.misses, rows);
            let touched = per_1k(after.index_blocks_touched, b.index_blocks_touched, touched_rows as f64);
            (tree, (misses, touched))
        })
        .collect())
}
