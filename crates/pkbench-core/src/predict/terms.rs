//! The costs the time fit estimates: one non-negative cost per kind of work, shared by every
//! strategy, so a key differs from another only by how much of each work it does.

use super::ModelEngine;
use super::layout::{Layout, key_bytes_per_row};
use crate::Error;
use crate::results::Counters;
use crate::strategy::Strategy;

/// One kind of work, priced per unit by the fit.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Term {
    /// Per row: binding, stepping and resetting the insert statement.
    Rows,
    /// Per B-tree entry (rows × trees): a descent and a cell insert in each tree.
    TreeEntries,
    /// Per byte of client-generated key (BLOB/TEXT keys; an integer key has none): binding,
    /// copying and comparing it.
    KeyBytes,
    /// Per cache miss: a page read from the operating system's page cache.
    Misses,
    /// Per WAL-index hash table searched by a miss (`walFindFrame`, one per 4096 WAL frames).
    WalHashSearches,
    /// Per page written to the WAL (spilled or committed), its share of the commit's sync
    /// included.
    PagesWritten,
    /// Per page a checkpoint makes durable: SQLite's, copied from the WAL into the database file
    /// and synced; PostgreSQL's, first modified (or added) since the last checkpoint and flushed
    /// to the device by the next one's sync, whoever wrote it to the OS.
    CheckpointPages,
    /// Per file sync the inserting connection waits for (SQLite's: at each commit, two at each
    /// checkpoint, and the WAL's new header after one): the fixed part of a flush, whatever it
    /// flushes; the pages' share is in the per-page costs. A calibration's batches commit once
    /// each, so this cost is told apart from the per-row cost by the batches that checkpoint (two
    /// syncs more), the batches after them (the header's) and those with neither.
    Syncs,
    /// Per byte of write-ahead log (PostgreSQL: records and full-page images), its share of the
    /// commit's flush included.
    WalBytes,
    /// Per page first dirtied in a batch (InnoDB: each will be written back by the page cleaner,
    /// in the background but on the same device and CPUs).
    PagesDirtied,
    /// Per skip-list level an insert into the memtable descends (RocksDB: log₂ of its entries for
    /// a key inside its range; an ordered key appends at the end).
    MemtableSteps,
    /// Per bloom filter a unique-key lookup checks (RocksDB: each L0 file and one file per
    /// deeper level whose key range holds the key).
    FilterChecks,
    /// Per byte a compaction reads or writes (RocksDB's, in the background but on the same
    /// device and CPUs), counted over the rows it runs beside (`compaction_running_bytes`).
    CompactionBytes,
}

impl Term {
    /// SQLite's terms, in the order of the fit's columns.
    pub const SQLITE: [Term; 8] = [
        Term::Rows,
        Term::TreeEntries,
        Term::KeyBytes,
        Term::Misses,
        Term::WalHashSearches,
        Term::PagesWritten,
        Term::CheckpointPages,
        Term::Syncs,
    ];
    /// PostgreSQL's: its model counts buffer reads, buffers written, WAL bytes and the pages each
    /// checkpoint flushes.
    pub const POSTGRES: [Term; 7] = [
        Term::Rows,
        Term::TreeEntries,
        Term::KeyBytes,
        Term::Misses,
        Term::PagesWritten,
        Term::WalBytes,
        Term::CheckpointPages,
    ];
    /// InnoDB's: its model counts buffer pool reads and pages dirtied (not the page cleaner's
    /// writes, see `server::innodb`).
    pub const INNODB: [Term; 5] = [Term::Rows, Term::TreeEntries, Term::KeyBytes, Term::Misses, Term::PagesDirtied];
    /// MyRocks': its model counts the memtable's skip-list levels each insert descends, the
    /// bloom filters each unique check meets and the bytes of compaction running beside each
    /// batch (not the block cache, see `lsm`).
    pub const MYROCKS: [Term; 6] =
        [Term::Rows, Term::TreeEntries, Term::KeyBytes, Term::MemtableSteps, Term::FilterChecks, Term::CompactionBytes];

