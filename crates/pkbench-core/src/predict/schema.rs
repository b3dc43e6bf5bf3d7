//! `predict --schema` on SQLite: the key table of a user's schema laid out tree by tree — the
//! table (a rowid table, or `WITHOUT ROWID` clustered by the key) and every index — and filled
//! with the rows `run --schema` would insert, through the same page-by-page B-tree model as
//! `predict`.
//!
//! Two passes over the rows: the first measures each tree's mean record (SQLite's record format,
//! value by value, with the column's affinity), the second inserts every row's key into each
//! tree, in the row's order, with cells of that mean size. Index keys are the indexed values in
//! an order-preserving 96-bit prefix, ties broken by the rowid (or the key a `WITHOUT ROWID`
//! table's index carries).

use super::layout::{TreeKind, TreeLayout, bytes_key, int_body_len, int_key, varint_len};
use super::tree::{BTree, Pager};
use crate::Error;
use crate::engines::wire::{KeySlot, Param};
use crate::generators::Key;
use crate::results::BtreeStats;
use crate::schema::Source;
use crate::strategy::{PrimaryIndex, Storage, Strategy};
use crate::values::SqlType;
use crate::workloads::OwnSchema;

/// One tree of the key table.
struct Tree {
    /// As `run --schema` names it (`accounts`, `accounts.accounts_email`).
    name: String,
    kind: TreeKind,
    /// Table columns in the record, in order (the table's own tree: all).
    columns: Vec<usize>,
    /// Whether the record ends with the rowid (an index of a rowid table).
    carries_rowid: bool,
    /// Whether the record ends with the key (an index of a `WITHOUT ROWID` table).
    carries_key: bool,
    /// Sum of record bytes over the rows (without a carried rowid's body).
    record_bytes: u64,
}

/// The key table's trees after `workload`'s rows for `strategy`, as `dbstat` would report them,
/// on `page_size`-byte pages.
pub fn predict_sqlite(workload: &OwnSchema, strategy: &Strategy, page_size: u32) -> Result<Vec<BtreeStats>, Error> {
    let plan = workload.plan();
    let table = plan.key_table();
    let key_column = plan.fills[plan.key].sources.iter().position(|s| *s == Source::Key).unwrap_or(0);
    let integer_key = strategy.primary.storage == Storage::Integer;
    let rowid_table = integer_key || strategy.index != PrimaryIndex::Clustered;
    let mut trees = vec![Tree {
        name: table.name.clone(),
        kind: if rowid_table { TreeKind::Table } else { TreeKind::Index },
        columns: (0..table.columns.len()).collect(),
        carries_rowid: false,
        carries_key: false,
        record_bytes: 0,
    }];
    if rowid_table && !integer_key {
        trees.push(index_tree(format!("{0}.sqlite_autoindex_{0}_1", table.name), vec![key_column], true));
    }
    for (n, index) in table.indexes.iter().enumerate() {
        let columns: Vec<usize> = index
            .columns
            .iter()
            .filter_map(|c| table.columns.iter().position(|x| x.name.eq_ignore_ascii_case(c)))
            .collect();
        let name = index.name.clone().unwrap_or_else(|| format!("{}_idx{}", table.name, n + 1));
        let mut t = index_tree(format!("{}.{name}", table.name), columns, rowid_table);
        t.carries_key = !rowid_table && !t.columns.contains(&key_column);
        trees.push(t);
    }
    let types: Vec<Option<SqlType>> = plan.fills[plan.key]
        .sources
        .iter()
        .map(|s| match s {
            Source::Value(ty) | Source::Sequence(ty) => Some(*ty),
            _ => None,
        })
        .collect();
    let storage = strategy.primary.storage;
    // Pass 1: each tree's mean record.
    let mut slot = KeySlot::default();
    workload.key_rows(strategy, &mut |_, key, columns, params| {
        let value = |c: usize| columns.iter().position(|x| *x == c).map(|i| params[i]);
        for t in &mut trees {
            let mut header = 1;
            let mut body = 0;
            for &c in &t.columns {
                let (h, b) = if c == key_column && t.kind == TreeKind::Table {
                    // The rowid alias is stored as NULL; another rowid-table key as itself.
                    match key {
                        Some(k) if !integer_key => serial(slot.bind(k, storage), None),
                        _ => (1, 0),
                    }
                } else if c == key_column {
                    match key {
                        Some(k) => serial(slot.bind(k, storage), None),
                        None => (1, 0),
                    }
                } else {
                    value(c).map_or((1, 0), |p| serial(p, types[c]))
                };
                header += h;
                body += b;
            }
            if t.carries_key
                && let Some(k) = key
            {
                let (h, b) = serial(slot.bind(k, storage), None);
                header += h;
                body += b;
            }
            if t.carries_rowid {
                // The rowid's serial type; its body is sized per row by the model.
                header += 1;
            }
            t.record_bytes += header + body;
        }
    })?;
    let rows = workload.rows().max(1);
    let mut pager = Pager::new(page_size, 1 << 40, false);
    let mut models: Vec<BTree> = trees
        .iter()
        .map(|t| {
            let mean = (t.record_bytes as f64 / rows as f64).round() as u32;
            let layout = TreeLayout::with_record(
                &t.name,
                t.kind,
                rowid_table && t.kind == TreeKind::Table,
                mean,
                t.carries_rowid,
            );
            BTree::create(&mut pager, layout)
        })
        .collect();
    // Pass 2: every row's key into every tree, in the row's order.
    workload.key_rows(strategy, &mut |rowid, key, columns, params| {
        let value = |c: usize| columns.iter().position(|x| *x == c).map(|i| params[i]);
        let row_key = match key {
            Some(Key::Int(v)) => int_key(v),
            Some(Key::Uuid(b)) => bytes_key(b),
            None => int_key(rowid),
        };
        let rowid = match key {
            Some(Key::Int(v)) if integer_key => v,
            _ => rowid,
        };
        for (i, (t, model)) in trees.iter().zip(models.iter_mut()).enumerate() {
            // The table's own tree, and an index on the key alone, are in key order.
            let k = if i == 0 || t.columns == [key_column] {
                row_key
            } else {
                let tie = if t.carries_rowid { rowid as u32 } else { row_key as u32 };
                let mut prefix = Prefix::default();
                for &c in &t.columns {
                    match value(c) {
                        Some(p) => prefix.push(p, types[c]),
                        None => prefix.push_key(row_key),
                    }
                }
                (prefix.value() << 32) | u128::from(tie)
            };
            model.insert(&mut pager, k, rowid);
        }
    })?;
    Ok(trees.iter().zip(&models).map(|(t, m)| BtreeStats { name: t.name.clone(), ..m.stats(&pager) }).collect())
}

