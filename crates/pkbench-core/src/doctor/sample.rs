//! Bounded key sampling spread over a table, and the key scheme the samples agree on (decoded
//! with the generators' [`inspect`](fn@crate::generators::inspect)).

use super::value::SampleValue;
use crate::generators::inspect::{IdKind, InspectOptions};
use crate::generators::{TextEncoding, encode_hyphenated_str, inspect};
use serde::{Deserialize, Serialize};
use std::collections::HashMap;

/// One sampled key and, in a rowid table, its rowid.
#[derive(Clone, Debug, PartialEq)]
pub struct SampledKey {
    /// The row's rowid, when the table has one.
    pub rowid: Option<i64>,
    /// The stored value.
    pub value: SampleValue,
}

/// Keys read from one column, in rowid order (rowid tables) or key order.
#[derive(Clone, Debug, PartialEq)]
pub struct Samples {
    /// The keys.
    pub keys: Vec<SampledKey>,
    /// What was read, in words.
    pub method: String,
}

/// What kind of values a key holds.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum KeyScheme {
    /// Dense integers: a sequence or autoincrement.
    Sequence,
    /// Integers spread over a wide range with no time field (e.g. masked or random).
    RandomInteger,
    /// Snowflake-like integers (ms since an epoch | worker | sequence).
    Snowflake,
    /// UUIDv1 (time low bits first: not time-ordered as bytes).
    UuidV1,
    /// UUIDv4 (random).
    UuidV4,
    /// UUIDv6 (time-ordered).
    UuidV6,
    /// UUIDv7 (time-ordered).
    UuidV7,
    /// Another RFC 9562 version (2, 3, 5, 8).
    UuidOther,
    /// ULID (ms time + random).
    Ulid,
    /// 128-bit values without an RFC 9562 variant.
    Other128,
    /// Something else (names, codes, mixed values).
    Unknown,
}

impl KeyScheme {
    /// Short name used in advice, e.g. `random UUIDv4`.
    pub fn label(self) -> &'static str {
        match self {
            KeyScheme::Sequence => "integer sequence",
            KeyScheme::RandomInteger => "random integer",
            KeyScheme::Snowflake => "Snowflake integer",
            KeyScheme::UuidV1 => "UUIDv1",
            KeyScheme::UuidV4 => "random UUIDv4",
            KeyScheme::UuidV6 => "time-ordered UUIDv6",
            KeyScheme::UuidV7 => "time-ordered UUIDv7",
            KeyScheme::UuidOther => "UUID (v2/v3/v5/v8)",
            KeyScheme::Ulid => "ULID",
            KeyScheme::Other128 => "non-RFC 128-bit value",
            KeyScheme::Unknown => "unrecognised values",
        }
    }

    /// New keys land at random places in the key order.
    pub fn is_random(self) -> bool {
        matches!(self, KeyScheme::RandomInteger | KeyScheme::UuidV4 | KeyScheme::UuidV1 | KeyScheme::UuidOther)
    }
}

/// How the key values are stored.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum KeyStorage {
    /// SQLite INTEGER.
    Integer,
    /// 16-byte BLOB.
    Blob16,
    /// 36-character hyphenated hex TEXT.
    Text36,
    /// 32-character hex TEXT.
    Text32,
    /// 26-character Crockford base32 TEXT.
    Text26,
    /// Other TEXT.
    OtherText,
    /// A native 16-byte `uuid` / `UUID` column type (PostgreSQL, MariaDB 10.7+).
    NativeUuid,
    /// Other BLOB, REAL or NULL.
    Other,
}

impl KeyStorage {
    /// In words, e.g. `36-char TEXT`.
    pub fn label(self) -> &'static str {
        match self {
            KeyStorage::Integer => "INTEGER",
            KeyStorage::Blob16 => "16-byte BLOB",
            KeyStorage::Text36 => "36-char TEXT",
            KeyStorage::Text32 => "32-char hex TEXT",
            KeyStorage::Text26 => "26-char base32 TEXT",
            KeyStorage::OtherText => "TEXT",
            KeyStorage::NativeUuid => "native 16-byte uuid",
            KeyStorage::Other => "other",
        }
    }

    /// Bytes per key beyond the 16 of a binary UUID, for 128-bit IDs stored as text.
    pub fn text_overhead_bytes(self) -> u64 {
        match self {
            KeyStorage::Text36 => 20,
            KeyStorage::Text32 => 16,
            KeyStorage::Text26 => 10,
            _ => 0,
        }
    }
}

/// The scheme the sampled keys agree on, and how many agree.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct SchemeReport {
    /// The majority scheme.
    pub scheme: KeyScheme,
    /// The majority storage.
    pub storage: KeyStorage,
    /// Keys sampled (non-NULL).
    pub samples: u64,
    /// Samples of the majority scheme.
    pub agreeing: u64,
    /// `agreeing / samples`, 0–1.
    pub share: f64,
    /// What was sampled, in words.
    pub sampling: String,
    /// The evidence line, e.g. `512 of 512 sampled keys (100%) read as random UUIDv4, stored as 36-char TEXT`.
    pub evidence: String,
}

