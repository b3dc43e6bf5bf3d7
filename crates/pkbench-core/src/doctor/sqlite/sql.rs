//! The migration script behind the advice, for the user to review and run. Doctor never
//! executes it.

use super::rebuild::Conversion;
use crate::doctor::advice::AdviceKind;
use crate::doctor::sample::KeyStorage;
use crate::doctor::schema::quote;
use crate::doctor::{DoctorReport, TableReport};
use rusqlite::Connection;

/// SQL that turns a text UUID or ULID value into its 16 bytes, or `None` for other storage.
pub(super) fn to_blob(column: &str, storage: KeyStorage) -> Option<String> {
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
    // The keys to store in 16 bytes, converted together after the tables' advice.
    let mut keys: Vec<Conversion> = Vec::new();
    for table in &report.tables {
        if !schemas.iter().any(|s| s.name == table.name) {
            continue;
        }
        out.push_str(&format!("\n-- table {}: {}\n", quote(&table.name), table.verdict));
        for advice in &table.advice {
            match advice.kind {
                AdviceKind::TimeOrderedKey | AdviceKind::TimeOrderedUniqueColumn => out.push_str(
                    "-- Application change, no SQL: generate new keys as UUIDv7 (or an ordered integer); old keys stay.\n",
                ),
                AdviceKind::BinaryStorage => match binary_key(table) {
                    Ok(key) => {
                        out.push_str("-- The conversion below stores it in 16 bytes with every column that holds the key, or says why it cannot.\n");
                        keys.push(key);
                        vacuum = true;
                    }
                    Err(line) => out.push_str(&line),
                },
                AdviceKind::Repack => vacuum = true,
            }
        }
    }
    if !keys.is_empty() {
        out.push('\n');
        out.push_str(&super::rebuild::script(conn, keys)?);
    }
    if vacuum {
        out.push_str(
            "\n-- Repack every table and index; needs free disk space of about twice the database.\nVACUUM;\n",
        );
    }
    Ok(out)
}

/// The key of `table` to store in 16 bytes, or the line saying it stays with the application.
fn binary_key(table: &TableReport) -> Result<Conversion, String> {
    let key = table.primary_key.as_ref();
    let storage = key.and_then(|k| k.scheme.as_ref()).map(|s| s.storage).unwrap_or(KeyStorage::Other);
    let column = key.map(|k| k.columns[0].clone()).unwrap_or_default();
    match to_blob(&column, storage) {
        Some(_) => Ok(Conversion { table: table.name.clone(), column, storage, key: true }),
        None => Err(format!("-- {}: convert '{column}' to 16 bytes in the application.\n", storage.label())),
    }
}
