//! The cells of the pages being balanced (SQLite's `CellArray`: `b.apCell` and `b.szCell`), in
//! two forms that the balance reads alike ([`Cells`]):
//!
//! * [`Listed`]: every cell and its size written out, as `balance_nonroot` builds them. Exact
//!   leaves and interior pages take this form.
//! * [`Spread`]: a bounded model's leaves, each known by its key count and range, whose cells
//!   are stand-in keys spread evenly over the range. Each key and size is computed where the
//!   balance reads it. Most reads are near the new pages' edges, so a split does not write out
//!   three pages' worth of keys. The keys and sizes are the ones [`Listed`] would hold.

use super::layout::{CELL_POINTER, TreeKind, TreeLayout};
use super::tree::{Content, Pager};
use std::ops::Range;

/// What the balance reads of the cells it shares out among the new siblings.
pub(super) trait Cells {
    /// Cells, with the dividers where they take part.
    fn len(&self) -> usize;
    /// The key of cell `j`.
    fn key(&self, j: usize) -> u128;
    /// The size of cell `j`, with its 2-byte pointer.
    fn size(&self, j: usize) -> u32;
    /// The sizes of the cells in `range`, summed.
    fn bytes(&self, range: Range<usize>) -> i64;
    /// The cell count up to the end of each old sibling (its divider not included).
    fn cnt_old(&self) -> [usize; 3];
    /// A new sibling holding the cells in `range`: on an interior page, with the children
    /// around them.
    fn page(&self, range: Range<usize>, leaf: bool, bounded: bool) -> Content;
}

/// Every cell written out, with its size; interior pages' children beside them.
#[derive(Debug, Default)]
pub(super) struct Listed {
    /// The keys.
    pub cells: Vec<u128>,
    /// The children of interior pages' cells.
    pub kids: Vec<u32>,
    /// Each cell's size, with its 2-byte pointer.
    pub sizes: Vec<u32>,
    /// See [`Cells::cnt_old`].
    pub cnt_old: [usize; 3],
}

impl Listed {
    /// Empties the lists, keeping their memory for the next balance.
    pub fn clear(&mut self) {
        self.cells.clear();
        self.kids.clear();
        self.sizes.clear();
        self.cnt_old = [0; 3];
    }
}

impl Cells for Listed {
    fn len(&self) -> usize {
        self.cells.len()
    }

    fn key(&self, j: usize) -> u128 {
        self.cells[j]
    }

    fn size(&self, j: usize) -> u32 {
        self.sizes[j]
    }

    fn bytes(&self, range: Range<usize>) -> i64 {
        self.sizes[range].iter().map(|&s| i64::from(s)).sum()
    }

    fn cnt_old(&self) -> [usize; 3] {
        self.cnt_old
    }

    fn page(&self, range: Range<usize>, leaf: bool, bounded: bool) -> Content {
        let (start, end) = (range.start, range.end);
        if !leaf {
            Content::Interior { keys: self.cells[range].to_vec(), children: self.kids[start..=end].to_vec() }
        } else if bounded {
            range_page(self, range)
        } else {
            Content::Keys(self.cells[range].to_vec())
        }
    }
}

/// A bounded leaf holding `range`'s cells: their count, first and last key.
fn range_page(cells: &impl Cells, range: Range<usize>) -> Content {
    let lo = if range.start < cells.len() { cells.key(range.start) } else { 0 };
    let hi = if range.end > range.start { cells.key(range.end - 1) } else { lo };
    Content::Range { count: range.len() as u32, lo, hi }
}

/// Appends a bounded leaf's `count` stand-in keys, spread evenly from `lo` to `hi`: the keys
/// a [`Spread`] reads one at a time.
pub(super) fn spread(cells: &mut Vec<u128>, count: u32, lo: u128, hi: u128) {
    let run = Run::new(0, count, lo, hi, RunSizes::default());
    cells.extend((0..count as usize).map(|k| run.key(k)));
}

/// How a run's cells are sized.
#[derive(Clone, Copy, Debug)]
enum RunSizes {
    /// Every cell this many bytes.
    Same(u32),
    /// The page's `used` bytes shared out evenly (index entries that carry their own rows'
    /// rowids): cell `k` of `n` takes `used / n`, plus one for the first `used % n`.
    Shared {
        /// The page's used bytes.
        used: u32,
    },
}