/// What one value is: its storage, scheme and embedded time (Unix ms).
pub fn classify(value: &SampleValue) -> (KeyStorage, KeyScheme, Option<i128>) {
    let options = InspectOptions::default();
    let (storage, text) = match value {
        SampleValue::Integer(v) => (KeyStorage::Integer, v.to_string()),
        SampleValue::Blob(b) if b.len() == 16 => {
            let bytes: [u8; 16] = b.as_slice().try_into().unwrap_or([0; 16]);
            (KeyStorage::Blob16, encode_hyphenated_str(&bytes, &mut [0; 36]).to_string())
        }
        SampleValue::Text(s) => (KeyStorage::OtherText, s.clone()),
        _ => return (KeyStorage::Other, KeyScheme::Unknown, None),
    };
    let Ok(found) = inspect(&text, &options) else { return (storage, KeyScheme::Unknown, None) };
    let storage = match (storage, found.encoding) {
        (KeyStorage::OtherText, Some(TextEncoding::Hyphenated)) => KeyStorage::Text36,
        (KeyStorage::OtherText, Some(TextEncoding::Hex)) => KeyStorage::Text32,
        (KeyStorage::OtherText, Some(TextEncoding::Base32)) => KeyStorage::Text26,
        (s, _) => s,
    };
    let scheme = match found.kind {
        // Refined over all samples in `detect_scheme`. Doctor never asks for a shard-aware
        // reading, so those kinds cannot come back; were they to, they are integers too.
        IdKind::Integer | IdKind::ShardAware(_) => KeyScheme::Sequence,
        IdKind::Snowflake => KeyScheme::Snowflake,
        IdKind::Uuid(1) => KeyScheme::UuidV1,
        IdKind::Uuid(4) => KeyScheme::UuidV4,
        IdKind::Uuid(6) => KeyScheme::UuidV6,
        IdKind::Uuid(7) => KeyScheme::UuidV7,
        IdKind::Uuid(_) => KeyScheme::UuidOther,
        IdKind::Ulid => KeyScheme::Ulid,
        IdKind::NonRfc128 | IdKind::UuidUnknownVersion(_) => KeyScheme::Other128,
        IdKind::Nil | IdKind::Max => KeyScheme::Unknown,
    };
    (storage, scheme, found.time.map(|t| t.unix_ns / 1_000_000))
}

fn majority<T: Copy + Eq + std::hash::Hash>(items: impl Iterator<Item = T>) -> Option<(T, u64)> {
    let mut counts: HashMap<T, u64> = HashMap::new();
    for item in items {
        *counts.entry(item).or_default() += 1;
    }
    counts.into_iter().max_by_key(|&(_, n)| n)
}

/// Names the scheme most samples share; `rows` (the table's row count) tells a dense sequence
/// from integers spread over a wide range.
pub fn detect_scheme(samples: &Samples, rows: u64) -> SchemeReport {
    let seen: Vec<_> =
        samples.keys.iter().filter(|k| k.value != SampleValue::Null).map(|k| classify(&k.value)).collect();
    let n = seen.len() as u64;
    let storage = majority(seen.iter().map(|s| s.0)).map_or(KeyStorage::Other, |m| m.0);
    let (mut scheme, mut agreeing) = majority(seen.iter().map(|s| s.1)).unwrap_or((KeyScheme::Unknown, 0));
    let ints: Vec<i64> = samples
        .keys
        .iter()
        .filter_map(|k| if let SampleValue::Integer(v) = k.value { Some(v) } else { None })
        .collect();
    if scheme == KeyScheme::Sequence {
        let (lo, hi) = (ints.iter().min().copied().unwrap_or(0), ints.iter().max().copied().unwrap_or(0));
        let span = (i128::from(hi) - i128::from(lo)).unsigned_abs();
        if span > 4 * u128::from(rows.max(1)) + 16 {
            scheme = KeyScheme::RandomInteger;
        }
    } else if scheme == KeyScheme::Snowflake {
        // Random 63-bit integers also decode to plausible Snowflakes, but spread over decades.
        let times: Vec<i128> = seen.iter().filter_map(|s| s.2).collect();
        let span_ms = times.iter().max().copied().unwrap_or(0) - times.iter().min().copied().unwrap_or(0);
        if span_ms > 30 * 365 * 86_400_000 {
            scheme = KeyScheme::RandomInteger;
            agreeing = n;
        }
    }
    let share = if n == 0 { 0.0 } else { agreeing as f64 / n as f64 };
    let evidence = format!(
        "{agreeing} of {n} sampled keys ({:.0}%) read as {}, stored as {}",
        share * 100.0,
        scheme.label(),
        storage.label()
    );
    SchemeReport { scheme, storage, samples: n, agreeing, share, sampling: samples.method.clone(), evidence }
}

/// The same report with 16-byte values named as a native `uuid` column type.
pub fn as_native_uuid(mut report: SchemeReport) -> SchemeReport {
    if report.storage == KeyStorage::Blob16 {
        report.evidence = report.evidence.replace(KeyStorage::Blob16.label(), KeyStorage::NativeUuid.label());
        report.storage = KeyStorage::NativeUuid;
    }
    report
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn classifies_stored_forms() {
        let v4 = "5c1c2e0a-3f4b-4d2e-9a1b-0c2d3e4f5a6b";
        assert_eq!(classify(&SampleValue::Text(v4.into())).0, KeyStorage::Text36);
        assert_eq!(classify(&SampleValue::Text(v4.into())).1, KeyScheme::UuidV4);
        let bytes = crate::generators::decode_hyphenated(v4.as_bytes()).unwrap();
        assert_eq!(classify(&SampleValue::Blob(bytes.to_vec())).0, KeyStorage::Blob16);
        assert_eq!(classify(&SampleValue::Text("01ARZ3NDEKTSV4RRFFQ69G5FAV".into())).1, KeyScheme::Ulid);
        assert_eq!(classify(&SampleValue::Text("alice".into())).1, KeyScheme::Unknown);
        assert_eq!(classify(&SampleValue::Null).1, KeyScheme::Unknown);
    }
}
