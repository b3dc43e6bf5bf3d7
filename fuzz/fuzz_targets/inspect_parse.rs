//! Fuzzes `ids inspect`'s parser and decoder: any bytes, read as text the way the CLI reads a
//! line, must give an `Inspection` or a `ParseError`, never a panic; whatever parses must encode
//! back to the same value.

#![no_main]

use libfuzzer_sys::fuzz_target;
use pkbench_core::generators::inspect::{InspectOptions, inspect, shard_aware_layout};
use pkbench_core::generators::{ParsedId, Scheme, TextEncoding, parse_id};

fuzz_target!(|data: &[u8]| {
    let text = String::from_utf8_lossy(data);
    let base = InspectOptions { snowflake_epoch_ms: 0, mask_key: Some(42), ..InspectOptions::default() };
    // Every reading: the guesses, and each shard-aware layout (at the extremes and past them too).
    let layouts = Scheme::ALL.into_iter().filter(|s| shard_aware_layout(*s)).map(Some);
    for layout in std::iter::once(None).chain(layouts) {
        for (hash_buckets, shard_bits) in [(16, 4), (256, 15), (2, 1), (0, 0), (u16::MAX, u8::MAX)] {
            let options = InspectOptions { layout, hash_buckets, shard_bits, ..base };
            if let Ok(found) = inspect(&text, &options) {
                // Formatting the decoded time must not panic either, whatever the value.
                if let Some(t) = found.time {
                    let _ = t.iso8601();
                }
                let _ = found.kind.label();
            }
        }
    }
    if let Ok(ParsedId::Bytes { bytes, encoding }) = parse_id(&text) {
        let mut buf = [0u8; 36];
        let again = parse_id(TextEncoding::encode(encoding, &bytes, &mut buf));
        assert_eq!(again, Ok(ParsedId::Bytes { bytes, encoding }));
    }
});
