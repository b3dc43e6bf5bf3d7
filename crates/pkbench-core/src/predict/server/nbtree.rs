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
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Nbtree {
    /// A leaf tuple: `MAXALIGN(IndexTupleData + key)` + line pointer.
    pub leaf_item: u32,
    /// A pivot tuple (high key, downlink): the key without a heap TID (distinct keys never need
    /// one after suffix truncation, `_bt_truncate`), so the same size as a leaf tuple.
    pub pivot_item: u32,
}

/// The "minus infinity" first item of an interior page: a pivot with no key attributes.
const MINUS_INFINITY_ITEM: u32 = INDEX_TUPLE_HEADER + LINE_POINTER;

impl Nbtree {
    /// Items of an index on a key of `key_bytes` stored bytes with `align` alignment.
    pub fn new(key_bytes: u32, align: u32) -> Self {
        let tuple = maxalign(INDEX_TUPLE_HEADER.div_ceil(align) * align + key_bytes);
        Nbtree { leaf_item: tuple + LINE_POINTER, pivot_item: tuple + LINE_POINTER }
    }

    fn item(&self, node: &Node, i: usize) -> u32 {
        match (node.is_leaf(), i) {
            (true, _) => self.leaf_item,
            (false, 0) => MINUS_INFINITY_ITEM,
            (false, _) => self.pivot_item,
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
    /// single-column keys). `_bt_afternewitemoff` is skipped: it applies to multi-column indexes.
    fn split_at(&self, node: &Node, pos: usize) -> usize {
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
        let (usemult, f) = match (leaf, node.is_rightmost()) {
            (true, true) => (true, LEAF_FILLFACTOR),
            (false, true) => (true, NONLEAF_FILLFACTOR),
            _ => (false, 0.5),
        };
        let mut best: Option<(i32, usize)> = None;
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
            if leftfree < 0 || rightfree < 0 {
                continue;
            }
            // `delta` is an int16 in `_bt_deltasortsplits`: the product is truncated.
            let delta = if usemult {
                (f * f64::from(leftfree) - (1.0 - f) * f64::from(rightfree)) as i32
            } else {
                leftfree - rightfree
            }
            .abs();
            if best.is_none_or(|(d, _)| delta < d) {
                best = Some((delta, s));
            }
        }
        best.map_or(n.div_ceil(2).max(1), |(_, s)| s)
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
        let s = t.split_at(&leaf(407, true), 407);
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
        let s = t.split_at(&n, 100);
        assert!((145..=146).contains(&s), "{s}");
        // Text keys: 36 characters with a 1-byte varlena header, MAXALIGNed.
        assert_eq!(Nbtree::new(37, 1).leaf_item, 52);
    }
}
