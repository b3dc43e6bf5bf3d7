//! Row and key sizes: which B-trees a strategy's table needs on SQLite and how many bytes each
//! cell takes, following SQLite's file format (<https://sqlite.org/fileformat2.html>, §1.6 B-tree
//! pages and §2.1 record format).

use crate::Error;
use crate::strategy::{KeySource, PrimaryIndex, SecondaryLookup, Storage, Strategy};

/// The SQLite page header of a leaf (8 bytes) and an interior page (12 bytes).
pub const LEAF_HEADER: u32 = 8;
/// See [`LEAF_HEADER`].
pub const INTERIOR_HEADER: u32 = 12;
/// Bytes per cell pointer in a page's cell-pointer array.
pub const CELL_POINTER: u32 = 2;
/// Bytes SQLite's page cache spends per page beyond the page itself (`szExtra`, the `MemPage`
/// header of the bundled build), used to turn `cache_size=-KiB` into pages the way
/// `numberOfCachePages()` does.
pub const CACHE_EXTRA_BYTES: u64 = 136;

/// Name of the mapping table of `…-map` strategies (as `engines::sqlite` names it; the model
/// imports no engine code).
const MAP_TABLE: &str = "bench_map";

/// Which value orders a tree's entries.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TreeKey {
    /// The rowid: an engine-assigned counter (1, 2, 3, …).
    RowidCounter,
    /// The strategy's primary key as the client generates it.
    Primary,
    /// The strategy's external key.
    Secondary,
}

/// SQLite's two kinds of B-tree.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TreeKind {
    /// A rowid table: leaves hold rows, interior pages hold copies of rowids ("leaf data").
    Table,
    /// An index or `WITHOUT ROWID` table: every entry, in leaves and interior pages, is a record.
    Index,
}

/// One column of a record, for its serial type and size.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Column {
    /// `INTEGER PRIMARY KEY` alias, stored as NULL.
    Null,
    /// A 64-bit integer value (its size depends on the value; see [`int_body_len`]).
    Int,
    /// A BLOB or TEXT of this many bytes.
    Bytes(u32),
}

/// One B-tree of a strategy's table, with its cell sizes.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TreeLayout {
    /// Name as `dbstat` reports it (`bench`, `sqlite_autoindex_bench_1`, …).
    pub name: String,
    /// Table or index tree.
    pub kind: TreeKind,
    /// What orders the entries.
    pub key: TreeKey,
    /// Whether the key is the rowid (its varint is part of every table cell).
    key_is_rowid: bool,
    columns: Vec<Column>,
    /// Record bytes of every column except integer values (header + fixed bodies).
    fixed_record: u32,
    /// Integer-valued columns (their bodies depend on the value).
    int_columns: u32,
}

/// Every B-tree a strategy creates, in creation order (root pages 2, 3, …).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Layout {
    /// The trees.
    pub trees: Vec<TreeLayout>,
    /// Page size, bytes.
    pub page_size: u32,
}

/// A 64-bit integer as an order-preserving 128-bit key.
pub fn int_key(v: i64) -> u128 {
    (i128::from(v) - i128::from(i64::MIN)) as u128
}

/// The integer [`int_key`] made `key` from.
pub fn key_int(key: u128) -> i64 {
    (key as i128 + i128::from(i64::MIN)) as i64
}

/// A 16-byte key (big-endian, so byte order is key order) as a 128-bit key. Text forms of
/// these keys (hyphenated lowercase hex, Crockford base32) sort the same way.
pub fn bytes_key(bytes: [u8; 16]) -> u128 {
    u128::from_be_bytes(bytes)
}

/// Length of SQLite's variable-length integer encoding of `v`.
pub fn varint_len(v: u64) -> u32 {
    match v {
        0..=0x7f => 1,
        0x80..=0x3fff => 2,
        0x4000..=0x1f_ffff => 3,
        0x20_0000..=0xfff_ffff => 4,
        0x1000_0000..=0x7_ffff_ffff => 5,
        0x8_0000_0000..=0x3ff_ffff_ffff => 6,
        0x400_0000_0000..=0x1_ffff_ffff_ffff => 7,
        0x2_0000_0000_0000..=0xff_ffff_ffff_ffff => 8,
        _ => 9,
    }
}

