//! SQLite's rebalancing after an insert, as in `btree.c` (3.4x):
//!
//! * `balance()`: a page that overflows (or, above the leaf, is more than 2/3 free) is
//!   rebalanced; then its parent is checked, up to the root.
//! * `balance_deeper()`: an overflowing root moves its content to a new child and becomes an
//!   interior page with that one child.
//! * `balance_quick()`: a rowid-table leaf that is its parent's right-most child and overflows
//!   by a cell appended at its end keeps all its cells, and the new cell alone goes to a new
//!   right sibling — why appends to an `INTEGER PRIMARY KEY` table leave leaves ~100% full.
//!   Index trees (`WITHOUT ROWID` tables) never take this path.
//! * `balance_nonroot()`: the page and up to two siblings (the page's left and right
//!   neighbours; the last three children if it is the right-most) are merged into one cell
//!   array, packed left to right as full as they fit, then cells are moved right until each
//!   right page is no emptier than its left neighbour. An index tree's dividers are entries
//!   and take part; a rowid table's leaf dividers are copies of rowids.

use super::cells::{Cells, Listed, Spread, spread};
use super::layout::CELL_POINTER;
use super::prefetch;
use super::tree::{BTree, Content, Pager};
use crate::predict::layout::TreeKind;

/// Most pages `balance_nonroot` can produce (NB + 2 with NB = 3).
const MAX_NEW: usize = 5;

impl BTree {
    /// Balances `pgno` (a leaf that just received a cell; `at_end` if at its end) and its
    /// ancestors, as `balance()` does.
    pub(super) fn balance(&mut self, pager: &mut Pager, pgno: u32, at_end: bool, rowid: i64) {
        let mut page = pgno;
        let mut level = self.path.len();
        let mut first = true;
        loop {
            let overflow = pager.used[page as usize] > pager.usable(pager.pages[page as usize].is_leaf());
            if level == 0 {
                if !overflow {
                    break;
                }
                let child = self.balance_deeper(pager, page);
                self.path.clear();
                self.path.push((page, 0));
                level = 1;
                page = child;
                continue;
            }
            if !first && !pager.needs_balance(page) {
                break;
            }
            let (parent, idx) = self.path[level - 1];
            pager.cache.write(parent, true);
            let parent_cells = pager.pages[parent as usize].cell_count();
            let table_leaf = self.layout.kind == TreeKind::Table && pager.pages[page as usize].is_leaf();
            if first && table_leaf && at_end && parent != 1 && idx == parent_cells {
                self.balance_quick(pager, parent, page, rowid);
            } else {
                self.balance_nonroot(pager, parent, idx, rowid);
            }
            first = false;
            page = parent;
            level -= 1;
        }
    }

    fn balance_deeper(&mut self, pager: &mut Pager, root: u32) -> u32 {
        let child = pager.allocate();
        let content = std::mem::replace(
            &mut pager.pages[root as usize],
            Content::Interior { keys: Vec::new(), children: vec![child] },
        );
        pager.pages[child as usize] = content;
        pager.used[child as usize] = pager.used[root as usize];
        pager.used[root as usize] = 0;
        pager.cache.write(root, true);
        child
    }

    fn balance_quick(&mut self, pager: &mut Pager, parent: u32, page: u32, rowid: i64) {
        let new = pager.allocate();
        let (moved, divider) = match &mut pager.pages[page as usize] {
            Content::Keys(keys) => {
                let moved = keys.pop().unwrap_or_default();
                (moved, keys.last().copied().unwrap_or(moved.saturating_sub(1)))
            }
            Content::Range { count, hi, .. } => {
                let moved = *hi;
                *count -= 1;
                *hi = moved.saturating_sub(1);
                (moved, *hi)
            }
            _ => return,
        };
        let size = self.layout.leaf_cell(moved, rowid) + CELL_POINTER;
        pager.used[page as usize] -= size;
        pager.pages[new as usize] =
            if pager.bounded { Content::Range { count: 1, lo: moved, hi: moved } } else { Content::Keys(vec![moved]) };
        pager.used[new as usize] = size;
        if let Content::Interior { keys, children } = &mut pager.pages[parent as usize] {
            keys.push(divider);
            children.push(new);
        }
        pager.used[parent as usize] += self.layout.interior_cell(divider, rowid) + CELL_POINTER;
        pager.splits += 1;
    }

    fn cell_size(&self, leaf: bool, key: u128, rowid: i64) -> u32 {
        CELL_POINTER + if leaf { self.layout.leaf_cell(key, rowid) } else { self.layout.interior_cell(key, rowid) }
    }

