//! A B+tree whose overflowing page splits in two, as PostgreSQL's nbtree and InnoDB's B-tree
//! do (SQLite's `balance_nonroot` redistributes among three siblings instead; see
//! `predict::balance`). Every page keeps its keys, so where a split falls, how full each half
//! is and which pages an insert touches follow from the real key stream. What differs between
//! the engines — entry sizes, when a page is full, where it splits — is a [`SplitRules`].

use super::ServerKey;
use crate::keys::KeyRow;
use crate::predict::descent::Descents;
use crate::predict::prefetch::{self, AHEAD};
use crate::predict::search;
use crate::results::BtreeStats;

/// "No page": the right sibling of the rightmost page of a level.
pub const NO_PAGE: u32 = u32::MAX;

/// One page of a tree (or, with no keys, a heap page that only occupies a page number).
#[derive(Clone, Debug, Default)]
pub struct Node {
    /// 0 for leaves; the root has the highest level.
    pub level: u8,
    /// Leaf: the keys, sorted. Interior: each child's lower bound; the first is "minus
    /// infinity" (PostgreSQL's truncated first pivot, InnoDB's `REC_INFO_MIN_REC_FLAG` record).
    pub keys: Vec<u128>,
    /// Interior: the child page of each key.
    pub children: Vec<u32>,
    /// Right sibling on the same level, or [`NO_PAGE`].
    pub next: u32,
    /// The entry inserted last, reset on the half of a split the new entry did not go to
    /// (InnoDB's `PAGE_LAST_INSERT`, which its split heuristics read).
    pub last_insert: Option<u128>,
}

impl Node {
    /// Entries on the page.
    pub fn len(&self) -> usize {
        self.keys.len()
    }

    /// Whether the page holds no entry.
    pub fn is_empty(&self) -> bool {
        self.keys.is_empty()
    }

    /// Whether the page is a leaf.
    pub fn is_leaf(&self) -> bool {
        self.level == 0
    }

    /// Whether the page is the last of its level (PostgreSQL: has no high key).
    pub fn is_rightmost(&self) -> bool {
        self.next == NO_PAGE
    }
}

/// Every page of one simulated database, by page number (numbers are handed out in allocation
/// order, so "earlier in the file" is "smaller number" within one relation).
#[derive(Debug, Default)]
pub struct Store {
    /// Pages by number.
    pub nodes: Vec<Node>,
}

impl Store {
    /// Adds `node` and returns its page number.
    pub fn alloc(&mut self, node: Node) -> u32 {
        self.nodes.push(node);
        (self.nodes.len() - 1) as u32
    }

    /// Memory the pages use, bytes (approximate: vectors' capacities).
    pub fn memory_bytes(&self) -> u64 {
        let mut bytes = (self.nodes.capacity() * std::mem::size_of::<Node>()) as u64;
        for n in &self.nodes {
            bytes += n.keys.capacity() as u64 * 16 + n.children.capacity() as u64 * 4;
        }
        bytes
    }
}

/// The buffer cache in front of the pages.
pub trait Buffers {
    /// Requests `page`; `new` for a page just allocated (not read from disk).
    fn fetch(&mut self, page: u32, new: bool);
    /// Marks the cached `page` modified; `image_bytes` is what a full-page image of it would
    /// hold (engines that log page images use it).
    fn modify(&mut self, page: u32, image_bytes: u32);
    /// Asks the processor for the cache line of `page`'s bookkeeping, which a fetch of it
    /// will read (see [`Tree::warm`]).
    fn prefetch(&self, _page: u32) {}
}

/// How an engine sizes pages and chooses split points.
pub trait SplitRules {
    /// Whether `node` takes one more entry at position `pos` without splitting.
    fn fits(&self, node: &Node, pos: usize) -> bool;
    /// Where `node` splits when entry `key` is added at `pos`: of the `len() + 1` entries (the
    /// new one at `pos`), the first `s` stay on the left page and the rest move to a new right
    /// page (`1 <= s <= len()`).
    fn split_at(&self, node: &Node, pos: usize, key: u128) -> usize;
    /// Bytes a full-page image of `node` holds (headers and entries, not the free space).
    fn image_bytes(&self, node: &Node) -> u32;
    /// The share of `node` in use, as the engine's own statistics report it.
    fn fill(&self, node: &Node) -> f64;
}

