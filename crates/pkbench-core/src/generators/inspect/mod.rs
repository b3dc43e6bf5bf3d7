//! `inspect`: what an ID reveals — its scheme, version and variant, embedded time, and counter,
//! sequence, worker or node fields — and, for a list, whether it is sorted.
//!
//! Pure functions over text; malformed input is a [`ParseError`], never a panic (a fuzz target
//! checks that).

mod integer;
mod order;
mod shard_aware;
mod uuid;

pub use order::{OrderSummary, summarize_order};

use super::{ParseError, ParsedId, SNOWFLAKE_DEFAULT_EPOCH_MS, Scheme, SchemeParams, TextEncoding, parse_id};
use crate::util::time::rfc3339_from_unix_ns;

/// The value an ID carries.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum IdValue {
    /// A 64-bit integer.
    Int(i64),
    /// 16 big-endian bytes.
    Bytes([u8; 16]),
}

/// What kind of ID it appears to be.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum IdKind {
    /// The nil UUID (all zeros).
    Nil,
    /// The max UUID (all ones).
    Max,
    /// An RFC 9562 UUID of the given version (1–8).
    Uuid(u8),
    /// RFC 9562 variant but a version number RFC 9562 does not define (0 or 9–15).
    UuidUnknownVersion(u8),
    /// 128 bits whose variant is not RFC 9562's (NCS, Microsoft or reserved).
    NonRfc128,
    /// A ULID (read from 26-character base32).
    Ulid,
    /// A positive integer that decodes to a plausible Snowflake.
    Snowflake,
    /// An integer read, on request, as one of the shard-aware layouts (hash-seq, bitrev-seq,
    /// shard-bits-seq, snowflake-workers): any integer fits them, so they are never guessed.
    ShardAware(Scheme),
    /// Any other integer.
    Integer,
}

impl IdKind {
    /// A short human-readable name, e.g. `UUIDv7 (Unix time + random)`.
    pub fn label(self) -> String {
        match self {
            IdKind::Nil => "nil UUID".into(),
            IdKind::Max => "max UUID".into(),
            IdKind::Uuid(v) => format!("UUIDv{v} ({})", uuid::version_summary(v)),
            IdKind::UuidUnknownVersion(v) => format!("UUID with undefined version {v}"),
            IdKind::NonRfc128 => "128-bit value, not an RFC 9562 UUID".into(),
            IdKind::Ulid => "ULID (Unix ms + random)".into(),
            IdKind::Snowflake => "Snowflake (ms since epoch | worker | sequence)".into(),
            IdKind::ShardAware(s) => shard_aware::label(s).into(),
            IdKind::Integer => "integer".into(),
        }
    }
}

/// The variant field of a 128-bit UUID (bits 64–67).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Variant {
    /// `0xxx`: Apollo NCS, reserved.
    Ncs,
    /// `10xx`: RFC 9562 (formerly RFC 4122).
    Rfc9562,
    /// `110x`: Microsoft's legacy GUIDs.
    Microsoft,
    /// `111x`: reserved for the future.
    Future,
}

impl Variant {
    /// The variant of `bytes`.
    pub fn of(bytes: &[u8; 16]) -> Self {
        match bytes[8] >> 5 {
            0..=3 => Variant::Ncs,
            4 | 5 => Variant::Rfc9562,
            6 => Variant::Microsoft,
            _ => Variant::Future,
        }
    }

    /// A short name.
    pub fn label(self) -> &'static str {
        match self {
            Variant::Ncs => "NCS (reserved, 0xxx)",
            Variant::Rfc9562 => "RFC 9562 (10xx)",
            Variant::Microsoft => "Microsoft (110x)",
            Variant::Future => "reserved for future use (111x)",
        }
    }
}

/// An instant embedded in an ID, and how finely the ID records it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Timestamp {
    /// Nanoseconds since the Unix epoch (negative before 1970).
    pub unix_ns: i128,
    /// The ID's time resolution in nanoseconds (1,000,000 for milliseconds, 100 for v1/v6).
    pub resolution_ns: u64,
}

