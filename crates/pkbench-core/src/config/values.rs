//! The text forms run settings take, on the command line and in plan files alike: counts
//! (`500k`, `2M`, `1G`), durations (`60s`, `2m`, `500ms`), seeds and memory sizes.

use std::time::Duration;

/// Parses a count with an optional decimal suffix k/K (10³), M (10⁶) or G (10⁹).
pub fn parse_count(s: &str) -> Result<u64, String> {
    let t = s.trim().replace('_', "");
    let (num, mult) = match t.char_indices().last() {
        Some((i, 'k' | 'K')) => (&t[..i], 1e3),
        Some((i, 'm' | 'M')) => (&t[..i], 1e6),
        Some((i, 'g' | 'G')) => (&t[..i], 1e9),
        _ => (t.as_str(), 1.0),
    };
    let bad = || format!("'{s}' is not a count: use digits with an optional k, M or G suffix (e.g. 500k, 2M)");
    if num.starts_with('-') && num[1..].parse::<f64>().is_ok() {
        return Err(format!("'{s}' is negative: give a number of rows such as 500k or 2M"));
    }
    let too_large = || format!("'{s}' is too large: a count is at most {} (about 18.4 quintillion)", u64::MAX);
    if mult == 1.0 {
        return num.parse::<u64>().map_err(|e| match e.kind() {
            std::num::IntErrorKind::PosOverflow => too_large(),
            _ => bad(),
        });
    }
    let v: f64 = num.parse().map_err(|_| bad())?;
    let total = v * mult;
    if total.is_finite() && total > u64::MAX as f64 {
        return Err(too_large());
    }
    if total.is_finite() && total >= 0.0 && total.fract() != 0.0 {
        return Err(format!("'{s}' is {total}, not a whole number: give whole rows (e.g. 1.5k = 1500)"));
    }
    if !total.is_finite() || total < 0.0 {
        return Err(bad());
    }
    Ok(total as u64)
}

/// A memory size in GiB: a positive number (e.g. 16, 0.5).
pub fn parse_gib(s: &str) -> Result<f64, String> {
    match s.trim().parse::<f64>() {
        Ok(v) if v.is_finite() && v > 0.0 => Ok(v),
        _ => Err(format!("'{s}' is not a memory size: give GiB as a positive number (e.g. 16 or 0.5)")),
    }
}

/// A seed: a whole number from 0 to 2^64 − 1.
pub fn parse_seed(s: &str) -> Result<u64, String> {
    s.trim().parse::<u64>().map_err(|e| match e.kind() {
        std::num::IntErrorKind::PosOverflow => format!("'{s}' is too large: a seed is at most {}", u64::MAX),
        _ if s.trim().starts_with('-') => format!("'{s}' is negative: a seed is a whole number from 0 to {}", u64::MAX),
        _ => format!("'{s}' is not a seed: use a whole number from 0 to {}", u64::MAX),
    })
}

/// A timeout: a duration (none = seconds, e.g. 10 or 2.5s) above zero.
pub fn parse_timeout(s: &str) -> Result<Duration, String> {
    match parse_duration(s) {
        Ok(d) if !d.is_zero() => Ok(d),
        _ => Err(format!("'{s}' is not a timeout: give seconds above 0 (e.g. 10, 2.5s)")),
    }
}

/// A time limit that may be switched off: a duration, or `off` (or 0) for none, read as zero.
pub fn parse_limit(s: &str) -> Result<Duration, String> {
    if s.trim().eq_ignore_ascii_case("off") {
        return Ok(Duration::ZERO);
    }
    parse_duration(s).map_err(|_| format!("'{s}' is not a time limit: give a duration (e.g. 30m, 1h) or off"))
}

/// Parses a duration with a unit suffix ms, s, m or h (none = seconds).
pub fn parse_duration(s: &str) -> Result<Duration, String> {
    let t = s.trim();
    let bad = || format!("'{s}' is not a duration: use a number with s, m or h (e.g. 60s, 2m)");
    let split = t.find(|c: char| c.is_ascii_alphabetic()).unwrap_or(t.len());
    let (num, unit) = t.split_at(split);
    let secs_per_unit = match unit {
        "ms" => 1e-3,
        "" | "s" => 1.0,
        "m" | "min" => 60.0,
        "h" => 3600.0,
        _ => return Err(bad()),
    };
    let v: f64 = num.parse().map_err(|_| bad())?;
    if v < 0.0 {
        return Err(format!("'{s}' is negative: give a duration such as 60s or 2m"));
    }
    let secs = v * secs_per_unit;
    if !secs.is_finite() || !(0.0..=1e9).contains(&secs) {
        return Err(bad());
    }
    Ok(Duration::from_secs_f64(secs))
}

/// A 64-bit key in decimal or `0x` hex.
pub fn parse_key(s: &str) -> Result<u64, String> {
    let t = s.trim().replace('_', "");
    let parsed = match t.strip_prefix("0x").or_else(|| t.strip_prefix("0X")) {
        Some(hex) => u64::from_str_radix(hex, 16),
        None => t.parse::<u64>(),
    };
    parsed.map_err(|_| format!("'{s}' is not a 64-bit key: use a decimal number or 0x followed by hex digits"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn negative_and_overflowing_counts_say_so() {
        assert!(parse_count("-5").unwrap_err().contains("is negative"));
        assert!(parse_count("-1.5M").unwrap_err().contains("is negative"));
        assert!(parse_count("99999999999999999999").unwrap_err().contains("too large"));
        assert!(parse_count("99999999999G").unwrap_err().contains("too large"));
        assert!(parse_count("lots").unwrap_err().contains("is not a count"));
        assert!(!parse_count("-5").unwrap_err().contains("0 or more"), "-n 0 is refused: do not invite it");
        assert_eq!(
            parse_count("1.2345k").unwrap_err(),
            "'1.2345k' is 1234.5, not a whole number: give whole rows (e.g. 1.5k = 1500)"
        );
    }

    #[test]
    fn suffixes() {
        assert_eq!(parse_count("500k"), Ok(500_000));
        assert_eq!(parse_count("2M"), Ok(2_000_000));
        assert_eq!(parse_count("1.5M"), Ok(1_500_000));
        assert_eq!(parse_count("3G"), Ok(3_000_000_000));
        assert_eq!(parse_count("1_000"), Ok(1000));
        assert_eq!(parse_count("0"), Ok(0));
        assert!(parse_count("-1").is_err());
        assert!(parse_count("lots").is_err());
        assert!(parse_count("1.0001k").is_err());
    }

    #[test]
    fn units() {
        assert_eq!(parse_duration("60s"), Ok(Duration::from_secs(60)));
        assert_eq!(parse_duration("2m"), Ok(Duration::from_secs(120)));
        assert_eq!(parse_duration("1.5m"), Ok(Duration::from_secs(90)));
        assert_eq!(parse_duration("1h"), Ok(Duration::from_secs(3600)));
        assert_eq!(parse_duration("500ms"), Ok(Duration::from_millis(500)));
        assert_eq!(parse_duration("5"), Ok(Duration::from_secs(5)));
        assert_eq!(parse_duration("0s"), Ok(Duration::ZERO));
        for bad in ["", "s", "-1s", "10x", "fast", "1e400s"] {
            assert!(parse_duration(bad).is_err(), "{bad}");
        }
    }
}
