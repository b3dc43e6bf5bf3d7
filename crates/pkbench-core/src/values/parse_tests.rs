//! Tests of the column comment and TOML sidecar settings: accepted forms and every message.

use super::*;

fn comment(text: &str) -> SpecOverrides {
    SpecOverrides::parse_comment(text).unwrap_or_else(|e| panic!("{text}: {e}")).expect("a pkbench comment")
}

fn comment_error(text: &str) -> String {
    SpecOverrides::parse_comment(text).expect_err(text).to_string()
}

fn apply_error(text: &str, ty: SqlType) -> String {
    comment(text).apply(ColumnSpec::for_type(ty)).expect_err(text).to_string()
}

#[test]
fn the_comment_form_sets_each_key() {
    let o = comment("-- pkbench: len=8..40 nulls=0.2 distinct=1000 zipf=1.1");
    assert_eq!((o.len, o.nulls, o.distinct, o.zipf), (Some((8, 40)), Some(0.2), Some(1000), Some(1.1)));
    let o = comment("pkbench: len=16 distinct=1_000 lengths=8:0.5,16:0.5 range=-5..5 monotonic=false step=250ms");
    assert_eq!((o.len, o.distinct), (Some((16, 16)), Some(1000)));
    assert_eq!(o.lengths, Some(vec![(8, 0.5), (16, 0.5)]));
    assert_eq!(o.range, Some(("-5".into(), "5".into())));
    assert_eq!((o.monotonic, o.step_us), (Some(false), Some(250_000)));
    let o = comment("--pkbench:values=new|paid alphabet=abc words=red|green");
    assert_eq!(o.values, Some(vec!["new".to_string(), "paid".to_string()]));
    assert_eq!(o.alphabet, Some(vec!['a', 'b', 'c']));
    assert_eq!(o.words, Some(vec!["red".to_string(), "green".to_string()]));
    assert_eq!(comment("-- pkbench:"), SpecOverrides::default());
    assert_eq!(comment("/* pkbench: nulls=0.5 */").nulls, Some(0.5));
    assert_eq!(comment("  pkbench: distinct=7  ").distinct, Some(7), "a MySQL COMMENT's text");
    let blob = resolve(SqlType::Binary { max: Some(4) }, &[&comment("pkbench: lengths=2:1,8:1")]).unwrap_err();
    assert_eq!(blob.to_string(), "values up to 8 bytes long do not fit the column's declared length of 4");
    assert_eq!(SpecOverrides::parse_comment("-- the user's name").unwrap(), None, "not pkbench's comment");
}

#[test]
fn every_bad_comment_gets_a_one_line_message() {
    let cases = [
        (
            "pkbench: lenn=8",
            "unknown key 'lenn'; did you mean 'len'?; allowed: len, lengths, nulls, distinct, zipf, range, monotonic, step, values, alphabet, words",
        ),
        (
            "pkbench: colour=red",
            "unknown key 'colour'; allowed: len, lengths, nulls, distinct, zipf, range, monotonic, step, values, alphabet, words",
        ),
        ("pkbench: len", "'len' has no value: write key=value, e.g. len=8..40"),
        ("pkbench: nulls=0.1 nulls=0.2", "key 'nulls' given twice"),
        ("pkbench: len=40..8", "len=40..8: expected N or MIN..MAX with MIN <= MAX, e.g. len=8..40"),
        ("pkbench: len=x", "len=x: expected N or MIN..MAX with MIN <= MAX, e.g. len=8..40"),
        (
            "pkbench: lengths=8",
            "lengths=8: expected LEN:WEIGHT buckets separated by commas, weights >= 0, e.g. lengths=8:0.5,16:0.3,40:0.2",
        ),
        (
            "pkbench: lengths=8:0",
            "lengths=8:0: expected LEN:WEIGHT buckets separated by commas, weights >= 0, e.g. lengths=8:0.5,16:0.3,40:0.2",
        ),
        ("pkbench: nulls=1.5", "nulls=1.5: expected a share from 0 to 1, e.g. nulls=0.2"),
        ("pkbench: distinct=0", "distinct=0: expected a whole number of at least 1, e.g. distinct=1000"),
        ("pkbench: zipf=-1", "zipf=-1: expected an exponent above 0, e.g. zipf=1.1"),
        ("pkbench: range=5", "range=5: expected MIN..MAX, e.g. range=0..100"),
        ("pkbench: monotonic=yes", "monotonic=yes: expected true or false"),
        ("pkbench: step=5x", "step=5x: expected a duration above 0 with a unit (us, ms, s, m, h, d), e.g. step=1ms"),
        ("pkbench: step=0s", "step=0s: expected a duration above 0 with a unit (us, ms, s, m, h, d), e.g. step=1ms"),
        ("pkbench: values=a||b", "values=a||b: expected values separated by |, e.g. values=new|paid"),
        ("pkbench: alphabet=", "alphabet=: expected the characters to draw from, e.g. alphabet=abcdef0123456789"),
        ("pkbench: words=", "words=: expected words separated by |, e.g. words=red|green"),
    ];
    for (text, message) in cases {
        assert_eq!(comment_error(text), message, "{text}");
    }
}