impl Timestamp {
    /// A millisecond timestamp.
    pub fn from_unix_ms(ms: i128) -> Self {
        Timestamp { unix_ns: ms * 1_000_000, resolution_ns: 1_000_000 }
    }

    /// UTC ISO 8601 with as many fraction digits as the resolution supports.
    pub fn iso8601(&self) -> String {
        let digits = match self.resolution_ns {
            0..=1 => 9,
            2..=10 => 8,
            11..=100 => 7,
            101..=1_000 => 6,
            1_001..=1_000_000 => 3,
            _ => 0,
        };
        rfc3339_from_unix_ns(self.unix_ns, digits)
    }
}

/// One decoded field, ready to print.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Field {
    /// Field name, e.g. `counter`, `node`, `worker`.
    pub name: &'static str,
    /// Its value, formatted.
    pub value: String,
}

/// Everything [`inspect`] found in one ID.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Inspection {
    /// The value read.
    pub value: IdValue,
    /// The text form it was read from (`None` for integers).
    pub encoding: Option<TextEncoding>,
    /// The detected kind.
    pub kind: IdKind,
    /// The UUID version nibble, for 128-bit values with the RFC 9562 variant.
    pub version: Option<u8>,
    /// The variant, for 128-bit values.
    pub variant: Option<Variant>,
    /// The embedded creation time, when the kind has one.
    pub time: Option<Timestamp>,
    /// Counter, sequence, worker, node, random fields.
    pub fields: Vec<Field>,
    /// Caveats and alternative readings (e.g. "if this is a COMB, …").
    pub notes: Vec<String>,
}

/// Settings that change how integers are read.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct InspectOptions {
    /// The Snowflake epoch, Unix ms (Twitter's by default).
    pub snowflake_epoch_ms: u64,
    /// A masked-int key: integers are also unmasked with it.
    pub mask_key: Option<u64>,
    /// Read integers as this shard-aware layout (see [`shard_aware_layout`]) instead of guessing;
    /// other schemes are ignored here.
    pub layout: Option<Scheme>,
    /// `hash-seq`'s bucket count, to check a bucket against the hash of its sequence.
    pub hash_buckets: u16,
    /// `shard-bits-seq`'s shard bits, to split a value.
    pub shard_bits: u8,
}

impl Default for InspectOptions {
    fn default() -> Self {
        let params = SchemeParams::default();
        InspectOptions {
            snowflake_epoch_ms: SNOWFLAKE_DEFAULT_EPOCH_MS,
            mask_key: None,
            layout: None,
            hash_buckets: params.hash_buckets,
            shard_bits: params.shard_bits,
        }
    }
}

/// Whether `scheme` is a shard-aware integer layout, which [`inspect`] reads only when
/// [`InspectOptions::layout`] names it: every positive integer fits each of them.
pub fn shard_aware_layout(scheme: Scheme) -> bool {
    matches!(scheme, Scheme::HashSeq | Scheme::BitrevSeq | Scheme::ShardBitsSeq | Scheme::SnowflakeWorkers)
}

/// Decodes one ID given as text (any encoding [`parse_id`] reads).
pub fn inspect(text: &str, options: &InspectOptions) -> Result<Inspection, ParseError> {
    Ok(match parse_id(text)? {
        ParsedId::Int(v) => integer::inspect_int(v, options),
        ParsedId::Bytes { bytes, encoding } => uuid::inspect_bytes(bytes, encoding),
    })
}

/// Whether a Unix-ms value lies between 1990 and 2100: a plausible creation time for an ID.
pub(crate) fn plausible_ms(ms: i128) -> bool {
    (631_152_000_000..4_102_444_800_000).contains(&ms)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn timestamp_precision_picks_digits() {
        let t = Timestamp { unix_ns: 1_645_557_742_000_000_000, resolution_ns: 100 };
        assert_eq!(t.iso8601(), "2022-02-22T19:22:22.0000000Z");
        assert_eq!(Timestamp::from_unix_ms(1_645_557_742_000).iso8601(), "2022-02-22T19:22:22.000Z");
        assert_eq!(Timestamp { unix_ns: 0, resolution_ns: 1_000_000_000 }.iso8601(), "1970-01-01T00:00:00Z");
    }
}
