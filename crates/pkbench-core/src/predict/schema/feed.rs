//! A user's table for a time model: each row's keys and its entry in every secondary index of
//! the key table, row by row as `run --schema` inserts them, so that the model's trees are the
//! table's trees and its WAL, checkpoints and cache follow the table's, not the key's alone.

use super::prefix::index_key;
use super::{KeyTable, value};
use crate::Error;
use crate::keys::KeyRow;
use crate::predict::server::ServerKey;
use crate::strategy::Strategy;
use crate::values::SqlType;
use crate::workloads::{KeyRows, OwnSchema};

/// The key table's secondary indexes, other than the strategy's second key's (which a time
/// model keeps as its own), fed row by row.
pub struct IndexFeed {
    rows: KeyRows,
    /// Each index's tree name (`table.index`) and columns.
    indexes: Vec<(String, Vec<usize>)>,
    types: Vec<Option<SqlType>>,
    order: ServerKey,
    /// What stopped the rows, if anything did.
    error: Option<Error>,
}

impl IndexFeed {
    /// The rows `workload` makes for `strategy`, whose key table is `shape`.
    pub(super) fn new(workload: &OwnSchema, strategy: &Strategy, shape: &KeyTable<'_>) -> Result<Self, Error> {
        let second = strategy.secondary.map(|_| shape.width - 1);
        let indexes = shape
            .indexes
            .iter()
            .filter(|i| Some(i.columns.as_slice()) != second.as_ref().map(std::slice::from_ref))
            .map(|i| (shape.tree_name(&i.name), i.columns.clone()))
            .collect();
        Ok(IndexFeed {
            rows: workload.key_row_stream(strategy)?,
            indexes,
            types: shape.types.clone(),
            order: ServerKey::Primary(strategy.primary.storage),
            error: None,
        })
    }

    /// The indexes fed: tree name and columns, in the order [`IndexFeed::next`] writes them.
    pub fn indexes(&self) -> &[(String, Vec<usize>)] {
        &self.indexes
    }

    /// The next row's keys, its entry in each index written to `entries` (one per index); a
    /// row of no keys once the rows end or fail ([`IndexFeed::take_error`] says why).
    pub fn next(&mut self, entries: &mut [u128]) -> KeyRow {
        let mut out = KeyRow { primary: None, secondary: None };
        let (indexes, types, order) = (&self.indexes, &self.types, self.order);
        let more = self.rows.next(&mut |rowid, row, columns, params| {
            let row_key = order.value(&KeyRow { primary: row.primary, secondary: None }, rowid);
            for (entry, (_, index)) in entries.iter_mut().zip(indexes) {
                *entry = index_key(index, |c| value(columns, params, c), types, row_key, rowid as u32);
            }
            out = row;
        });
        match more {
            Ok(true) => {}
            Ok(false) => {
                self.error
                    .get_or_insert_with(|| Error::Internal("a time model asked for more rows than the table's".into()));
            }
            Err(e) => {
                self.error.get_or_insert(e);
            }
        }
        out
    }

    /// What stopped the rows, once.
    pub fn take_error(&mut self) -> Option<Error> {
        self.error.take()
    }
}

#[cfg(test)]
mod tests {
    use crate::control::RunControl;
    use crate::engines::EngineKind;
    use crate::predict::{Mode, PredictConfig, predict_schema, predict_table};
    use crate::results::{Counters, RunResult};
    use crate::strategy::find;
    use crate::workloads::{FkLocality, OwnSchema, ReadLocality, SchemaSizes};

    const ROWS: u64 = 20_000;

    fn events() -> OwnSchema {
        let sql = "CREATE TABLE events (id BIGINT PRIMARY KEY, account BIGINT NOT NULL, at TIMESTAMP NOT NULL, note TEXT);\n\
                   CREATE INDEX events_account ON events (account, at);\n\
                   CREATE INDEX events_at ON events (at);\n";
        let schema = crate::schema::parse(sql, Some(EngineKind::Postgres)).unwrap();
        let sizes = SchemaSizes {
            rows: ROWS,
            batch_rows: 2_000,
            parent_rows: 1000,
            children_per_row: 0,
            fk_locality: FkLocality::Recent,
            read_locality: ReadLocality::Recent,
            reads: 0,
            rebuild: None,
        };
        OwnSchema::new(&schema, Some("events"), None, sizes, 1, "events.sql").unwrap()
    }

    fn forecast(name: &str, table: Option<&OwnSchema>) -> RunResult {
        let config = PredictConfig {
            rows: ROWS,
            batch_rows: 2_000,
            payload_bytes: 20,
            seed: 1,
            page_size: 8192,
            cache_mb: 16,
            mode: Mode::Exact,
            scale: 1,
        };
        let s = find(name).unwrap();
        predict_table(EngineKind::Postgres, s, &config, table, None, &RunControl::new(), &mut |_| {}).unwrap()
    }

    fn total(r: &RunResult, f: fn(&Counters) -> Option<u64>) -> u64 {
        r.batches.iter().filter_map(|b| f(&b.counters)).sum()
    }

    #[test]
    fn the_postgres_time_model_keeps_the_tables_secondary_indexes_as_its_schema_model_lays_them_out() {
        let table = events();
        for name in ["int", "uuid4", "int+uuid4"] {
            let (plain, fed) = (forecast(name, None), forecast(name, Some(&table)));
            let names: Vec<&str> = fed.btrees.iter().map(|t| t.name.as_str()).collect();
            assert_eq!(fed.btrees.len(), plain.btrees.len() + 2, "{name}: {names:?}");
            let layout = predict_schema(&table, find(name).unwrap(), EngineKind::Postgres, 4096).unwrap();
            for index in ["events.events_account", "events.events_at"] {
                let model = fed.btrees.iter().find(|t| t.name == index).expect(index);
                let schema = layout.iter().find(|t| t.name == index).expect(index);
                // The same entries in the same order, of the same size: the same leaves.
                assert_eq!(model.leaf_pages, schema.leaf_pages, "{name} {index}");
            }
            // The indexes' inserts are logged, and their pages cached, as the key's are.
            let wal = |r: &RunResult| total(r, |c| c.wal_bytes);
            assert!(wal(&fed) > wal(&plain) * 3 / 2, "{name}: {} vs {}", wal(&fed), wal(&plain));
            let hits = |r: &RunResult| total(r, |c| c.cache_hits);
            assert!(hits(&fed) > hits(&plain), "{name}");
        }
    }
}
