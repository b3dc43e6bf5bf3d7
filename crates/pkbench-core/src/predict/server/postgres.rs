//! A page-level model of what `pkbench run --engine postgres` creates: a heap (`bench`) filled
//! from its last page, a primary-key nbtree (`bench_pkey`) and, for strategies with a unique
//! external key, a second nbtree (`bench_ext_id_key`) — and for a user's table an nbtree per
//! secondary index beside them ([`PostgresModel::with_table`]) — behind shared buffers swept by
//! the clock ([`ClockSweep`]), with the WAL volume that decides when checkpoints (and so
//! full-page images) happen. The rules are PostgreSQL 15's; the sources are cited where they apply.

use super::clock::ClockSweep;
use super::nbtree::{LINE_POINTER, Nbtree, PAGE};
use super::pg_heap::{Heap, column};
use super::tree::{Buffers, Node, Shape, Store, Tree};
use super::{ServerKey, refuse_unmodelled};
use crate::Error;
use crate::engines::postgres::wal_size::WAL_SEGMENT_MB;
use crate::keys::{KeyRow, KeyStream};
use crate::predict::PageModel;
use crate::predict::prefetch::{self, AHEAD};
use crate::predict::schema::IndexFeed;
use crate::results::{BtreeStats, Counters};
use crate::strategy::{KeySource, SecondaryLookup, Storage, Strategy};
use std::collections::BTreeMap;

/// Engine name recorded in results.
pub const ENGINE: &str = "postgres-model";
/// Whose rules the model follows.
pub const VERSION: &str =
    "model of PostgreSQL 15 (nbtree, heap, clock-sweep shared buffers, checkpoints by WAL volume)";
/// Pages of `shared_buffers = cache_mb` MiB.
pub fn cache_pages(cache_mb: u64) -> u64 {
    cache_mb * 1024 * 1024 / u64::from(PAGE)
}

/// `wal_segment_size` of a managed cluster (the initdb default).
const WAL_SEGMENT: u64 = WAL_SEGMENT_MB << 20;
/// `XLOG_BLCKSZ` and `SizeOfXLogShortPHD` (MAXALIGNed): every WAL page starts with a header.
const WAL_PAGE: u64 = 8192;
const WAL_PAGE_HEADER: u64 = 24;
/// `SizeOfXLogRecord`; a block reference (`XLogRecordBlockHeader` + `RelFileNode` +
/// `BlockNumber`); a later one of the same relation (`BKPBLOCK_SAME_REL`); a short main-data
/// header; a block image header (`SizeOfXLogRecordBlockImageHeader`).
const XLOG_RECORD: u64 = 24;
const BLOCK_REF: u64 = 4 + 12 + 4;
const SAME_REL_REF: u64 = 4 + 4;
const DATA_HEADER: u64 = 2;
const IMAGE_HEADER: u64 = 5;
/// `SEQ_LOG_VALS`: an identity's sequence logs one record per 33 values (`nextval_internal`).
const SEQ_LOG_VALS: u64 = 32;

/// Where an index's entries come from.
#[derive(Clone, Copy, Debug)]
enum Entry {
    /// A key of the row.
    Key(ServerKey),
    /// The user's table's index of this number in its [`IndexFeed`].
    Table(usize),
}

struct Index {
    tree: Tree<Nbtree>,
    entry: Entry,
    /// Bytes of the index tuple an insert record carries.
    tuple: u64,
}

/// Counts a batch's distinct modified index pages (the "index blocks touched" of
/// Tomas Vondra's "Sequential UUID Generators").
struct Touched<'a> {
    inner: &'a mut ClockSweep,
    stamp: &'a mut Vec<u32>,
    batch: u32,
    count: &'a mut u64,
}

impl Buffers for Touched<'_> {
    fn fetch(&mut self, page: u32, new: bool) {
        self.inner.fetch(page, new);
    }
    fn modify(&mut self, page: u32, image_bytes: u32) {
        let i = page as usize;
        if self.stamp.len() <= i {
            self.stamp.resize(i + 1 + i / 8, 0);
        }
        if self.stamp[i] != self.batch {
            self.stamp[i] = self.batch;
            *self.count += 1;
        }
        self.inner.modify(page, image_bytes);
    }
}

