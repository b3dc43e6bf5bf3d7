//! Decoding 128-bit IDs: RFC 9562 UUIDs of every version, ULIDs, and the COMB hints.

use super::{Field, IdKind, IdValue, Inspection, Timestamp, Variant, plausible_ms};
use crate::generators::{TextEncoding, clock_seq, ticks_to_unix_ns, ulid_ms, v1_ticks, v6_ticks};

/// One line on what each version holds.
pub(super) fn version_summary(v: u8) -> &'static str {
    match v {
        1 => "Gregorian time + clock sequence + node",
        2 => "DCE security",
        3 => "MD5 name hash",
        4 => "random",
        5 => "SHA-1 name hash",
        6 => "reordered Gregorian time + clock sequence + node",
        7 => "Unix time + random",
        8 => "custom",
        _ => "undefined",
    }
}

fn field(name: &'static str, value: String) -> Field {
    Field { name, value }
}

fn be(bytes: &[u8]) -> u128 {
    bytes.iter().fold(0, |acc, &b| acc << 8 | u128::from(b))
}

fn ms_bytes(bytes: &[u8]) -> i128 {
    be(bytes) as i128
}

pub(super) fn inspect_bytes(bytes: [u8; 16], encoding: TextEncoding) -> Inspection {
    let variant = Variant::of(&bytes);
    let version = bytes[6] >> 4;
    let mut out = Inspection {
        value: IdValue::Bytes(bytes),
        encoding: Some(encoding),
        kind: IdKind::NonRfc128,
        version: None,
        variant: Some(variant),
        time: None,
        fields: Vec::new(),
        notes: Vec::new(),
    };
    if bytes == [0; 16] || bytes == [0xff; 16] {
        out.kind = if bytes[0] == 0 { IdKind::Nil } else { IdKind::Max };
        out.variant = None;
        return out;
    }
    let rfc = variant == Variant::Rfc9562;
    if encoding == TextEncoding::Base32 {
        decode_ulid(&bytes, &mut out);
        if rfc && (1..=8).contains(&version) {
            out.notes.push(format!(
                "its bits also form a valid UUIDv{version}: if it is a UUID written in base32, inspect its hex form"
            ));
        }
        return out;
    }
    if !rfc {
        out.notes.push(format!("variant {}: version bits carry no meaning", variant.label()));
        let ms = i128::from(ulid_ms(&bytes));
        if plausible_ms(ms) {
            out.notes
                .push(format!("if it is a ULID stored as a UUID: created {}", Timestamp::from_unix_ms(ms).iso8601()));
        }
        return out;
    }
    out.version = Some(version);
    out.kind = if (1..=8).contains(&version) { IdKind::Uuid(version) } else { IdKind::UuidUnknownVersion(version) };
    match version {
        1 | 6 => decode_gregorian(&bytes, version, &mut out),
        4 => comb_hints(&bytes, &mut out),
        7 => decode_v7(&bytes, &mut out),
        3 | 5 => out.notes.push("a hash of a namespace and a name: nothing else to decode".into()),
        2 => out.notes.push("DCE security UUID (local domain and id); rarely used".into()),
        8 => out.notes.push("custom layout: only its creator knows the fields".into()),
        _ => {}
    }
    out
}

fn decode_gregorian(bytes: &[u8; 16], version: u8, out: &mut Inspection) {
    let ticks = if version == 1 { v1_ticks(bytes) } else { v6_ticks(bytes) };
    out.time = Some(Timestamp { unix_ns: ticks_to_unix_ns(ticks), resolution_ns: 100 });
    out.fields.push(field("timestamp", format!("{ticks} × 100 ns since 1582-10-15 (0x{ticks:015x})")));
    out.fields.push(field("clock_seq", format!("{} (0x{:04x})", clock_seq(bytes), clock_seq(bytes))));
    let node = &bytes[10..];
    let hex: Vec<String> = node.iter().map(|b| format!("{b:02x}")).collect();
    let kind = if node[0] & 1 == 1 {
        "multicast bit set: random, not a MAC address"
    } else {
        "multicast bit clear: may be the generating machine's MAC address"
    };
    out.fields.push(field("node", format!("{} ({kind})", hex.join(":"))));
}

fn decode_v7(bytes: &[u8; 16], out: &mut Inspection) {
    let ms = ms_bytes(&bytes[..6]);
    out.time = Some(Timestamp::from_unix_ms(ms));
    let rand_a = u16::from_be_bytes([bytes[6], bytes[7]]) & 0x0fff;
    let rand_b = u64::from_be_bytes(bytes[8..].try_into().unwrap_or([0; 8])) & ((1 << 62) - 1);
    out.fields.push(field("unix_ts_ms", ms.to_string()));
    out.fields.push(field("rand_a", format!("0x{rand_a:03x}")));
    out.fields.push(field("rand_b", format!("0x{rand_b:016x}")));
    let counter = u64::from(rand_a) << 30 | rand_b >> 32;
    out.fields.push(field("counter", format!("{counter} (0x{counter:011x}) if method 1 (42-bit counter)")));
    let sub_ns = u64::from(rand_a) * 1_000_000 / 4096;
    let precise = Timestamp { unix_ns: ms * 1_000_000 + i128::from(sub_ns), resolution_ns: 245 };
    out.fields.push(field("precise", format!("{} if method 3 (rand_a = 1/4096 ms)", precise.iso8601())));
}

fn comb_hints(bytes: &[u8; 16], out: &mut Inspection) {
    for (range, name) in [(0..6, "COMB (time in bytes 0-5)"), (10..16, "SQL Server COMB (time in bytes 10-15)")] {
        let ms = ms_bytes(&bytes[range]);
        if plausible_ms(ms) {
            out.notes.push(format!(
                "if it is a {name}: created {}; a random v4 decodes to a plausible date only ~1% of the time",
                Timestamp::from_unix_ms(ms).iso8601()
            ));
        }
    }
}

fn decode_ulid(bytes: &[u8; 16], out: &mut Inspection) {
    let ms = i128::from(ulid_ms(bytes));
    out.kind = IdKind::Ulid;
    out.variant = None;
    out.time = Some(Timestamp::from_unix_ms(ms));
    out.fields.push(field("unix_ts_ms", ms.to_string()));
    out.fields.push(field("random", format!("0x{:020x} (80 bits)", be(&bytes[6..]))));
}
