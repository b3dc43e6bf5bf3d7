//! The ID schemes by name, their parameters, and the one factory that builds a generator.

use super::{
    BitrevSeq, Clock, CoarseClock, Comb, CombLayout, HashSeq, IdError, IntSequence, KeyGenerator, KeyRng, MaskedInt,
    SNOWFLAKE_DEFAULT_EPOCH_MS, SeqPrefix, SeqUuid, ShardBitsSeq, Snowflake, SnowflakeWorkers, SystemClock,
    TextEncoding, TimeUuid, Ulid, UuidV1, UuidV4, UuidV6, UuidV7, UuidV7SubMs, derive_seed,
};

/// The client-side ID schemes.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, serde::Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Scheme {
    /// A client-side integer sequence 1, 2, 3, …
    Int,
    /// Twitter-style 64-bit Snowflake: 41-bit ms | 10-bit worker | 12-bit sequence.
    Snowflake,
    /// A keyed 64-bit permutation of an integer sequence (hides count and order).
    MaskedInt,
    /// A sequence under a bucket prefix hashed from it (CockroachDB's hash-sharded index).
    HashSeq,
    /// A sequence with its low 63 bits reversed (Spanner's bit-reversed positive sequence).
    BitrevSeq,
    /// A sequence under hashed shard bits (TiDB's `SHARD_ROW_ID_BITS` / `AUTO_RANDOM`).
    ShardBitsSeq,
    /// Snowflake with the worker first (`worker:10 | ms:41 | sequence:12`), rotating over workers.
    SnowflakeWorkers,
    /// RFC 9562 version 1: Gregorian 100-ns time, clock sequence, random node.
    Uuid1,
    /// RFC 9562 version 4: 122 random bits.
    Uuid4,
    /// RFC 9562 version 6: v1's time reordered to sort, random node per UUID.
    Uuid6,
    /// RFC 9562 version 7: 48-bit Unix ms, then a monotonic counter (method 1, the default) or a
    /// sub-millisecond fraction (method 3), and random bits.
    Uuid7,
    /// ULID: 48-bit Unix ms + 80 random bits, monotonic within a millisecond.
    Ulid,
    /// `sequential-uuids` `uuid_sequence_nextval`: a block prefix from a sequence, then random.
    SeqUuid,
    /// `sequential-uuids` `uuid_time_nextval`: an interval prefix from the clock, then random.
    TimeUuid,
    /// COMB: a v4 with the Unix ms in its first six bytes.
    Comb,
    /// COMB for SQL Server: the Unix ms in the last six bytes.
    CombMssql,
}

/// RFC 9562 §6.2 monotonicity method for UUIDv7.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, serde::Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum V7Method {
    /// Method 1: a 42-bit counter after the millisecond timestamp.
    #[default]
    Counter,
    /// Method 3: a 12-bit sub-millisecond fraction (plus a 30-bit counter for equal fractions).
    SubMillisecond,
}

/// Scheme parameters. `Default` gives pkbench's and the `sequential-uuids` extension's defaults.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SchemeParams {
    /// UUIDv7 method.
    pub v7_method: V7Method,
    /// Snowflake epoch, Unix ms.
    pub snowflake_epoch_ms: u64,
    /// Snowflake worker number, 0–1023.
    pub snowflake_worker: u16,
    /// `snowflake-workers`: workers taking turns, 1–1024.
    pub snowflake_workers: u16,
    /// `hash-seq` buckets, 2–256.
    pub hash_buckets: u16,
    /// `shard-bits-seq` shard bits, 1–15.
    pub shard_bits: u8,
    /// Masked-integer key; `None` draws one from the generator's random stream.
    pub mask_key: Option<u64>,
    /// `seq-uuid` values per block.
    pub seq_block_size: u64,
    /// `seq-uuid` blocks per cycle.
    pub seq_block_count: u64,
    /// `time-uuid` interval length, seconds.
    pub time_interval_secs: u64,
    /// `time-uuid` intervals per cycle.
    pub time_interval_count: u64,
}

