//! A MyRocks table's sorted files, read from RocksDB's `information_schema` tables: the data
//! dictionary (`ROCKSDB_DDL`) names each index's number and column family, the file map
//! (`ROCKSDB_INDEX_FILE_MAP`) its entries per file, the files' properties (`ROCKSDB_SST_PROPS`)
//! their bytes on disk; the column family's levels are read as a MyRocks run reads them.

use super::session::my;
use crate::Error;
use crate::doctor::lsm::{LsmIndexReport, LsmReport};
use mysql::Conn;
use mysql::prelude::Queryable;

/// Each index of `db`.`table`: name, column family, files, entries, deletes, bytes on disk (its
/// share of each file's data, index and filter blocks).
const INDEXES_SQL: &str = "SELECT d.INDEX_NAME, d.CF, COUNT(m.SST_NAME), \
     CAST(COALESCE(SUM(m.NUM_ROWS), 0) AS UNSIGNED), \
     CAST(COALESCE(SUM(m.ENTRY_DELETES + m.ENTRY_SINGLEDELETES), 0) AS UNSIGNED), \
     CAST(COALESCE(SUM(m.DATA_SIZE / f.total * (p.DATA_BLOCK_SIZE + p.INDEX_BLOCK_SIZE + p.FILTER_BLOCK_SIZE)), 0) AS UNSIGNED) \
     FROM information_schema.ROCKSDB_DDL d \
     LEFT JOIN information_schema.ROCKSDB_INDEX_FILE_MAP m \
       ON m.COLUMN_FAMILY = d.COLUMN_FAMILY AND m.INDEX_NUMBER = d.INDEX_NUMBER \
     LEFT JOIN (SELECT SST_NAME, SUM(DATA_SIZE) AS total FROM information_schema.ROCKSDB_INDEX_FILE_MAP \
       GROUP BY SST_NAME) f ON f.SST_NAME = m.SST_NAME AND f.total > 0 \
     LEFT JOIN information_schema.ROCKSDB_SST_PROPS p ON p.SST_NAME = m.SST_NAME \
     WHERE d.TABLE_SCHEMA = ? AND d.TABLE_NAME = ? \
     GROUP BY d.INDEX_NAME, d.CF ORDER BY d.INDEX_NAME <> 'PRIMARY', d.INDEX_NAME";

/// The sorted files of `db`.`table` and its column family's levels.
pub fn report(c: &mut Conn, db: &str, table: &str) -> Result<LsmReport, Error> {
    let rows: Vec<(String, String, u64, u64, u64, u64)> =
        c.exec(INDEXES_SQL, (db, table)).map_err(my("could not read RocksDB's file map"))?;
    let column_family = rows.first().map_or_else(|| "default".to_string(), |r| r.1.clone());
    let indexes = rows
        .into_iter()
        .map(|(name, _, files, entries, deletes, size_bytes)| LsmIndexReport {
            name: if name == "HIDDEN_PK_ID" { "hidden primary key".into() } else { name },
            files,
            entries,
            deletes,
            size_bytes,
        })
        .collect();
    let levels = crate::engines::myrocks::levels(c, &column_family)
        .map_err(my("could not read RocksDB's compaction statistics"))?;
    Ok(LsmReport { indexes, column_family, levels })
}
