//! Words in messages.

/// `n` and `noun`, the noun in the plural unless `n` is one: `count(1, "case")` is "1 case",
/// `count(3, "batch")` "3 batches".
pub fn count(n: impl std::fmt::Display, noun: &str) -> String {
    let n = n.to_string();
    if n == "1" { format!("1 {noun}") } else { format!("{n} {}", plural(noun)) }
}

/// The plural of an English `noun` (`case` → `cases`, `batch` → `batches`, `entry` → `entries`,
/// `ID` → `IDs`).
pub fn plural(noun: &str) -> String {
    let consonant_y = noun.strip_suffix('y').filter(|stem| !stem.ends_with(['a', 'e', 'i', 'o', 'u']));
    if let Some(stem) = consonant_y {
        format!("{stem}ies")
    } else if ["s", "x", "z", "ch", "sh"].iter().any(|end| noun.ends_with(end)) {
        format!("{noun}es")
    } else {
        format!("{noun}s")
    }
}

/// `1234567` as `1,234,567`.
pub fn thousands(n: u64) -> String {
    let digits = n.to_string();
    let mut out = String::with_capacity(digits.len() + digits.len() / 3);
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn one_is_singular_and_every_other_count_plural() {
        assert_eq!(count(1, "case"), "1 case");
        assert_eq!(count(0usize, "case"), "0 cases");
        assert_eq!(count(2u64, "batch"), "2 batches");
        assert_eq!(count(1, "batch"), "1 batch");
        assert_eq!(count(5, "entry"), "5 entries");
        assert_eq!(count(5, "key"), "5 keys");
        assert_eq!(count(3, "ID"), "3 IDs");
        assert_eq!(count("1", "timed step"), "1 timed step");
    }

    #[test]
    fn thousands_groups_digits() {
        assert_eq!(thousands(0), "0");
        assert_eq!(thousands(100), "100");
        assert_eq!(thousands(1_234_567), "1,234,567");
    }
}