/// A strategy's simulated PostgreSQL table.
pub struct PostgresModel {
    store: Store,
    buffers: ClockSweep,
    heap: Heap,
    indexes: Vec<Index>,
    keys: KeyStream,
    /// A user's table, whose rows replace the key stream's and whose secondary indexes the
    /// model keeps beside the key's trees ([`PostgresModel::with_table`]).
    table: Option<IndexFeed>,
    /// The rows of the group being inserted (see [`Tree::warm`]), and their entries in the
    /// table's indexes (row by row, one per index).
    ahead: Vec<KeyRow>,
    entries: Vec<u128>,
    identity: bool,
    rows: u64,
    /// Bytes of WAL records so far, and with the WAL page headers.
    wal_payload: u64,
    wal: u64,
    /// A WAL segment's bytes (1/scale of 16 MiB in a scale model).
    wal_segment: u64,
    /// Pages of the shared buffers modelled (a scale model simulates 1/scale of them).
    cache_pages: u64,
    wal_records: u64,
    redo: u64,
    checkpoints: u64,
    splits: u64,
    touched_stamp: Vec<u32>,
    touched: u64,
    batches: u32,
    dirtied: u64,
}

impl PostgresModel {
    /// The same model checkpointing after 1/`k` of the WAL: segments 1/`k` as large, as on a
    /// calibration's cluster with that checkpoint scale
    /// ([`crate::engines::postgres::wal_size::WalSize`]).
    pub fn with_checkpoint_scale(mut self, k: u64) -> Self {
        self.wal_segment = (self.wal_segment / k.max(1)).max(1);
        self
    }

    /// The same model of a user's table: its rows come from `feed` (the table's rows as
    /// `run --schema` inserts them), and each of its secondary indexes is a tree of `trees`' rules
    /// (in the feed's order) beside the key's, so that the WAL, the checkpoints and the cache
    /// are the table's. The heap keeps the model's rows (the key, the second key and the payload).
    pub fn with_table(mut self, trees: Vec<(String, Nbtree)>, feed: IndexFeed) -> Self {
        for (n, (name, rules)) in trees.into_iter().enumerate() {
            let tuple = u64::from(rules.leaf_item - LINE_POINTER);
            let mut tree = Tree::create(&mut self.store, &mut self.buffers, &name, "index", rules);
            tree.fastpath = true;
            self.indexes.push(Index { tree, entry: Entry::Table(n), tuple });
        }
        self.entries = vec![0; AHEAD * feed.indexes().len()];
        self.table = Some(feed);
        self
    }

    /// Rows a heap page of this model holds (where a user's table's index finds its rows).
    pub fn heap_rows_per_page(&self) -> u32 {
        self.heap.per_page
    }

    /// The table `strategy` creates, with `shared_buffers = cache_mb` MiB; a 1/`scale` scale
    /// model ([`crate::predict::scale`]) has 1/`scale` of the buffers and checkpoints after
    /// 1/`scale` of the WAL.
    pub fn new(strategy: &Strategy, payload_bytes: u64, seed: u64, cache_mb: u64, scale: u64) -> Result<Self, Error> {
        refuse_unmodelled(strategy, ENGINE)?;
        // bytea: a 1-byte varlena header up to 126 bytes, else 4 bytes, int-aligned.
        let payload = if payload_bytes <= 126 { (payload_bytes as u32 + 1, 1) } else { (payload_bytes as u32 + 4, 4) };
        let mut columns = vec![column(strategy.primary.storage)];
        if let Some(s) = strategy.secondary {
            columns.push(column(s.storage));
        }
        columns.push(payload);
        let heap = Heap::new(&columns);
        // TOAST_TUPLE_THRESHOLD (~2 kB): larger rows would be compressed or moved out of line.
        if heap.item > 2032 {
            return Err(Error::InvalidInput(format!(
                "--payload {payload_bytes} makes PostgreSQL rows of {} bytes, which TOAST would compress or move out of line; the model does not simulate TOAST: use a --payload under 1900",
                heap.item
            )));
        }
        let mut store = Store::default();
        let mut buffers = ClockSweep::new((cache_pages(cache_mb) / scale.max(1)) as u32);
        let mut indexes = Vec::new();
        let mut add = |name: &str, storage: Storage, key: ServerKey| {
            let (len, align) = column(storage);
            let rules = Nbtree::new(len, align);
            let tuple = u64::from(rules.leaf_item - LINE_POINTER);
            let mut tree = Tree::create(&mut store, &mut buffers, name, "index", rules);
            tree.fastpath = true;
            indexes.push(Index { tree, entry: Entry::Key(key), tuple });
        };
        add("bench_pkey", strategy.primary.storage, ServerKey::Primary(strategy.primary.storage));
        if let Some(s) = strategy.secondary.filter(|s| s.lookup == SecondaryLookup::UniqueIndex) {
            add("bench_ext_id_key", s.storage, ServerKey::Secondary(s.storage));
        }
        Ok(PostgresModel {
            store,
            buffers,
            heap,
            indexes,
            keys: KeyStream::new(strategy, seed),
            table: None,
            ahead: Vec::with_capacity(AHEAD),
            entries: Vec::new(),
            identity: strategy.primary.source == KeySource::EngineAssigned,
            rows: 0,
            wal_payload: 0,
            wal: 0,
            wal_segment: (WAL_SEGMENT / scale.max(1)).max(1),
            cache_pages: cache_pages(cache_mb),
            wal_records: 0,
            redo: 0,
            checkpoints: 0,
            splits: 0,
            touched_stamp: Vec::new(),
            touched: 0,
            batches: 0,
            dirtied: 0,
        })
    }

