//! What remedy and churn need beyond inserting: size and B-tree state during a case, deleting
//! rows by primary key, and compacting with `OPTIMIZE TABLE`.

use super::physical;
use super::push_literal;
use crate::Error;
use crate::control::RunControl;
use crate::generators::Key;
use crate::results::BtreeStats;
use crate::strategy::{KeySource, Storage, Strategy};
use mysql::prelude::Queryable;
use std::path::Path;

/// What the churn phases say happens after each DELETE.
pub(super) const DELETE_NOTE: &str = "MariaDB: multi-row DELETE … WHERE id IN (…) in one transaction (1,000 keys per statement), delete_ms is the DELETE and COMMIT; before each size and leaf-fill reading on a managed server, SET GLOBAL innodb_max_purge_lag_wait = 0 waits until InnoDB's purge has removed the delete-marked records";

/// What remedy's compaction phase says ran.
pub(super) const COMPACT_NOTE: &str = "MariaDB: OPTIMIZE TABLE, which InnoDB runs as a rebuild (recreate + analyze) into a new .ibd file; free_space_needed_bytes = the new copy, at most the size before (redo log not counted)";

/// The storage keys of `strategy`'s primary key are deleted by: engine-assigned keys are
/// AUTO_INCREMENT values (1, 2, … in a fresh table, consecutive for multi-row INSERTs);
/// server-generated keys never reach pkbench, so they cannot be deleted by key (`None`).
pub(super) fn delete_storage(strategy: &Strategy) -> Option<Storage> {
    match strategy.primary.source {
        KeySource::Server(_) => None,
        KeySource::EngineAssigned => Some(Storage::Integer),
        KeySource::Client(_) => Some(strategy.primary.storage),
    }
}

/// The error of deleting by key from a table whose keys the server generated.
pub(super) fn server_keys_unknown(strategy: &str) -> Error {
    Error::Unsupported {
        strategy: strategy.into(),
        engine: "mariadb".into(),
        reason: "the server generates this strategy's keys, so pkbench cannot delete rows by key; use the client-generated strategy".into(),
    }
}

/// Deletes rows by primary key from `db`'s `tables`, `per_statement` keys per statement.
pub(super) struct Delete<'a> {
    /// Database the tables live in.
    pub db: &'a str,
    /// The case's tables (`bench` first; `bench_map`, if there, is keyed by `ext_id`).
    pub tables: &'a [&'static str],
    /// How the primary key is stored (as the INSERT encodes it).
    pub storage: Storage,
    /// Keys per statement.
    pub per_statement: usize,
}

impl Delete<'_> {
    /// Deletes `keys` in one transaction (rolled back on error); returns rows deleted from
    /// `bench`. `buf` is reused for the statements.
    pub(super) fn run(
        &self,
        conn: &mut mysql::Conn,
        buf: &mut String,
        keys: &[Key],
        control: &RunControl,
    ) -> Result<u64, Error> {
        conn.query_drop("START TRANSACTION").map_err(|e| Error::mariadb("could not begin a transaction", e))?;
        let result = self
            .statements(conn, buf, keys, control)
            .and_then(|n| conn.query_drop("COMMIT").map_err(|e| Error::mariadb("COMMIT failed", e)).map(|()| n));
        if result.is_err() {
            let _ = conn.query_drop("ROLLBACK");
        }
        result
    }

    fn statements(
        &self,
        conn: &mut mysql::Conn,
        buf: &mut String,
        keys: &[Key],
        control: &RunControl,
    ) -> Result<u64, Error> {
        let mut deleted = 0;
        for chunk in keys.chunks(self.per_statement.max(1)) {
            // The mapping table first, as a foreign key would require; `bench` last.
            for table in self.tables.iter().rev() {
                buf.clear();
                buf.push_str("DELETE FROM ");
                buf.push_str(self.db);
                buf.push('.');
                buf.push_str(table);
                buf.push_str(" WHERE id IN (");
                for (i, key) in chunk.iter().enumerate() {
                    if i > 0 {
                        buf.push(',');
                    }
                    push_literal(buf, Some(*key), self.storage);
                }
                buf.push(')');
                conn.query_drop(&*buf).map_err(|e| Error::mariadb(format!("DELETE from {table} failed"), e))?;
                if *table == "bench" {
                    deleted += conn.affected_rows();
                }
            }
            if control.is_cancelled() {
                return Err(Error::Interrupted);
            }
        }
        Ok(deleted)
    }
}

/// Rebuilds `db`'s `tables` with `OPTIMIZE TABLE`, failing if the server reports an error row.
pub(super) fn optimize(conn: &mut mysql::Conn, db: &str, tables: &[&str]) -> Result<(), Error> {
    let list: Vec<String> = tables.iter().map(|t| format!("{db}.{t}")).collect();
    let rows: Vec<(String, String, String, String)> = conn
        .query(format!("OPTIMIZE TABLE {}", list.join(", ")))
        .map_err(|e| Error::mariadb("OPTIMIZE TABLE failed", e))?;
    match rows.into_iter().find(|(_, _, kind, _)| kind.eq_ignore_ascii_case("error")) {
        Some((table, _, _, text)) => Err(Error::InvalidInput(format!("OPTIMIZE TABLE {table} failed: {text}"))),
        None => Ok(()),
    }
}

/// Size (`data_length + index_length` after `ANALYZE TABLE`) of `db`'s `tables`, and their
/// B-tree statistics read from the `.ibd` files when `datadir` (a managed server's) is known.
/// There, it first waits for InnoDB's purge (needs SUPER), so delete-marked records of a churn
/// step are gone from the pages it reads.
pub(super) fn measure(
    conn: &mut mysql::Conn,
    db: &str,
    tables: &[&str],
    datadir: Option<&Path>,
) -> Result<(u64, Vec<BtreeStats>), Error> {
    let mut size_bytes = 0;
    let mut btrees = Vec::new();
    if datadir.is_some() {
        conn.query_drop("SET GLOBAL innodb_max_purge_lag_wait = 0")
            .map_err(|e| Error::mariadb("could not wait for InnoDB purge", e))?;
    }
    for table in tables {
        size_bytes += physical::table_size(conn, db, table)?;
        if let Some(dir) = datadir {
            let ibd = dir.join(db).join(format!("{table}.ibd"));
            btrees.extend(physical::tablespace_stats(conn, db, table, &ibd)?);
        }
    }
    Ok((size_bytes, btrees))
}
