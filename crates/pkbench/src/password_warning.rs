//! A password typed in a URL on the command line can be read by every user of the machine
//! (`ps`, `/proc/PID/cmdline`) for as long as pkbench runs: say so, once per URL, and name the
//! ways pkbench takes a password instead. (Rust offers no portable way to overwrite a process's
//! own arguments, so the warning is what pkbench can do.)

use pkbench_core::engines::server::redact_url;

/// Warns on stderr when `url` (given as `what`, e.g. `--url`) carries a password.
pub fn warn_if_in(what: &str, url: &str) {
    if redact_url(url) != url {
        crate::output::say_text(&format!("{}\n", warning(what)));
    }
}

/// The warning's one line.
fn warning(what: &str) -> String {
    format!(
        "Warning: the password in {what} can be read by other users of this machine while pkbench runs (ps shows command lines): give it with --password-file FILE, PGPASSWORD or ~/.pgpass (PostgreSQL), MYSQL_PWD or ~/.my.cnf (MariaDB/MySQL), or leave it out of the URL to be asked for it in a terminal"
    )
}

#[cfg(test)]
mod tests {
    #[test]
    fn the_warning_is_one_line_and_names_every_alternative() {
        let w = super::warning("--url");
        assert_eq!(w.lines().count(), 1);
        for alternative in ["--password-file", "PGPASSWORD", "~/.pgpass", "MYSQL_PWD", "~/.my.cnf", "terminal"] {
            assert!(w.contains(alternative), "{alternative}: {w}");
        }
    }
}
