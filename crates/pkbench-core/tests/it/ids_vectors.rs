//! RFC 9562's appendix examples decode to their published fields, and pkbench's encodings and
//! layouts agree with the `uuid` and `ulid` crates (dev-dependencies, used only to cross-check).

use pkbench_core::generators::inspect::{IdKind, InspectOptions, Variant, inspect};
use pkbench_core::generators::{
    KeyRng, ParsedId, SystemClock, TextEncoding, Ulid, UuidV1, UuidV4, UuidV6, UuidV7, UuidV7SubMs, VirtualClock,
    clock_seq, pack_v1, pack_v6, parse_id, v1_ticks, v6_ticks,
};

/// 2022-02-22T19:22:22Z, the instant of every RFC 9562 time-based example.
const RFC_UNIX_NS: i128 = 1_645_557_742_000_000_000;

fn bytes_of(text: &str) -> [u8; 16] {
    match parse_id(text) {
        Ok(ParsedId::Bytes { bytes, .. }) => bytes,
        other => panic!("{text}: {other:?}"),
    }
}

fn field<'a>(i: &'a pkbench_core::generators::Inspection, name: &str) -> &'a str {
    &i.fields.iter().find(|f| f.name == name).unwrap_or_else(|| panic!("no field {name}: {i:?}")).value
}

#[test]
fn rfc9562_appendix_a1_uuidv1() {
    let i = inspect("C232AB00-9414-11EC-B3C8-9F6BDECED846", &InspectOptions::default()).unwrap();
    assert_eq!((i.kind, i.version, i.variant), (IdKind::Uuid(1), Some(1), Some(Variant::Rfc9562)));
    let t = i.time.unwrap();
    assert_eq!((t.unix_ns, t.resolution_ns), (RFC_UNIX_NS, 100));
    assert_eq!(t.iso8601(), "2022-02-22T19:22:22.0000000Z");
    let b = bytes_of("C232AB00-9414-11EC-B3C8-9F6BDECED846");
    assert_eq!(v1_ticks(&b), 0x01ec_9414_c232_ab00);
    assert_eq!(clock_seq(&b), 0x33c8);
    assert!(field(&i, "node").starts_with("9f:6b:de:ce:d8:46 (multicast bit set"));
    assert_eq!(pack_v1(0x01ec_9414_c232_ab00, 0x33c8, &[0x9f, 0x6b, 0xde, 0xce, 0xd8, 0x46]), b);
}

#[test]
fn rfc9562_appendix_a3_uuidv4() {
    let i = inspect("919108f7-52d1-4320-9bac-f847db4148a8", &InspectOptions::default()).unwrap();
    assert_eq!((i.kind, i.version, i.variant), (IdKind::Uuid(4), Some(4), Some(Variant::Rfc9562)));
    assert_eq!(i.time, None);
    let b = bytes_of("919108f7-52d1-4320-9bac-f847db4148a8");
    // random_a 0x919108F752D1, random_b 0x320, random_c 0x1BACF847DB4148A8.
    assert_eq!(u64::from_be_bytes([0, 0, b[0], b[1], b[2], b[3], b[4], b[5]]), 0x9191_08f7_52d1);
    assert_eq!(u16::from_be_bytes([b[6], b[7]]) & 0x0fff, 0x320);
    assert_eq!(u64::from_be_bytes(b[8..].try_into().unwrap()) & ((1 << 62) - 1), 0x1bac_f847_db41_48a8);
}

#[test]
fn rfc9562_appendix_a5_uuidv6() {
    let i = inspect("1EC9414C-232A-6B00-B3C8-9F6BDECED846", &InspectOptions::default()).unwrap();
    assert_eq!((i.kind, i.version, i.variant), (IdKind::Uuid(6), Some(6), Some(Variant::Rfc9562)));
    assert_eq!(i.time.unwrap().unix_ns, RFC_UNIX_NS);
    let b = bytes_of("1EC9414C-232A-6B00-B3C8-9F6BDECED846");
    assert_eq!((v6_ticks(&b), clock_seq(&b)), (0x01ec_9414_c232_ab00, 0x33c8));
    assert_eq!(pack_v6(0x01ec_9414_c232_ab00, 0x33c8, &[0x9f, 0x6b, 0xde, 0xce, 0xd8, 0x46]), b);
}

#[test]
fn rfc9562_appendix_a6_uuidv7() {
    let i = inspect("017F22E2-79B0-7CC3-98C4-DC0C0C07398F", &InspectOptions::default()).unwrap();
    assert_eq!((i.kind, i.version, i.variant), (IdKind::Uuid(7), Some(7), Some(Variant::Rfc9562)));
    assert_eq!(i.time.unwrap().unix_ns, RFC_UNIX_NS);
    assert_eq!(i.time.unwrap().iso8601(), "2022-02-22T19:22:22.000Z");
    assert_eq!(field(&i, "unix_ts_ms"), "1645557742000");
    assert_eq!(field(&i, "rand_a"), "0xcc3");
    assert_eq!(field(&i, "rand_b"), "0x18c4dc0c0c07398f");
}

