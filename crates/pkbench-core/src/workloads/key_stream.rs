//! The keys a strategy inserts: its primary and external key generators, seeded per run.

use crate::engines::KeyRow;
use crate::generators::{KeyGenerator, VirtualClock};
use crate::strategy::Strategy;

/// A strategy's key stream. The same strategy and seed give the same rows on every engine.
pub struct KeyStream {
    primary: Option<Box<dyn KeyGenerator>>,
    secondary: Option<Box<dyn KeyGenerator>>,
}

impl KeyStream {
    /// The stream for `strategy` with key seed `seed`; time-based keys use a [`VirtualClock`].
    pub fn new(strategy: &Strategy, seed: u64) -> Self {
        let clock = || Box::new(VirtualClock::default());
        KeyStream {
            primary: strategy.client_primary().map(|s| s.generator(seed, "primary", clock())),
            secondary: strategy.secondary.map(|s| s.scheme.generator(seed, "secondary", clock())),
        }
    }

    /// The next row's keys.
    #[inline]
    pub fn next_row(&mut self) -> KeyRow {
        KeyRow {
            primary: self.primary.as_mut().map(|g| g.next_key()),
            secondary: self.secondary.as_mut().map(|g| g.next_key()),
        }
    }

    /// Replaces `rows`' contents with the next `n` rows, reusing its allocation.
    pub fn fill(&mut self, rows: &mut Vec<KeyRow>, n: u64) {
        rows.clear();
        rows.extend((0..n).map(|_| self.next_row()));
    }
}
