//! Byte layouts of 16-byte keys that differ from the UUID's own: MySQL's `UUID_TO_BIN(u, 1)`
//! time-field swap. (MariaDB has no `UUID_TO_BIN`; pkbench swaps on the client, so the same
//! layout runs on every engine.)

/// Reorders a UUIDv1's time fields from low-mid-high (`llllllll-mmmm-Vhhh-…`) to high-mid-low
/// (`Vhhhmmmm-llll-llll-…`), as MySQL 8's `UUID_TO_BIN(u, 1)` does; the clock sequence and node
/// (bytes 8–15) stay put. A v1 UUID's bytes then sort by timestamp.
#[inline]
pub fn swap_time_fields(u: [u8; 16]) -> [u8; 16] {
    let mut b = u;
    b[0..2].copy_from_slice(&u[6..8]);
    b[2..4].copy_from_slice(&u[4..6]);
    b[4..8].copy_from_slice(&u[0..4]);
    b
}

/// The inverse of [`swap_time_fields`] (MySQL's `BIN_TO_UUID(b, 1)`).
#[inline]
pub fn unswap_time_fields(b: [u8; 16]) -> [u8; 16] {
    let mut u = b;
    u[0..4].copy_from_slice(&b[4..8]);
    u[4..6].copy_from_slice(&b[2..4]);
    u[6..8].copy_from_slice(&b[0..2]);
    u
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::generators::{decode_hex, pack_v1};

    #[test]
    fn matches_mysql_uuid_to_bin_swap() {
        // MySQL 8.0 manual, UUID_TO_BIN: '6ccd780c-baba-1026-9564-5b8c656024db' with swap_flag 1
        // is 1026BABA6CCD780C95645B8C656024DB.
        let u = decode_hex(b"6ccd780cbaba102695645b8c656024db", "hex").unwrap();
        let swapped = decode_hex(b"1026baba6ccd780c95645b8c656024db", "hex").unwrap();
        assert_eq!(swap_time_fields(u), swapped);
        assert_eq!(unswap_time_fields(swapped), u);
    }

    #[test]
    fn swapped_v1_bytes_sort_by_time_across_a_time_low_wrap() {
        // time_low is the low 32 bits of the 100-ns tick count: it wraps every ~429 s, and a
        // plain v1 key after the wrap sorts before the keys just before it.
        let node = [1, 2, 3, 4, 5, 6];
        let ticks = [0x1_ffff_fff0_u64, 0x1_ffff_fffa, 0x2_0000_0004, 0x2_0000_0010];
        let plain: Vec<[u8; 16]> = ticks.iter().map(|&t| pack_v1(t, 7, &node)).collect();
        let swapped: Vec<[u8; 16]> = plain.iter().map(|&k| swap_time_fields(k)).collect();
        assert!(swapped.windows(2).all(|w| w[0] < w[1]), "{swapped:x?}");
        assert!(plain[1] > plain[2], "plain v1 goes back at the wrap");
        assert!(swapped.iter().zip(&plain).all(|(s, k)| unswap_time_fields(*s) == *k));
    }
}
