//! What to generate for one column: [`ColumnSpec`], and the defaults for a SQL type
//! ([`SqlType`]).

use crate::Error;
use crate::generators::VirtualClock;

/// What to generate for one column: the kind of value, how often it is NULL and how many
/// distinct values it draws from.
#[derive(Clone, Debug, PartialEq)]
pub struct ColumnSpec {
    /// The kind of value and its ranges.
    pub kind: ValueKind,
    /// Share of rows that are NULL, from 0 to 1.
    pub null_share: f64,
    /// Draw non-NULL values from this many distinct ones (`None`: every row draws afresh).
    pub distinct: Option<Distinct>,
}

/// The kind of value a column holds, with its ranges.
#[derive(Clone, Debug, PartialEq)]
pub enum ValueKind {
    /// Integers uniform in `min..=max`.
    Integer {
        /// Smallest value.
        min: i64,
        /// Largest value.
        max: i64,
    },
    /// Non-negative decimals with `precision` digits, `scale` of them after the point
    /// (`NUMERIC(precision, scale)`), written as text.
    Decimal {
        /// Total digits, 1–38.
        precision: u8,
        /// Digits after the point, at most `precision`.
        scale: u8,
    },
    /// Floating-point numbers uniform in `min..max`.
    Float {
        /// Smallest value.
        min: f64,
        /// Upper bound (exclusive).
        max: f64,
    },
    /// Text of `lengths` characters drawn from `alphabet`.
    Text {
        /// How many characters.
        lengths: Lengths,
        /// Which characters or words.
        alphabet: Alphabet,
    },
    /// Random bytes, `lengths` of them.
    Binary {
        /// How many bytes.
        lengths: Lengths,
    },
    /// Random (version 4) UUIDs.
    Uuid,
    /// True or false, evenly.
    Bool,
    /// Dates uniform over `span_days` days from `start_day`.
    Date {
        /// First day, in days since 1970-01-01.
        start_day: i32,
        /// How many days the dates spread over (at least 1).
        span_days: u32,
    },
    /// Timestamps with microsecond resolution. Row `n`'s time is `start_us + n × step_us`;
    /// monotonic columns (`created_at`) take that time, others (`last_seen`) a time uniform
    /// between `start_us` and it.
    Timestamp {
        /// Whether each row's value is its row time (strictly increasing).
        monotonic: bool,
        /// The first row's time, in microseconds since the Unix epoch.
        start_us: i64,
        /// Microseconds between one row's time and the next (at least 1).
        step_us: u64,
    },
    /// Valid JSON objects of `min_bytes..=max_bytes` bytes.
    Json {
        /// Smallest size in bytes (at least 2, `{}`).
        min_bytes: u32,
        /// Largest size in bytes.
        max_bytes: u32,
    },
    /// One of the given values (an `ENUM` or a status column).
    Enum {
        /// The values, at least one.
        values: Vec<String>,
    },
}

/// How long text or binary values are: uniform in a range, or a histogram exported from a
/// real table.
#[derive(Clone, Debug, PartialEq)]
pub enum Lengths {
    /// Uniform in `min..=max`.
    Range {
        /// Shortest.
        min: u32,
        /// Longest.
        max: u32,
    },
    /// Each `(length, weight)` bucket drawn in proportion to its weight.
    Histogram(Vec<(u32, f64)>),
}

impl Lengths {
    /// The longest length this can draw.
    pub fn max(&self) -> u32 {
        match self {
            Lengths::Range { max, .. } => *max,
            Lengths::Histogram(buckets) => buckets.iter().map(|b| b.0).max().unwrap_or(0),
        }
    }
}

/// The characters text is made of.
#[derive(Clone, Debug, PartialEq)]
pub enum Alphabet {
    /// Characters drawn uniformly from this set.
    Chars(Vec<char>),
    /// Words drawn uniformly, separated by spaces (the last one cut to the length).
    Words(Vec<String>),
}

impl Alphabet {
    /// Lower-case letters and digits.
    pub fn alphanumeric() -> Self {
        Alphabet::Chars(('a'..='z').chain('0'..='9').collect())
    }

    /// A short list of filler words, for prose-like text.
    pub fn filler_words() -> Self {
        const WORDS: &str = "lorem ipsum dolor sit amet consectetur adipiscing elit sed do eiusmod tempor \
            incididunt ut labore et dolore magna aliqua enim ad minim veniam quis nostrud exercitation \
            ullamco laboris nisi aliquip ex ea commodo consequat duis aute irure in reprehenderit voluptate";
        Alphabet::Words(WORDS.split_whitespace().map(str::to_string).collect())
    }
}

