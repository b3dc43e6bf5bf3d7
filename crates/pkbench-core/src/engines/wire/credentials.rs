//! Where a password comes from when the URL has none, as libpq and the MySQL client look:
//! PostgreSQL's password file (`PGPASSFILE`, `~/.pgpass`, ignored unless only its owner may read
//! it) and service file (`PGSERVICEFILE`, `~/.pg_service.conf`, `PGSYSCONFDIR`), MySQL's
//! `[client]` section of `~/.my.cnf`; and, last, a prompt the CLI installs when a terminal is
//! attached (the library itself never reads the terminal).

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::OnceLock;

/// Asks the person at the terminal for a password, given the prompt text; `None` if none was
/// typed.
pub type PasswordPrompt = fn(&str) -> Option<String>;

static PROMPT: OnceLock<PasswordPrompt> = OnceLock::new();

/// Installs the prompt asked when a server wants a password and nothing else gave one. The CLI
/// installs one only when a terminal is attached.
pub fn set_password_prompt(prompt: PasswordPrompt) {
    let _ = PROMPT.set(prompt);
}

/// The password typed at the prompt, if a prompt is installed.
#[cfg_attr(not(any(feature = "postgres", feature = "mysql")), allow(dead_code))]
pub(crate) fn prompt_password(text: &str) -> Option<String> {
    PROMPT.get().and_then(|p| p(text)).filter(|p| !p.is_empty())
}

/// A non-empty environment variable.
pub(crate) fn env(name: &str) -> Option<String> {
    std::env::var(name).ok().filter(|v| !v.is_empty())
}

/// The home folder (`HOME`).
fn home() -> Option<PathBuf> {
    env("HOME").map(PathBuf::from)
}

/// The name of the user running pkbench, the default user of both clients.
#[cfg_attr(not(any(feature = "postgres", feature = "mysql")), allow(dead_code))]
pub(crate) fn os_user() -> Option<String> {
    env("USER").or_else(|| env("LOGNAME"))
}

/// A password file's verdict.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum PassFile {
    /// The file gave this password.
    Found(String),
    /// No file, or no line matched.
    None,
    /// The file was ignored; the text says why and what to do.
    Ignored(String),
}

/// Looks up `host:port:database:user` in PostgreSQL's password file (`PGPASSFILE`, else
/// `~/.pgpass`). As libpq, a file that its group or others may read is ignored.
pub fn pgpass(host: &str, port: u16, database: &str, user: &str) -> PassFile {
    let Some(path) = env("PGPASSFILE").map(PathBuf::from).or_else(|| home().map(|h| h.join(".pgpass"))) else {
        return PassFile::None;
    };
    let Ok(meta) = std::fs::metadata(&path) else { return PassFile::None };
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        if meta.permissions().mode() & 0o077 != 0 {
            return PassFile::Ignored(format!(
                "the password file {} was ignored: its group or others may read it (chmod 0600 it, as libpq requires)",
                path.display()
            ));
        }
    }
    if !meta.is_file() {
        return PassFile::None;
    }
    // Bounded: PGPASSFILE may name anything (a device, an endless pipe).
    let Ok(text) = crate::util::input::read_text(&path, crate::util::input::InputKind::Credentials) else {
        return PassFile::None;
    };
    let port = port.to_string();
    for line in text.lines().filter(|l| !l.trim_start().starts_with('#')) {
        let fields = pgpass_fields(line);
        if let [h, p, d, u, password] = fields.as_slice() {
            let matches = |field: &str, value: &str| field == "*" || field == value;
            if matches(h, host) && matches(p, &port) && matches(d, database) && matches(u, user) {
                return PassFile::Found(password.clone());
            }
        }
    }
    PassFile::None
}

/// A `.pgpass` line's five fields: `:` separates, `\` escapes `:` and `\`.
fn pgpass_fields(line: &str) -> Vec<String> {
    let mut fields = vec![String::new()];
    let mut chars = line.chars();
    while let Some(c) = chars.next() {
        match c {
            '\\' => fields.last_mut().into_iter().for_each(|f| f.extend(chars.next())),
            ':' if fields.len() < 5 => fields.push(String::new()),
            c => fields.last_mut().into_iter().for_each(|f| f.push(c)),
        }
    }
    fields
}

/// The settings of service `name` in PostgreSQL's service files (`PGSERVICEFILE` or
/// `~/.pg_service.conf`, then `PGSYSCONFDIR/pg_service.conf` or
/// `/etc/postgresql-common/pg_service.conf`); `None` if no file defines it.
pub fn pg_service(name: &str) -> Option<BTreeMap<String, String>> {
    let user = env("PGSERVICEFILE").map(PathBuf::from).or_else(|| home().map(|h| h.join(".pg_service.conf")));
    let system = env("PGSYSCONFDIR")
        .map(|d| Path::new(&d).join("pg_service.conf"))
        .unwrap_or_else(|| PathBuf::from("/etc/postgresql-common/pg_service.conf"));
    [user, Some(system)].into_iter().flatten().find_map(|path| ini_section(&path, name))
}

/// `[client]` of the MySQL client's option file `~/.my.cnf`: user, password, host, port,
/// ssl-mode, ssl-ca (keys spelt with `-` or `_`).
pub fn my_cnf_client() -> BTreeMap<String, String> {
    home().and_then(|h| ini_section(&h.join(".my.cnf"), "client")).unwrap_or_default()
}

/// One section of an INI-style file, keys lowercased with `_` as `-`; bare flags and
/// `!include` lines (valid in MySQL option files) are skipped.
fn ini_section(path: &Path, section: &str) -> Option<BTreeMap<String, String>> {
    let text = crate::util::input::read_text(path, crate::util::input::InputKind::Credentials).ok()?;
    let kept: String = text
        .lines()
        .filter(|l| {
            let t = l.trim_start();
            t.is_empty() || t.starts_with(['[', '#', ';']) || t.contains('=')
        })
        .flat_map(|l| [l, "\n"])
        .collect();
    let options = ini::ParseOption { enabled_escape: false, ..ini::ParseOption::default() };
    let ini = ini::Ini::load_from_str_opt(&kept, options).ok()?;
    let props = ini.section(Some(section))?;
    Some(props.iter().map(|(k, v)| (k.trim().to_ascii_lowercase().replace('_', "-"), v.trim().to_string())).collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pgpass_lines_split_on_unescaped_colons() {
        assert_eq!(pgpass_fields(r"db:5432:*:bob:pa\:ss\\w"), ["db", "5432", "*", "bob", r"pa:ss\w"]);
        assert_eq!(pgpass_fields("a:b:c:d:e:f"), ["a", "b", "c", "d", "e:f"]);
    }

    #[test]
    fn ini_sections_skip_bare_flags() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("my.cnf");
        std::fs::write(
            &path,
            "!include /x\n[mysqld]\nskip-networking\n[client]\nuser = bob\npassword=\"p w\"\nssl_mode=REQUIRED\n",
        )
        .unwrap();
        let client = ini_section(&path, "client").unwrap();
        assert_eq!(client.get("user").map(String::as_str), Some("bob"));
        assert_eq!(client.get("password").map(String::as_str), Some("p w"));
        assert_eq!(client.get("ssl-mode").map(String::as_str), Some("REQUIRED"));
    }
}
