//! UTC timestamps in RFC 3339 form, without a date-time dependency.

use std::time::{SystemTime, UNIX_EPOCH};

/// Formats Unix milliseconds as `YYYY-MM-DDTHH:MM:SS.mmmZ`.
pub fn rfc3339_from_unix_ms(ms: i64) -> String {
    let (secs, millis) = (ms.div_euclid(1000), ms.rem_euclid(1000));
    let (days, rem) = (secs.div_euclid(86_400), secs.rem_euclid(86_400));
    let (y, m, d) = civil_from_days(days);
    format!("{y:04}-{m:02}-{d:02}T{:02}:{:02}:{:02}.{millis:03}Z", rem / 3600, rem % 3600 / 60, rem % 60)
}

/// Formats Unix nanoseconds as `YYYY-MM-DDTHH:MM:SS[.f…]Z` with `frac_digits` (0–9) digits of
/// the second, truncated (not rounded). Years outside 0–9999 are printed with a sign.
pub fn rfc3339_from_unix_ns(ns: i128, frac_digits: u32) -> String {
    let secs = ns.div_euclid(1_000_000_000);
    let nanos = ns.rem_euclid(1_000_000_000);
    let days = i64::try_from(secs.div_euclid(86_400)).unwrap_or(if secs < 0 { i64::MIN / 2 } else { i64::MAX / 2 });
    let rem = secs.rem_euclid(86_400);
    let (y, m, d) = civil_from_days(days);
    let year = if (0..=9999).contains(&y) { format!("{y:04}") } else { format!("{y:+}") };
    let digits = frac_digits.min(9);
    let frac = if digits == 0 {
        String::new()
    } else {
        let scaled = nanos / 10i128.pow(9 - digits);
        format!(".{scaled:0width$}", width = digits as usize)
    };
    format!("{year}-{m:02}-{d:02}T{:02}:{:02}:{:02}{frac}Z", rem / 3600, rem % 3600 / 60, rem % 60)
}

/// The current time in RFC 3339 form.
pub fn rfc3339_now() -> String {
    let ms = SystemTime::now().duration_since(UNIX_EPOCH).map_or(0, |d| d.as_millis() as i64);
    rfc3339_from_unix_ms(ms)
}

/// A compact UTC stamp for folder names: `YYYYMMDD-HHMMSS`.
pub fn folder_stamp_now() -> String {
    let s = rfc3339_now();
    format!("{}{}{}-{}{}{}", &s[0..4], &s[5..7], &s[8..10], &s[11..13], &s[14..16], &s[17..19])
}

/// A results folder that does not exist yet: `pkbench-results/<prefix><stamp>`, with `-2`,
/// `-3`, … added when a folder of that second is already there.
pub fn new_results_dir(prefix: &str) -> std::path::PathBuf {
    let base = std::path::PathBuf::from("pkbench-results");
    let stamp = format!("{prefix}{}", folder_stamp_now());
    let mut dir = base.join(&stamp);
    let mut n = 2;
    while dir.exists() {
        dir = base.join(format!("{stamp}-{n}"));
        n += 1;
    }
    dir
}

/// Howard Hinnant's days-to-civil algorithm (proleptic Gregorian calendar).
pub(crate) fn civil_from_days(z: i64) -> (i64, u32, u32) {
    let z = z + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = (doy - (153 * mp + 2) / 5 + 1) as u32;
    let m = if mp < 10 { mp + 3 } else { mp - 9 } as u32;
    (yoe + era * 400 + i64::from(m <= 2), m, d)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn known_instants() {
        assert_eq!(rfc3339_from_unix_ms(0), "1970-01-01T00:00:00.000Z");
        assert_eq!(rfc3339_from_unix_ms(1_767_225_600_000), "2026-01-01T00:00:00.000Z");
        assert_eq!(rfc3339_from_unix_ms(951_782_400_123), "2000-02-29T00:00:00.123Z");
        assert_eq!(rfc3339_from_unix_ms(-1), "1969-12-31T23:59:59.999Z");
    }

    #[test]
    fn nanosecond_instants() {
        assert_eq!(rfc3339_from_unix_ns(1_645_557_742_000_000_000, 7), "2022-02-22T19:22:22.0000000Z");
        assert_eq!(rfc3339_from_unix_ns(1_645_557_742_123_456_789, 3), "2022-02-22T19:22:22.123Z");
        assert_eq!(rfc3339_from_unix_ns(-12_219_292_800_000_000_000, 0), "1582-10-15T00:00:00Z");
        assert!(rfc3339_from_unix_ns(i128::MAX, 9).starts_with('+'));
        assert!(rfc3339_from_unix_ns(i128::MIN, 9).starts_with('-'));
    }
}
