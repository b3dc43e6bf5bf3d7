//! Tests of [`ColumnGenerator`]: determinism, shares, distinct counts, skew, lengths, JSON,
//! timestamps.

use super::*;
use crate::values::Param;
use proptest::prelude::*;
use std::collections::{HashMap, HashSet};

const ROWS: usize = 100_000;

fn text_spec(lengths: Lengths) -> ColumnSpec {
    ColumnSpec::new(ValueKind::Text { lengths, alphabet: Alphabet::alphanumeric() })
}

fn generator(spec: ColumnSpec) -> ColumnGenerator {
    ColumnGenerator::for_column(spec, 42, "users", "name").unwrap()
}

/// Each row's value in an owned, comparable form.
fn rows(g: &mut ColumnGenerator, n: usize) -> Vec<String> {
    (0..n).map(|_| format!("{:?}", g.next_value())).collect()
}

fn every_kind() -> Vec<ColumnSpec> {
    let types = [
        SqlType::Integer(4),
        SqlType::Decimal { precision: 12, scale: 3 },
        SqlType::Float,
        SqlType::Text { max_chars: Some(40) },
        SqlType::Text { max_chars: None },
        SqlType::Binary { max: None },
        SqlType::Uuid,
        SqlType::Bool,
        SqlType::Date,
        SqlType::Timestamp,
        SqlType::Json,
    ];
    let mut specs: Vec<ColumnSpec> = types.into_iter().map(ColumnSpec::for_type).collect();
    specs.push(ColumnSpec::new(ValueKind::Enum { values: vec!["new".into(), "paid".into(), "shipped".into()] }));
    specs
}

#[test]
fn the_same_seed_gives_the_same_values_and_each_column_its_own_stream() {
    for spec in every_kind() {
        let mut spec = spec;
        spec.null_share = 0.1;
        let a = rows(&mut ColumnGenerator::for_column(spec.clone(), 7, "users", "c").unwrap(), 200);
        let b = rows(&mut ColumnGenerator::for_column(spec.clone(), 7, "users", "c").unwrap(), 200);
        let other_column = rows(&mut ColumnGenerator::for_column(spec.clone(), 7, "users", "d").unwrap(), 200);
        let other_seed = rows(&mut ColumnGenerator::for_column(spec.clone(), 8, "users", "c").unwrap(), 200);
        assert_eq!(a, b, "{:?}", spec.kind);
        assert_ne!(a, other_column, "{:?}", spec.kind);
        assert_ne!(a, other_seed, "{:?}", spec.kind);
    }
}

#[test]
fn the_null_share_is_met_within_one_percent() {
    for share in [0.0, 0.2, 0.5, 0.97, 1.0] {
        let mut spec = ColumnSpec::for_type(SqlType::Integer(8));
        spec.null_share = share;
        let mut g = generator(spec);
        let nulls = (0..ROWS).filter(|_| g.next_value().is_null()).count();
        let got = nulls as f64 / ROWS as f64;
        assert!((got - share).abs() <= 0.01, "asked {share}, got {got}");
    }
}

#[test]
fn distinct_counts_are_reached_and_never_exceeded() {
    let with_distinct = |kind: ValueKind, count: u64| ColumnSpec {
        kind,
        null_share: 0.1,
        distinct: Some(Distinct { count, skew: Skew::Uniform }),
    };
    let cases = [
        with_distinct(ValueKind::Integer { min: 0, max: i64::MAX }, 1_000),
        with_distinct(ValueKind::Integer { min: -5, max: 1_200 }, 1_000),
        with_distinct(ValueKind::Uuid, 5_000),
        with_distinct(text_spec(Lengths::Range { min: 6, max: 12 }).kind, 1_000),
        with_distinct(ColumnSpec::for_type(SqlType::Timestamp).kind, 1_000),
        with_distinct(ColumnSpec::for_type(SqlType::Json).kind, 500),
    ];
    for spec in cases {
        let count = spec.distinct.unwrap().count as usize;
        let mut g = generator(spec.clone());
        let seen: HashSet<String> =
            (0..ROWS).filter_map(|_| Some(g.next_value()).filter(|v| !v.is_null()).map(|v| format!("{v:?}"))).collect();
        assert!(seen.len() <= count, "{:?}: {} > {count}", spec.kind, seen.len());
        assert!(seen.len() * 100 >= count * 95, "{:?}: only {} of {count}", spec.kind, seen.len());
    }
}