#[test]
fn settings_apply_to_the_columns_kind() {
    let spec = comment("pkbench: len=8..40 nulls=0.2 distinct=1000 zipf=1.1")
        .apply(ColumnSpec::for_type(SqlType::Text { max_chars: Some(255) }))
        .unwrap();
    assert_eq!(spec.null_share, 0.2);
    assert_eq!(spec.distinct, Some(Distinct { count: 1000, skew: Skew::Zipf(1.1) }));
    assert!(matches!(spec.kind, ValueKind::Text { lengths: Lengths::Range { min: 8, max: 40 }, .. }));
    let json = comment("pkbench: len=100..200").apply(ColumnSpec::for_type(SqlType::Json)).unwrap();
    assert_eq!(json.kind, ValueKind::Json { min_bytes: 100, max_bytes: 200 });
    let int = comment("pkbench: range=-5..5").apply(ColumnSpec::for_type(SqlType::Integer(4))).unwrap();
    assert_eq!(int.kind, ValueKind::Integer { min: -5, max: 5 });
    let ts = comment("pkbench: monotonic=false step=1s").apply(ColumnSpec::for_type(SqlType::Timestamp)).unwrap();
    assert!(matches!(ts.kind, ValueKind::Timestamp { monotonic: false, step_us: 1_000_000, .. }));
    let status = comment("pkbench: values=new|paid").apply(ColumnSpec::for_type(SqlType::Text { max_chars: Some(8) }));
    assert_eq!(status.unwrap().kind, ValueKind::Enum { values: vec!["new".into(), "paid".into()] });
}

#[test]
fn settings_that_do_not_fit_the_column_say_which_do() {
    let text = SqlType::Text { max_chars: None };
    let cases = [
        (
            "pkbench: len=8..40",
            SqlType::Integer(4),
            "len does not apply to integer columns; their keys are: range, nulls, distinct, zipf",
        ),
        (
            "pkbench: range=1..2",
            SqlType::Uuid,
            "range does not apply to uuid columns; their keys are: nulls, distinct, zipf",
        ),
        (
            "pkbench: lengths=8:1",
            SqlType::Json,
            "lengths does not apply to json columns; their keys are: len, nulls, distinct, zipf",
        ),
        (
            "pkbench: step=1s",
            SqlType::Date,
            "step does not apply to date columns; their keys are: nulls, distinct, zipf",
        ),
        (
            "pkbench: words=a|b",
            SqlType::Binary { max: None },
            "words does not apply to binary columns; their keys are: len, lengths, nulls, distinct, zipf",
        ),
        (
            "pkbench: values=a|b",
            SqlType::Bool,
            "values does not apply to boolean columns; their keys are: nulls, distinct, zipf",
        ),
        ("pkbench: zipf=1.1", text, "zipf=1.1 needs distinct=N: zipf skews the draw over N distinct values"),
        ("pkbench: len=8 lengths=8:1", text, "len and lengths both given: use one"),
        ("pkbench: alphabet=ab words=a|b", text, "alphabet and words both given: use one"),
        (
            "pkbench: range=a..5",
            SqlType::Integer(4),
            "range=a..5: expected whole numbers with MIN <= MAX, e.g. range=0..100",
        ),
        ("pkbench: len=8..99999999", text, "len up to 99999999: values are at most 16777216 characters or bytes long"),
        ("pkbench: range=2..1", SqlType::Float, "range=2..1: expected numbers with MIN <= MAX, e.g. range=0.5..99.5"),
        ("pkbench: len=1..8", SqlType::Json, "len=1..8: JSON sizes need 2 <= MIN <= MAX <= 16777216 bytes"),
    ];
    for (text, ty, message) in cases {
        assert_eq!(apply_error(text, ty), message, "{text}");
    }
    let too_long = comment("pkbench: len=8..40");
    let err = resolve(SqlType::Text { max_chars: Some(20) }, &[&too_long]).unwrap_err();
    assert_eq!(err.to_string(), "values up to 40 characters long do not fit the column's declared length of 20");
    assert!(resolve(SqlType::Text { max_chars: Some(40) }, &[&too_long]).is_ok());
}

