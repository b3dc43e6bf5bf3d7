//! A column's declared type (as sqlparser reads it) mapped to what pkbench generates for it.

use crate::values::SqlType;
use sqlparser::ast::{BinaryLength, CharacterLength, DataType, EnumMember, ExactNumberInfo};

/// What pkbench generates for a column declared `ty`; `None` for a type it cannot generate
/// (arrays, intervals, geometry, user types).
pub fn sql_type(ty: &DataType) -> Option<SqlType> {
    use DataType as D;
    let chars = |l: &Option<CharacterLength>| match l {
        Some(CharacterLength::IntegerLength { length, .. }) => Some((*length).min(u64::from(u32::MAX)) as u32),
        _ => None,
    };
    Some(match ty {
        D::TinyInt(_) | D::TinyIntUnsigned(_) | D::UTinyInt | D::Bool | D::Boolean => match ty {
            D::Bool | D::Boolean => SqlType::Bool,
            _ => SqlType::Integer(1),
        },
        D::SmallInt(_) | D::SmallIntUnsigned(_) | D::Int2(_) | D::Int2Unsigned(_) | D::USmallInt => SqlType::Integer(2),
        D::MediumInt(_) | D::MediumIntUnsigned(_) => SqlType::Integer(3),
        D::Int(_)
        | D::Int4(_)
        | D::Integer(_)
        | D::IntUnsigned(_)
        | D::Int4Unsigned(_)
        | D::IntegerUnsigned(_)
        | D::Int32
        | D::UInt32 => SqlType::Integer(4),
        D::BigInt(_) | D::BigIntUnsigned(_) | D::Int8(_) | D::Int8Unsigned(_) | D::UBigInt | D::Int64 | D::UInt64 => {
            SqlType::Integer(8)
        }
        D::Numeric(info) | D::Decimal(info) | D::DecimalUnsigned(info) | D::Dec(info) | D::DecUnsigned(info) => {
            let (precision, scale) = match info {
                ExactNumberInfo::None => (18, 2),
                ExactNumberInfo::Precision(p) => (*p, 0),
                ExactNumberInfo::PrecisionAndScale(p, s) => (*p, (*s).max(0) as u64),
            };
            SqlType::Decimal { precision: precision.min(38) as u8, scale: scale.min(precision.min(38)) as u8 }
        }
        D::Float(_)
        | D::FloatUnsigned(_)
        | D::Float4
        | D::Float8
        | D::Float32
        | D::Float64
        | D::Real
        | D::RealUnsigned
        | D::Double(_)
        | D::DoubleUnsigned(_)
        | D::DoublePrecision
        | D::DoublePrecisionUnsigned => SqlType::Float,
        D::Character(l) | D::Char(l) | D::CharacterVarying(l) | D::CharVarying(l) | D::Varchar(l) | D::Nvarchar(l) => {
            SqlType::Text { max_chars: chars(l) }
        }
        D::Text | D::TinyText | D::MediumText | D::LongText | D::String(None) | D::Clob(_) => {
            SqlType::Text { max_chars: None }
        }
        D::String(Some(n)) => SqlType::Text { max_chars: Some((*n).min(u64::from(u32::MAX)) as u32) },
        D::Binary(n) | D::Blob(n) | D::Bytes(n) => {
            SqlType::Binary { max: n.map(|n| n.min(u64::from(u32::MAX)) as u32) }
        }
        D::Varbinary(Some(BinaryLength::IntegerLength { length })) => {
            SqlType::Binary { max: Some((*length).min(u64::from(u32::MAX)) as u32) }
        }
        // MySQL's TINYBLOB holds at most 255 bytes.
        D::TinyBlob => SqlType::Binary { max: Some(255) },
        D::Varbinary(_) | D::MediumBlob | D::LongBlob | D::Bytea => SqlType::Binary { max: None },
        D::Uuid => SqlType::Uuid,
        D::Date => SqlType::Date,
        D::Datetime(_) | D::Timestamp(_, _) | D::TimestampNtz(_) => SqlType::Timestamp,
        D::JSON | D::JSONB => SqlType::Json,
        // One of the labels (the run draws from them): text as long as the longest.
        D::Enum(members, _) => {
            let longest = members
                .iter()
                .map(|m| match m {
                    EnumMember::Name(n) | EnumMember::NamedValue(n, _) => n.chars().count(),
                })
                .max()
                .unwrap_or(1);
            SqlType::Text { max_chars: Some(longest.min(u32::MAX as usize) as u32) }
        }
        D::Set(values) => {
            let longest = values.iter().map(|v| v.chars().count()).max().unwrap_or(1);
            SqlType::Text { max_chars: Some(longest.min(u32::MAX as usize) as u32) }
        }
        D::Collate(inner, _) | D::Zerofill(inner) => return sql_type(inner),
        // SQLite's loose names and MySQL's aliases that sqlparser keeps as custom types.
        D::Custom(name, _) => return custom(&name.to_string()),
        _ => return None,
    })
}

/// Type names sqlparser leaves as custom: `serial` and friends, SQLite's `BLOB`-like affinities.
fn custom(name: &str) -> Option<SqlType> {
    Some(match name.to_ascii_lowercase().as_str() {
        "serial" | "serial4" => SqlType::Integer(4),
        "bigserial" | "serial8" => SqlType::Integer(8),
        "smallserial" | "serial2" => SqlType::Integer(2),
        "timestamptz" | "datetime" => SqlType::Timestamp,
        // MySQL's YEAR holds 1901 to 2155 (see `implied_range`).
        "year" => SqlType::Integer(2),
        "citext" | "name" => SqlType::Text { max_chars: None },
        _ => return None,
    })
}

/// The range of values a type admits beyond its storage size: MySQL's `YEAR` holds 1901–2155.
pub fn implied_range(declared: &str) -> Option<(i64, i64)> {
    let name = declared.split(['(', ' ']).next().unwrap_or_default();
    name.eq_ignore_ascii_case("year").then_some((1901, 2155))
}