#[test]
fn encodings_agree_with_the_uuid_and_ulid_crates() {
    let mut rng = KeyRng::seeded(9);
    let mut buf = [0u8; 36];
    for _ in 0..2_000 {
        let mut b = [0u8; 16];
        rng.fill(&mut b);
        let theirs = uuid::Uuid::from_bytes(b);
        assert_eq!(TextEncoding::Hyphenated.encode(&b, &mut buf), theirs.hyphenated().to_string());
        assert_eq!(TextEncoding::Hex.encode(&b, &mut buf), theirs.simple().to_string());
        for spelling in
            [theirs.braced().to_string(), theirs.urn().to_string(), theirs.hyphenated().to_string().to_uppercase()]
        {
            assert_eq!(bytes_of(&spelling), b, "{spelling}");
        }
        let ulid = ulid::Ulid::from_bytes(b);
        assert_eq!(TextEncoding::Base32.encode(&b, &mut buf), ulid.to_string());
        assert_eq!(bytes_of(&ulid.to_string()), b);
    }
}

#[test]
fn generated_uuids_decode_alike_in_the_uuid_crate() {
    let clock = || VirtualClock::new(1_767_225_600_000, 3);
    let mut v1 = UuidV1::new(KeyRng::seeded(1), clock());
    let mut v4 = UuidV4::new(KeyRng::seeded(2));
    let mut v6 = UuidV6::new(KeyRng::seeded(3), clock());
    let mut v7 = UuidV7::new(KeyRng::seeded(4), clock());
    let mut v7m3 = UuidV7SubMs::new(KeyRng::seeded(5), clock());
    let options = InspectOptions::default();
    for _ in 0..1_000 {
        for (version, b) in [(1, v1.next_bytes()), (6, v6.next_bytes()), (7, v7.next_bytes()), (7, v7m3.next_bytes())] {
            let theirs = uuid::Uuid::from_bytes(b);
            assert_eq!(theirs.get_version_num(), version);
            assert_eq!(theirs.get_variant(), uuid::Variant::RFC4122);
            let (secs, nanos) = theirs.get_timestamp().expect("time-based").to_unix();
            let ours = inspect(&theirs.to_string(), &options).unwrap().time.unwrap().unix_ns;
            let want = i128::from(secs) * 1_000_000_000 + i128::from(nanos);
            assert_eq!(ours, want, "v{version} {theirs}");
            if version != 7 {
                assert_eq!(
                    theirs.get_timestamp().unwrap().to_gregorian(),
                    (v1_or_v6_ticks(version, &b), clock_seq(&b))
                );
            }
        }
        let b = v4.next_bytes();
        assert_eq!(uuid::Uuid::from_bytes(b).get_version(), Some(uuid::Version::Random));
    }
}

fn v1_or_v6_ticks(version: usize, b: &[u8; 16]) -> u64 {
    if version == 1 { v1_ticks(b) } else { v6_ticks(b) }
}

#[test]
fn the_uuid_crates_ids_decode_to_its_timestamps() {
    let options = InspectOptions::default();
    for _ in 0..100 {
        for id in
            [uuid::Uuid::now_v1(&[1, 2, 3, 4, 5, 6]), uuid::Uuid::now_v6(&[7, 8, 9, 10, 11, 12]), uuid::Uuid::now_v7()]
        {
            let (secs, nanos) = id.get_timestamp().unwrap().to_unix();
            let want = i128::from(secs) * 1_000_000_000 + i128::from(nanos);
            let found = inspect(&id.to_string(), &options).unwrap();
            assert_eq!(found.time.unwrap().unix_ns, want, "{id}");
            assert_eq!(found.version, Some(id.get_version_num() as u8));
        }
    }
}

#[test]
fn ulids_decode_alike_in_the_ulid_crate() {
    let mut g = Ulid::new(KeyRng::seeded(6), SystemClock);
    let mut prev: Option<ulid::Ulid> = None;
    for _ in 0..1_000 {
        let b = g.next_bytes();
        let theirs = ulid::Ulid::from_bytes(b);
        let found = inspect(&theirs.to_string(), &InspectOptions::default()).unwrap();
        assert_eq!(found.kind, IdKind::Ulid);
        assert_eq!(found.time.unwrap().unix_ns, i128::from(theirs.timestamp_ms()) * 1_000_000);
        if let Some(p) = prev {
            assert!(theirs > p, "ulid order");
        }
        prev = Some(theirs);
    }
}
