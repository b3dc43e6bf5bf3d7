//! What an insert into MyRocks' memtable costs as the memtable grows. A random key's insert
//! descends the memtable's skip list, and its unique-key check looks the key up there first;
//! the fuller the memtable, the more of the nodes each passes the CPU's caches have lost. A
//! calibration at a tenth of its target's rows has a memtable a tenth of the target's, so its
//! batches price that descent in a few MiB, where the target's runs it in tens.
//!
//! The probe measures it on a managed server of its own, whose memtables are larger than the
//! probe fills, so nothing is flushed and nothing but the memtable grows: random 16-byte keys
//! with the run's payload, in statements of [`STATEMENT_ROWS`] rows that each commit (a
//! transaction of constant size), timed in chunks of an eighth of the rows so far, each chunk
//! taken at the memtable's size halfway through it (the bytes the server reports its memtable
//! holding at the end, shared evenly among the rows). Each round writes a
//! column family of its own, whose memtable starts empty.

use crate::Error;
use crate::control::RunControl;
use crate::engines::server::{ManagedOptions, ServerSetting, ServerSettings, ServerTarget};
use crate::util::pick::Pick;
use mysql::prelude::Queryable;
use std::path::Path;
use std::time::Instant;

/// Rows per statement, each its own transaction.
pub const STATEMENT_ROWS: usize = 1_000;

/// The probe server's block cache, MiB: the probe reads no sorted file.
const CACHE_MB: u64 = 64;

/// Each round's samples of (memtable bytes, µs per row), `rounds` rounds, random 16-byte keys
/// with `payload_bytes` of payload until the memtable holds `largest_bytes`, on a managed server
/// of the binaries in `server_bin` (else the machine's); stopped with [`Error::Interrupted`]
/// between statements when `control` is cancelled.
pub fn time_random_inserts(
    payload_bytes: u64,
    largest_bytes: u64,
    rounds: usize,
    server_bin: Option<&Path>,
    control: &RunControl,
) -> Result<Vec<Vec<(u64, f64)>>, Error> {
    // Twice the largest, so that no round's memtable is flushed.
    let cf_options = format!("write_buffer_size={}", 2 * largest_bytes + (16 << 20));
    let settings = ServerSettings {
        target: ServerTarget::Managed(ManagedOptions {
            settings: vec![ServerSetting { name: "rocksdb_default_cf_options".into(), value: cf_options }],
            server_bin: server_bin.map(Path::to_path_buf),
            ..ManagedOptions::default()
        }),
        cache_mb: CACHE_MB,
        durable_commits: false,
        shards: None,
    };
    let engine = super::MyRocksEngine::open(&settings)?;
    let managed = engine.managed().ok_or_else(|| Error::System("the memtable probe's server is not managed".into()))?;
    let mut conn = mysql::Conn::new(managed.opts().db_name(Some(engine.namespace())))
        .map_err(|e| Error::mariadb("the memtable probe could not connect to its server", e))?;
    (0..rounds).map(|round| self::round(&mut conn, round, payload_bytes, largest_bytes, control)).collect()
}

/// One round into a table of its own, in a column family of its own.
fn round(
    conn: &mut mysql::Conn,
    round: usize,
    payload_bytes: u64,
    largest: u64,
    control: &RunControl,
) -> Result<Vec<(u64, f64)>, Error> {
    let failed = |e| Error::mariadb("the memtable probe failed", e);
    let (table, cf) = (format!("memtable_probe_{round}"), format!("pkbench_memtable_probe_{round}"));
    conn.query_drop(format!(
        "CREATE TABLE {table} (id BINARY(16) NOT NULL, payload VARBINARY({}) NOT NULL, \
         PRIMARY KEY (id) COMMENT 'cfname={cf}') ENGINE=ROCKSDB",
        payload_bytes.max(1)
    ))
    .map_err(failed)?;
    let values = vec!["(?, ?)"; STATEMENT_ROWS].join(", ");
    let insert = conn.prep(format!("INSERT INTO {table} VALUES {values}")).map_err(failed)?;
    let payload = vec![0x5a_u8; payload_bytes as usize];
    let mut rng = Pick(0x5e7 + round as u64);
    // (rows before the chunk, rows after it, µs per row)
    let mut chunks: Vec<(usize, usize, f64)> = Vec::new();
    let (mut rows, mut bytes) = (0_usize, 0_u64);
    while bytes < largest {
        let statements = (rows / 8).div_ceil(STATEMENT_ROWS).max(1);
        let started = Instant::now();
        for _ in 0..statements {
            if control.is_cancelled() {
                return Err(Error::Interrupted);
            }
            let mut params = Vec::with_capacity(2 * STATEMENT_ROWS);
            for _ in 0..STATEMENT_ROWS {
                let mut key = [0_u8; 16];
                for half in key.chunks_mut(8) {
                    half.copy_from_slice(&(rng.below(usize::MAX) as u64).to_le_bytes());
                }
                params.push(mysql::Value::from(&key[..]));
                params.push(mysql::Value::from(&payload[..]));
            }
            conn.exec_drop(&insert, params).map_err(failed)?;
        }
        let us = started.elapsed().as_secs_f64() * 1e6 / (statements * STATEMENT_ROWS) as f64;
        chunks.push((rows, rows + statements * STATEMENT_ROWS, us));
        rows += statements * STATEMENT_ROWS;
        let after = memtable_bytes(conn, &cf)?;
        if after == 0 {
            return Err(Error::System(format!(
                "the memtable probe could not read its memtable's size: the server reports no memtable of column family {cf}"
            )));
        }
        if after < bytes {
            return Err(Error::System(format!(
                "the memtable probe's memtable shrank from {bytes} to {after} bytes: the server flushed it, so the probe measured more than the memtable"
            )));
        }
        bytes = after;
    }
    if cf_stat(conn, &cf, "NUM_IMMUTABLE_MEM_TABLE")? > 0 {
        return Err(Error::System(
            "the memtable probe's memtable was switched for a flush, so the probe measured more than the memtable"
                .into(),
        ));
    }
    // RocksDB counts its arena by the block: each chunk's size is its middle row's share of the
    // bytes the rows take in all.
    let per_row = bytes as f64 / rows as f64;
    let samples = chunks.iter().map(|&(from, to, us)| (((from + to) as f64 / 2.0 * per_row) as u64, us)).collect();
    conn.query_drop(format!("DROP TABLE {table}")).map_err(failed)?;
    Ok(samples)
}

/// The bytes `cf`'s memtables hold, as RocksDB counts its arena (0 if the server reports none).
fn memtable_bytes(conn: &mut mysql::Conn, cf: &str) -> Result<u64, Error> {
    cf_stat(conn, cf, "CUR_SIZE_ALL_MEM_TABLES")
}

/// One of `cf`'s statistics (`information_schema.ROCKSDB_CFSTATS`), 0 if the server has none.
fn cf_stat(conn: &mut mysql::Conn, cf: &str, stat: &str) -> Result<u64, Error> {
    let value: Option<u64> = conn
        .exec_first(
            "SELECT VALUE FROM information_schema.ROCKSDB_CFSTATS WHERE CF_NAME = ? AND STAT_TYPE = ?",
            (cf, stat),
        )
        .map_err(|e| Error::mariadb(format!("the memtable probe could not read {stat}"), e))?;
    Ok(value.unwrap_or(0))
}
