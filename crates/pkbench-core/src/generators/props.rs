//! Property tests for every scheme: version and variant bits, round trips through every text
//! encoding, strict order under clocks that run forward, freeze and step back with forced
//! counter overflows, no duplicates, and the masked-int and sequential-UUID arithmetic.

use super::*;
use proptest::prelude::*;
use std::collections::HashSet;

/// A clock replaying nanosecond steps (forward, zero = frozen, negative = rollback), cycling.
struct ScriptClock {
    now_ns: u64,
    steps: Vec<i64>,
    i: usize,
}

impl ScriptClock {
    fn new(start_ms: u64, steps: Vec<i64>) -> Self {
        ScriptClock { now_ns: start_ms * 1_000_000, steps, i: 0 }
    }
}

impl Clock for ScriptClock {
    fn now_ms(&mut self) -> u64 {
        self.now_ns() / 1_000_000
    }

    fn now_ns(&mut self) -> u64 {
        let step = self.steps[self.i % self.steps.len()];
        self.i += 1;
        self.now_ns = self.now_ns.saturating_add_signed(step);
        self.now_ns
    }
}

const START_MS: u64 = 1_767_225_600_000;

fn steps() -> impl Strategy<Value = Vec<i64>> {
    // Mostly tiny steps (many IDs per tick), some frozen, some jumps and rollbacks of up to 5 ms.
    prop::collection::vec(prop_oneof![4 => 0i64..300, 2 => Just(0i64), 1 => -5_000_000i64..5_000_000], 1..64)
}

fn assert_strictly_increasing<T: Ord + std::fmt::Debug>(ids: &[T], what: &str) {
    for (i, w) in ids.windows(2).enumerate() {
        assert!(w[0] < w[1], "{what}: id {} ({:?}) is not above id {i} ({:?})", i + 1, w[1], w[0]);
    }
}

