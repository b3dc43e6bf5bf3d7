//! `predict --schema` on PostgreSQL: the key table's heap, laid out row by row with each row's
//! exact tuple (`heap_form_tuple`: header, null bitmap, aligned columns, short or long varlena
//! headers), its primary-key nbtree and every secondary nbtree, through the page model of
//! `predict --engine postgres` ([`crate::predict::server`]). Index tuples are measured as
//! `index_form_tuple` makes them and inserted with their mean size; ties break on the heap
//! TID, which follows the row's number.
//!
//! Not modelled: deduplication of repeated index values into posting lists (an index whose values
//! repeat is predicted larger than PostgreSQL makes it), TOAST (values over ~2 kB), and the free
//! space map handing a new row an earlier page with room left.

use super::feed::IndexFeed;
use super::prefix::index_key;
use super::{KeyTable, Unbuffered, mean, value};
use crate::Error;
use crate::keys::KeyRow;
use crate::predict::server::nbtree::{
    Composite, HEAP_TUPLE_HEADER, HeapTids, INDEX_TUPLE_HEADER, LINE_POINTER, Nbtree, ORDINAL_MAX_ITEM, PAGE,
    PAGE_HEADER, maxalign,
};
use crate::predict::server::pg_heap::column;
use crate::predict::server::postgres::ENGINE;
use crate::predict::server::tree::{Store, Tree};
use crate::predict::server::{ServerKey, refuse_unmodelled};
use crate::results::BtreeStats;
use crate::strategy::{KeySource, Storage, Strategy};
use crate::values::Param;
use crate::values::SqlType;
use crate::workloads::OwnSchema;
use std::rc::Rc;

/// `MaxHeapTuplesPerPage` for 8 kB pages.
const MAX_HEAP_TUPLES: u32 = 291;
/// The largest varlena with a 1-byte header (`VARATT_SHORT_MAX` less the header).
const SHORT_VARLENA: u32 = 126;
/// `TOAST_TUPLE_THRESHOLD`: larger rows are compressed or moved out of line.
const TOAST_THRESHOLD: u32 = 2032;

/// How PostgreSQL stores one value.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Stored {
    Null,
    /// `attlen` bytes aligned to `attalign` (a short varlena is never aligned: align 1).
    Fixed(u32, u32),
    /// A varlena of this many data bytes: a 1-byte header up to 126, else 4 bytes, int-aligned.
    Varlena(u32),
}

impl Stored {
    /// `heap_fill_tuple`: the data offset after this value, from `offset`.
    fn place(self, offset: u32) -> u32 {
        match self {
            Stored::Null => offset,
            Stored::Fixed(len, align) => offset.div_ceil(align) * align + len,
            Stored::Varlena(n) if n <= SHORT_VARLENA => offset + 1 + n,
            Stored::Varlena(n) => offset.div_ceil(4) * 4 + 4 + n,
        }
    }
}

/// A generated value of type `ty` as the table `schema::render` creates stores it.
fn stored(p: Param<'_>, ty: Option<SqlType>) -> Stored {
    let text = |p: Param<'_>| match p {
        Param::Text(t) => t.len() as u32,
        Param::Bytes(b) => b.len() as u32,
        _ => 0,
    };
    match (p, ty) {
        (Param::Null, _) => Stored::Null,
        (_, Some(SqlType::Integer(1 | 2))) => Stored::Fixed(2, 2),
        (_, Some(SqlType::Integer(3 | 4) | SqlType::Date)) => Stored::Fixed(4, 4),
        (_, Some(SqlType::Integer(_) | SqlType::Float | SqlType::Timestamp)) => Stored::Fixed(8, 8),
        (_, Some(SqlType::Bool)) => Stored::Fixed(1, 1),
        (_, Some(SqlType::Uuid)) => Stored::Fixed(16, 1),
        (Param::Text(t), Some(SqlType::Decimal { .. })) => Stored::Varlena(numeric_bytes(t)),
        (Param::Text(t), Some(SqlType::Json)) => Stored::Varlena(jsonb_bytes(t)),
        (Param::Int(_), _) => Stored::Fixed(8, 8),
        (Param::Uuid(_), _) => Stored::Fixed(16, 1),
        (p, _) => Stored::Varlena(text(p)),
    }
}