impl Default for RunSizes {
    fn default() -> Self {
        RunSizes::Same(0)
    }
}

/// One old leaf's stand-in keys: `count` keys from `lo`, `step` apart, the last one `hi` (a
/// single key is `lo`).
#[derive(Clone, Copy, Debug, Default)]
struct Run {
    /// Index of the run's first cell among all the cells.
    start: usize,
    /// Keys on the page.
    count: u32,
    /// Smallest key.
    lo: u128,
    /// Largest key.
    hi: u128,
    /// Distance between neighbouring stand-in keys.
    step: u128,
    /// Each cell's size.
    sizes: RunSizes,
}

impl Run {
    /// The run of `count` keys from `lo` to `hi`, its first cell at `start`.
    fn new(start: usize, count: u32, lo: u128, hi: u128, sizes: RunSizes) -> Self {
        let step = if count > 1 { (hi - lo) / u128::from(count - 1) } else { 0 };
        Run { start, count, lo, hi, step, sizes }
    }

    /// Index of the cell after the run's last.
    fn end(&self) -> usize {
        self.start + self.count as usize
    }

    /// Key `k` of the run: `lo`, `lo + step`, …, and `hi` last.
    fn key(&self, k: usize) -> u128 {
        if k == 0 {
            self.lo
        } else if k + 1 == self.count as usize {
            self.hi
        } else {
            self.lo + self.step * k as u128
        }
    }

    /// Size of cell `k` of the run, with its pointer.
    fn size(&self, k: usize) -> u32 {
        match self.sizes {
            RunSizes::Same(size) => size,
            RunSizes::Shared { used } => used / self.count + u32::from((k as u32) < used % self.count),
        }
    }

    /// Summed sizes of the run's cells `k` in `from..to`.
    fn bytes(&self, from: usize, to: usize) -> i64 {
        let n = (to - from) as i64;
        match self.sizes {
            RunSizes::Same(size) => n * i64::from(size),
            RunSizes::Shared { used } => {
                let (each, extra) = (used / self.count, (used % self.count) as usize);
                // The cells below `extra` take one byte more.
                n * i64::from(each) + to.min(extra).saturating_sub(from) as i64
            }
        }
    }
}

/// Where a cell of a [`Spread`] lies.
enum At {
    /// Cell `k` of run `r`.
    Run(usize, usize),
    /// The divider after run `r`.
    Divider(usize),
}

/// A bounded model's leaves being balanced: up to three runs of stand-in keys, with the parent's
/// dividers between them where the tree keeps dividers as cells (index trees).
#[derive(Debug, Default)]
pub(super) struct Spread {
    /// One run per old leaf, in key order.
    runs: [Run; 3],
    /// Runs in use.
    n_runs: usize,
    /// The dividers between the runs, with their sizes.
    dividers: [(u128, u32); 2],
    /// Dividers in use: one fewer than the runs on an index tree, none on a table.
    n_dividers: usize,
    /// Cells, dividers included.
    len: usize,
}

impl Spread {
    /// The cells of the bounded leaves `old`, with the `dividers` from their parent between
    /// them where `layout`'s tree keeps them as cells; `None` if a page is not a bounded leaf or
    /// its cells differ in size with their keys (then the cells must be listed).
    pub fn of(pager: &Pager, layout: &TreeLayout, old: &[u32], dividers: &[u128], rowid: i64) -> Option<Spread> {
        let mut spread = Spread::default();
        let keeps_dividers = layout.kind == TreeKind::Index;
        for (i, &p) in old.iter().enumerate() {
            let Content::Range { count, lo, hi } = pager.pages[p as usize] else { return None };
            let sizes = match count {
                0 => RunSizes::Same(0),
                _ if layout.sizes_vary_with_rowid() => RunSizes::Shared { used: pager.used[p as usize] },
                1 => RunSizes::Same(layout.uniform_leaf_cell(lo, lo, rowid)? + CELL_POINTER),
                _ => RunSizes::Same(layout.uniform_leaf_cell(lo, hi, rowid)? + CELL_POINTER),
            };
            spread.runs[i] = Run::new(spread.len, count, lo, hi, sizes);
            spread.len += count as usize;
            spread.n_runs = i + 1;
            if keeps_dividers && i + 1 < old.len() {
                let divider = dividers[i];
                spread.dividers[i] = (divider, layout.leaf_cell(divider, rowid) + CELL_POINTER);
                spread.n_dividers = i + 1;
                spread.len += 1;
            }
        }
        Some(spread)
    }

