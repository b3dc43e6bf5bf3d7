//! PostgreSQL's page layout (`bufpage.h`, `htup_details.h`, `itup.h`) and nbtree's split rule
//! (`nbtsplitloc.c`, `_bt_findsplitloc`), for the tables `engines::postgres::schema` creates.

use super::tree::{Node, SplitRules};

/// `BLCKSZ`.
pub const PAGE: u32 = 8192;
/// `SizeOfPageHeaderData`.
pub const PAGE_HEADER: u32 = 24;
/// `MAXALIGN(sizeof(BTPageOpaqueData))`: nbtree's special space.
pub const BT_SPECIAL: u32 = 16;
/// `sizeof(ItemIdData)`: a line pointer.
pub const LINE_POINTER: u32 = 4;
/// `sizeof(IndexTupleData)`.
pub const INDEX_TUPLE_HEADER: u32 = 8;
/// `SizeofHeapTupleHeader` (23), before `MAXALIGN`.
pub const HEAP_TUPLE_HEADER: u32 = 23;
/// Space for items on an nbtree page (`_bt_findsplitloc`'s `leftspace`/`rightspace` before
/// the high key).
pub const BT_ITEM_SPACE: u32 = PAGE - PAGE_HEADER - BT_SPECIAL;
/// `BTREE_DEFAULT_FILLFACTOR` (leaf pages of an index created without `fillfactor`).
pub const LEAF_FILLFACTOR: f64 = 0.90;
/// `BTREE_NONLEAF_FILLFACTOR`.
pub const NONLEAF_FILLFACTOR: f64 = 0.70;

/// `MAXALIGN` on 64-bit builds.
pub fn maxalign(n: u32) -> u32 {
    n.div_ceil(8) * 8
}

/// Sizes of one nbtree index's items, line pointer included.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Nbtree {
    /// A leaf tuple: `MAXALIGN(IndexTupleData + key)` + line pointer.
    pub leaf_item: u32,
    /// A pivot tuple (high key, downlink): the key without a heap TID (distinct keys never need
    /// one after suffix truncation, `_bt_truncate`), so the same size as a leaf tuple.
    pub pivot_item: u32,
    /// For an index of several columns: what suffix truncation and `_bt_afternewitemoff` see.
    pub composite: Option<Composite>,
}

/// What nbtree's split of a leaf of a composite index looks at. The model's keys hold the
/// indexed values' first 12 bytes above a 32-bit row number.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Composite {
    /// Bytes of the first attribute at the top of a key; `None`: up to and including its first
    /// zero byte (text).
    pub first_attr: Option<u8>,
    /// Heap TIDs by row number, where `_bt_afternewitemoff` applies: every tuple the same size
    /// and no wider than [`ORDINAL_MAX_ITEM`].
    pub tids: Option<HeapTids>,
}

/// Where each row's heap tuple is (block << 16 | offset), by row number (1, 2, …).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum HeapTids {
    /// Each row's TID, as a heap of rows of many sizes placed them (row 0 unused).
    Listed(std::rc::Rc<Vec<u64>>),
    /// A heap of this many rows a page, filled in the rows' order.
    Regular(u32),
}

impl HeapTids {
    /// Row `row`'s TID (0 for row 0, or one not placed).
    pub fn of(&self, row: u32) -> u64 {
        match self {
            HeapTids::Listed(tids) => tids.get(row as usize).copied().unwrap_or(0),
            HeapTids::Regular(_) if row == 0 => 0,
            HeapTids::Regular(per_page) => {
                let per_page = (*per_page).max(1);
                u64::from((row - 1) / per_page) << 16 | u64::from((row - 1) % per_page + 1)
            }
        }
    }
}

/// `MAXALIGN(sizeof(IndexTupleData) + sizeof(int64) * 2)` + a line pointer: the widest tuple
/// `_bt_afternewitemoff` takes for an ordinal key.
pub const ORDINAL_MAX_ITEM: u32 = 24 + LINE_POINTER;

