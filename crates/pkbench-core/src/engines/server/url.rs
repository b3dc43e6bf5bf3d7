//! Keeping passwords out of messages and results.

/// `scheme://user:secret@host/db` → `scheme://user:***@host/db`, even when the password holds
/// unencoded `/`, `?`, `#` or `@`, and in malformed URLs (`mysql//u:secret@h`, `mysql:/u:secret@h`,
/// a non-numeric "port" after `user:`); also hides `password=…` / `password = '…'` parameters in a
/// query string or a key-value connection string. Anything else is returned unchanged.
pub fn redact_url(url: &str) -> String {
    let mut out = url.to_string();
    // Where user info may start: after `://`, else after a scheme-like prefix's `:/`, `//` or `:`.
    let rest = match out.find("://") {
        Some(i) => i + 3,
        None => out.find(['/', ':']).map_or(0, |i| i + out[i..].chars().take_while(|c| matches!(c, '/' | ':')).count()),
    };
    // The user info ends at the last '@' (a password may contain any character).
    if let Some(at) = out[rest..].rfind('@').map(|i| rest + i) {
        if let Some(colon) = out[rest..at].find(':').map(|i| rest + i) {
            out.replace_range(colon + 1..at, "***");
        } else if rest > 0 && out[..rest].ends_with(':') && !out[..rest].contains('/') {
            // `mysql:secret@h`: what follows the scheme's ':' may be a password.
            out.replace_range(rest..at, "***");
        }
    } else if let Some(colon) = out[rest..].find(':').map(|i| rest + i) {
        // `scheme://user:secret` with no host: a "port" that is not a number may be a password.
        let end = out[colon + 1..].find(['/', '?', '#']).map_or(out.len(), |e| colon + 1 + e);
        if out.contains("://") && !out[colon + 1..end].chars().all(|c| c.is_ascii_digit() || c == ',') {
            out.replace_range(colon + 1..end, "***");
        }
    }
    let lower = out.to_ascii_lowercase();
    if let Some(i) = lower.find("password") {
        let after = &out[i + "password".len()..];
        let eq = after.len() - after.trim_start().len();
        if after.trim_start().starts_with('=') {
            let mut start = i + "password".len() + eq + 1;
            start += out[start..].len() - out[start..].trim_start().len();
            let end = match out[start..].chars().next() {
                Some(q @ ('\'' | '"')) => out[start + 1..].find(q).map_or(out.len(), |e| start + 1 + e + 1),
                _ => out[start..].find(['&', ' ']).map_or(out.len(), |e| start + e),
            };
            out.replace_range(start..end, "***");
        }
    }
    out
}

/// `text` with every secret [`redact_url`] would hide in `url` replaced by `***` (for driver
/// messages that may quote a part of a malformed URL).
pub fn hide_secrets(text: &str, url: &str) -> String {
    let shown = redact_url(url);
    // The secret is what `***` stands for: the difference between the two strings.
    let mut out = text.to_string();
    if let Some(star) = shown.find("***") {
        let tail = &shown[star + 3..];
        if url.len() >= star + tail.len() && url.ends_with(tail) {
            let secret = &url[star..url.len() - tail.len()];
            if secret.len() >= 2 {
                out = out.replace(secret, "***");
                let decoded_form = secret.replace("%40", "@");
                if decoded_form != secret {
                    out = out.replace(&decoded_form, "***");
                }
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::redact_url;

    #[test]
    fn hides_passwords() {
        assert_eq!(redact_url("postgres://bob:s3cret@db:5432/app"), "postgres://bob:***@db:5432/app");
        assert_eq!(redact_url("mysql://root:p%40ss@127.0.0.1/x?ssl=0"), "mysql://root:***@127.0.0.1/x?ssl=0");
        assert_eq!(redact_url("postgres://bob@db/app"), "postgres://bob@db/app");
        assert_eq!(redact_url("postgres://db/app?password=hunter2&x=1"), "postgres://db/app?password=***&x=1");
        assert_eq!(redact_url("host=db password=hunter2 user=x"), "host=db password=*** user=x");
        assert_eq!(redact_url("postgres://a:b@c@host/db"), "postgres://a:***@host/db");
        assert_eq!(redact_url("postgres://bob:pa/ss?w#rd@h/db"), "postgres://bob:***@h/db");
        assert_eq!(redact_url("host=db password = 'a b c' user=x"), "host=db password = *** user=x");
        assert_eq!(redact_url("--out=/tmp/x"), "--out=/tmp/x");
        assert_eq!(redact_url("mysql//u:PASS@host"), "mysql//u:***@host");
        assert_eq!(redact_url("postgres//u:PASS@host/db"), "postgres//u:***@host/db");
        assert_eq!(redact_url("mysql:/u:PASS@host"), "mysql:/u:***@host");
        assert_eq!(redact_url("mysql:PASS@host"), "mysql:***@host");
        assert_eq!(redact_url("http://u:PASS@h/db"), "http://u:***@h/db");
        assert_eq!(redact_url("mysql://u:PASS"), "mysql://u:***");
        assert_eq!(redact_url("postgres://h:5432/db"), "postgres://h:5432/db");
        assert_eq!(redact_url("/tmp/a.db"), "/tmp/a.db");
        assert_eq!(redact_url("C:/x"), "C:/x");
    }

    #[test]
    fn secrets_quoted_by_a_driver_are_hidden() {
        use super::hide_secrets;
        let url = "mysql://u:PASS@h/db?bad=1";
        assert_eq!(
            hide_secrets("bad URL mysql://u:PASS@h/db?bad=1 (PASS)", url),
            "bad URL mysql://u:***@h/db?bad=1 (***)"
        );
    }
}
