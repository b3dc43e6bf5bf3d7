//! `predict --schema` on MariaDB's InnoDB: the key table clustered by its key (`PRIMARY`: leaves
//! hold whole rows), every secondary index (its columns and the primary key), and the index
//! InnoDB adds for a foreign key no index starts with, through the page model of `predict
//! --engine mariadb` ([`crate::predict::server`]). Records are measured in the DYNAMIC format
//! (header, null bitmap, variable lengths, columns as the types `schema::render` gives them in
//! the managed server's `latin1`) and inserted with their mean size.
//!
//! Not modelled: columns moved off the page (records over ~8 kB).

use super::prefix::index_key;
use super::{IndexShape, KeyRanks, KeyTable, Unbuffered, column_position, mean, value};
use crate::Error;
use crate::keys::KeyRow;
use crate::predict::server::ServerKey;
use crate::predict::server::innodb::{column, refuse};
use crate::predict::server::innodb_page::{CHILD_POINTER, InnodbIndex, PAGE, RECORD_HEADER, SYSTEM_COLUMNS};
use crate::predict::server::tree::{Store, Tree};
use crate::results::BtreeStats;
use crate::strategy::Strategy;
use crate::values::Param;
use crate::values::SqlType;

/// Characters of an unbounded text column an index keeps (`schema::render`'s `(255)` prefix).
const INDEX_PREFIX: u32 = 255;
/// Records over this many bytes would have columns moved off the page.
const MAX_ON_PAGE: u64 = 8000;

/// One field of a record: its bytes, and its length's bytes in the header (0: fixed length).
#[derive(Clone, Copy, Debug, Default)]
struct Field {
    bytes: u32,
    len_bytes: u32,
}

/// `rec_get_converted_size_comp`'s length bytes: one below 128 bytes or where the column can
/// never exceed 255, else two.
fn varying(len: u32, max: u32) -> Field {
    Field { bytes: len, len_bytes: if len < 128 || max <= 255 { 1 } else { 2 } }
}

/// Bytes of `DECIMAL(precision, scale)` (`decimal_bin_size`): 4 per nine digits on each side of
/// the point, and the rest packed.
fn decimal_bytes(precision: u8, scale: u8) -> u32 {
    const DIG2BYTES: [u32; 10] = [0, 1, 1, 2, 2, 3, 3, 4, 4, 4];
    let part = |digits: u32| digits / 9 * 4 + DIG2BYTES[(digits % 9) as usize];
    part(u32::from(precision.saturating_sub(scale))) + part(u32::from(scale))
}

/// A generated value of type `ty` in a record; `prefix` for an index keeping 255 characters of
/// an unbounded column.
fn field(p: Param<'_>, ty: Option<SqlType>, prefix: bool) -> Field {
    let fixed = |bytes| Field { bytes, len_bytes: 0 };
    let len = match p {
        Param::Text(t) => t.len() as u32,
        Param::Bytes(b) => b.len() as u32,
        _ => 0,
    };
    match (p, ty) {
        (Param::Null, _) => Field::default(),
        (_, Some(SqlType::Integer(1 | 2) | SqlType::Bool)) => fixed(2),
        (_, Some(SqlType::Integer(3 | 4))) => fixed(4),
        (_, Some(SqlType::Integer(_) | SqlType::Float | SqlType::Timestamp)) => fixed(8),
        (_, Some(SqlType::Date)) => fixed(3),
        (_, Some(SqlType::Uuid)) => fixed(16),
        (_, Some(SqlType::Decimal { precision, scale })) => fixed(decimal_bytes(precision, scale)),
        (_, Some(SqlType::Text { max_chars: Some(n) })) => varying(len, n),
        (_, Some(SqlType::Binary { max: Some(n) })) => varying(len, n),
        // TEXT, BLOB and JSON (utf8mb4 LONGTEXT: 4 bytes a character at most).
        (_, Some(SqlType::Json)) if prefix => varying(len.min(INDEX_PREFIX), 4 * INDEX_PREFIX),
        (_, Some(SqlType::Text { max_chars: None } | SqlType::Binary { max: None })) if prefix => {
            varying(len.min(INDEX_PREFIX), INDEX_PREFIX)
        }
        (_, Some(SqlType::Text { max_chars: None } | SqlType::Binary { max: None } | SqlType::Json)) => {
            varying(len, u32::MAX)
        }
        (Param::Int(_), None) => fixed(8),
        (Param::Uuid(_), None) => fixed(16),
        (_, None) => varying(len, u32::MAX),
    }
}

/// An index of the key table: its columns (the primary key's last, on a secondary index that
/// lacks it) and the sums of its records over the rows.
struct Index {
    name: String,
    clustered: bool,
    columns: Vec<usize>,
    /// Null bitmap bytes: one bit per nullable column.
    null_bytes: u32,
    leaf_bytes: u64,
    node_bytes: u64,
}

