//! Physical state per b-tree from `dbstat` (through the engine's own reader): pages, leaf fill,
//! out-of-order leaves, and the space a rebuild would reclaim.

use super::schema::TableSchema;
use crate::results::BtreeStats;
use serde::{Deserialize, Serialize};

/// Leaf fill a rebuild (`VACUUM`) reaches: rows are copied in key order, so leaves come out
/// nearly full (97% measured on a WITHOUT ROWID table with the bundled SQLite; kept below that).
pub const REBUILT_LEAF_FILL: f64 = 0.95;

/// One table or index b-tree: the engine's statistics plus what a rebuild would free.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct BtreeReport {
    /// Pages, leaves, leaf fill and order, as `pkbench run` reports them (same JSON fields).
    #[serde(flatten)]
    pub stats: BtreeStats,
    /// Bytes a rebuild would free (leaves repacked to [`REBUILT_LEAF_FILL`]).
    pub reclaimable_bytes: u64,
    /// When the fill is an estimate rather than read from the pages: how it was estimated.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub estimated: Option<String>,
    /// SQLite b-trees holding a text key: `dbstat` payload bytes of all their pages.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub payload_bytes: Option<u64>,
    /// SQLite b-trees holding a text key: entries (`dbstat` cells of leaf pages, and of interior
    /// pages that carry payload: an index b-tree keeps entries there too).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub entries: Option<u64>,
}

/// Pages, leaves and fill of one server b-tree (or heap) as doctor measured or estimated them.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ServerBtree<'a> {
    /// Table or index name.
    pub name: &'a str,
    /// `table` or `index`.
    pub kind: &'a str,
    /// Pages in all.
    pub pages: u64,
    /// Leaf pages.
    pub leaf_pages: u64,
    /// Average leaf fill, 0–1 (clamped).
    pub fill: f64,
    /// Share of leaves out of key order, 0–1 (clamped).
    pub out_of_order: f64,
    /// The server's page size, bytes.
    pub page_bytes: u64,
}

impl ServerBtree<'_> {
    /// The report, with what a rebuild would reclaim and, for estimates, how it was estimated.
    pub fn report(self, estimated: Option<String>) -> BtreeReport {
        let fill = self.fill.clamp(0.0, 1.0);
        BtreeReport {
            stats: BtreeStats {
                key_share: None,
                misses_per_1k_rows: None,
                index_blocks_touched_per_1k_rows: None,
                name: self.name.into(),
                kind: self.kind.into(),
                pages: self.pages,
                leaf_pages: self.leaf_pages,
                leaf_fill: fill,
                leaf_out_of_order: self.out_of_order.clamp(0.0, 1.0),
                size_bytes: self.pages * self.page_bytes,
            },
            reclaimable_bytes: reclaimable_leaves(self.leaf_pages, fill) * self.page_bytes,
            estimated,
            payload_bytes: None,
            entries: None,
        }
    }
}

/// Names of the b-trees whose entries carry the primary key: every b-tree of a table clustered
/// on the key (its indexes point at rows by key), else the table's rows and the key's own index.
pub fn key_holders<'a>(table: &'a TableSchema, key_index: Option<&'a str>) -> Vec<&'a str> {
    let mut out = vec![table.name.as_str()];
    if table.layout.clustered_on_key() {
        out.extend(table.indexes.iter().map(|i| i.0.as_str()));
    } else {
        out.extend(key_index);
    }
    out
}

/// The table's own b-tree and its indexes, with reclaimable bytes.
pub fn table_btrees(table: &TableSchema, all: &[BtreeStats], page_size: u64) -> Vec<BtreeReport> {
    let names: Vec<&str> =
        std::iter::once(table.name.as_str()).chain(table.indexes.iter().map(|i| i.0.as_str())).collect();
    all.iter()
        .filter(|b| names.iter().any(|n| n.eq_ignore_ascii_case(&b.name)))
        .map(|b| BtreeReport {
            stats: b.clone(),
            reclaimable_bytes: reclaimable_leaves(b.leaf_pages, b.leaf_fill) * page_size,
            estimated: None,
            payload_bytes: None,
            entries: None,
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