/// Bytes of an integer's value in a record (serial types 8/9 for 0 and 1, then 1–6).
pub(super) fn int_body_len(v: i64) -> u32 {
    match v {
        0 | 1 => 0,
        -128..=127 => 1,
        -32768..=32767 => 2,
        -8_388_608..=8_388_607 => 3,
        -2_147_483_648..=2_147_483_647 => 4,
        -140_737_488_355_328..=140_737_488_355_327 => 6,
        _ => 8,
    }
}

fn key_bytes(storage: Storage) -> Column {
    match storage {
        Storage::Integer => Column::Int,
        s => Column::Bytes(s.value_bytes()),
    }
}

/// Bytes of client-generated key material a row of `strategy` carries (its BLOB or TEXT keys,
/// primary and external; an integer key counts 0): what binding, copying and comparing keys
/// costs beyond an integer row.
pub fn key_bytes_per_row(strategy: &Strategy) -> u32 {
    std::iter::once(strategy.primary.storage)
        .chain(strategy.secondary.map(|s| s.storage))
        .map(|s| match key_bytes(s) {
            Column::Bytes(n) => n,
            Column::Int | Column::Null => 0,
        })
        .sum()
}

/// Why the model cannot lay out `strategy` on SQLite, if it cannot: keys SQLite itself cannot
/// store, and the time-swapped binary form, whose byte order the model does not reproduce.
fn unmodelled(strategy: &Strategy) -> Option<&'static str> {
    let storages = std::iter::once(strategy.primary.storage).chain(strategy.secondary.map(|s| s.storage));
    if matches!(strategy.primary.source, KeySource::Server(_)) {
        Some("the server generates these keys; SQLite (and so the SQLite model) has no such column default")
    } else if storages.clone().any(|s| s == Storage::MariaDbUuid) {
        Some("MariaDB's UUID type does not exist on SQLite")
    } else if storages.clone().any(|s| s == Storage::Binary16TimeSwapped) {
        Some("the model orders keys by their UUID bytes, not by the time-swapped form")
    } else {
        None
    }
}

impl TreeLayout {
    /// A tree whose records are `record_bytes` long (header and body; an index record that ends
    /// with the rowid counts the rowid's serial type but not its body, which is sized per row):
    /// a user's table or index of known mean record size (`predict --schema`).
    pub fn with_record(name: &str, kind: TreeKind, key_is_rowid: bool, record_bytes: u32, carries_rowid: bool) -> Self {
        let fixed = 1 + u32::from(carries_rowid);
        // One BLOB column of n bytes: its serial type takes 1 byte up to 57 bytes, else 2.
        let n = match record_bytes.saturating_sub(fixed + 1) {
            n if n <= 57 => n,
            _ => record_bytes.saturating_sub(fixed + 2),
        };
        let mut columns = vec![Column::Bytes(n)];
        if carries_rowid {
            columns.push(Column::Int);
        }
        TreeLayout::new(name, kind, TreeKey::Primary, key_is_rowid, columns)
    }

    fn new(name: &str, kind: TreeKind, key: TreeKey, key_is_rowid: bool, columns: Vec<Column>) -> Self {
        let mut t =
            TreeLayout { name: name.to_string(), kind, key, key_is_rowid, columns, fixed_record: 0, int_columns: 0 };
        t.int_columns = t.columns.iter().filter(|c| **c == Column::Int).count() as u32;
        // With value 0 an integer has an empty body (serial type 8), so this is the rest.
        t.fixed_record = t.record_len_slow(0);
        t
    }

    /// Record size (header + body) when integer columns hold `int_value`.
    #[inline]
    fn record_len(&self, int_value: i64) -> u32 {
        self.fixed_record + self.int_columns * int_body_len(int_value)
    }

    /// Record size computed column by column.
    fn record_len_slow(&self, int_value: i64) -> u32 {
        let mut header = 0;
        let mut body = 0;
        for c in &self.columns {
            let (serial, len) = match *c {
                Column::Null => (0, 0),
                Column::Int => (1, int_body_len(int_value)),
                // BLOB serial type 12+2n; TEXT 13+2n has the same varint length.
                Column::Bytes(n) => (12 + 2 * u64::from(n), n),
            };
            header += varint_len(serial);
            body += len;
        }
        // The header's own length varint counts itself; it is one byte for any record here.
        header + 1 + body
    }

