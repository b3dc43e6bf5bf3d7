//! PostgreSQL's cheap counters: exact WAL bytes from LSNs, WAL records and full-page images from
//! `pg_stat_wal`, buffer hits and reads from `pg_statio_user_tables`. Page splits, FPI bytes and
//! the distinct index blocks touched come from the WAL itself ([`super::walinspect`]).

use crate::results::Counters;
use postgres::Client;
use std::collections::BTreeMap;

/// Cumulative values at one moment; counters are differences between two snapshots.
#[derive(Clone, Copy, Debug, Default)]
pub struct Snapshot {
    insert_lsn: u64,
    flush_lsn: u64,
    /// `pg_stat_wal` (PostgreSQL 14+).
    wal_records: Option<u64>,
    wal_fpi: Option<u64>,
    /// This session's table statistics, exact only where it can flush them (15+).
    blks_hit: Option<u64>,
    blks_read: Option<u64>,
    deadlocks: u64,
}

/// Which statistics a server of a given version offers (`server_version_num`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct StatsVersion {
    /// `pg_stat_wal`: WAL records and full-page images (14+).
    pub stat_wal: bool,
    /// `pg_stat_force_next_flush()`: a session's table statistics readable at once (15+);
    /// before it they reach the views up to half a second late, so per-batch cache hits and
    /// misses would be misattributed and are left out.
    pub force_flush: bool,
}

impl StatsVersion {
    /// The statistics of a server whose `server_version_num` is `num`.
    pub fn of(num: u32) -> Self {
        StatsVersion { stat_wal: num >= 140_000, force_flush: num >= 150_000 }
    }
}

/// Parses an LSN like `0/1A2B3C4`.
pub fn parse_lsn(text: &str) -> Option<u64> {
    let (hi, lo) = text.split_once('/')?;
    Some((u64::from_str_radix(hi, 16).ok()? << 32) | u64::from_str_radix(lo, 16).ok()?)
}

/// Formats an LSN for SQL.
pub fn format_lsn(lsn: u64) -> String {
    format!("{:X}/{:X}", lsn >> 32, lsn & 0xffff_ffff)
}

/// Takes a snapshot of the counters for the tables `tables` of `schema`.
///
/// With asynchronous commits (`durable_commits` false) the WAL flush position lags the insert
/// position, and `pg_walinspect` can only read flushed WAL: a tiny synchronous commit (one
/// logical-decoding message and its commit record, under 100 bytes, counted in the next span)
/// first flushes everything written so far, so each span's page splits and FPI bytes stay in it.
pub fn snapshot(
    client: &mut Client,
    schema: &str,
    tables: &[&str],
    durable_commits: bool,
    version: StatsVersion,
) -> Result<Snapshot, postgres::Error> {
    if !durable_commits {
        // A commit flushes synchronously only if its transaction wrote WAL: emit a tiny message.
        client.batch_execute(
            "BEGIN; SET LOCAL synchronous_commit = on; SELECT pg_logical_emit_message(true, 'pkbench', 'flush'); COMMIT;",
        )?;
    }
    if version.force_flush {
        // Statistics are flushed by backends lazily; force this session's pending counts out.
        client.batch_execute("SELECT pg_stat_force_next_flush()")?;
    }
    let tables: Vec<String> = tables.iter().map(|t| t.to_string()).collect();
    let row = client.query_one(&snapshot_sql(version), &[&schema, &tables])?;
    let lsn = |i: usize| -> Result<u64, postgres::Error> { Ok(parse_lsn(&row.try_get::<_, String>(i)?).unwrap_or(0)) };
    let n = |i: usize| -> Result<Option<u64>, postgres::Error> {
        Ok(row.try_get::<_, Option<i64>>(i)?.map(|v| v.max(0) as u64))
    };
    let (stat_wal, statio) = (version.stat_wal, version.force_flush);
    Ok(Snapshot {
        insert_lsn: lsn(0)?,
        flush_lsn: lsn(1)?,
        wal_records: n(2)?.filter(|_| stat_wal),
        wal_fpi: n(3)?.filter(|_| stat_wal),
        blks_hit: n(4)?.filter(|_| statio),
        blks_read: n(5)?.filter(|_| statio),
        deadlocks: n(6)?.unwrap_or(0),
    })
}

