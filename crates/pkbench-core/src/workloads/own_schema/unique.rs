//! Values for a column that leads a unique index: each row's value is one no other row has, and
//! valid for the column's type. Text starts with the row number in base 36; integers, decimals,
//! floats, dates and timestamps are advanced by the row number from the start of the column's
//! range; random UUIDs and long random bytes are kept as drawn (they do not repeat in practice).
//! A type that cannot hold as many distinct values as the table's rows is refused before the
//! first row, in one line naming the column.

use crate::Error;
use crate::values::calendar::{write_date, write_timestamp};
use crate::values::{ColumnSpec, Param, Value, ValueKind};
use std::fmt::Write;

/// Characters of the row number a unique text value starts with (base 36: 78 billion rows),
/// fewer when the column is shorter.
const UNIQUE_CHARS: u32 = 7;

/// The last day every engine stores (9999-12-31), in days since 1970-01-01.
const LAST_DAY: i64 = 2_932_896;

/// The last second a MySQL/MariaDB `TIMESTAMP` holds (2038-01-19 03:14:07 UTC), in
/// microseconds since the Unix epoch: unique timestamps stay before it on every engine.
const LAST_TIMESTAMP_US: i64 = 2_147_483_647_000_000;

/// How a unique column's row gets its own value.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(super) enum Unique {
    /// The row number in base 36 over the first `chars` characters.
    Text {
        /// Characters the row number takes.
        chars: u32,
    },
    /// `min + row`.
    Integer {
        /// The column's smallest value.
        min: i64,
    },
    /// The row number as the integer part, the drawn fraction kept.
    Decimal,
    /// `min + row`, a float that holds every integer up to 2⁵³ exactly.
    Float {
        /// The column's smallest value.
        min: f64,
    },
    /// `start + row` days.
    Date {
        /// The column's first day.
        start_day: i32,
    },
    /// `start + row × step`.
    Timestamp {
        /// The column's first time, µs since the Unix epoch.
        start_us: i64,
        /// Between one row's time and the next: a second where the rows fit (a column without
        /// fractional seconds keeps them apart), else a millisecond or a microsecond.
        step_us: i64,
    },
    /// The enum's value number `row`.
    Enum,
    /// The row number, big-endian, over the last `len` bytes.
    Bytes {
        /// Bytes the value has.
        len: usize,
    },
    /// As drawn: random UUIDs, random bytes of 8 or more, JSON.
    AsDrawn,
}

