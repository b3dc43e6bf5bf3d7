//! One strategy's simulated database: its B-trees in one file, fed the strategy's real key
//! stream row by row, committed batch by batch.

use super::cache::CacheCounts;
use super::layout::{Layout, TreeKey, bytes_key, int_key};
use super::prefetch::{self, AHEAD};
use super::tree::{BTree, Pager};
use crate::generators::Key;
use crate::keys::{KeyRow, KeyStream};
use crate::results::BtreeStats;
use crate::strategy::Strategy;

/// What the model counted for one batch.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct BatchCounts {
    /// Rows inserted.
    pub rows: u64,
    /// Cache behaviour during the batch and its commit.
    pub cache: CacheCounts,
    /// Pages added by splits.
    pub page_splits: u64,
    /// Pages in the file after the batch.
    pub pages: u64,
    /// Inserts whose leaf was not the previous insert's into the same tree.
    pub leaf_jumps: u64,
}

/// A strategy's simulated SQLite database.
pub struct Model {
    pager: Pager,
    trees: Vec<BTree>,
    keys: KeyStream,
    /// The rows of the group being inserted (see [`BTree::warm`]).
    ahead: Vec<KeyRow>,
    rowid: i64,
    rows: u64,
    splits_before: u64,
    jumps_before: u64,
}

fn key_value(key: Option<Key>, rowid: i64) -> u128 {
    match key {
        Some(Key::Int(v)) => int_key(v),
        Some(Key::Uuid(b)) => bytes_key(b),
        None => int_key(rowid),
    }
}

impl Model {
    /// An empty database for `strategy` laid out as `layout`, with a cache of `cache_pages`,
    /// keeping only key ranges per leaf if `bounded`.
    pub fn new(strategy: &Strategy, layout: Layout, seed: u64, cache_pages: u64, bounded: bool) -> Self {
        let mut pager = Pager::new(layout.page_size, cache_pages, bounded);
        let trees = layout.trees.into_iter().map(|t| BTree::create(&mut pager, t)).collect();
        let _ = pager.cache.take_counts();
        Model {
            pager,
            trees,
            keys: KeyStream::new(strategy, seed),
            ahead: Vec::with_capacity(AHEAD),
            rowid: 0,
            rows: 0,
            splits_before: 0,
            jumps_before: 0,
        }
    }

    /// Makes this a 1/`k` scale model's database: the WAL checkpoints after 1/`k` of the frames.
    pub fn scale_wal(&mut self, k: u64) {
        self.pager.cache.set_autocheckpoint(super::cache::AUTOCHECKPOINT_FRAMES / k);
        self.pager.cache.set_frame_scale(k);
    }

    /// The rowid of `row`, inserted `ordinal` rows after the row whose rowid the counter holds
    /// (1 for the next row to insert, 0 for the row just counted).
    fn rowid_of(&self, row: &KeyRow, ordinal: i64) -> i64 {
        match row.primary {
            // An INTEGER PRIMARY KEY the client supplies is the rowid.
            Some(Key::Int(v)) => v,
            _ => self.rowid + ordinal,
        }
    }

    /// `row`'s key in `tree`.
    fn key(tree: &BTree, row: &KeyRow, rowid: i64) -> u128 {
        match tree.layout.key {
            TreeKey::RowidCounter => int_key(rowid),
            TreeKey::Primary => key_value(row.primary, rowid),
            TreeKey::Secondary => key_value(row.secondary, rowid),
        }
    }

    /// [`BTree::warm`] for the rows of the group about to be inserted.
    fn warm(&mut self) {
        for t in 0..self.trees.len() {
            let mut keys = [0u128; AHEAD];
            for ((k, row), ordinal) in keys.iter_mut().zip(&self.ahead).zip(1..) {
                *k = Self::key(&self.trees[t], row, self.rowid_of(row, ordinal));
            }
            self.trees[t].warm(&self.pager, &keys[..self.ahead.len().min(AHEAD)]);
        }
    }

    /// Inserts `row` into every tree.
    fn insert_row(&mut self, row: KeyRow) {
        self.rowid += 1;
        let rowid = self.rowid_of(&row, 0);
        for tree in &mut self.trees {
            let key = Self::key(tree, &row, rowid);
            tree.insert(&mut self.pager, key, rowid);
        }
    }

    /// Inserts the next `n` rows of the key stream and commits them as one transaction.
    pub fn insert_batch(&mut self, n: u64) -> BatchCounts {
        for group in prefetch::groups(n) {
            self.keys.fill(&mut self.ahead, group);
            self.warm();
            for i in 0..self.ahead.len() {
                self.insert_row(self.ahead[i]);
            }
        }
        self.rows += n;
        self.pager.cache.commit();
        let splits = self.pager.splits - self.splits_before;
        self.splits_before = self.pager.splits;
        let jumps = self.pager.leaf_jumps - self.jumps_before;
        self.jumps_before = self.pager.leaf_jumps;
        BatchCounts {
            rows: n,
            cache: self.pager.cache.take_counts(),
            page_splits: splits,
            pages: self.pager.page_count(),
            leaf_jumps: jumps,
        }
    }

    /// Rows inserted so far.
    pub fn rows(&self) -> u64 {
        self.rows
    }

    /// Entries found by walking every tree (each tree must hold one per row).
    pub fn entries(&self) -> Vec<u64> {
        self.trees.iter().map(|t| t.entries(&self.pager)).collect()
    }

    /// Per-tree statistics as `dbstat` would report them.
    pub fn btree_stats(&self) -> Vec<BtreeStats> {
        self.trees.iter().map(|t| t.stats(&self.pager)).collect()
    }

    /// Size of the database file, bytes.
    pub fn size_bytes(&self) -> u64 {
        self.pager.page_count() * u64::from(self.pager.page_size)
    }

    /// Size of the WAL file: its 32-byte header and the most frames it has held, each a page
    /// with a 24-byte frame header (<https://sqlite.org/fileformat2.html>, §4.1).
    pub fn wal_size_bytes(&self, scale: u64) -> u64 {
        match self.pager.cache.wal_frames_max() * scale {
            0 => 0,
            frames => 32 + frames * (u64::from(self.pager.page_size) + 24),
        }
    }

    /// Approximate memory the model holds, bytes.
    pub fn memory_bytes(&self) -> u64 {
        self.pager.memory_bytes()
    }
}
