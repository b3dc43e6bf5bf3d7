//! A page-level model of what `pkbench run --engine mariadb` creates: an InnoDB table clustered
//! by its primary key (`PRIMARY`: leaves hold whole rows) and, for strategies with a unique
//! external key, a secondary index (`ext_id`: the key and the primary key), behind a buffer
//! pool with midpoint insertion ([`MidpointLru`]). The rules are MariaDB 10.11's.

use super::innodb_page::{CHILD_POINTER, InnodbIndex, PAGE, RECORD_HEADER, SYSTEM_COLUMNS};
use super::lru::MidpointLru;
use super::tree::{Buffers, Store, Tree};
use super::{ServerKey, refuse_unmodelled};
use crate::Error;
use crate::engine_facts::innodb::{MIN_POOL_MB, lru_scan_depth};
use crate::keys::{KeyRow, KeyStream};
use crate::predict::PageModel;
use crate::predict::prefetch::{self, AHEAD};
use crate::results::{BtreeStats, Counters};
use crate::strategy::{SecondaryLookup, Storage, Strategy};
use std::collections::BTreeMap;

/// Engine name recorded in results.
pub const ENGINE: &str = "mariadb-model";
/// Whose rules the model follows.
pub const VERSION: &str = "model of MariaDB 10.11 InnoDB (clustered B-tree, DYNAMIC records, midpoint LRU buffer pool)";

/// A key column's bytes in a record, and whether it is variable-length (one length byte in
/// the record header). `CHAR(n)` in the server's default `latin1` is fixed-length.
pub(crate) fn column(storage: Storage) -> (u32, bool) {
    match storage {
        Storage::Integer => (8, false),
        Storage::Binary16 | Storage::Binary16TimeSwapped | Storage::MariaDbUuid => (16, false),
        Storage::Text36 => (36, false),
        Storage::Hex32 => (32, false),
        Storage::Text26 => (26, false),
        Storage::VarHex32 => (32, true),
        Storage::VarText36 => (36, true),
    }
}

fn bytes((len, var): (u32, bool)) -> u32 {
    len + u32::from(var)
}

/// Refuses strategies the InnoDB models do not cover, with the reason.
pub(crate) fn refuse(strategy: &Strategy) -> Result<(), Error> {
    refuse_unmodelled(strategy, ENGINE)?;
    super::refuse_heap(strategy, ENGINE, "InnoDB")
}

/// Pages of the buffer pool's LRU list for `innodb_buffer_pool_size = cache_mb` MiB: the pool's
/// 16 KiB frames less the free pages the page cleaner keeps (`innodb_lru_scan_depth`, which
/// pkbench's managed servers set to a tenth of the pool; `buf_pool_t::need_LRU_eviction`).
pub fn lru_pages(cache_mb: u64) -> u64 {
    (cache_mb * 1024 * 1024 / u64::from(PAGE)).saturating_sub(lru_scan_depth(cache_mb))
}

/// Bytes of undo log records a page holds: 16 KiB less the FIL header and trailer, the undo page
/// header (`TRX_UNDO_PAGE_HDR_SIZE`) and the segment and log headers of a first page
/// (`TRX_UNDO_SEG_HDR_SIZE`, `TRX_UNDO_LOG_OLD_HDR_SIZE`).
const UNDO_PAGE_BYTES: u32 = PAGE - 38 - 8 - 18 - 30 - 34;

/// Bytes of the undo record of one insert (`trx_undo_page_report_insert`): next-record offset
/// (2), type (1), undo number (3 compressed bytes for a batch's first 2M rows), table id (1), each
/// primary-key field as a compressed length (1) and its bytes, and the record's start offset (2).
fn undo_record(pk_bytes: u32) -> u32 {
    2 + 1 + 3 + 1 + 1 + pk_bytes + 2
}

