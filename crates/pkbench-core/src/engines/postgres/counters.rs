//! PostgreSQL's cheap counters: exact WAL bytes from LSNs, WAL records and full-page images from
//! `pg_stat_wal`, buffer hits and reads from `pg_statio_user_tables`. Page splits, FPI bytes and
//! the distinct index blocks touched come from the WAL itself ([`super::walinspect`]).

use crate::results::Counters;
use postgres::Client;

/// Cumulative values at one moment; counters are differences between two snapshots.
#[derive(Clone, Copy, Debug, Default)]
pub struct Snapshot {
    insert_lsn: u64,
    flush_lsn: u64,
    wal_records: u64,
    wal_fpi: u64,
    blks_hit: u64,
    blks_read: u64,
    deadlocks: u64,
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
) -> Result<Snapshot, postgres::Error> {
    if !durable_commits {
        // A commit flushes synchronously only if its transaction wrote WAL: emit a tiny message.
        client.batch_execute(
            "BEGIN; SET LOCAL synchronous_commit = on; SELECT pg_logical_emit_message(true, 'pkbench', 'flush'); COMMIT;",
        )?;
    }
    // Statistics are flushed by backends lazily; force this session's pending counts out.
    client.batch_execute("SELECT pg_stat_force_next_flush()")?;
    let tables: Vec<String> = tables.iter().map(|t| t.to_string()).collect();
    let row = client.query_one(
        "SELECT pg_current_wal_insert_lsn()::text, pg_current_wal_flush_lsn()::text, \
                w.wal_records::bigint, w.wal_fpi::bigint, \
                coalesce(s.hit, 0)::bigint, coalesce(s.read, 0)::bigint, \
                (SELECT deadlocks FROM pg_stat_database WHERE datname = current_database())::bigint \
         FROM pg_stat_wal w, \
              (SELECT sum(heap_blks_hit + coalesce(idx_blks_hit, 0) + coalesce(toast_blks_hit, 0) + coalesce(tidx_blks_hit, 0)) AS hit, \
                      sum(heap_blks_read + coalesce(idx_blks_read, 0) + coalesce(toast_blks_read, 0) + coalesce(tidx_blks_read, 0)) AS read \
               FROM pg_statio_user_tables WHERE schemaname = $1 AND relname = ANY($2)) s",
        &[&schema, &tables],
    )?;
    let lsn = |i: usize| -> Result<u64, postgres::Error> { Ok(parse_lsn(&row.try_get::<_, String>(i)?).unwrap_or(0)) };
    let n = |i: usize| -> Result<u64, postgres::Error> { Ok(row.try_get::<_, i64>(i)?.max(0) as u64) };
    Ok(Snapshot {
        insert_lsn: lsn(0)?,
        flush_lsn: lsn(1)?,
        wal_records: n(2)?,
        wal_fpi: n(3)?,
        blks_hit: n(4)?,
        blks_read: n(5)?,
        deadlocks: n(6)?,
    })
}

/// The statistics' counters between two snapshots (the WAL's own figures come from
/// [`super::walinspect`]).
pub fn between(before: &Snapshot, after: &Snapshot) -> Counters {
    Counters {
        cache_hits: Some(after.blks_hit.saturating_sub(before.blks_hit)),
        cache_misses: Some(after.blks_read.saturating_sub(before.blks_read)),
        wal_bytes: Some(after.insert_lsn.saturating_sub(before.insert_lsn)),
        wal_records: Some(after.wal_records.saturating_sub(before.wal_records)),
        wal_fpi: Some(after.wal_fpi.saturating_sub(before.wal_fpi)),
        deadlocks: Some(after.deadlocks.saturating_sub(before.deadlocks)),
        ..Counters::default()
    }
}

/// The flushed WAL between two snapshots: what `pg_walinspect` can read back.
pub fn flushed_span(before: &Snapshot, after: &Snapshot) -> (u64, u64) {
    (before.flush_lsn, after.flush_lsn)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lsn_round_trip() {
        assert_eq!(parse_lsn("0/1A2B3C4"), Some(0x1A2B3C4));
        assert_eq!(parse_lsn("2/0"), Some(2 << 32));
        assert_eq!(format_lsn(0x2_0000_00FF), "2/FF");
        assert_eq!(parse_lsn("nonsense"), None);
    }
}