/// The key table's indexes after `workload`'s rows for `strategy`, as
/// `engines::mariadb::physical` reports them (the clustered index under the table's name).
pub(super) fn predict(workload: &crate::workloads::OwnSchema, strategy: &Strategy) -> Result<Vec<BtreeStats>, Error> {
    refuse(strategy)?;
    let shape = KeyTable::new(workload.plan(), strategy);
    let (table, key_column, types) = (shape.table, shape.key_column, &shape.types);
    let nullable = |columns: &[usize]| columns.iter().filter(|c| shape.nullable(**c)).count().div_ceil(8) as u32;
    let others: Vec<usize> = (0..shape.width).filter(|c| *c != key_column).collect();
    let mut indexes = vec![Index {
        name: table.name.clone(),
        clustered: true,
        null_bytes: nullable(&others),
        columns: std::iter::once(key_column).chain(others).collect(),
        leaf_bytes: 0,
        node_bytes: 0,
    }];
    for index in shape.indexes.iter().chain(&foreign_key_indexes(&shape)) {
        let mut columns = index.columns.clone();
        if !columns.contains(&key_column) {
            columns.push(key_column);
        }
        indexes.push(Index {
            name: shape.tree_name(&index.name),
            clustered: false,
            null_bytes: nullable(&index.columns),
            columns,
            leaf_bytes: 0,
            node_bytes: 0,
        });
    }
    let (key_len, key_varying) = column(strategy.primary.storage);
    let key_field = Field { bytes: key_len, len_bytes: u32::from(key_varying) };
    // Pass 1: each index's mean leaf and node-pointer record.
    let mut widest = 0;
    workload.key_rows(strategy, &mut |_, _, columns, params| {
        for index in &mut indexes {
            let mut record = RECORD_HEADER + index.null_bytes;
            for &c in &index.columns {
                let f = if c == key_column {
                    key_field
                } else {
                    value(columns, params, c).map_or(Field::default(), |p| field(p, types[c], !index.clustered))
                };
                record += f.bytes + f.len_bytes;
            }
            if index.clustered {
                widest = widest.max(u64::from(record + SYSTEM_COLUMNS));
                index.leaf_bytes += u64::from(record + SYSTEM_COLUMNS);
                index.node_bytes += u64::from(RECORD_HEADER + key_field.bytes + key_field.len_bytes + CHILD_POINTER);
            } else {
                // Node pointers of a secondary index hold every field, then the child page.
                index.leaf_bytes += u64::from(record);
                index.node_bytes += u64::from(record + CHILD_POINTER);
            }
        }
    })?;
    if widest > MAX_ON_PAGE {
        return Err(Error::InvalidInput(format!(
            "{}: records of up to {widest} bytes, whose longest columns InnoDB would move off the page; the InnoDB model keeps every column on the page: narrow the wide columns' lengths in the values file",
            table.name
        )));
    }
    // Pass 2: every row's keys, in the row's order.
    let rows = workload.rows();
    let mut store = Store::default();
    let mut trees: Vec<Tree<InnodbIndex>> = indexes
        .iter()
        .map(|i| {
            let rules = InnodbIndex {
                leaf_record: mean(i.leaf_bytes, rows),
                node_record: mean(i.node_bytes, rows),
                clustered: i.clustered,
            };
            let kind = if i.clustered { "table" } else { "index" };
            Tree::create(&mut store, &mut Unbuffered, &i.name, kind, rules)
        })
        .collect();
    let order = ServerKey::Primary(strategy.primary.storage);
    let order = |key, rowid| order.value(&KeyRow { primary: key, secondary: None }, rowid);
    let ranks = KeyRanks::new(workload, strategy, order)?;
    workload.key_rows(strategy, &mut |rowid, key, columns, params| {
        let row_key = order(key, rowid);
        for (index, tree) in indexes.iter().zip(trees.iter_mut()) {
            let k = if index.clustered {
                row_key
            } else {
                index_key(&index.columns, |c| value(columns, params, c), types, row_key, ranks.rank(row_key))
            };
            tree.insert(&mut store, &mut Unbuffered, k);
        }
    })?;
    Ok(trees.iter().map(|t| t.stats(&store, PAGE)).collect())
}

/// The indexes InnoDB creates for the key table's foreign keys that no index (nor the primary
/// key) starts with, named after their first column as MariaDB names them.
fn foreign_key_indexes(shape: &KeyTable<'_>) -> Vec<IndexShape> {
    let mut out: Vec<IndexShape> = Vec::new();
    for fk in &shape.table.foreign_keys {
        let columns: Vec<usize> = fk.columns.iter().filter_map(|c| column_position(shape.table, c)).collect();
        let covered = std::iter::once(&[shape.key_column][..])
            .chain(shape.indexes.iter().map(|i| &i.columns[..]))
            .chain(out.iter().map(|i| &i.columns[..]))
            .any(|existing| existing.starts_with(&columns));
        if !covered && !columns.is_empty() {
            out.push(IndexShape { name: shape.table.columns[columns[0]].name.clone(), columns });
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fields_take_what_innodb_stores() {
        // decimal_bin_size: DECIMAL(12,2) = 4 + 1 + 1; DECIMAL(10,2) = 4 + 1.
        assert_eq!(decimal_bytes(12, 2), 6);
        assert_eq!(decimal_bytes(10, 2), 5);
        assert_eq!(decimal_bytes(18, 9), 8);
        let varchar = Some(SqlType::Text { max_chars: Some(120) });
        assert_eq!(field(Param::Text("abc"), varchar, false).len_bytes, 1);
        let text = Some(SqlType::Text { max_chars: None });
        let long = "x".repeat(300);
        assert_eq!(
            (field(Param::Text(&long), text, false).bytes, field(Param::Text(&long), text, false).len_bytes),
            (300, 2)
        );
        // An index keeps 255 characters of an unbounded column.
        assert_eq!(field(Param::Text(&long), text, true).bytes, 255);
        assert_eq!(field(Param::Null, text, false).bytes, 0);
        assert_eq!(field(Param::Text("2024-01-01 00:00:00.000000"), Some(SqlType::Timestamp), false).bytes, 8);
    }
}
