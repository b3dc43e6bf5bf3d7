//! Bounded key sampling on MariaDB: index seeks at evenly spaced points of the key range, each
//! key with its insertion-order value (auto-increment or timestamp column) as the "rowid".

use super::quote;
use super::session::my;
use crate::Error;
use crate::doctor::DoctorOptions;
use crate::doctor::key_range::spread_over_key_range;
use crate::doctor::sample::{SampledKey, Samples};
use crate::doctor::value::SampleValue;
use crate::generators::{decode_hyphenated, encode_hyphenated_str};
use mysql::prelude::Queryable;
use mysql::{Conn, Params, Value as My};

/// How a key column's values travel between MariaDB and doctor.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(super) enum Kind {
    Int,
    Binary,
    Text,
    Uuid,
}

impl Kind {
    pub(super) fn of(data_type: &str) -> Kind {
        match data_type {
            "tinyint" | "smallint" | "mediumint" | "int" | "bigint" => Kind::Int,
            "binary" | "varbinary" | "blob" | "tinyblob" | "mediumblob" | "longblob" => Kind::Binary,
            "uuid" => Kind::Uuid,
            _ => Kind::Text,
        }
    }

    fn read(self, v: My) -> SampleValue {
        match (self, v) {
            (_, My::Int(i)) => SampleValue::Integer(i),
            (_, My::UInt(u)) => SampleValue::Integer(u as i64),
            (Kind::Binary, My::Bytes(b)) => SampleValue::Blob(b),
            (Kind::Uuid, My::Bytes(b)) => match decode_hyphenated(&b) {
                Ok(bytes) => SampleValue::Blob(bytes.to_vec()),
                Err(_) => SampleValue::Text(String::from_utf8_lossy(&b).into_owned()),
            },
            (Kind::Int, My::Bytes(b)) => {
                String::from_utf8_lossy(&b).parse().map(SampleValue::Integer).unwrap_or(SampleValue::Null)
            }
            (_, My::Bytes(b)) => SampleValue::Text(String::from_utf8_lossy(&b).into_owned()),
            _ => SampleValue::Null,
        }
    }

    fn param(self, v: &SampleValue) -> My {
        match v {
            SampleValue::Integer(i) => My::Int(*i),
            SampleValue::Text(s) => My::Bytes(s.as_bytes().to_vec()),
            SampleValue::Blob(b) if self == Kind::Uuid && b.len() == 16 => {
                let bytes: [u8; 16] = b.as_slice().try_into().unwrap_or([0; 16]);
                My::Bytes(encode_hyphenated_str(&bytes, &mut [0; 36]).as_bytes().to_vec())
            }
            SampleValue::Blob(b) => My::Bytes(b.clone()),
            _ => My::NULL,
        }
    }
}

/// Fixed storage bytes of integer types (`LENGTH()` would count their digits).
pub(super) fn column_bytes_sql(column: &str, data_type: &str) -> String {
    match data_type {
        "tinyint" => "1".into(),
        "smallint" => "2".into(),
        "mediumint" => "3".into(),
        "int" => "4".into(),
        "bigint" | "double" | "datetime" => "8".into(),
        "timestamp" | "float" => "4".into(),
        "uuid" => "16".into(),
        _ => format!("COALESCE(LENGTH({}), 0)", quote(column)),
    }
}

/// At most `options.max_samples` keys by index seeks spread over the key range (all with `--full`
/// or a small table), each with its insertion-order value as the "rowid".
pub(super) fn sample_key(
    c: &mut Conn,
    from: &str,
    column: &str,
    insertion: &str,
    kind: Kind,
    rows: u64,
    options: &DoctorOptions,
) -> Result<Samples, Error> {
    let k = quote(column);
    let select = format!("SELECT {k}, {insertion} FROM {from}");
    let to_key = |mut r: mysql::Row| -> SampledKey {
        let value = kind.read(r.take::<My, _>(0).unwrap_or(My::NULL));
        let rowid = match r.take::<My, _>(1) {
            Some(My::Int(i)) => Some(i),
            Some(My::UInt(u)) => Some(u as i64),
            _ => None,
        };
        SampledKey { rowid, value }
    };
    let n = options.max_samples.max(2);
    if options.full || rows <= n as u64 {
        let all: Vec<mysql::Row> = c.query(format!("{select} ORDER BY {k}")).map_err(my("could not read keys"))?;
        let keys: Vec<SampledKey> = all.into_iter().map(to_key).collect();
        let method = format!("all {} rows{}", keys.len(), if options.full { " (--full)" } else { "" });
        return Ok(Samples { keys, method });
    }
    let ends: Option<(My, My)> =
        c.query_first(format!("SELECT MIN({k}), MAX({k}) FROM {from}")).map_err(my("could not read the key range"))?;
    let Some((lo, hi)) = ends else { return Ok(Samples { keys: vec![], method: "no rows".into() }) };
    let (lo, hi) = (kind.read(lo), kind.read(hi));
    let probe = c.prep(format!("{select} WHERE {k} >= ? ORDER BY {k} LIMIT 1")).map_err(my("could not prepare"))?;
    let next = c.prep(format!("{select} WHERE {k} > ? ORDER BY {k} LIMIT ?")).map_err(my("could not prepare"))?;
    let cell = std::cell::RefCell::new(c);
    let keys = spread_over_key_range(
        &lo,
        &hi,
        n,
        |p| {
            let row: Option<mysql::Row> =
                cell.borrow_mut().exec_first(&probe, Params::Positional(vec![kind.param(&p)]))?;
            Ok::<_, mysql::Error>(row.map(to_key))
        },
        |after, limit| {
            let params = Params::Positional(vec![kind.param(after), My::UInt(limit as u64)]);
            let rows: Vec<mysql::Row> = cell.borrow_mut().exec(&next, params)?;
            Ok(rows.into_iter().map(to_key).collect())
        },
    )
    .map_err(my("could not sample keys"))?;
    let method = format!("{} of {rows} rows by index seeks at evenly spaced points of the key range", keys.len());
    Ok(Samples { keys, method })
}
