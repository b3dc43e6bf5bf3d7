//! RocksDB's statistics from `SHOW GLOBAL STATUS` (one cheap query, like InnoDB's): WAL, flush
//! and compaction bytes, block-cache and bloom-filter counts, write stalls. They are
//! server-wide and include the background flushes and compactions of every table.
//!
//! Compaction bytes read come from RocksDB's compaction statistics instead
//! (`ROCKSDB_COMPACTION_STATS`, the sum over levels of the input files' bytes: what RocksDB's
//! own log reports as `Read(GB)`, and what `pkbench predict`'s model counts). The status
//! variable `rocksdb_compact_read_bytes` counts less than the input files hold: for random keys,
//! fewer bytes read than written, which a compaction that drops no key cannot do (measured in
//! the MyRocks findings). The same query reads the files per level, which the snapshot keeps.

use super::physical::LEVEL_ROWS;
use crate::results::{Counters, LsmLevel};
use mysql::prelude::Queryable;
use std::collections::HashMap;

/// Cumulative values at one moment, by lower-case status name, and the files per level then.
#[derive(Clone, Debug, Default)]
pub struct Snapshot {
    values: HashMap<String, u64>,
    /// The default column family's sorted files by level.
    pub levels: Vec<LsmLevel>,
}

/// The status variables read.
const STATUS: [&str; 13] = [
    "rocksdb_block_cache_hit",
    "rocksdb_block_cache_miss",
    "rocksdb_wal_bytes",
    "rocksdb_bytes_written",
    "rocksdb_flush_write_bytes",
    "rocksdb_compact_write_bytes",
    "rocksdb_bloom_filter_useful",
    "rocksdb_bloom_filter_full_positive",
    "rocksdb_stall_total_stops",
    "rocksdb_stall_total_slowdowns",
    "rocksdb_stall_micros",
    "rocksdb_row_lock_deadlocks",
    "rocksdb_number_keys_read",
];

/// The query reading them.
fn status_sql() -> String {
    let list: Vec<String> = STATUS.iter().map(|n| format!("'{n}'")).collect();
    format!("SHOW GLOBAL STATUS WHERE LOWER(Variable_name) IN ({})", list.join(", "))
}

/// The key under which a snapshot keeps the compaction statistics' bytes read.
const COMPACTION_STATS_READ: &str = "compaction_stats_read_bytes";

/// The statistics of the default column family read with every snapshot: the files per level
/// and the bytes of every compaction's input files so far (in GiB to six decimals: about 1 KiB).
fn compaction_stats_sql() -> String {
    format!(
        "SELECT LEVEL, TYPE, CAST(VALUE AS CHAR) FROM information_schema.ROCKSDB_COMPACTION_STATS \
         WHERE CF_NAME = 'default' AND (({LEVEL_ROWS}) OR (LEVEL = 'Sum' AND TYPE = 'ReadGB'))"
    )
}

/// Reads the counters now.
pub fn snapshot(conn: &mut mysql::Conn) -> Result<Snapshot, mysql::Error> {
    let rows: Vec<(String, String)> = conn.query(status_sql())?;
    // A value that is not a count (never expected) leaves its counter absent.
    let mut values: HashMap<String, u64> =
        rows.into_iter().filter_map(|(n, v)| Some((n.to_ascii_lowercase(), v.parse().ok()?))).collect();
    let (sum, levels): (Vec<_>, Vec<_>) =
        conn.query::<(String, String, String), _>(compaction_stats_sql())?.into_iter().partition(|(l, ..)| l == "Sum");
    // A server whose statistics have no such row leaves the counter absent.
    if let Some(gib) = sum.first().and_then(|(_, _, v)| v.trim().parse::<f64>().ok()) {
        values.insert(COMPACTION_STATS_READ.into(), (gib * 1_073_741_824.0).round() as u64);
    }
    Ok(Snapshot { values, levels: LsmLevel::from_statistics(levels) })
}

/// Counters between two snapshots (a counter the server lacks stays `None`).
pub fn between(before: &Snapshot, after: &Snapshot) -> Counters {
    let d = |name: &str| Some(after.values.get(name)?.saturating_sub(*before.values.get(name)?));
    let sum = |a: &str, b: &str| Some(d(a)? + d(b)?);
    let useful = d("rocksdb_bloom_filter_useful");
    Counters {
        cache_hits: d("rocksdb_block_cache_hit"),
        cache_misses: d("rocksdb_block_cache_miss"),
        wal_bytes: d("rocksdb_wal_bytes"),
        ingest_bytes: d("rocksdb_bytes_written"),
        flush_bytes: d("rocksdb_flush_write_bytes"),
        compaction_read_bytes: d(COMPACTION_STATS_READ),
        compaction_write_bytes: d("rocksdb_compact_write_bytes"),
        bloom_checks: useful.zip(d("rocksdb_bloom_filter_full_positive")).map(|(u, p)| u + p),
        bloom_useful: useful,
        write_stalls: sum("rocksdb_stall_total_stops", "rocksdb_stall_total_slowdowns"),
        write_stall_us: d("rocksdb_stall_micros"),
        deadlocks: d("rocksdb_row_lock_deadlocks"),
        keys_read: d("rocksdb_number_keys_read"),
        ..Counters::default()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn snap(pairs: &[(&str, u64)]) -> Snapshot {
        Snapshot { values: pairs.iter().map(|(k, v)| (k.to_string(), *v)).collect(), levels: Vec::new() }
    }

    #[test]
    fn deltas_sum_what_rocksdb_counts_apart() {
        let before = snap(&[
            ("rocksdb_bloom_filter_useful", 10),
            ("rocksdb_bloom_filter_full_positive", 5),
            ("rocksdb_stall_total_stops", 1),
            ("rocksdb_stall_total_slowdowns", 2),
            ("rocksdb_wal_bytes", 1000),
            (COMPACTION_STATS_READ, 4096),
        ]);
        let after = snap(&[
            ("rocksdb_bloom_filter_useful", 40),
            ("rocksdb_bloom_filter_full_positive", 15),
            ("rocksdb_stall_total_stops", 1),
            ("rocksdb_stall_total_slowdowns", 5),
            ("rocksdb_wal_bytes", 1500),
            (COMPACTION_STATS_READ, 10240),
        ]);
        let c = between(&before, &after);
        assert_eq!((c.bloom_checks, c.bloom_useful), (Some(40), Some(30)));
        assert_eq!((c.write_stalls, c.wal_bytes), (Some(3), Some(500)));
        assert_eq!(c.compaction_read_bytes, Some(6144), "read bytes come from the compaction statistics");
        assert_eq!(c.flush_bytes, None, "a counter the server lacks stays absent");
    }

    #[test]
    fn every_name_is_read() {
        let sql = status_sql();
        assert!(STATUS.iter().all(|n| sql.contains(&format!("'{n}'"))), "{sql}");
        let sql = compaction_stats_sql();
        assert!(sql.contains(LEVEL_ROWS) && sql.contains("LEVEL = 'Sum' AND TYPE = 'ReadGB'"), "{sql}");
    }
}