    fn balance_nonroot(&mut self, pager: &mut Pager, parent: u32, idx: usize, rowid: i64) {
        // The old siblings and the dividers between them, copied out of the parent.
        let mut old = [0u32; 3];
        let mut dividers = [0u128; 2];
        let (nx_div, n_old) = match &pager.pages[parent as usize] {
            Content::Interior { keys, children } => {
                let n = keys.len();
                let (nx_div, n_old) = if n < 2 {
                    (0, n + 1)
                } else if idx == 0 {
                    (0, 3)
                } else if idx == n {
                    (n - 2, 3)
                } else {
                    (idx - 1, 3)
                };
                old[..n_old].copy_from_slice(&children[nx_div..nx_div + n_old]);
                dividers[..n_old - 1].copy_from_slice(&keys[nx_div..nx_div + n_old - 1]);
                (nx_div, n_old)
            }
            _ => return,
        };
        let (old, dividers) = (&old[..n_old], &dividers[..n_old - 1]);
        // A sibling is seldom the page just inserted into: ask for all of them at once.
        for &p in old {
            prefetch::line(&pager.pages[p as usize]);
            prefetch::line(&pager.used[p as usize]);
            pager.cache.prefetch(p);
        }
        for &p in old {
            pager.cache.fetch(p, true);
        }
        let leaf = pager.pages[old[0] as usize].is_leaf();
        let siblings = Siblings { parent, nx_div, pages: old };
        if leaf
            && pager.bounded
            && let Some(spread) = Spread::of(pager, &self.layout, old, dividers, rowid)
        {
            self.share_out(pager, &siblings, &spread, leaf, rowid);
            return;
        }
        let mut listed = std::mem::take(&mut self.listed);
        self.list_cells(&mut listed, pager, old, dividers, leaf, rowid);
        self.share_out(pager, &siblings, &listed, leaf, rowid);
        self.listed = listed;
    }

    /// Packs `cells` into new siblings in place of the `old` ones, as `balance_nonroot` does.
    fn share_out(&self, pager: &mut Pager, siblings: &Siblings, cells: &impl Cells, leaf: bool, rowid: i64) {
        let leaf_data = leaf && self.layout.kind == TreeKind::Table;
        let usable = pager.usable(leaf) as i64;
        let Some(mut packing) = pack_left_to_right(cells, siblings.pages.len(), usable, leaf_data) else {
            return; // SQLite reports corruption here; cannot happen with valid sizes.
        };
        even_out_right(&mut packing, cells, leaf_data);
        self.write_siblings(pager, siblings, cells, &packing.cnt_new[..packing.k], leaf, rowid);
    }

    /// Lists the cells of the siblings `old`, in order, with the `dividers` from their parent
    /// between them where the tree keeps dividers as cells (index trees and interior pages).
    fn list_cells(&self, listed: &mut Listed, pager: &Pager, old: &[u32], dividers: &[u128], leaf: bool, rowid: i64) {
        listed.clear();
        let n_old = old.len();
        let leaf_data = leaf && self.layout.kind == TreeKind::Table;
        let spread_used = self.layout.sizes_vary_with_rowid();
        let Listed { cells, kids, sizes, cnt_old } = listed;
        for (i, &p) in old.iter().enumerate() {
            let first = cells.len();
            match &pager.pages[p as usize] {
                Content::Keys(k) => cells.extend_from_slice(k),
                Content::Range { count, lo, hi } => spread(cells, *count, *lo, *hi),
                Content::Interior { keys, children } => {
                    cells.extend_from_slice(keys);
                    kids.extend_from_slice(children);
                }
                Content::Free => {}
            }
            let n = (cells.len() - first) as u32;
            if spread_used && n > 0 {
                // Index entries that carry the rowid were sized with the rowid of their own
                // row; the page's used bytes keep that total, so share it out evenly.
                let used = pager.used[p as usize];
                sizes.extend((0..n).map(|j| used / n + u32::from(j < used % n)));
            } else {
                sizes.extend(cells[first..].iter().map(|&k| self.cell_size(leaf, k, rowid)));
            }
            cnt_old[i] = cells.len();
            if i + 1 < n_old && !leaf_data {
                let divider = dividers[i];
                cells.push(divider);
                sizes.push(self.cell_size(leaf, divider, rowid));
            }
        }
    }