impl Default for SchemeParams {
    fn default() -> Self {
        SchemeParams {
            v7_method: V7Method::Counter,
            snowflake_epoch_ms: SNOWFLAKE_DEFAULT_EPOCH_MS,
            snowflake_worker: 1,
            snowflake_workers: SnowflakeWorkers::<SystemClock>::DEFAULT_WORKERS,
            hash_buckets: HashSeq::DEFAULT_BUCKETS,
            shard_bits: ShardBitsSeq::DEFAULT_BITS,
            mask_key: None,
            seq_block_size: SeqUuid::DEFAULT_BLOCK_SIZE,
            seq_block_count: SeqUuid::DEFAULT_BLOCK_COUNT,
            time_interval_secs: TimeUuid::<SystemClock>::DEFAULT_INTERVAL_SECS,
            time_interval_count: TimeUuid::<SystemClock>::DEFAULT_INTERVAL_COUNT,
        }
    }
}

impl SchemeParams {
    /// Refuses a Snowflake epoch after `clock_ms`, the first time the keys' clock reads (`when`
    /// names it): a Snowflake counts milliseconds since its epoch, and one not reached yet would
    /// make every ID a plain small sequence number.
    pub fn check_epoch(&self, clock_ms: u64, when: &str) -> Result<(), IdError> {
        if self.snowflake_epoch_ms <= clock_ms {
            return Ok(());
        }
        let at = |ms: u64| crate::util::time::rfc3339_from_unix_ms(i64::try_from(ms).unwrap_or(i64::MAX));
        Err(IdError::InvalidParameter(format!(
            "snowflake epoch {} ({}) is after {when} ({}): give an epoch in Unix milliseconds before it, e.g. the default {SNOWFLAKE_DEFAULT_EPOCH_MS} (Twitter's)",
            self.snowflake_epoch_ms,
            at(self.snowflake_epoch_ms),
            at(clock_ms)
        )))
    }

    /// Checks every parameter's range, and that the Snowflake epoch has passed; the error says
    /// which one and what is allowed.
    pub fn validate(&self) -> Result<(), IdError> {
        if self.snowflake_worker > 1023 {
            return Err(IdError::InvalidParameter(format!(
                "snowflake worker {} does not fit in 10 bits: use 0-1023",
                self.snowflake_worker
            )));
        }
        if !(1..=1024).contains(&self.snowflake_workers) {
            return Err(IdError::InvalidParameter(format!(
                "snowflake-workers worker count {} does not fit the 10-bit worker id: use 1-1024",
                self.snowflake_workers
            )));
        }
        if !(2..=256).contains(&self.hash_buckets) {
            return Err(IdError::InvalidParameter(format!(
                "hash-seq bucket count {} does not fit the 8-bit bucket prefix: use 2-256",
                self.hash_buckets
            )));
        }
        if !(1..=15).contains(&self.shard_bits) {
            return Err(IdError::InvalidParameter(format!(
                "shard-bits-seq shard bits {}: use 1-15 (as TiDB's SHARD_ROW_ID_BITS)",
                self.shard_bits
            )));
        }
        let now_ms = SystemClock.now_ms();
        self.check_epoch(now_ms, "now")?;
        SeqPrefix::new(self.seq_block_size, self.seq_block_count)?;
        if self.time_interval_secs == 0 || self.time_interval_count == 0 {
            return Err(IdError::InvalidParameter(
                "time-uuid interval length and interval count must be positive integers".into(),
            ));
        }
        Ok(())
    }
}

