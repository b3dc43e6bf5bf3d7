//! Sampling a SQLite column: its values as [`SampleValue`]s, probes at evenly spaced rowids or
//! key points.

use crate::doctor::DoctorOptions;
use crate::doctor::key_range::spread_over_key_range;
use crate::doctor::sample::{SampledKey, Samples};
use crate::doctor::schema::quote;
use crate::doctor::value::SampleValue;
use rusqlite::Connection;
use rusqlite::types::{FromSql, FromSqlResult, ToSql, ToSqlOutput, ValueRef};

/// A SQLite value as read: its storage class as it is (TEXT that is not UTF-8 is an error, as
/// with rusqlite's own `Value`).
impl FromSql for SampleValue {
    fn column_result(value: ValueRef<'_>) -> FromSqlResult<Self> {
        Ok(match value {
            ValueRef::Null => SampleValue::Null,
            ValueRef::Integer(i) => SampleValue::Integer(i),
            ValueRef::Real(r) => SampleValue::Real(r),
            ValueRef::Text(s) => SampleValue::Text(std::str::from_utf8(s)?.to_owned()),
            ValueRef::Blob(b) => SampleValue::Blob(b.to_vec()),
        })
    }
}

/// A probe bound as a SQLite parameter of its own storage class.
impl ToSql for SampleValue {
    fn to_sql(&self) -> rusqlite::Result<ToSqlOutput<'_>> {
        Ok(ToSqlOutput::Borrowed(match self {
            SampleValue::Null => ValueRef::Null,
            SampleValue::Integer(i) => ValueRef::Integer(*i),
            SampleValue::Real(r) => ValueRef::Real(*r),
            SampleValue::Text(s) => ValueRef::Text(s.as_bytes()),
            SampleValue::Blob(b) => ValueRef::Blob(b),
        }))
    }
}

/// Reads at most `options.max_samples` values of `column` spread over the table (all with
/// `options.full`): at evenly spaced rowids in a rowid table, else at evenly spaced points of
/// the key range through the column's index. Each probe is one index seek.
pub fn sample_column(
    conn: &Connection,
    table: &str,
    column: &str,
    has_rowid: bool,
    rows: u64,
    options: &DoctorOptions,
) -> rusqlite::Result<Samples> {
    let (t, c) = (quote(table), quote(column));
    let n = options.max_samples.max(2);
    let read_all = options.full || rows <= n as u64;
    let collect = |sql: &str, with_rowid: bool| -> rusqlite::Result<Vec<SampledKey>> {
        conn.prepare(sql)?
            .query_map([], |r| {
                Ok(if with_rowid {
                    SampledKey { rowid: Some(r.get(0)?), value: r.get(1)? }
                } else {
                    SampledKey { rowid: None, value: r.get(0)? }
                })
            })?
            .collect()
    };
    if read_all {
        let keys = if has_rowid {
            collect(&format!("SELECT rowid, {c} FROM {t} ORDER BY rowid"), true)?
        } else {
            collect(&format!("SELECT {c} FROM {t} ORDER BY {c}"), false)?
        };
        let method = format!("all {} rows{}", keys.len(), if options.full { " (--full)" } else { "" });
        return Ok(Samples { keys, method });
    }
    let mut keys: Vec<SampledKey> = Vec::with_capacity(n);
    if has_rowid {
        let (lo, hi): (i64, i64) =
            conn.query_row(&format!("SELECT min(rowid), max(rowid) FROM {t}"), [], |r| Ok((r.get(0)?, r.get(1)?)))?;
        let mut stmt = conn.prepare(&format!("SELECT rowid, {c} FROM {t} WHERE rowid >= ?1 ORDER BY rowid LIMIT 1"))?;
        for i in 0..n {
            let target = i128::from(lo) + (i128::from(hi) - i128::from(lo)) * i as i128 / (n as i128 - 1);
            let mut rows = stmt.query([target as i64])?;
            if let Some(r) = rows.next()? {
                let key = SampledKey { rowid: Some(r.get(0)?), value: r.get(1)? };
                if keys.last().is_none_or(|k| k.rowid != key.rowid) {
                    keys.push(key);
                }
            }
        }
        let method = format!("{} of {rows} rows at evenly spaced rowids", keys.len());
        return Ok(Samples { keys, method });
    }
    let (lo, hi): (SampleValue, SampleValue) =
        conn.query_row(&format!("SELECT min({c}), max({c}) FROM {t}"), [], |r| Ok((r.get(0)?, r.get(1)?)))?;
    let mut stmt = conn.prepare(&format!("SELECT {c} FROM {t} WHERE {c} >= ?1 ORDER BY {c} LIMIT 1"))?;
    let mut next = conn.prepare(&format!("SELECT {c} FROM {t} WHERE {c} > ?1 ORDER BY {c} LIMIT ?2"))?;
    let keys = spread_over_key_range(
        &lo,
        &hi,
        n,
        |probe| {
            let mut found = stmt.query([probe])?;
            found.next()?.map(|r| Ok(SampledKey { rowid: None, value: r.get(0)? })).transpose()
        },
        |after, limit| {
            next.query_map(rusqlite::params![after, limit as i64], |r| {
                Ok(SampledKey { rowid: None, value: r.get(0)? })
            })?
            .collect()
        },
    )?;
    let method = format!("{} of {rows} rows at evenly spaced points of the key range", keys.len());
    Ok(Samples { keys, method })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sqlite_values_keep_their_storage_class_both_ways() {
        let conn = Connection::open_in_memory().unwrap();
        for (value, class) in [
            (SampleValue::Null, "null"),
            (SampleValue::Integer(-7), "integer"),
            (SampleValue::Real(1.5), "real"),
            (SampleValue::Text("k".into()), "text"),
            (SampleValue::Blob(vec![0, 255]), "blob"),
        ] {
            let (back, typeof_): (SampleValue, String) =
                conn.query_row("SELECT ?1, typeof(?1)", [&value], |r| Ok((r.get(0)?, r.get(1)?))).unwrap();
            assert_eq!((back, typeof_.as_str()), (value, class));
        }
        let invalid_utf8 = conn.query_row("SELECT CAST(x'ff' AS TEXT)", [], |r| r.get::<_, SampleValue>(0));
        assert!(invalid_utf8.is_err(), "{invalid_utf8:?}");
    }
}