/// Bytes of a `numeric` in its short form (`make_result`): a 2-byte header and 2 bytes per
/// base-10000 digit, leading and trailing zero digits stripped.
fn numeric_bytes(text: &str) -> u32 {
    let text = text.trim_start_matches(['-', '+']);
    let (int, frac) = text.split_once('.').unwrap_or((text, ""));
    let int = int.trim_start_matches('0');
    let frac = frac.trim_end_matches('0');
    // Digit groups of four from the decimal point, on both sides.
    let mut groups: Vec<bool> = Vec::new();
    let lead = int.len() % 4;
    let mut chunks: Vec<&str> = Vec::new();
    if lead > 0 {
        chunks.push(&int[..lead]);
    }
    chunks.extend(int.as_bytes()[lead..].chunks(4).map(|c| std::str::from_utf8(c).unwrap_or("")));
    groups.extend(chunks.iter().map(|c| c.bytes().any(|b| b != b'0')));
    groups.extend(frac.as_bytes().chunks(4).map(|c| c.iter().any(|b| *b != b'0')));
    let first = groups.iter().position(|nz| *nz);
    let last = groups.iter().rposition(|nz| *nz);
    let digits = match (first, last) {
        (Some(f), Some(l)) => l - f + 1,
        _ => 0,
    };
    2 + 2 * digits as u32
}

/// Bytes of a `jsonb` value of this JSON text (`JsonbValueToJsonb`): a container header of 4
/// bytes, a 4-byte entry per key and per value, keys and strings as their bytes, numbers as
/// int-aligned `numeric`s, nested containers int-aligned. Text that does not parse counts as
/// its length.
fn jsonb_bytes(text: &str) -> u32 {
    fn size(v: &serde_json::Value, offset: u32) -> u32 {
        use serde_json::Value as J;
        let align = |o: u32| o.div_ceil(4) * 4;
        match v {
            J::Null | J::Bool(_) => offset,
            J::String(s) => offset + s.len() as u32,
            // A numeric varlena with its 4-byte header.
            J::Number(n) => align(offset) + 4 + numeric_bytes(&n.to_string()),
            J::Array(items) => {
                let mut o = align(offset) + 4 + 4 * items.len() as u32;
                for item in items {
                    o = size(item, o);
                }
                o
            }
            J::Object(map) => {
                let mut o = align(offset) + 4 + 8 * map.len() as u32;
                o += map.keys().map(|k| k.len() as u32).sum::<u32>();
                for item in map.values() {
                    o = size(item, o);
                }
                o
            }
        }
    }
    match serde_json::from_str::<serde_json::Value>(text) {
        // Scalars at the top level sit in a one-element array container.
        Ok(v @ (serde_json::Value::Object(_) | serde_json::Value::Array(_))) => size(&v, 0),
        Ok(v) => size(&serde_json::Value::Array(vec![v]), 0),
        Err(_) => text.len() as u32,
    }
}

/// The heap, page by page: appends go to the last page while the tuple fits
/// (`RelationGetBufferForTuple`, fillfactor 100), else a new page.
#[derive(Default)]
struct Heap {
    pages: u64,
    /// Bytes of tuples and line pointers on the last page, and its tuples.
    used: u32,
    tuples: u32,
    /// Free bytes of the pages before the last (`PageGetHeapFreeSpace`).
    free: u64,
}

impl Heap {
    fn free_of(used: u32) -> u32 {
        (PAGE - PAGE_HEADER).saturating_sub(used + LINE_POINTER)
    }

    /// Adds a tuple of `t_len` bytes.
    fn add(&mut self, t_len: u32) {
        let size = maxalign(t_len);
        if self.pages == 0 || self.tuples >= MAX_HEAP_TUPLES || Self::free_of(self.used) < size {
            if self.pages > 0 {
                self.free += u64::from(Self::free_of(self.used));
            }
            self.pages += 1;
            self.used = 0;
            self.tuples = 0;
        }
        self.used += size + LINE_POINTER;
        self.tuples += 1;
    }

    /// As `engines::postgres::physical` reports the heap: pages, and `100 − free_percent`.
    fn stats(&self, name: &str) -> BtreeStats {
        let bytes = self.pages * u64::from(PAGE);
        let free = self.free + u64::from(Self::free_of(self.used));
        BtreeStats {
            key_share: None,
            misses_per_1k_rows: None,
            index_blocks_touched_per_1k_rows: None,
            name: name.into(),
            kind: "table".into(),
            pages: self.pages,
            leaf_pages: self.pages,
            leaf_fill: if bytes == 0 { 0.0 } else { 1.0 - free as f64 / bytes as f64 },
            leaf_out_of_order: 0.0,
            size_bytes: bytes,
        }
    }
}

/// An nbtree of the key table.
struct Index {
    name: String,
    columns: Vec<usize>,
    /// Sum of leaf items (tuple and line pointer) over the rows.
    item_bytes: u64,
    /// The smallest and largest leaf item.
    item_range: (u32, u32),
}

impl Index {
    fn new(name: String, columns: Vec<usize>) -> Self {
        Index { name, columns, item_bytes: 0, item_range: (u32::MAX, 0) }
    }

