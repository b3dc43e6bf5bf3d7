//! The migration script behind the advice, for the user to review and run. Doctor never
//! executes it.

use crate::doctor::advice::AdviceKind;
use crate::doctor::sample::KeyStorage;
use crate::doctor::schema::{TableSchema, quote};
use crate::doctor::{DoctorReport, TableReport};
use rusqlite::Connection;

/// SQL that turns a text UUID or ULID value into its 16 bytes, or `None` for other storage.
fn to_blob(column: &str, storage: KeyStorage) -> Option<String> {
    let c = quote(column);
    match storage {
        KeyStorage::Text36 => Some(format!("unhex(replace({c}, '-', ''))")),
        KeyStorage::Text32 => Some(format!("unhex({c})")),
        KeyStorage::Text26 => Some(ulid_to_blob(&c)),
        _ => None,
    }
}

/// Crockford base32 (26 characters, 130 bits with the top 2 zero) to 16 bytes in plain SQLite:
/// the high and low 64 bits are summed from 5-bit digits (character 13 straddles the halves)
/// and printed as hex. Integers wrap in two's complement, which `%016x` prints unsigned.
fn ulid_to_blob(c: &str) -> String {
    let digit = |i: usize| format!("(instr('0123456789ABCDEFGHJKMNPQRSTVWXYZ', upper(substr({c}, {}, 1))) - 1)", i + 1);
    let hi: Vec<String> = (0..13).map(|i| format!("({} << {})", digit(i), 5 * (12 - i) + 1)).collect();
    let lo: Vec<String> = (14..26).map(|i| format!("({} << {})", digit(i), 5 * (25 - i))).collect();
    format!(
        "unhex(printf('%016x%016x', {} | ({} >> 4), (({} & 15) << 60) | {}))",
        hi.join(" | "),
        digit(13),
        digit(13),
        lo.join(" | ")
    )
}

/// The script for every table with advice; comments only where nothing needs changing.
pub fn migration_script(conn: &Connection, report: &DoctorReport) -> rusqlite::Result<String> {
    let schemas = super::schema::tables(conn)?;
    let mut out = String::from(
        "-- pkbench doctor: migration script. Review it and take a backup first; doctor has not run it.\n",
    );
    let mut vacuum = false;
    for table in &report.tables {
        let Some(schema) = schemas.iter().find(|s| s.name == table.name) else { continue };
        out.push_str(&format!("\n-- table {}: {}\n", quote(&table.name), table.verdict));
        for advice in &table.advice {
            match advice.kind {
                AdviceKind::TimeOrderedKey | AdviceKind::TimeOrderedUniqueColumn => out.push_str(
                    "-- Application change, no SQL: generate new keys as UUIDv7 (or an ordered integer); old keys stay.\n",
                ),
                AdviceKind::BinaryStorage => {
                    out.push_str(&binary_copy(conn, schema, table)?);
                    vacuum = true;
                }
                AdviceKind::Repack => vacuum = true,
            }
        }
    }
    if vacuum {
        out.push_str(
            "\n-- Repack every table and index; needs free disk space of about twice the database.\nVACUUM;\n",
        );
    }
    Ok(out)
}

/// A copy of `schema`'s table with its text key columns as BLOB, swapped in for the original.
fn binary_copy(conn: &Connection, schema: &TableSchema, table: &TableReport) -> rusqlite::Result<String> {
    let key = table.primary_key.as_ref();
    let storage = key.and_then(|k| k.scheme.as_ref()).map(|s| s.storage).unwrap_or(KeyStorage::Other);
    let key_column = key.map(|k| k.columns[0].clone()).unwrap_or_default();
    let Some(_) = to_blob(&key_column, storage) else {
        return Ok(format!("-- {}: convert '{key_column}' to 16 bytes in the application.\n", storage.label()));
    };
    let info: Vec<(String, String, bool, Option<String>)> = conn
        .prepare("SELECT name, type, \"notnull\", dflt_value FROM pragma_table_info(?1) ORDER BY cid")?
        .query_map([&schema.name], |r| Ok((r.get(0)?, r.get(1)?, r.get::<_, i64>(2)? != 0, r.get(3)?)))?
        .collect::<Result<_, _>>()?;
    let (t, new) = (quote(&schema.name), quote(&format!("{}_binary_key", schema.name)));
    let mut defs: Vec<String> = info
        .iter()
        .map(|(name, ty, notnull, dflt)| {
            let ty = if *name == key_column { "BLOB" } else { ty.as_str() };
            let nn = if *notnull { " NOT NULL" } else { "" };
            let d = dflt.as_ref().map(|d| format!(" DEFAULT {d}")).unwrap_or_default();
            format!("{} {ty}{nn}{d}", quote(name))
        })
        .collect();
    if let Some(k) = key {
        defs.push(format!("PRIMARY KEY ({})", k.columns.iter().map(|c| quote(c)).collect::<Vec<_>>().join(", ")));
    }
    for (_, columns, sql) in &schema.indexes {
        if sql.is_none() && schema.unique.iter().any(|u| &u.columns == columns) {
            defs.push(format!("UNIQUE ({})", columns.iter().map(|c| quote(c)).collect::<Vec<_>>().join(", ")));
        }
    }
    let rowid = if schema.without_rowid { " WITHOUT ROWID" } else { "" };
    let names: Vec<String> = info.iter().map(|c| quote(&c.0)).collect();
    let select: Vec<String> = info
        .iter()
        .map(|c| if c.0 == key_column { to_blob(&c.0, storage).unwrap_or_else(|| quote(&c.0)) } else { quote(&c.0) })
        .collect();
    let mut out = format!(
        "BEGIN;\nCREATE TABLE {new} (\n  {}\n){rowid};\nINSERT INTO {new} ({}) SELECT {} FROM {t} ORDER BY 1;\nDROP TABLE {t};\nALTER TABLE {new} RENAME TO {t};\n",
        defs.join(",\n  "),
        names.join(", "),
        select.join(", ")
    );
    for (_, _, sql) in &schema.indexes {
        if let Some(sql) = sql {
            out.push_str(&format!("{sql};\n"));
        }
    }
    out.push_str("COMMIT;\n-- The application must now bind keys as 16-byte BLOBs.\n");
    Ok(out)
}
