//! `predict --schema` on SQLite: the table (a rowid table, or `WITHOUT ROWID` clustered by the
//! key) and every index, through the same page-by-page B-tree model as `predict`. Records are
//! measured in SQLite's record format, value by value, with the column's affinity; index keys
//! tie on the rowid (or the key a `WITHOUT ROWID` table's index carries).

use super::prefix::index_key;
use super::{KeyRanks, KeyTable, mean, value};
use crate::Error;
use crate::engines::wire::KeySlot;
use crate::generators::Key;
use crate::predict::layout::{TreeKind, TreeLayout, bytes_key, int_body_len, int_key, varint_len};
use crate::predict::tree::{BTree, Pager};
use crate::results::BtreeStats;
use crate::strategy::{PrimaryIndex, Storage, Strategy};
use crate::values::Param;
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
    let shape = KeyTable::new(workload.plan(), strategy);
    let (table, key_column, types) = (shape.table, shape.key_column, &shape.types);
    let integer_key = strategy.primary.storage == Storage::Integer;
    let rowid_table = integer_key || strategy.index != PrimaryIndex::Clustered;
    let mut trees = vec![Tree {
        name: table.name.clone(),
        kind: if rowid_table { TreeKind::Table } else { TreeKind::Index },
        columns: (0..shape.width).collect(),
        carries_rowid: false,
        carries_key: false,
        record_bytes: 0,
    }];
    if rowid_table && !integer_key {
        trees.push(index_tree(format!("{0}.sqlite_autoindex_{0}_1", table.name), vec![key_column], true));
    }
    for index in &shape.indexes {
        let mut t = index_tree(shape.tree_name(&index.name), index.columns.clone(), rowid_table);
        t.carries_key = !rowid_table && !t.columns.contains(&key_column);
        trees.push(t);
    }
    let storage = strategy.primary.storage;
    // Pass 1: each tree's mean record.
    let mut slot = KeySlot::default();
    workload.key_rows(strategy, &mut |_, key, columns, params| {
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
                    value(columns, params, c).map_or((1, 0), |p| serial(p, types[c]))
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
    let rows = workload.rows();
    let mut pager = Pager::new(page_size, 1 << 40, false);
    let mut models: Vec<BTree> = trees
        .iter()
        .map(|t| {
            let layout = TreeLayout::with_record(
                &t.name,
                t.kind,
                rowid_table && t.kind == TreeKind::Table,
                mean(t.record_bytes, rows),
                t.carries_rowid,
            );
            BTree::create(&mut pager, layout)
        })
        .collect();
    let order = |key, rowid| match key {
        Some(Key::Int(v)) => int_key(v),
        Some(Key::Uuid(b)) => bytes_key(b),
        None => int_key(rowid),
    };
    // Indexes of a `WITHOUT ROWID` table tie on the key.
    let ranks = if rowid_table { None } else { Some(KeyRanks::new(workload, strategy, order)?) };
    // Pass 2: every row's key into every tree, in the row's order.
    workload.key_rows(strategy, &mut |rowid, key, columns, params| {
        let row_key = order(key, rowid);
        let rowid = match key {
            Some(Key::Int(v)) if integer_key => v,
            _ => rowid,
        };
        for (i, (t, model)) in trees.iter().zip(models.iter_mut()).enumerate() {
            // The table's own tree, and an index on the key alone, are in key order.
            let k = if i == 0 || t.columns == [key_column] {
                row_key
            } else {
                let tie = match &ranks {
                    Some(r) if !t.carries_rowid => r.rank(row_key),
                    _ => rowid as u32,
                };
                index_key(&t.columns, |c| value(columns, params, c), types, row_key, tie)
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
