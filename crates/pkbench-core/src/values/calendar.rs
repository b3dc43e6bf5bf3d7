//! Dates and timestamps written as SQL literals every engine reads (`YYYY-MM-DD`,
//! `YYYY-MM-DD HH:MM:SS.ffffff`), without a date-time dependency.

use crate::util::time::civil_from_days;
use std::fmt::Write;

/// Appends day `day` (days since 1970-01-01) as `YYYY-MM-DD`.
pub(crate) fn write_date(out: &mut String, day: i32) {
    let (y, m, d) = civil_from_days(day.into());
    let _ = write!(out, "{y:04}-{m:02}-{d:02}");
}

/// Appends `micros` (microseconds since the Unix epoch, UTC) as `YYYY-MM-DD HH:MM:SS.ffffff`.
pub(crate) fn write_timestamp(out: &mut String, micros: i64) {
    let (secs, frac) = (micros.div_euclid(1_000_000), micros.rem_euclid(1_000_000));
    let (days, rem) = (secs.div_euclid(86_400), secs.rem_euclid(86_400));
    let (y, m, d) = civil_from_days(days);
    let _ = write!(out, "{y:04}-{m:02}-{d:02} {:02}:{:02}:{:02}.{frac:06}", rem / 3600, rem % 3600 / 60, rem % 60);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn literals() {
        let mut s = String::new();
        write_date(&mut s, 10_957);
        s.push('|');
        write_timestamp(&mut s, 1_767_225_600_000_000 + 3_723_000_042);
        s.push('|');
        write_timestamp(&mut s, -1);
        assert_eq!(s, "2000-01-01|2026-01-01 01:02:03.000042|1969-12-31 23:59:59.999999");
    }
}
