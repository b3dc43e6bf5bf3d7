//! PostgreSQL counters: exact WAL bytes from LSNs, WAL records and full-page images from
//! `pg_stat_wal`, buffer hits and reads from `pg_statio_user_tables`, and B-tree page splits and
//! full-page-image bytes from `pg_walinspect`, and the distinct index blocks the WAL records
//! reference (seed 003's "distinct index blocks touched").

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
                coalesce(s.hit, 0)::bigint, coalesce(s.read, 0)::bigint \
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
    })
}

/// Distinct (relfilenode, block) pairs of the main fork of any index on the tables `$3` of
/// schema `$4` (qualified names), referenced by the WAL records between the LSNs `$1` and `$2`.
/// PostgreSQL 15 has no `pg_get_wal_block_info` (16+): the blocks are parsed from each record's
/// `block_ref` text, `blkref #0: rel <spc>/<db>/<relfilenode> fork main blk <n>` (other forks
/// are not counted; `fork main` is optional for servers that leave it out).
const INDEX_BLOCKS_SQL: &str = "\
    WITH idx AS (SELECT pg_relation_filenode(i.indexrelid)::text AS node \
                 FROM pg_index i JOIN pg_class c ON c.oid = i.indrelid \
                 JOIN pg_namespace n ON n.oid = c.relnamespace \
                 WHERE n.nspname = $4 AND c.relname = ANY($3)), \
         db AS (SELECT oid::text AS oid FROM pg_database WHERE datname = current_database()) \
    SELECT count(DISTINCT (m[2], m[3]))::bigint \
    FROM pg_get_wal_records_info($1::text::pg_lsn, $2::text::pg_lsn) r, \
         regexp_matches(r.block_ref, 'rel \\d+/(\\d+)/(\\d+)(?: fork main)? blk (\\d+)', 'g') AS m \
    WHERE m[1] = (SELECT oid FROM db) AND m[2] IN (SELECT node FROM idx)";

/// Counters between two snapshots. With `walinspect` (the schema and tables of the case, when
/// the `pg_walinspect` extension is available and the WAL is still kept) it adds page splits,
/// FPI bytes and the distinct index blocks touched.
pub fn between(
    client: &mut Client,
    before: &Snapshot,
    after: &Snapshot,
    walinspect: Option<(&str, &[&str])>,
) -> Counters {
    let mut c = Counters {
        cache_hits: Some(after.blks_hit.saturating_sub(before.blks_hit)),
        cache_misses: Some(after.blks_read.saturating_sub(before.blks_read)),
        wal_bytes: Some(after.insert_lsn.saturating_sub(before.insert_lsn)),
        wal_records: Some(after.wal_records.saturating_sub(before.wal_records)),
        wal_fpi: Some(after.wal_fpi.saturating_sub(before.wal_fpi)),
        ..Counters::default()
    };
    let Some((schema, tables)) = walinspect else { return c };
    if after.flush_lsn > before.flush_lsn {
        let sql = "SELECT coalesce(sum(count) FILTER (WHERE \"resource_manager/record_type\" IN ('Btree/SPLIT_L', 'Btree/SPLIT_R')), 0)::bigint, \
                          coalesce(sum(fpi_size), 0)::bigint \
                   FROM pg_get_wal_stats($1::text::pg_lsn, $2::text::pg_lsn, true)";
        if let Ok(row) = client.query_one(sql, &[&format_lsn(before.flush_lsn), &format_lsn(after.flush_lsn)]) {
            c.page_splits = row.try_get::<_, i64>(0).ok().map(|v| v.max(0) as u64);
            c.wal_fpi_bytes = row.try_get::<_, i64>(1).ok().map(|v| v.max(0) as u64);
        }
        let tables: Vec<String> = tables.iter().map(|t| t.to_string()).collect();
        let (from, to) = (format_lsn(before.flush_lsn), format_lsn(after.flush_lsn));
        if let Ok(row) = client.query_one(INDEX_BLOCKS_SQL, &[&from, &to, &tables, &schema]) {
            c.index_blocks_touched = row.try_get::<_, i64>(0).ok().map(|v| v.max(0) as u64);
        }
    }
    c
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
