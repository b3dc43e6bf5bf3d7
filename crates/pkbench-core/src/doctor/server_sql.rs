//! The migration script behind the advice on PostgreSQL and MariaDB, written from the report
//! alone (doctor reads nothing more and never executes it).

use super::advice::AdviceKind;
use super::sample::KeyStorage;
use super::schema::{ReferencedColumn, ReferencingColumn};
use super::{DoctorReport, TableReport, sharded_doctor};
use crate::Error;
use crate::engines::EngineKind;

/// `schema.table` or `table`, each part quoted with `open`/`close`.
fn qualified(name: &str, quote: fn(&str) -> String) -> String {
    name.split('.').map(quote).collect::<Vec<_>>().join(".")
}

fn pg_quote(s: &str) -> String {
    EngineKind::Postgres.dialect().quote(s)
}

fn my_quote(s: &str) -> String {
    EngineKind::MariaDb.dialect().quote(s)
}

/// The leading number of a version string (`15.4` → 15, `10.11.6-MariaDB` → (10, 11)).
fn version(v: &str) -> (u32, u32) {
    let mut parts = v.split(|c: char| !c.is_ascii_digit()).filter(|p| !p.is_empty()).map(|p| p.parse().unwrap_or(0));
    (parts.next().unwrap_or(0), parts.next().unwrap_or(0))
}

fn key_of(t: &TableReport) -> Option<(&str, KeyStorage)> {
    let k = t.primary_key.as_ref()?;
    Some((k.columns[0].as_str(), k.scheme.as_ref().map_or(KeyStorage::Other, |s| s.storage)))
}

/// The script for every table with advice, in the report's dialect (SQLite needs the file: see
/// [`super::migration_sql`]).
pub fn script(report: &DoctorReport) -> Result<String, Error> {
    let engine = report
        .engine_kind()
        .ok_or_else(|| Error::InvalidInput(format!("doctor cannot write SQL for the engine '{}'", report.engine)))?;
    let (major, minor) = version(&report.engine_version);
    let mut out = String::from(
        "-- pkbench doctor: migration script. Review it and take a backup first; doctor has not run it.\n",
    );
    for t in &report.tables {
        out.push_str(&format!("\n-- table {}: {}\n", t.name, t.verdict));
        for a in &t.advice {
            let text = match engine {
                EngineKind::Postgres => postgres(t, a.kind, major),
                EngineKind::MariaDb => mariadb(t, a.kind, (major, minor)),
                EngineKind::Spider | EngineKind::PostgresFdw => return Err(sharded_doctor(engine)),
                EngineKind::MyRocks => return Err(super::lsm_doctor(engine)),
                EngineKind::Sqlite => {
                    return Err(Error::InvalidInput(
                        "a SQLite script needs the file: see doctor::migration_sql".into(),
                    ));
                }
            };
            out.push_str(&text);
        }
    }
    Ok(out)
}

fn postgres(t: &TableReport, kind: AdviceKind, major: u32) -> String {
    let table = qualified(&t.name, pg_quote);
    let key = key_of(t);
    match kind {
        AdviceKind::TimeOrderedKey => match key {
            Some(_) if let Some(parent) = &t.key_references => copied_key(parent),
            Some((col, KeyStorage::NativeUuid | KeyStorage::Blob16)) if major >= 18 => format!(
                "-- New keys from the server's UUIDv7 generator (PostgreSQL 18+); old keys stay.\nALTER TABLE {table} ALTER COLUMN {} SET DEFAULT uuidv7();\n",
                pg_quote(col)
            ),
            // The default must wait for the conversion to uuid further down the script.
            Some((col, KeyStorage::Text36 | KeyStorage::Text32)) if major >= 18 => format!(
                "-- New keys from the server's UUIDv7 generator (PostgreSQL 18+) once the key is uuid: after the conversion below, run\n-- ALTER TABLE {table} ALTER COLUMN {} SET DEFAULT uuidv7();\n",
                pg_quote(col)
            ),
            _ if major >= 18 => "-- uuidv7() returns uuid and this key is not stored as uuid: generate UUIDv7 in the application. Old keys stay.\n".into(),
            _ => format!(
                "-- PostgreSQL {major} has no uuidv7() (added in 18): generate UUIDv7 in the application, or install an extension such as pg_uuidv7 and use it as the column default. Old keys stay.\n"
            ),
        },
        AdviceKind::TimeOrderedUniqueColumn => {
            "-- Application change, no SQL: generate new values of the UNIQUE column as UUIDv7.\n".into()
        }
        AdviceKind::BinaryStorage => match key {
            Some(_) if let Some(parent) = &t.key_references => converted_with_parent(parent),
            Some((col, KeyStorage::Text36 | KeyStorage::Text32)) => postgres_to_uuid(t, &table, col),
            _ => {
                "-- The key is not hexadecimal text (base32 ULID?): convert it to 16 bytes in the application.\n".into()
            }
        },
        AdviceKind::Repack => format!(
            "-- Rebuild the sparse indexes without blocking writes (cannot run inside a transaction block).\nREINDEX TABLE CONCURRENTLY {table};\n"
        ),
    }
}

