//! Engine counters for a span of work, and a sharded engine's per-shard part of them.

use super::BatchResult;
use serde::{Deserialize, Serialize};

/// Adds `more` (one reading per shard) to `sum`, shard by shard: rows and counters add up, the
/// size is the later reading's.
pub fn add_shards(sum: &mut Option<Vec<ShardCounters>>, more: Option<Vec<ShardCounters>>) {
    let Some(more) = more else { return };
    match sum {
        None => *sum = Some(more),
        Some(sum) => {
            for (s, m) in sum.iter_mut().zip(more) {
                s.rows = match (s.rows, m.rows) {
                    (Some(a), Some(b)) => Some(a + b),
                    (a, b) => a.or(b),
                };
                s.size_bytes = m.size_bytes.or(s.size_bytes);
                s.counters.accumulate(&m.counters);
            }
        }
    }
}

/// One shard's part of a batch (or an interval) on a sharded engine.
#[derive(Clone, Debug, Default, Serialize, Deserialize, PartialEq, Eq)]
pub struct ShardCounters {
    /// Rows that reached the shard's table.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rows: Option<u64>,
    /// The shard's table size on disk afterwards, bytes.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub size_bytes: Option<u64>,
    /// The shard server's own counters (pages written, WAL/redo bytes, misses, …).
    pub counters: Counters,
}