/// The snapshot query for a server of `version`: NULL for the WAL counters before
/// `pg_stat_wal` (14).
fn snapshot_sql(version: StatsVersion) -> String {
    let (wal, from_wal) = if version.stat_wal {
        ("w.wal_records::bigint, w.wal_fpi::bigint", "pg_stat_wal w, ")
    } else {
        ("NULL::bigint, NULL::bigint", "")
    };
    format!(
        "SELECT pg_current_wal_insert_lsn()::text, pg_current_wal_flush_lsn()::text, {wal}, \
                coalesce(s.hit, 0)::bigint, coalesce(s.read, 0)::bigint, \
                (SELECT deadlocks FROM pg_stat_database WHERE datname = current_database())::bigint \
         FROM {from_wal}\
              (SELECT sum(heap_blks_hit + coalesce(idx_blks_hit, 0) + coalesce(toast_blks_hit, 0) + coalesce(tidx_blks_hit, 0)) AS hit, \
                      sum(heap_blks_read + coalesce(idx_blks_read, 0) + coalesce(toast_blks_read, 0) + coalesce(tidx_blks_read, 0)) AS read \
               FROM pg_statio_user_tables WHERE schemaname = $1 AND relname = ANY($2)) s"
    )
}

/// Blocks read into shared buffers so far by each table of `tables` in `schema` (its heap, as
/// `table`) and each of their indexes (`table.index`), this session's counts flushed first.
pub fn tree_misses(
    client: &mut Client,
    schema: &str,
    tables: &[&str],
) -> Result<BTreeMap<String, u64>, postgres::Error> {
    client.batch_execute("SELECT pg_stat_force_next_flush()")?;
    let tables: Vec<String> = tables.iter().map(|t| t.to_string()).collect();
    let rows = client.query(
        "SELECT relname::text, heap_blks_read::bigint FROM pg_statio_user_tables \
         WHERE schemaname = $1 AND relname = ANY($2) \
         UNION ALL \
         SELECT relname || '.' || indexrelname, idx_blks_read::bigint FROM pg_statio_user_indexes \
         WHERE schemaname = $1 AND relname = ANY($2)",
        &[&schema, &tables],
    )?;
    Ok(rows.iter().map(|r| (r.get::<_, String>(0), r.get::<_, Option<i64>>(1).unwrap_or(0).max(0) as u64)).collect())
}

/// The statistics' counters between two snapshots (the WAL's own figures come from
/// [`super::walinspect`]).
pub fn between(before: &Snapshot, after: &Snapshot) -> Counters {
    Counters {
        cache_hits: delta(before.blks_hit, after.blks_hit),
        cache_misses: delta(before.blks_read, after.blks_read),
        wal_bytes: Some(after.insert_lsn.saturating_sub(before.insert_lsn)),
        wal_records: delta(before.wal_records, after.wal_records),
        wal_fpi: delta(before.wal_fpi, after.wal_fpi),
        deadlocks: Some(after.deadlocks.saturating_sub(before.deadlocks)),
        ..Counters::default()
    }
}

/// A counter's growth between two readings; `None` when the server does not offer it.
fn delta(before: Option<u64>, after: Option<u64>) -> Option<u64> {
    Some(after?.saturating_sub(before?))
}

/// The flushed WAL between two snapshots: what `pg_walinspect` can read back.
pub fn flushed_span(before: &Snapshot, after: &Snapshot) -> (u64, u64) {
    (before.flush_lsn, after.flush_lsn)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn older_servers_leave_out_what_they_lack_rather_than_report_zero() {
        assert_eq!(StatsVersion::of(130_015), StatsVersion { stat_wal: false, force_flush: false });
        assert_eq!(StatsVersion::of(140_011), StatsVersion { stat_wal: true, force_flush: false });
        assert_eq!(StatsVersion::of(150_020), StatsVersion { stat_wal: true, force_flush: true });
        assert!(!snapshot_sql(StatsVersion::of(130_015)).contains("pg_stat_wal"));
        assert!(snapshot_sql(StatsVersion::of(180_001)).contains("FROM pg_stat_wal w, "));
        let at = |hit, wal| Snapshot { blks_hit: hit, wal_records: wal, ..Snapshot::default() };
        let c = between(&at(None, None), &at(None, None));
        assert_eq!((c.cache_hits, c.wal_records, c.wal_bytes), (None, None, Some(0)));
        let c = between(&at(Some(1), Some(5)), &at(Some(4), Some(9)));
        assert_eq!((c.cache_hits, c.wal_records), (Some(3), Some(4)));
    }

    #[test]
    fn lsn_round_trip() {
        assert_eq!(parse_lsn("0/1A2B3C4"), Some(0x1A2B3C4));
        assert_eq!(parse_lsn("2/0"), Some(2 << 32));
        assert_eq!(format_lsn(0x2_0000_00FF), "2/FF");
        assert_eq!(parse_lsn("nonsense"), None);
    }
}
