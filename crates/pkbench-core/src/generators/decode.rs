//! Reading IDs back from text: hyphenated UUIDs (also `{…}` and `urn:uuid:…`), 32 hex digits,
//! 26-character Crockford base32 and decimal integers. Never panics, whatever the input.

use super::TextEncoding;
use super::error::ParseError;

/// An ID read from text, before any scheme is guessed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ParsedId {
    /// A 128-bit value and the encoding it was written in.
    Bytes {
        /// Big-endian bytes.
        bytes: [u8; 16],
        /// The text form it came from.
        encoding: TextEncoding,
    },
    /// A decimal integer.
    Int(i64),
}

/// Parses one ID; surrounding whitespace is ignored.
pub fn parse_id(text: &str) -> Result<ParsedId, ParseError> {
    let s = text.trim();
    if s.is_empty() {
        return Err(ParseError::Empty);
    }
    let s = strip_ci_prefix(s, "urn:uuid:");
    let s = s.strip_prefix('{').and_then(|t| t.strip_suffix('}')).unwrap_or(s);
    if let Some((position, ch)) = s.chars().enumerate().find(|(_, c)| !c.is_ascii()) {
        return Err(ParseError::Character { ch, position: position + 1, encoding: "an ID" });
    }
    let digits = s.strip_prefix(['-', '+']).unwrap_or(s);
    if !digits.is_empty() && s.len() <= 20 && digits.bytes().all(|b| b.is_ascii_digit()) {
        return s.parse::<i64>().map(ParsedId::Int).map_err(|_| ParseError::IntegerRange);
    }
    let (bytes, encoding) = match s.len() {
        36 => (decode_hyphenated(s.as_bytes())?, TextEncoding::Hyphenated),
        32 => (decode_hex(s.as_bytes(), "hex")?, TextEncoding::Hex),
        26 => (decode_base32(s.as_bytes())?, TextEncoding::Base32),
        len => return Err(ParseError::Length { len }),
    };
    Ok(ParsedId::Bytes { bytes, encoding })
}

fn strip_ci_prefix<'a>(s: &'a str, prefix: &str) -> &'a str {
    match s.get(..prefix.len()) {
        Some(head) if head.eq_ignore_ascii_case(prefix) => &s[prefix.len()..],
        _ => s,
    }
}

/// Reads a 36-character `8-4-4-4-12` UUID.
pub fn decode_hyphenated(text: &[u8]) -> Result<[u8; 16], ParseError> {
    if text.len() != 36 {
        return Err(ParseError::Length { len: text.len() });
    }
    if [8, 13, 18, 23].iter().any(|&i| text[i] != b'-') {
        return Err(ParseError::Hyphens);
    }
    let mut hex = [0u8; 32];
    let mut n = 0;
    for (i, &c) in text.iter().enumerate() {
        if matches!(i, 8 | 13 | 18 | 23) {
            continue;
        }
        if hex_value(c).is_none() {
            return Err(bad_char(c, i, "hyphenated UUID"));
        }
        hex[n] = c;
        n += 1;
    }
    decode_hex(&hex, "hyphenated UUID")
}

/// Reads 32 hex digits (either case).
pub fn decode_hex(text: &[u8], encoding: &'static str) -> Result<[u8; 16], ParseError> {
    if text.len() != 32 {
        return Err(ParseError::Length { len: text.len() });
    }
    let mut out = [0u8; 16];
    for (i, pair) in text.chunks_exact(2).enumerate() {
        let hi = hex_value(pair[0]).ok_or_else(|| bad_char(pair[0], 2 * i, encoding))?;
        let lo = hex_value(pair[1]).ok_or_else(|| bad_char(pair[1], 2 * i + 1, encoding))?;
        out[i] = hi << 4 | lo;
    }
    Ok(out)
}

