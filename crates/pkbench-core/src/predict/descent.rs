//! The descents a model's warm pass finds for the group of keys about to be inserted, kept for
//! their inserts. A warm pass ([`crate::predict::tree::BTree::warm`],
//! [`crate::predict::server::tree::Tree::warm`]) searches every interior page on each key's way
//! to its leaf; the insert that follows reads the same pages in the same order, and takes the
//! child the warm pass found at each instead of searching the page again — unless a split or
//! balance has moved the tree in between, which a count of them tells.

use super::prefetch::AHEAD;

/// Most interior levels a [`Descent`] records; a deeper tree's insert searches again.
const MAX_DEPTH: usize = 8;

/// Where one key's descent went: the interior pages from the root, with the child index taken
/// at each, and the leaf.
#[derive(Clone, Copy, Debug, Default)]
pub struct Descent {
    key: u128,
    /// The tree's count of moves when the descent was found.
    moves: u64,
    depth: usize,
    path: [(u32, u32); MAX_DEPTH],
    /// The leaf reached.
    pub leaf: u32,
}

impl Descent {
    /// The interior pages from the root, each with the index of the child taken.
    pub fn path(&self) -> impl Iterator<Item = (u32, usize)> + '_ {
        self.path[..self.depth].iter().map(|&(page, i)| (page, i as usize))
    }
}

/// The descents of one group of keys, in the order the keys are inserted.
#[derive(Debug)]
pub struct Descents {
    found: Vec<Descent>,
    /// The first of `found` not inserted yet.
    next: usize,
}

impl Default for Descents {
    fn default() -> Self {
        Descents { found: Vec::with_capacity(AHEAD), next: 0 }
    }
}

impl Descents {
    /// Starts a group of `keys`, found while the tree has made `moves` moves.
    pub fn start(&mut self, keys: &[u128], moves: u64) {
        self.found.clear();
        self.next = 0;
        self.found.extend(keys.iter().map(|&key| Descent { key, moves, ..Descent::default() }));
    }

    /// Records that the `k`th key of the group took child `i` of interior page `page`, one level
    /// below the last recorded.
    pub fn step(&mut self, k: usize, page: u32, i: usize) {
        let descent = &mut self.found[k];
        if let Some(step) = descent.path.get_mut(descent.depth) {
            *step = (page, i as u32);
        }
        descent.depth += 1;
    }

    /// Records the leaf each key of the group reached: `leaves[k]` the `k`th's.
    pub fn reached(&mut self, leaves: &[u32]) {
        for (descent, &leaf) in self.found.iter_mut().zip(leaves) {
            descent.leaf = leaf;
        }
    }

    /// The descent found for `key` among the keys of the group not inserted yet, if the tree has
    /// made no move since (it has made `moves`). The keys before it are passed over: a model
    /// that leaves a row out of a tree does not insert its key.
    pub fn take(&mut self, key: u128, moves: u64) -> Option<Descent> {
        let at = self.next + self.found.get(self.next..)?.iter().position(|d| d.key == key)?;
        self.next = at + 1;
        let descent = self.found[at];
        (descent.moves == moves && descent.depth <= MAX_DEPTH).then_some(descent)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_descent_is_taken_once_for_its_key_until_the_tree_moves() {
        let mut d = Descents::default();
        d.start(&[10, 20, 30], 5);
        for k in 0..3 {
            d.step(k, 1, k);
            d.step(k, 7, 0);
        }
        d.reached(&[100, 200, 300]);
        let first = d.take(10, 5).unwrap();
        assert_eq!((first.path().collect::<Vec<_>>(), first.leaf), (vec![(1, 0), (7, 0)], 100));
        assert!(d.take(10, 5).is_none(), "taken once");
        // 20 left out of the tree: 30 is still found, after it.
        assert_eq!(d.take(30, 5).unwrap().leaf, 300);
        d.start(&[40], 5);
        d.reached(&[400]);
        assert!(d.take(40, 6).is_none(), "the tree moved since");
        d.start(&[50], 0);
        for _ in 0..=MAX_DEPTH {
            d.step(0, 1, 0);
        }
        assert!(d.take(50, 0).is_none(), "deeper than a descent records");
    }
}
