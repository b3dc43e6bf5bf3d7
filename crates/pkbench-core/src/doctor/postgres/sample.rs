//! Bounded key sampling on PostgreSQL: rows at evenly spaced heap page ranges (TID range scans),
//! with their ctid, so key order can be compared with insertion order.

use super::{PgTable, pg, rel};
use crate::Error;
use crate::doctor::DoctorOptions;
use crate::doctor::schema::KeySchema;
use crate::doctor::value::SampleValue;
use postgres::{Client, Row};

/// SQL reading a column as a value doctor can classify: integers, uuid and bytea as themselves,
/// anything else as text.
pub(super) fn fetch_expr(column: &str, type_name: &str) -> String {
    let q = crate::doctor::schema::quote(column);
    match type_name {
        "int2" | "int4" | "int8" => format!("{q}::int8"),
        "uuid" | "bytea" => q,
        _ => format!("{q}::text"),
    }
}

fn value_at(row: &Row, i: usize, type_name: &str) -> SampleValue {
    let v = match type_name {
        "int2" | "int4" | "int8" => row.try_get::<_, Option<i64>>(i).ok().flatten().map(SampleValue::Integer),
        "uuid" => {
            row.try_get::<_, Option<uuid::Uuid>>(i).ok().flatten().map(|u| SampleValue::Blob(u.as_bytes().to_vec()))
        }
        "bytea" => row.try_get::<_, Option<Vec<u8>>>(i).ok().flatten().map(SampleValue::Blob),
        _ => row.try_get::<_, Option<String>>(i).ok().flatten().map(SampleValue::Text),
    };
    v.unwrap_or(SampleValue::Null)
}

/// Sampled rows: ctid as a number (block × 65536 + offset), each key column's value and datum
/// size, and the row's size.
pub(super) struct HeapSample {
    pub(super) rowid: i64,
    pub(super) values: Vec<(SampleValue, i32)>,
    pub(super) row_bytes: i32,
}

/// Reads at most `options.max_samples` rows, one at each of that many evenly spaced heap page
/// ranges (a TID range scan reads only those pages), or every row with `--full` or a small table.
pub(super) fn sample_heap(
    c: &mut Client,
    t: &PgTable,
    exprs: &[String],
    keys: &[&KeySchema],
    rows: u64,
    options: &DoctorOptions,
) -> Result<(Vec<HeapSample>, String), Error> {
    let table = rel(c, t.oid)?;
    let cols = if exprs.is_empty() { String::new() } else { format!(", {}", exprs.join(", ")) };
    let select = format!(
        "SELECT (ctid::text::point)[0]::int8, (ctid::text::point)[1]::int8, pg_column_size(t.*){cols} FROM {table} AS t"
    );
    let parse = |r: &Row| HeapSample {
        rowid: r.get::<_, i64>(0) * 65_536 + r.get::<_, i64>(1),
        row_bytes: r.get(2),
        values: keys
            .iter()
            .enumerate()
            .map(|(i, k)| {
                let ty = t.types.iter().find(|c| c.0 == k.columns[0]).map(|c| c.1.as_str()).unwrap_or("text");
                (value_at(r, 3 + 2 * i, ty), r.try_get::<_, Option<i32>>(4 + 2 * i).ok().flatten().unwrap_or(0))
            })
            .collect(),
    };
    let n = options.max_samples.max(2);
    if options.full || rows <= n as u64 {
        let all: Vec<HeapSample> =
            c.query(&select, &[]).map_err(pg("could not read keys"))?.iter().map(parse).collect();
        let method = format!("all {} rows{}", all.len(), if options.full { " (--full)" } else { "" });
        return Ok((all, method));
    }
    // One probe per page range; with fewer pages than samples, several rows from each page.
    let pages = (t.heap_bytes.max(0) / 8192).max(1);
    let probes = (n as i64).min(pages);
    let per_probe = (n as i64 + probes - 1) / probes;
    let probe = c
        .prepare(&format!("{select} WHERE ctid >= $1::text::tid AND ctid < $2::text::tid LIMIT $3"))
        .map_err(pg("could not prepare the key sample"))?;
    let mut out = Vec::with_capacity(n);
    for i in 0..probes {
        let (from, to) = (pages * i / probes, pages * (i + 1) / probes);
        let (a, b) = (format!("({from},0)"), format!("({to},0)"));
        let found = c.query(&probe, &[&a, &b, &per_probe]).map_err(pg("could not sample keys"))?;
        out.extend(found.iter().map(parse));
    }
    let method = format!(
        "{} of {rows} rows: up to {per_probe} from the start of each of {probes} evenly spaced ranges of the {pages} heap pages (ctid ranges)",
        out.len()
    );
    Ok((out, method))
}