#[test]
fn the_sidecar_reads_table_column_sections() {
    let sidecar = Sidecar::parse(
        "[users.name]\nlen = \"8..40\"\nnulls = 0.2\ndistinct = 1000\nzipf = 1.1\n\n\
         [users.status]\nvalues = [\"new\", \"paid\"]\n\n[orders.note]\nlengths = [\"8:0.5\", \"16:0.5\"]\nmonotonic = false\n",
    )
    .unwrap();
    let name = sidecar.column("users", "name").unwrap();
    assert_eq!(name, &comment("pkbench: len=8..40 nulls=0.2 distinct=1000 zipf=1.1"));
    assert_eq!(sidecar.column("users", "status").unwrap().values, Some(vec!["new".into(), "paid".into()]));
    let note = sidecar.column("orders", "note").unwrap();
    assert_eq!((note.lengths.clone(), note.monotonic), (Some(vec![(8, 0.5), (16, 0.5)]), Some(false)));
    assert_eq!(sidecar.column("users", "email"), None);
    assert_eq!(sidecar.columns().count(), 3);
    assert_eq!(Sidecar::parse("").unwrap(), Sidecar::default());
}

#[test]
fn a_bad_sidecar_names_the_line_section_and_key() {
    let cases = [
        (
            "[users.name]\nnulls = 2\n",
            "sidecar line 2, [users.name]: nulls=2: expected a share from 0 to 1, e.g. nulls=0.2",
        ),
        (
            "[users.name]\nlen = \"8..40\"\nlenn = 3\n",
            "sidecar line 3, [users.name]: unknown key 'lenn'; did you mean 'len'?; allowed: len, lengths, nulls, distinct, zipf, range, monotonic, step, values, alphabet, words",
        ),
        ("[users.name]\nvalues = [1, 2]\n", "sidecar line 2, [users.name]: values: expected an array of strings"),
        (
            "[users.name]\nstep = { s = 1 }\n",
            "sidecar line 2, [users.name]: step: expected a string, number, boolean or array of strings",
        ),
    ];
    for (text, message) in cases {
        assert_eq!(Sidecar::parse(text).unwrap_err().to_string(), message, "{text}");
    }
    let syntax = Sidecar::parse("[users.name]\nlen = \n").unwrap_err().to_string();
    assert!(syntax.starts_with("sidecar line 2: ") && !syntax.contains('\n'), "{syntax}");
    let flat = Sidecar::parse("[users]\nname = 3\n").unwrap_err().to_string();
    assert!(
        flat.starts_with("sidecar line 2: ") && flat.ends_with("expected [table.column] sections of key = value"),
        "{flat}"
    );
}

proptest::proptest! {
    #[test]
    fn numeric_settings_read_back_as_written(
        min in 0u32..10_000, extra in 0u32..10_000, share in 0.0f64..=1.0, count in 1u64..u64::MAX, s in 0.01f64..10.0
    ) {
        let text = format!("-- pkbench: len={min}..{} nulls={share} distinct={count} zipf={s}", min + extra);
        let o = comment(&text);
        proptest::prop_assert_eq!((o.len, o.nulls, o.distinct, o.zipf), (Some((min, min + extra)), Some(share), Some(count), Some(s)));
        let reversed = format!("pkbench: len={}..{min}", min + extra + 1);
        proptest::prop_assert!(SpecOverrides::parse_comment(&reversed).is_err());
    }
}