/// The transaction's insert undo log: new pages created as it grows, freed at commit, so each
/// batch writes its own (they take room in the buffer pool until they age out of the LRU list).
#[derive(Debug)]
struct UndoLog {
    record: u32,
    page: Option<u32>,
    used: u32,
}

/// A strategy's simulated InnoDB table.
pub struct InnodbModel {
    store: Store,
    pool: MidpointLru,
    indexes: Vec<(Tree<InnodbIndex>, ServerKey)>,
    keys: KeyStream,
    rows: u64,
    lru_pages: u64,
    dirtied: u64,
    evicted_dirty: u64,
    undo: UndoLog,
    /// The rows of the group being inserted (see [`Tree::warm`]).
    ahead: Vec<KeyRow>,
}

impl InnodbModel {
    /// The table `strategy` creates, with `innodb_buffer_pool_size = cache_mb` MiB; a 1/`scale`
    /// scale model ([`crate::predict::scale`]) has 1/`scale` of its LRU list.
    pub fn new(strategy: &Strategy, payload_bytes: u64, seed: u64, cache_mb: u64, scale: u64) -> Result<Self, Error> {
        refuse(strategy)?;
        if cache_mb < MIN_POOL_MB {
            return Err(Error::InvalidInput(format!(
                "--cache-mb {cache_mb} is below InnoDB's minimum buffer pool of {MIN_POOL_MB} MiB: use --cache-mb {MIN_POOL_MB} or more"
            )));
        }
        // Rows over ~8 kB would move the BLOB off the page (DYNAMIC format); not modelled.
        if payload_bytes > 4000 {
            return Err(Error::InvalidInput(format!(
                "--payload {payload_bytes} is over the 4000 bytes the InnoDB model keeps on the page (larger BLOBs may be stored off-page): use a smaller --payload"
            )));
        }
        let pk = column(strategy.primary.storage);
        let ext = strategy.secondary.map(|s| column(s.storage));
        // The payload BLOB's length takes 1 byte in the header below 128 bytes, else 2.
        let payload_len = if payload_bytes < 128 { 1 } else { 2 };
        let leaf =
            RECORD_HEADER + bytes(pk) + SYSTEM_COLUMNS + ext.map_or(0, bytes) + payload_len + payload_bytes as u32;
        let primary =
            InnodbIndex { leaf_record: leaf, node_record: RECORD_HEADER + bytes(pk) + CHILD_POINTER, clustered: true };
        let mut store = Store::default();
        let lru = lru_pages(cache_mb);
        let mut pool = MidpointLru::new(lru / scale.max(1));
        let mut indexes = Vec::new();
        let tree = Tree::create(&mut store, &mut pool, "PRIMARY", "table", primary);
        indexes.push((tree, ServerKey::Primary(strategy.primary.storage)));
        if let Some(s) = strategy.secondary.filter(|s| s.lookup == SecondaryLookup::UniqueIndex) {
            // A secondary record holds its key and the primary key; so do its node pointers
            // (`dict_index_get_n_unique_in_tree`: every field on non-clustered indexes).
            let leaf = RECORD_HEADER + bytes(column(s.storage)) + bytes(pk);
            let rules = InnodbIndex { leaf_record: leaf, node_record: leaf + CHILD_POINTER, clustered: false };
            let tree = Tree::create(&mut store, &mut pool, "ext_id", "index", rules);
            indexes.push((tree, ServerKey::Secondary(s.storage)));
        }
        let _ = pool.take_counts();
        let undo = UndoLog { record: undo_record(pk.0), page: None, used: 0 };
        Ok(InnodbModel {
            store,
            pool,
            indexes,
            keys: KeyStream::new(strategy, seed),
            rows: 0,
            lru_pages: lru,
            dirtied: 0,
            evicted_dirty: 0,
            undo,
            ahead: Vec::with_capacity(AHEAD),
        })
    }