    /// Bytes of a leaf cell (without its 2-byte pointer) holding `key`; `rowid` is the row's
    /// rowid (used by tables and by index records that carry it).
    pub fn leaf_cell(&self, key: u128, rowid: i64) -> u32 {
        let record = self.record_len(rowid);
        match self.kind {
            TreeKind::Table => varint_len(u64::from(record)) + varint_len(key_int(key) as u64) + record,
            TreeKind::Index => varint_len(u64::from(record)) + record,
        }
        .max(4)
    }

    /// The size [`TreeLayout::leaf_cell`] gives every key from `lo` to `hi`, if it gives them
    /// all the same: an index record's size does not depend on its key; a table cell's does
    /// through its rowid's varint, whose length grows with the rowid (a negative one takes nine
    /// bytes).
    pub fn uniform_leaf_cell(&self, lo: u128, hi: u128, rowid: i64) -> Option<u32> {
        let size = self.leaf_cell(lo, rowid);
        let same_sign = (key_int(lo) < 0) == (key_int(hi) < 0);
        (self.kind == TreeKind::Index || (same_sign && self.leaf_cell(hi, rowid) == size)).then_some(size)
    }

    /// Bytes of an interior cell (without its pointer): a 4-byte child page number, then the
    /// rowid (tables) or the whole record (indexes).
    pub fn interior_cell(&self, key: u128, rowid: i64) -> u32 {
        match self.kind {
            TreeKind::Table => 4 + varint_len(key_int(key) as u64),
            TreeKind::Index => 4 + self.leaf_cell(key, rowid),
        }
    }

    /// Largest record SQLite keeps on the page (`maxLocal`); larger ones spill to overflow pages.
    fn max_local(&self, page_size: u32) -> u32 {
        match self.kind {
            TreeKind::Table => page_size - 35,
            TreeKind::Index => (page_size - 12) * 64 / 255 - 23,
        }
    }

    /// Whether cells differ in size with the rowid they carry, not their key (an index whose
    /// records end with the rowid).
    pub fn sizes_vary_with_rowid(&self) -> bool {
        self.kind == TreeKind::Index && self.int_columns > 0
    }

    /// Whether the tree's key is the rowid (table trees).
    pub fn key_is_rowid(&self) -> bool {
        self.key_is_rowid
    }
}