impl Unique {
    /// How `column` of `spec` (in `table`) gets `rows` distinct values; a one-line refusal when
    /// its type cannot hold that many.
    pub(super) fn for_column(table: &str, column: &str, spec: &ColumnSpec, rows: u64) -> Result<Self, Error> {
        let refuse = |holds: String| {
            Error::InvalidInput(format!(
                "{table}.{column} leads a unique index, but {holds}, fewer than the {rows} rows asked: lower --rows (or --parent-rows), or widen the column"
            ))
        };
        let last = rows.saturating_sub(1);
        Ok(match &spec.kind {
            ValueKind::Text { lengths, .. } => {
                let chars = UNIQUE_CHARS.min(lengths.max());
                if chars == 0 || 36f64.powi(chars as i32) < rows as f64 {
                    return Err(refuse(format!("its values of at most {} characters hold too few", lengths.max())));
                }
                Unique::Text { chars }
            }
            ValueKind::Integer { min, max } => {
                let span = (*max as i128 - *min as i128 + 1) as u128;
                if span < u128::from(rows) {
                    return Err(refuse(format!("its integers from {min} to {max} are {span} values")));
                }
                Unique::Integer { min: *min }
            }
            ValueKind::Decimal { precision, scale } => {
                let whole = 10f64.powi(i32::from(precision - scale));
                if whole < rows as f64 {
                    return Err(refuse(format!("NUMERIC({precision},{scale}) has {whole} integer parts")));
                }
                Unique::Decimal
            }
            ValueKind::Float { min, .. } => {
                if rows > 1 << 53 {
                    return Err(refuse("a float holds 2^53 consecutive integers".into()));
                }
                Unique::Float { min: *min }
            }
            ValueKind::Date { start_day, .. } => {
                let days = LAST_DAY - i64::from(*start_day) + 1;
                if days < rows as i64 {
                    return Err(refuse(format!("its dates up to 9999-12-31 are {days} days")));
                }
                Unique::Date { start_day: *start_day }
            }
            ValueKind::Timestamp { start_us, .. } => {
                let room = LAST_TIMESTAMP_US.saturating_sub(*start_us);
                let step_us = [1_000_000i64, 1_000, 1]
                    .into_iter()
                    .find(|&s| i128::from(last) * i128::from(s) <= i128::from(room));
                let Some(step_us) = step_us else {
                    return Err(refuse("its microseconds before 2038-01-19 are too few".into()));
                };
                Unique::Timestamp { start_us: *start_us, step_us }
            }
            ValueKind::Binary { lengths } if lengths.max() < 8 => {
                let len = lengths.max() as usize;
                if len == 0 || 256f64.powi(len as i32) < rows as f64 {
                    return Err(refuse(format!("its values of at most {len} bytes hold too few")));
                }
                Unique::Bytes { len }
            }
            ValueKind::Bool => return Err(refuse("a boolean has 2 values".into())),
            ValueKind::Enum { values } if (values.len() as u64) < rows => {
                return Err(refuse(format!("its {} values are too few", values.len())));
            }
            ValueKind::Enum { .. } => Unique::Enum,
            ValueKind::Binary { .. } | ValueKind::Uuid | ValueKind::Json { .. } => Unique::AsDrawn,
        })
    }