    /// Writes the `cnt_new.len()` new siblings, their dividers into the parent, and frees or
    /// allocates pages as needed (new pages get ascending page numbers, as SQLite arranges).
    fn write_siblings(
        &self,
        pager: &mut Pager,
        siblings: &Siblings,
        cells: &impl Cells,
        cnt_new: &[usize],
        leaf: bool,
        rowid: i64,
    ) {
        let Siblings { parent, nx_div, pages: old } = *siblings;
        let k = cnt_new.len();
        let leaf_data = leaf && self.layout.kind == TreeKind::Table;
        let mut pgnos = [0u32; MAX_NEW];
        for (i, pgno) in pgnos[..k].iter_mut().enumerate() {
            *pgno = if i < old.len() { old[i] } else { pager.allocate() };
        }
        for &p in &old[k.min(old.len())..] {
            pager.free(p);
        }
        let pgnos = &mut pgnos[..k];
        pgnos.sort_unstable();
        let mut dividers = [0u128; MAX_NEW];
        let mut start = 0;
        for (i, &pgno) in pgnos.iter().enumerate() {
            let end = if i + 1 == k { cells.len() } else { cnt_new[i] };
            pager.pages[pgno as usize] = cells.page(start..end, leaf, pager.bounded);
            pager.used[pgno as usize] = cells.bytes(start..end) as u32;
            pager.cache.write(pgno, true);
            if i + 1 < k {
                dividers[i] = if leaf_data { cells.key(end - 1) } else { cells.key(end) };
                start = if leaf_data { end } else { end + 1 };
            }
        }
        let dividers = &dividers[..k.saturating_sub(1)];
        let mut removed = 0u32;
        let mut added = 0u32;
        if let Content::Interior { keys, children } = &mut pager.pages[parent as usize] {
            for key in keys.splice(nx_div..nx_div + old.len() - 1, dividers.iter().copied()) {
                removed += self.layout.interior_cell(key, rowid) + CELL_POINTER;
            }
            children.splice(nx_div..nx_div + old.len(), pgnos.iter().copied());
        }
        for &key in dividers {
            added += self.layout.interior_cell(key, rowid) + CELL_POINTER;
        }
        let used = &mut pager.used[parent as usize];
        *used = (*used + added).saturating_sub(removed);
        pager.splits += k.saturating_sub(old.len()) as u64;
    }
}

/// The siblings being balanced: `pages`, children `nx_div` onwards of `parent`.
struct Siblings<'a> {
    parent: u32,
    nx_div: usize,
    pages: &'a [u32],
}

/// How the cells are shared out among the `k` new siblings: each one's bytes and end.
struct Packing {
    sz_new: [i64; MAX_NEW + 1],
    cnt_new: [usize; MAX_NEW + 1],
    k: usize,
}

/// Packs the cells into as few siblings as hold them, left to right (`None` where SQLite would
/// report corruption: more than [`MAX_NEW`] siblings).
fn pack_left_to_right(cells: &impl Cells, n_old: usize, usable: i64, leaf_data: bool) -> Option<Packing> {
    let cnt_old = cells.cnt_old();
    let n_cell = cells.len();
    let mut sz_new = [0i64; MAX_NEW + 1];
    let mut cnt_new = [0usize; MAX_NEW + 1];
    let mut start = 0;
    for i in 0..n_old {
        sz_new[i] = cells.bytes(start..cnt_old[i]);
        cnt_new[i] = cnt_old[i];
        start = cnt_old[i] + usize::from(!leaf_data);
    }
    let sz = |j: usize| i64::from(cells.size(j));
    // Pack left to right.
    let mut k = n_old;
    let mut i = 0;
    while i < k {
        while sz_new[i] > usable {
            if i + 1 >= k {
                k = i + 2;
                if k > MAX_NEW {
                    return None;
                }
                sz_new[k - 1] = 0;
                cnt_new[k - 1] = n_cell;
            }
            let mut s = sz(cnt_new[i] - 1);
            sz_new[i] -= s;
            if !leaf_data {
                s = if cnt_new[i] < n_cell { sz(cnt_new[i]) } else { 0 };
            }
            sz_new[i + 1] += s;
            cnt_new[i] -= 1;
        }
        while cnt_new[i] < n_cell {
            let mut s = sz(cnt_new[i]);
            if sz_new[i] + s > usable {
                break;
            }
            sz_new[i] += s;
            cnt_new[i] += 1;
            if !leaf_data {
                s = if cnt_new[i] < n_cell { sz(cnt_new[i]) } else { 0 };
            }
            sz_new[i + 1] -= s;
        }
        if cnt_new[i] >= n_cell {
            k = i + 1;
        }
        i += 1;
    }
    Some(Packing { sz_new, cnt_new, k })
}

