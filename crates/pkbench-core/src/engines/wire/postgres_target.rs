//! Reaching a PostgreSQL server the way libpq does: the URL (or key=value string), then the
//! service file, then `PG*` variables, then the password file and a prompt; TLS by `sslmode`
//! (default `prefer`) with rustls; and a record of what the connection ended up with.

use super::connect::{ConnectOptions, timed_out, within};
use super::credentials::{PassFile, env, os_user, pg_service, pgpass, prompt_password};
use super::postgres::server_error;
use super::tls::{TlsMode, TlsSettings, TlsStatus, rustls_config};
use crate::Error;
use crate::engines::kind::EngineKind;
use crate::engines::server::{hide_secrets, redact_url};
use postgres::config::{Host, SslMode};
use postgres::{Client, Config};
use std::collections::BTreeMap;
use tokio_postgres_rustls::MakeRustlsConnect;

/// Where and how to connect, with every source of settings applied.
#[derive(Clone)]
pub struct PgTarget {
    config: Config,
    tls: TlsSettings,
    shown: String,
    /// Whether a password came from the URL, the service, `PGPASSWORD` or the password file.
    password_known: bool,
    /// Why the password file was ignored, added to an authentication failure.
    passfile_note: Option<String>,
    /// Most time one connection may take, handshake included.
    timeout: std::time::Duration,
}

/// Parameters libpq knows that the driver does not: taken out of the string before it parses it.
const OWN_PARAMS: [&str; 3] = ["sslmode", "sslrootcert", "service"];

impl PgTarget {
    /// From a `postgres://` URL or a key=value string, filled in from `options` (a password the
    /// URL lacks, the connect timeout), the service file, the environment and the password file.
    /// Errors never show the password.
    pub fn from_url(url: &str, options: &ConnectOptions) -> Result<Self, Error> {
        let shown = redact_url(url);
        crate::util::input::single_line(url, &shown, "the URL")?;
        let (rest, own) = take_params(url);
        let mut config: Config = rest.parse().map_err(|e| {
            Error::InvalidInput(hide_secrets(
                &format!(
                    "'{shown}' is not a PostgreSQL URL ({e}): write postgres://user@host:port/database?sslmode=require"
                ),
                url,
            ))
        })?;
        let service = match own.get("service").cloned().or_else(|| env("PGSERVICE")) {
            Some(name) => pg_service(&name).ok_or_else(|| {
                Error::NotFound(format!(
                    "PostgreSQL service '{name}' is not defined: add a [{name}] section to ~/.pg_service.conf (or PGSERVICEFILE)"
                ))
            })?,
            None => BTreeMap::new(),
        };
        // libpq's order: the string, then the service, then the environment, then defaults.
        let pick = |key: &str, var: &str| own.get(key).or_else(|| service.get(key)).cloned().or_else(|| env(var));
        if config.get_hosts().is_empty() {
            let hosts = pick("host", "PGHOST").unwrap_or_else(default_host);
            for host in hosts.split(',').filter(|h| !h.is_empty()) {
                if host.starts_with('/') {
                    config.host_path(host)
                } else {
                    config.host(host)
                };
            }
        }
        if config.get_ports().is_empty()
            && let Some(port) = pick("port", "PGPORT")
        {
            let port = port.parse().map_err(|_| {
                Error::InvalidInput(format!("port '{port}' (PGPORT or the service file) is not a port number"))
            })?;
            config.port(port);
        }
        if config.get_user().is_none() {
            let user = pick("user", "PGUSER").or_else(os_user).ok_or_else(|| {
                Error::InvalidInput(
                    "no PostgreSQL user: give one in the URL (postgres://user@host/db) or PGUSER".into(),
                )
            })?;
            config.user(&user);
        }
        if config.get_dbname().is_none()
            && let Some(db) = pick("dbname", "PGDATABASE")
        {
            config.dbname(&db);
        }
        let mut passfile_note = None;
        if config.get_password().is_none() {
            if let Some(password) = &options.password {
                config.password(password.reveal());
            } else if let Some(password) = pick("password", "PGPASSWORD") {
                config.password(password);
            } else {
                let user = config.get_user().unwrap_or_default().to_string();
                let db = config.get_dbname().unwrap_or(&user).to_string();
                let port = config.get_ports().first().copied().unwrap_or(5432);
                let host = match config.get_hosts().first() {
                    Some(Host::Tcp(h)) => h.clone(),
                    _ => "localhost".into(),
                };
                match pgpass(&host, port, &db, &user) {
                    PassFile::Found(password) => {
                        config.password(password);
                    }
                    PassFile::Ignored(why) => passfile_note = Some(why),
                    PassFile::None => {}
                }
            }
        }
        let mode = match pick("sslmode", "PGSSLMODE") {
            Some(m) => TlsMode::parse_pg(&m)?,
            None => TlsMode::Prefer,
        };
        let ca_file = pick("sslrootcert", "PGSSLROOTCERT").map(Into::into);
        config.ssl_mode(match mode {
            TlsMode::Disable => SslMode::Disable,
            TlsMode::Prefer => SslMode::Prefer,
            _ => SslMode::Require,
        });
        let timeout = connect_timeout(&mut config, pick("connect_timeout", "PGCONNECT_TIMEOUT"), options)?;
        let password_known = config.get_password().is_some();
        Ok(PgTarget { config, tls: TlsSettings { mode, ca_file }, shown, password_known, passfile_note, timeout })
    }