    /// Adds a row's entry, `at(c)` being how the row stores column `c` (`index_form_tuple`).
    fn measure(&mut self, at: &dyn Fn(usize) -> Stored) {
        let (mut data, mut any_null) = (0, false);
        for &c in &self.columns {
            let s = at(c);
            any_null |= s == Stored::Null;
            data = s.place(data);
        }
        // `IndexInfoFindDataOffset`: a null bitmap (`IndexAttributeBitMapData`) after the header.
        let header = if any_null { maxalign(INDEX_TUPLE_HEADER + 4) } else { INDEX_TUPLE_HEADER };
        let item = maxalign(header + data) + LINE_POINTER;
        self.item_bytes += u64::from(item);
        self.item_range = (self.item_range.0.min(item), self.item_range.1.max(item));
    }

    /// The rules of this index's tree, its entries of their mean size over `rows`.
    fn rules(&self, rows: u64, types: &[Option<SqlType>], key: (usize, Option<u8>), tids: HeapTids) -> Nbtree {
        let item = mean(self.item_bytes, rows);
        Nbtree { leaf_item: item, pivot_item: item, composite: self.composite(types, key, tids) }
    }

    /// What a split of this index's leaves sees, for an index of several columns (`types`: the
    /// columns' types; `key`: the key column and its bytes in `prefix::index_key`'s encoding,
    /// `None` for text). `_bt_afternewitemoff` applies where every tuple is the same size and
    /// narrow enough.
    fn composite(&self, types: &[Option<SqlType>], key: (usize, Option<u8>), tids: HeapTids) -> Option<Composite> {
        if self.columns.len() < 2 {
            return None;
        }
        let first = self.columns[0];
        // Bytes of the first attribute in `prefix::index_key`'s encoding; text ends at a zero.
        let first_attr = match types.get(first).copied().flatten() {
            _ if first == key.0 => key.1,
            Some(SqlType::Text { .. } | SqlType::Binary { .. } | SqlType::Json) => None,
            Some(SqlType::Timestamp) => Some(10),
            Some(SqlType::Date) => Some(4),
            Some(SqlType::Uuid) => Some(16),
            _ => Some(8),
        };
        let (lo, hi) = self.item_range;
        let tids = (lo == hi && hi <= ORDINAL_MAX_ITEM).then_some(tids);
        Some(Composite { first_attr, tids })
    }
}

/// The key in `prefix::index_key`'s encoding: text, a client's integer, else 16 bytes.
fn key_attr(strategy: &Strategy) -> Option<u8> {
    match (strategy.primary.storage.text_encoding(), strategy.primary.source) {
        (Some(_), _) => None,
        (None, KeySource::Client(_)) if strategy.primary.storage == Storage::Integer => Some(8),
        _ => Some(16),
    }
}

/// How PostgreSQL stores column `c` of a row handed over by [`OwnSchema::key_rows`]: the key
/// column as `key`, the others as their values.
fn stored_at(shape: &KeyTable<'_>, key: Stored, columns: &[usize], params: &[Param<'_>], c: usize) -> Stored {
    if c == shape.key_column {
        key
    } else {
        value(columns, params, c).map_or(Stored::Null, |p| stored(p, shape.types[c]))
    }
}

/// Rows of the table whose entries give a time model's index entries their mean size.
const TIME_SAMPLE_ROWS: u64 = 20_000;

/// The key table's secondary indexes for the time model of `predict --engine postgres`
/// ([`crate::predict::server::postgres::PostgresModel::with_table`]): each fed index's tree
/// rules — entries of the mean size the table's first rows give, heap TIDs as that model's heap
/// of `per_page` rows a page places them — and the feed of every row's entries.
pub fn time_indexes(
    workload: &OwnSchema,
    strategy: &Strategy,
    per_page: u32,
) -> Result<(Vec<(String, Nbtree)>, IndexFeed), Error> {
    refuse_unmodelled(strategy, ENGINE)?;
    let shape = KeyTable::new(workload.plan(), strategy);
    let feed = IndexFeed::new(workload, strategy, &shape)?;
    let mut indexes: Vec<Index> =
        feed.indexes().iter().map(|(name, columns)| Index::new(name.clone(), columns.clone())).collect();
    let key = {
        let (len, align) = column(strategy.primary.storage);
        Stored::Fixed(len, align)
    };
    let sample = workload.rows().min(TIME_SAMPLE_ROWS);
    let mut rows = workload.key_row_stream(strategy)?;
    for _ in 0..sample {
        rows.next(&mut |_, _, columns, params| {
            for index in &mut indexes {
                index.measure(&|c| stored_at(&shape, key, columns, params, c));
            }
        })?;
    }
    let key = (shape.key_column, key_attr(strategy));
    let trees = indexes
        .iter()
        .map(|i| (i.name.clone(), i.rules(sample, &shape.types, key, HeapTids::Regular(per_page))))
        .collect();
    Ok((trees, feed))
}

