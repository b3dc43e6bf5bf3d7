//! Asking the processor for a cache line before it is read. A model that inserts random keys
//! spends most of its time waiting on main memory, one page's bytes after the other; asking for
//! the lines of the next few keys' pages at once lets those waits overlap.

/// Most keys a model asks ahead for at once: the rows it takes from its key stream in a group,
/// whose pages it asks for before inserting them one by one.
pub const AHEAD: usize = 16;

/// The sizes of the groups of at most [`AHEAD`] rows that a batch of `n` rows is taken in.
pub fn groups(n: u64) -> impl Iterator<Item = u64> {
    (0..n).step_by(AHEAD).map(move |start| (n - start).min(AHEAD as u64))
}

/// Asks for the cache line holding `value`'s first byte.
#[inline]
pub fn line<T>(value: &T) {
    crate::platform::prefetch(value);
}

/// Asks for every cache line of `values`.
#[inline]
pub fn lines<T>(values: &[T]) {
    let per_line = (64 / std::mem::size_of::<T>().max(1)).max(1);
    for v in values.iter().step_by(per_line) {
        line(v);
    }
    if let Some(last) = values.last() {
        line(last);
    }
}

/// Asks for the first and the last of a page's sorted `keys`, which [`crate::predict::search`]
/// reads first.
#[inline]
pub fn ends(keys: &[u128]) {
    if let (Some(first), Some(last)) = (keys.first(), keys.last()) {
        line(first);
        line(last);
    }
}

/// Asks for the lines around where `key` goes among a page's sorted `keys`, once their ends
/// are cached ([`ends`]): on a leaf every line from there to the end, which the insert moves;
/// on an interior page the key there and its child (`children`), which the descent reads.
#[inline]
pub fn place(keys: &[u128], key: u128, children: Option<&[u32]>) {
    let n = keys.len();
    if n < super::search::SHORT || keys[0] > key || keys[n - 1] <= key {
        return;
    }
    let at = super::search::guess(keys, key);
    match children {
        None => lines(&keys[at.saturating_sub(4)..]),
        Some(children) => {
            line(&keys[at]);
            if let Some(child) = children.get(at) {
                line(child);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn a_batch_is_taken_in_full_groups_then_the_rest() {
        assert_eq!(super::groups(0).count(), 0);
        assert_eq!(super::groups(16).collect::<Vec<_>>(), [16]);
        assert_eq!(super::groups(37).collect::<Vec<_>>(), [16, 16, 5]);
    }
}
