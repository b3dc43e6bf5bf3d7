//! Human-friendly counts for flags: `500k`, `2M`, `1G`, `1_000_000`.

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
    if num.starts_with('-') {
        return Err(bad());
    }
    if mult == 1.0 {
        return num.parse::<u64>().map_err(|_| bad());
    }
    let v: f64 = num.parse().map_err(|_| bad())?;
    let total = v * mult;
    if !total.is_finite() || total < 0.0 || total.fract() != 0.0 || total > u64::MAX as f64 {
        return Err(bad());
    }
    Ok(total as u64)
}

#[cfg(test)]
mod tests {
    use super::parse_count;

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
}
