//! Physical state per b-tree from `dbstat` (through the engine's own reader): pages, leaf fill,
//! out-of-order leaves, and the space a rebuild would reclaim.

use super::schema::TableSchema;
use crate::results::BtreeStats;
use rusqlite::Connection;
use serde::{Deserialize, Serialize};

/// Leaf fill a rebuild (`VACUUM`) reaches: rows are copied in key order, so leaves come out
/// nearly full (97% measured on a WITHOUT ROWID table with the bundled SQLite; kept below that).
pub const REBUILT_LEAF_FILL: f64 = 0.95;

/// One table or index b-tree.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct BtreeReport {
    /// Table or index name.
    pub name: String,
    /// `table` or `index`.
    pub kind: String,
    /// All pages.
    pub pages: u64,
    /// Leaf pages.
    pub leaf_pages: u64,
    /// Average share of each leaf in use, 0–1.
    pub leaf_fill: f64,
    /// Share of leaf-to-next-leaf steps that go backwards in the file, 0–1.
    pub leaf_out_of_order: f64,
    /// Bytes of its pages.
    pub size_bytes: u64,
    /// Bytes a rebuild would free (leaves repacked to [`REBUILT_LEAF_FILL`]).
    pub reclaimable_bytes: u64,
}

/// `dbstat` figures for every b-tree of the main database.
pub fn all_btrees(conn: &Connection) -> rusqlite::Result<Vec<BtreeStats>> {
    crate::engines::sqlite::btree_stats(conn)
}

/// The table's own b-tree and its indexes, with reclaimable bytes.
pub fn table_btrees(table: &TableSchema, all: &[BtreeStats], page_size: u64) -> Vec<BtreeReport> {
    let names: Vec<&str> =
        std::iter::once(table.name.as_str()).chain(table.indexes.iter().map(|i| i.0.as_str())).collect();
    all.iter()
        .filter(|b| names.iter().any(|n| n.eq_ignore_ascii_case(&b.name)))
        .map(|b| BtreeReport {
            name: b.name.clone(),
            kind: b.kind.clone(),
            pages: b.pages,
            leaf_pages: b.leaf_pages,
            leaf_fill: b.leaf_fill,
            leaf_out_of_order: b.leaf_out_of_order,
            size_bytes: b.size_bytes,
            reclaimable_bytes: reclaimable_leaves(b.leaf_pages, b.leaf_fill) * page_size,
        })
        .collect()
}

/// Leaf pages a rebuild would free.
pub fn reclaimable_leaves(leaf_pages: u64, leaf_fill: f64) -> u64 {
    let rebuilt = (leaf_pages as f64 * leaf_fill / REBUILT_LEAF_FILL).ceil() as u64;
    leaf_pages.saturating_sub(rebuilt)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn full_leaves_reclaim_nothing_half_full_reclaim_about_half() {
        assert_eq!(reclaimable_leaves(100, 0.95), 0);
        assert_eq!(reclaimable_leaves(100, 0.475), 50);
        assert_eq!(reclaimable_leaves(0, 0.0), 0);
    }
}