/// `LEAF_SPLIT_DISTANCE` (PostgreSQL 13+): how far, as a share of the page's data, a leaf
/// split's free space may stray from the most balanced split's while it looks for the smallest
/// new high key.
const LEAF_SPLIT_DISTANCE: f64 = 0.05;

impl Composite {
    fn prefix(key: u128) -> [u8; 12] {
        let b = (key >> 32).to_be_bytes();
        let mut out = [0; 12];
        out.copy_from_slice(&b[4..]);
        out
    }

    /// `_bt_keep_natts_fast(lastleft, firstright)` for distinct keys: 1 where the first
    /// attribute differs, else 2.
    fn keep_natts(&self, left: u128, right: u128) -> usize {
        let (a, b) = (Self::prefix(left), Self::prefix(right));
        let n = match self.first_attr {
            Some(n) => usize::from(n).min(12),
            None => a.iter().position(|x| *x == 0).map_or(12, |i| i + 1),
        };
        if a[..n] == b[..n] { 2 } else { 1 }
    }

    /// `_bt_adjacenthtid`: the same heap block, or the next one's first tuple.
    fn adjacent(tids: &HeapTids, low: u128, high: u128) -> bool {
        let (low, high) = (tids.of(low as u32), tids.of(high as u32));
        low >> 16 == high >> 16 || (low >> 16) + 1 == high >> 16 && high & 0xffff == 1
    }
}

/// The "minus infinity" first item of an interior page: a pivot with no key attributes.
const MINUS_INFINITY_ITEM: u32 = INDEX_TUPLE_HEADER + LINE_POINTER;

impl Nbtree {
    /// Items of an index on a key of `key_bytes` stored bytes with `align` alignment.
    pub fn new(key_bytes: u32, align: u32) -> Self {
        let tuple = maxalign(INDEX_TUPLE_HEADER.div_ceil(align) * align + key_bytes);
        Nbtree { leaf_item: tuple + LINE_POINTER, pivot_item: tuple + LINE_POINTER, composite: None }
    }

    fn item(&self, node: &Node, i: usize) -> u32 {
        match (node.is_leaf(), i) {
            (true, _) => self.leaf_item,
            (false, 0) => MINUS_INFINITY_ITEM,
            (false, _) => self.pivot_item,
        }
    }

    /// `_bt_afternewitemoff` on a non-rightmost leaf: `Some(usemult)` where it applies — the
    /// tuple before the new one is of its group (and, unless the new tuple goes last on the page,
    /// its heap TID is next to the new one's) — `usemult` where splitting after the new tuple
    /// would be right of a leaf-fillfactor split.
    fn after_new_item(&self, node: &Node, pos: usize, key: u128) -> Option<bool> {
        let c = self.composite.as_ref()?;
        let tids = c.tids.as_ref()?;
        // `newitemoff == P_FIRSTKEY`: never an ascending pattern.
        let prev = *node.keys.get(pos.checked_sub(1)?)?;
        if c.keep_natts(prev, key) < 2 {
            return None;
        }
        let n = node.len();
        if pos == n {
            return Some(true);
        }
        if !Composite::adjacent(tids, prev, key) {
            return None;
        }
        // `newitemoff / (maxoff + 1)`, offsets counting the high key.
        let interp = (pos + 2) as f64 / (n + 2) as f64;
        Some(interp > LEAF_FILLFACTOR)
    }