    /// A managed cluster's socket: no TLS, no password.
    pub fn managed(mut config: Config, options: &ConnectOptions) -> Self {
        let shown = "the managed PostgreSQL server".to_string();
        let tls = TlsSettings { mode: TlsMode::Disable, ca_file: None };
        config.connect_timeout(options.timeout);
        PgTarget { config, tls, shown, password_known: true, passfile_note: None, timeout: options.timeout }
    }

    /// The URL with its password hidden.
    pub fn shown(&self) -> &str {
        &self.shown
    }

    /// The driver's settings (to set a timeout or an application name).
    pub fn config_mut(&mut self) -> &mut Config {
        &mut self.config
    }

    /// The TLS settings.
    pub fn tls(&self) -> &TlsSettings {
        &self.tls
    }

    /// Connects; when the server wants a password nothing gave, asks the installed prompt once
    /// and keeps what was typed for later connections. `what` starts the error message.
    pub fn connect_first(&mut self, what: &str) -> Result<(Client, TlsStatus), Error> {
        match self.connect_as(what, &self.config) {
            Err(e) if !self.password_known && asked_for_password(&e) => {
                let user = self.config.get_user().unwrap_or_default();
                let Some(password) = prompt_password(&format!("Password for PostgreSQL user {user}: ")) else {
                    return Err(e);
                };
                self.config.password(password);
                self.password_known = true;
                self.connect_as(what, &self.config)
            }
            other => other,
        }
    }

    /// Another connection with the same settings.
    pub fn connect(&self, what: &str) -> Result<(Client, TlsStatus), Error> {
        self.connect_as(what, &self.config)
    }

    /// [`Self::connect_within`] on its own thread, given up after the timeout: the driver's
    /// `connect_timeout` bounds only the TCP connect, not a handshake the other end never
    /// answers.
    fn connect_as(&self, what: &str, config: &Config) -> Result<(Client, TlsStatus), Error> {
        let (target, config, context) = (self.clone(), config.clone(), what.to_string());
        within(self.timeout, move || target.connect_within(&context, &config))
            .unwrap_or_else(|| Err(timed_out(EngineKind::Postgres.label(), &self.shown, self.timeout, "PostgreSQL")))
    }