    /// Appends `records` WAL records of `bytes` in all; each starts MAXALIGNed, and every WAL
    /// page begins with a header.
    fn log(&mut self, bytes: u64, records: u64) {
        self.wal_payload += bytes.div_ceil(8) * 8;
        self.wal = self.wal_payload + self.wal_payload / (WAL_PAGE - WAL_PAGE_HEADER) * WAL_PAGE_HEADER;
        self.wal_records += records;
    }

    /// A checkpoint starts once the WAL written since the redo point fills the segment after the
    /// redo point's (`XLogCheckpointNeeded` with `CheckPointSegments` = `max_wal_size` 64 MB
    /// (`engines::postgres::wal_size::MAX_WAL_MB`) ÷ 16 MB ÷ (1 + `checkpoint_completion_target`
    /// 0.9) = 2, `CalculateCheckpointSegments`). `checkpoint_timeout` (5 min) is not modelled:
    /// the model has no clock.
    fn maybe_checkpoint(&mut self) {
        if self.wal >= (self.redo / self.wal_segment + 2) * self.wal_segment {
            self.buffers.checkpoint();
            self.redo = self.wal;
            self.checkpoints += 1;
        }
    }

    /// `heap_insert` into the last page, or a new one (`RelationGetBufferForTuple`); returns
    /// the bytes of its `XLOG_HEAP_INSERT` record.
    fn insert_heap(&mut self) -> u64 {
        let before = self.buffers.totals();
        let heap = &mut self.heap;
        let mut extend = true;
        if let Some(&last) = heap.pages.last() {
            self.buffers.fetch(last, false);
            extend = heap.on_last >= heap.per_page;
            if extend {
                // The full page is recorded in the free space map, which has no other page to
                // offer (`RecordAndGetPageWithFreeSpace`): its three levels are read.
                let store = &mut self.store;
                let fsm = *heap.fsm.get_or_insert_with(|| {
                    [store.alloc(Node::default()), store.alloc(Node::default()), store.alloc(Node::default())]
                });
                for p in fsm {
                    self.buffers.fetch(p, false);
                }
            }
        }
        if extend {
            let p = self.store.alloc(Node::default());
            heap.pages.push(p);
            heap.on_last = 0;
            self.buffers.fetch(p, true);
        }
        heap.on_last += 1;
        let last = heap.pages[heap.pages.len() - 1];
        self.buffers.modify(last, heap.image(heap.on_last));
        let image = self.buffers.totals().since(&before).fpi_bytes;
        // xl_heap_insert (3 bytes) + xl_heap_header (5) + the tuple, or the page image instead.
        let data = if image > 0 { IMAGE_HEADER + image } else { 5 + u64::from(heap.logged) };
        XLOG_RECORD + BLOCK_REF + DATA_HEADER + 3 + data
    }