/// Engine counters for a span of work. Each engine fills the ones it has; `None` = not
/// available on that engine (omitted from JSON). Names are engine-neutral; each field says what
/// every engine reports in it.
#[derive(Clone, Copy, Debug, Default, Serialize, Deserialize, PartialEq, Eq)]
pub struct Counters {
    /// Page requests served by the engine's cache (SQLite `CACHE_HIT`; PostgreSQL
    /// `heap_blks_hit + idx_blks_hit`; InnoDB read requests that did not miss; RocksDB
    /// block-cache hits, `rocksdb_block_cache_hit`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cache_hits: Option<u64>,
    /// Page requests that missed the engine's cache and read from the OS (SQLite `CACHE_MISS`;
    /// PostgreSQL `heap_blks_read + idx_blks_read`; InnoDB `Innodb_buffer_pool_reads`; RocksDB
    /// block-cache misses, `rocksdb_block_cache_miss`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cache_misses: Option<u64>,
    /// Pages written out by the engine (SQLite `CACHE_WRITE`: to the WAL or database file;
    /// InnoDB `Innodb_pages_written`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pages_written: Option<u64>,
    /// Dirty pages written before commit because the cache was full (SQLite `CACHE_SPILL`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cache_spills: Option<u64>,
    /// Write-ahead log bytes (PostgreSQL LSN difference; InnoDB redo, `Innodb_lsn_current` delta;
    /// RocksDB `rocksdb_wal_bytes`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub wal_bytes: Option<u64>,
    /// Write-ahead log records (PostgreSQL `pg_stat_wal.wal_records`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub wal_records: Option<u64>,
    /// Full-page images written to the WAL (PostgreSQL `pg_stat_wal.wal_fpi`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub wal_fpi: Option<u64>,
    /// Bytes of full-page images within `wal_bytes` (PostgreSQL `pg_walinspect` `fpi_size`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub wal_fpi_bytes: Option<u64>,
    /// B-tree page splits (PostgreSQL WAL `Btree/SPLIT_L` + `SPLIT_R`; InnoDB `index_page_splits`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub page_splits: Option<u64>,
    /// B-tree page merges (InnoDB `index_page_merge_successful`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub page_merges: Option<u64>,
    /// Pages written through the doublewrite buffer (InnoDB `Innodb_dblwr_pages_written`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub doublewrite_pages: Option<u64>,
    /// Distinct index blocks (of every index on the case's tables) that the span's WAL records
    /// reference: how widely the inserts spread over the indexes (PostgreSQL, from
    /// `pg_walinspect` block references; the "distinct index blocks touched" of
    /// Tomas Vondra's "Sequential UUID Generators").
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub index_blocks_touched: Option<u64>,
    /// Pages the checkpoints made durable (SQLite: distinct pages in the WAL at each automatic
    /// checkpoint, copied into the database file; PostgreSQL: pages first modified or added since
    /// the last checkpoint, which the next one's sync flushes; from `pkbench predict`'s model).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub checkpoint_pages: Option<u64>,
    /// Distinct pages made dirty (a page dirtied again after it was written counts again; from
    /// `pkbench predict`'s model).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pages_dirtied: Option<u64>,
    /// WAL-index hash tables the cache misses searched (SQLite: one per 4096 frames in the WAL
    /// at each miss, `walFindFrame`; from `pkbench predict`'s model, a term of its time fit).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub wal_hash_searches: Option<u64>,
    /// Files synced that the inserting connection waited for (SQLite with `synchronous=FULL`:
    /// the WAL at each commit, the WAL and then the database file at each automatic checkpoint,
    /// and the WAL's header when the next transaction starts it over; from `pkbench predict`'s
    /// model, a term of its time fit).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub syncs: Option<u64>,
    /// Of the cache misses, pages a relation extension added without reading anything
    /// (PostgreSQL counts its zero-filled new page in `*_blks_read`; from `pkbench predict`'s
    /// model, so the misses served by the OS or the device are the rest).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pages_extended: Option<u64>,
    /// Inserts whose leaf was not the previous insert's into the same tree (from `pkbench
    /// predict`'s model): each searches a page the CPU's caches have likely lost since, which
    /// costs more the larger the engine's cache in use. In the MyRocks model, inserts inside
    /// their index's memtable key range, which descend its skip list: they cost more the larger
    /// the memtable.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub leaf_jumps: Option<u64>,
    /// Skip-list levels the inserts into an LSM tree's memtable descended to find their place
    /// (from `pkbench predict`'s MyRocks model: log₂ of the memtable's entries for each insert
    /// inside its index's key range so far; one past the largest key appends without a search):
    /// nodes the CPU's caches have likely lost, more of them the fuller the memtable.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub memtable_steps: Option<u64>,
    /// Row-lock waits: statements that waited for a lock another transaction held (InnoDB
    /// `lock_row_lock_waits`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub row_lock_waits: Option<u64>,
    /// Time spent in those waits, ms (InnoDB `lock_row_lock_time`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub row_lock_wait_ms: Option<u64>,
    /// Deadlocks the engine detected and broke by aborting a transaction (InnoDB
    /// `lock_deadlocks`; PostgreSQL `pg_stat_database.deadlocks` of the database).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub deadlocks: Option<u64>,
    /// Bytes of keys and values the writes handed an LSM tree: the rows and their index entries
    /// before any copy (RocksDB `rocksdb_bytes_written`); what write amplification divides by.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ingest_bytes: Option<u64>,
    /// Bytes memtable flushes wrote to new sorted files (RocksDB `rocksdb_flush_write_bytes`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub flush_bytes: Option<u64>,
    /// Bytes of the sorted files compactions read (RocksDB's compaction statistics, `ReadGB`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub compaction_read_bytes: Option<u64>,
    /// Bytes compactions wrote to sorted files (RocksDB `rocksdb_compact_write_bytes`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub compaction_write_bytes: Option<u64>,
    /// Compaction bytes (read and written) running in the background beside the batch's
    /// inserts (from `pkbench predict`'s MyRocks model: each flush's compaction bytes spread over
    /// the rows inserted until the next compaction from L0 can start,
    /// `level0_file_num_compaction_trigger` memtables later): the work that competes with the
    /// inserts for the CPUs and the device; a term of its time fit.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub compaction_running_bytes: Option<u64>,
    /// Bloom-filter probes of point reads, the unique-key checks' included (RocksDB
    /// `rocksdb_bloom_filter_useful + rocksdb_bloom_filter_full_positive`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub bloom_checks: Option<u64>,
    /// Of those, probes that ruled a file out without reading it (RocksDB
    /// `rocksdb_bloom_filter_useful`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub bloom_useful: Option<u64>,
    /// Writes stopped or slowed because flushes or compactions fell behind (RocksDB
    /// `rocksdb_stall_total_stops + rocksdb_stall_total_slowdowns`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub write_stalls: Option<u64>,
    /// Time writers spent in those stalls, µs (RocksDB `rocksdb_stall_micros`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub write_stall_us: Option<u64>,
    /// Point reads of one key: on an LSM tree each insert into a unique key first looks its key
    /// up (RocksDB `rocksdb_number_keys_read`; none with `unique_checks` off).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub keys_read: Option<u64>,
}

