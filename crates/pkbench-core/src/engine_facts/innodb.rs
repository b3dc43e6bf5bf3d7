//! InnoDB (MariaDB): the buffer pool's limits as pkbench's managed servers set them, and how
//! MariaDB's native `UUID` type orders values. The MariaDB engine starts its servers with these;
//! the InnoDB page model ([`predict::server::innodb`](crate::predict::server::innodb)) models
//! the same pool and index order.

/// InnoDB's smallest buffer pool with 16 KiB pages, MiB (MariaDB 10.11 refuses to start below it).
pub const MIN_POOL_MB: u64 = 6;

/// `innodb_lru_scan_depth` for a pool of `cache_mb` MiB: the default (1536 pages) exceeds a
/// small pool and makes the page cleaner evict nonstop, so scale it to a tenth of the pool's
/// 16 KiB pages, at least 100.
pub fn lru_scan_depth(cache_mb: u64) -> u64 {
    (cache_mb * 1024 / 16 / 10).max(100)
}

/// The bytes MariaDB's `UUID` type (10.11.2+) compares for the UUID `u`: the five groups
/// reversed for RFC 4122 variant versions 1–5, else `u` itself. Sorting by this key gives the
/// order of the type's index, i.e. where InnoDB places the rows.
pub fn uuid_sort_key(u: [u8; 16]) -> [u8; 16] {
    let version = u[6] >> 4;
    let rfc_variant = u[8] & 0xc0 == 0x80;
    if !(rfc_variant && (1..=5).contains(&version)) {
        return u;
    }
    let mut k = [0u8; 16];
    k[0..6].copy_from_slice(&u[10..16]);
    k[6..8].copy_from_slice(&u[8..10]);
    k[8..10].copy_from_slice(&u[6..8]);
    k[10..12].copy_from_slice(&u[4..6]);
    k[12..16].copy_from_slice(&u[0..4]);
    k
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::generators::{decode_hyphenated, pack_v1};

    #[test]
    fn lru_scan_depth_is_a_tenth_of_the_pool_and_at_least_100() {
        assert_eq!(lru_scan_depth(MIN_POOL_MB), 100);
        assert_eq!(lru_scan_depth(1024), 6553);
    }

    #[test]
    fn sort_key_reverses_groups_of_v1_to_v5_only() {
        let u = decode_hyphenated(b"6ccd780c-baba-1026-9564-5b8c656024db").unwrap();
        let k = decode_hyphenated(b"5b8c6560-24db-9564-1026-baba6ccd780c").unwrap();
        assert_eq!(uuid_sort_key(u), k);
        let v7 = decode_hyphenated(b"017f22e2-79b0-7cc3-98c4-dc0c0c07398f").unwrap();
        assert_eq!(uuid_sort_key(v7), v7);
        // One node and one clock sequence: the key sorts by time even across a time_low wrap.
        let node = [1, 2, 3, 4, 5, 6];
        let keys: Vec<[u8; 16]> =
            [0x1_ffff_fff0_u64, 0x2_0000_0004].iter().map(|&t| uuid_sort_key(pack_v1(t, 9, &node))).collect();
        assert!(keys[0] < keys[1]);
        // A clock sequence that changes between keys outranks time.
        assert!(uuid_sort_key(pack_v1(5, 200, &node)) > uuid_sort_key(pack_v1(6, 100, &node)));
    }
}