/// Share of the most and second most frequent values against Zipf's law over `n` values.
#[test]
fn zipf_skews_the_draw_as_the_law_says() {
    for (n, s) in [(1_000u64, 1.1), (100, 1.0), (10_000, 0.7), (50, 2.0)] {
        let spec = ColumnSpec {
            distinct: Some(Distinct { count: n, skew: Skew::Zipf(s) }),
            ..ColumnSpec::for_type(SqlType::Uuid)
        };
        let mut g = generator(spec);
        let mut counts: HashMap<String, usize> = HashMap::new();
        for _ in 0..ROWS {
            *counts.entry(format!("{:?}", g.next_value())).or_default() += 1;
        }
        let mut shares: Vec<f64> = counts.values().map(|c| *c as f64 / ROWS as f64).collect();
        shares.sort_by(|a, b| b.total_cmp(a));
        let h: f64 = (1..=n).map(|k| (k as f64).powf(-s)).sum();
        let (top, second) = (1.0 / h, 2f64.powf(-s) / h);
        assert!((shares[0] - top).abs() < 0.01, "n={n} s={s}: top {} vs {top}", shares[0]);
        assert!((shares[1] - second).abs() < 0.01, "n={n} s={s}: second {} vs {second}", shares[1]);
        assert!(shares.len() as u64 <= n);
    }
}

#[test]
fn lengths_stay_in_range_and_reach_both_ends() {
    let mut g = generator(text_spec(Lengths::Range { min: 8, max: 40 }));
    let lens: Vec<usize> = (0..10_000).map(|_| g.next_value().text().unwrap().chars().count()).collect();
    assert_eq!((lens.iter().min(), lens.iter().max()), (Some(&8), Some(&40)));
    let words = ValueKind::Text { lengths: Lengths::Range { min: 0, max: 7 }, alphabet: Alphabet::filler_words() };
    let mut g = generator(ColumnSpec::new(words));
    assert!((0..5_000).all(|_| g.next_value().text().unwrap().chars().count() <= 7));
    let greek =
        ValueKind::Text { lengths: Lengths::Range { min: 3, max: 3 }, alphabet: Alphabet::Chars(vec!['α', 'β']) };
    assert_eq!(
        generator(ColumnSpec::new(greek)).next_value().text().unwrap().chars().count(),
        3,
        "characters, not bytes"
    );
    let mut g = generator(ColumnSpec::new(ValueKind::Binary { lengths: Lengths::Range { min: 0, max: 20 } }));
    let lens: Vec<usize> =
        (0..5_000).map(|_| if let Value::Bytes(b) = g.next_value() { b.len() } else { 99 }).collect();
    assert_eq!((lens.iter().min(), lens.iter().max()), (Some(&0), Some(&20)));
}

#[test]
fn a_length_histogram_is_reproduced_within_one_percent() {
    let buckets = vec![(8, 5.0), (16, 3.0), (40, 1.5), (200, 0.5)];
    for kind in [
        text_spec(Lengths::Histogram(buckets.clone())).kind,
        ValueKind::Binary { lengths: Lengths::Histogram(buckets.clone()) },
    ] {
        let mut g = generator(ColumnSpec::new(kind));
        let mut counts: HashMap<usize, usize> = HashMap::new();
        for _ in 0..ROWS {
            let len = match g.next_value() {
                Value::Bytes(b) => b.len(),
                v => v.text().unwrap().len(),
            };
            *counts.entry(len).or_default() += 1;
        }
        assert_eq!(counts.len(), buckets.len());
        for (len, weight) in &buckets {
            let got = counts[&(*len as usize)] as f64 / ROWS as f64;
            assert!((got - weight / 10.0).abs() <= 0.01, "bucket {len}: {got}");
        }
    }
}

#[test]
fn json_values_parse_as_objects_of_the_asked_size() {
    for (min, max) in [(2, 2), (2, 12), (64, 512), (1_000, 4_000)] {
        let mut g = generator(ColumnSpec::new(ValueKind::Json { min_bytes: min, max_bytes: max }));
        for _ in 0..2_000 {
            let Value::Json(text) = g.next_value() else { panic!("not JSON") };
            let parsed: serde_json::Value = serde_json::from_str(text).unwrap_or_else(|e| panic!("{text}: {e}"));
            assert!(parsed.is_object(), "{text}");
            assert!((min as usize..=max as usize).contains(&text.len()), "{} bytes: {text}", text.len());
        }
    }
}

