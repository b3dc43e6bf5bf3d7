//! What remedy and churn need beyond inserting: size and B-tree state during a case, deleting
//! rows by primary key, and compacting with `VACUUM FULL`.

use super::column::Column;
use super::physical;
use super::schema::column_type;
use crate::Error;
use crate::control::RunControl;
use crate::generators::Key;
use crate::results::BtreeStats;
use crate::strategy::{KeySource, Storage, Strategy};
use postgres::types::ToSql;
use postgres::{Client, Statement};

/// Keys per `DELETE … WHERE id = ANY($1)` statement (all of a batch's statements share one
/// transaction). Larger than the insert chunk: the mapping table's `id` has no index, so each
/// statement scans it once.
const KEYS_PER_DELETE: usize = 10_000;

/// What the churn phases say happens after each DELETE.
pub(super) const DELETE_NOTE: &str = "PostgreSQL: DELETE … WHERE id = ANY($1) in one transaction, then a plain VACUUM of the case's tables (autovacuum is off on them), so freed space and emptied index pages can be reused as autovacuum would let them; delete_ms includes that VACUUM";

/// What remedy's compaction phase says ran.
pub(super) const COMPACT_NOTE: &str = "PostgreSQL: VACUUM FULL (outside a transaction) rewrites the heap and rebuilds every index into new files; free_space_needed_bytes = the new copy, at most the size before (its WAL is not counted)";

/// The prepared DELETEs of a case, if its primary keys are known to pkbench.
pub(super) struct Deleter {
    delete: Statement,
    delete_map: Option<Statement>,
    keys: Column,
}

impl Deleter {
    /// Prepares the DELETEs for `strategy`'s tables, or says why it cannot delete by key:
    /// server-generated keys never reach pkbench. Engine-assigned keys are identity values,
    /// which count up from 1 in a fresh table, as churn assumes.
    pub(super) fn prepare(
        client: &mut Client,
        schema: &str,
        strategy: &Strategy,
        has_map: bool,
    ) -> Result<Option<Self>, Error> {
        let storage = match strategy.primary.source {
            KeySource::Server(_) => return Ok(None),
            KeySource::EngineAssigned => Storage::Integer,
            KeySource::Client(_) => strategy.primary.storage,
        };
        let array = format!("{}[]", column_type(storage));
        let prepare = |client: &mut Client, table: &str| {
            client
                .prepare(&format!("DELETE FROM {schema}.{table} WHERE id = ANY($1::{array})"))
                .map_err(|e| Error::postgres("could not prepare DELETE", e))
        };
        let delete = prepare(client, "bench")?;
        let delete_map = if has_map { Some(prepare(client, "bench_map")?) } else { None };
        Ok(Some(Deleter { delete, delete_map, keys: Column::for_storage(Some(storage)) }))
    }

    /// Deletes `keys` from the tables in one transaction, then VACUUMs them; returns the rows
    /// deleted from the main table.
    pub(super) fn delete(
        &mut self,
        client: &mut Client,
        tables: &str,
        keys: &[Key],
        control: &RunControl,
    ) -> Result<u64, Error> {
        let mut tx = client.transaction().map_err(|e| Error::postgres("could not begin a transaction", e))?;
        let mut deleted = 0;
        for chunk in keys.chunks(KEYS_PER_DELETE) {
            self.keys.fill(chunk.iter().map(|k| Some(*k)));
            let Some(param) = self.keys.param() else { break };
            let params: [&(dyn ToSql + Sync); 1] = [param];
            if let Some(map) = &self.delete_map {
                tx.execute(map, &params).map_err(|e| Error::postgres("DELETE from the mapping table failed", e))?;
            }
            deleted += tx.execute(&self.delete, &params).map_err(|e| Error::postgres("DELETE failed", e))?;
            if control.is_cancelled() {
                return Err(Error::Interrupted);
            }
        }
        tx.commit().map_err(|e| Error::postgres("COMMIT failed", e))?;
        client.batch_execute(&format!("VACUUM {tables}")).map_err(|e| Error::postgres("VACUUM failed", e))?;
        Ok(deleted)
    }
}

/// The error of deleting by key from a table whose keys the server generated.
pub(super) fn server_keys_unknown(strategy: &str) -> Error {
    Error::Unsupported {
        strategy: strategy.into(),
        engine: "postgres".into(),
        reason: "the server generates this strategy's keys, so pkbench cannot delete rows by key; use the client-generated strategy".into(),
    }
}

/// Rebuilds the tables (`tables` is a comma-separated, schema-qualified list).
pub(super) fn vacuum_full(client: &mut Client, tables: &str) -> Result<(), Error> {
    client.batch_execute(&format!("VACUUM FULL {tables}")).map_err(|e| Error::postgres("VACUUM FULL failed", e))
}

/// Total size on disk (heap, indexes, TOAST) of `schema`'s `tables`, and their B-tree statistics
/// when `pgstattuple` is there. Without it (or the right to use it, on a user's server) no
/// B-tree figures are reported, rather than zeros or a failed case.
pub(super) fn measure(
    client: &mut Client,
    schema: &str,
    tables: &[&str],
    pgstattuple: bool,
) -> Result<(u64, Vec<BtreeStats>), Error> {
    let mut size_bytes = 0;
    let mut btrees = Vec::new();
    for table in tables {
        let q = format!("{schema}.{table}");
        let size: i64 = client
            .query_one("SELECT pg_total_relation_size($1::text::regclass)", &[&q])
            .map_err(|e| Error::postgres("could not read the table size", e))?
            .get(0);
        size_bytes += size.max(0) as u64;
        if pgstattuple {
            btrees.extend(physical::btree_stats(client, schema, table).unwrap_or_default());
        }
    }
    Ok((size_bytes, btrees))
}
