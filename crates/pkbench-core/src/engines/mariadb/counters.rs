//! InnoDB counters from `SHOW GLOBAL STATUS` and `INFORMATION_SCHEMA.INNODB_METRICS`
//! (`module_index` is enabled on managed servers). They are server-wide: on a shared server,
//! other traffic counts too.

use super::flavor::Flavor;
use crate::results::Counters;
use mysql::prelude::Queryable;
use std::collections::HashMap;

/// Cumulative values at one moment.
#[derive(Clone, Debug, Default)]
pub struct Snapshot(HashMap<String, u64>);

/// Status variables both flavours have; the redo LSN's name is the flavour's
/// ([`Flavor::redo_lsn_status`]).
const STATUS: [&str; 4] = [
    "Innodb_buffer_pool_read_requests",
    "Innodb_buffer_pool_reads",
    "Innodb_pages_written",
    "Innodb_dblwr_pages_written",
];

/// Where the redo LSN is kept in a snapshot, whichever variable it came from.
const REDO_LSN: &str = "redo_lsn";
const METRICS: [&str; 5] = [
    "index_page_splits",
    "index_page_merge_successful",
    // Enabled by default on MariaDB and MySQL alike.
    "lock_row_lock_waits",
    "lock_row_lock_time",
    "lock_deadlocks",
];

/// Reads the counters of a `flavor` server.
pub fn snapshot(conn: &mut mysql::Conn, flavor: Flavor) -> Result<Snapshot, mysql::Error> {
    let mut values = HashMap::new();
    let status: Vec<(String, String)> = conn.query(status_sql(flavor))?;
    for (name, value) in status {
        if let Ok(v) = value.parse() {
            let key = if Some(name.as_str()) == flavor.redo_lsn_status() { REDO_LSN.to_string() } else { name };
            values.insert(key, v);
        }
    }
    let metrics: Vec<(String, i64)> = conn.query(metrics_sql(flavor))?;
    for (name, value) in metrics {
        values.insert(name, value.max(0) as u64);
    }
    Ok(Snapshot(values))
}

fn list(names: &[&str]) -> String {
    names.iter().map(|n| format!("'{n}'")).collect::<Vec<_>>().join(", ")
}

/// The status variables of a `flavor` server.
fn status_sql(flavor: Flavor) -> String {
    let names: Vec<&str> = STATUS.iter().copied().chain(flavor.redo_lsn_status()).collect();
    format!("SHOW GLOBAL STATUS WHERE Variable_name IN ({})", list(&names))
}

/// The `INNODB_METRICS` monitors that count. A disabled monitor counts nothing, so its counter
/// is left out ("unknown") rather than reported as zero splits.
fn metrics_sql(flavor: Flavor) -> String {
    format!(
        "SELECT NAME, COUNT FROM information_schema.INNODB_METRICS WHERE NAME IN ({}) AND {}",
        list(&METRICS),
        flavor.metric_enabled()
    )
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
        wal_bytes: d(REDO_LSN),
        doublewrite_pages: d("Innodb_dblwr_pages_written"),
        page_splits: d("index_page_splits"),
        page_merges: d("index_page_merge_successful"),
        row_lock_waits: d("lock_row_lock_waits"),
        row_lock_wait_ms: d("lock_row_lock_time"),
        deadlocks: d("lock_deadlocks"),
        ..Counters::default()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_flavour_reads_its_own_names() {
        let maria = (status_sql(Flavor::MariaDb), metrics_sql(Flavor::MariaDb));
        assert!(maria.0.contains("'Innodb_lsn_current'") && maria.1.ends_with("AND ENABLED = 1"), "{maria:?}");
        let mysql84 = Flavor::MySql { major: 8, minor: 4, patch: 3 };
        let mysql = (status_sql(mysql84), metrics_sql(mysql84));
        assert!(mysql.0.contains("'Innodb_redo_log_current_lsn'") && !mysql.0.contains("Innodb_lsn_current"));
        assert!(mysql.1.ends_with("AND STATUS = 'enabled'"), "{mysql:?}");
        let old = status_sql(Flavor::MySql { major: 8, minor: 0, patch: 20 });
        assert!(!old.contains("lsn"), "no redo LSN before 8.0.30: redo bytes absent, {old}");
    }

    #[test]
    fn redo_bytes_are_absent_where_the_server_has_no_lsn() {
        let snap = |pairs: &[(&str, u64)]| Snapshot(pairs.iter().map(|(k, v)| (k.to_string(), *v)).collect());
        let c = between(&snap(&[("Innodb_pages_written", 1)]), &snap(&[("Innodb_pages_written", 5)]));
        assert_eq!((c.pages_written, c.wal_bytes), (Some(4), None));
        let c = between(&snap(&[(REDO_LSN, 100)]), &snap(&[(REDO_LSN, 250)]));
        assert_eq!(c.wal_bytes, Some(150));
    }
}
