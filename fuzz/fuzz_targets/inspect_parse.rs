//! Fuzzes `ids inspect`'s parser and decoder: any bytes, read as text the way the CLI reads a
//! line, must give an `Inspection` or a `ParseError`, never a panic; whatever parses must encode
//! back to the same value.

#![no_main]

use libfuzzer_sys::fuzz_target;
use pkbench_core::generators::inspect::{InspectOptions, inspect};
use pkbench_core::generators::{ParsedId, TextEncoding, parse_id};

fuzz_target!(|data: &[u8]| {
    let text = String::from_utf8_lossy(data);
    let options = InspectOptions { snowflake_epoch_ms: 0, mask_key: Some(42) };
    if let Ok(found) = inspect(&text, &options) {
        // Formatting the decoded time must not panic either, whatever the value.
        if let Some(t) = found.time {
            let _ = t.iso8601();
        }
        let _ = found.kind.label();
    }
    if let Ok(ParsedId::Bytes { bytes, encoding }) = parse_id(&text) {
        let mut buf = [0u8; 36];
        let again = parse_id(TextEncoding::encode(encoding, &bytes, &mut buf));
        assert_eq!(again, Ok(ParsedId::Bytes { bytes, encoding }));
    }
});
