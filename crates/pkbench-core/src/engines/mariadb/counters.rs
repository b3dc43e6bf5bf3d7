//! InnoDB counters from `SHOW GLOBAL STATUS` and `INFORMATION_SCHEMA.INNODB_METRICS`
//! (`module_index` is enabled on managed servers). They are server-wide: on a shared server,
//! other traffic counts too.

use crate::results::Counters;
use mysql::prelude::Queryable;
use std::collections::HashMap;

/// Cumulative values at one moment.
#[derive(Clone, Debug, Default)]
pub struct Snapshot(HashMap<String, u64>);

const STATUS: [&str; 5] = [
    "Innodb_buffer_pool_read_requests",
    "Innodb_buffer_pool_reads",
    "Innodb_pages_written",
    "Innodb_lsn_current",
    "Innodb_dblwr_pages_written",
];
const METRICS: [&str; 5] = [
    "index_page_splits",
    "index_page_merge_successful",
    // Enabled by default on MariaDB and MySQL alike.
    "lock_row_lock_waits",
    "lock_row_lock_time",
    "lock_deadlocks",
];

/// Reads the counters.
pub fn snapshot(conn: &mut mysql::Conn) -> Result<Snapshot, mysql::Error> {
    let list = |names: &[&str]| names.iter().map(|n| format!("'{n}'")).collect::<Vec<_>>().join(", ");
    let mut values = HashMap::new();
    let status: Vec<(String, String)> =
        conn.query(format!("SHOW GLOBAL STATUS WHERE Variable_name IN ({})", list(&STATUS)))?;
    for (name, value) in status {
        if let Ok(v) = value.parse() {
            values.insert(name, v);
        }
    }
    let metrics: Vec<(String, i64)> = conn.query(format!(
        // MariaDB's column is ENABLED (MySQL's is STATUS). A disabled monitor counts nothing, so
        // its counter is left out ("unknown") rather than reported as zero splits.
        "SELECT NAME, COUNT FROM information_schema.INNODB_METRICS WHERE NAME IN ({}) AND ENABLED = 1",
        list(&METRICS)
    ))?;
    for (name, value) in metrics {
        values.insert(name, value.max(0) as u64);
    }
    Ok(Snapshot(values))
}

/// Counters between two snapshots (a counter the server lacks stays `None`).
pub fn between(before: &Snapshot, after: &Snapshot) -> Counters {
    let d = |name: &str| Some(after.0.get(name)?.saturating_sub(*before.0.get(name)?));
    let requests = d("Innodb_buffer_pool_read_requests");
    let reads = d("Innodb_buffer_pool_reads");
    Counters {
        cache_hits: requests.zip(reads).map(|(r, m)| r.saturating_sub(m)),
        cache_misses: reads,
        pages_written: d("Innodb_pages_written"),
        wal_bytes: d("Innodb_lsn_current"),
        doublewrite_pages: d("Innodb_dblwr_pages_written"),
        page_splits: d("index_page_splits"),
        page_merges: d("index_page_merge_successful"),
        row_lock_waits: d("lock_row_lock_waits"),
        row_lock_wait_ms: d("lock_row_lock_time"),
        deadlocks: d("lock_deadlocks"),
        ..Counters::default()
    }
}