impl Scheme {
    /// Every scheme, in the order `pkbench ids` lists them.
    pub const ALL: [Scheme; 16] = [
        Scheme::Int,
        Scheme::Snowflake,
        Scheme::MaskedInt,
        Scheme::HashSeq,
        Scheme::BitrevSeq,
        Scheme::ShardBitsSeq,
        Scheme::SnowflakeWorkers,
        Scheme::Uuid1,
        Scheme::Uuid4,
        Scheme::Uuid6,
        Scheme::Uuid7,
        Scheme::Ulid,
        Scheme::SeqUuid,
        Scheme::TimeUuid,
        Scheme::Comb,
        Scheme::CombMssql,
    ];

    /// Canonical lowercase name.
    pub fn name(self) -> &'static str {
        match self {
            Scheme::Int => "int",
            Scheme::Snowflake => "snowflake",
            Scheme::MaskedInt => "masked-int",
            Scheme::HashSeq => "hash-seq",
            Scheme::BitrevSeq => "bitrev-seq",
            Scheme::ShardBitsSeq => "shard-bits-seq",
            Scheme::SnowflakeWorkers => "snowflake-workers",
            Scheme::Uuid1 => "uuid1",
            Scheme::Uuid4 => "uuid4",
            Scheme::Uuid6 => "uuid6",
            Scheme::Uuid7 => "uuid7",
            Scheme::Ulid => "ulid",
            Scheme::SeqUuid => "seq-uuid",
            Scheme::TimeUuid => "time-uuid",
            Scheme::Comb => "comb",
            Scheme::CombMssql => "comb-mssql",
        }
    }

    /// Finds a scheme by name (any case).
    pub fn from_name(name: &str) -> Result<Scheme, IdError> {
        let name = name.trim();
        Scheme::ALL.into_iter().find(|s| s.name().eq_ignore_ascii_case(name)).ok_or_else(|| IdError::UnknownScheme {
            name: name.to_string(),
            valid: Scheme::ALL.map(Scheme::name).join(", "),
        })
    }

    /// Whether keys from one generator arrive in strictly increasing order (as integers, or as
    /// bytes for 16-byte keys). The shard-aware schemes are not: they are ordered only within a
    /// bucket, shard or worker.
    pub fn is_ordered(self) -> bool {
        matches!(self, Scheme::Int | Scheme::Snowflake | Scheme::Uuid6 | Scheme::Uuid7 | Scheme::Ulid)
    }

    /// Whether keys are 64-bit integers (else 16 bytes).
    pub fn is_integer(self) -> bool {
        matches!(
            self,
            Scheme::Int
                | Scheme::Snowflake
                | Scheme::MaskedInt
                | Scheme::HashSeq
                | Scheme::BitrevSeq
                | Scheme::ShardBitsSeq
                | Scheme::SnowflakeWorkers
        )
    }

    /// The canonical text form of a 16-byte scheme: base32 for ULID, hyphenated for the rest.
    pub fn text_encoding(self) -> TextEncoding {
        if self == Scheme::Ulid { TextEncoding::Base32 } else { TextEncoding::Hyphenated }
    }

    /// What an ID of this scheme reveals to whoever sees it.
    pub fn leaks(self) -> &'static str {
        match self {
            Scheme::Int => "count and order",
            Scheme::Snowflake => "time (ms), worker, count within a ms",
            Scheme::MaskedInt => "nothing without the key",
            Scheme::HashSeq | Scheme::ShardBitsSeq => "count and order (the sequence is in the low bits)",
            Scheme::BitrevSeq => "count and order (reverse the bits)",
            Scheme::SnowflakeWorkers => "time (ms), worker, count within a worker's ms",
            Scheme::Uuid1 => "time (100 ns), generator (random node)",
            Scheme::Uuid4 | Scheme::SeqUuid => "nothing (seq-uuid: roughly how many came before)",
            Scheme::Uuid6 => "time (100 ns)",
            Scheme::Uuid7 => "time (ms; method 3: ~244 ns), count within a ms (method 1)",
            Scheme::Ulid => "time (ms), count within a ms",
            Scheme::TimeUuid => "time (to the interval)",
            Scheme::Comb | Scheme::CombMssql => "time (ms)",
        }
    }

    /// Builds this scheme's generator for a benchmark key stream, with default parameters.
    ///
    /// `seed` and `role` pick the random stream (the same seed and role give the same keys);
    /// time-based schemes read `clock`.
    pub fn generator(self, seed: u64, role: &str, clock: Box<dyn Clock>) -> Box<dyn KeyGenerator> {
        self.seeded(&SchemeParams::default(), seed, role, clock)
    }

    /// [`Scheme::generator`] with `params` (which must be valid: see [`SchemeParams::validate`];
    /// invalid ones fall back to the defaults).
    pub fn seeded(self, params: &SchemeParams, seed: u64, role: &str, clock: Box<dyn Clock>) -> Box<dyn KeyGenerator> {
        let rng = KeyRng::seeded(derive_seed(seed, self.name(), role));
        let params = if params.validate().is_ok() { *params } else { SchemeParams::default() };
        self.build_unchecked(&params, rng, clock)
    }

    /// Whether this scheme reads a clock (so a key rate changes its keys).
    pub fn is_time_based(self) -> bool {
        match self {
            Scheme::Snowflake
            | Scheme::SnowflakeWorkers
            | Scheme::Uuid1
            | Scheme::Uuid6
            | Scheme::Uuid7
            | Scheme::Ulid
            | Scheme::TimeUuid
            | Scheme::Comb
            | Scheme::CombMssql => true,
            Scheme::Int
            | Scheme::MaskedInt
            | Scheme::HashSeq
            | Scheme::BitrevSeq
            | Scheme::ShardBitsSeq
            | Scheme::Uuid4
            | Scheme::SeqUuid => false,
        }
    }

    /// Builds this scheme's generator from `params`, drawing random bits from `rng` (seeded, or
    /// [`KeyRng::from_os`] in production) and time from `clock` (see [`Scheme::production_clock`]).
    pub fn build(
        self,
        params: &SchemeParams,
        rng: KeyRng,
        clock: Box<dyn Clock>,
    ) -> Result<Box<dyn KeyGenerator>, IdError> {
        params.validate()?;
        Ok(self.build_unchecked(params, rng, clock))
    }

    /// The clock a production generator of this scheme should read: the cheap [`CoarseClock`]
    /// for millisecond schemes that count within a millisecond anyway (UUIDv7 method 1, ULID,
    /// COMB, time-uuid), the precise [`SystemClock`] where sub-millisecond fields matter (v1,
    /// v6, v7 method 3) or where a generator must wait for the next millisecond (the Snowflakes).
    pub fn production_clock(self, params: &SchemeParams) -> Box<dyn Clock> {
        let coarse = match self {
            Scheme::Uuid7 => params.v7_method == V7Method::Counter,
            Scheme::Ulid | Scheme::Comb | Scheme::CombMssql | Scheme::TimeUuid => true,
            _ => false,
        };
        if coarse { Box::new(CoarseClock) } else { Box::new(SystemClock) }
    }

    /// `params` must be valid.
    fn build_unchecked(self, params: &SchemeParams, mut rng: KeyRng, clock: Box<dyn Clock>) -> Box<dyn KeyGenerator> {
        let prefix = |size, count| SeqPrefix::new(size, count).unwrap_or_else(|_| SeqPrefix::default_rule());
        match self {
            Scheme::Int => Box::new(IntSequence::default()),
            Scheme::Snowflake => Box::new(Snowflake::new(clock, params.snowflake_epoch_ms, params.snowflake_worker)),
            Scheme::MaskedInt => Box::new(MaskedInt::new(params.mask_key.unwrap_or_else(|| rng.next_u64()))),
            Scheme::HashSeq => Box::new(HashSeq::new(params.hash_buckets)),
            Scheme::BitrevSeq => Box::new(BitrevSeq::default()),
            Scheme::ShardBitsSeq => Box::new(ShardBitsSeq::new(params.shard_bits)),
            Scheme::SnowflakeWorkers => {
                Box::new(SnowflakeWorkers::new(clock, params.snowflake_epoch_ms, params.snowflake_workers))
            }
            Scheme::Uuid1 => Box::new(UuidV1::new(rng, clock)),
            Scheme::Uuid4 => Box::new(UuidV4::new(rng)),
            Scheme::Uuid6 => Box::new(UuidV6::new(rng, clock)),
            Scheme::Uuid7 => match params.v7_method {
                V7Method::Counter => Box::new(UuidV7::new(rng, clock)),
                V7Method::SubMillisecond => Box::new(UuidV7SubMs::new(rng, clock)),
            },
            Scheme::Ulid => Box::new(Ulid::new(rng, clock)),
            Scheme::SeqUuid => Box::new(SeqUuid::new(rng, prefix(params.seq_block_size, params.seq_block_count))),
            Scheme::TimeUuid => {
                Box::new(TimeUuid::new(rng, clock, prefix(params.time_interval_secs, params.time_interval_count)))
            }
            Scheme::Comb => Box::new(Comb::new(rng, clock, CombLayout::Leading)),
            Scheme::CombMssql => Box::new(Comb::new(rng, clock, CombLayout::Trailing)),
        }
    }
}

