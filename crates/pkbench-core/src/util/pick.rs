//! A small deterministic index generator (SplitMix64): the same seed picks the same indexes,
//! for workloads that choose rows and for the time fit's bootstrap.

/// SplitMix64 state; [`Pick::below`] draws an index.
#[derive(Clone, Debug)]
pub struct Pick(pub u64);

impl Pick {
    /// A uniformly drawn index below `n` (`n` > 0).
    pub fn below(&mut self, n: usize) -> usize {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        ((z ^ (z >> 31)) % n as u64) as usize
    }
}
