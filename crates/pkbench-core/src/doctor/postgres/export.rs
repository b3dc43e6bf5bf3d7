//! A PostgreSQL table's shape for `doctor --export-schema`, read from the catalog and from
//! aggregates over a bounded sample (counts, distinct counts, value lengths), inside doctor's
//! read-only transaction.

use super::session::ReadOnlySession;
use crate::Error;
use crate::doctor::export::{ExportedColumn, ExportedTable, around};
use crate::doctor::schema::quote;
use postgres::Client;

/// The server's version and the tables around `table` (in `schema`, default the current one),
/// referenced tables first, each with statistics from at most `sample_rows` rows.
pub fn export(
    url: &str,
    schema: Option<&str>,
    table: &str,
    sample_rows: u64,
    connect: &crate::engines::wire::connect::ConnectOptions,
) -> Result<(String, Vec<ExportedTable>), Error> {
    let mut session = ReadOnlySession::connect(url, connect)?;
    let c = session.client();
    let pg = |what: &'static str| move |e| Error::postgres(what, e);
    let version: String = c.query_one("SHOW server_version", &[]).map_err(pg("could not read the version"))?.get(0);
    let ns: String = match schema {
        Some(s) => s.to_string(),
        None => c.query_one("SELECT current_schema()::text", &[]).map_err(pg("could not read the schema"))?.get(0),
    };
    oid(c, &ns, table)?;
    let children = related(c, &ns, table, Direction::Referencing)?;
    let mut parents = |t: &str| related(c, &ns, t, Direction::Referenced);
    let names = around(table, &mut parents, children)?;
    let tables = names.iter().map(|t| read_table(c, &ns, t, sample_rows, t == table)).collect::<Result<_, _>>()?;
    Ok((version, tables))
}

/// Which tables [`related`] lists.
#[derive(Clone, Copy)]
enum Direction {
    /// The tables whose foreign keys reference the table.
    Referencing,
    /// The tables the table's foreign keys reference.
    Referenced,
}

/// The tables linked to `ns.table` by a foreign key (other than to itself), by name.
fn related(c: &mut Client, ns: &str, table: &str, direction: Direction) -> Result<Vec<String>, Error> {
    let (this, other, what) = match direction {
        Direction::Referencing => ("confrelid", "conrelid", "could not list the tables referencing a table"),
        Direction::Referenced => ("conrelid", "confrelid", "could not list the tables a table references"),
    };
    let sql = format!(
        "SELECT DISTINCT t.relname::text FROM pg_constraint k JOIN pg_class t ON t.oid = k.{other} \
         WHERE k.{this} = $1::text::regclass AND k.contype = 'f' AND k.conrelid <> k.confrelid ORDER BY 1"
    );
    let rows = c.query(&sql, &[&qualified(ns, table)]).map_err(|e| Error::postgres(what, e))?;
    Ok(rows.iter().map(|r| r.get(0)).collect())
}

fn qualified(ns: &str, table: &str) -> String {
    format!("{}.{}", quote(ns), quote(table))
}

fn oid(c: &mut Client, ns: &str, table: &str) -> Result<u32, Error> {
    let row = c
        .query_opt(
            "SELECT c.oid FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace \
             WHERE n.nspname = $1 AND c.relname = $2 AND c.relkind IN ('r', 'p')",
            &[&ns, &table],
        )
        .map_err(|e| Error::postgres("could not find the table", e))?;
    row.map(|r| r.get(0))
        .ok_or_else(|| Error::NotFound(format!("table {table} is not in schema {ns}: check --table and --schema")))
}

/// How a column's length is measured, from its type name: characters, bytes, JSON's bytes.
fn length_sql(type_name: &str, column: &str) -> Option<(String, bool)> {
    match type_name {
        "text" | "varchar" | "bpchar" | "citext" | "name" => Some((format!("length({column})"), false)),
        "bytea" => Some((format!("octet_length({column})"), false)),
        "json" | "jsonb" => Some((format!("octet_length({column}::text)"), true)),
        _ => None,
    }
}

