//! The migration script behind the advice on PostgreSQL and MariaDB, written from the report
//! alone (doctor reads nothing more and never executes it).

use super::advice::AdviceKind;
use super::sample::KeyStorage;
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
            Some((col, KeyStorage::Text36 | KeyStorage::Text32)) => format!(
                "-- Rewrites the table and rebuilds its indexes (ACCESS EXCLUSIVE lock while it runs); columns referencing it by foreign key must be converted in the same transaction.\nBEGIN;\nALTER TABLE {table} ALTER COLUMN {c} TYPE uuid USING {c}::uuid;\nCOMMIT;\nANALYZE {table};\n",
                c = pg_quote(col)
            ),
            _ => {
                "-- The key is not hexadecimal text (base32 ULID?): convert it to 16 bytes in the application.\n".into()
            }
        },
        AdviceKind::Repack => format!(
            "-- Rebuild the sparse indexes without blocking writes (cannot run inside a transaction block).\nREINDEX TABLE CONCURRENTLY {table};\n"
        ),
    }
}

fn mariadb(t: &TableReport, kind: AdviceKind, version: (u32, u32)) -> String {
    let q = my_quote;
    let table = qualified(&t.name, my_quote);
    let has_uuid_type = version >= (10, 7);
    match kind {
        AdviceKind::TimeOrderedKey | AdviceKind::TimeOrderedUniqueColumn => {
            "-- Application change, no SQL: generate new keys as UUIDv7 (MariaDB 11.7+ has UUID_v7()); old keys stay.\n"
                .into()
        }
        AdviceKind::BinaryStorage => match key_of(t) {
            Some((col, KeyStorage::Text36 | KeyStorage::Text32)) if has_uuid_type => format!(
                "-- The UUID type (MariaDB 10.7+) stores 16 bytes and still reads and writes the text form; rebuilds the table (every secondary index carries the key, so all shrink).\nALTER TABLE {table} MODIFY {} UUID NOT NULL;\n",
                q(col)
            ),
            Some((col, KeyStorage::Text36 | KeyStorage::Text32)) => format!(
                "-- BINARY(16): the application must then bind 16-byte values.\nALTER TABLE {table} ADD COLUMN {b} BINARY(16) NULL;\nUPDATE {table} SET {b} = UNHEX(REPLACE({c}, '-', ''));\nALTER TABLE {table} DROP PRIMARY KEY, DROP COLUMN {c}, CHANGE {b} {c} BINARY(16) NOT NULL, ADD PRIMARY KEY ({c});\n",
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
