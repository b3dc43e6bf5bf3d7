//! Reaching a MariaDB/MySQL server the way the MySQL client does: the URL, then the `[client]`
//! section of `~/.my.cnf`, then `MYSQL_PWD`, then a prompt; TLS by `ssl-mode` (default
//! `PREFERRED`) with rustls; and a record of what the connection ended up with.

use super::connect::{ConnectOptions, timed_out, within};
use super::credentials::{env, my_cnf_client, os_user, prompt_password};
use super::mysql::server_error;
use super::tls::{TlsMode, TlsSettings, TlsStatus};
use crate::engines::kind::EngineKind;
use crate::engines::server::{hide_secrets, redact_url};
use crate::{Error, ServerErrorKind};
use mysql::prelude::Queryable;
use mysql::{Conn, Opts, OptsBuilder, SslOpts};
use std::collections::BTreeMap;

/// Where and how to connect, with every source of settings applied.
#[derive(Clone)]
pub struct MyTarget {
    opts: Opts,
    tls: TlsSettings,
    shown: String,
    /// Most time one connection may take, handshake included.
    timeout: std::time::Duration,
}

/// The MySQL client's TLS options, in any of their spellings: taken out of the URL before the
/// driver parses it.
const OWN_PARAMS: [(&str, &str); 6] = [
    ("ssl-mode", "ssl-mode"),
    ("ssl_mode", "ssl-mode"),
    ("sslmode", "ssl-mode"),
    ("ssl-ca", "ssl-ca"),
    ("ssl_ca", "ssl-ca"),
    ("sslca", "ssl-ca"),
];

impl MyTarget {
    /// From a `mysql://` or `mariadb://` URL, filled in from `options` (a password the URL
    /// lacks, the connect timeout), `~/.my.cnf` and `MYSQL_PWD`. Errors never show the password.
    pub fn from_url(url: &str, options: &ConnectOptions) -> Result<Self, Error> {
        let shown = redact_url(url);
        crate::util::input::single_line(url, &shown, "the URL")?;
        let mut rest = match url.trim_start().split_once("://") {
            Some((scheme, tail)) if scheme.eq_ignore_ascii_case("mariadb") || scheme.eq_ignore_ascii_case("mysql") => {
                format!("mysql://{tail}")
            }
            _ => {
                return Err(Error::InvalidInput(format!(
                    "'{shown}' is not a MySQL/MariaDB URL: write mysql://user@host:port/database?ssl-mode=REQUIRED"
                )));
            }
        };
        let mut own = BTreeMap::new();
        let authority = rest.rfind('@').unwrap_or(0);
        if let Some(q) = rest[authority..].find('?').map(|i| authority + i) {
            let mut kept = Vec::new();
            for pair in rest[q + 1..].split('&').filter(|p| !p.is_empty()) {
                let (key, value) = pair.split_once('=').unwrap_or((pair, ""));
                match OWN_PARAMS.iter().find(|(k, _)| k.eq_ignore_ascii_case(key)) {
                    Some((_, name)) => {
                        own.insert(*name, value.replace("%2F", "/").replace("%2f", "/"));
                    }
                    None => kept.push(pair.to_string()),
                }
            }
            rest = if kept.is_empty() { rest[..q].to_string() } else { format!("{}?{}", &rest[..q], kept.join("&")) };
        }
        let opts = Opts::from_url(&rest).map_err(|e| {
            let why = match unencoded_in_password(url) {
                // The driver read another address than the one shown (the password hidden):
                // `mysql://u:pa/ss@h/db` is host `u`, port `pa` to it.
                Some(found) => format!(
                    "its password holds {found}, which must be percent-encoded (%2F, %3F, %23): encode them, or leave the password out of the URL and set MYSQL_PWD"
                ),
                // Without the driver's type names ("URL ParseError { … }").
                None => match &e {
                    mysql::UrlError::ParseError(p) => format!("{p}: write mysql://user@host:port/database"),
                    other => format!("{other}: write mysql://user@host:port/database"),
                },
            };
            Error::InvalidInput(hide_secrets(&format!("'{shown}' is not a MySQL/MariaDB URL: {why}"), url))
        })?;
        let cnf = my_cnf_client();
        let mut builder = OptsBuilder::from_opts(opts.clone());
        if opts.get_user().is_none_or(str::is_empty) {
            builder = builder.user(cnf.get("user").cloned().or_else(os_user));
        }
        if opts.get_pass().is_none() {
            // --password-file, then the option file before MYSQL_PWD, as the mysql client reads them.
            let given = options.password.as_ref().map(|p| p.reveal().to_string());
            builder = builder.pass(given.or_else(|| cnf.get("password").cloned()).or_else(|| env("MYSQL_PWD")));
        }
        // The URL's tcp_connect_timeout_ms, else the flag's.
        let timeout = opts.get_tcp_connect_timeout().unwrap_or(options.timeout);
        builder = builder.tcp_connect_timeout(Some(timeout));
        let pick = |key: &str| own.get(key).or_else(|| cnf.get(key)).cloned();
        let mode = match pick("ssl-mode") {
            Some(m) => TlsMode::parse_mysql(&m)?,
            None => TlsMode::Prefer,
        };
        let tls = TlsSettings { mode, ca_file: pick("ssl-ca").map(Into::into) };
        Ok(MyTarget { opts: builder.into(), tls, shown, timeout })
    }

