//! JSON objects of an exact size, written straight into a reused buffer.
//!
//! Flat objects of string, number and boolean fields with everyday key names: enough for the
//! engines to store and parse them as they would an application's documents.

use std::fmt::Write;

const KEYS: [&str; 12] =
    ["id", "name", "type", "status", "tags", "count", "score", "active", "note", "ref", "code", "level"];

/// Below this many bytes left, the last field is one string that fills the object exactly.
const LAST_FIELD_ROOM: usize = 48;

/// Appends a JSON object of exactly `target` bytes (at least 2) to `out`, its contents drawn
/// from `next`.
pub(super) fn write_object(out: &mut String, target: usize, next: &mut dyn FnMut() -> u64) {
    let end = out.len() + target.max(2) - 1;
    out.push('{');
    for i in 0.. {
        let mark = out.len();
        if i > 0 {
            out.push(',');
        }
        out.push('"');
        out.push_str(KEYS[i % KEYS.len()]);
        if i >= KEYS.len() {
            let _ = write!(out, "{}", i / KEYS.len());
        }
        out.push_str("\":");
        // The smallest value is "" (two bytes).
        if out.len() + 2 > end {
            out.truncate(mark);
            break;
        }
        let room = end - out.len();
        if room <= LAST_FIELD_ROOM {
            write_string(out, room - 2, next);
            break;
        }
        match next() % 4 {
            0 => {
                let _ = write!(out, "{}", next() % 1_000_000);
            }
            1 => out.push_str(if next() & 1 == 1 { "true" } else { "false" }),
            _ => write_string(out, 1 + (next() % 24) as usize, next),
        }
    }
    // Whitespace is valid JSON and makes up the last few bytes exactly.
    while out.len() < end {
        out.push(' ');
    }
    out.push('}');
}

/// A quoted string of `len` lower-case letters (nothing to escape).
fn write_string(out: &mut String, len: usize, next: &mut dyn FnMut() -> u64) {
    out.push('"');
    for _ in 0..len {
        out.push(char::from(b'a' + (next() % 26) as u8));
    }
    out.push('"');
}