/// The key converted to `uuid`, and with it every column whose foreign key holds it (down a
/// chain too): each foreign key dropped, its column converted, and the foreign key made again as
/// the server wrote it (a foreign key's columns must keep the key's type), in one transaction.
fn postgres_to_uuid(t: &TableReport, table: &str, col: &str) -> String {
    let to_uuid = |table: &str, c: &str| {
        let c = pg_quote(c);
        format!("ALTER TABLE {table} ALTER COLUMN {c} TYPE uuid USING {c}::uuid;\n")
    };
    let children: Vec<(String, &ReferencingColumn)> =
        t.referenced_by.iter().map(|r| (qualified(&r.table, pg_quote), r)).collect();
    let mut out = String::from(
        "-- Rewrites the table and rebuilds its indexes (ACCESS EXCLUSIVE lock while it runs), and so every table whose foreign key holds the key: each foreign key is dropped, its column converted with the key, and made again as it was (which checks every row, unless it was NOT VALID).\nBEGIN;\n",
    );
    for (child, r) in &children {
        out.push_str(&format!("ALTER TABLE {child} DROP CONSTRAINT {};\n", pg_quote(&r.constraint)));
    }
    out.push_str(&to_uuid(table, col));
    for (child, r) in converted_columns(&children) {
        out.push_str(&to_uuid(child, &r.column));
    }
    for (child, r) in &children {
        let definition = fk_definition(r, table, col, pg_quote);
        out.push_str(&format!("ALTER TABLE {child} ADD CONSTRAINT {} {definition};\n", pg_quote(&r.constraint)));
    }
    out.push_str("COMMIT;\n");
    let mut analysed: Vec<&str> = Vec::new();
    for name in std::iter::once(table).chain(children.iter().map(|c| c.0.as_str())) {
        if !analysed.contains(&name) {
            analysed.push(name);
            out.push_str(&format!("ANALYZE {name};\n"));
        }
    }
    out
}