    /// Where cell `j` lies: in which run, or which divider it is.
    fn at(&self, j: usize) -> At {
        for (r, run) in self.runs[..self.n_runs].iter().enumerate() {
            if j < run.end() {
                return At::Run(r, j - run.start);
            }
            if j == run.end() && r < self.n_dividers {
                return At::Divider(r);
            }
        }
        unreachable!("cell {j} of {}", self.len)
    }
}

impl Cells for Spread {
    fn len(&self) -> usize {
        self.len
    }

    fn key(&self, j: usize) -> u128 {
        match self.at(j) {
            At::Run(r, k) => self.runs[r].key(k),
            At::Divider(r) => self.dividers[r].0,
        }
    }

    fn size(&self, j: usize) -> u32 {
        match self.at(j) {
            At::Run(r, k) => self.runs[r].size(k),
            At::Divider(r) => self.dividers[r].1,
        }
    }

    fn bytes(&self, range: Range<usize>) -> i64 {
        let mut sum = 0;
        for (r, run) in self.runs[..self.n_runs].iter().enumerate() {
            let (from, to) = (range.start.max(run.start), range.end.min(run.end()));
            if from < to {
                sum += run.bytes(from - run.start, to - run.start);
            }
            if r < self.n_dividers && range.contains(&run.end()) {
                sum += i64::from(self.dividers[r].1);
            }
        }
        sum
    }

    fn cnt_old(&self) -> [usize; 3] {
        let mut cnt = [0; 3];
        for (c, run) in cnt.iter_mut().zip(&self.runs[..self.n_runs]) {
            *c = run.end();
        }
        cnt
    }

    fn page(&self, range: Range<usize>, leaf: bool, bounded: bool) -> Content {
        debug_assert!(leaf && bounded, "a spread holds a bounded model's leaves alone");
        range_page(self, range)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The listed form of `spread`, as `balance_nonroot` writes the cells out.
    fn listed(spread: &Spread) -> Listed {
        let mut l = Listed::default();
        for j in 0..spread.len() {
            l.cells.push(spread.key(j));
            l.sizes.push(spread.size(j));
        }
        l.cnt_old = spread.cnt_old();
        l
    }

    #[test]
    fn a_spread_reads_as_its_cells_listed() {
        let mut s = Spread::default();
        s.runs[0] = Run::new(0, 7, 100, 160, RunSizes::Same(21));
        // A leaf left with one key keeps its old upper bound: its one key is its lowest.
        s.runs[1] = Run::new(8, 1, 200, 240, RunSizes::Shared { used: 23 });
        s.runs[2] = Run::new(10, 5, 300, 307, RunSizes::Shared { used: 103 });
        s.dividers = [(170, 19), (250, 19)];
        (s.n_runs, s.n_dividers, s.len) = (3, 2, 15);
        let keys: Vec<u128> = (0..s.len).map(|j| s.key(j)).collect();
        assert_eq!(keys, [100, 110, 120, 130, 140, 150, 160, 170, 200, 250, 300, 301, 302, 303, 307]);
        let sizes: Vec<u32> = (0..s.len).map(|j| s.size(j)).collect();
        assert_eq!(sizes, [21, 21, 21, 21, 21, 21, 21, 19, 23, 19, 21, 21, 21, 20, 20]);
        let l = listed(&s);
        assert_eq!(l.cnt_old, [7, 9, 15]);
        for from in 0..=s.len {
            for to in from..=s.len {
                assert_eq!(s.bytes(from..to), l.bytes(from..to), "{from}..{to}");
            }
        }
        for (from, to) in [(0, 0), (0, 7), (3, 9), (15, 15), (10, 15)] {
            assert_eq!(s.page(from..to, true, true), l.page(from..to, true, true), "{from}..{to}");
        }
    }
}