/// Values drawn from a fixed number of distinct ones.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Distinct {
    /// How many distinct values (at least 1).
    pub count: u64,
    /// How often each is drawn.
    pub skew: Skew,
}

/// How draws spread over a column's distinct values.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Skew {
    /// Every value equally often.
    Uniform,
    /// The k-th most frequent value is drawn in proportion to `1 / k^exponent` (exponent > 0).
    Zipf(f64),
}

/// A column's SQL type as pkbench generates it: the engine's type names mapped onto a few
/// families.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SqlType {
    /// An integer of this many bytes (1, 2, 3, 4 or 8).
    Integer(u8),
    /// `NUMERIC(precision, scale)`.
    Decimal {
        /// Total digits.
        precision: u8,
        /// Digits after the point.
        scale: u8,
    },
    /// `REAL`, `DOUBLE PRECISION`, `FLOAT`.
    Float,
    /// Character text, at most `max_chars` characters (`None`: `TEXT`, unbounded).
    Text {
        /// The declared length.
        max_chars: Option<u32>,
    },
    /// Bytes, at most `max` of them (`None`: `BLOB`/`bytea`, unbounded).
    Binary {
        /// The declared length.
        max: Option<u32>,
    },
    /// `uuid` (PostgreSQL, MariaDB).
    Uuid,
    /// `boolean`.
    Bool,
    /// `DATE`.
    Date,
    /// `TIMESTAMP`, `DATETIME`.
    Timestamp,
    /// `json`, `jsonb`.
    Json,
}

/// Days from 1970-01-01 to 2000-01-01, where default dates start.
pub(crate) const DAY_2000_01_01: i32 = 10_957;

impl ColumnSpec {
    /// A never-NULL column of `kind` drawing every value afresh.
    pub fn new(kind: ValueKind) -> Self {
        ColumnSpec { kind, null_share: 0.0, distinct: None }
    }

    /// The default values for a column of type `ty`: plausible lengths and ranges, no NULLs.
    /// Timestamps are monotonic from pkbench's virtual start time, one millisecond per row (the
    /// pace of [`VirtualClock::DEFAULT_KEYS_PER_S`]).
    pub fn for_type(ty: SqlType) -> Self {
        let kind = match ty {
            SqlType::Integer(bytes) => {
                let bits = u32::from(bytes.clamp(1, 8)) * 8;
                // 1 << 63 wraps to i64::MIN, and MIN - 1 wraps to MAX.
                ValueKind::Integer { min: 0, max: (1i64 << (bits - 1)).wrapping_sub(1) }
            }
            SqlType::Decimal { precision, scale } => ValueKind::Decimal { precision, scale },
            SqlType::Float => ValueKind::Float { min: 0.0, max: 1_000_000.0 },
            SqlType::Text { max_chars: Some(n) } => ValueKind::Text {
                lengths: Lengths::Range { min: n.min(8), max: n.min(32) },
                alphabet: Alphabet::alphanumeric(),
            },
            SqlType::Text { max_chars: None } => {
                ValueKind::Text { lengths: Lengths::Range { min: 16, max: 256 }, alphabet: Alphabet::filler_words() }
            }
            SqlType::Binary { max: Some(n) } => {
                ValueKind::Binary { lengths: Lengths::Range { min: n.min(16), max: n.min(64) } }
            }
            SqlType::Binary { max: None } => ValueKind::Binary { lengths: Lengths::Range { min: 16, max: 256 } },
            SqlType::Uuid => ValueKind::Uuid,
            SqlType::Bool => ValueKind::Bool,
            SqlType::Date => ValueKind::Date { start_day: DAY_2000_01_01, span_days: 30 * 365 },
            SqlType::Timestamp => ValueKind::Timestamp {
                monotonic: true,
                start_us: VirtualClock::DEFAULT_START_MS as i64 * 1_000,
                step_us: 1_000_000 / VirtualClock::DEFAULT_KEYS_PER_S,
            },
            SqlType::Json => ValueKind::Json { min_bytes: 64, max_bytes: 512 },
        };
        ColumnSpec::new(kind)
    }

