//! The read-only connection doctor reads a SQLite file through.

use crate::Error;
use rusqlite::{Connection, OpenFlags};
use std::path::Path;

/// Opens `path` strictly read-only: no journal recovery writes, no checkpoints, no schema changes.
pub fn open_read_only(path: &Path) -> Result<Connection, Error> {
    open_for_doctor(path).map(|(conn, _)| conn)
}

/// Whether `path` is a WAL-mode database (header bytes 18–19 = 2) that no connection has open:
/// opening it, even read-only, would create `-wal` and `-shm` files beside it.
fn closed_wal_database(path: &Path) -> bool {
    use std::io::Read;
    let mut header = [0u8; 20];
    let read = std::fs::File::open(path).and_then(|mut f| f.read_exact(&mut header));
    let wal = path.with_file_name(format!("{}-wal", path.file_name().unwrap_or_default().to_string_lossy()));
    read.is_ok() && header.starts_with(b"SQLite format 3\0") && header[18] == 2 && !wal.exists()
}

/// [`open_read_only`], plus how the file was opened when that is worth a note: a WAL database
/// no one has open is opened `immutable=1`, so SQLite creates no `-wal`/`-shm` files.
pub fn open_for_doctor(path: &Path) -> Result<(Connection, Option<String>), Error> {
    let context = || format!("could not open '{}' read-only", path.display());
    if !path.exists() {
        return Err(Error::NotFound(format!(
            "'{}' does not exist: give the path of a SQLite database (or a postgres:// or mysql:// URL)",
            path.display()
        )));
    }
    if !path.is_file() {
        return Err(Error::InvalidInput(format!(
            "'{}' is not a file: give the path of a SQLite database",
            path.display()
        )));
    }
    if path.metadata().is_ok_and(|m| m.len() == 0) {
        return Err(Error::InvalidInput(format!(
            "'{}' is empty (0 bytes): it holds no database to examine",
            path.display()
        )));
    }
    let mut flags = OpenFlags::SQLITE_OPEN_READ_ONLY | OpenFlags::SQLITE_OPEN_NO_MUTEX;
    let (conn, note) = if closed_wal_database(path) {
        flags |= OpenFlags::SQLITE_OPEN_URI;
        // Percent-encode what a URI would misread; the path stays absolute or relative as given.
        let mut uri = String::from("file:");
        for b in path.as_os_str().as_encoded_bytes() {
            match b {
                b'%' | b'?' | b'#' | 0x80.. => uri.push_str(&format!("%{b:02X}")),
                _ => uri.push(char::from(*b)),
            }
        }
        uri.push_str("?immutable=1");
        let conn =
            Connection::open_with_flags(&uri, flags).map_err(|cause| Error::Sqlite { context: context(), cause })?;
        let note = "WAL database with no -wal file (no open writer): opened immutable=1, so no -wal/-shm files are created beside it";
        (conn, Some(note.to_string()))
    } else {
        (Connection::open_with_flags(path, flags).map_err(|cause| Error::Sqlite { context: context(), cause })?, None)
    };
    conn.pragma_update(None, "query_only", "ON").map_err(|cause| Error::Sqlite { context: context(), cause })?;
    conn.busy_timeout(std::time::Duration::from_secs(5))
        .map_err(|cause| Error::Sqlite { context: context(), cause })?;
    // Touch the schema now so "not a database" surfaces here, with the path in the message.
    conn.query_row("SELECT count(*) FROM sqlite_schema", [], |r| r.get::<_, i64>(0))
        .map_err(|cause| Error::Sqlite { context: context(), cause })?;
    Ok((conn, note))
}
