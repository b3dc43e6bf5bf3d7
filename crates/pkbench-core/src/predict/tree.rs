//! A page-by-page B+tree of keys: every page has a number, a kind and its used bytes, so that
//! splits, fill and the page cache's misses and writes follow from the insert stream.
//!
//! Two representations of a leaf share one tree: the exact one keeps every key
//! ([`Content::Keys`]); the bounded one keeps only how many keys a leaf holds and the smallest
//! and largest of them ([`Content::Range`]). Interior pages always keep their keys (there are
//! about 1/50 as many of them as leaves). When a bounded leaf must be split, its keys are
//! taken as evenly spread between its smallest and largest key — what uniform random keys look
//! like on average, and exactly what ordered keys look like.

use super::cache::PageCache;
use super::cells::Listed;
use super::descent::Descents;
use super::layout::{CELL_POINTER, INTERIOR_HEADER, LEAF_HEADER, TreeKind, TreeLayout};
use super::prefetch::{self, AHEAD};
use super::search;
use crate::results::BtreeStats;

/// What a page holds.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Content {
    /// A leaf with every key, sorted.
    Keys(Vec<u128>),
    /// A leaf known only by its key count and key range (bounded mode).
    Range {
        /// Keys on the page.
        count: u32,
        /// Smallest key.
        lo: u128,
        /// Largest key.
        hi: u128,
    },
    /// An interior page: `children.len() == keys.len() + 1`; child `i` holds keys up to
    /// `keys[i]`, the last child the keys above the last divider.
    Interior {
        /// Divider keys.
        keys: Vec<u128>,
        /// Child page numbers.
        children: Vec<u32>,
    },
    /// On the freelist.
    Free,
}

impl Content {
    /// Cells on the page.
    pub fn cell_count(&self) -> usize {
        match self {
            Content::Keys(k) => k.len(),
            Content::Range { count, .. } => *count as usize,
            Content::Interior { keys, .. } => keys.len(),
            Content::Free => 0,
        }
    }

    /// Whether the page is a leaf.
    pub fn is_leaf(&self) -> bool {
        matches!(self, Content::Keys(_) | Content::Range { .. })
    }
}

/// Every page of one database file, and the cache in front of it.
#[derive(Debug)]
pub struct Pager {
    /// Page size, bytes.
    pub page_size: u32,
    /// Page contents by page number (index 0 unused; page 1 is the schema page).
    pub pages: Vec<Content>,
    /// Bytes used by each page's cells and cell pointers.
    pub used: Vec<u32>,
    /// Freed pages, reused before the file grows.
    pub freelist: Vec<u32>,
    /// The page cache.
    pub cache: PageCache,
    /// Pages added by splits so far.
    pub splits: u64,
    /// Inserts so far whose leaf was not the previous insert's into the same tree.
    pub leaf_jumps: u64,
    /// Whether new leaves are kept as ranges (bounded mode).
    pub bounded: bool,
}

impl Pager {
    /// A database with only page 1 (the schema), and a cache of `cache_pages` pages.
    pub fn new(page_size: u32, cache_pages: u64, bounded: bool) -> Self {
        let mut pager = Pager {
            page_size,
            pages: vec![Content::Free, Content::Keys(Vec::new())],
            used: vec![0, 0],
            freelist: Vec::new(),
            cache: PageCache::new(cache_pages),
            splits: 0,
            leaf_jumps: 0,
            bounded,
        };
        pager.cache.fetch(1, false);
        pager
    }

    /// Pages in the file.
    pub fn page_count(&self) -> u64 {
        self.pages.len() as u64 - 1
    }

    /// An empty leaf for a new tree's root (created before the run, so it is clean in cache).
    pub fn create_root(&mut self) -> u32 {
        let pgno = self.pages.len() as u32;
        self.pages.push(self.empty_leaf());
        self.used.push(0);
        self.cache.fetch(pgno, false);
        pgno
    }

    fn empty_leaf(&self) -> Content {
        if self.bounded { Content::Range { count: 0, lo: 0, hi: 0 } } else { Content::Keys(Vec::new()) }
    }

    /// Allocates a page (from the freelist, else at the end of the file) and marks it dirty.
    /// Growing the file also rewrites page 1, whose header holds the database size.
    pub fn allocate(&mut self) -> u32 {
        if let Some(pgno) = self.freelist.pop() {
            self.cache.write(pgno, true);
            return pgno;
        }
        let pgno = self.pages.len() as u32;
        self.pages.push(Content::Free);
        self.used.push(0);
        self.cache.write(pgno, false);
        self.cache.write(1, true);
        pgno
    }

    /// Returns `pgno` to the freelist.
    pub fn free(&mut self, pgno: u32) {
        self.pages[pgno as usize] = Content::Free;
        self.used[pgno as usize] = 0;
        self.freelist.push(pgno);
        self.cache.write(1, true);
    }

    /// Bytes available for cells and pointers on a leaf or interior page.
    pub fn usable(&self, leaf: bool) -> u32 {
        self.page_size - if leaf { LEAF_HEADER } else { INTERIOR_HEADER }
    }

