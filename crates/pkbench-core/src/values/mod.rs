//! Realistic column values for a user's table, deterministic per seed: the same `--seed` gives
//! the same rows on every engine. No database code here.
//!
//! * [`ColumnSpec`] says what to generate for one column: a [`ValueKind`] with its ranges, the
//!   NULL share, and optionally a number of [`Distinct`] values drawn uniformly or by Zipf's law.
//! * Specs come from a column's SQL type ([`ColumnSpec::for_type`]), refined by a comment on the
//!   column (`-- pkbench: len=8..40 nulls=0.2 distinct=1000 zipf=1.1`, [`SpecOverrides::parse_comment`])
//!   or a TOML sidecar (`[users.name]` then `len = "8..40"`, [`Sidecar::parse`]).
//! * [`ColumnGenerator`] turns a spec and a seed into values, one [`Value`] per row, written into
//!   buffers it reuses (no allocation per row); [`Value::as_param`] binds it on either wire.

pub(crate) mod calendar;
mod generate;
mod json;
mod param;
mod parse;
mod spec;

#[cfg(test)]
mod generate_tests;
#[cfg(test)]
mod parse_tests;

pub use generate::ColumnGenerator;
pub use param::Param;
pub use parse::{Sidecar, SpecOverrides, resolve};
pub(crate) use spec::DAY_2000_01_01;
pub use spec::{Alphabet, ColumnSpec, Distinct, Lengths, MAX_VALUE_LEN, Skew, SqlType, ValueKind};

/// One generated value, borrowed from its [`ColumnGenerator`]'s buffers until the next row.
///
/// Types a wire [`Param`] has no variant for carry both their value and their SQL literal.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Value<'a> {
    /// SQL NULL.
    Null,
    /// An integer.
    Int(i64),
    /// A boolean.
    Bool(bool),
    /// A floating-point number and its shortest exact text form.
    Float {
        /// The number.
        value: f64,
        /// Its text form.
        text: &'a str,
    },
    /// A decimal in text form (`12345.67`).
    Decimal(&'a str),
    /// A UUID's 16 bytes in RFC 9562 order.
    Uuid([u8; 16]),
    /// Text (also an enum's value).
    Text(&'a str),
    /// Bytes.
    Bytes(&'a [u8]),
    /// A date.
    Date {
        /// Days since 1970-01-01.
        day: i32,
        /// `YYYY-MM-DD`.
        text: &'a str,
    },
    /// A UTC timestamp.
    Timestamp {
        /// Microseconds since the Unix epoch.
        micros: i64,
        /// `YYYY-MM-DD HH:MM:SS.ffffff`.
        text: &'a str,
    },
    /// A JSON object's text.
    Json(&'a str),
}

impl<'a> Value<'a> {
    /// Whether the value is SQL NULL.
    pub fn is_null(&self) -> bool {
        matches!(self, Value::Null)
    }

    /// The value's text, for kinds that have one (not NULL, integers, booleans, UUIDs, bytes).
    pub fn text(&self) -> Option<&'a str> {
        match *self {
            Value::Float { text, .. } | Value::Date { text, .. } | Value::Timestamp { text, .. } => Some(text),
            Value::Decimal(t) | Value::Text(t) | Value::Json(t) => Some(t),
            Value::Null | Value::Int(_) | Value::Bool(_) | Value::Uuid(_) | Value::Bytes(_) => None,
        }
    }

    /// The value as a wire parameter, without copying. Booleans bind as 0/1; numbers, dates,
    /// timestamps and JSON as their text, which MySQL and SQLite convert on insert. PostgreSQL
    /// binds parameters in binary, so its statements cast them from their bound type
    /// (`$1::text::numeric`, `$2::int4::boolean`, `$3::text::timestamp`).
    pub fn as_param(&self) -> Param<'a> {
        match *self {
            Value::Null => Param::Null,
            Value::Int(v) => Param::Int(v),
            Value::Bool(b) => Param::Int(i64::from(b)),
            Value::Uuid(b) => Param::Uuid(b),
            Value::Bytes(b) => Param::Bytes(b),
            Value::Float { text, .. }
            | Value::Date { text, .. }
            | Value::Timestamp { text, .. }
            | Value::Decimal(text)
            | Value::Text(text)
            | Value::Json(text) => Param::Text(text),
        }
    }
}