/// What one insert did to the tree's shape.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Shape {
    /// Pages split (each adds one page).
    pub splits: u32,
    /// Entries moved to new right pages by those splits.
    pub moved: u32,
    /// Of `splits`, splits of interior pages.
    pub interior_splits: u32,
    /// New roots (each adds one more page).
    pub new_roots: u32,
}

/// Inserts `value` at `pos`, growing a full vector by an eighth rather than doubling it: a
/// model keeps every key of tens of millions of rows, and pages' vectors that doubled would
/// hold up to twice the keys' bytes.
fn insert_tight<T>(values: &mut Vec<T>, pos: usize, value: T) {
    if values.len() == values.capacity() {
        values.reserve_exact(values.len() / 8 + 4);
    }
    values.insert(pos, value);
}

/// The keys of `node` a descent searches: past the first `skip`.
fn searched(node: &Node, skip: usize) -> &[u128] {
    &node.keys[skip.min(node.keys.len())..]
}

/// One B+tree: a root and the rules of its engine.
#[derive(Debug)]
pub struct Tree<R> {
    /// Name as the engine reports it (`bench_pkey`, `PRIMARY`, …).
    pub name: String,
    /// `table` for a clustered index, `index` otherwise.
    pub kind: &'static str,
    /// Root page (moves up when the root splits).
    pub root: u32,
    /// The engine's sizes and split rules.
    pub rules: R,
    /// PostgreSQL's rightmost-leaf fast path (`_bt_search_insert`): appends go straight to the
    /// cached rightmost leaf without descending, once the tree has two levels above the leaves.
    pub fastpath: bool,
    cached_leaf: u32,
    path: Vec<(u32, usize)>,
    /// Inserts so far whose leaf was not the previous insert's.
    pub leaf_jumps: u64,
    last_leaf: u32,
    pages: u64,
    /// The descents [`Tree::warm`] found for the group of keys about to be inserted.
    descents: Descents,
    /// Splits so far: a descent found before the last one may have moved.
    splits: u64,
}

impl<R: SplitRules> Tree<R> {
    /// A tree with one empty leaf as its root, created before the run (cached, clean).
    pub fn create(store: &mut Store, buffers: &mut dyn Buffers, name: &str, kind: &'static str, rules: R) -> Self {
        let root = store.alloc(Node { next: NO_PAGE, ..Node::default() });
        buffers.fetch(root, true);
        Tree {
            name: name.into(),
            kind,
            root,
            rules,
            fastpath: false,
            cached_leaf: NO_PAGE,
            path: Vec::with_capacity(8),
            leaf_jumps: 0,
            last_leaf: NO_PAGE,
            pages: 1,
            descents: Descents::default(),
            splits: 0,
        }
    }

    /// Inserts `key`: descend (or take the fast path), add it to its leaf, split upwards.
    pub fn insert(&mut self, store: &mut Store, buffers: &mut dyn Buffers, key: u128) -> Shape {
        self.path.clear();
        let warmed = self.descents.take(key, self.splits);
        if self.cached_leaf != NO_PAGE {
            let leaf = self.cached_leaf;
            self.cached_leaf = NO_PAGE;
            buffers.fetch(leaf, false);
            let n = &store.nodes[leaf as usize];
            // `_bt_search_insert`: still the rightmost leaf, room to spare, key above its first.
            // The key's place on the page is searched as on any other (`_bt_binsrch_insert`).
            let pos = search::below(&n.keys, key);
            if n.is_rightmost() && n.keys.first().is_some_and(|k| *k < key) && self.rules.fits(n, pos) {
                self.note_leaf(leaf);
                return self.add(store, buffers, leaf, pos, key, NO_PAGE);
            }
        }
        let mut page = self.root;
        match warmed {
            // The pages a descent reads, in the same order, without searching them again.
            Some(descent) => {
                for (interior, i) in descent.path() {
                    buffers.fetch(interior, false);
                    self.path.push((interior, i));
                }
                page = descent.leaf;
                buffers.fetch(page, false);
            }
            None => loop {
                buffers.fetch(page, false);
                let n = &store.nodes[page as usize];
                if n.is_leaf() {
                    break;
                }
                // The last child whose lower bound is <= key (the first bound is minus infinity).
                let i = search::at_most(&n.keys[1..], key);
                self.path.push((page, i));
                page = n.children[i];
            },
        }
        let pos = search::below(&store.nodes[page as usize].keys, key);
        self.note_leaf(page);
        self.add(store, buffers, page, pos, key, NO_PAGE)
    }