    /// A managed server's socket: no TLS, no password.
    pub fn managed(opts: Opts, options: &ConnectOptions) -> Self {
        let tls = TlsSettings { mode: TlsMode::Disable, ca_file: None };
        MyTarget { opts, tls, shown: "the managed MariaDB server".into(), timeout: options.timeout }
    }

    /// The URL with its password hidden.
    pub fn shown(&self) -> &str {
        &self.shown
    }

    /// The TLS settings.
    pub fn tls(&self) -> &TlsSettings {
        &self.tls
    }

    /// The driver's options, with a change (e.g. a timeout).
    pub fn map_opts(&mut self, f: impl FnOnce(OptsBuilder) -> OptsBuilder) {
        self.opts = f(OptsBuilder::from_opts(self.opts.clone())).into();
    }

    /// Connects; when the server refuses a connection without a password and nothing gave one,
    /// asks the installed prompt once and keeps what was typed. `what` starts the error message.
    pub fn connect_first(&mut self, what: &str) -> Result<(Conn, TlsStatus), Error> {
        if let Some(path) = &self.tls.ca_file {
            // The driver reads it itself, unbounded and only once the server answers: a missing,
            // endless or huge file is said first.
            crate::util::input::read_bytes(path, crate::util::input::InputKind::Certificates)?;
        }
        match self.connect(what) {
            Err(e)
                if self.opts.get_pass().is_none() && e.server_kind() == Some(ServerErrorKind::AuthenticationFailed) =>
            {
                let user = self.opts.get_user().unwrap_or_default();
                let Some(password) = prompt_password(&format!("Password for MySQL/MariaDB user {user}: ")) else {
                    return Err(e);
                };
                self.map_opts(|b| b.pass(Some(password)));
                self.connect(what)
            }
            other => other,
        }
    }

    /// Another connection with the same settings, on its own thread and given up after the
    /// timeout: the driver's `tcp_connect_timeout` bounds only the TCP connect, and a MySQL
    /// client waits for the server to speak first, so a port of another protocol would leave
    /// it waiting.
    pub fn connect(&self, what: &str) -> Result<(Conn, TlsStatus), Error> {
        let (target, context) = (self.clone(), what.to_string());
        within(self.timeout, move || target.connect_within().map_err(|e| target.error(&context, &e)))
            .unwrap_or_else(|| Err(timed_out(EngineKind::MariaDb.label(), &self.shown, self.timeout, "MySQL/MariaDB")))
    }

    fn connect_within(&self) -> Result<(Conn, TlsStatus), mysql::Error> {
        let asked = format!("ssl-mode={}", self.tls.mode.mysql_name());
        let socket = self.opts.get_socket().is_some() && self.opts.get_prefer_socket();
        if self.tls.mode == TlsMode::Disable || socket {
            let conn = Conn::new(self.opts.clone())?;
            let note = if socket { "Unix socket: TLS does not apply" } else { "ssl-mode=DISABLED" };
            return Ok((conn, TlsStatus { asked, encrypted: false, protocol: None, note: Some(note.into()) }));
        }
        let ssl = SslOpts::default()
            .with_root_cert_path(self.tls.ca_file.clone())
            // REQUIRED and PREFERRED encrypt without checking the certificate, as the mysql client.
            .with_danger_accept_invalid_certs(matches!(self.tls.mode, TlsMode::Prefer | TlsMode::Require))
            .with_danger_skip_domain_validation(self.tls.mode == TlsMode::VerifyCa);
        let with_tls = OptsBuilder::from_opts(self.opts.clone()).ssl_opts(Some(ssl));
        let (mut conn, fell_back) = match Conn::new(with_tls) {
            Ok(conn) => (conn, None),
            Err(e) if self.tls.mode == TlsMode::Prefer => {
                let conn = Conn::new(self.opts.clone())?;
                let why = match e {
                    mysql::Error::DriverError(mysql::DriverError::TlsNotSupported) => TlsStatus::fell_back_note(&asked),
                    other => format!("{asked}: TLS failed ({other}), so the connection fell back to plaintext"),
                };
                (conn, Some(why))
            }
            Err(e) => return Err(e),
        };
        let version: Option<(String, String)> = conn.query_first("SHOW SESSION STATUS LIKE 'Ssl_version'")?;
        let protocol = version.map(|(_, v)| v).filter(|v| !v.is_empty());
        let encrypted = protocol.is_some();
        let note = (!encrypted).then(|| fell_back.unwrap_or_else(|| TlsStatus::fell_back_note(&asked)));
        Ok((conn, TlsStatus { asked, encrypted, protocol, note }))
    }

