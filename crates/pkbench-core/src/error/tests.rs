use super::*;
use std::error::Error as _;

fn io_error() -> std::io::Error {
    std::io::Error::from(std::io::ErrorKind::PermissionDenied)
}

fn json_error() -> serde_json::Error {
    serde_json::from_str::<serde_json::Value>("{").unwrap_err()
}

fn server_error(kind: ServerErrorKind) -> ServerError {
    ServerError { engine: "PostgreSQL", kind, message: "FATAL: the server said no".into() }
}

/// The message, and the text of its source: every wrapping variant keeps its cause in the
/// chain, and its message ends with that cause's text.
fn message_and_source(e: &Error) -> (String, String) {
    let source = e.source().map(ToString::to_string);
    let source = source.unwrap_or_else(|| panic!("{e:?} has no source"));
    let message = e.to_string();
    assert!(message.ends_with(&source), "{message} does not end with {source}");
    (message, source)
}

#[test]
fn io_keeps_its_os_error_as_the_source() {
    let e = Error::io("read", "/tmp/x.json", io_error());
    let (message, _) = message_and_source(&e);
    assert_eq!(message, "could not read '/tmp/x.json': permission denied");
    let cause = e.source().and_then(|s| s.downcast_ref::<std::io::Error>()).map(std::io::Error::kind);
    assert_eq!(cause, Some(std::io::ErrorKind::PermissionDenied));
}

#[test]
fn a_full_disk_is_its_own_variant_without_a_cause() {
    let e = Error::io("write", "/tmp/x.json", std::io::Error::from(std::io::ErrorKind::StorageFull));
    assert!(matches!(&e, Error::DiskFull { path } if path == std::path::Path::new("/tmp/x.json")), "{e:?}");
    assert!(e.source().is_none());
}

#[test]
fn json_keeps_serdes_error_as_the_source() {
    let e = Error::Json { context: "'r.json' is not valid JSON".into(), cause: json_error() };
    let (message, source) = message_and_source(&e);
    assert_eq!(message, format!("'r.json' is not valid JSON: {source}"));
    assert!(e.source().is_some_and(|s| s.is::<serde_json::Error>()));
}

#[test]
fn server_keeps_the_servers_error_and_its_kind_as_the_source() {
    let e = Error::server("could not connect to postgres://h/db", server_error(ServerErrorKind::AuthenticationFailed));
    let (message, _) = message_and_source(&e);
    assert_eq!(message, "could not connect to postgres://h/db: FATAL: the server said no");
    let cause = e.source().and_then(|s| s.downcast_ref::<ServerError>()).map(|s| s.kind);
    assert_eq!(cause, Some(ServerErrorKind::AuthenticationFailed));
    assert_eq!(e.server_kind(), Some(ServerErrorKind::AuthenticationFailed));
}

#[test]
fn a_named_fault_stays_ahead_of_the_context() {
    let e = Error::server("COMMIT failed", server_error(ServerErrorKind::ServerGone));
    let (message, _) = message_and_source(&e);
    assert_eq!(message, "the PostgreSQL server closed the connection: COMMIT failed: FATAL: the server said no");
}

#[cfg(feature = "sqlite")]
#[test]
fn sqlite_keeps_sqlites_error_as_the_source() {
    let conn = rusqlite::Connection::open_in_memory().unwrap();
    let cause = conn.execute("SELECT * FROM nowhere", []).unwrap_err();
    let e = Error::sqlite("could not read the table", std::path::Path::new(":memory:"), cause);
    let (message, source) = message_and_source(&e);
    assert_eq!(message, format!("could not read the table: {source}"));
    assert!(source.contains("no such table: nowhere"), "{source}");
    assert!(e.source().is_some_and(|s| s.is::<rusqlite::Error>()));
}

#[test]
fn refusals_and_failures_carry_no_source_and_keep_their_text() {
    let cases = [
        Error::InvalidInput("--rows 0 is out of range".into()),
        Error::NotFound("no table 'nope' in this database (try --schema)".into()),
        Error::AlreadyExists("'x.db' already exists; pkbench will not overwrite it".into()),
        Error::UnexpectedResponse("SHOW RANGES returned 2 columns, expected 7".into()),
        Error::System("initdb failed: no space".into()),
    ];
    let texts = [
        "--rows 0 is out of range",
        "no table 'nope' in this database (try --schema)",
        "'x.db' already exists; pkbench will not overwrite it",
        "SHOW RANGES returned 2 columns, expected 7",
        "initdb failed: no space",
    ];
    for (e, text) in cases.iter().zip(texts) {
        assert_eq!(e.to_string(), text);
        assert!(e.source().is_none(), "{e:?}");
    }
    let bug = Error::Internal("no SQLite case is open".into());
    assert_eq!(
        bug.to_string(),
        "internal error: no SQLite case is open (a bug in pkbench: please report it with the command that ran)"
    );
}
