//! The value of one sampled key, as every engine's reader hands it to doctor's analysis.
//!
//! Each reader converts its driver's values beside its own sampling code (SQLite in
//! [`sample`](super::sample), PostgreSQL and MariaDB in their `sample.rs`), so the analysis —
//! scheme, order, key-range probes — depends on no driver.

/// One sampled key value, in SQLite's storage classes: every engine's key column reads as one of
/// them (integers as `Integer`, native UUIDs and binary strings as `Blob`, anything else as
/// `Text`).
#[derive(Clone, Debug, PartialEq)]
pub enum SampleValue {
    /// SQL NULL (or a value the reader could not convert).
    Null,
    /// A 64-bit signed integer.
    Integer(i64),
    /// A floating-point number (read, never classified as a key scheme).
    Real(f64),
    /// UTF-8 text.
    Text(String),
    /// Bytes.
    Blob(Vec<u8>),
}
