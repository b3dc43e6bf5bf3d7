//! The benchmark key streams of the original schemes must never change: results recorded with a
//! given `--seed` stay reproducible. The digests were taken from the first implementation (before
//! the ID module grew), over 200,000 keys each, on the virtual clock's pace of the time (one
//! million keys per second, which `--key-rate 1000000` gives; the default pace is now slower).

use pkbench_core::generators::{Key, KeyGenerator, Scheme, VirtualClock};

/// The virtual clock at the pace those results were recorded with.
fn legacy_clock() -> VirtualClock {
    VirtualClock::at_rate(VirtualClock::DEFAULT_START_MS, VirtualClock::LEGACY_KEYS_PER_S)
}

/// FNV-1a over the first `n` keys of `scheme`'s benchmark stream.
fn digest(scheme: Scheme, seed: u64, role: &str, n: usize) -> u64 {
    let mut g = scheme.generator(seed, role, Box::new(legacy_clock()));
    digest_keys(g.as_mut(), n)
}

/// [`digest`] of the primary stream on `clock`.
fn digest_with(scheme: Scheme, seed: u64, clock: VirtualClock, n: usize) -> u64 {
    digest_keys(scheme.generator(seed, "primary", Box::new(clock)).as_mut(), n)
}

fn digest_keys(g: &mut dyn KeyGenerator, n: usize) -> u64 {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    let mut eat = |bytes: &[u8]| {
        for b in bytes {
            h ^= u64::from(*b);
            h = h.wrapping_mul(0x0000_0100_0000_01b3);
        }
    };
    for _ in 0..n {
        match g.next_key() {
            Key::Int(v) => eat(&v.to_be_bytes()),
            Key::Uuid(b) => eat(&b),
        }
    }
    h
}

#[test]
fn original_streams_are_unchanged() {
    let golden = [
        (Scheme::Uuid4, 42, "primary", 0x1428_d4cb_faef_4e60),
        (Scheme::Uuid4, 7, "secondary", 0x46ee_628b_a6eb_0402),
        (Scheme::Uuid7, 42, "primary", 0xfb28_7376_7e15_b7f6),
        (Scheme::Uuid7, 7, "secondary", 0x42a1_48d2_fdd8_8147),
        (Scheme::Snowflake, 42, "primary", 0xcc4f_2d7e_793d_2c1d),
        (Scheme::Snowflake, 7, "secondary", 0xcc4f_2d7e_793d_2c1d),
    ];
    for (scheme, seed, role, want) in golden {
        assert_eq!(digest(scheme, seed, role, 200_000), want, "{scheme:?} seed {seed} {role}");
    }
}

#[test]
fn first_uuid7_keys_are_unchanged() {
    let mut g = Scheme::Uuid7.generator(42, "primary", Box::new(legacy_clock()));
    let first = [1, 155, 118, 218, 168, 0, 115, 212, 155, 204, 154, 210, 70, 123, 75, 183];
    let second = [1, 155, 118, 218, 168, 0, 115, 212, 155, 204, 154, 211, 92, 23, 17, 101];
    assert_eq!(g.next_key(), Key::Uuid(first));
    assert_eq!(g.next_key(), Key::Uuid(second));
}

/// The shard-aware streams (issue 21), pinned when they were added, over 200,000 keys each at the
/// default pace (1,000 keys per second; only snowflake-workers reads the clock).
#[test]
fn shard_aware_streams_are_unchanged() {
    let golden = [
        (Scheme::HashSeq, 0x6731_d4fb_2812_b367),
        (Scheme::BitrevSeq, 0x712e_d054_5ca3_4ebc),
        (Scheme::ShardBitsSeq, 0x3082_1c03_dcd3_df31),
        (Scheme::SnowflakeWorkers, 0x7571_a361_fe62_23bb),
    ];
    for (scheme, want) in golden {
        let clock = VirtualClock::at_rate(VirtualClock::DEFAULT_START_MS, VirtualClock::DEFAULT_KEYS_PER_S);
        assert_eq!(digest_with(scheme, 42, clock, 200_000), want, "{scheme:?}");
    }
}