/// Every encoding of `bytes` parses back to `bytes`.
fn round_trips(bytes: [u8; 16]) {
    let mut buf = [0u8; 36];
    for enc in [TextEncoding::Hyphenated, TextEncoding::Hex, TextEncoding::Base32] {
        let text = enc.encode(&bytes, &mut buf).to_string();
        assert_eq!(text.len(), enc.text_len());
        match parse_id(&text) {
            Ok(ParsedId::Bytes { bytes: back, encoding }) => assert_eq!((back, encoding), (bytes, enc), "{text}"),
            other => panic!("{text}: {other:?}"),
        }
        assert_eq!(parse_id(&text.to_uppercase()).ok(), parse_id(&text).ok());
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(48))]

    #[test]
    fn uuid7_method1_is_strictly_increasing(seed: u64, steps in steps(), overflow_at in 0usize..3_000) {
        let mut g = UuidV7::new(KeyRng::seeded(seed), ScriptClock::new(START_MS, steps));
        let ids: Vec<[u8; 16]> = (0..3_000).map(|i| {
            if i == overflow_at { g.exhaust_counter(); }
            g.next_bytes()
        }).collect();
        assert_strictly_increasing(&ids, "uuid7");
        prop_assert!(ids.iter().all(|b| uuid_version(b) == 7 && uuid_variant_is_rfc(b)));
    }

    #[test]
    fn uuid7_method3_is_strictly_increasing(seed: u64, steps in steps(), overflow_at in 0usize..3_000) {
        let mut g = UuidV7SubMs::new(KeyRng::seeded(seed), ScriptClock::new(START_MS, steps));
        let ids: Vec<[u8; 16]> = (0..3_000).map(|i| {
            if i == overflow_at { g.exhaust_counter(); }
            g.next_bytes()
        }).collect();
        assert_strictly_increasing(&ids, "uuid7 method 3");
        prop_assert!(ids.iter().all(|b| uuid_version(b) == 7 && uuid_variant_is_rfc(b)));
    }

    #[test]
    fn uuid6_is_strictly_increasing_and_v1_never_repeats_a_timestamp(
        seed: u64, steps in steps(), overflow_at in 0usize..3_000,
    ) {
        let mut v6 = UuidV6::new(KeyRng::seeded(seed), ScriptClock::new(START_MS, steps.clone()));
        let mut v1 = UuidV1::new(KeyRng::seeded(seed), ScriptClock::new(START_MS, steps));
        let (mut a, mut b) = (Vec::new(), Vec::new());
        for i in 0..3_000 {
            if i == overflow_at { v6.exhaust_clock_seq(); v1.exhaust_clock_seq(); }
            a.push(v6.next_bytes());
            let x = v1.next_bytes();
            b.push((v1_ticks(&x), clock_seq(&x)));
            prop_assert!(uuid_version(&x) == 1 && uuid_variant_is_rfc(&x) && x[10] & 1 == 1);
        }
        assert_strictly_increasing(&a, "uuid6");
        assert_strictly_increasing(&b, "uuid1 (timestamp, clock_seq)");
        prop_assert!(a.iter().all(|x| uuid_version(x) == 6 && uuid_variant_is_rfc(x) && x[10] & 1 == 1));
    }

    #[test]
    fn ulid_and_snowflake_are_strictly_increasing(seed: u64, steps in steps(), overflow_at in 0usize..3_000) {
        let mut u = Ulid::new(KeyRng::seeded(seed), ScriptClock::new(START_MS, steps.clone()));
        let ulids: Vec<[u8; 16]> = (0..3_000).map(|i| {
            if i == overflow_at { u.exhaust_random(); }
            u.next_bytes()
        }).collect();
        assert_strictly_increasing(&ulids, "ulid");
        let mut s = Snowflake::new(ScriptClock::new(START_MS, steps), SNOWFLAKE_DEFAULT_EPOCH_MS, 7);
        let flakes: Vec<i64> = (0..6_000).map(|_| s.next_id()).collect();
        assert_strictly_increasing(&flakes, "snowflake");
        prop_assert!(flakes.iter().all(|&id| SnowflakeParts::of(id).is_some_and(|p| p.worker == 7)));
    }

    #[test]
    fn any_bytes_round_trip_through_every_encoding(bytes: [u8; 16]) {
        round_trips(bytes);
    }

    #[test]
    fn masking_is_a_reversible_permutation(key: u64, values in prop::collection::vec(0i64..=i64::MAX, 1..50)) {
        let m = FeistelMask::new(key);
        let mut seen = HashSet::new();
        for v in values {
            let x = m.mask(v).unwrap();
            prop_assert!(x >= 0);
            prop_assert_eq!(m.unmask(x), Some(v));
            seen.insert((v, x));
        }
        let outputs: HashSet<i64> = seen.iter().map(|p| p.1).collect();
        let inputs: HashSet<i64> = seen.iter().map(|p| p.0).collect();
        prop_assert_eq!(outputs.len(), inputs.len());
    }

    #[test]
    fn sequential_prefix_follows_the_extension(
        size in 1u64..1_000_000, count in 1u64..(1 << 40), value: u64, seed: u64,
    ) {
        let rule = SeqPrefix::new(size, count).unwrap();
        let bits = 8 * rule.prefix_bytes;
        prop_assert!(1u128 << bits >= u128::from(count));
        prop_assert!(bits == 8 || 1u128 << (bits - 8) < u128::from(count));
        let want_size = ((u128::from(size) * u128::from(count)) >> bits).max(1) as u64;
        prop_assert_eq!(rule.block_size, want_size);
        let b = rule.uuid(value, &mut KeyRng::seeded(seed));
        let n = rule.prefix_bytes as usize;
        let mut prefix = [0u8; 8];
        prefix[8 - n..].copy_from_slice(&b[..n]);
        let mut want = (value / want_size).to_be_bytes();
        // Version and variant bits are set after the prefix is written (as the extension does).
        if n > 6 { want[8 - n + 6] = want[8 - n + 6] & 0x0f | 0x40; }
        prop_assert_eq!(&prefix[8 - n..], &want[8 - n..]);
        prop_assert!(uuid_version(&b) == 4 && uuid_variant_is_rfc(&b));
    }

    #[test]
    fn inspect_never_panics(text in "\\PC{0,40}") {
        let _ = inspect(&text, &inspect::InspectOptions::default());
    }

    #[test]
    fn any_integer_reads_as_any_shard_aware_layout(v: i64, hash_buckets: u16, shard_bits: u8) {
        for scheme in Scheme::ALL.into_iter().filter(|s| inspect::shard_aware_layout(*s)) {
            let options = inspect::InspectOptions { layout: Some(scheme), hash_buckets, shard_bits, ..Default::default() };
            let found = inspect(&v.to_string(), &options).unwrap();
            prop_assert_eq!(found.kind == inspect::IdKind::ShardAware(scheme), v >= 0);
        }
    }

    #[test]
    fn inspect_never_panics_on_id_shaped_text(text in "[0-9a-zA-Z{}:-]{20,40}") {
        let _ = inspect(&text, &inspect::InspectOptions::default());
    }
}

