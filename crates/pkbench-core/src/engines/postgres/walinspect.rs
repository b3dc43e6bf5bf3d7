//! The counters only the WAL itself holds — B-tree page splits, full-page-image bytes and the
//! distinct index blocks the inserts touched — read back with `pg_walinspect`, within the
//! counter budget.
//!
//! Reading WAL back is the costliest counter there is: `pg_get_wal_stats` reads about a GB/s
//! here (0.04 s for the 57 MB of WAL a 300k-row batch of integer keys writes, against 0.5 s of
//! inserting), and `pg_get_wal_records_info`, which the block references need, ten times less.
//! So each span's WAL is read only when the case's counter account affords it (estimated from
//! the reads so far), the cheaper statistics first; a span that cannot afford them leaves those
//! counters out, and the run's per-1,000-rows figures divide by the rows of the spans that had
//! them (`RunResult::counter_with_rows`).

use super::counters::format_lsn;
use crate::metrics::budget::{CostRate, CounterAccount};
use crate::results::Counters;
use postgres::Client;
use std::cell::{Cell, RefCell};
use std::collections::BTreeMap;
use std::time::Instant;

/// Page splits and FPI bytes between the LSNs `$1` and `$2`.
const STATS_SQL: &str = "\
    SELECT coalesce(sum(count) FILTER (WHERE \"resource_manager/record_type\" IN ('Btree/SPLIT_L', 'Btree/SPLIT_R')), 0)::bigint, \
           coalesce(sum(fpi_size), 0)::bigint \
    FROM pg_get_wal_stats($1::text::pg_lsn, $2::text::pg_lsn, true)";

/// Distinct (relfilenode, block) pairs of each index (named `table.index`) on the tables `$3`
/// of schema `$4` referenced by the B-tree WAL records between the LSNs `$1` and `$2`. Each
/// record's `block_ref` text reads `blkref #0: rel <spc>/<db>/<relfilenode> [fork main] blk <n> …`
/// once per block; it is cut with string functions (a regular expression per record cost twenty
/// times more).
const INDEX_BLOCKS_SQL: &str = "\
    WITH idx AS (SELECT pg_relation_filenode(i.indexrelid)::text AS node, c.relname || '.' || ic.relname AS name \
                 FROM pg_index i JOIN pg_class c ON c.oid = i.indrelid \
                 JOIN pg_class ic ON ic.oid = i.indexrelid \
                 JOIN pg_namespace n ON n.oid = c.relnamespace \
                 WHERE n.nspname = $4 AND c.relname = ANY($3)), \
         db AS (SELECT oid::text AS oid FROM pg_database WHERE datname = current_database()), \
         refs AS (SELECT split_part(b, ' ', 3) AS rel, split_part(split_part(b, ' blk ', 2), ' ', 1) AS blk \
                  FROM pg_get_wal_records_info($1::text::pg_lsn, $2::text::pg_lsn) r, \
                       unnest(string_to_array(r.block_ref, 'blkref #')) AS b \
                  WHERE r.resource_manager = 'Btree') \
    SELECT idx.name, count(DISTINCT (refs.rel, refs.blk))::bigint FROM refs \
    JOIN idx ON split_part(refs.rel, '/', 3) = idx.node \
    WHERE split_part(refs.rel, '/', 2) = (SELECT oid FROM db) \
    GROUP BY idx.name";

/// Reads a span's WAL back within a counter account, learning what each kind of read costs.
#[derive(Debug)]
pub struct WalInspector {
    stats: Cell<CostRate>,
    blocks: Cell<CostRate>,
    /// Per index (`table.index`): touched blocks summed over the spans read so far.
    touched: RefCell<BTreeMap<String, u64>>,
}

impl Default for WalInspector {
    /// Before the first read: 1 ns per WAL byte for the statistics, 10 for the block references.
    fn default() -> Self {
        WalInspector {
            stats: Cell::new(CostRate::new(1.0)),
            blocks: Cell::new(CostRate::new(10.0)),
            touched: RefCell::new(BTreeMap::new()),
        }
    }
}

impl WalInspector {
    /// Adds page splits and FPI bytes, then the distinct index blocks touched, for the flushed
    /// WAL between `from` and `to` to `c`, each only if `account` affords it. Tables are the
    /// case's, unqualified, in `schema`.
    pub fn read(
        &self,
        client: &mut Client,
        (from, to): (u64, u64),
        (schema, tables): (&str, &[&str]),
        account: &CounterAccount,
        c: &mut Counters,
    ) {
        if to <= from {
            return;
        }
        let bytes = to - from;
        let (from, to) = (format_lsn(from), format_lsn(to));
        let started = Instant::now();
        if !account.affords(self.stats.get().expected_ns(bytes)) {
            return;
        }
        if let Ok(row) = client.query_one(STATS_SQL, &[&from, &to]) {
            c.page_splits = row.try_get::<_, i64>(0).ok().map(|v| v.max(0) as u64);
            c.wal_fpi_bytes = row.try_get::<_, i64>(1).ok().map(|v| v.max(0) as u64);
        }
        let spent = started.elapsed().as_nanos() as u64;
        learn(&self.stats, bytes, spent);
        if !account.affords(spent as f64 + self.blocks.get().expected_ns(bytes)) {
            return;
        }
        let tables: Vec<String> = tables.iter().map(|t| t.to_string()).collect();
        let t = Instant::now();
        if let Ok(rows) = client.query(INDEX_BLOCKS_SQL, &[&from, &to, &tables, &schema]) {
            let mut total = 0;
            let mut touched = self.touched.borrow_mut();
            for row in rows {
                if let (Ok(name), Ok(n)) = (row.try_get::<_, String>(0), row.try_get::<_, i64>(1)) {
                    total += n.max(0) as u64;
                    *touched.entry(name).or_default() += n.max(0) as u64;
                }
            }
            c.index_blocks_touched = Some(total);
        }
        learn(&self.blocks, bytes, t.elapsed().as_nanos() as u64);
    }
}

impl WalInspector {
    /// Per index (`table.index`): the distinct blocks each span read so far touched, summed.
    pub fn touched_per_index(&self) -> BTreeMap<String, u64> {
        self.touched.borrow().clone()
    }
}

fn learn(rate: &Cell<CostRate>, bytes: u64, ns: u64) {
    let mut r = rate.get();
    r.record(bytes, ns);
    rate.set(r);
}
