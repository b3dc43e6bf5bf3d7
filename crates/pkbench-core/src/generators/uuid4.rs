//! RFC 9562 UUID version 4: random.

use super::{Key, KeyGenerator, KeyRng};

/// Generates version-4 UUIDs from a [`KeyRng`].
pub struct UuidV4 {
    rng: KeyRng,
}

impl UuidV4 {
    /// A generator drawing from `rng`.
    pub fn new(rng: KeyRng) -> Self {
        UuidV4 { rng }
    }

    /// The next UUID's 16 bytes.
    #[inline]
    pub fn next_bytes(&mut self) -> [u8; 16] {
        let hi = (self.rng.next_u64() & !0xf000) | 0x4000;
        let lo = (self.rng.next_u64() & !(0b11 << 62)) | (0b10 << 62);
        ((u128::from(hi) << 64) | u128::from(lo)).to_be_bytes()
    }
}

impl KeyGenerator for UuidV4 {
    #[inline]
    fn next_key(&mut self) -> Key {
        Key::Uuid(self.next_bytes())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::generators::{uuid_variant_is_rfc, uuid_version};

    #[test]
    fn version_and_variant_bits() {
        let mut g = UuidV4::new(KeyRng::seeded(1));
        for _ in 0..1000 {
            let b = g.next_bytes();
            assert_eq!(uuid_version(&b), 4);
            assert!(uuid_variant_is_rfc(&b));
        }
    }
}
