//! Keeping passwords out of messages and results.

/// `scheme://user:secret@host/db` → `scheme://user:***@host/db`; also hides `password=…` query
/// or key-value parameters. Anything else is returned unchanged.
pub fn redact_url(url: &str) -> String {
    let mut out = match url.split_once("://") {
        Some((scheme, rest)) => {
            let (authority, tail) = rest.split_at(rest.find(['/', '?']).unwrap_or(rest.len()));
            match authority.rsplit_once('@') {
                Some((userinfo, host)) => match userinfo.split_once(':') {
                    Some((user, _)) => format!("{scheme}://{user}:***@{host}{tail}"),
                    None => url.to_string(),
                },
                None => url.to_string(),
            }
        }
        None => url.to_string(),
    };
    // password=… in a query string or a key-value connection string.
    let lower = out.to_ascii_lowercase();
    if let Some(i) = lower.find("password=") {
        let start = i + "password=".len();
        let end = out[start..].find(['&', ' ']).map_or(out.len(), |e| start + e);
        out.replace_range(start..end, "***");
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
    }
}
