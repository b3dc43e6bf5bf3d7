//! Key generators: the ID schemes pkbench inserts, behind one small trait.
//!
//! Generators are deterministic given a seed and a [`Clock`], so a benchmark's key stream is
//! identical for every engine and every run with the same `--seed`.

mod clock;
mod encode;
mod rng;
mod snowflake;
mod uuid4;
mod uuid7;

pub use clock::{Clock, SystemClock, VirtualClock};
pub use encode::{encode_hyphenated, encode_hyphenated_str};
pub use rng::{KeyRng, derive_seed};
pub use snowflake::{SNOWFLAKE_DEFAULT_EPOCH_MS, Snowflake};
pub use uuid4::UuidV4;
pub use uuid7::UuidV7;

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

/// The client-side ID schemes a strategy can draw its keys from.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Scheme {
    /// Twitter-style 64-bit Snowflake: 41-bit ms | 10-bit worker | 12-bit sequence.
    Snowflake,
    /// RFC 9562 version 4: 122 random bits.
    Uuid4,
    /// RFC 9562 version 7: 48-bit Unix ms, then a monotonic counter (method 1) and random bits.
    Uuid7,
}

impl Scheme {
    /// Canonical lowercase name.
    pub fn name(self) -> &'static str {
        match self {
            Scheme::Snowflake => "snowflake",
            Scheme::Uuid4 => "uuid4",
            Scheme::Uuid7 => "uuid7",
        }
    }

    /// Whether keys from one generator arrive in increasing order.
    pub fn is_ordered(self) -> bool {
        !matches!(self, Scheme::Uuid4)
    }

    /// Builds this scheme's generator for a benchmark key stream.
    ///
    /// `seed` and `role` pick the random stream (the same seed and role give the same keys);
    /// time-based schemes read `clock`.
    pub fn generator(self, seed: u64, role: &str, clock: Box<dyn Clock>) -> Box<dyn KeyGenerator> {
        let rng = KeyRng::seeded(derive_seed(seed, self.name(), role));
        match self {
            Scheme::Snowflake => Box::new(Snowflake::new(clock, SNOWFLAKE_DEFAULT_EPOCH_MS, 1)),
            Scheme::Uuid4 => Box::new(UuidV4::new(rng)),
            Scheme::Uuid7 => Box::new(UuidV7::new(rng, clock)),
        }
    }
}

/// Reads the version nibble (bits 48–51) of a 16-byte UUID.
pub fn uuid_version(bytes: &[u8; 16]) -> u8 {
    bytes[6] >> 4
}

/// Whether the variant bits (64–65) are RFC 9562's `10`.
pub fn uuid_variant_is_rfc(bytes: &[u8; 16]) -> bool {
    bytes[8] & 0xc0 == 0x80
}