    /// The terms the time of `engine`'s batches is fitted with.
    pub fn for_engine(engine: ModelEngine) -> &'static [Term] {
        match engine {
            ModelEngine::Sqlite => &Term::SQLITE,
            ModelEngine::Postgres | ModelEngine::PostgresFdw => &Term::POSTGRES,
            ModelEngine::MariaDb | ModelEngine::Spider => &Term::INNODB,
            ModelEngine::MyRocks => &Term::MYROCKS,
        }
    }

    /// What one unit is, for "µs per …".
    pub fn unit(self) -> &'static str {
        match self {
            Term::Rows => "row",
            Term::TreeEntries => "B-tree entry",
            Term::KeyBytes => "key byte",
            Term::Misses => "cache miss",
            Term::WalHashSearches => "WAL-index hash table searched",
            Term::PagesWritten => "page written",
            Term::CheckpointPages => "checkpoint page",
            Term::Syncs => "file sync",
            Term::WalBytes => "WAL byte",
            Term::PagesDirtied => "page dirtied",
            Term::MemtableSteps => "memtable skip-list level descended",
            Term::FilterChecks => "bloom filter checked",
            Term::CompactionBytes => "byte compacted",
        }
    }

    /// Whether the term follows from the strategy's table alone (rows × a constant of the
    /// strategy), not from what the cache did.
    pub fn structural(self) -> bool {
        matches!(self, Term::Rows | Term::TreeEntries | Term::KeyBytes)
    }

    /// Whether the term counts pages: a cost per unit is then what one page's work costs, which
    /// the device probes can set beside it.
    pub fn per_page(self) -> bool {
        matches!(self, Term::Misses | Term::PagesWritten | Term::CheckpointPages | Term::PagesDirtied)
    }

    /// What to change when the calibration cannot tell this cost apart from the others.
    pub fn remedy(self) -> &'static str {
        match self {
            Term::Rows | Term::TreeEntries | Term::KeyBytes => {
                "calibrate strategies whose tables differ (e.g. add int or uuid4-text to -s)"
            }
            Term::Misses | Term::WalHashSearches => {
                "give the calibration more cache pressure (a larger --calibrate-rows, or a smaller --cache-mb) so misses vary across its batches"
            }
            Term::FilterChecks | Term::MemtableSteps => {
                "use a larger --calibrate-rows, so the calibration meets more flushes and L0 files"
            }
            Term::PagesWritten
            | Term::CheckpointPages
            | Term::Syncs
            | Term::WalBytes
            | Term::PagesDirtied
            | Term::CompactionBytes => {
                "use a larger --calibrate-rows so the calibration's batches write and checkpoint different amounts"
            }
        }
    }

    /// This term's units in a batch of `rows` rows of a strategy shaped `shape` whose model
    /// counted `counters`.
    pub fn value(self, shape: Shape, counters: &Counters, rows: u64) -> f64 {
        let count = |c: Option<u64>| c.unwrap_or(0) as f64;
        match self {
            Term::Rows => rows as f64,
            Term::TreeEntries => (rows * u64::from(shape.trees)) as f64,
            Term::KeyBytes => (rows * u64::from(shape.key_bytes)) as f64,
            Term::Misses => count(counters.cache_misses),
            Term::WalHashSearches => count(counters.wal_hash_searches),
            Term::PagesWritten => count(counters.pages_written),
            Term::CheckpointPages => count(counters.checkpoint_pages),
            Term::Syncs => count(counters.syncs),
            Term::WalBytes => count(counters.wal_bytes),
            Term::PagesDirtied => count(counters.pages_dirtied),
            Term::MemtableSteps => count(counters.memtable_steps),
            Term::FilterChecks => count(counters.bloom_checks),
            Term::CompactionBytes => count(counters.compaction_running_bytes),
        }
    }
}

/// What a strategy's table is made of, for the structural terms.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Shape {
    /// B-trees each row goes into.
    pub trees: u32,
    /// Client-generated key bytes per row.
    pub key_bytes: u32,
}

impl Shape {
    /// The shape of `strategy`'s SQLite table.
    pub fn sqlite(strategy: &Strategy, payload_bytes: u64, page_size: u32) -> Result<Shape, Error> {
        let layout = Layout::sqlite(strategy, payload_bytes as u32, page_size)?;
        Ok(Shape { trees: layout.trees.len() as u32, key_bytes: key_bytes_per_row(strategy) })
    }

    /// The shape of `strategy`'s table on `engine`: on the servers, the table (PostgreSQL's
    /// heap, InnoDB's clustered index, MyRocks' primary key) and one tree per unique key index.
    pub fn of(engine: ModelEngine, strategy: &Strategy, payload_bytes: u64, page_size: u32) -> Result<Shape, Error> {
        use crate::strategy::SecondaryLookup;
        let indexed = strategy.secondary.is_some_and(|s| s.lookup == SecondaryLookup::UniqueIndex);
        match engine {
            ModelEngine::Sqlite => Shape::sqlite(strategy, payload_bytes, page_size),
            // Heap + primary key (+ external key).
            ModelEngine::Postgres | ModelEngine::PostgresFdw => {
                Ok(Shape { trees: 2 + u32::from(indexed), key_bytes: key_bytes_per_row(strategy) })
            }
            ModelEngine::MariaDb | ModelEngine::Spider | ModelEngine::MyRocks => {
                Ok(Shape { trees: 1 + u32::from(indexed), key_bytes: key_bytes_per_row(strategy) })
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::strategy::find;

    #[test]
    fn shapes_of_the_usual_keys() {
        let shape = |s| Shape::sqlite(find(s).unwrap(), 50, 4096).unwrap();
        assert_eq!(shape("int"), Shape { trees: 1, key_bytes: 0 });
        assert_eq!(shape("uuid4"), Shape { trees: 1, key_bytes: 16 });
        assert_eq!(shape("uuid4-text"), Shape { trees: 1, key_bytes: 36 });
        assert_eq!(shape("int+uuid4"), Shape { trees: 2, key_bytes: 16 });
    }
}