impl Counters {
    /// Every counter with its field name, in declaration order (for exporters and charts).
    pub fn fields(&self) -> [(&'static str, Option<u64>); 32] {
        [
            ("cache_hits", self.cache_hits),
            ("cache_misses", self.cache_misses),
            ("pages_written", self.pages_written),
            ("cache_spills", self.cache_spills),
            ("wal_bytes", self.wal_bytes),
            ("wal_records", self.wal_records),
            ("wal_fpi", self.wal_fpi),
            ("wal_fpi_bytes", self.wal_fpi_bytes),
            ("page_splits", self.page_splits),
            ("page_merges", self.page_merges),
            ("doublewrite_pages", self.doublewrite_pages),
            ("index_blocks_touched", self.index_blocks_touched),
            ("checkpoint_pages", self.checkpoint_pages),
            ("pages_dirtied", self.pages_dirtied),
            ("wal_hash_searches", self.wal_hash_searches),
            ("syncs", self.syncs),
            ("pages_extended", self.pages_extended),
            ("leaf_jumps", self.leaf_jumps),
            ("memtable_steps", self.memtable_steps),
            ("row_lock_waits", self.row_lock_waits),
            ("row_lock_wait_ms", self.row_lock_wait_ms),
            ("deadlocks", self.deadlocks),
            ("ingest_bytes", self.ingest_bytes),
            ("flush_bytes", self.flush_bytes),
            ("compaction_read_bytes", self.compaction_read_bytes),
            ("compaction_write_bytes", self.compaction_write_bytes),
            ("compaction_running_bytes", self.compaction_running_bytes),
            ("bloom_checks", self.bloom_checks),
            ("bloom_useful", self.bloom_useful),
            ("write_stalls", self.write_stalls),
            ("write_stall_us", self.write_stall_us),
            ("keys_read", self.keys_read),
        ]
    }

    fn fields_mut(&mut self) -> [&mut Option<u64>; 32] {
        [
            &mut self.cache_hits,
            &mut self.cache_misses,
            &mut self.pages_written,
            &mut self.cache_spills,
            &mut self.wal_bytes,
            &mut self.wal_records,
            &mut self.wal_fpi,
            &mut self.wal_fpi_bytes,
            &mut self.page_splits,
            &mut self.page_merges,
            &mut self.doublewrite_pages,
            &mut self.index_blocks_touched,
            &mut self.checkpoint_pages,
            &mut self.pages_dirtied,
            &mut self.wal_hash_searches,
            &mut self.syncs,
            &mut self.pages_extended,
            &mut self.leaf_jumps,
            &mut self.memtable_steps,
            &mut self.row_lock_waits,
            &mut self.row_lock_wait_ms,
            &mut self.deadlocks,
            &mut self.ingest_bytes,
            &mut self.flush_bytes,
            &mut self.compaction_read_bytes,
            &mut self.compaction_write_bytes,
            &mut self.compaction_running_bytes,
            &mut self.bloom_checks,
            &mut self.bloom_useful,
            &mut self.write_stalls,
            &mut self.write_stall_us,
            &mut self.keys_read,
        ]
    }

    /// The counter named `field` (a [`Counters::fields`] name).
    pub fn get(&self, field: &str) -> Option<u64> {
        self.fields().into_iter().find(|(n, _)| *n == field).and_then(|(_, v)| v)
    }

    /// The counters of `batches` added up, keeping only the counters every batch that was read
    /// reports (a costly counter read on some of them only would be an undercount).
    pub fn over<'a>(batches: impl IntoIterator<Item = &'a BatchResult> + Clone) -> Counters {
        let read = || batches.clone().into_iter().filter(|b| b.counters_span > 0);
        let mut c = Counters::default();
        for b in read() {
            c.accumulate(&b.counters);
        }
        for (i, field) in c.fields_mut().into_iter().enumerate() {
            if read().any(|b| b.counters.fields()[i].1.is_none()) {
                *field = None;
            }
        }
        c
    }

    /// An LSM tree's write amplification: bytes written to storage (the WAL, flushes and
    /// compactions) ÷ bytes the writes handed it ([`ingest_bytes`](Self::ingest_bytes)); `None`
    /// on engines without those counters or when nothing was written.
    pub fn write_amplification(&self) -> Option<f64> {
        let ingested = self.ingest_bytes.filter(|&b| b > 0)? as f64;
        let written = self.wal_bytes? + self.flush_bytes? + self.compaction_write_bytes?;
        Some(written as f64 / ingested)
    }

    /// Cache misses that read a page: PostgreSQL's relation extensions count as misses but
    /// read nothing.
    pub fn reads(&self) -> u64 {
        self.cache_misses.unwrap_or(0).saturating_sub(self.pages_extended.unwrap_or(0))
    }

    /// Every counter multiplied by `k` (a 1/k scale model's counts as the full size's), except
    /// the syncs: the scale model commits once per batch and checkpoints after 1/k of the
    /// frames, as often as the full size does.
    pub fn scaled(mut self, k: u64) -> Counters {
        let syncs = self.syncs;
        for field in self.fields_mut() {
            *field = field.map(|v| v * k);
        }
        Counters { syncs, ..self }
    }

    /// Adds `other` into `self`, field by field (a field stays `None` only if both are).
    pub fn accumulate(&mut self, other: &Counters) {
        for (mine, (_, theirs)) in self.fields_mut().into_iter().zip(other.fields()) {
            if let Some(b) = theirs {
                *mine = Some(mine.unwrap_or(0) + b);
            }
        }
    }
}