    fn note_leaf(&mut self, leaf: u32) {
        if leaf != self.last_leaf {
            self.last_leaf = leaf;
            self.leaf_jumps += 1;
        }
    }

    /// Adds `key` (with `child` on interior pages) at `pos` of `page`, splitting up the path.
    fn add(
        &mut self,
        store: &mut Store,
        buffers: &mut dyn Buffers,
        mut page: u32,
        mut pos: usize,
        mut key: u128,
        mut child: u32,
    ) -> Shape {
        let mut shape = Shape::default();
        let mut depth = self.path.len();
        loop {
            let node = &store.nodes[page as usize];
            if self.rules.fits(node, pos) {
                let leaf = node.is_leaf();
                let node = &mut store.nodes[page as usize];
                insert_tight(&mut node.keys, pos, key);
                if !leaf {
                    insert_tight(&mut node.children, pos, child);
                }
                node.last_insert = Some(key);
                let rightmost = node.is_rightmost();
                buffers.modify(page, self.rules.image_bytes(&store.nodes[page as usize]));
                if leaf && self.fastpath && shape.splits == 0 && rightmost && self.height(store) >= 2 {
                    self.cached_leaf = page;
                }
                return shape;
            }
            let s = self.rules.split_at(node, pos, key);
            let node = &mut store.nodes[page as usize];
            let (level, leaf) = (node.level, node.is_leaf());
            insert_tight(&mut node.keys, pos, key);
            if !leaf {
                insert_tight(&mut node.children, pos, child);
            }
            let keys = node.keys.split_off(s);
            let children = if leaf { Vec::new() } else { node.children.split_off(s) };
            // The left half keeps the full page's allocation unless given back.
            node.keys.shrink_to_fit();
            node.children.shrink_to_fit();
            let on_left = pos < s;
            node.last_insert = on_left.then_some(key);
            let old_next = node.next;
            let separator = keys[0];
            shape.splits += 1;
            self.splits += 1;
            self.pages += 1;
            shape.moved += keys.len() as u32;
            shape.interior_splits += u32::from(!leaf);
            let right =
                store.alloc(Node { level, keys, children, next: old_next, last_insert: (!on_left).then_some(key) });
            store.nodes[page as usize].next = right;
            buffers.fetch(right, true);
            buffers.modify(right, self.rules.image_bytes(&store.nodes[right as usize]));
            buffers.modify(page, self.rules.image_bytes(&store.nodes[page as usize]));
            if old_next != NO_PAGE {
                // The old right sibling's left link now points to the new page.
                buffers.fetch(old_next, false);
                buffers.modify(old_next, self.rules.image_bytes(&store.nodes[old_next as usize]));
            }
            if depth == 0 {
                let root = store.alloc(Node {
                    level: level + 1,
                    keys: vec![0, separator],
                    children: vec![page, right],
                    next: NO_PAGE,
                    last_insert: Some(separator),
                });
                buffers.fetch(root, true);
                buffers.modify(root, self.rules.image_bytes(&store.nodes[root as usize]));
                self.root = root;
                self.pages += 1;
                shape.new_roots += 1;
                return shape;
            }
            depth -= 1;
            let (parent, i) = self.path[depth];
            (page, pos, key, child) = (parent, i + 1, separator, right);
            buffers.fetch(page, false);
        }
    }

