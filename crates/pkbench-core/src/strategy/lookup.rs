//! Finding strategies by name or alias, with "did you mean" suggestions.

use super::{CATALOG, Strategy};
use crate::Error;

/// Finds a strategy by canonical name (any case) or alias (exact case).
///
/// Aliases are matched first and case-sensitively because the `Uuid4` of "SQLite ID Benchmarks" (a
/// rowid table) differs from pkbench's `uuid4` (clustered).
pub fn find(name: &str) -> Result<&'static Strategy, Error> {
    let name = name.trim();
    CATALOG
        .iter()
        .find(|s| s.name == name)
        .or_else(|| CATALOG.iter().find(|s| s.aliases.contains(&name)))
        .or_else(|| CATALOG.iter().find(|s| s.name.eq_ignore_ascii_case(name)))
        .ok_or_else(|| Error::UnknownStrategy {
            name: name.to_string(),
            suggestion: nearest(name),
            valid: CATALOG.iter().map(|s| s.name).collect::<Vec<_>>().join(", "),
        })
}

/// Parses a comma-separated list of strategy names; rejects empty lists and duplicates.
pub fn parse_list(list: &str) -> Result<Vec<&'static Strategy>, Error> {
    let mut out: Vec<&'static Strategy> = Vec::new();
    for part in list.split(',').map(str::trim).filter(|p| !p.is_empty()) {
        let s = find(part)?;
        if out.iter().any(|o| o.name == s.name) {
            return Err(Error::InvalidInput(format!("strategy '{}' is listed twice; list each strategy once", s.name)));
        }
        out.push(s);
    }
    if out.is_empty() {
        return Err(Error::InvalidInput(
            "no strategies given; pass e.g. --strategies int,uuid7,uuid4 (see `pkbench list`)".into(),
        ));
    }
    Ok(out)
}

fn nearest(name: &str) -> Option<&'static str> {
    let lower = name.to_lowercase();
    // Aliases that differ from a canonical name only in case (`Uuid4`) are left out:
    // suggest the canonical spelling.
    let is_canonical = |label: &str| CATALOG.iter().any(|s| s.name.eq_ignore_ascii_case(label));
    let candidates = CATALOG.iter().flat_map(|s| {
        std::iter::once((s.name, s.name))
            .chain(s.aliases.iter().filter(|a| !is_canonical(a)).map(move |a| (*a, s.name)))
    });
    candidates
        .map(|(label, canonical)| (strsim::jaro_winkler(&lower, &label.to_lowercase()), label, canonical))
        .filter(|(score, _, _)| *score > 0.8)
        .max_by(|a, b| a.0.total_cmp(&b.0))
        .map(|(_, label, canonical)| if label == canonical { canonical } else { label })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn canonical_alias_and_case() {
        assert_eq!(find("uuid4").unwrap().name, "uuid4");
        assert_eq!(find("Uuid4").unwrap().name, "uuid4-rowid");
        assert_eq!(find("UUID4").unwrap().name, "uuid4");
        assert_eq!(find("IntegerWithUuid4Col").unwrap().name, "int+uuid4");
    }

    #[test]
    fn unknown_suggests_nearest() {
        let err = find("uuid5").unwrap_err().to_string();
        assert!(err.contains("unknown strategy 'uuid5'"), "{err}");
        assert!(err.contains("did you mean"), "{err}");
        let err = find("uuidv7").unwrap_err().to_string();
        assert!(err.contains("'uuid7'"), "{err}");
    }

    #[test]
    fn list_rejects_duplicates_and_empty() {
        assert_eq!(parse_list("int, uuid7 ,uuid4").unwrap().len(), 3);
        assert!(parse_list("int,Integer").is_err());
        assert!(parse_list(" , ").is_err());
    }
}