    fn connect_within(&self, what: &str, config: &Config) -> Result<(Client, TlsStatus), Error> {
        let socket = matches!(config.get_hosts().first(), Some(Host::Unix(_)));
        let asked = format!("sslmode={}", self.tls.mode.pg_name());
        if self.tls.mode == TlsMode::Disable || socket {
            let client = config.connect(postgres::NoTls).map_err(|e| self.error(what, &e))?;
            let note = if socket { "Unix socket: TLS does not apply" } else { "sslmode=disable" };
            return Ok((client, TlsStatus { asked, encrypted: false, protocol: None, note: Some(note.into()) }));
        }
        let tls = MakeRustlsConnect::new(rustls_config::client_config(&self.tls)?);
        let (mut client, fell_back) = match config.connect(tls) {
            Ok(client) => (client, None),
            // As libpq: `prefer` falls back to plaintext when the TLS handshake itself fails.
            Err(e) if self.tls.mode == TlsMode::Prefer && handshake_failed(&e) => {
                let mut plain = config.clone();
                plain.ssl_mode(SslMode::Disable);
                let client = plain.connect(postgres::NoTls).map_err(|e| self.error(what, &e))?;
                (
                    client,
                    Some(format!("{asked}: the TLS handshake failed ({e}), so the connection fell back to plaintext")),
                )
            }
            Err(e) => return Err(self.error(what, &e)),
        };
        let row = client.query_opt("SELECT ssl, version FROM pg_stat_ssl WHERE pid = pg_backend_pid()", &[]);
        let (encrypted, protocol) = match row {
            Ok(Some(r)) => (r.try_get::<_, bool>(0).unwrap_or(false), r.try_get::<_, Option<String>>(1).ok().flatten()),
            // A wire-compatible server without pg_stat_ssl: beyond `prefer`, TLS was required.
            _ => (self.tls.mode != TlsMode::Prefer, None),
        };
        let note = match (encrypted, fell_back) {
            (true, _) => None,
            (false, Some(note)) => Some(note),
            (false, None) => Some(TlsStatus::fell_back_note(&asked)),
        };
        Ok((client, TlsStatus { asked, encrypted, protocol, note }))
    }

    /// The driver's error as one line, with what to do for TLS and password failures.
    fn error(&self, what: &str, e: &postgres::Error) -> Error {
        let mut cause = server_error(e);
        let text = cause.message.clone();
        let hint = if text.contains("UnknownIssuer") {
            Some("the server's certificate is not signed by a CA pkbench trusts: give that CA with sslrootcert=FILE (or PGSSLROOTCERT)".to_string())
        } else if text.contains("NotValidForName") {
            Some("the server's certificate does not name the host in the URL: connect by a name it lists, or use sslmode=verify-ca".into())
        } else if text.contains("server does not support TLS") {
            Some(format!(
                "the server does not offer TLS but {} requires it: turn ssl on at the server, or use sslmode=prefer",
                self.tls.mode.pg_name()
            ))
        } else if text.contains("role \"") && text.contains("does not exist") {
            Some("no such user on that server: give an existing one in the URL (postgres://USER@host/db), or create it there".into())
        } else if wants_password(e) {
            let mut hint =
                "give the password with PGPASSWORD, ~/.pgpass (mode 0600), a service file, or at the prompt in a terminal"
                    .to_string();
            if let Some(note) = &self.passfile_note {
                hint = format!("{note}; {hint}");
            }
            Some(hint)
        } else if e.as_db_error().is_none() && cause.kind != crate::ServerErrorKind::Unreachable {
            // A port that accepts and then answers what a PostgreSQL client cannot read (a
            // MySQL/MariaDB server greets first, then drops the connection).
            Some("is a PostgreSQL server listening there?".into())
        } else {
            None
        };
        if let Some(hint) = hint {
            cause.message = format!("{text}; {hint}");
        }
        Error::server(format!("{what} {}", self.shown), cause)
    }
}

/// Sets the driver's connect timeout and returns the limit of a whole connection: the URL's
/// `connect_timeout` (or the service's, or `PGCONNECT_TIMEOUT`), else `options.timeout`. As in
/// libpq, 0 means no limit of the URL's own.
fn connect_timeout(
    config: &mut Config,
    given: Option<String>,
    options: &ConnectOptions,
) -> Result<std::time::Duration, Error> {
    if config.get_connect_timeout().is_none()
        && let Some(text) = given
    {
        let secs: u64 = text.trim().parse().map_err(|_| {
            Error::InvalidInput(format!("connect_timeout '{text}' is not a number of seconds: give e.g. 10"))
        })?;
        if secs > 0 {
            config.connect_timeout(std::time::Duration::from_secs(secs));
        }
    }
    let timeout = config.get_connect_timeout().copied().unwrap_or(options.timeout);
    config.connect_timeout(timeout);
    Ok(timeout)
}

/// A connection error that says the password was missing or wrong.
fn asked_for_password(e: &Error) -> bool {
    e.server_kind() == Some(crate::ServerErrorKind::AuthenticationFailed)
}

