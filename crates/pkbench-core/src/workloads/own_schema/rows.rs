//! One filled table's rows, as the parameters of its INSERT: the strategy's key, row numbers for
//! a parent's or child's own key, parents' keys for foreign keys, generated values for the rest.
//! Buffers are reused from row to row.

use super::unique::Unique;
use crate::Error;
use crate::engines::schema_sql::Insert;
use crate::engines::wire::KeySlot;
use crate::generators::{Key, derive_seed};
use crate::schema::{Fill, Plan, Source};
use crate::strategy::Storage;
use crate::values::DAY_2000_01_01;
use crate::values::Param;
use crate::values::{ColumnGenerator, ColumnSpec, SqlType, ValueKind};
use std::fmt::Write;

/// Most columns a filled table may have (the parameters of one row live on the stack).
pub(super) const MAX_COLUMNS: usize = 64;

/// Which row of a parent a foreign key references.
#[derive(Clone, Copy, Debug)]
pub(super) enum Ref {
    /// The key table's row with this key.
    Key(Key),
    /// An ancestor's row with this number (0-based).
    Row(u64),
}

/// The rows of one filled table.
pub(super) struct TableRows {
    columns: Vec<ColumnFeed>,
    /// Rows made so far.
    made: u64,
}

/// One parameter's source, with its buffers.
struct ColumnFeed {
    source: Source,
    /// The key type of the ancestor a foreign key references.
    parent_type: Option<SqlType>,
    /// A foreign key leading a unique index (`store.manager_staff_id`): row n references the
    /// parent's row n, so no two rows share a parent.
    distinct_parent: bool,
    generator: Option<ColumnGenerator>,
    /// How its values stay distinct, when a unique index leads with this column.
    unique: Option<Unique>,
    /// A unique enum column's values.
    enum_values: Vec<String>,
    slot: KeySlot,
    text: String,
    bytes: [u8; 16],
}

impl TableRows {
    /// The rows of `plan.fills[fill]` bound as `insert` takes them; `spec(column)` is the value
    /// spec of a generated column. `rows` is how many the table will hold: a column that leads
    /// a unique index must have as many distinct values.
    pub(super) fn new(
        plan: &Plan,
        fill: usize,
        insert: &Insert,
        seed: u64,
        rows: u64,
        spec: &mut dyn FnMut(&Fill, usize) -> Result<ColumnSpec, Error>,
    ) -> Result<Self, Error> {
        let f = &plan.fills[fill];
        if insert.columns.len() + usize::from(insert.second_key) > MAX_COLUMNS {
            return Err(Error::InvalidInput(format!(
                "line {}: table {} has {} columns: pkbench fills tables of at most {MAX_COLUMNS} columns",
                f.table.line,
                f.table.name,
                f.table.columns.len()
            )));
        }
        let mut columns = Vec::with_capacity(insert.columns.len());
        for &i in &insert.columns {
            let source = f.sources[i];
            let generator = match source {
                Source::Value(_) => {
                    Some(ColumnGenerator::for_column(spec(f, i)?, seed, &f.table.name, &f.table.columns[i].name)?)
                }
                _ => None,
            };
            let parent_type = match source {
                Source::Parent(p) if p != plan.key => plan.fills[p].sources.iter().find_map(|s| match s {
                    Source::Sequence(ty) => Some(*ty),
                    _ => None,
                }),
                _ => None,
            };
            let name = &f.table.columns[i].name;
            let leads_unique = f
                .table
                .indexes
                .iter()
                .any(|x| x.unique && x.columns.first().is_some_and(|c| c.eq_ignore_ascii_case(name)));
            let unique = match &generator {
                Some(g) if leads_unique => Some(Unique::for_column(&f.table.name, name, g.spec(), rows)?),
                _ => None,
            };
            let enum_values = match (&generator, unique) {
                (Some(g), Some(Unique::Enum)) => match &g.spec().kind {
                    ValueKind::Enum { values } => values.clone(),
                    _ => Vec::new(),
                },
                _ => Vec::new(),
            };
            let mut bytes = [0u8; 16];
            bytes[..8].copy_from_slice(&derive_seed(seed, &f.table.name, &f.table.columns[i].name).to_be_bytes());
            let distinct_parent = leads_unique && matches!(source, Source::Parent(_));
            columns.push(ColumnFeed {
                source,
                parent_type,
                distinct_parent,
                generator,
                unique,
                enum_values,
                slot: KeySlot::default(),
                text: String::new(),
                bytes,
            });
        }
        Ok(TableRows { columns, made: 0 })
    }