#[test]
fn monotonic_timestamps_strictly_increase_and_others_stay_before_the_row_time() {
    let mut g = generator(ColumnSpec::for_type(SqlType::Timestamp));
    let mut last = (i64::MIN, String::new());
    for _ in 0..10_000 {
        let Value::Timestamp { micros, text } = g.next_value() else { panic!("not a timestamp") };
        assert!(micros > last.0 && *text > *last.1, "{text} after {}", last.1);
        last = (micros, text.to_string());
    }
    assert_eq!(last.1, "2026-01-01 00:00:09.999000", "1 ms per row from the virtual start");
    let spec = ValueKind::Timestamp { monotonic: false, start_us: 1_000_000, step_us: 10 };
    let mut g = generator(ColumnSpec::new(spec));
    let values: Vec<i64> =
        (0..10_000).map(|_| if let Value::Timestamp { micros, .. } = g.next_value() { micros } else { 0 }).collect();
    assert!(values.iter().enumerate().all(|(row, t)| (1_000_000..=1_000_000 + row as i64 * 10).contains(t)));
    assert!(values.windows(2).any(|w| w[1] < w[0]), "not monotonic");
}

#[test]
fn other_kinds_keep_their_form() {
    let mut g = generator(ColumnSpec::new(ValueKind::Decimal { precision: 6, scale: 2 }));
    for _ in 0..1_000 {
        let text = g.next_value().text().unwrap().to_string();
        let (int, frac) = text.split_once('.').unwrap();
        assert!(int.len() <= 4 && frac.len() == 2 && text.parse::<f64>().is_ok(), "{text}");
    }
    let mut g = generator(ColumnSpec::new(ValueKind::Integer { min: -3, max: 3 }));
    let ints: HashSet<i64> = (0..1_000).map(|_| if let Value::Int(v) = g.next_value() { v } else { 99 }).collect();
    assert_eq!(ints, (-3..=3).collect());
    let mut g = generator(ColumnSpec::for_type(SqlType::Uuid));
    let Value::Uuid(u) = g.next_value() else { panic!("not a UUID") };
    assert!(crate::generators::uuid_version(&u) == 4 && crate::generators::uuid_variant_is_rfc(&u));
    let mut g = generator(ColumnSpec::for_type(SqlType::Date));
    let Value::Date { text, .. } = g.next_value() else { panic!("not a date") };
    assert!(("2000-01-01".."2030-01-01").contains(&text), "{text}");
    let mut g = generator(ColumnSpec::new(ValueKind::Float { min: -1.0, max: 1.0 }));
    let Value::Float { value, text } = g.next_value() else { panic!("not a float") };
    assert!((-1.0..1.0).contains(&value) && text.parse::<f64>() == Ok(value));
}

#[test]
fn values_bind_as_wire_parameters_without_copying() {
    assert_eq!(Value::Null.as_param(), Param::Null);
    assert_eq!(Value::Bool(true).as_param(), Param::Int(1));
    assert_eq!(Value::Int(-4).as_param(), Param::Int(-4));
    assert_eq!(Value::Decimal("1.50").as_param(), Param::Text("1.50"));
    assert_eq!(
        Value::Timestamp { micros: 0, text: "1970-01-01 00:00:00.000000" }.as_param(),
        Param::Text("1970-01-01 00:00:00.000000")
    );
    assert_eq!(Value::Bytes(b"ab").as_param(), Param::Bytes(b"ab"));
}

#[test]
fn rows_reuse_the_generators_buffer() {
    let mut g = generator(text_spec(Lengths::Range { min: 1, max: 64 }));
    for _ in 0..1_000 {
        g.next_value();
    }
    let first = g.next_value().text().unwrap().as_ptr();
    assert!(
        (0..1_000).all(|_| g.next_value().text().unwrap().as_ptr() == first),
        "the buffer moved: it was reallocated"
    );
}

proptest! {
    #[test]
    fn text_and_json_sizes_stay_in_any_range(seed: u64, min in 0u32..300, extra in 0u32..300) {
        let mut g = ColumnGenerator::new(text_spec(Lengths::Range { min, max: min + extra }), seed).unwrap();
        for _ in 0..20 {
            let len = g.next_value().text().unwrap().chars().count() as u32;
            prop_assert!((min..=min + extra).contains(&len));
        }
        let (lo, hi) = (min + 2, min + 2 + extra);
        let mut g = ColumnGenerator::new(ColumnSpec::new(ValueKind::Json { min_bytes: lo, max_bytes: hi }), seed).unwrap();
        for _ in 0..20 {
            let Value::Json(text) = g.next_value() else { panic!("not JSON") };
            prop_assert!((lo as usize..=hi as usize).contains(&text.len()));
            prop_assert!(serde_json::from_str::<serde_json::Value>(text).is_ok(), "{}", text);
        }
    }
}