/// The server asked for a password that was missing or wrong.
fn wants_password(e: &postgres::Error) -> bool {
    server_error(e).kind == crate::ServerErrorKind::AuthenticationFailed
}

fn handshake_failed(e: &postgres::Error) -> bool {
    e.as_db_error().is_none() && server_error(e).message.contains("TLS handshake")
}

/// libpq's default host: its Unix socket folder when it exists, else localhost.
fn default_host() -> String {
    ["/var/run/postgresql", "/tmp"]
        .into_iter()
        .find(|d| std::path::Path::new(d).join(".s.PGSQL.5432").exists())
        .unwrap_or("localhost")
        .to_string()
}

/// Takes [`OWN_PARAMS`] out of a URL's query string or a key=value string: the rest, and the
/// values taken (percent-decoded).
fn take_params(url: &str) -> (String, BTreeMap<String, String>) {
    let mut own = BTreeMap::new();
    let is_own = |key: &str| OWN_PARAMS.iter().any(|k| k.eq_ignore_ascii_case(key));
    let lower = url.trim_start().to_ascii_lowercase();
    if lower.starts_with("postgres://") || lower.starts_with("postgresql://") {
        // The query starts at the first '?' after the user info (a password may hold a '?').
        let authority = url.rfind('@').unwrap_or(0);
        let Some(q) = url[authority..].find('?').map(|i| authority + i) else { return (url.to_string(), own) };
        let mut kept = Vec::new();
        for pair in url[q + 1..].split('&').filter(|p| !p.is_empty()) {
            let (key, value) = pair.split_once('=').unwrap_or((pair, ""));
            if is_own(key) {
                own.insert(key.to_ascii_lowercase(), percent_decode(value));
            } else {
                kept.push(pair);
            }
        }
        let rest = if kept.is_empty() { url[..q].to_string() } else { format!("{}?{}", &url[..q], kept.join("&")) };
        (rest, own)
    } else {
        let mut kept = Vec::new();
        for token in url.split_whitespace() {
            match token.split_once('=') {
                Some((key, value)) if is_own(key) && !value.is_empty() => {
                    own.insert(key.to_ascii_lowercase(), value.trim_matches('\'').to_string());
                }
                _ => kept.push(token),
            }
        }
        (kept.join(" "), own)
    }
}

fn percent_decode(s: &str) -> String {
    let bytes = s.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        let hex = bytes.get(i + 1..i + 3).and_then(|h| std::str::from_utf8(h).ok());
        match (bytes[i], hex.and_then(|h| u8::from_str_radix(h, 16).ok())) {
            (b'%', Some(b)) => {
                out.push(b);
                i += 3;
            }
            (c, _) => {
                out.push(c);
                i += 1;
            }
        }
    }
    String::from_utf8_lossy(&out).into_owned()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn libpq_parameters_are_taken_out_before_the_driver_parses() {
        let (rest, own) = take_params("postgres://u:p?w@h:5/db?sslmode=verify-full&sslrootcert=%2Ftmp%2Fca.pem&x=1");
        assert_eq!(rest, "postgres://u:p?w@h:5/db?x=1");
        assert_eq!(own["sslmode"], "verify-full");
        assert_eq!(own["sslrootcert"], "/tmp/ca.pem");
        let (rest, own) = take_params("host=h sslmode=require user=u");
        assert_eq!((rest.as_str(), own["sslmode"].as_str()), ("host=h user=u", "require"));
    }

    #[test]
    fn a_url_gives_its_tls_mode_and_the_default_is_prefer() {
        let t =
            PgTarget::from_url("postgres://u:pw@127.0.0.1:1/db?sslmode=verify-ca", &ConnectOptions::default()).unwrap();
        assert_eq!(t.tls().mode, TlsMode::VerifyCa);
        assert_eq!(t.shown(), "postgres://u:***@127.0.0.1:1/db?sslmode=verify-ca");
        let t = PgTarget::from_url("postgres://u:pw@127.0.0.1:1/db", &ConnectOptions::default()).unwrap();
        assert!(t.password_known);
        let e = PgTarget::from_url("postgres://u:pw@h/db?sslmode=sometimes", &ConnectOptions::default())
            .err()
            .unwrap()
            .to_string();
        assert!(e.contains("use disable, prefer, require, verify-ca or verify-full"), "{e}");
    }
}