    /// The next row's parameters, written into `params` (the first `n` slots; returns `n`).
    /// `key` is the row's own key where the strategy's key is bound (stored as `storage`), and
    /// `parent(fill)` picks the row of `fill` a foreign key references.
    pub(super) fn next<'s>(
        &'s mut self,
        key: Option<Key>,
        storage: Storage,
        parent: &mut dyn FnMut(usize) -> Ref,
        params: &mut [Param<'s>; MAX_COLUMNS],
    ) -> Result<usize, Error> {
        let row = self.made;
        self.made += 1;
        let n = self.columns.len();
        for (slot, c) in params.iter_mut().zip(self.columns.iter_mut()) {
            *slot = match c.source {
                Source::Key => {
                    let key = key.ok_or_else(|| Error::Internal("a client-generated key is missing".into()))?;
                    c.slot.bind(key, storage)
                }
                Source::Sequence(ty) => sequence(ty, row, &mut c.text, &mut c.bytes),
                Source::Parent(p) => match parent(p) {
                    Ref::Key(k) => c.slot.bind(k, storage),
                    Ref::Row(_) if c.distinct_parent => {
                        sequence(c.parent_type.unwrap_or(SqlType::Integer(8)), row, &mut c.text, &mut c.bytes)
                    }
                    Ref::Row(r) => sequence(c.parent_type.unwrap_or(SqlType::Integer(8)), r, &mut c.text, &mut c.bytes),
                },
                Source::Null | Source::Computed => Param::Null,
                Source::Value(_) => match (&mut c.generator, c.unique) {
                    (Some(g), Some(u)) => u.value(g.next_value(), row, &mut c.text, &mut c.bytes, &c.enum_values),
                    (Some(g), None) => g.next_value().as_param(),
                    (None, _) => Param::Null,
                },
            };
        }
        Ok(n)
    }
}

/// Row `row`'s own key in a column of type `ty`: its number from 1, as an integer, text, eight
/// big-endian bytes, or a UUID whose last eight bytes are the number.
fn sequence<'a>(ty: SqlType, row: u64, text: &'a mut String, bytes: &'a mut [u8; 16]) -> Param<'a> {
    let n = row + 1;
    match ty {
        SqlType::Text { .. } => {
            text.clear();
            // Writing into a String cannot fail.
            let _ = write!(text, "{n}");
            Param::Text(text)
        }
        SqlType::Uuid => {
            bytes[8..].copy_from_slice(&n.to_be_bytes());
            Param::Uuid(*bytes)
        }
        SqlType::Binary { .. } => {
            bytes[8..].copy_from_slice(&n.to_be_bytes());
            Param::Bytes(&bytes[8..])
        }
        // Day n after 2000-01-01; second n after its midnight.
        SqlType::Date => {
            text.clear();
            crate::values::calendar::write_date(text, DAY_2000_01_01 + n.min(i32::MAX as u64 / 2) as i32);
            Param::Text(text)
        }
        SqlType::Timestamp => {
            text.clear();
            crate::values::calendar::write_timestamp(text, (i64::from(DAY_2000_01_01) * 86_400 + n as i64) * 1_000_000);
            Param::Text(text)
        }
        _ => Param::Int(n as i64),
    }
}