    /// Every legal split point of `node` with a new entry at `pos`: `visit(s, leftfree,
    /// rightfree)` (`_bt_recsplitloc`).
    fn legal_splits(&self, node: &Node, pos: usize, mut visit: impl FnMut(usize, i32, i32)) {
        let n = node.len();
        let leaf = node.is_leaf();
        let rightspace = BT_ITEM_SPACE as i32 - if node.is_rightmost() { 0 } else { self.pivot_item as i32 };
        let leftspace = BT_ITEM_SPACE as i32;
        let new_size = if leaf { self.leaf_item } else { self.pivot_item } as i32;
        let size = |c: usize| -> i32 {
            // Size of entry `c` of the page with the new entry at `pos`.
            if c == pos { new_size } else { self.item(node, if c < pos { c } else { c - 1 }) as i32 }
        };
        let old_total: i32 = (0..n).map(|i| self.item(node, i) as i32).sum();
        let mut old_left = 0i32;
        for s in 1..=n {
            let prev = s - 1;
            if prev != pos {
                old_left += size(prev);
            }
            let new_on_left = pos < s;
            let first_right = size(s);
            let mut leftfree = leftspace - old_left;
            let mut rightfree = rightspace - (old_total - old_left);
            leftfree -= if leaf { first_right + 8 } else { first_right };
            if new_on_left {
                leftfree -= new_size;
            } else {
                rightfree -= new_size;
            }
            if !leaf {
                rightfree += first_right - MINUS_INFINITY_ITEM as i32;
            }
            if leftfree >= 0 && rightfree >= 0 {
                visit(s, leftfree, rightfree);
            }
        }
    }

    /// Bytes of items (line pointers included) on `node`, its high key included.
    pub fn used(&self, node: &Node) -> u32 {
        let data: u32 = match (node.is_leaf(), node.len()) {
            (_, 0) => 0,
            (true, n) => n as u32 * self.leaf_item,
            (false, n) => MINUS_INFINITY_ITEM + (n as u32 - 1) * self.pivot_item,
        };
        data + if node.is_rightmost() { 0 } else { self.pivot_item }
    }
}

impl SplitRules for Nbtree {
    /// `_bt_findinsertloc`: the page splits when `PageGetFreeSpace` (free bytes less one line
    /// pointer) is below the new tuple's size.
    fn fits(&self, node: &Node, _pos: usize) -> bool {
        let item = if node.is_leaf() { self.leaf_item } else { self.pivot_item };
        self.used(node) + item <= BT_ITEM_SPACE
    }

