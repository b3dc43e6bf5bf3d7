//! Errors of the ID module: bad scheme parameters, unparseable IDs, no OS randomness.

/// What went wrong building a generator or reading an ID.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum IdError {
    /// A scheme name that does not exist.
    #[error("unknown ID scheme '{name}'; valid schemes: {valid}")]
    UnknownScheme {
        /// What the user typed.
        name: String,
        /// All scheme names, comma-separated.
        valid: String,
    },
    /// A scheme parameter out of range; the message says which and what is allowed.
    #[error("{0}")]
    InvalidParameter(String),
    /// Text that is not an ID in any encoding pkbench reads.
    #[error("{0}")]
    Parse(ParseError),
    /// The operating system's random source failed.
    #[error("could not read the operating system's random source: {0}")]
    Entropy(String),
}

/// Why a piece of text is not an ID.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ParseError {
    /// Nothing but whitespace.
    #[error("empty input")]
    Empty,
    /// A length no encoding has.
    #[error(
        "{len} characters is not an ID: expected 36 (hyphenated UUID), 32 (hex), 26 (ULID / base32) or a decimal integer"
    )]
    Length {
        /// Characters after trimming.
        len: usize,
    },
    /// A character the detected encoding does not allow.
    #[error("invalid character '{ch}' at position {position} in {encoding}")]
    Character {
        /// The offending character.
        ch: char,
        /// 1-based position in the trimmed input.
        position: usize,
        /// The encoding being read.
        encoding: &'static str,
    },
    /// Hyphens missing or misplaced in a 36-character UUID.
    #[error("36 characters but the hyphens are not at positions 9, 14, 19 and 24 (8-4-4-4-12)")]
    Hyphens,
    /// A 26-character base32 value above 128 bits (first character above '7').
    #[error("base32 value exceeds 128 bits: a 26-character ID starts with 0-7")]
    Base32Overflow,
    /// A decimal integer outside the signed 64-bit range.
    #[error("integer out of the 64-bit range")]
    IntegerRange,
}

impl From<ParseError> for IdError {
    fn from(e: ParseError) -> Self {
        IdError::Parse(e)
    }
}
