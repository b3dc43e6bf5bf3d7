//! A client-side integer sequence: 1, 2, 3, … like a database sequence, but counted in the client.

use super::{Key, KeyGenerator};

/// Counts up from a start value. Unique and ordered per generator only: two generators (two
/// threads, two processes) hand out the same numbers.
#[derive(Debug, Clone)]
pub struct IntSequence {
    next: i64,
}

impl IntSequence {
    /// A sequence whose first value is `start`.
    pub fn starting_at(start: i64) -> Self {
        IntSequence { next: start }
    }

    /// The next value. Saturates at `i64::MAX` (2^63 values: centuries at a billion per second).
    #[inline]
    pub fn next_id(&mut self) -> i64 {
        let v = self.next;
        self.next = self.next.saturating_add(1);
        v
    }
}

impl Default for IntSequence {
    /// Starts at 1, as SQL sequences do.
    fn default() -> Self {
        IntSequence::starting_at(1)
    }
}

impl KeyGenerator for IntSequence {
    #[inline]
    fn next_key(&mut self) -> Key {
        Key::Int(self.next_id())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counts_from_one() {
        let mut s = IntSequence::default();
        assert_eq!([s.next_id(), s.next_id(), s.next_id()], [1, 2, 3]);
    }
}
