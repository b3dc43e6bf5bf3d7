//! Every parser of user input, fed arbitrary text and mangled copies of real files: schema SQL
//! (each engine's syntax), value files, plans, results JSON, PostgreSQL and MySQL URLs, and
//! `ids inspect` lines. Each must return a value or a one-line error — never panic, never read or
//! allocate without bound. A few hundred cases each, seconds in all; the cargo-fuzz targets in
//! `fuzz/` explore further on nightly.

use pkbench_core::engines::EngineKind;
use pkbench_core::engines::server::redact_url;
use pkbench_core::engines::wire::connect::ConnectOptions;
use pkbench_core::engines::wire::mysql_target::MyTarget;
use pkbench_core::engines::wire::postgres_target::PgTarget;
use pkbench_core::generators::inspect::{InspectOptions, inspect};
use pkbench_core::plan::Plan;
use pkbench_core::report::load_results;
use pkbench_core::util::input::BoundedLines;
use pkbench_core::values::Sidecar;
use proptest::prelude::*;
use std::path::Path;

const SCHEMA: &str = include_str!("../fixtures/schema/plans_accounts_orders.pg.sql");
const VALUES: &str = include_str!("../fixtures/schema/plans_accounts_orders.values.toml");
const RESULTS: &str = include_str!("../fixtures/sqlite-small.json");
const PLAN: &str = "[run]\nengine = \"sqlite\"\nrows = \"10k\"\n\n[axes]\nstrategies = [\"int,uuid4\", \"uuid7\"]\ncache_mb = [1, 8]\n\n[[exclude]]\nstrategies = \"uuid7\"\ncache-mb = 1\n";
const URLS: [&str; 4] = [
    "postgres://bob:s3cret@db.example:5432/app?sslmode=require",
    "host=db port=5432 user=bob password='a b' dbname=app",
    "mysql://root:p%40ss@127.0.0.1:3306/x?ssl-mode=REQUIRED",
    "mariadb://u@h/db?ssl-ca=%2Ftmp%2Fca.pem",
];

fn config() -> ProptestConfig {
    ProptestConfig { cases: 256, failure_persistence: None, ..ProptestConfig::default() }
}

/// `sample` with the characters from `at` (a share of its length) replaced by `noise` up to
/// `cut` more characters: real files broken in the middle, where parsers have state.
fn mangle(sample: &str, at: f64, cut: usize, noise: &str) -> String {
    let chars: Vec<char> = sample.chars().collect();
    let start = ((chars.len() as f64) * at) as usize;
    let end = (start + cut).min(chars.len());
    chars[..start].iter().chain(noise.chars().collect::<Vec<_>>().iter()).chain(&chars[end..]).collect()
}

/// Arbitrary text, or a mangled copy of `sample`.
fn text_like(sample: &'static str) -> impl Strategy<Value = String> {
    prop_oneof![
        any::<String>(),
        proptest::collection::vec(any::<u8>(), 0..512).prop_map(|b| String::from_utf8_lossy(&b).into_owned()),
        (0.0..1.0f64, 0..64usize, "[ -~\\n\\t]{0,40}|\\PC{0,8}")
            .prop_map(|(at, cut, noise)| mangle(sample, at, cut, &noise)),
    ]
}

fn one_line<T, E: std::fmt::Display>(result: Result<T, E>) -> Result<(), TestCaseError> {
    if let Err(e) = result {
        let message = e.to_string();
        prop_assert!(!message.contains('\n'), "a message of more than one line: {message:?}");
        prop_assert!(!message.is_empty(), "an empty message");
    }
    Ok(())
}

proptest! {
    #![proptest_config(config())]

    #[test]
    fn schema_files_parse_or_say_why_in_one_line(text in text_like(SCHEMA)) {
        for engine in [EngineKind::Postgres, EngineKind::MariaDb, EngineKind::Sqlite] {
            one_line(pkbench_core::schema::parse(&text, Some(engine)))?;
        }
    }

    #[test]
    fn value_files_parse_or_say_why_in_one_line(text in text_like(VALUES)) {
        one_line(Sidecar::parse(&text))?;
    }

    #[test]
    fn plans_parse_or_say_why_in_one_line(text in text_like(PLAN)) {
        let plan = Plan::parse(&text, Path::new("p.toml"));
        if let Ok(plan) = &plan {
            prop_assert!(plan.cases().len() <= pkbench_core::plan::MAX_CASES);
        }
        one_line(plan)?;
    }

    #[test]
    fn results_files_load_or_say_why_in_one_line(text in text_like(RESULTS)) {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("results.json");
        std::fs::write(&path, &text).unwrap();
        one_line(load_results(&path))?;
    }

    #[test]
    fn urls_parse_or_say_why_in_one_line_without_their_password(
        url in prop_oneof![text_like(URLS[0]), text_like(URLS[1]), text_like(URLS[2]), text_like(URLS[3])]
    ) {
        let shown = redact_url(&url);
        prop_assert!(shown.len() <= url.len() + 3 * url.matches(':').count() + 3);
        let _ = EngineKind::from_url(&url);
        for result in [
            PgTarget::from_url(&url, &ConnectOptions::default()).map(|_| ()),
            MyTarget::from_url(&url, &ConnectOptions::default()).map(|_| ()),
        ] {
            if let Err(e) = &result {
                // The password of a well-formed sample never shows, however the rest is broken.
                for secret in ["s3cret", "p%40ss", "p@ss"] {
                    let given = url.contains(&format!(":{secret}@"));
                    prop_assert!(!given || !e.to_string().contains(secret), "{e}");
                }
            }
            one_line(result)?;
        }
    }

    #[test]
    fn id_lines_decode_or_say_why_in_one_line(bytes in proptest::collection::vec(any::<u8>(), 0..256)) {
        // As `ids inspect` reads standard input: bounded lines, then each decoded.
        for line in BoundedLines::new(bytes.as_slice(), 64) {
            let Ok((_, line)) = line else { break };
            let text = String::from_utf8_lossy(&line);
            one_line(inspect(&text, &InspectOptions::default()))?;
        }
    }
}