fn index_tree(name: String, columns: Vec<usize>, carries_rowid: bool) -> Tree {
    Tree { name, kind: TreeKind::Index, columns, carries_rowid, carries_key: false, record_bytes: 0 }
}

/// A value's serial-type bytes and body bytes in a SQLite record, under the column's affinity.
fn serial(p: Param<'_>, ty: Option<SqlType>) -> (u64, u64) {
    let sized = |serial: u64, n: u64| (u64::from(varint_len(serial)), n);
    match (p, ty) {
        (Param::Null, _) => (1, 0),
        (Param::Int(v), _) => (1, u64::from(int_body_len(v))),
        // NUMERIC and REAL affinity store a decimal or float text as an 8-byte REAL.
        (Param::Text(_), Some(SqlType::Float | SqlType::Decimal { .. })) => (1, 8),
        (Param::Text(t), _) => sized(13 + 2 * t.len() as u64, t.len() as u64),
        (Param::Bytes(b), _) => sized(12 + 2 * b.len() as u64, b.len() as u64),
        (Param::Uuid(_), _) => sized(12 + 32, 16),
    }
}

/// The first 12 bytes of an index entry's values in an order-preserving form.
#[derive(Default)]
struct Prefix {
    bytes: Vec<u8>,
}

impl Prefix {
    fn push(&mut self, p: Param<'_>, ty: Option<SqlType>) {
        match (p, ty) {
            (Param::Null, _) => self.bytes.push(0),
            (Param::Int(v), _) => self.bytes.extend_from_slice(&((v as u64) ^ (1 << 63)).to_be_bytes()),
            (Param::Text(t), Some(SqlType::Float | SqlType::Decimal { .. })) => {
                let f: f64 = t.parse().unwrap_or(0.0);
                let bits = f.to_bits();
                let sortable = if f.is_sign_negative() { !bits } else { bits | (1 << 63) };
                self.bytes.extend_from_slice(&sortable.to_be_bytes());
            }
            (Param::Text(t), _) => {
                self.bytes.extend_from_slice(t.as_bytes());
                self.bytes.push(0);
            }
            (Param::Bytes(b), _) => {
                self.bytes.extend_from_slice(b);
                self.bytes.push(0);
            }
            (Param::Uuid(b), _) => self.bytes.extend_from_slice(&b),
        }
    }

    fn push_key(&mut self, key: u128) {
        self.bytes.extend_from_slice(&key.to_be_bytes());
    }

    fn value(&self) -> u128 {
        let mut b = [0u8; 12];
        let n = self.bytes.len().min(12);
        b[..n].copy_from_slice(&self.bytes[..n]);
        let mut v = 0u128;
        for x in b {
            v = (v << 8) | u128::from(x);
        }
        v
    }
}
