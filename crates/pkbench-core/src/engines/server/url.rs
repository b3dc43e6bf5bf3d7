//! Keeping passwords out of messages and results.

/// `scheme://user:secret@host/db` → `scheme://user:***@host/db`, even when the password holds
/// unencoded `/`, `?`, `#` or `@`; also hides `password=…` / `password = '…'` parameters in a
/// query string or a key-value connection string. Anything else is returned unchanged.
pub fn redact_url(url: &str) -> String {
    let mut out = url.to_string();
    if let Some(scheme_end) = out.find("://") {
        let rest = scheme_end + 3;
        // The user info ends at the last '@' (a password may contain any character).
        if let Some(at) = out[rest..].rfind('@').map(|i| rest + i)
            && let Some(colon) = out[rest..at].find(':').map(|i| rest + i)
        {
            out.replace_range(colon + 1..at, "***");
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
    }
}