    /// Inserts `row`: its undo record, then its entry in every index; returns the pages split.
    fn insert_row(&mut self, row: KeyRow) -> u64 {
        self.rows += 1;
        // The clustered index insert writes its undo record first (`btr_cur_ins_lock_and_undo`).
        let undo = &mut self.undo;
        match undo.page {
            Some(p) if undo.used + undo.record <= UNDO_PAGE_BYTES => {
                self.pool.fetch(p, false);
                self.pool.modify(p, 0);
            }
            _ => {
                let p = self.store.alloc(Default::default());
                self.pool.fetch(p, true);
                self.pool.modify(p, 0);
                (undo.page, undo.used) = (Some(p), 0);
            }
        }
        undo.used += undo.record;
        let mut splits = 0;
        for (tree, key) in &mut self.indexes {
            let k = key.value(&row, self.rows as i64);
            splits += u64::from(tree.insert(&mut self.store, &mut self.pool, k).splits);
        }
        splits
    }
}

impl PageModel for InnodbModel {
    fn insert_batch(&mut self, n: u64) -> Counters {
        let mut splits = 0u64;
        let jumps = |indexes: &[(Tree<InnodbIndex>, ServerKey)]| indexes.iter().map(|(t, _)| t.leaf_jumps).sum::<u64>();
        let jumps_before = jumps(&self.indexes);
        for group in prefetch::groups(n) {
            self.keys.fill(&mut self.ahead, group);
            for (tree, key) in &mut self.indexes {
                tree.warm_rows(&self.store, &self.pool, *key, &self.ahead, self.rows + 1);
            }
            for i in 0..self.ahead.len() {
                splits += self.insert_row(self.ahead[i]);
            }
        }
        // Commit frees the insert undo log (`trx_undo_commit_cleanup`).
        self.undo.page = None;
        let c = self.pool.take_counts();
        self.dirtied += c.dirtied;
        self.evicted_dirty += c.written;
        // No `pages_written`: InnoDB's page cleaner writes most dirty pages in the background
        // (flush list, adaptive flushing), which the model does not simulate; its writes of
        // evicted dirty pages alone are recorded in `describe` as a lower bound.
        Counters {
            cache_hits: Some(c.hits),
            cache_misses: Some(c.reads),
            page_splits: Some(splits),
            pages_dirtied: Some(c.dirtied),
            leaf_jumps: Some(jumps(&self.indexes) - jumps_before),
            ..Counters::default()
        }
    }

    fn entries(&self) -> Vec<u64> {
        self.indexes.iter().map(|(t, _)| t.entries(&self.store)).collect()
    }

    fn btree_stats(&self) -> Vec<BtreeStats> {
        self.indexes.iter().map(|(t, _)| t.stats(&self.store, PAGE)).collect()
    }

    fn size_bytes(&self) -> u64 {
        self.indexes.iter().map(|(t, _)| t.pages()).sum::<u64>() * u64::from(PAGE)
    }

    fn memory_bytes(&self) -> u64 {
        self.store.memory_bytes() + self.pool.memory_bytes()
    }

    fn describe(&self, options: &mut BTreeMap<String, String>) {
        options.insert(
            "model".into(),
            "MariaDB 10.11 InnoDB: clustered B-tree (btr_page_split_and_insert) + midpoint-insertion LRU buffer pool (innodb_old_blocks_time ignored)".into(),
        );
        options.insert("page_size".into(), PAGE.to_string());
        options.insert("cache_pages".into(), self.lru_pages.to_string());
        options.insert("pages_dirtied".into(), self.dirtied.to_string());
        options.insert("dirty_pages_evicted".into(), self.evicted_dirty.to_string());
        options.insert(
            "pages_written".into(),
            "not predicted: the page cleaner's background flushing is not modelled (dirty_pages_evicted is a lower bound)".into(),
        );
        options.insert(
            "size_bytes".into(),
            "B-tree pages of the table's indexes (undo, system and free pages not counted)".into(),
        );
    }
}
