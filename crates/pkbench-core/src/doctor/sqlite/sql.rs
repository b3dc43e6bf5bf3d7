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

/// The key table and every table whose foreign key holds its key, each rebuilt with that column
/// as BLOB and its values converted, as SQLite's ALTER TABLE page describes for a change ALTER
/// TABLE cannot make: foreign keys off (a DROP TABLE would otherwise delete, or cascade to, the
/// rows that reference it), one transaction, each table's definition as written but for the
/// column's type, its indexes and triggers made again, and every reference checked before the
/// commit.
fn binary_copy(conn: &Connection, schema: &TableSchema, table: &TableReport) -> rusqlite::Result<String> {
    let key = table.primary_key.as_ref();
    let storage = key.and_then(|k| k.scheme.as_ref()).map(|s| s.storage).unwrap_or(KeyStorage::Other);
    let key_column = key.map(|k| k.columns[0].clone()).unwrap_or_default();
    if to_blob(&key_column, storage).is_none() {
        return Ok(format!("-- {}: convert '{key_column}' to 16 bytes in the application.\n", storage.label()));
    }
    let mut tables = vec![(schema.name.clone(), key_column.clone(), true)];
    tables.extend(referencing(conn, &schema.name, &key_column)?.into_iter().map(|(t, c)| (t, c, false)));
    let mut out = String::from(
        "-- Foreign keys off while the tables are rebuilt: dropping a table they reference would delete its\n-- referencing rows or fail (these PRAGMAs take effect outside a transaction). The legacy rename\n-- leaves views and triggers that name a table alone while it is made again.\nPRAGMA foreign_keys = OFF;\nPRAGMA legacy_alter_table = ON;\nBEGIN;\n",
    );
    for (name, column, is_key) in &tables {
        out.push_str(&rebuild(conn, name, column, storage, *is_key)?);
    }
    out.push_str(
        "-- Every reference must still resolve: this lists the rows whose reference does not (expect none).\nPRAGMA foreign_key_check;\nCOMMIT;\nPRAGMA legacy_alter_table = OFF;\n-- Back on, if your application turns foreign keys on.\nPRAGMA foreign_keys = ON;\n-- The application must now bind keys as 16-byte BLOBs.\n",
    );
    Ok(out)
}

/// Each other table's single-column foreign key to `table`'s `key` column: (table, column).
fn referencing(conn: &Connection, table: &str, key: &str) -> rusqlite::Result<Vec<(String, String)>> {
    conn.prepare(
        "SELECT m.name, f.\"from\" FROM sqlite_master m, pragma_foreign_key_list(m.name) f \
         WHERE m.type = 'table' AND m.name <> ?1 AND f.\"table\" = ?1 COLLATE NOCASE \
         AND (f.\"to\" IS NULL OR f.\"to\" = ?2 COLLATE NOCASE) \
         AND (SELECT count(*) FROM pragma_foreign_key_list(m.name) g WHERE g.id = f.id) = 1 ORDER BY 1, 2",
    )?
    .query_map([table, key], |r| Ok((r.get(0)?, r.get(1)?)))?
    .collect()
}

/// `table` made again with `column` as BLOB holding its values as 16 bytes (in key order for
/// the key table, whose rows then fill its pages), then its indexes and triggers.
fn rebuild(
    conn: &Connection,
    table: &str,
    column: &str,
    storage: KeyStorage,
    is_key: bool,
) -> rusqlite::Result<String> {
    let new_name = format!("{table}_binary_key");
    let (t, new) = (quote(table), quote(&new_name));
    let sql: String =
        conn.query_row("SELECT sql FROM sqlite_master WHERE type = 'table' AND name = ?1", [table], |r| r.get(0))?;
    let Some(create) = with_blob_column(&sql, &new_name, column) else {
        return Ok(format!(
            "-- {t}: its CREATE TABLE is not one pkbench can rewrite; make {} a BLOB holding {} by hand.\n",
            quote(column),
            to_blob(column, storage).unwrap_or_default()
        ));
    };
    // Generated columns are not copied: the new table computes them.
    let names: Vec<String> = conn
        .prepare("SELECT name FROM pragma_table_info(?1) ORDER BY cid")?
        .query_map([table], |r| r.get(0))?
        .collect::<Result<_, _>>()?;
    let select: Vec<String> = names
        .iter()
        .map(|c| match c.eq_ignore_ascii_case(column) {
            true => to_blob(c, storage).unwrap_or_else(|| quote(c)),
            false => quote(c),
        })
        .collect();
    let order = match names.iter().position(|c| c.eq_ignore_ascii_case(column)) {
        Some(i) if is_key => format!(" ORDER BY {}", i + 1),
        _ => String::new(),
    };
    let quoted: Vec<String> = names.iter().map(|c| quote(c)).collect();
    let mut out = format!(
        "{create};\nINSERT INTO {new} ({}) SELECT {} FROM {t}{order};\nDROP TABLE {t};\nALTER TABLE {new} RENAME TO {t};\n",
        quoted.join(", "),
        select.join(", ")
    );
    let again: Vec<String> = conn
        .prepare(
            "SELECT sql FROM sqlite_master WHERE type IN ('index', 'trigger') AND tbl_name = ?1 AND sql IS NOT NULL \
             ORDER BY type, name",
        )?
        .query_map([table], |r| r.get(0))?
        .collect::<Result<_, _>>()?;
    for sql in again {
        out.push_str(&format!("{sql};\n"));
    }
    Ok(out)
}

/// `create` (a `CREATE TABLE` as SQLite keeps it) named `name`, with `column` declared BLOB and
/// everything else as written: constraints, foreign keys, `WITHOUT ROWID`. `None` where the
/// statement does not parse, or has no such column.
fn with_blob_column(create: &str, name: &str, column: &str) -> Option<String> {
    use sqlparser::ast::{DataType, Ident, ObjectName, Statement};
    let dialect = sqlparser::dialect::SQLiteDialect {};
    let mut statements = sqlparser::parser::Parser::parse_sql(&dialect, create).ok()?;
    let [Statement::CreateTable(table)] = statements.as_mut_slice() else { return None };
    let def = table.columns.iter_mut().find(|c| c.name.value.eq_ignore_ascii_case(column))?;
    def.data_type = DataType::Blob(None);
    table.name = ObjectName::from(vec![Ident::with_quote('"', name)]);
    Some(table.to_string())
}