proptest! {
    // Decoding in a debug build is slow; the encodings have their own property above.
    #![proptest_config(ProptestConfig::with_cases(6))]

    #[test]
    fn every_scheme_has_its_bits_and_round_trips_without_duplicates(seed: u64) {
        for scheme in Scheme::ALL {
            let mut g = scheme.generator(seed, "primary", Box::new(VirtualClock::new(START_MS, 100)));
            let mut seen = HashSet::new();
            for i in 0..500 {
                let key = g.next_key();
                prop_assert!(seen.insert(key), "{} repeated {:?}", scheme, key);
                match key {
                    Key::Int(v) => {
                        prop_assert!(scheme.is_integer());
                        prop_assert_eq!(parse_id(&v.to_string()), Ok(ParsedId::Int(v)));
                    }
                    Key::Uuid(b) => {
                        prop_assert!(!scheme.is_integer());
                        if i % 16 == 0 {
                            round_trips(b);
                        }
                        if scheme != Scheme::Ulid {
                            prop_assert!(uuid_variant_is_rfc(&b), "{} variant", scheme);
                            let want = match scheme { Scheme::Uuid1 => 1, Scheme::Uuid6 => 6, Scheme::Uuid7 => 7, _ => 4 };
                            prop_assert_eq!(uuid_version(&b), want, "{} version", scheme);
                        }
                    }
                }
            }
        }
    }
}

#[test]
fn millions_of_ids_stay_strictly_increasing_through_rollbacks_and_overflows() {
    // One long script: run, freeze, step back 3 ms, run on; counters forced to overflow.
    let steps = vec![40, 0, 0, 0, 25, 0, -3_000_000, 0, 10, 3_000_100, 0, 0];
    let n = 1_000_000;
    let mut v7 = UuidV7::new(KeyRng::seeded(1), ScriptClock::new(START_MS, steps.clone()));
    let mut ulid = Ulid::new(KeyRng::seeded(2), ScriptClock::new(START_MS, steps.clone()));
    let mut v6 = UuidV6::new(KeyRng::seeded(3), ScriptClock::new(START_MS, steps));
    let (mut p7, mut pu, mut p6) = (v7.next_bytes(), ulid.next_bytes(), v6.next_bytes());
    for i in 0..n {
        if i % 250_000 == 0 {
            v7.exhaust_counter();
            ulid.exhaust_random();
            v6.exhaust_clock_seq();
        }
        let (a, b, c) = (v7.next_bytes(), ulid.next_bytes(), v6.next_bytes());
        assert!(a > p7 && b > pu && c > p6, "id {i}");
        (p7, pu, p6) = (a, b, c);
    }
}
