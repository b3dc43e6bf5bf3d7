//! InnoDB's index page layout (`page0page.h`, `rem0rec.h`; COMPACT/DYNAMIC records) and its
//! split rule (`btr0btr.cc`, `btr_page_split_and_insert`), for the tables
//! `engines::mariadb::schema` creates, as MariaDB 10.11 does them.

use super::tree::{Node, SplitRules};

/// `innodb_page_size` (the default, which pkbench's managed servers keep).
pub const PAGE: u32 = 16384;
/// `PAGE_NEW_SUPREMUM_END`: FIL header (38) + page header (36) + two segment headers (20) +
/// the infimum and supremum records (13 each).
pub const SUPREMUM_END: u32 = 120;
/// `FIL_PAGE_DATA_END`: the FIL trailer.
pub const FIL_TRAILER: u32 = 8;
/// Bytes of a record header in COMPACT/DYNAMIC format (`REC_N_NEW_EXTRA_BYTES`).
pub const RECORD_HEADER: u32 = 5;
/// `DB_TRX_ID` + `DB_ROLL_PTR`, in every clustered-index leaf record.
pub const SYSTEM_COLUMNS: u32 = 6 + 7;
/// A node pointer's child page number.
pub const CHILD_POINTER: u32 = 4;
/// `page_get_free_space_of_empty(true)`: `PAGE - SUPREMUM_END - PAGE_DIR - 2 slots`.
const EMPTY_FREE: u32 = PAGE - SUPREMUM_END - FIL_TRAILER - 2 * 2;
/// `dict_index_get_space_reserve()`: `srv_page_size / 16`, kept free on clustered leaves
/// filled by sequential inserts.
const SPACE_RESERVE: u32 = PAGE / 16;

/// `page_dir_calc_reserved_space`: directory bytes for `n` records (a slot per 4 records).
fn dir_reserved(n: u32) -> u32 {
    (2 * n).div_ceil(4)
}

/// Record sizes of one InnoDB index.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct InnodbIndex {
    /// A leaf record, header included.
    pub leaf_record: u32,
    /// A node pointer record (key fields + child page number), header included.
    pub node_record: u32,
    /// Whether this is the clustered index (the space reserve applies to its leaves).
    pub clustered: bool,
}

impl InnodbIndex {
    fn record(&self, node: &Node) -> u32 {
        if node.is_leaf() { self.leaf_record } else { self.node_record }
    }

    /// `page_get_data_size`: bytes of user records.
    fn data(&self, node: &Node) -> u32 {
        node.len() as u32 * self.record(node)
    }

    /// `btr_page_get_split_rec_to_right`'s test: the insert lands right after the record
    /// inserted last on this page (`PAGE_LAST_INSERT`), a sign of sequential inserts.
    fn after_last_insert(node: &Node, pos: usize) -> bool {
        pos > 0 && node.last_insert == Some(node.keys[pos - 1])
    }

    /// `btr_page_get_split_rec_to_left`'s test: the insert lands right before the last insert,
    /// not at the start of the page.
    fn before_last_insert(node: &Node, pos: usize) -> bool {
        pos >= 2 && pos < node.len() && node.last_insert == Some(node.keys[pos])
    }
}

impl SplitRules for InnodbIndex {
    /// `btr_cur_optimistic_insert`: the record must fit in what a reorganised page would have
    /// free (`page_get_max_insert_size_after_reorganize`), and on a clustered leaf with at least
    /// two records that is being filled sequentially, `srv_page_size / 16` must stay free
    /// beyond it ("reserve enough free space for future updates of records").
    fn fits(&self, node: &Node, pos: usize) -> bool {
        let rec = self.record(node);
        let n = node.len() as u32;
        let max_size = EMPTY_FREE.saturating_sub(self.data(node) + dir_reserved(n + 1));
        if max_size < rec {
            return false;
        }
        let sequential = Self::after_last_insert(node, pos) || Self::before_last_insert(node, pos);
        !(node.is_leaf() && self.clustered && n >= 2 && SPACE_RESERVE + rec > max_size && sequential)
    }

    /// `btr_page_split_and_insert`'s choice of the first record of the new page: after the
    /// last insert (`btr_page_get_split_rec_to_right`) all records from the second one after
    /// the insert point move, or none when fewer follow, so the new record goes to the new page
    /// and the old one stays full; before the last insert (`…_to_left`) the split falls at the
    /// insert point; otherwise at the middle record (`page_get_middle_rec`: the
    /// `(n + 2) / 2`-th), the new record going to whichever half it sorts into. The new page
    /// is the right half in the model in every case (InnoDB allocates the left half for
    /// `FSP_DOWN` splits; only page numbers differ).
    fn split_at(&self, node: &Node, pos: usize, _: u128) -> usize {
        let n = node.len();
        if Self::after_last_insert(node, pos) {
            return if pos + 2 > n { pos } else { pos + 2 };
        }
        if Self::before_last_insert(node, pos) {
            return pos - 1;
        }
        if n <= 1 {
            return pos.max(1);
        }
        let middle = (n + 2) / 2 - 1;
        if pos <= middle { middle + 1 } else { middle }
    }

    /// Everything up to the heap top, the directory and the trailer.
    fn image_bytes(&self, node: &Node) -> u32 {
        SUPREMUM_END + self.data(node) + 2 * directory_slots(node.len() as u32) + FIL_TRAILER
    }

    /// The share pkbench's `.ibd` reader reports (`engines::mariadb::physical::from_ibd`):
    /// `(PAGE_HEAP_TOP − PAGE_GARBAGE + 2 × PAGE_N_DIR_SLOTS + FIL trailer) / page size`.
    fn fill(&self, node: &Node) -> f64 {
        f64::from(self.image_bytes(node)) / f64::from(PAGE)
    }
}

/// Directory slots of a page of `n` records: the infimum's and the supremum's, plus one per
/// four records (`PAGE_DIR_SLOT_MIN_N_OWNED`; slots own 4–8 records, and appends leave them
/// at 4). An approximation: the real count depends on the insert history (±0.3% of a page).
fn directory_slots(n: u32) -> u32 {
    2 + n / 4
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::predict::server::tree::NO_PAGE;

    fn page(n: usize, last: Option<usize>) -> Node {
        let keys: Vec<u128> = (0..n as u128).map(|k| k * 10).collect();
        let last_insert = last.map(|i| keys[i]);
        Node { keys, next: NO_PAGE, last_insert, ..Node::default() }
    }

    #[test]
    fn sequential_clustered_leaves_keep_a_sixteenth_free() {
        let pk = InnodbIndex { leaf_record: 77, node_record: 17, clustered: true };
        let full = (0..400).find(|&n| !pk.fits(&page(n, n.checked_sub(1)), n)).unwrap();
        let fill = pk.fill(&page(full, None));
        assert!((0.92..0.95).contains(&fill), "{full} records, fill {fill}");
        // Appends split at the insert point: the old page keeps every record.
        assert_eq!(pk.split_at(&page(full, Some(full - 1)), full, 0), full);
        // Random inserts fill the page completely, then split in the middle.
        let random = (0..400).find(|&n| !pk.fits(&page(n, None), n / 2)).unwrap();
        assert!(random > full);
        assert_eq!(pk.split_at(&page(random, None), 3, 0), (random + 2) / 2);
    }
}
