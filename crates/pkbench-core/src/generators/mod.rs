//! Key generators: every ID scheme pkbench knows, behind one small trait, usable on their own
//! (no database code here).
//!
//! * Integers: [`IntSequence`], [`Snowflake`], [`MaskedInt`] (keyed Feistel permutation).
//! * Shard-aware integers, which spread inserts over a range-sharded database's ranges while
//!   staying ordered within one: [`HashSeq`] (CockroachDB's hash-sharded index), [`BitrevSeq`]
//!   (Spanner's bit-reversed sequence), [`ShardBitsSeq`] (TiDB's `SHARD_ROW_ID_BITS` /
//!   `AUTO_RANDOM`), [`SnowflakeWorkers`] (Snowflake with the worker id first).
//! * UUIDs (RFC 9562): [`UuidV1`], [`UuidV4`], [`UuidV6`], [`UuidV7`] (method 1),
//!   [`UuidV7SubMs`] (method 3); [`Ulid`]; `sequential-uuids`' [`SeqUuid`] and [`TimeUuid`];
//!   [`Comb`] (leading or SQL Server's trailing layout).
//! * Text forms: [`TextEncoding`] (hyphenated, hex, Crockford base32) and [`parse_id`];
//!   [`inspect`](mod@inspect) decodes what an ID reveals.
//!
//! Every generator owns its state, so it is ordered per generator (per thread when each thread
//! has its own; see [`local`]); none is ordered across processes. Generators never allocate per
//! key. Given a seed and a [`Clock`] they are deterministic, so a benchmark's key stream is
//! identical for every engine and every run with the same `--seed`; in production they draw from
//! [`KeyRng::from_os`].

mod bitrev_seq;
mod clock;
mod coarse_clock;
mod comb;
mod decode;
mod encode;
mod error;
mod gregorian;
mod hash_seq;
pub mod inspect;
pub mod local;
mod masked;
#[cfg(test)]
mod props;
mod rng;
mod scheme;
mod seq_uuid;
mod sequence;
mod shard_bits_seq;
mod snowflake;
mod snowflake_workers;
#[cfg(test)]
mod spread;
pub mod throughput;
mod time_uuid;
mod ulid;
mod uuid1;
mod uuid4;
mod uuid6;
mod uuid7;
mod uuid7_subms;

pub use bitrev_seq::{BitrevSeq, bitrev_sequence, reverse_63};
pub use clock::{Clock, SharedVirtualClock, SystemClock, VirtualClock};
pub use coarse_clock::CoarseClock;
pub use comb::{Comb, CombLayout};
pub use decode::{ParsedId, decode_base32, decode_hex, decode_hyphenated, parse_id};
pub use encode::{
    TextEncoding, encode_base32, encode_base32_str, encode_hex, encode_hyphenated, encode_hyphenated_str,
};
pub use error::{IdError, ParseError};
pub use gregorian::{GREGORIAN_OFFSET_TICKS, clock_seq, pack_v1, pack_v6, ticks_to_unix_ns, v1_ticks, v6_ticks};
pub use hash_seq::{HASH_SEQ_SEQUENCE_BITS, HashSeq, HashSeqParts, fnv1a_32, hash_bucket};
pub use inspect::{Inspection, inspect};
pub use masked::{FeistelMask, MaskedInt};
pub use rng::{KeyRng, derive_seed};
pub use scheme::{Scheme, SchemeParams, V7Method};
pub use seq_uuid::{SeqPrefix, SeqUuid};
pub use sequence::IntSequence;
pub use shard_bits_seq::{ShardBitsParts, ShardBitsSeq, shard_of};
pub use snowflake::{SNOWFLAKE_DEFAULT_EPOCH_MS, Snowflake, SnowflakeParts};
pub use snowflake_workers::{SnowflakeWorkers, WORKER_FIRST_SHIFT, WorkerFirstParts};
pub use time_uuid::TimeUuid;
pub use ulid::{Ulid, ulid_ms};
pub use uuid1::UuidV1;
pub use uuid4::UuidV4;
pub use uuid6::UuidV6;
pub use uuid7::UuidV7;
pub use uuid7_subms::{UuidV7SubMs, subms_stamp};

/// One generated key: a 64-bit integer or a 16-byte UUID-like value.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Key {
    /// A signed 64-bit integer key (Snowflake, sequences).
    Int(i64),
    /// A 16-byte key in its binary (big-endian, RFC 9562) form.
    Uuid([u8; 16]),
}

/// A source of keys, one per call. Implementations never allocate per key.
pub trait KeyGenerator: Send {
    /// Returns the next key of the stream.
    fn next_key(&mut self) -> Key;
}

/// Reads the version nibble (bits 48–51) of a 16-byte UUID.
pub fn uuid_version(bytes: &[u8; 16]) -> u8 {
    bytes[6] >> 4
}

/// Whether the variant bits (64–65) are RFC 9562's `10`.
pub fn uuid_variant_is_rfc(bytes: &[u8; 16]) -> bool {
    bytes[8] & 0xc0 == 0x80
}