/// Moves cells right until each right sibling is no emptier than its left neighbour.
fn even_out_right(packing: &mut Packing, cells: &impl Cells, leaf_data: bool) {
    let Packing { sz_new, cnt_new, k } = packing;
    let k = *k;
    let sz = |j: usize| i64::from(cells.size(j));
    for i in (1..k).rev() {
        let mut sz_right = sz_new[i];
        let mut sz_left = sz_new[i - 1];
        let mut r = cnt_new[i - 1] as i64 - 1;
        let mut d = r + 1 - i64::from(leaf_data);
        while r >= 0 {
            // Sizes here include the 2-byte pointer; btree.c's szCell does not, hence the
            // adjusted comparison (szRight+szD+2 > szLeft-(szR+2) for inner pairs).
            let sz_r = sz(r as usize);
            let sz_d = sz(d as usize);
            let pad = if i == k - 1 { CELL_POINTER as i64 } else { 0 };
            if sz_right != 0 && sz_right + sz_d > sz_left - sz_r + pad {
                break;
            }
            sz_right += sz_d;
            sz_left -= sz_r;
            cnt_new[i - 1] = r as usize;
            r -= 1;
            d -= 1;
        }
        sz_new[i] = sz_right;
        sz_new[i - 1] = sz_left;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::predict::layout::{TreeLayout, int_key};

    /// A bounded pager holding `leaves` (count, lo, hi, used bytes) as pages 3, 4, …, beside a
    /// tree laid out as `layout`.
    fn pager_with(layout: &TreeLayout, leaves: &[(u32, u128, u128, u32)]) -> (Pager, BTree, Vec<u32>) {
        let mut pager = Pager::new(4096, 100, true);
        let tree = BTree::create(&mut pager, layout.clone());
        let old = leaves
            .iter()
            .map(|&(count, lo, hi, used)| {
                let pgno = pager.allocate();
                pager.pages[pgno as usize] = Content::Range { count, lo, hi };
                pager.used[pgno as usize] = used;
                pgno
            })
            .collect();
        (pager, tree, old)
    }

    /// Whether the spread of `leaves` reads as the cells `balance_nonroot` lists for them.
    fn assert_spread_is_listed(layout: &TreeLayout, leaves: &[(u32, u128, u128, u32)], dividers: &[u128]) {
        let (pager, tree, old) = pager_with(layout, leaves);
        let rowid = 1_000;
        let spread = Spread::of(&pager, layout, &old, dividers, rowid).expect("cells of one size per page");
        let mut listed = Listed::default();
        tree.list_cells(&mut listed, &pager, &old, dividers, true, rowid);
        assert_eq!(spread.len(), listed.len());
        assert_eq!(spread.cnt_old(), listed.cnt_old());
        for j in 0..listed.len() {
            assert_eq!((spread.key(j), spread.size(j)), (listed.key(j), listed.size(j)), "cell {j}");
        }
        for from in 0..=listed.len() {
            for to in from..=listed.len() {
                assert_eq!(spread.bytes(from..to), listed.bytes(from..to), "{from}..{to}");
                assert_eq!(spread.page(from..to, true, true), listed.page(from..to, true, true), "{from}..{to}");
            }
        }
    }

    #[test]
    fn a_spread_reads_as_the_listed_cells_of_index_and_table_leaves() {
        // An index without the rowid: cells of one size, dividers between the pages.
        let index = TreeLayout::with_record("i", TreeKind::Index, false, 20, false);
        assert_spread_is_listed(&index, &[(0, 0, 0, 0), (1, 5, 9, 23), (4, 100, 190, 92)], &[3, 50]);
        // An index whose entries carry their rows' rowids: each page's bytes shared out.
        let carrying = TreeLayout::with_record("i", TreeKind::Index, false, 20, true);
        assert_spread_is_listed(&carrying, &[(3, 10, 40, 70), (1, 50, 55, 25), (5, 100, 300, 119)], &[45, 60]);
        // A table: no dividers among the cells, and a one-key leaf whose bound is above its key.
        let table = TreeLayout::with_record("t", TreeKind::Table, true, 20, false);
        let k = int_key;
        assert_spread_is_listed(&table, &[(3, k(10), k(40), 0), (1, k(50), k(55), 0), (5, k(60), k(120), 0)], &[]);
    }

    #[test]
    fn table_leaves_whose_cells_differ_in_size_are_listed() {
        let table = TreeLayout::with_record("t", TreeKind::Table, true, 20, false);
        // Rowids up to 127 take one byte, from 128 two.
        let (pager, _, old) = pager_with(&table, &[(3, int_key(100), int_key(200), 0)]);
        assert!(Spread::of(&pager, &table, &old, &[], 1).is_none());
        // Both ends nine bytes, but not the keys between them.
        let (pager, _, old) = pager_with(&table, &[(3, int_key(-5), int_key(1 << 60), 0)]);
        assert!(Spread::of(&pager, &table, &old, &[], 1).is_none());
        assert_eq!(table.uniform_leaf_cell(int_key(-5), int_key(-1), 1), Some(table.leaf_cell(int_key(-3), 1)));
    }
}