/// `ns.table`'s shape and, where the login may read it (the key table, `is_key`, must be
/// readable: its statistics are the point), its statistics from at most `sample_rows` rows.
fn read_table(c: &mut Client, ns: &str, table: &str, sample_rows: u64, is_key: bool) -> Result<ExportedTable, Error> {
    let pg = |what: &'static str| move |e| Error::postgres(what, e);
    let rel = qualified(ns, table);
    let rows_estimate: f32 = c
        .query_one("SELECT reltuples FROM pg_class WHERE oid = $1::text::regclass", &[&rel])
        .map_err(pg("could not read the row estimate"))?
        .get(0);
    let cols: Vec<ColumnDef> = c
        .query(
            "SELECT a.attname::text, format_type(a.atttypid, a.atttypmod), NOT a.attnotnull, t.typname::text \
             FROM pg_attribute a JOIN pg_type t ON t.oid = a.atttypid \
             WHERE a.attrelid = $1::text::regclass AND a.attnum > 0 AND NOT a.attisdropped ORDER BY a.attnum",
            &[&rel],
        )
        .map_err(pg("could not read the columns"))?
        .iter()
        .map(|r| (r.get(0), r.get(1), r.get(2), r.get(3)))
        .collect();
    let index_sql = "SELECT c.relname::text, i.indisunique, i.indisprimary, \
         array(SELECT a.attname::text FROM unnest(i.indkey) WITH ORDINALITY k(n, o) \
               JOIN pg_attribute a ON a.attrelid = i.indrelid AND a.attnum = k.n ORDER BY k.o), \
         i.indnkeyatts = cardinality(array_remove(i.indkey::int2[], 0::int2)) AND i.indexprs IS NULL AND i.indpred IS NULL \
         FROM pg_index i JOIN pg_class c ON c.oid = i.indexrelid WHERE i.indrelid = $1::text::regclass ORDER BY c.relname";
    let (mut primary_key, mut indexes) = (Vec::new(), Vec::new());
    for r in c.query(index_sql, &[&rel]).map_err(pg("could not read the indexes"))? {
        let (name, unique, primary, columns, plain): (String, bool, bool, Vec<String>, bool) =
            (r.get(0), r.get(1), r.get(2), r.get(3), r.get(4));
        if primary {
            primary_key = columns;
        } else if plain {
            // Expression and partial indexes are left out: run --schema makes plain ones.
            indexes.push((name, unique, columns));
        }
    }
    let fk_sql = "SELECT p.relname::text, \
         array(SELECT a.attname::text FROM unnest(k.conkey) WITH ORDINALITY x(n, o) \
               JOIN pg_attribute a ON a.attrelid = k.conrelid AND a.attnum = x.n ORDER BY x.o), \
         array(SELECT a.attname::text FROM unnest(k.confkey) WITH ORDINALITY x(n, o) \
               JOIN pg_attribute a ON a.attrelid = k.confrelid AND a.attnum = x.n ORDER BY x.o) \
         FROM pg_constraint k JOIN pg_class p ON p.oid = k.confrelid \
         WHERE k.conrelid = $1::text::regclass AND k.contype = 'f' ORDER BY k.conname";
    let foreign_keys = c
        .query(fk_sql, &[&rel])
        .map_err(pg("could not read the foreign keys"))?
        .iter()
        .map(|r| (r.get(1), r.get(0), r.get(2)))
        .collect();
    let rows_estimate = (rows_estimate >= 0.0).then_some(rows_estimate as u64);
    // A table around the key table that this login may not read (a role granted SELECT on the
    // key table alone): its definition is the catalog's, its columns without statistics.
    let readable: bool = is_key
        || c.query_one("SELECT has_table_privilege($1::text::regclass, 'SELECT')", &[&rel])
            .map_err(pg("could not read the table's privileges"))?
            .get(0);
    let (sampled, columns) = match readable {
        true => sample(c, &rel, &cols, sample_rows)?,
        false => {
            (0, cols.into_iter().map(|(name, declared, nullable, _)| unsampled(name, declared, nullable)).collect())
        }
    };
    Ok(ExportedTable { name: table.to_string(), rows_estimate, sampled, columns, primary_key, indexes, foreign_keys })
}

/// A column's declaration (name, declared type, nullable, type name).
type ColumnDef = (String, String, bool, String);

/// A column of a table this login may not read: its declaration, no statistics.
fn unsampled(name: String, declared: String, nullable: bool) -> ExportedColumn {
    ExportedColumn { name, declared, nullable, nulls: 0, distinct: None, lengths: Vec::new(), json: false }
}

/// Rows sampled from `rel` (at most `sample_rows`) and each of its columns `cols` with the
/// sample's statistics, from aggregates only.
fn sample(
    c: &mut Client,
    rel: &str,
    cols: &[ColumnDef],
    sample_rows: u64,
) -> Result<(u64, Vec<ExportedColumn>), Error> {
    let pg = |what: &'static str| move |e| Error::postgres(what, e);
    // Aggregates over the sample: counts only.
    let sample = format!("(SELECT * FROM {rel} LIMIT {sample_rows}) s");
    let mut aggregates = vec!["count(*)".to_string()];
    for (name, _, _, ty) in cols {
        let q = quote(name);
        aggregates.push(format!("count({q})"));
        let distinct = if matches!(ty.as_str(), "json" | "xml" | "point") {
            "NULL::bigint".into()
        } else {
            format!("count(DISTINCT {q})")
        };
        aggregates.push(distinct);
    }
    let row = c
        .query_one(&format!("SELECT {} FROM {sample}", aggregates.join(", ")), &[])
        .map_err(pg("could not read the sample's counts"))?;
    let sampled = row.get::<_, i64>(0).max(0) as u64;
    let mut columns = Vec::new();
    for (i, (name, declared, nullable, ty)) in cols.iter().enumerate() {
        let present = row.get::<_, i64>(1 + 2 * i).max(0) as u64;
        let distinct = row.get::<_, Option<i64>>(2 + 2 * i).map(|d| d.max(0) as u64);
        let (lengths, json) = match length_sql(ty, &quote(name)) {
            Some((len, json)) => {
                let sql = format!(
                    "SELECT {len}::bigint AS l, count(*) FROM {sample} WHERE {} IS NOT NULL GROUP BY l ORDER BY l",
                    quote(name)
                );
                let lengths = c
                    .query(&sql, &[])
                    .map_err(pg("could not read the sample's value lengths"))?
                    .iter()
                    .map(|r| (r.get::<_, i64>(0).max(0) as u64, r.get::<_, i64>(1).max(0) as u64))
                    .collect();
                (lengths, json)
            }
            None => (Vec::new(), false),
        };
        columns.push(ExportedColumn {
            name: name.clone(),
            declared: declared.clone(),
            nullable: *nullable,
            nulls: sampled - present.min(sampled),
            distinct,
            lengths,
            json,
        });
    }
    Ok((sampled, columns))
}
