//! Text encodings of 16-byte keys, written into caller-provided buffers (no allocation):
//! 36-character hyphenated (`8-4-4-4-12`), 32 hex digits, and 26-character Crockford base32
//! (ULID's form). All three sort like the bytes they encode. `decode.rs` reads them back.

const HEX: &[u8; 16] = b"0123456789abcdef";
/// Crockford's base32 alphabet: digits, then letters without I, L, O and U (ASCII order).
pub(super) const CROCKFORD: &[u8; 32] = b"0123456789ABCDEFGHJKMNPQRSTVWXYZ";

/// Which text form to write a 16-byte key in.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, serde::Serialize)]
#[serde(rename_all = "snake_case")]
pub enum TextEncoding {
    /// 36 characters, lowercase hex with hyphens (`017f22e2-79b0-7cc3-98c4-dc0c0c07398f`).
    Hyphenated,
    /// 32 lowercase hex digits.
    Hex,
    /// 26 characters of Crockford base32, uppercase (ULID's canonical form).
    Base32,
}

impl TextEncoding {
    /// Characters per key.
    pub const fn text_len(self) -> usize {
        match self {
            TextEncoding::Hyphenated => 36,
            TextEncoding::Hex => 32,
            TextEncoding::Base32 => 26,
        }
    }

    /// A short description, e.g. `36-character hyphenated`.
    pub const fn label(self) -> &'static str {
        match self {
            TextEncoding::Hyphenated => "36-character hyphenated",
            TextEncoding::Hex => "32 hex digits",
            TextEncoding::Base32 => "26-character Crockford base32",
        }
    }

    /// Writes `bytes` into the front of `out` and returns the text (ASCII, borrowed from `out`).
    #[inline]
    pub fn encode<'a>(self, bytes: &[u8; 16], out: &'a mut [u8; 36]) -> &'a str {
        let n = self.text_len();
        match self {
            TextEncoding::Hyphenated => encode_hyphenated(bytes, out),
            TextEncoding::Hex => encode_hex(bytes, first_mut(out)),
            TextEncoding::Base32 => encode_base32(bytes, first_mut(out)),
        }
        ascii(&out[..n])
    }
}

fn first_mut<const N: usize>(out: &mut [u8; 36]) -> &mut [u8; N] {
    out.first_chunk_mut::<N>().expect("N <= 36")
}

fn ascii(bytes: &[u8]) -> &str {
    // Encoders write only ASCII digits, letters and hyphens.
    std::str::from_utf8(bytes).expect("encodings are ASCII")
}

/// Writes the 36-character lowercase hyphenated form (`8-4-4-4-12`) into `out`.
#[inline]
pub fn encode_hyphenated(bytes: &[u8; 16], out: &mut [u8; 36]) {
    let mut o = 0;
    for (i, b) in bytes.iter().enumerate() {
        if matches!(i, 4 | 6 | 8 | 10) {
            out[o] = b'-';
            o += 1;
        }
        out[o] = HEX[usize::from(b >> 4)];
        out[o + 1] = HEX[usize::from(b & 0x0f)];
        o += 2;
    }
}

/// Like [`encode_hyphenated`], returning the text as `&str` borrowed from `out`.
#[inline]
pub fn encode_hyphenated_str<'a>(bytes: &[u8; 16], out: &'a mut [u8; 36]) -> &'a str {
    encode_hyphenated(bytes, out);
    ascii(out)
}

/// Writes 32 lowercase hex digits into `out`.
#[inline]
pub fn encode_hex(bytes: &[u8; 16], out: &mut [u8; 32]) {
    for (i, b) in bytes.iter().enumerate() {
        out[2 * i] = HEX[usize::from(b >> 4)];
        out[2 * i + 1] = HEX[usize::from(b & 0x0f)];
    }
}

/// Writes the 26-character Crockford base32 form of the 128-bit big-endian value into `out`.
/// The first character carries the top 3 bits, so it is always `0`–`7`.
#[inline]
pub fn encode_base32(bytes: &[u8; 16], out: &mut [u8; 26]) {
    let v = u128::from_be_bytes(*bytes);
    for (i, o) in out.iter_mut().enumerate() {
        let shift = 125 - 5 * i as u32;
        *o = CROCKFORD[((v >> shift) & 0x1f) as usize];
    }
}

/// Like [`encode_base32`], returning the text as `&str` borrowed from `out`.
#[inline]
pub fn encode_base32_str<'a>(bytes: &[u8; 16], out: &'a mut [u8; 26]) -> &'a str {
    encode_base32(bytes, out);
    ascii(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hyphenated_matches_rfc_layout() {
        let bytes = [0x01, 0x7f, 0x22, 0xe2, 0x79, 0xb0, 0x7c, 0xc3, 0x98, 0xc4, 0xdc, 0x0c, 0x0c, 0x07, 0x39, 0x8f];
        let mut buf = [0u8; 36];
        assert_eq!(encode_hyphenated_str(&bytes, &mut buf), "017f22e2-79b0-7cc3-98c4-dc0c0c07398f");
        assert_eq!(TextEncoding::Hex.encode(&bytes, &mut buf), "017f22e279b07cc398c4dc0c0c07398f");
    }

    #[test]
    fn base32_known_values() {
        let mut buf = [0u8; 26];
        assert_eq!(encode_base32_str(&[0; 16], &mut buf), "00000000000000000000000000");
        assert_eq!(encode_base32_str(&[0xff; 16], &mut buf), "7ZZZZZZZZZZZZZZZZZZZZZZZZZ");
        let mut one = [0u8; 16];
        one[15] = 33;
        assert_eq!(encode_base32_str(&one, &mut buf), "00000000000000000000000011");
    }
}