    /// Row `row`'s value, made from the one drawn for it; `text` and `bytes` are the column's
    /// buffers, `enum_values` an enum column's values.
    pub(super) fn value<'a>(
        self,
        drawn: Value<'a>,
        row: u64,
        text: &'a mut String,
        bytes: &'a mut [u8; 16],
        enum_values: &'a [String],
    ) -> Param<'a> {
        text.clear();
        match (self, drawn) {
            (_, Value::Null) => Param::Null,
            (Unique::Text { chars }, Value::Text(t)) => {
                const DIGITS: &[u8; 36] = b"0123456789abcdefghijklmnopqrstuvwxyz";
                // Lowest digit first, digits and lower-case letters only: unique under a
                // case-insensitive collation too (MariaDB's default).
                let mut n = row;
                for _ in 0..chars {
                    text.push(DIGITS[(n % 36) as usize] as char);
                    n /= 36;
                }
                text.extend(t.chars().skip(chars as usize));
                Param::Text(text)
            }
            (Unique::Enum, _) => enum_values.get(row as usize).map_or(Param::Null, |v| Param::Text(v)),
            (Unique::Integer { min }, _) => Param::Int(min.saturating_add(row as i64)),
            (Unique::Decimal, Value::Decimal(d)) => {
                let _ = write!(text, "{row}");
                if let Some(fraction) = d.find('.').map(|i| &d[i..]) {
                    text.push_str(fraction);
                }
                Param::Text(text)
            }
            (Unique::Float { min }, _) => {
                let _ = write!(text, "{}", min + row as f64);
                Param::Text(text)
            }
            (Unique::Date { start_day }, _) => {
                write_date(text, start_day.saturating_add(row as i32));
                Param::Text(text)
            }
            (Unique::Timestamp { start_us, step_us }, _) => {
                write_timestamp(text, start_us.saturating_add((row as i64).saturating_mul(step_us)));
                Param::Text(text)
            }
            (Unique::Bytes { len }, _) => {
                bytes[8..].copy_from_slice(&row.to_be_bytes());
                Param::Bytes(&bytes[16 - len..])
            }
            (Unique::Text { .. } | Unique::Decimal | Unique::AsDrawn, other) => other.as_param(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::values::{ColumnGenerator, SqlType};
    use std::collections::BTreeSet;

    /// Each of `rows` rows' unique value for a column of `ty`, as the text or bytes bound.
    fn values(ty: SqlType, rows: u64) -> Result<Vec<String>, Error> {
        let spec = ColumnSpec::for_type(ty);
        let unique = Unique::for_column("t", "c", &spec, rows)?;
        let mut g = ColumnGenerator::new(spec, 7)?;
        let (mut text, mut bytes) = (String::new(), [0u8; 16]);
        Ok((0..rows)
            .map(|row| match unique.value(g.next_value(), row, &mut text, &mut bytes, &[]) {
                Param::Int(v) => v.to_string(),
                Param::Text(t) => t.to_string(),
                Param::Bytes(b) => format!("{b:?}"),
                Param::Uuid(b) => format!("{b:?}"),
                Param::Null => "NULL".into(),
            })
            .collect())
    }

    fn distinct(v: &[String]) -> bool {
        v.iter().collect::<BTreeSet<_>>().len() == v.len()
    }

    #[test]
    fn timestamps_and_dates_stay_valid_and_distinct_to_the_second() {
        let ts = values(SqlType::Timestamp, 5_000).unwrap();
        assert!(distinct(&ts));
        for t in &ts {
            // YYYY-MM-DD HH:MM:SS.ffffff with whole seconds apart: distinct without fractions.
            let (date, time) = t.split_once(' ').unwrap();
            assert_eq!((date.len(), time.len()), (10, 15), "{t}");
            assert!(date[..4].parse::<u32>().unwrap() >= 1970 && time.ends_with(".000000"), "{t}");
        }
        let seconds: BTreeSet<_> = ts.iter().map(|t| &t[..19]).collect();
        assert_eq!(seconds.len(), ts.len());
        let dates = values(SqlType::Date, 5_000).unwrap();
        assert!(distinct(&dates) && dates.iter().all(|d| d.len() == 10 && d.as_bytes()[4] == b'-'));
    }

    #[test]
    fn numbers_text_and_short_bytes_are_distinct() {
        for ty in [
            SqlType::Integer(2),
            SqlType::Integer(8),
            SqlType::Decimal { precision: 8, scale: 2 },
            SqlType::Float,
            SqlType::Text { max_chars: Some(4) },
            SqlType::Text { max_chars: None },
            SqlType::Binary { max: Some(3) },
            SqlType::Uuid,
        ] {
            let v = values(ty, 20_000).unwrap();
            assert!(distinct(&v), "{ty:?}: {:?}", &v[..5]);
        }
        let d = values(SqlType::Decimal { precision: 6, scale: 2 }, 3).unwrap();
        assert!(d.iter().all(|x| x.split_once('.').is_some_and(|(_, f)| f.len() == 2)), "{d:?}");
    }

    #[test]
    fn a_type_too_small_for_the_rows_is_refused_in_one_line_naming_the_column() {
        for (ty, rows) in [
            (SqlType::Integer(1), 1_000_000),
            (SqlType::Bool, 3),
            (SqlType::Decimal { precision: 4, scale: 2 }, 101),
            (SqlType::Text { max_chars: Some(2) }, 1_297),
        ] {
            let e = values(ty, rows).unwrap_err().to_string();
            assert!(e.contains("t.c leads a unique index") && e.contains("lower --rows") && !e.contains('\n'), "{e}");
        }
        // A tinyint's default values are 0 to 127.
        assert!(values(SqlType::Integer(1), 128).is_ok() && values(SqlType::Integer(1), 129).is_err());
        assert!(values(SqlType::Text { max_chars: Some(2) }, 1_296).is_ok(), "36² values");
    }
}
