//! Range bounds laid out evenly over a strategy's keys: the `shards − 1` keys that split the
//! keys this run will insert into equal parts, as a range-sharded database's ranges are after it
//! has split and rebalanced the finished table. Where the keys of each moment land then shows
//! the strategy's hot spot: ordered keys fill one range after another, random keys spread.
//!
//! The bounds come from the run's own key stream (the same seed and virtual clock, so the same
//! keys), sampled to at most [`MAX_SAMPLES`] keys and compared as the engine stores them.

use crate::generators::{Key, TextEncoding};
use crate::keys::{KeySettings, KeyStream};
use crate::strategy::{Storage, Strategy};

/// Keys sorted to place the bounds: enough for quantiles within 0.1% of the true ones.
pub const MAX_SAMPLES: u64 = 1 << 20;

/// One bound as the key column stores it, ordered as the engine compares it (integers as
/// numbers, binary keys byte by byte, text keys in the `C`/binary collation the shards use).
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Bound {
    /// An integer key.
    Int(i64),
    /// Sixteen bytes, in stored order.
    Bytes([u8; 16]),
    /// Text (hyphenated, hex or base32).
    Text(String),
}

impl Bound {
    /// `key` as `storage` stores it, `None` where sharding cannot place it (MariaDB's UUID type
    /// reorders fields on disk).
    pub fn stored(key: Key, storage: Storage) -> Option<Bound> {
        match (key, storage) {
            (Key::Int(v), Storage::Integer) => Some(Bound::Int(v)),
            (Key::Uuid(b), Storage::Binary16) => Some(Bound::Bytes(b)),
            (Key::Uuid(b), Storage::Binary16TimeSwapped) => Some(Bound::Bytes(crate::strategy::swap_time_fields(b))),
            (Key::Uuid(b), storage) => {
                let encoding: TextEncoding = match storage {
                    Storage::MariaDbUuid => return None,
                    other => other.text_encoding()?,
                };
                let mut out = [0u8; 36];
                Some(Bound::Text(encoding.encode(&b, &mut out).to_string()))
            }
            (Key::Int(_), _) => None,
        }
    }
}

/// The `shards − 1` bounds splitting `strategy`'s first `rows` keys into equal parts, ascending;
/// `None` where the strategy's keys cannot be range-sharded (see [`Bound::stored`]).
/// Engine-assigned integer keys count 1, 2, 3, … in a fresh table.
pub fn range_bounds(strategy: &Strategy, keys: KeySettings, rows: u64, shards: u32) -> Option<Vec<Bound>> {
    let shards = u64::from(shards.max(1));
    let storage = strategy.primary.storage;
    if strategy.client_primary().is_none() {
        if storage != Storage::Integer {
            return None;
        }
        return Some((1..shards).map(|i| Bound::Int(1 + (rows * i / shards) as i64)).collect());
    }
    let stride = rows.div_ceil(MAX_SAMPLES).max(1);
    let mut stream = KeyStream::new(strategy, keys);
    let mut sample = Vec::with_capacity(rows.div_ceil(stride) as usize);
    for i in 0..rows {
        let row = stream.next_row();
        if i % stride == 0 {
            sample.push(Bound::stored(row.primary?, storage)?);
        }
    }
    sample.sort_unstable();
    let n = sample.len() as u64;
    if n == 0 {
        return Some(Vec::new());
    }
    Some((1..shards).map(|i| sample[(n * i / shards) as usize].clone()).collect())
}

/// The shard (0-based) that `value` falls in with ascending `bounds`: shard i holds values from
/// bound i−1 (inclusive) below bound i (exclusive), as `VALUES LESS THAN` and `FROM … TO` do.
pub fn shard_of(bounds: &[Bound], value: &Bound) -> usize {
    bounds.partition_point(|b| b <= value)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::strategy::find;

    fn spread(name: &str, rows: u64) -> Vec<u64> {
        let strategy = find(name).unwrap();
        let bounds = range_bounds(strategy, KeySettings::from(7), rows, 4).unwrap();
        assert_eq!(bounds.len(), 3);
        assert!(bounds.windows(2).all(|w| w[0] < w[1]), "{name}: {bounds:?}");
        let mut stream = KeyStream::new(strategy, KeySettings::from(7));
        let mut per = vec![0u64; 4];
        for _ in 0..rows {
            let b = Bound::stored(stream.next_row().primary.unwrap(), strategy.primary.storage).unwrap();
            per[shard_of(&bounds, &b)] += 1;
        }
        per
    }

    #[test]
    fn bounds_split_the_runs_own_keys_into_equal_parts() {
        for name in ["uuid4", "uuid7", "uuid4-text", "snowflake", "ulid"] {
            let per = spread(name, 40_000);
            assert!(per.iter().all(|&n| n == 10_000), "{name}: {per:?}");
        }
    }

    #[test]
    fn engine_assigned_integers_split_at_even_counts() {
        let b = range_bounds(find("int").unwrap(), KeySettings::from(1), 1_000, 4).unwrap();
        assert_eq!(b, [Bound::Int(251), Bound::Int(501), Bound::Int(751)]);
        assert_eq!(shard_of(&b, &Bound::Int(250)), 0);
        assert_eq!(shard_of(&b, &Bound::Int(251)), 1);
        assert_eq!(shard_of(&b, &Bound::Int(1_000)), 3);
    }

    #[test]
    fn text_keys_sort_like_their_bytes() {
        let a = Bound::stored(Key::Uuid([0x0f; 16]), Storage::Text36).unwrap();
        let b = Bound::stored(Key::Uuid([0xa0; 16]), Storage::Text36).unwrap();
        assert!(a < b);
        assert_eq!(Bound::stored(Key::Uuid([1; 16]), Storage::MariaDbUuid), None);
    }
}