    /// `_bt_findsplitloc` for keys that are all distinct: every legal split point (both halves
    /// fit, the left one with room for a new high key as large as the first right tuple plus a
    /// heap TID on leaves), scored by `_bt_deltasortsplits`: on a rightmost page
    /// `|f·leftfree − (1−f)·rightfree|` with f = leaf fillfactor 90% (`BTREE_DEFAULT_FILLFACTOR`)
    /// or 70% on interior pages (`BTREE_NONLEAF_FILLFACTOR`), so the left page keeps ~f of the
    /// space; elsewhere `|leftfree − rightfree|`, a 50:50 split. `_bt_bestsplitloc` then takes
    /// the lowest delta (every candidate has the same suffix-truncation penalty with distinct
    /// keys). On leaves of a [`Composite`] index, the point among the well-balanced ones whose new high key
    /// keeps the fewest attributes wins (`_bt_bestsplitloc`); `_bt_afternewitemoff` sees
    /// ascending inserts within a group of the first attribute: the page splits right after the
    /// new tuple, or with the leaf fillfactor where that point is further right.
    fn split_at(&self, node: &Node, pos: usize, key: u128) -> usize {
        let (usemult, f) = match (node.is_leaf(), node.is_rightmost()) {
            (true, true) => (true, LEAF_FILLFACTOR),
            (false, true) => (true, NONLEAF_FILLFACTOR),
            (true, false) => match self.after_new_item(node, pos, key) {
                Some(true) => (true, LEAF_FILLFACTOR),
                Some(false) => {
                    // Split exactly after the new tuple, if that point is legal.
                    let mut legal = false;
                    self.legal_splits(node, pos, |s, _, _| legal |= s == pos + 1);
                    if legal {
                        return pos + 1;
                    }
                    (false, 0.5)
                }
                None => (false, 0.5),
            },
            (false, false) => (false, 0.5),
        };
        // (delta, split, leftfree, rightfree) of every legal split, most balanced first.
        let mut splits: Vec<(i32, usize, i32, i32)> = Vec::with_capacity(node.len());
        let mut old_total = 0;
        self.legal_splits(node, pos, |s, leftfree, rightfree| {
            // `delta` is an int16 in `_bt_deltasortsplits`: the product is truncated.
            let delta = if usemult {
                (f * f64::from(leftfree) - (1.0 - f) * f64::from(rightfree)) as i32
            } else {
                leftfree - rightfree
            }
            .abs();
            splits.push((delta, s, leftfree, rightfree));
        });
        splits.sort_by_key(|x| x.0);
        let Some(&(_, first, left0, right0)) = splits.first() else { return node.len().div_ceil(2).max(1) };
        match &self.composite {
            Some(c) if node.is_leaf() => {
                // `_bt_defaultinterval`: the splits, most balanced first, up to the first whose
                // free space on either side strays more than 5% of the page's data from the most
                // balanced one's.
                old_total += (0..node.len()).map(|i| self.item(node, i) as i32).sum::<i32>();
                let tolerance = (f64::from(old_total) * LEAF_SPLIT_DISTANCE) as i32;
                let within = |&(_, _, l, r): &(i32, usize, i32, i32)| {
                    (left0 - tolerance..=left0 + tolerance).contains(&l)
                        && (right0 - tolerance..=right0 + tolerance).contains(&r)
                };
                let interval = &splits[..splits.iter().position(|x| !within(x)).unwrap_or(splits.len()).max(1)];
                // `_bt_bestsplitloc`: within it, the point whose new high key keeps the fewest
                // attributes, stopping at the best the interval allows.
                let entry = |i: usize| match i.cmp(&pos) {
                    std::cmp::Ordering::Less => node.keys[i],
                    std::cmp::Ordering::Equal => key,
                    std::cmp::Ordering::Greater => node.keys[i - 1],
                };
                let penalty = |s: usize| c.keep_natts(entry(s - 1), entry(s));
                let lo = interval.iter().map(|x| x.1).min().unwrap_or(first);
                let hi = interval.iter().map(|x| x.1).max().unwrap_or(first);
                let perfect = c.keep_natts(entry(lo - 1), entry(hi));
                let mut best = (usize::MAX, first);
                for &(_, s, _, _) in interval {
                    let p = penalty(s);
                    if p < best.0 {
                        best = (p, s);
                    }
                    if p <= perfect {
                        break;
                    }
                }
                best.1
            }
            _ => first,
        }
    }

    /// The page's header, special space and items; the hole between them is left out of an
    /// image (`REGBUF_STANDARD`).
    fn image_bytes(&self, node: &Node) -> u32 {
        PAGE_HEADER + BT_SPECIAL + self.used(node)
    }