    /// Asks for the cache lines that inserting `keys` (at most [`AHEAD`]) will read, one
    /// level of all of them at a time, changing no page. A random key's descent waits on main
    /// memory at every page, one page after the other; asking for the keys' pages at one level
    /// together lets those waits overlap, and the inserts that follow find their pages, the
    /// buffer pool's entries for them and the leaf entries they move in the processor's caches.
    /// Each key's descent is kept for its insert, which takes it as long as no split has moved
    /// the tree since.
    pub fn warm(&mut self, store: &Store, buffers: &dyn Buffers, keys: &[u128]) {
        let keys = &keys[..keys.len().min(AHEAD)];
        let mut pages = [self.root; AHEAD];
        let pages = &mut pages[..keys.len()];
        self.descents.start(keys, self.splits);
        for level in (0..=self.height(store)).rev() {
            for &page in pages.iter() {
                prefetch::line(&store.nodes[page as usize]);
                buffers.prefetch(page);
            }
            // Interior pages search their keys past the first (minus infinity).
            let skip = usize::from(level > 0);
            for &page in pages.iter() {
                prefetch::ends(searched(&store.nodes[page as usize], skip));
            }
            for (&page, &key) in pages.iter().zip(keys) {
                let n = &store.nodes[page as usize];
                // A descent takes the child at the number of searched keys at or below the key.
                prefetch::place(searched(n, skip), key, (level > 0).then_some(&n.children[..]));
            }
            if level > 0 {
                for (k, (page, &key)) in pages.iter_mut().zip(keys).enumerate() {
                    let n = &store.nodes[*page as usize];
                    let i = search::at_most(&n.keys[1..], key);
                    self.descents.step(k, *page, i);
                    *page = n.children[i];
                }
            }
        }
        self.descents.reached(pages);
    }

    /// [`Tree::warm`] for `rows`, whose keys in this tree are `key`'s values, the first row
    /// being the `first`th inserted.
    pub fn warm_rows(&mut self, store: &Store, buffers: &dyn Buffers, key: ServerKey, rows: &[KeyRow], first: u64) {
        let mut keys = [0u128; AHEAD];
        for ((k, row), rowid) in keys.iter_mut().zip(rows).zip(first..) {
            *k = key.value(row, rowid as i64);
        }
        self.warm(store, buffers, &keys[..rows.len().min(AHEAD)]);
    }

    /// Pages in the tree, as [`Tree::stats`] counts them, without walking it: no page is ever
    /// freed, so each split and each new root adds one to the leaf a new tree starts with.
    pub fn pages(&self) -> u64 {
        self.pages
    }

    /// Levels above the leaves.
    pub fn height(&self, store: &Store) -> u8 {
        store.nodes[self.root as usize].level
    }

    /// The first page of each level, root level first.
    fn leftmost(&self, store: &Store) -> Vec<u32> {
        let mut out = vec![self.root];
        let mut page = self.root;
        while !store.nodes[page as usize].is_leaf() {
            page = store.nodes[page as usize].children[0];
            out.push(page);
        }
        out
    }

    /// Entries in the leaves.
    pub fn entries(&self, store: &Store) -> u64 {
        let mut page = *self.leftmost(store).last().unwrap_or(&self.root);
        let mut n = 0;
        while page != NO_PAGE {
            n += store.nodes[page as usize].len() as u64;
            page = store.nodes[page as usize].next;
        }
        n
    }