    /// The driver's error as one line, with what to do for TLS and password failures.
    fn error(&self, what: &str, e: &mysql::Error) -> Error {
        let mut cause = server_error(e);
        let text = cause.message.clone();
        let hint = if text.contains("UnknownIssuer") {
            Some(
                "the server's certificate is not signed by a CA pkbench trusts: give that CA with ssl-ca=FILE"
                    .to_string(),
            )
        } else if text.contains("NotValidForName") {
            Some("the server's certificate does not name the host in the URL: connect by a name it lists, or use ssl-mode=VERIFY_CA".into())
        } else if matches!(e, mysql::Error::DriverError(mysql::DriverError::TlsNotSupported)) {
            Some(format!(
                "the server does not offer TLS but ssl-mode={} requires it: turn TLS on at the server, or use ssl-mode=PREFERRED",
                self.tls.mode.mysql_name()
            ))
        } else if denied(e) && self.opts.get_pass().is_none() {
            Some(
                "give the password with MYSQL_PWD, the [client] section of ~/.my.cnf, or at the prompt in a terminal"
                    .into(),
            )
        } else {
            None
        };
        if let Some(hint) = hint {
            cause.message = format!("{text}; {hint}");
        }
        Error::server(format!("{what} {}", self.shown), cause)
    }
}

/// Access denied for the user (wrong or missing password).
fn denied(e: &mysql::Error) -> bool {
    matches!(e, mysql::Error::MySqlError(m) if m.code == 1045)
}

/// The characters of `url`'s password (between the user's ':' and the last '@') that end a
/// URL's address unless percent-encoded, quoted and listed (`'/' and '?'`); `None` if none.
fn unencoded_in_password(url: &str) -> Option<String> {
    let (_, tail) = url.split_once("://")?;
    let userinfo = &tail[..tail.rfind('@')?];
    let (_, password) = userinfo.split_once(':')?;
    let found: Vec<String> =
        ['/', '?', '#'].iter().filter(|c| password.contains(**c)).map(|c| format!("'{c}'")).collect();
    (!found.is_empty()).then(|| found.join(" and "))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tls_options_are_taken_out_of_the_url() {
        let t = MyTarget::from_url(
            "mariadb://u:pw@127.0.0.1:3/db?ssl-mode=verify_identity&ssl-ca=%2Ftmp%2Fca.pem",
            &ConnectOptions::default(),
        )
        .unwrap();
        assert_eq!(t.tls().mode, TlsMode::VerifyFull);
        assert_eq!(t.tls().ca_file.as_deref(), Some(std::path::Path::new("/tmp/ca.pem")));
        assert_eq!(t.shown(), "mariadb://u:***@127.0.0.1:3/db?ssl-mode=verify_identity&ssl-ca=%2Ftmp%2Fca.pem");
        let e = MyTarget::from_url("mysql//u:SECRET@h", &ConnectOptions::default()).err().unwrap().to_string();
        assert!(!e.contains("SECRET") && e.contains("write mysql://"), "{e}");
    }

    #[test]
    fn a_password_that_ends_the_address_is_named_as_the_problem() {
        let e = MyTarget::from_url("mysql://u:pa/ss?w@h/db", &ConnectOptions::default()).err().unwrap().to_string();
        assert_eq!(
            e,
            "'mysql://u:***@h/db' is not a MySQL/MariaDB URL: its password holds '/' and '?', which must be percent-encoded (%2F, %3F, %23): encode them, or leave the password out of the URL and set MYSQL_PWD"
        );
        let e = MyTarget::from_url("mysql://u:PASS@h:x/db", &ConnectOptions::default()).err().unwrap().to_string();
        assert!(e.starts_with("'mysql://u:***@h:x/db' is not a MySQL/MariaDB URL: invalid port number: write"), "{e}");
        assert!(!e.contains("PASS"), "{e}");
    }
}