    /// Whether `pgno` must be balanced: it overflows, or (not a leaf being inserted into) more
    /// than two thirds of it is free (`balance()` in btree.c).
    pub fn needs_balance(&self, pgno: u32) -> bool {
        let leaf = self.pages[pgno as usize].is_leaf();
        let used = self.used[pgno as usize];
        let usable = self.usable(leaf);
        used > usable || (usable - used) * 3 > self.page_size * 2
    }

    /// Memory the model's pages use, bytes (approximate: vectors' capacities).
    pub fn memory_bytes(&self) -> u64 {
        let mut bytes = (self.pages.capacity() * std::mem::size_of::<Content>()
            + self.used.capacity() * 4
            + self.freelist.capacity() * 4) as u64;
        for p in &self.pages {
            bytes += match p {
                Content::Keys(k) => k.capacity() as u64 * 16,
                Content::Interior { keys, children } => keys.capacity() as u64 * 16 + children.capacity() as u64 * 4,
                _ => 0,
            };
        }
        bytes + self.cache.memory_bytes()
    }
}

/// One B-tree in the file.
#[derive(Debug)]
pub struct BTree {
    /// Cell sizes and kind.
    pub layout: TreeLayout,
    /// Root page number (never changes).
    pub root: u32,
    /// Interior pages from the root to the current leaf, with the child index taken.
    pub(super) path: Vec<(u32, usize)>,
    /// The leaf the last insert went to.
    last_leaf: u32,
    /// The cell lists of the last balance, kept for their memory.
    pub(super) listed: Listed,
    /// The descents [`BTree::warm`] found for the group of keys about to be inserted.
    descents: Descents,
    /// Balances so far: a descent found before the last one may have moved.
    balances: u64,
}

impl BTree {
    /// A new empty tree in `pager`.
    pub fn create(pager: &mut Pager, layout: TreeLayout) -> Self {
        let root = pager.create_root();
        BTree {
            layout,
            root,
            path: Vec::with_capacity(8),
            last_leaf: 0,
            listed: Listed::default(),
            descents: Descents::default(),
            balances: 0,
        }
    }

    /// Inserts `key` (`rowid` sizes records that carry the rowid), as `sqlite3BtreeInsert`
    /// does: descend from the root, add the cell to the leaf, balance if it overflows.
    pub fn insert(&mut self, pager: &mut Pager, key: u128, rowid: i64) {
        self.path.clear();
        let mut pgno = self.root;
        match self.descents.take(key, self.balances) {
            // The pages a descent reads, in the same order, without searching them again.
            Some(descent) => {
                for (page, i) in descent.path() {
                    pager.cache.fetch(page, true);
                    self.path.push((page, i));
                }
                pgno = descent.leaf;
                pager.cache.fetch(pgno, true);
            }
            None => loop {
                pager.cache.fetch(pgno, true);
                match &pager.pages[pgno as usize] {
                    Content::Interior { keys, children } => {
                        let i = search::below(keys, key);
                        self.path.push((pgno, i));
                        pgno = children[i];
                    }
                    _ => break,
                }
            },
        }
        pager.cache.write(pgno, true);
        if pgno != self.last_leaf {
            self.last_leaf = pgno;
            pager.leaf_jumps += 1;
        }
        let size = self.layout.leaf_cell(key, rowid) + CELL_POINTER;
        let at_end = match &mut pager.pages[pgno as usize] {
            Content::Keys(keys) => {
                let i = search::below(keys, key);
                keys.insert(i, key);
                i + 1 == keys.len()
            }
            Content::Range { count, lo, hi } => {
                let at_end = *count == 0 || key > *hi;
                if *count == 0 {
                    (*lo, *hi) = (key, key);
                } else {
                    *lo = (*lo).min(key);
                    *hi = (*hi).max(key);
                }
                *count += 1;
                at_end
            }
            _ => false,
        };
        pager.used[pgno as usize] += size;
        if pager.used[pgno as usize] > pager.usable(true) {
            self.balances += 1;
            self.balance(pager, pgno, at_end, rowid);
        }
    }

