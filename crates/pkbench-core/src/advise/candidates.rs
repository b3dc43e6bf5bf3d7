//! Which keys advise compares: the table's current key plus every strategy that fits the
//! engine, or the user's `-s` list (with the current key added).

use super::profile::CurrentKey;
use crate::Error;
use crate::engines::EngineKind;
use crate::strategy::{Strategy, find, parse_list};

/// What every engine compares by default: the engine-assigned integer, a client-side
/// sequence, Snowflake, UUIDv7, UUIDv4, an integer key with a UUIDv4 beside it, and ULID.
pub const DEFAULT_CANDIDATES: &[&str] = &["int", "int-client", "snowflake", "uuid7", "uuid4", "int+uuid4", "ulid"];

/// The text forms, compared too when the current key is text.
pub const TEXT_CANDIDATES: &[&str] = &["uuid7-text", "uuid4-text", "ulid-text"];

/// The candidates in the order they are shown: the current key first, then `chosen` (or the
/// defaults, and the text forms for a text key), each once; every one checked against the
/// engine's schema rules.
pub fn choose(
    engine: EngineKind,
    current: Option<&CurrentKey>,
    chosen: Option<&str>,
) -> Result<Vec<&'static Strategy>, Error> {
    let current = current.and_then(|k| k.strategy.as_deref()).map(find).transpose()?;
    let listed = match chosen {
        Some(list) => parse_list(list)?,
        None => {
            let text = current.is_some_and(|s| s.primary.storage.text_encoding().is_some());
            let names = DEFAULT_CANDIDATES.iter().chain(if text { TEXT_CANDIDATES } else { &[] });
            names.map(|n| find(n)).collect::<Result<_, _>>()?
        }
    };
    let mut candidates: Vec<&'static Strategy> = Vec::new();
    for s in current.into_iter().chain(listed) {
        if !candidates.iter().any(|c| c.name == s.name) {
            crate::engines::schema_sql::check_strategy(s, engine.dialect())?;
            candidates.push(s);
        }
    }
    if candidates.len() < 2 {
        return Err(Error::InvalidInput(
            "advise compares at least two keys: give -s with two or more strategies (pkbench list shows them)".into(),
        ));
    }
    Ok(candidates)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::strategy::stand_ins;

    fn key(strategy: &str) -> CurrentKey {
        CurrentKey {
            column: "id".into(),
            declared_type: "TEXT".into(),
            scheme: "random UUIDv4".into(),
            evidence: String::new(),
            strategy: Some(strategy.into()),
        }
    }

    fn names(c: &[&Strategy]) -> Vec<&'static str> {
        c.iter().map(|s| s.name).collect()
    }

    #[test]
    fn current_key_first_then_the_defaults() {
        let c = choose(EngineKind::Postgres, Some(&key("uuid4")), None).unwrap();
        assert_eq!(names(&c), ["uuid4", "int", "int-client", "snowflake", "uuid7", "int+uuid4", "ulid"]);
    }

    #[test]
    fn keys_whose_rows_land_alike_take_the_first_ones_calibration() {
        let c = choose(EngineKind::MariaDb, Some(&key("uuid4-text")), None).unwrap();
        let pairs: Vec<_> = stand_ins(&c).iter().map(|(s, c)| (s.name, c.name)).collect();
        assert_eq!(pairs, [("snowflake", "int-client"), ("ulid", "uuid7")]);
        let c = choose(EngineKind::MariaDb, Some(&key("ulid")), None).unwrap();
        let pairs: Vec<_> = stand_ins(&c).iter().map(|(s, c)| (s.name, c.name)).collect();
        assert_eq!(pairs, [("snowflake", "int-client"), ("uuid7", "ulid")]);
        // Two keys of one kind: a run each, not one run for both.
        let c = choose(EngineKind::Sqlite, None, Some("int-client,snowflake")).unwrap();
        assert!(stand_ins(&c).is_empty());
        let c = choose(EngineKind::Sqlite, None, Some("int-client,snowflake,uuid4")).unwrap();
        assert_eq!(stand_ins(&c).len(), 1);
    }

    #[test]
    fn a_text_key_brings_the_text_forms() {
        let c = choose(EngineKind::Sqlite, Some(&key("uuid4-text")), None).unwrap();
        assert!(names(&c).starts_with(&["uuid4-text", "int"]));
        assert!(names(&c).ends_with(&["uuid7-text", "ulid-text"]), "{:?}", names(&c));
    }

    #[test]
    fn a_chosen_list_keeps_the_current_key_and_needs_two() {
        let c = choose(EngineKind::MariaDb, Some(&key("uuid4")), Some("int,uuid7")).unwrap();
        assert_eq!(names(&c), ["uuid4", "int", "uuid7"]);
        let one = choose(EngineKind::Sqlite, None, Some("int")).unwrap_err().to_string();
        assert!(one.contains("at least two keys"), "{one}");
    }
}
