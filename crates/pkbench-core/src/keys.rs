//! The keys a strategy inserts: its primary and external key generators, seeded per run, the
//! settings that make them (seed, the virtual clock's key rate, the schemes' parameters), and the
//! rows of keys they give. Engines, sharded layouts and workloads all read them.

use crate::generators::{Clock, Key, KeyGenerator, Scheme, SchemeParams, V7Method, VirtualClock};
use crate::strategy::Strategy;
use std::collections::BTreeMap;

/// What a key stream is made from. The same settings give the same keys on every engine.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct KeySettings {
    /// Seed of the random bits.
    pub seed: u64,
    /// Keys per second of key time for time-based schemes (the virtual clock's pace).
    pub rate: u64,
    /// The schemes' parameters (seq-uuid blocks, time-uuid intervals, Snowflake worker, …).
    pub params: SchemeParams,
}

impl From<u64> for KeySettings {
    /// `seed` with the default rate and parameters.
    fn from(seed: u64) -> Self {
        KeySettings { seed, rate: VirtualClock::DEFAULT_KEYS_PER_S, params: SchemeParams::default() }
    }
}

impl KeySettings {
    /// The same settings with another seed (a second stream of the same kind).
    pub fn reseeded(self, seed: u64) -> Self {
        KeySettings { seed, ..self }
    }

    /// Client `index`'s settings among clients generating keys side by side (the concurrent
    /// workload), as separate application servers would: its own random stream (the seed mixed
    /// with the index) and its own Snowflake worker number. Their time-based keys read one
    /// shared line of key time ([`crate::generators::SharedVirtualClock`] at `rate`).
    pub fn for_client(self, index: u32) -> Self {
        let mut params = self.params;
        params.snowflake_worker = ((u32::from(params.snowflake_worker) + index) % 1024) as u16;
        KeySettings { seed: self.seed ^ (u64::from(index) + 1).wrapping_mul(0x9E37_79B9_7F4A_7C15), params, ..self }
    }

    /// The virtual clock time-based keys read.
    pub fn clock(&self) -> VirtualClock {
        VirtualClock::at_rate(VirtualClock::DEFAULT_START_MS, self.rate)
    }

    /// The parameters that shape `strategy`'s keys, by the `run` flag that sets them: what results
    /// record. Empty for a strategy of untimed, unparameterised keys (int, uuid4).
    pub fn applied_to(&self, strategy: &Strategy) -> BTreeMap<String, String> {
        let p = &self.params;
        let mut out = BTreeMap::new();
        for scheme in strategy_schemes(strategy) {
            if scheme.is_time_based() {
                out.insert("key_rate".into(), self.rate.to_string());
            }
            let set: Vec<(&str, String)> = match scheme {
                Scheme::SeqUuid => {
                    vec![("block_size", p.seq_block_size.to_string()), ("block_count", p.seq_block_count.to_string())]
                }
                Scheme::TimeUuid => vec![
                    ("interval", p.time_interval_secs.to_string()),
                    ("interval_count", p.time_interval_count.to_string()),
                ],
                Scheme::Snowflake => {
                    vec![("worker", p.snowflake_worker.to_string()), ("epoch", p.snowflake_epoch_ms.to_string())]
                }
                Scheme::SnowflakeWorkers => {
                    vec![("worker_count", p.snowflake_workers.to_string()), ("epoch", p.snowflake_epoch_ms.to_string())]
                }
                Scheme::HashSeq => vec![("hash_buckets", p.hash_buckets.to_string())],
                Scheme::ShardBitsSeq => vec![("shard_bits", p.shard_bits.to_string())],
                Scheme::Uuid7 => vec![(
                    "v7_method",
                    match p.v7_method {
                        V7Method::Counter => "1".to_string(),
                        V7Method::SubMillisecond => "3".to_string(),
                    },
                )],
                Scheme::MaskedInt => {
                    vec![("key", p.mask_key.map_or_else(|| "drawn from the seed".to_string(), |k| k.to_string()))]
                }
                Scheme::Int
                | Scheme::BitrevSeq
                | Scheme::Uuid1
                | Scheme::Uuid4
                | Scheme::Uuid6
                | Scheme::Ulid
                | Scheme::Comb
                | Scheme::CombMssql => Vec::new(),
            };
            out.extend(set.into_iter().map(|(k, v)| (k.to_string(), v)));
        }
        out
    }
}

/// Whether each client of a concurrent run makes its own keys, as application servers with
/// their own generators do: when every client-side scheme is time-based or random. Counters
/// (`Int`, `MaskedInt`, `SeqUuid`, and the shard-aware sequences) stand for one shared sequence,
/// so their clients share one stream; so does `SnowflakeWorkers`, whose one generator already
/// plays every worker (clients with a copy each would repeat each other's keys).
pub fn generated_per_client(strategy: &Strategy) -> bool {
    strategy_schemes(strategy).all(|s| {
        !matches!(
            s,
            Scheme::Int
                | Scheme::MaskedInt
                | Scheme::SeqUuid
                | Scheme::HashSeq
                | Scheme::BitrevSeq
                | Scheme::ShardBitsSeq
                | Scheme::SnowflakeWorkers
        )
    })
}

/// The client-side schemes of `strategy`'s keys (primary, then the external key beside it).
pub fn strategy_schemes(strategy: &Strategy) -> impl Iterator<Item = Scheme> {
    strategy.client_primary().into_iter().chain(strategy.secondary.map(|s| s.scheme))
}