    /// Inserts `row`, the `at`-th of its group (its entries in the table's indexes, if any).
    fn insert_row(&mut self, row: KeyRow, at: usize) {
        self.rows += 1;
        if self.identity && (self.rows - 1).is_multiple_of(SEQ_LOG_VALS + 1) {
            // XLOG_SEQ_LOG: xl_seq_rec (12) + the sequence tuple (41), page re-initialised.
            self.log(XLOG_RECORD + BLOCK_REF + DATA_HEADER + 12 + 41, 1);
        }
        let heap_record = self.insert_heap();
        self.log(heap_record, 1);
        let width = self.table.as_ref().map_or(0, |t| t.indexes().len());
        for i in 0..self.indexes.len() {
            let key = match self.indexes[i].entry {
                Entry::Key(k) => k.value(&row, self.rows as i64),
                Entry::Table(n) => self.entries[at * width + n],
            };
            let before = self.buffers.totals();
            let mut touched = Touched {
                inner: &mut self.buffers,
                stamp: &mut self.touched_stamp,
                batch: self.batches,
                count: &mut self.touched,
            };
            let index = &mut self.indexes[i];
            let shape: Shape = index.tree.insert(&mut self.store, &mut touched, key);
            let during = self.buffers.totals().since(&before);
            let tuple = index.tuple;
            self.splits += u64::from(shape.splits);
            // XLOG_BTREE_INSERT_LEAF: the offset (2) and the tuple.
            let mut bytes = XLOG_RECORD + BLOCK_REF + DATA_HEADER + 2 + tuple;
            let mut records = 1;
            if shape.splits > 0 {
                let s = u64::from(shape.splits);
                // XLOG_BTREE_SPLIT_L/R: xl_btree_split (10), the left page's new high key, the
                // right page's tuples, references to the right page and its right sibling;
                // then XLOG_BTREE_INSERT_UPPER with the new downlink.
                bytes += s * (XLOG_RECORD + DATA_HEADER + 10 + BLOCK_REF + tuple + 2 * SAME_REL_REF)
                    + u64::from(shape.moved) * tuple
                    + s * (XLOG_RECORD + BLOCK_REF + SAME_REL_REF + DATA_HEADER + 2 + tuple);
                records += 2 * s;
            }
            if shape.new_roots > 0 {
                // XLOG_BTREE_NEWROOT: the two downlinks and the metapage.
                bytes += XLOG_RECORD + BLOCK_REF + SAME_REL_REF + DATA_HEADER + 8 + 2 * tuple + 40;
                records += 1;
            }
            bytes += during.fpi * IMAGE_HEADER + during.fpi_bytes;
            self.log(bytes, records);
        }
        self.maybe_checkpoint();
    }

    /// The next `group` rows into `ahead` (and their entries of the table's indexes).
    fn take_group(&mut self, group: usize) {
        match self.table.as_mut() {
            None => self.keys.fill(&mut self.ahead, group as u64),
            Some(feed) => {
                let width = feed.indexes().len();
                self.ahead.clear();
                for r in 0..group {
                    self.ahead.push(feed.next(&mut self.entries[r * width..(r + 1) * width]));
                }
            }
        }
    }
}

impl PageModel for PostgresModel {
    fn take_error(&mut self) -> Option<Error> {
        self.table.as_mut().and_then(IndexFeed::take_error)
    }

    fn insert_batch(&mut self, n: u64) -> Counters {
        let before = self.buffers.totals();
        let (wal, records, splits, touched) = (self.wal, self.wal_records, self.splits, self.touched);
        let jumps = |indexes: &[Index]| indexes.iter().map(|i| i.tree.leaf_jumps).sum::<u64>();
        let jumps_before = jumps(&self.indexes);
        self.batches += 1;
        for group in prefetch::groups(n) {
            self.take_group(group as usize);
            let width = self.table.as_ref().map_or(0, |t| t.indexes().len());
            for index in &mut self.indexes {
                match index.entry {
                    Entry::Key(k) => index.tree.warm_rows(&self.store, &self.buffers, k, &self.ahead, self.rows + 1),
                    Entry::Table(t) => {
                        let mut keys = [0u128; AHEAD];
                        for (k, r) in keys.iter_mut().zip(0..self.ahead.len()) {
                            *k = self.entries[r * width + t];
                        }
                        index.tree.warm(&self.store, &self.buffers, &keys[..self.ahead.len()]);
                    }
                }
            }
            for i in 0..self.ahead.len() {
                self.insert_row(self.ahead[i], i);
            }
        }
        // XLOG_XACT_COMMIT.
        self.log(XLOG_RECORD + DATA_HEADER + 8, 1);
        let c = self.buffers.totals().since(&before);
        self.dirtied += c.dirtied;
        Counters {
            cache_hits: Some(c.hits),
            cache_misses: Some(c.reads),
            pages_extended: Some(c.extended),
            pages_written: Some(c.written),
            wal_bytes: Some(self.wal - wal),
            wal_records: Some(self.wal_records - records),
            wal_fpi: Some(c.fpi),
            wal_fpi_bytes: Some(c.fpi_bytes),
            page_splits: Some(self.splits - splits),
            index_blocks_touched: Some(self.touched - touched),
            pages_dirtied: Some(c.dirtied),
            // A page first modified since the redo point logs an image, a new page initialises
            // itself; each is a page the next checkpoint must flush.
            checkpoint_pages: Some(c.fpi + c.extended),
            leaf_jumps: Some(jumps(&self.indexes) - jumps_before),
            ..Counters::default()
        }
    }