impl Layout {
    /// SQLite's trees for `strategy` with `payload_bytes` per row, as `engines::sqlite` creates
    /// them (see `engines/sqlite/schema.rs`).
    pub fn sqlite(strategy: &Strategy, payload_bytes: u32, page_size: u32) -> Result<Layout, Error> {
        use Column::{Bytes, Int, Null};
        if let Some(reason) = unmodelled(strategy) {
            return Err(Error::Unsupported {
                strategy: strategy.name.into(),
                engine: "sqlite-model".into(),
                reason: reason.into(),
            });
        }
        let primary = strategy.primary.storage;
        let payload = Bytes(payload_bytes);
        let secondary = strategy.secondary;
        let mut row: Vec<Column> = Vec::new();
        let integer_pk = primary == Storage::Integer;
        if integer_pk && strategy.index == PrimaryIndex::HeapWithIndex {
            return Err(Error::Unsupported {
                strategy: strategy.name.into(),
                engine: "sqlite".into(),
                reason: "an INTEGER PRIMARY KEY is always the rowid itself, so it cannot be a separate index".into(),
            });
        }
        row.push(if integer_pk { Null } else { key_bytes(primary) });
        if let Some(s) = secondary {
            row.push(key_bytes(s.storage));
        }
        row.push(payload);
        let mut trees = Vec::new();
        let rowid_table = integer_pk || strategy.index == PrimaryIndex::HeapWithIndex;
        if rowid_table {
            let key = match (integer_pk, strategy.primary.source) {
                (true, KeySource::Client(_)) => TreeKey::Primary,
                _ => TreeKey::RowidCounter,
            };
            trees.push(TreeLayout::new("bench", TreeKind::Table, key, true, row));
            if !integer_pk {
                let cols = vec![key_bytes(primary), Int];
                trees.push(TreeLayout::new("sqlite_autoindex_bench_1", TreeKind::Index, TreeKey::Primary, false, cols));
            }
        } else {
            trees.push(TreeLayout::new("bench", TreeKind::Index, TreeKey::Primary, false, row));
        }
        if let Some(s) = secondary {
            let pk_col = if rowid_table { Int } else { key_bytes(primary) };
            let n = trees.iter().filter(|t| t.kind == TreeKind::Index && t.name.starts_with("sqlite_auto")).count();
            match s.lookup {
                SecondaryLookup::UniqueIndex => trees.push(TreeLayout::new(
                    &format!("sqlite_autoindex_bench_{}", n + 1),
                    TreeKind::Index,
                    TreeKey::Secondary,
                    false,
                    vec![key_bytes(s.storage), pk_col],
                )),
                SecondaryLookup::NoIndex => {}
                SecondaryLookup::MappingTable => trees.push(TreeLayout::new(
                    MAP_TABLE,
                    TreeKind::Index,
                    TreeKey::Secondary,
                    false,
                    vec![key_bytes(s.storage), if integer_pk { Int } else { key_bytes(primary) }],
                )),
            }
        }
        let layout = Layout { trees, page_size };
        for t in &layout.trees {
            let record = t.record_len(i64::MAX);
            let limit = t.max_local(page_size);
            if record > limit {
                return Err(Error::InvalidInput(format!(
                    "--payload {payload_bytes} makes a '{}' record of {record} bytes, more than the {limit} bytes SQLite keeps on a {page_size}-byte page; the model does not simulate overflow pages: use a smaller --payload or a larger --page-size",
                    t.name
                )));
            }
        }
        Ok(layout)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::strategy::find;

    fn layout(name: &str) -> Layout {
        Layout::sqlite(find(name).unwrap(), 50, 4096).unwrap()
    }

    #[test]
    fn cell_sizes_follow_the_record_format() {
        // int: payload varint 1 + rowid varint 3 + record (3-byte header + 50) = 57.
        let t = &layout("int").trees[0];
        assert_eq!(t.leaf_cell(int_key(1_000_000), 1_000_000), 57);
        assert_eq!(t.interior_cell(int_key(1_000_000), 0), 7);
        assert_eq!(key_int(int_key(-5)), -5);
        assert!(int_key(-1) < int_key(0));
        // uuid4: payload varint 1 + record (3 + 16 + 50) = 70; interior adds the child pointer.
        let t = &layout("uuid4").trees[0];
        assert_eq!(t.leaf_cell(0, 0), 70);
        assert_eq!(t.interior_cell(0, 0), 74);
        assert_eq!(layout("uuid4-text").trees[0].leaf_cell(0, 0), 90);
    }

    #[test]
    fn precomputed_record_lengths_match_the_column_walk() {
        for name in ["int", "uuid4", "int+uuid4", "uuid7+uuid4", "uuid4-rowid", "snowflake"] {
            for t in &layout(name).trees {
                for v in [0, 1, 5, 300, 70_000, 1 << 40, i64::MAX, -3] {
                    assert_eq!(t.record_len(v), t.record_len_slow(v), "{name} {v}");
                }
            }
        }
    }

    #[test]
    fn a_unique_external_key_adds_an_index() {
        let l = layout("int+uuid4");
        assert_eq!(l.trees.len(), 2);
        assert_eq!(l.trees[1].name, "sqlite_autoindex_bench_1");
        assert_eq!(l.trees[1].key, TreeKey::Secondary);
        // (ext blob16, rowid 3 bytes): header 3, body 19, payload-size varint 1.
        assert_eq!(l.trees[1].leaf_cell(0, 1_000_000), 23);
        assert_eq!(layout("uuid7-rowid").trees.len(), 2);
        assert_eq!(layout("int+uuid4-noindex").trees.len(), 1);
    }

    #[test]
    fn overflow_payloads_are_refused() {
        let err = Layout::sqlite(find("uuid4").unwrap(), 5000, 4096).unwrap_err();
        assert!(err.to_string().contains("overflow pages"), "{err}");
    }
}
