//! How long a connection may take, and a password given apart from the URL. Every connection
//! pkbench opens to a server — a run's, doctor's, a schema read's, a managed server's — connects
//! and finishes its handshake within [`ConnectOptions::timeout`]: a port that accepts and never
//! answers, or a server of the other protocol, gives one line within that time instead of a
//! wait as long as the server's own login timeout.

use crate::{Error, ServerError, ServerErrorKind};
use std::time::Duration;

/// The time a connection may take unless the flag or the URL says otherwise.
pub const DEFAULT_CONNECT_TIMEOUT: Duration = Duration::from_secs(10);

/// A password kept out of every `Debug` output.
#[derive(Clone, PartialEq, Eq)]
pub struct Password(String);

impl Password {
    /// Wraps a password.
    pub fn new(text: impl Into<String>) -> Self {
        Password(text.into())
    }

    /// The password itself, for the driver.
    pub fn reveal(&self) -> &str {
        &self.0
    }
}

impl std::fmt::Debug for Password {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Password(***)")
    }
}

/// How pkbench reaches a server.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ConnectOptions {
    /// Most time to connect and finish the handshake; a limit the URL gives itself (libpq's
    /// `connect_timeout`, the MySQL URL's `tcp_connect_timeout_ms`) takes its place.
    pub timeout: Duration,
    /// A password from `--password-file`: used when the URL has none, before the environment
    /// and the password files.
    pub password: Option<Password>,
}

impl Default for ConnectOptions {
    fn default() -> Self {
        ConnectOptions { timeout: DEFAULT_CONNECT_TIMEOUT, password: None }
    }
}

/// Reads a password file (`--password-file`): its first line, without the line break. Refused,
/// in one line, when the file is missing, empty, larger than a password, or readable by other
/// users (as libpq refuses such a `.pgpass`).
pub fn read_password_file(path: &std::path::Path) -> Result<Password, Error> {
    let shown = path.display();
    let meta = std::fs::metadata(path)
        .map_err(|e| Error::InvalidInput(format!("could not read the password file '{shown}': {e}")))?;
    if !meta.is_file() || meta.len() > 4096 {
        return Err(Error::InvalidInput(format!(
            "'{shown}' is not a password file: give a file whose first line is the password"
        )));
    }
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        let mode = meta.permissions().mode() & 0o777;
        if mode & 0o077 != 0 {
            return Err(Error::InvalidInput(format!(
                "the password file '{shown}' may be read by other users (mode {mode:04o}): chmod 600 it"
            )));
        }
    }
    let text = crate::util::input::read_text(path, crate::util::input::InputKind::Credentials)?;
    let line = text.lines().next().unwrap_or_default().trim_end_matches('\r');
    if line.is_empty() {
        return Err(Error::InvalidInput(format!(
            "the password file '{shown}' is empty: write the password on its first line"
        )));
    }
    Ok(Password::new(line))
}

/// Runs `connect` on a thread of its own and waits at most `timeout` for it. `None` when the
/// time ran out: the thread is left to end when the server answers or closes the socket (its
/// result is dropped).
pub fn within<T: Send + 'static>(timeout: Duration, connect: impl FnOnce() -> T + Send + 'static) -> Option<T> {
    let (send, receive) = std::sync::mpsc::channel();
    let spawned = std::thread::Builder::new().name("pkbench-connect".into()).spawn(move || {
        let _ = send.send(connect());
    });
    match spawned {
        Ok(_) => receive.recv_timeout(timeout).ok(),
        Err(_) => None,
    }
}

/// The error of a connection that did not finish within `timeout`: `protocol` names the server
/// expected (`PostgreSQL`, `MySQL/MariaDB`).
pub fn timed_out(engine: &'static str, shown: &str, timeout: Duration, protocol: &str) -> Error {
    let cause = ServerError {
        engine,
        kind: ServerErrorKind::Unreachable,
        message: format!(
            "no answer within {} (--connect-timeout): is a {protocol} server listening there?",
            seconds(timeout)
        ),
    };
    Error::server(format!("could not connect to {shown}"), cause)
}

/// `10 s`, `1.5 s`.
fn seconds(d: Duration) -> String {
    let s = d.as_secs_f64();
    if s.fract() == 0.0 { format!("{s:.0} s") } else { format!("{s} s") }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_connection_that_never_answers_ends_at_the_deadline() {
        let started = std::time::Instant::now();
        let got = within(Duration::from_millis(100), || std::thread::sleep(Duration::from_secs(5)));
        assert!(got.is_none() && started.elapsed() < Duration::from_secs(2));
        assert_eq!(within(Duration::from_secs(5), || 7), Some(7));
        let e = timed_out("PostgreSQL", "postgres://u@h/db", Duration::from_secs(10), "PostgreSQL").to_string();
        assert!(e.contains("within 10 s (--connect-timeout)"), "{e}");
    }

    #[test]
    fn password_files_give_their_first_line_and_refuse_open_modes() {
        use std::os::unix::fs::PermissionsExt;
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("pw");
        std::fs::write(&file, "s3cret\nignored\n").unwrap();
        std::fs::set_permissions(&file, std::fs::Permissions::from_mode(0o644)).unwrap();
        let e = read_password_file(&file).unwrap_err().to_string();
        assert!(e.contains("chmod 600") && !e.contains("s3cret"), "{e}");
        std::fs::set_permissions(&file, std::fs::Permissions::from_mode(0o600)).unwrap();
        let pw = read_password_file(&file).unwrap();
        assert_eq!(pw.reveal(), "s3cret");
        assert_eq!(format!("{pw:?}"), "Password(***)");
        std::fs::write(&file, "\n").unwrap();
        assert!(read_password_file(&file).unwrap_err().to_string().contains("is empty"));
    }
}
