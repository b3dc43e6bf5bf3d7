//! MyRocks (MariaDB 10.11's RocksDB plugin): the sizes its default column family flushes and
//! compacts at, and the same tree shrunk for a run at a fraction of another's rows. The MyRocks
//! engine starts its managed servers with these; the LSM model
//! ([`predict::lsm`](crate::predict::lsm)) models the same tree.

/// The memtable's size, whose flush makes an L0 file (`write_buffer_size`), bytes.
pub const MEMTABLE_BYTES: u64 = 64 << 20;
/// Bytes a compaction output file is cut at (`target_file_size_base`).
pub const TARGET_FILE_BYTES: u64 = 64 << 20;
/// L1's target size (`max_bytes_for_level_base`).
pub const LEVEL_BASE_BYTES: u64 = 256 << 20;
/// L0 files that start an L0 → L1 compaction (`level0_file_num_compaction_trigger`).
pub const L0_TRIGGER: u64 = 4;
/// Each level's target over the one above (`max_bytes_for_level_multiplier`).
pub const LEVEL_MULTIPLIER: f64 = 10.0;

/// Largest shrink of the tree: a memtable of 4 MiB, whose flush still holds tens of thousands
/// of rows.
pub const MAX_TREE_SCALE: u64 = 16;

/// Column-family options that shrink the default tree by `k` (at most [`MAX_TREE_SCALE`]):
/// the memtable, the files and every level's target divided by `k`, the L0 trigger and the
/// level multiplier kept. A run at 1/k of another's rows then flushes and compacts as often per
/// row, and its point reads meet as many files, as the other's. `None` for `k` ≤ 1.
pub fn scaled_cf_options(k: u64) -> Option<String> {
    let k = k.min(MAX_TREE_SCALE);
    (k > 1).then(|| {
        format!(
            "write_buffer_size={};target_file_size_base={};max_bytes_for_level_base={}",
            MEMTABLE_BYTES / k,
            TARGET_FILE_BYTES / k,
            LEVEL_BASE_BYTES / k
        )
    })
}

/// The shrink `k` of [`scaled_cf_options`] that a run's recorded memtable size (bytes) shows:
/// 1 for the default, or for a size that is no whole shrink of it.
pub fn tree_scale_of(memtable_bytes: u64) -> u64 {
    (2..=MAX_TREE_SCALE).find(|k| MEMTABLE_BYTES / k == memtable_bytes).unwrap_or(1)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_scaled_tree_divides_its_memtable_files_and_levels_alike_and_is_read_back() {
        assert_eq!(scaled_cf_options(1), None);
        assert_eq!(
            scaled_cf_options(10).as_deref(),
            Some("write_buffer_size=6710886;target_file_size_base=6710886;max_bytes_for_level_base=26843545")
        );
        assert_eq!(scaled_cf_options(100), scaled_cf_options(MAX_TREE_SCALE), "no memtable below 4 MiB");
        assert_eq!(tree_scale_of(MEMTABLE_BYTES / 10), 10);
        assert_eq!(tree_scale_of(MEMTABLE_BYTES), 1);
        assert_eq!(tree_scale_of(16 << 20), 4);
        assert_eq!(tree_scale_of(5_000_000), 1, "a user's own size");
    }
}