/// Each referencing column once (a column may hold the key through more than one foreign key),
/// parents before the columns that reference them.
fn converted_columns<'a>(children: &'a [(String, &'a ReferencingColumn)]) -> Vec<(&'a str, &'a ReferencingColumn)> {
    let mut out: Vec<(&str, &ReferencingColumn)> = Vec::new();
    for (child, r) in children {
        if !out.iter().any(|(t, o)| t == child && o.column == r.column) {
            out.push((child.as_str(), r));
        }
    }
    out
}

/// Where the table's key is a copy of another table's (a one-to-one foreign key): new keys come
/// from there.
fn copied_key(parent: &ReferencedColumn) -> String {
    format!(
        "-- New keys are copies of {}.{}: generate that table's keys in time order, and this table's follow.\n",
        parent.table, parent.column
    )
}

/// `fk`'s definition as the server wrote it, else written from its column and the column it
/// references: `table`'s key `col`, or the chain's column that holds it.
fn fk_definition(fk: &ReferencingColumn, table: &str, col: &str, quote: fn(&str) -> String) -> String {
    fk.definition.clone().unwrap_or_else(|| {
        let (parent, column) = match &fk.references {
            Some(p) => (qualified(&p.table, quote), quote(&p.column)),
            None => (table.to_string(), quote(col)),
        };
        format!("FOREIGN KEY ({}) REFERENCES {parent} ({column})", quote(&fk.column))
    })
}

/// Where the table's key is itself a foreign key to another table's column: the key must keep
/// that column's type, so it is converted with that one (whose script reaches this table).
fn converted_with_parent(parent: &ReferencedColumn) -> String {
    format!(
        "-- The key is a foreign key to {}.{}, and must keep its type: convert that table's key, whose script (pkbench doctor with --table on that table) converts this one with it.\n",
        parent.table, parent.column
    )
}

fn mariadb(t: &TableReport, kind: AdviceKind, version: (u32, u32)) -> String {
    let q = my_quote;
    let table = qualified(&t.name, my_quote);
    let has_uuid_type = version >= (10, 7);
    match kind {
        AdviceKind::TimeOrderedKey if let Some(parent) = &t.key_references => copied_key(parent),
        AdviceKind::TimeOrderedKey | AdviceKind::TimeOrderedUniqueColumn => {
            "-- Application change, no SQL: generate new keys as UUIDv7 (MariaDB 11.7+ has UUID_v7()); old keys stay.\n"
                .into()
        }
        AdviceKind::BinaryStorage => match key_of(t) {
            Some(_) if let Some(parent) = &t.key_references => converted_with_parent(parent),
            Some((col, KeyStorage::Text36 | KeyStorage::Text32)) if has_uuid_type => mariadb_to_uuid(t, &table, col),
            Some((col, KeyStorage::Text36 | KeyStorage::Text32)) => format!(
                "-- BINARY(16): the application must then bind 16-byte values.{}\nALTER TABLE {table} ADD COLUMN {b} BINARY(16) NULL;\nUPDATE {table} SET {b} = UNHEX(REPLACE({c}, '-', ''));\nALTER TABLE {table} DROP PRIMARY KEY, DROP COLUMN {c}, CHANGE {b} {c} BINARY(16) NOT NULL, ADD PRIMARY KEY ({c});\n",
                unconverted(t),
                b = q(&format!("{col}_bin")),
                c = q(col)
            ),
            _ => {
                "-- The key is not hexadecimal text (base32 ULID?): convert it to 16 bytes in the application.\n".into()
            }
        },
        AdviceKind::Repack => {
            format!("-- Rebuilds the table and its indexes (InnoDB: ALTER TABLE … FORCE).\nOPTIMIZE TABLE {table};\n")
        }
    }
}

/// The key converted to MariaDB's `UUID` type, and with it every column whose foreign key holds
/// it: InnoDB refuses to change a column a foreign key uses, so each such foreign key is dropped,
/// its column changed with the key, and the foreign key made again as it was. `MODIFY` rewrites
/// a column's whole definition: each repeats the column's DEFAULT and COMMENT (other attributes
/// are left to the reader, as the script says).
fn mariadb_to_uuid(t: &TableReport, table: &str, col: &str) -> String {
    let mut out = String::from(
        "-- The UUID type (MariaDB 10.7+) stores 16 bytes and still reads and writes the text form; rebuilds the table (every secondary index carries the key, so all shrink).\n",
    );
    let children: Vec<(String, &ReferencingColumn)> =
        t.referenced_by.iter().map(|r| (qualified(&r.table, my_quote), r)).collect();
    if !children.is_empty() {
        out.push_str("-- The foreign keys that hold the key are dropped, their columns changed with it, and made again as they were (which checks every row). MariaDB commits each ALTER TABLE on its own: run the statements in order, and again from the one that fails.\n");
    }
    out.push_str("-- MODIFY writes each column's definition anew: its DEFAULT and COMMENT are repeated below; check any other attribute of it (a CHECK of its own, INVISIBLE).\n");
    for (child, r) in &children {
        out.push_str(&format!("ALTER TABLE {child} DROP FOREIGN KEY {};\n", my_quote(&r.constraint)));
    }
    let kept = |attributes: &Option<String>| attributes.as_ref().map(|a| format!(" {a}")).unwrap_or_default();
    out.push_str(&format!("ALTER TABLE {table} MODIFY {} UUID NOT NULL{};\n", my_quote(col), kept(&t.key_attributes)));
    // One ALTER per converted column: the column changed, with the foreign keys on it whose
    // referenced column is converted by then; the others are added at the end, once every
    // column is.
    let mut done: Vec<(&str, &str)> = vec![(t.name.as_str(), col)];
    let mut deferred = Vec::new();
    for (child, r) in converted_columns(&children) {
        let null = if r.nullable { "NULL" } else { "NOT NULL" };
        let mut changes = vec![format!("MODIFY {} UUID {null}{}", my_quote(&r.column), kept(&r.attributes))];
        done.push((r.table.as_str(), r.column.as_str()));
        for (_, fk) in children.iter().filter(|(t, o)| t == child && o.column == r.column) {
            let add =
                format!("ADD CONSTRAINT {} {}", my_quote(&fk.constraint), fk_definition(fk, table, col, my_quote));
            let parent =
                fk.references.as_ref().map_or((t.name.as_str(), col), |p| (p.table.as_str(), p.column.as_str()));
            match done.contains(&parent) {
                true => changes.push(add),
                false => deferred.push(format!("ALTER TABLE {child} {add};\n")),
            }
        }
        out.push_str(&format!("ALTER TABLE {child} {};\n", changes.join(", ")));
    }
    deferred.iter().for_each(|d| out.push_str(d));
    out
}

/// ` Convert the columns whose foreign key holds the key (…) the same way, …` where some do: a
/// script that rebuilds the key alone leaves them as they are.
fn unconverted(t: &TableReport) -> String {
    let columns: Vec<String> = t.referenced_by.iter().map(|r| format!("{}.{}", r.table, r.column)).collect();
    match columns.is_empty() {
        true => String::new(),
        false => format!(
            " Convert the columns whose foreign key holds the key ({}) the same way, in the same change, with their foreign keys dropped first and made again after.",
            columns.join(", ")
        ),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_versions() {
        assert_eq!(version("15.4 (Debian 15.4-1)"), (15, 4));
        assert_eq!(version("10.11.6-MariaDB-0+deb12u1"), (10, 11));
        assert_eq!(version(""), (0, 0));
        assert_eq!(qualified("s.t", pg_quote), "\"s\".\"t\"");
    }
}