/// The keys of one row to insert. `None` where the engine assigns the value or the strategy has
/// no such column.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct KeyRow {
    /// The primary key, when the client generates it.
    pub primary: Option<Key>,
    /// The external key, when the strategy has one.
    pub secondary: Option<Key>,
}

/// A strategy's key stream. The same strategy and settings give the same rows on every engine.
pub struct KeyStream {
    primary: Option<Box<dyn KeyGenerator>>,
    secondary: Option<Box<dyn KeyGenerator>>,
}

impl KeyStream {
    /// The stream for `strategy` with `keys` (a seed alone gives the default rate and
    /// parameters); time-based keys read a [`VirtualClock`] at the settings' rate.
    pub fn new(strategy: &Strategy, keys: impl Into<KeySettings>) -> Self {
        let keys = keys.into();
        Self::with_clock(strategy, keys, || Box::new(keys.clock()))
    }

    /// The stream for `strategy` with `keys`, its time-based generators reading clocks from
    /// `clock` (a [`crate::generators::SharedVirtualClock`] for clients sharing key time).
    pub fn with_clock(strategy: &Strategy, keys: KeySettings, clock: impl Fn() -> Box<dyn Clock>) -> Self {
        KeyStream {
            primary: strategy.client_primary().map(|s| s.seeded(&keys.params, keys.seed, "primary", clock())),
            secondary: strategy.secondary.map(|s| s.scheme.seeded(&keys.params, keys.seed, "secondary", clock())),
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::strategy::find;

    #[test]
    fn each_client_gets_its_own_stream_and_snowflake_worker() {
        let base = KeySettings { rate: 1000, ..KeySettings::from(42) };
        let (a, b) = (base.for_client(0), base.for_client(1));
        assert_ne!(a.seed, b.seed);
        assert_eq!((a.params.snowflake_worker, b.params.snowflake_worker), (1, 2));
        assert!(generated_per_client(find("uuid7").unwrap()) && generated_per_client(find("uuid4").unwrap()));
        assert!(!generated_per_client(find("seq-uuid").unwrap()), "a sequence is shared");
        let mut x = KeyStream::new(find("snowflake").unwrap(), a);
        let mut y = KeyStream::new(find("snowflake").unwrap(), b);
        assert_ne!(x.next_row().primary, y.next_row().primary, "Snowflake workers differ, so keys cannot collide");
    }

    #[test]
    fn the_key_rate_sets_how_fast_time_based_keys_advance() {
        let first_ms = |rate| {
            let keys = KeySettings { rate, ..KeySettings::from(42) };
            let mut stream = KeyStream::new(find("uuid7").unwrap(), keys);
            let ms = |row: KeyRow| match row.primary {
                Some(crate::generators::Key::Uuid(b)) => u64::from_be_bytes([0, 0, b[0], b[1], b[2], b[3], b[4], b[5]]),
                other => panic!("{other:?}"),
            };
            (0..1001).map(|_| ms(stream.next_row())).last().unwrap() - VirtualClock::DEFAULT_START_MS
        };
        assert_eq!(first_ms(1_000), 1_000, "1,000 keys/s: the 1001st key is 1 s later");
        assert_eq!(first_ms(1_000_000), 1, "1M keys/s: 1 ms later");
    }

    #[test]
    fn results_record_only_the_parameters_a_strategy_uses() {
        let keys = KeySettings::from(1);
        assert!(keys.applied_to(find("uuid4").unwrap()).is_empty());
        assert!(keys.applied_to(find("int").unwrap()).is_empty());
        let v7 = keys.applied_to(find("uuid7").unwrap());
        assert_eq!(v7.get("key_rate").map(String::as_str), Some("1000"));
        assert_eq!(v7.get("v7_method").map(String::as_str), Some("1"));
        let seq = keys.applied_to(find("seq-uuid").unwrap());
        assert_eq!(seq.keys().cloned().collect::<Vec<_>>(), ["block_count", "block_size"]);
        let named = |name| {
            let applied = keys.applied_to(find(name).unwrap());
            applied.into_iter().map(|(k, v)| format!("{k}={v}")).collect::<Vec<_>>().join(" ")
        };
        assert_eq!(named("hash-seq"), "hash_buckets=16");
        assert_eq!(named("bitrev-seq"), "");
        assert_eq!(named("shard-bits-seq"), "shard_bits=4");
        assert_eq!(named("snowflake-workers"), "epoch=1288834974657 key_rate=1000 worker_count=4");
    }

    #[test]
    fn shard_aware_keys_follow_their_parameters_and_are_one_shared_stream() {
        let params = SchemeParams { hash_buckets: 4, shard_bits: 2, snowflake_workers: 3, ..SchemeParams::default() };
        let keys = KeySettings { params, ..KeySettings::from(7) };
        let top = |name: &str, shift: u32| {
            let mut stream = KeyStream::new(find(name).unwrap(), keys);
            let mut seen: Vec<i64> = (0..1_000)
                .map(|_| match stream.next_row().primary {
                    Some(crate::generators::Key::Int(v)) => v >> shift,
                    other => panic!("{other:?}"),
                })
                .collect();
            seen.sort_unstable();
            seen.dedup();
            seen
        };
        assert_eq!(top("hash-seq", 55), [0, 1, 2, 3]);
        assert_eq!(top("shard-bits-seq", 61), [0, 1, 2, 3]);
        assert_eq!(top("snowflake-workers", 53), [0, 1, 2]);
        for name in ["hash-seq", "bitrev-seq", "shard-bits-seq", "snowflake-workers"] {
            assert!(!generated_per_client(find(name).unwrap()), "{name}");
        }
    }
}