    fn entries(&self) -> Vec<u64> {
        let heap = match self.heap.pages.len() as u64 {
            0 => 0,
            p => (p - 1) * u64::from(self.heap.per_page) + u64::from(self.heap.on_last),
        };
        std::iter::once(heap).chain(self.indexes.iter().map(|i| i.tree.entries(&self.store))).collect()
    }

    /// The heap as `engines::postgres::physical` reports it (pages, and `100 − free_percent`
    /// as its fill), then each index as `pgstatindex` does, ordered by name as there.
    fn btree_stats(&self) -> Vec<BtreeStats> {
        let h = &self.heap;
        let pages = h.pages.len() as u64;
        let free =
            if pages == 0 { 0 } else { (pages - 1) * u64::from(h.free(h.per_page)) + u64::from(h.free(h.on_last)) };
        let bytes = pages * u64::from(PAGE);
        let mut out = vec![BtreeStats {
            key_share: None,
            misses_per_1k_rows: None,
            index_blocks_touched_per_1k_rows: None,
            name: "bench".into(),
            kind: "table".into(),
            pages,
            leaf_pages: pages,
            leaf_fill: if bytes == 0 { 0.0 } else { 1.0 - free as f64 / bytes as f64 },
            leaf_out_of_order: 0.0,
            size_bytes: bytes,
        }];
        let mut indexes: Vec<BtreeStats> = self
            .indexes
            .iter()
            .map(|i| {
                let mut s = i.tree.stats(&self.store, PAGE);
                // The metapage (block 0) is part of the relation.
                s.pages += 1;
                s.size_bytes += u64::from(PAGE);
                s
            })
            .collect();
        indexes.sort_by(|a, b| a.name.cmp(&b.name));
        out.extend(indexes);
        out
    }

    /// The heap's pages and each index's with its metapage, as [`PageModel::btree_stats`] counts
    /// them, without walking the trees (a batch asks for it more than once).
    fn size_bytes(&self) -> u64 {
        let index_pages: u64 = self.indexes.iter().map(|i| i.tree.pages() + 1).sum();
        (self.heap.pages.len() as u64 + index_pages) * u64::from(PAGE)
    }

    fn memory_bytes(&self) -> u64 {
        self.store.memory_bytes() + self.buffers.memory_bytes() + self.touched_stamp.capacity() as u64 * 4
    }

    fn describe(&self, options: &mut BTreeMap<String, String>) {
        options.insert(
            "model".into(),
            "PostgreSQL 15: heap appends + nbtree (_bt_findsplitloc) + clock-sweep shared buffers + checkpoints every 2 WAL segments".into(),
        );
        if let Some(feed) = &self.table {
            let names: Vec<&str> = feed.indexes().iter().map(|(name, _)| name.as_str()).collect();
            options.insert("table_indexes".into(), names.join(", "));
        }
        options.insert("page_size".into(), PAGE.to_string());
        options.insert("cache_pages".into(), self.cache_pages.to_string());
        options.insert("heap_tuples_per_page".into(), self.heap.per_page.to_string());
        options.insert("checkpoints".into(), self.checkpoints.to_string());
        options.insert("pages_dirtied".into(), self.dirtied.to_string());
        options
            .insert("size_bytes".into(), "heap + indexes (free space map, visibility map and WAL not counted)".into());
    }
}
