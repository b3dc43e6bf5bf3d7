//! A MyRocks table's size on disk: its share of each sorted (SST) file it has keys in. RocksDB
//! keeps every index of every table in one column family, so files are shared; the file map
//! (`ROCKSDB_INDEX_FILE_MAP`) says how many uncompressed bytes of each file an index holds, and
//! the file's properties (`ROCKSDB_SST_PROPS`) how many bytes its blocks take on disk. Rows still
//! in the memtable are in no file: a managed server flushes it before measuring.

use crate::Error;
use crate::results::LsmLevel;
use mysql::prelude::Queryable;

/// The bytes on disk of `tables` in database `db`: for each file, its data, index and filter
/// blocks times the tables' share of its uncompressed data.
fn size_sql(db: &str, tables: &[&str]) -> String {
    let list: Vec<String> = tables.iter().map(|t| format!("'{t}'")).collect();
    format!(
        "SELECT CAST(COALESCE(SUM(m.DATA_SIZE / f.total * \
         (p.DATA_BLOCK_SIZE + p.INDEX_BLOCK_SIZE + p.FILTER_BLOCK_SIZE)), 0) AS UNSIGNED) \
         FROM information_schema.ROCKSDB_DDL d \
         JOIN information_schema.ROCKSDB_INDEX_FILE_MAP m \
           ON m.COLUMN_FAMILY = d.COLUMN_FAMILY AND m.INDEX_NUMBER = d.INDEX_NUMBER \
         JOIN (SELECT SST_NAME, SUM(DATA_SIZE) AS total FROM information_schema.ROCKSDB_INDEX_FILE_MAP \
               GROUP BY SST_NAME) f ON f.SST_NAME = m.SST_NAME AND f.total > 0 \
         JOIN information_schema.ROCKSDB_SST_PROPS p ON p.SST_NAME = m.SST_NAME \
         WHERE d.TABLE_SCHEMA = '{db}' AND d.TABLE_NAME IN ({})",
        list.join(", ")
    )
}

/// The size on disk of `tables` in `db`, bytes.
pub fn tables_size(conn: &mut mysql::Conn, db: &str, tables: &[&str]) -> Result<u64, Error> {
    let size: Option<u64> =
        conn.query_first(size_sql(db, tables)).map_err(|e| Error::mariadb("could not read RocksDB's file map", e))?;
    Ok(size.unwrap_or(0))
}

/// The rows of `ROCKSDB_COMPACTION_STATS` that describe the sorted files of each level (which
/// [`LsmLevel::from_statistics`] reads).
pub const LEVEL_ROWS: &str = "LEVEL LIKE 'L%' AND TYPE IN ('NumFiles', 'SizeBytes', 'Score')";

/// Column family `cf`'s sorted files by level (`ROCKSDB_COMPACTION_STATS`, which lists the
/// levels that hold files), in level order.
pub fn levels(conn: &mut mysql::Conn, cf: &str) -> Result<Vec<LsmLevel>, mysql::Error> {
    let sql = format!(
        "SELECT LEVEL, TYPE, CAST(VALUE AS CHAR) FROM information_schema.ROCKSDB_COMPACTION_STATS \
         WHERE CF_NAME = ? AND {LEVEL_ROWS}"
    );
    let rows: Vec<(String, String, String)> = conn.exec(sql, (cf,))?;
    Ok(LsmLevel::from_statistics(rows))
}

/// Writes the memtables to sorted files, so the rows they hold are measured (and then waits for
/// nothing else: compactions go on in the background).
pub fn flush_memtables(conn: &mut mysql::Conn) -> Result<(), Error> {
    conn.query_drop("SET GLOBAL rocksdb_force_flush_memtable_now = 1")
        .map_err(|e| Error::mariadb("could not flush RocksDB's memtables", e))
}

/// Compacts the default column family whole, waiting for it: the keys of dropped tables, which
/// RocksDB leaves in the sorted files until a compaction meets them, are gone afterwards.
pub fn compact_everything(conn: &mut mysql::Conn) -> Result<(), Error> {
    conn.query_drop("SET GLOBAL rocksdb_compact_cf = 'default'")
        .map_err(|e| Error::mariadb("could not compact RocksDB's column family", e))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_size_query_names_only_the_cases_tables() {
        let sql = size_sql("pkbench_1", &["bench", "bench_map"]);
        assert!(sql.contains("d.TABLE_SCHEMA = 'pkbench_1' AND d.TABLE_NAME IN ('bench', 'bench_map')"), "{sql}");
    }
}
