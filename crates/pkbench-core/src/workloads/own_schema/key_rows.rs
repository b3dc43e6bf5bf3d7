//! The key table's rows for a page model, one at a time ([`OwnSchema::key_row_stream`]): a time
//! model takes them batch by batch, as a case inserts them.

use super::OwnSchema;
use super::rows::{MAX_COLUMNS, Ref, TableRows};
use crate::Error;
use crate::engines::EngineKind;
use crate::engines::wire::KeySlot;
use crate::keys::{KeyRow, KeyStream};
use crate::strategy::{SecondaryKey, Storage, Strategy};
use crate::util::pick::Pick;
use crate::values::Param;

/// What [`KeyRows::next`] hands a row to: its rowid (1, 2, …), its keys, columns and parameters
/// (`params[i]` for column `columns[i]`).
pub type KeyRowSink<'a> = dyn FnMut(i64, KeyRow, &[usize], &[Param<'_>]) + 'a;

/// The key table's rows of one strategy, as [`OwnSchema::key_rows`] visits them, on demand.
pub struct KeyRows {
    feed: TableRows,
    stream: KeyStream,
    pick: Pick,
    parent_rows: usize,
    storage: Storage,
    /// The strategy's second key, where the table's insert carries it.
    second: Option<SecondaryKey>,
    second_slot: KeySlot,
    columns: Vec<usize>,
    rowid: i64,
    rows: i64,
}

impl OwnSchema {
    /// The key table's rows for `strategy`, one at a time: the rows [`OwnSchema::key_rows`]
    /// visits, in its order.
    pub fn key_row_stream(&self, strategy: &Strategy) -> Result<KeyRows, Error> {
        let sql = crate::engines::schema_sql::run_sql(&self.plan, strategy, EngineKind::Sqlite, "")?;
        let insert = &sql.inserts[self.plan.key];
        let second = strategy.secondary.filter(|_| insert.second_key);
        let mut columns = insert.columns.clone();
        columns.extend(second.map(|_| self.plan.key_table().columns.len()));
        let feed = TableRows::new(&self.plan, self.plan.key, insert, self.keys.seed, self.sizes.rows, &mut |_, c| {
            Ok(self.specs[&(self.plan.key, c)].clone())
        })?;
        Ok(KeyRows {
            feed,
            stream: KeyStream::new(strategy, self.keys),
            pick: Pick(self.keys.seed ^ 0xf0_0d),
            parent_rows: self.sizes.parent_rows as usize,
            storage: strategy.primary.storage,
            second,
            second_slot: KeySlot::default(),
            columns,
            rowid: 0,
            rows: self.sizes.rows as i64,
        })
    }
}

impl KeyRows {
    /// Hands the next row to `each`; `false` once every row has been handed over.
    pub fn next(&mut self, each: &mut KeyRowSink<'_>) -> Result<bool, Error> {
        if self.rowid >= self.rows {
            return Ok(false);
        }
        self.rowid += 1;
        let row = self.stream.next_row();
        let mut params = [Param::Null; MAX_COLUMNS];
        let (pick, parent_rows) = (&mut self.pick, self.parent_rows);
        let mut k = self.feed.next(
            row.primary,
            self.storage,
            &mut |_| Ref::Row(pick.below(parent_rows) as u64),
            &mut params,
        )?;
        if let (Some(s), Some(ext)) = (self.second, row.secondary) {
            params[k] = self.second_slot.bind(ext, s.storage);
            k += 1;
        }
        each(self.rowid, row, &self.columns, &params[..k]);
        Ok(true)
    }
}