    /// Asks for the cache lines that inserting `keys` (at most [`AHEAD`]) will read, one
    /// level of all of them at a time (see [`crate::predict::server::tree::Tree::warm`]), and
    /// keeps each key's descent for its insert, which takes it as long as no balance has moved
    /// the tree since. Changes no page.
    pub fn warm(&mut self, pager: &Pager, keys: &[u128]) {
        let keys = &keys[..keys.len().min(AHEAD)];
        let mut pages = [self.root; AHEAD];
        let pages = &mut pages[..keys.len()];
        self.descents.start(keys, self.balances);
        loop {
            for &pgno in pages.iter() {
                prefetch::line(&pager.pages[pgno as usize]);
                prefetch::line(&pager.used[pgno as usize]);
                pager.cache.prefetch(pgno);
            }
            for &pgno in pages.iter() {
                if let Content::Interior { keys, .. } | Content::Keys(keys) = &pager.pages[pgno as usize] {
                    prefetch::ends(keys);
                }
            }
            let mut interior = false;
            for (&pgno, &key) in pages.iter().zip(keys) {
                match &pager.pages[pgno as usize] {
                    Content::Interior { keys, children } => {
                        interior = true;
                        prefetch::place(keys, key, Some(children));
                    }
                    Content::Keys(keys) => prefetch::place(keys, key, None),
                    _ => {}
                }
            }
            if !interior {
                self.descents.reached(pages);
                return;
            }
            for (k, (pgno, &key)) in pages.iter_mut().zip(keys).enumerate() {
                if let Content::Interior { keys, children } = &pager.pages[*pgno as usize] {
                    let i = search::below(keys, key);
                    self.descents.step(k, *pgno, i);
                    *pgno = children[i];
                }
            }
        }
    }

    /// Entries in the tree: leaf cells, plus interior cells of index trees (which are entries).
    pub fn entries(&self, pager: &Pager) -> u64 {
        let mut n = 0;
        self.walk(pager, &mut |_, c| {
            if c.is_leaf() || self.layout.kind == TreeKind::Index {
                n += c.cell_count() as u64;
            }
        });
        n
    }

    /// Visits every page in key order (interior page before its children).
    fn walk(&self, pager: &Pager, visit: &mut dyn FnMut(u32, &Content)) {
        let mut stack = vec![self.root];
        while let Some(pgno) = stack.pop() {
            let content = &pager.pages[pgno as usize];
            visit(pgno, content);
            if let Content::Interior { children, .. } = content {
                stack.extend(children.iter().rev());
            }
        }
    }

    /// Physical statistics as `dbstat` would report them (see `engines::sqlite::btree_stats`).
    pub fn stats(&self, pager: &Pager) -> BtreeStats {
        let (mut pages, mut leaves, mut fill, mut backward) = (0u64, 0u64, 0f64, 0u64);
        let mut last_leaf: Option<u32> = None;
        let page_size = f64::from(pager.page_size);
        self.walk(pager, &mut |pgno, c| {
            pages += 1;
            if c.is_leaf() {
                leaves += 1;
                fill += f64::from(LEAF_HEADER + pager.used[pgno as usize]) / page_size;
                if last_leaf.is_some_and(|prev| pgno < prev) {
                    backward += 1;
                }
                last_leaf = Some(pgno);
            }
        });
        let share = |n: f64, d: u64| if d == 0 { 0.0 } else { n / d as f64 };
        BtreeStats {
            key_share: None,
            misses_per_1k_rows: None,
            index_blocks_touched_per_1k_rows: None,
            name: self.layout.name.clone(),
            kind: match self.layout.kind {
                TreeKind::Table if self.layout.key_is_rowid() => "table".into(),
                TreeKind::Index if self.layout.name.starts_with("sqlite_autoindex") => "index".into(),
                _ => "table".into(),
            },
            pages,
            leaf_pages: leaves,
            leaf_fill: share(fill, leaves),
            leaf_out_of_order: share(backward as f64, leaves.saturating_sub(1)),
            size_bytes: pages * u64::from(pager.page_size),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::predict::layout::TreeKind;

    /// A tree whose groups of keys are warmed before they are inserted (the inserts taking the
    /// descents found, between balances) ends with the same pages, and its cache with the same
    /// counts, as one that searches every page at every insert, in both leaf modes; a key
    /// warmed but not inserted leaves the next key's descent to it.
    #[test]
    fn warmed_descents_give_the_pages_a_fresh_search_gives() {
        for bounded in [false, true] {
            let layout = TreeLayout::with_record("i", TreeKind::Index, false, 20, false);
            let (mut cold, mut warm) = (Pager::new(4096, 50, bounded), Pager::new(4096, 50, bounded));
            let mut cold_tree = BTree::create(&mut cold, layout.clone());
            let mut warm_tree = BTree::create(&mut warm, layout);
            let mut x: u64 = 11;
            for group in 0..2_000 {
                let keys: Vec<u128> = (0..AHEAD)
                    .map(|_| {
                        x = x.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
                        u128::from(x) << 64 | u128::from(x >> 7)
                    })
                    .collect();
                warm_tree.warm(&warm, &keys);
                for (i, &k) in keys.iter().enumerate() {
                    if group % 7 == 0 && i == 3 {
                        continue;
                    }
                    cold_tree.insert(&mut cold, k, 0);
                    warm_tree.insert(&mut warm, k, 0);
                }
                assert_eq!(cold.cache.take_counts(), warm.cache.take_counts(), "bounded {bounded}, group {group}");
            }
            assert!(cold_tree.balances > 100, "{} balances", cold_tree.balances);
            assert_eq!(cold.pages, warm.pages, "bounded {bounded}");
            assert_eq!((cold.splits, cold.leaf_jumps), (warm.splits, warm.leaf_jumps), "bounded {bounded}");
        }
    }
}
