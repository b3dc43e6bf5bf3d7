//! An engine's settings as a person reads them: results.json keeps what the engine reports
//! (`synchronous=2`, `cache_size=-8192`), the reports show `synchronous=FULL` and `cache 8 MiB`.

/// One engine setting, ready to show.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ReadableSetting {
    /// What it is called.
    pub name: String,
    /// Its value, in words or with its unit.
    pub value: String,
    /// Whether the value is a size read after the name (`cache 8 MiB`) rather than assigned
    /// (`synchronous=FULL`).
    sized: bool,
}

impl ReadableSetting {
    /// `key` = `value` as the engine reported it.
    pub fn new(key: &str, value: &str) -> ReadableSetting {
        let plain = |value: String| ReadableSetting { name: key.to_string(), value, sized: false };
        match key {
            // SQLite's PRAGMA synchronous reads back as its level's number.
            "synchronous" => plain(match value {
                "0" => "OFF".into(),
                "1" => "NORMAL".into(),
                "2" => "FULL".into(),
                "3" => "EXTRA".into(),
                other => other.to_string(),
            }),
            // SQLite's PRAGMA cache_size: negative in KiB, positive in pages.
            "cache_size" => match value.parse::<i64>() {
                Ok(kib) if kib < 0 => sized("cache", kib_text(kib.unsigned_abs())),
                Ok(pages) => sized("cache", format!("{pages} pages")),
                Err(_) => plain(value.to_string()),
            },
            // InnoDB reports its sizes in bytes.
            "innodb_buffer_pool_size" | "innodb_log_file_size" => match value.parse::<u64>() {
                Ok(bytes) if bytes % 1024 == 0 => plain(kib_text(bytes / 1024)),
                _ => plain(value.to_string()),
            },
            _ => plain(value.to_string()),
        }
    }

    /// The setting on one line: `synchronous=FULL`, `cache 8 MiB`.
    pub fn inline(&self) -> String {
        if self.sized { format!("{} {}", self.name, self.value) } else { format!("{}={}", self.name, self.value) }
    }
}

fn sized(name: &str, value: String) -> ReadableSetting {
    ReadableSetting { name: name.to_string(), value, sized: true }
}

/// A size given in KiB, in the largest binary unit it is a whole number of.
fn kib_text(kib: u64) -> String {
    match kib {
        0 => "0 KiB".into(),
        k if k % (1024 * 1024) == 0 => format!("{} GiB", k / (1024 * 1024)),
        k if k % 1024 == 0 => format!("{} MiB", k / 1024),
        k => format!("{k} KiB"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn inline(key: &str, value: &str) -> String {
        ReadableSetting::new(key, value).inline()
    }

    #[test]
    fn sqlite_pragmas_read_as_words_and_sizes() {
        assert_eq!(inline("synchronous", "2"), "synchronous=FULL");
        assert_eq!(inline("synchronous", "0"), "synchronous=OFF");
        assert_eq!(inline("synchronous", "1"), "synchronous=NORMAL");
        assert_eq!(inline("synchronous", "3"), "synchronous=EXTRA");
        assert_eq!(inline("cache_size", "-8192"), "cache 8 MiB");
        assert_eq!(inline("cache_size", "-2000"), "cache 2000 KiB");
        assert_eq!(inline("cache_size", "2000"), "cache 2000 pages");
        assert_eq!(inline("journal_mode", "wal"), "journal_mode=wal");
    }

    #[test]
    fn innodb_sizes_read_in_binary_units_and_the_rest_as_given() {
        assert_eq!(inline("innodb_buffer_pool_size", "134217728"), "innodb_buffer_pool_size=128 MiB");
        assert_eq!(inline("innodb_buffer_pool_size", "1073741824"), "innodb_buffer_pool_size=1 GiB");
        assert_eq!(inline("shared_buffers", "8MB"), "shared_buffers=8MB");
        assert_eq!(inline("cache_size", "lots"), "cache_size=lots");
    }
}