    /// Pages, leaf pages, leaf fill and leaves out of order, as the engine's own tools report
    /// them (`page_size` bytes per page).
    pub fn stats(&self, store: &Store, page_size: u32) -> BtreeStats {
        let (mut pages, mut leaves, mut fill, mut backward) = (0u64, 0u64, 0f64, 0u64);
        for first in self.leftmost(store) {
            let mut page = first;
            while page != NO_PAGE {
                let node = &store.nodes[page as usize];
                pages += 1;
                if node.is_leaf() {
                    leaves += 1;
                    fill += self.rules.fill(node);
                    if node.next != NO_PAGE && node.next < page {
                        backward += 1;
                    }
                }
                page = node.next;
            }
        }
        let share = |n: f64, d: u64| if d == 0 { 0.0 } else { n / d as f64 };
        BtreeStats {
            key_share: None,
            misses_per_1k_rows: None,
            index_blocks_touched_per_1k_rows: None,
            name: self.name.clone(),
            kind: self.kind.into(),
            pages,
            leaf_pages: leaves,
            leaf_fill: share(fill, leaves),
            leaf_out_of_order: share(backward as f64, leaves.saturating_sub(1)),
            size_bytes: pages * u64::from(page_size),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Four entries per page, split in the middle.
    struct Halves;
    impl SplitRules for Halves {
        fn fits(&self, node: &Node, _: usize) -> bool {
            node.len() < 4
        }
        fn split_at(&self, node: &Node, _: usize, _: u128) -> usize {
            node.len().div_ceil(2)
        }
        fn image_bytes(&self, node: &Node) -> u32 {
            node.len() as u32
        }
        fn fill(&self, node: &Node) -> f64 {
            node.len() as f64 / 4.0
        }
    }

    #[derive(Default)]
    struct Count(u64, u64);
    impl Buffers for Count {
        fn fetch(&mut self, _: u32, _: bool) {
            self.0 += 1;
        }
        fn modify(&mut self, _: u32, _: u32) {
            self.1 += 1;
        }
    }

    #[test]
    fn every_key_lands_once_in_order() {
        let mut store = Store::default();
        let mut buffers = Count::default();
        let mut tree = Tree::create(&mut store, &mut buffers, "t", "index", Halves);
        let mut x: u64 = 1;
        for _ in 0..1000 {
            x = x.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
            tree.insert(&mut store, &mut buffers, u128::from(x >> 16));
        }
        assert_eq!(tree.entries(&store), 1000);
        let mut page = *tree.leftmost(&store).last().unwrap();
        let mut last = 0;
        while page != NO_PAGE {
            for k in &store.nodes[page as usize].keys {
                assert!(*k >= last);
                last = *k;
            }
            page = store.nodes[page as usize].next;
        }
        let stats = tree.stats(&store, 8192);
        assert_eq!(tree.pages(), stats.pages);
        assert!(stats.leaf_fill > 0.5 && stats.leaf_fill <= 1.0, "{stats:?}");
        assert!(tree.height(&store) >= 4);
    }

    /// Every page fetched and modified, in order.
    #[derive(Default, PartialEq, Debug)]
    struct Log(Vec<(u32, bool)>);
    impl Buffers for Log {
        fn fetch(&mut self, page: u32, new: bool) {
            self.0.push((page, new));
        }
        fn modify(&mut self, page: u32, _: u32) {
            self.0.push((page, true));
        }
    }

    /// A tree whose groups of keys are warmed before they are inserted (the inserts taking the
    /// descents found, between splits) reads and writes the same pages in the same order, and
    /// ends the same, as one that searches every page at every insert; a key warmed but not
    /// inserted leaves the next key's descent to it.
    #[test]
    fn warmed_descents_give_the_pages_a_fresh_search_gives() {
        let (mut cold, mut warm) = (Store::default(), Store::default());
        let (mut cold_log, mut warm_log) = (Log::default(), Log::default());
        let mut cold_tree = Tree::create(&mut cold, &mut cold_log, "t", "index", Halves);
        let mut warm_tree = Tree::create(&mut warm, &mut warm_log, "t", "index", Halves);
        let mut x: u64 = 7;
        for group in 0..400 {
            let keys: Vec<u128> = (0..AHEAD)
                .map(|_| {
                    x = x.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
                    u128::from(x >> 16)
                })
                .collect();
            warm_tree.warm(&warm, &Count::default(), &keys);
            for (i, &k) in keys.iter().enumerate() {
                if group % 7 == 0 && i == 3 {
                    continue;
                }
                let shapes =
                    (cold_tree.insert(&mut cold, &mut cold_log, k), warm_tree.insert(&mut warm, &mut warm_log, k));
                assert_eq!(shapes.0, shapes.1);
            }
        }
        assert_eq!(cold_log, warm_log);
        assert_eq!(cold_tree.stats(&cold, 8192), warm_tree.stats(&warm, 8192));
        assert_eq!((cold_tree.leaf_jumps, cold_tree.root), (warm_tree.leaf_jumps, warm_tree.root));
    }
}
