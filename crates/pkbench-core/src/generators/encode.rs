//! Text encodings of 16-byte keys, written into caller-provided buffers (no allocation).

const HEX: &[u8; 16] = b"0123456789abcdef";

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
    // Only ASCII hex digits and hyphens were written.
    std::str::from_utf8(out).expect("hex encoding is ASCII")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hyphenated_matches_rfc_layout() {
        let bytes = [0x01, 0x7f, 0x22, 0xe2, 0x79, 0xb0, 0x7c, 0xc3, 0x98, 0xc4, 0xdc, 0x0c, 0x0c, 0x07, 0x39, 0x8f];
        let mut buf = [0u8; 36];
        assert_eq!(encode_hyphenated_str(&bytes, &mut buf), "017f22e2-79b0-7cc3-98c4-dc0c0c07398f");
    }
}