/// Reads 26 characters of Crockford base32 (either case; `I`/`L` read as 1 and `O` as 0).
pub fn decode_base32(text: &[u8]) -> Result<[u8; 16], ParseError> {
    if text.len() != 26 {
        return Err(ParseError::Length { len: text.len() });
    }
    let mut v: u128 = 0;
    for (i, &c) in text.iter().enumerate() {
        let d = base32_value(c).ok_or_else(|| bad_char(c, i, "base32 (Crockford)"))?;
        if i == 0 && d > 7 {
            return Err(ParseError::Base32Overflow);
        }
        v = v << 5 | u128::from(d);
    }
    Ok(v.to_be_bytes())
}

fn bad_char(c: u8, index: usize, encoding: &'static str) -> ParseError {
    ParseError::Character { ch: char::from(c), position: index + 1, encoding }
}

fn hex_value(c: u8) -> Option<u8> {
    match c {
        b'0'..=b'9' => Some(c - b'0'),
        b'a'..=b'f' => Some(c - b'a' + 10),
        b'A'..=b'F' => Some(c - b'A' + 10),
        _ => None,
    }
}

fn base32_value(c: u8) -> Option<u8> {
    match c.to_ascii_uppercase() {
        b'O' => Some(0),
        b'I' | b'L' => Some(1),
        u => super::encode::CROCKFORD.iter().position(|&a| a == u).map(|p| p as u8),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const V7: [u8; 16] =
        [0x01, 0x7f, 0x22, 0xe2, 0x79, 0xb0, 0x7c, 0xc3, 0x98, 0xc4, 0xdc, 0x0c, 0x0c, 0x07, 0x39, 0x8f];

    fn bytes(s: &str) -> [u8; 16] {
        match parse_id(s).unwrap() {
            ParsedId::Bytes { bytes, .. } => bytes,
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn every_uuid_spelling() {
        for s in [
            "017f22e2-79b0-7cc3-98c4-dc0c0c07398f",
            " 017F22E2-79B0-7CC3-98C4-DC0C0C07398F\n",
            "{017f22e2-79b0-7cc3-98c4-dc0c0c07398f}",
            "urn:uuid:017f22e2-79b0-7cc3-98c4-dc0c0c07398f",
            "017f22e279b07cc398c4dc0c0c07398f",
        ] {
            assert_eq!(bytes(s), V7, "{s}");
        }
    }

    #[test]
    fn base32_and_integers() {
        assert_eq!(bytes("01ARZ3NDEKTSV4RRFFQ69G5FAV")[..6], [0x01, 0x56, 0x3e, 0x3a, 0xb5, 0xd3]);
        assert_eq!(bytes("01arz3ndektsv4rrffq69g5fav"), bytes("01ARZ3NDEKTSV4RRFFQ69G5FAV"));
        assert_eq!(bytes("0IARZ3NDEKTSV4RRFFQ69G5FAV"), bytes("01ARZ3NDEKTSV4RRFFQ69G5FAV"));
        assert_eq!(parse_id("42"), Ok(ParsedId::Int(42)));
        assert_eq!(parse_id("-9223372036854775808"), Ok(ParsedId::Int(i64::MIN)));
        assert_eq!(parse_id("9223372036854775808"), Err(ParseError::IntegerRange));
    }

    #[test]
    fn clear_errors() {
        assert_eq!(parse_id("  "), Err(ParseError::Empty));
        assert_eq!(parse_id("abc"), Err(ParseError::Length { len: 3 }));
        assert_eq!(parse_id("017f22e2-79b0-7cc3-98c4+dc0c0c07398f"), Err(ParseError::Hyphens));
        let e = parse_id("017f22e2-79b0-7cc3-98c4-dc0c0c07398g").unwrap_err();
        assert_eq!(e.to_string(), "invalid character 'g' at position 36 in hyphenated UUID");
        assert_eq!(parse_id("81ARZ3NDEKTSV4RRFFQ69G5FAV"), Err(ParseError::Base32Overflow));
        assert!(matches!(parse_id("01ARZ3NDEKTSV4RRFFQ69G5FAU"), Err(ParseError::Character { ch: 'U', .. })));
        assert!(matches!(parse_id("é1"), Err(ParseError::Character { ch: 'é', position: 1, .. })));
        assert!(parse_id("{}").is_err() && parse_id("-").is_err() && parse_id("urn:uuid:").is_err());
    }
}