/// The key table's heap and indexes after `workload`'s rows for `strategy`, as
/// `engines::postgres::physical` reports them.
pub(super) fn predict(workload: &OwnSchema, strategy: &Strategy) -> Result<Vec<BtreeStats>, Error> {
    refuse_unmodelled(strategy, ENGINE)?;
    let shape = KeyTable::new(workload.plan(), strategy);
    let (table, key_column, types) = (shape.table, shape.key_column, &shape.types);
    let key_stored = {
        let (len, align) = column(strategy.primary.storage);
        Stored::Fixed(len, align)
    };
    let mut indexes = vec![Index::new(format!("{}_pkey", table.name), vec![key_column])];
    indexes.extend(shape.indexes.iter().map(|i| Index::new(i.name.clone(), i.columns.clone())));
    let nulls = shape.width.div_ceil(8) as u32;
    // Pass 1: the heap, row by row, and each index's mean tuple.
    let mut heap = Heap::default();
    let mut widest = 0;
    // Each row's heap TID (block << 16 | offset), by row number.
    let mut tids = vec![0];
    workload.key_rows(strategy, &mut |_, _, columns, params| {
        let at = |c: usize| stored_at(&shape, key_stored, columns, params, c);
        let (mut data, mut any_null) = (0, false);
        for c in 0..shape.width {
            let s = at(c);
            any_null |= s == Stored::Null;
            data = s.place(data);
        }
        let header = maxalign(HEAP_TUPLE_HEADER + if any_null { nulls } else { 0 });
        widest = widest.max(header + data);
        heap.add(header + data);
        tids.push((heap.pages - 1) << 16 | u64::from(heap.tuples));
        for index in &mut indexes {
            index.measure(&at);
        }
    })?;
    if widest > TOAST_THRESHOLD {
        return Err(Error::InvalidInput(format!(
            "{}: rows of up to {widest} bytes, which TOAST would compress or move out of line; the PostgreSQL model does not simulate TOAST: narrow the wide columns' lengths in the values file",
            table.name
        )));
    }
    // Pass 2: every row's index keys, in the row's order.
    let rows = workload.rows();
    let mut store = Store::default();
    let tids = Rc::new(tids);
    let mut trees: Vec<Tree<Nbtree>> = indexes
        .iter()
        .map(|i| {
            let rules = i.rules(rows, types, (key_column, key_attr(strategy)), HeapTids::Listed(Rc::clone(&tids)));
            let mut tree = Tree::create(&mut store, &mut Unbuffered, &shape.tree_name(&i.name), "index", rules);
            tree.fastpath = true;
            tree
        })
        .collect();
    let order = ServerKey::Primary(strategy.primary.storage);
    workload.key_rows(strategy, &mut |rowid, key, columns, params| {
        let row_key = order.value(&KeyRow { primary: key, secondary: None }, rowid);
        for (index, tree) in indexes.iter().zip(trees.iter_mut()) {
            let k = if index.columns == [key_column] {
                row_key
            } else {
                index_key(&index.columns, |c| value(columns, params, c), types, row_key, rowid as u32)
            };
            tree.insert(&mut store, &mut Unbuffered, k);
        }
    })?;
    let mut out = vec![heap.stats(&table.name)];
    let mut stats: Vec<BtreeStats> = trees
        .iter()
        .map(|t| {
            let mut s = t.stats(&store, PAGE);
            // The metapage (block 0) is part of the relation.
            s.pages += 1;
            s.size_bytes += u64::from(PAGE);
            s
        })
        .collect();
    stats.sort_by(|a, b| a.name.cmp(&b.name));
    out.extend(stats);
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Sizes as `pg_column_size` reports them for stored values (less the 1-byte header).
    #[test]
    fn numeric_and_jsonb_values_take_what_postgresql_stores() {
        assert_eq!(numeric_bytes("1234.56"), 6);
        assert_eq!(numeric_bytes("0.5"), 4);
        assert_eq!(numeric_bytes("100000000"), 4);
        assert_eq!(numeric_bytes("0.00"), 2);
        assert_eq!(jsonb_bytes(r#"{"id":123,"name":"abc","active":true}"#), 51);
        assert_eq!(jsonb_bytes(r#"{"a":""}"#), 13);
        assert_eq!(jsonb_bytes("[1,2]"), 28);
    }

    #[test]
    fn heap_pages_fill_until_the_next_tuple_does_not_fit() {
        let mut heap = Heap::default();
        // 100-byte tuples: 104 bytes and a line pointer each; 75 fit in 8168 bytes.
        for _ in 0..76 {
            heap.add(100);
        }
        assert_eq!((heap.pages, heap.tuples), (2, 1));
        assert_eq!(Stored::Varlena(126).place(3), 130);
        assert_eq!(Stored::Varlena(127).place(3), 4 + 4 + 127);
        assert_eq!(Stored::Fixed(8, 8).place(3), 16);
    }
}