impl std::str::FromStr for Scheme {
    type Err = IdError;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        Scheme::from_name(s)
    }
}

impl std::fmt::Display for Scheme {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::generators::{Key, VirtualClock};

    #[test]
    fn names_round_trip_and_match_serde() {
        for s in Scheme::ALL {
            assert_eq!(Scheme::from_name(s.name()), Ok(s));
            assert_eq!(serde_json::to_value(s).unwrap(), s.name());
        }
        assert_eq!(Scheme::from_name(" ULID "), Ok(Scheme::Ulid));
        let err = Scheme::from_name("uuid5").unwrap_err().to_string();
        assert!(err.contains("unknown ID scheme 'uuid5'") && err.contains("comb-mssql"), "{err}");
    }

    #[test]
    fn every_scheme_builds_and_ordered_ones_increase() {
        for s in Scheme::ALL {
            let mut g = s.generator(1, "primary", Box::new(VirtualClock::new(1_767_225_600_000, 50)));
            let keys: Vec<Key> = (0..2_000).map(|_| g.next_key()).collect();
            assert!(keys.iter().all(|k| matches!(k, Key::Int(_)) == s.is_integer()), "{s}");
            if s.is_ordered() {
                assert!(keys.windows(2).all(|w| w[0] < w[1]), "{s} not increasing");
            }
        }
    }

    #[test]
    fn invalid_parameters_are_rejected() {
        let bad = [
            SchemeParams { snowflake_worker: 1024, ..SchemeParams::default() },
            SchemeParams { seq_block_size: 0, ..SchemeParams::default() },
            SchemeParams { time_interval_count: 0, ..SchemeParams::default() },
            SchemeParams { snowflake_workers: 0, ..SchemeParams::default() },
            SchemeParams { snowflake_workers: 1025, ..SchemeParams::default() },
            // An epoch not reached yet: every Snowflake would be a small sequence number.
            SchemeParams { snowflake_epoch_ms: 4_102_444_800_000, ..SchemeParams::default() },
            SchemeParams { hash_buckets: 1, ..SchemeParams::default() },
            SchemeParams { hash_buckets: 257, ..SchemeParams::default() },
            SchemeParams { shard_bits: 0, ..SchemeParams::default() },
            SchemeParams { shard_bits: 16, ..SchemeParams::default() },
        ];
        for p in bad {
            assert!(Scheme::Uuid4.build(&p, KeyRng::seeded(1), Box::new(SystemClock)).is_err(), "{p:?}");
        }
    }
}