    /// `pgstatindex`'s `avg_leaf_density` for one page: `1 − PageGetFreeSpace / (pd_special −
    /// SizeOfPageHeaderData)`.
    fn fill(&self, node: &Node) -> f64 {
        let free = BT_ITEM_SPACE.saturating_sub(self.used(node) + LINE_POINTER);
        1.0 - f64::from(free) / f64::from(BT_ITEM_SPACE)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::predict::server::tree::NO_PAGE;

    fn leaf(n: usize, rightmost: bool) -> Node {
        Node { keys: (0..n as u128).collect(), next: if rightmost { NO_PAGE } else { 7 }, ..Node::default() }
    }

    #[test]
    fn a_full_rightmost_bigint_leaf_keeps_ninety_percent() {
        let t = Nbtree::new(8, 8);
        assert_eq!(t.leaf_item, 20);
        // 407 items of 20 bytes fit in 8152; the 408th splits the page.
        assert!(t.fits(&leaf(406, true), 406));
        assert!(!t.fits(&leaf(407, true), 407));
        let s = t.split_at(&leaf(407, true), 407, 407);
        assert_eq!(s, 366);
        let mut left = leaf(366, false);
        left.next = 9;
        assert!((t.fill(&left) - 0.90).abs() < 0.01, "{}", t.fill(&left));
    }

    #[test]
    fn other_leaves_split_in_half() {
        let t = Nbtree::new(16, 1);
        assert_eq!(t.leaf_item, 28);
        let n = leaf(290, false);
        assert!(!t.fits(&n, 100));
        let s = t.split_at(&n, 100, 100);
        assert!((145..=146).contains(&s), "{s}");
        // Text keys: 36 characters with a 1-byte varlena header, MAXALIGNed.
        assert_eq!(Nbtree::new(37, 1).leaf_item, 52);
    }

    /// A key of a composite index in the model's form: an 8-byte first attribute `group`, then
    /// `seq`, above the row number `row`.
    fn key(group: u64, seq: u32, row: u32) -> u128 {
        (u128::from(group) << 64) | (u128::from(seq) << 32) | u128::from(row)
    }

    fn composite(tids: Option<Vec<u64>>) -> Nbtree {
        let mut t = Nbtree::new(16, 8);
        t.composite =
            Some(Composite { first_attr: Some(8), tids: tids.map(|t| HeapTids::Listed(std::rc::Rc::new(t))) });
        t
    }

    #[test]
    fn a_regular_heap_places_rows_page_after_page() {
        let tids = HeapTids::Regular(20);
        assert_eq!((tids.of(0), tids.of(1), tids.of(20)), (0, 1, 20));
        assert_eq!((tids.of(21), tids.of(45)), (1 << 16 | 1, 2 << 16 | 5));
    }

    #[test]
    fn composite_leaves_split_at_a_group_boundary_or_after_an_ascending_group() {
        // 290 tuples of 28 bytes fill a leaf with a high key.
        let full = |groups: &dyn Fn(usize) -> u64| Node {
            keys: (0..290).map(|i| key(groups(i), i as u32, i as u32 + 1)).collect(),
            next: 7,
            ..Node::default()
        };
        // A boundary between groups four entries right of the middle (the new tuple at 10 counted):
        // the split takes it.
        let page = full(&|i| if i < 148 { 1 } else { 2 });
        let middle = Nbtree::new(16, 8).split_at(&page, 10, key(1, 5, 9999));
        assert_eq!(composite(None).split_at(&page, 10, key(1, 5, 9999)), 149, "middle {middle}");
        // Heap TIDs of rows 0–300, 20 a block.
        let tids: Vec<u64> = (0..=300).map(|r| (r / 20) << 16 | (r % 20 + 1)).collect();
        // Ten entries from the middle is still within 5% of the page's data of the most
        // balanced split (`_bt_defaultinterval`, PostgreSQL 13+); twenty is not.
        let page = full(&|i| if i < 155 { 1 } else { 2 });
        assert_eq!(composite(None).split_at(&page, 10, key(1, 5, 9999)), 156);
        let page = full(&|i| if i < 165 { 1 } else { 2 });
        assert_eq!(composite(None).split_at(&page, 10, key(1, 5, 9999)), middle);
        // The new tuple goes last on the page, after its own group: split with the fillfactor
        // (where tuples are of one narrow size, which `tids` being given stands for).
        let page = full(&|_| 1);
        let s = composite(Some(tids.clone())).split_at(&page, 290, key(1, 900, 9999));
        assert!((255..=265).contains(&s), "{s}");
        assert_eq!(composite(None).split_at(&page, 290, key(1, 900, 9999)), middle);
        // Inside the page, after a tuple of its group whose heap TID is next to it: split right
        // after the new tuple.
        let page = full(&|i| if i < 100 { 1 } else { 2 });
        assert_eq!(composite(Some(tids.clone())).split_at(&page, 100, key(1, 99, 100)), 101);
        // Not next to it: a 50:50 split, at the boundary if it is close enough.
        let far = composite(Some(tids)).split_at(&page, 100, key(1, 99, 300));
        assert!((140..=150).contains(&far), "{far}");
    }
}