    /// Checks every range and share; the error names the setting and what is allowed.
    pub fn validate(&self) -> Result<(), Error> {
        let bad = |msg: String| Err(Error::InvalidInput(msg));
        if !(0.0..=1.0).contains(&self.null_share) {
            return bad(format!("nulls={}: expected a share from 0 to 1", self.null_share));
        }
        if let Some(d) = self.distinct {
            if d.count == 0 {
                return bad("distinct=0: expected at least 1 distinct value".into());
            }
            if let Skew::Zipf(s) = d.skew
                && !(s.is_finite() && s > 0.0)
            {
                return bad(format!("zipf={s}: expected an exponent above 0, e.g. zipf=1.1"));
            }
        }
        match &self.kind {
            ValueKind::Integer { min, max } if min > max => bad(format!("range={min}..{max}: expected MIN <= MAX")),
            ValueKind::Decimal { precision, scale } if !(1..=38).contains(precision) || scale > precision => {
                bad(format!("decimal({precision},{scale}): expected precision 1 to 38 and scale at most precision"))
            }
            ValueKind::Float { min, max } if !(min.is_finite() && max.is_finite() && min <= max) => {
                bad(format!("range={min}..{max}: expected finite MIN <= MAX"))
            }
            ValueKind::Text { lengths, alphabet } => {
                let empty = match alphabet {
                    Alphabet::Chars(c) => c.is_empty(),
                    Alphabet::Words(w) => w.iter().all(String::is_empty),
                };
                if empty {
                    return bad("alphabet: expected at least one character or word".into());
                }
                validate_lengths(lengths)
            }
            ValueKind::Binary { lengths } => validate_lengths(lengths),
            ValueKind::Date { span_days: 0, .. } => bad("date span: expected at least 1 day".into()),
            ValueKind::Timestamp { step_us: 0, .. } => bad("step=0: expected a step of at least 1us".into()),
            ValueKind::Json { min_bytes, max_bytes }
                if *min_bytes < 2 || min_bytes > max_bytes || *max_bytes > MAX_VALUE_LEN =>
            {
                bad(format!("len={min_bytes}..{max_bytes}: JSON sizes need 2 <= MIN <= MAX <= {MAX_VALUE_LEN} bytes"))
            }
            ValueKind::Enum { values } if values.is_empty() => bad("values: expected at least one value".into()),
            _ => Ok(()),
        }
    }
}

/// The longest value pkbench generates: 16 MiB, well under MySQL's default 64 MiB packet.
pub const MAX_VALUE_LEN: u32 = 16 << 20;

fn validate_lengths(lengths: &Lengths) -> Result<(), Error> {
    if lengths.max() > MAX_VALUE_LEN {
        return Err(Error::InvalidInput(format!(
            "len up to {}: values are at most {MAX_VALUE_LEN} characters or bytes long",
            lengths.max()
        )));
    }
    match lengths {
        Lengths::Range { min, max } if min > max => {
            Err(Error::InvalidInput(format!("len={min}..{max}: expected N or MIN..MAX with MIN <= MAX")))
        }
        Lengths::Histogram(buckets) => {
            let valid = buckets.iter().all(|(_, w)| w.is_finite() && *w >= 0.0);
            if buckets.is_empty() || !valid || buckets.iter().map(|b| b.1).sum::<f64>() <= 0.0 {
                Err(Error::InvalidInput(
                    "lengths: expected LEN:WEIGHT buckets with non-negative weights, not all zero".into(),
                ))
            } else {
                Ok(())
            }
        }
        Lengths::Range { .. } => Ok(()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn defaults_by_type_are_valid_and_fit_the_type() {
        let types = [
            SqlType::Integer(1),
            SqlType::Integer(2),
            SqlType::Integer(4),
            SqlType::Integer(8),
            SqlType::Decimal { precision: 10, scale: 2 },
            SqlType::Float,
            SqlType::Text { max_chars: Some(4) },
            SqlType::Text { max_chars: None },
            SqlType::Binary { max: Some(16) },
            SqlType::Binary { max: None },
            SqlType::Uuid,
            SqlType::Bool,
            SqlType::Date,
            SqlType::Timestamp,
            SqlType::Json,
        ];
        for ty in types {
            ColumnSpec::for_type(ty).validate().unwrap_or_else(|e| panic!("{ty:?}: {e}"));
        }
        assert_eq!(ColumnSpec::for_type(SqlType::Integer(2)).kind, ValueKind::Integer { min: 0, max: 32_767 });
        assert_eq!(ColumnSpec::for_type(SqlType::Integer(8)).kind, ValueKind::Integer { min: 0, max: i64::MAX });
        let short = ColumnSpec::for_type(SqlType::Text { max_chars: Some(4) });
        assert!(matches!(short.kind, ValueKind::Text { lengths: Lengths::Range { min: 4, max: 4 }, .. }));
    }
}
