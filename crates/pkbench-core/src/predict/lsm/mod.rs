//! A model of what `pkbench run --engine myrocks` creates: a MyRocks table whose rows (and the
//! entries of a unique external key's index) go into RocksDB's memtable, are flushed to sorted
//! files and compacted down the levels ([`tree`]), each file's bytes found by writing the
//! strategy's real entries in RocksDB's table format ([`block`]). It replays the strategy's key
//! stream (the same `--seed` as `pkbench run`) and counts, per batch, what MyRocks' counters
//! count: bytes handed to RocksDB and its WAL, flushed, read and written by compactions, the
//! unique-key lookups and the bloom filters they check, and the files per level. The rules are
//! MariaDB 10.11's MyRocks with its defaults (64 MiB memtable, 4-file L0 trigger, 64 MiB files,
//! 256 MiB L1, ×10 per level), or the sizes a run recorded ([`Shape`]).
//!
//! Compactions run to completion after each flush, where RocksDB runs them in the background:
//! the bytes are the same, the levels at a given moment may be ahead. What they cost the inserts is
//! counted over the rows they run beside ([`running`]). Write stalls and block-cache traffic
//! are not modelled.

pub mod block;
pub mod running;
pub mod tree;

use super::PageModel;
use super::server::{ServerKey, refuse_heap, refuse_unmodelled};
use crate::Error;
use crate::generators::Key;
use crate::keys::{KeyRow, KeyStream};
use crate::results::{BtreeStats, Counters, LsmLevel};
use crate::strategy::{SecondaryLookup, Storage, Strategy};
use block::Entry;
use running::RunningCompactions;
use std::collections::BTreeMap;
pub use tree::Shape;
use tree::{File, Levels, Piece};

/// Engine name recorded in results.
pub const ENGINE: &str = "myrocks-model";
/// Whose rules the model follows.
pub const VERSION: &str = "model of MariaDB 10.11 MyRocks (RocksDB leveled compaction, block-based tables with Snappy)";

/// Memtable bytes of an entry beyond its encoded key and value: the skip list node's pointers
/// (1⅓ on average) and the arena's share left unused when the memtable switches. Measured:
/// `pkbench run --engine myrocks -s int,uuid7 -n 10M` flushes every 700k rows of 74- and
/// 82-byte entries (MariaDB 10.11, 100k-row batches), 16 bytes over their encoded size on
/// average.
const MEMTABLE_NODE_BYTES: f64 = 16.0;
/// Most entries written to measure a file's bytes per entry.
const SAMPLE_ENTRIES: u64 = 1_000_000;
/// The first index number MyRocks gives a table's indexes (below are its system indexes).
const FIRST_INDEX_NUMBER: u32 = 256;

/// One index of the table: which key orders it and how its entries are made.
struct Index {
    key: ServerKey,
    /// Storage of the primary key, which a secondary entry carries.
    primary: Storage,
    /// Bytes RocksDB counts as written per entry (`rocksdb_bytes_written`): record tag, key
    /// and value lengths, key, value. This and the two sizes below are set by
    /// [`measure_entries`].
    ingest_bytes: f64,
    /// Bytes an entry takes in the memtable.
    memtable_bytes: f64,
    /// Bytes per entry in a flushed file, and once compacted to the bottom (zeroed sequence
    /// numbers).
    file_bytes: (f64, f64),
    /// The value's bytes.
    value_bytes: usize,
}

/// Rows of the memtable not yet flushed, per index: their key range and count.
#[derive(Clone, Copy, Debug, Default)]
struct Pending {
    range: Option<(u128, u128)>,
    entries: u64,
}

/// A strategy's simulated MyRocks table.
pub struct LsmModel {
    keys: KeyStream,
    indexes: Vec<Index>,
    levels: Levels,
    memtable: Vec<Pending>,
    memtable_bytes: f64,
    rows: u64,
    flushes: u64,
    shape: Shape,
    /// The compactions running beside the inserts.
    running: RunningCompactions,
    /// The memtable's bytes where the last batch's inserts inside its key range landed, as
    /// their geometric mean: the working-set probe's curve is piecewise linear in log₂ of the
    /// size, so this prices them exactly where the curve is one straight line over the sizes they
    /// land at, and low where it steepens within them.
    jump_bytes: f64,
}

/// A key's mem-comparable bytes, as MyRocks stores it in an index entry.
fn key_bytes(key: Option<Key>, storage: Storage, counter: i64, out: &mut Vec<u8>) {
    match key {
        Some(Key::Int(v)) => out.extend_from_slice(&((v as u64) ^ (1 << 63)).to_be_bytes()),
        None => out.extend_from_slice(&((counter as u64) ^ (1 << 63)).to_be_bytes()),
        Some(Key::Uuid(b)) => match storage.text_encoding() {
            // A case-insensitive collation compares the uppercase letters.
            Some(encoding) => {
                let mut text = [0u8; 36];
                out.extend(encoding.encode(&b, &mut text).bytes().map(|c| c.to_ascii_uppercase()));
            }
            None => out.extend_from_slice(&storage.binary_form(b)),
        },
    }
}

/// Length of a varint32's encoding.
fn varint_len(v: usize) -> f64 {
    match v {
        0..0x80 => 1.0,
        0x80..0x4000 => 2.0,
        _ => 3.0,
    }
}

impl Index {
    /// The user key (index number, then its key bytes) of `row`'s entry in this index.
    fn user_key(&self, number: u32, row: &KeyRow, counter: i64, out: &mut Vec<u8>) {
        out.clear();
        out.extend_from_slice(&number.to_be_bytes());
        match self.key {
            ServerKey::Primary(s) => key_bytes(row.primary, s, counter, out),
            ServerKey::Secondary(s) => {
                key_bytes(row.secondary, s, counter, out);
                key_bytes(row.primary, self.primary, counter, out);
            }
        }
    }
}

/// Sizes each index's entries: encoded in the memtable and the write batch from their lengths,
/// in a file by writing the first memtable's worth of the strategy's own rows (or all `rows`, if
/// fewer) in RocksDB's table format.
fn measure_entries(indexes: &mut [Index], strategy: &Strategy, seed: u64, rows: u64, memtable_bytes: f64) {
    let mut stream = KeyStream::new(strategy, seed);
    let mut key = Vec::new();
    let payload = vec![0xa5u8; indexes[0].value_bytes];
    // The key's length from the first row (every key of an index has one length).
    let first = stream.next_row();
    for (i, index) in indexes.iter_mut().enumerate() {
        index.user_key(FIRST_INDEX_NUMBER + i as u32, &first, 1, &mut key);
        let (k, v) = (key.len(), index.value_bytes);
        index.ingest_bytes = 1.0 + varint_len(k) + k as f64 + varint_len(v) + v as f64;
        index.memtable_bytes = varint_len(k + 8) + (k + 8) as f64 + varint_len(v) + v as f64 + MEMTABLE_NODE_BYTES;
    }
    let per_row: f64 = indexes.iter().map(|i| i.memtable_bytes).sum();
    let rows = ((memtable_bytes / per_row) as u64).clamp(1, SAMPLE_ENTRIES).min(rows.max(1));
    let mut samples: Vec<Vec<(Entry, u64)>> = vec![Vec::with_capacity(rows as usize); indexes.len()];
    let mut row = first;
    for n in 1..=rows {
        if n > 1 {
            row = stream.next_row();
        }
        for (i, index) in indexes.iter().enumerate() {
            index.user_key(FIRST_INDEX_NUMBER + i as u32, &row, n as i64, &mut key);
            let value = if i == 0 { payload.clone() } else { Vec::new() };
            samples[i].push(((key.clone(), value), n * indexes.len() as u64 + i as u64));
        }
    }
    for (index, mut sample) in indexes.iter_mut().zip(samples) {
        sample.sort_unstable_by(|a, b| a.0.0.cmp(&b.0.0));
        index.file_bytes = (block::bytes_per_entry(&sample, false), block::bytes_per_entry(&sample, true));
    }
}

impl LsmModel {
    /// The table `strategy` creates with `payload_bytes` of payload per row, to be filled with
    /// `rows` rows (a smaller table's files are sized from its own rows) in a tree of `shape`.
    pub fn new(strategy: &Strategy, payload_bytes: u64, seed: u64, rows: u64, shape: Shape) -> Result<Self, Error> {
        refuse_unmodelled(strategy, ENGINE)?;
        refuse_heap(strategy, ENGINE, "RocksDB")?;
        let secondary = strategy.secondary.filter(|s| s.lookup == SecondaryLookup::UniqueIndex);
        // The primary key's value: the external key's column (fixed-length binary, or text) and
        // the payload BLOB with its 2-byte length.
        let ext_bytes = secondary.map_or(0, |s| match s.storage.text_encoding() {
            Some(e) => e.text_len() + 1,
            None => 16,
        });
        let mut indexes = vec![Index {
            key: ServerKey::Primary(strategy.primary.storage),
            primary: strategy.primary.storage,
            ingest_bytes: 0.0,
            memtable_bytes: 0.0,
            file_bytes: (0.0, 0.0),
            value_bytes: ext_bytes + 2 + payload_bytes as usize,
        }];
        if let Some(s) = secondary {
            indexes.push(Index {
                key: ServerKey::Secondary(s.storage),
                primary: strategy.primary.storage,
                ingest_bytes: 0.0,
                memtable_bytes: 0.0,
                file_bytes: (0.0, 0.0),
                value_bytes: 0,
            });
        }
        measure_entries(&mut indexes, strategy, seed, rows, shape.memtable_bytes);
        let shrink = indexes.iter().map(|i| i.file_bytes.1 / i.file_bytes.0.max(f64::MIN_POSITIVE)).collect();
        // A flush's compactions run until L0 holds enough files for the next: that many memtables,
        // each flushed at the first row that fills it.
        let memtable_rows = (shape.memtable_bytes / indexes.iter().map(|i| i.memtable_bytes).sum::<f64>()).ceil();
        let running = RunningCompactions::new((memtable_rows * shape.l0_trigger as f64) as u64);
        Ok(LsmModel {
            keys: KeyStream::new(strategy, seed),
            memtable: vec![Pending::default(); indexes.len()],
            indexes,
            levels: Levels::new(shape, shrink),
            memtable_bytes: 0.0,
            rows: 0,
            flushes: 0,
            shape,
            running,
            jump_bytes: 0.0,
        })
    }

    /// Writes the memtable to an L0 file and lets compactions settle.
    fn flush(&mut self) -> (f64, tree::Work) {
        let mut pieces = Vec::new();
        for (i, pending) in self.memtable.iter_mut().enumerate() {
            let Some((lo, hi)) = pending.range.take() else { continue };
            let entries = std::mem::take(&mut pending.entries) as f64;
            let bytes = entries * self.indexes[i].file_bytes.0;
            pieces.push(Piece { lo: (i as u8, lo), hi: (i as u8, hi), seq_bytes: bytes, zero_bytes: 0.0, entries });
        }
        self.memtable_bytes = 0.0;
        if pieces.is_empty() {
            return (0.0, tree::Work::default());
        }
        self.flushes += 1;
        let file = File { pieces };
        let bytes = file.bytes();
        (bytes, self.levels.flush(file))
    }
}

/// `bytes` in MiB, to a tenth.
fn mib(bytes: f64) -> String {
    format!("{:.1} MiB", bytes / 1_048_576.0)
}

impl PageModel for LsmModel {
    fn insert_batch(&mut self, n: u64) -> Counters {
        let (mut flushed, mut work) = (0.0, tree::Work::default());
        let (mut ingest, mut filters, mut steps, mut beside) = (0.0, 0, 0.0, 0.0);
        let (mut jumps, mut log_bytes) = (0_u64, 0.0);
        for _ in 0..n {
            let row = self.keys.next_row();
            self.rows += 1;
            beside += self.running.beside(self.rows);
            for (i, index) in self.indexes.iter().enumerate() {
                let key = index.key.value(&row, self.rows as i64);
                filters += self.levels.filters_checked((i as u8, key));
                // RocksDB keeps where the last insert went: a key past the largest appends there;
                // one inside the range descends the skip list of every index's entries.
                if self.memtable[i].range.is_some_and(|(_, hi)| key < hi) {
                    let entries: u64 = self.memtable.iter().map(|p| p.entries).sum();
                    steps += ((entries + 1) as f64).log2();
                    jumps += 1;
                    log_bytes += self.memtable_bytes.max(1.0).log2();
                }
                let pending = &mut self.memtable[i];
                pending.range = Some(pending.range.map_or((key, key), |(lo, hi)| (lo.min(key), hi.max(key))));
                pending.entries += 1;
                ingest += index.ingest_bytes;
                self.memtable_bytes += index.memtable_bytes;
            }
            if self.memtable_bytes >= self.shape.memtable_bytes {
                let (bytes, w) = self.flush();
                flushed += bytes;
                self.running.start(self.rows, w.read_bytes + w.write_bytes);
                work.add(w);
            }
        }
        // One write batch per statement of 1,000 rows: its 12-byte header; the WAL adds a 7-byte
        // header per 32 KiB block it fills.
        let statements = n.div_ceil(1000) as f64;
        let ingest = ingest + 12.0 * statements;
        let wal = ingest + 7.0 * (ingest / 32768.0).ceil();
        self.jump_bytes = if jumps == 0 { 0.0 } else { (log_bytes / jumps as f64).exp2() };
        Counters {
            ingest_bytes: Some(ingest.round() as u64),
            wal_bytes: Some(wal.round() as u64),
            flush_bytes: Some(flushed.round() as u64),
            compaction_read_bytes: Some(work.read_bytes.round() as u64),
            compaction_write_bytes: Some(work.write_bytes.round() as u64),
            compaction_running_bytes: Some(beside.round() as u64),
            // Each insert into a unique index looks its key up first.
            keys_read: Some(n * self.indexes.len() as u64),
            bloom_checks: Some(filters),
            memtable_steps: Some(steps.round() as u64),
            leaf_jumps: Some(jumps),
            ..Counters::default()
        }
    }

    fn entries(&self) -> Vec<u64> {
        (0..self.indexes.len())
            .map(|i| {
                let in_files: f64 = self
                    .levels
                    .files()
                    .iter()
                    .flatten()
                    .flat_map(|f| &f.pieces)
                    .filter(|p| usize::from(p.lo.0) == i)
                    .map(|p| p.entries)
                    .sum();
                in_files.round() as u64 + self.memtable[i].entries
            })
            .collect()
    }

    fn btree_stats(&self) -> Vec<BtreeStats> {
        Vec::new()
    }

    /// The sorted files, and the memtable as it would be flushed (a run measures after a flush).
    fn size_bytes(&self) -> u64 {
        let files: f64 = self.levels.files().iter().flatten().map(File::bytes).sum();
        let memtable: f64 =
            self.memtable.iter().zip(&self.indexes).map(|(p, i)| p.entries as f64 * i.file_bytes.0).sum();
        (files + memtable).round() as u64
    }

    /// The memtable, not the engine's cache: a jump here is an insert inside its key range.
    fn jump_in_use(&self, _cache_bytes: u64, _scale: u64) -> u64 {
        self.jump_bytes.round() as u64
    }

    fn memory_bytes(&self) -> u64 {
        let files: usize = self.levels.files().iter().flatten().map(|f| f.pieces.len()).sum();
        (files * std::mem::size_of::<Piece>() + std::mem::size_of::<Self>()) as u64
    }

    fn levels(&self) -> Option<Vec<LsmLevel>> {
        let levels = self.levels.files();
        let deepest = levels.iter().rposition(|l| !l.is_empty()).unwrap_or(0);
        Some(
            (0..=deepest.max(1))
                .map(|n| LsmLevel {
                    level: format!("L{n}"),
                    files: levels[n].len() as u64,
                    size_bytes: levels[n].iter().map(File::bytes).sum::<f64>().round() as u64,
                    score: self.levels.score(n),
                })
                .collect(),
        )
    }

    fn describe(&self, options: &mut BTreeMap<String, String>) {
        options.insert(
            "model".into(),
            format!(
                "MariaDB 10.11 MyRocks: memtable flushes and leveled compaction over key ranges (write_buffer_size {}, level0_file_num_compaction_trigger {}, target_file_size_base {}, max_bytes_for_level_base {}, multiplier {}); compactions settle after each flush",
                mib(self.shape.memtable_bytes),
                self.shape.l0_trigger,
                mib(self.shape.target_file_bytes),
                mib(self.shape.level_base_bytes),
                self.shape.multiplier
            ),
        );
        for (i, index) in self.indexes.iter().enumerate() {
            let name = if i == 0 { "primary" } else { "ext_id" };
            options.insert(
                format!("entry_bytes_{name}"),
                format!(
                    "{:.1} written, {:.1} in a flushed file, {:.1} at the bottom (sequence numbers zeroed)",
                    index.ingest_bytes, index.file_bytes.0, index.file_bytes.1
                ),
            );
        }
        options.insert("memtable_flushes".into(), self.flushes.to_string());
        options.insert(
            "compaction_running_rows".into(),
            format!(
                "{} (a flush's compaction bytes spread over the rows of the next {} memtables)",
                self.running.window(),
                self.shape.l0_trigger
            ),
        );
        options.insert(
            "not_modelled".into(),
            "write stalls, block-cache hits and misses (insert time only with --calibrate)".into(),
        );
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::strategy::find;

    /// `rows` rows of `strategy` in batches of 100k: the model and its summed counters.
    fn run(strategy: &str, rows: u64) -> (LsmModel, Counters) {
        let mut model = LsmModel::new(find(strategy).unwrap(), 50, 42, rows, Shape::MYROCKS).unwrap();
        let mut total = Counters::default();
        for _ in 0..rows / 100_000 {
            total.accumulate(&model.insert_batch(100_000));
        }
        (model, total)
    }

    #[test]
    fn every_row_is_in_a_file_or_the_memtable_and_each_unique_key_is_looked_up() {
        let (int, int_counts) = run("int", 2_000_000);
        assert_eq!(int.entries(), [2_000_000]);
        let (uuid4, uuid4_counts) = run("int+uuid4", 2_000_000);
        assert_eq!(uuid4.entries(), [2_000_000, 2_000_000], "the primary key and the external key's index");
        assert_eq!(
            int_counts.ingest_bytes.unwrap() / 2_000_000,
            67,
            "MyRocks' 67 bytes per int row with 50 of payload"
        );
        assert_eq!(uuid4_counts.keys_read, Some(4_000_000), "both unique keys are looked up");
        assert_eq!(int_counts.memtable_steps, Some(0), "an ordered key appends to the memtable");
        // The external key's random inserts descend about log2 of the memtable's entries each.
        let steps = uuid4_counts.memtable_steps.unwrap() as f64 / 2_000_000.0;
        assert!((15.0..22.0).contains(&steps), "{steps}");
        // Each of those is a jump, priced in the memtable (see the test below).
        assert_eq!(int_counts.leaf_jumps, Some(0));
        let jumps = uuid4_counts.leaf_jumps.unwrap();
        assert!((1_999_000..=2_000_000).contains(&jumps), "{jumps}");
        let in_use = uuid4.jump_in_use(1 << 40, 16);
        assert!(in_use > 0 && in_use as f64 <= Shape::MYROCKS.memtable_bytes, "{in_use}");
        let flushed = int_counts.flush_bytes.unwrap();
        assert!(flushed > 0 && int.flushes >= 2, "{int_counts:?}");
        // An ordered key's files are only rewritten once, at the bottom, to zero sequence numbers.
        assert!(int_counts.compaction_write_bytes.unwrap() <= flushed, "{int_counts:?}");
        let levels = uuid4.levels().unwrap();
        assert!(levels.iter().any(|l| l.files > 0) && levels[0].level == "L0", "{levels:?}");
        let size = uuid4.size_bytes() as f64;
        let files: f64 = levels.iter().map(|l| l.size_bytes as f64).sum();
        assert!(size >= files, "the memtable counts as flushed: {size} vs {files}");
    }

    #[test]
    fn a_batchs_jumps_land_in_the_memtable_as_it_grows_not_in_the_cache() {
        // Twenty 1 MiB memtables in one batch: a size growing evenly from empty each time, whose
        // geometric mean is 1/e of a full one.
        let mib = 1048576.0;
        let shape =
            Shape { memtable_bytes: mib, target_file_bytes: mib, level_base_bytes: 4.0 * mib, ..Shape::MYROCKS };
        let mut model = LsmModel::new(find("uuid4").unwrap(), 50, 42, 1_000_000, shape).unwrap();
        let rows = (20.0 * mib / model.indexes[0].memtable_bytes) as u64;
        let counts = model.insert_batch(rows);
        // All but the few that each memtable's first keys set a new largest key past.
        assert!(counts.leaf_jumps.unwrap() > rows * 999 / 1000, "{counts:?}");
        let mean = model.jump_in_use(1 << 40, 1) as f64 / mib;
        assert!((mean - 1.0 / std::f64::consts::E).abs() < 0.02, "{mean}");
        let ordered = LsmModel::new(find("int").unwrap(), 50, 42, 1_000_000, shape).unwrap().insert_batch(rows);
        assert_eq!(ordered.leaf_jumps, Some(0), "an ordered key appends: no jump");
    }

    #[test]
    fn compaction_bytes_run_beside_the_rows_of_the_next_four_memtables() {
        let mib = 1_048_576.0;
        let shape =
            Shape { memtable_bytes: mib, target_file_bytes: mib, level_base_bytes: 4.0 * mib, ..Shape::MYROCKS };
        for strategy in ["uuid4", "int+uuid4"] {
            let mut model = LsmModel::new(find(strategy).unwrap(), 50, 42, 400_000, shape).unwrap();
            let (mut flushed_at, mut first) = (Vec::new(), None);
            let (mut compacted, mut beside) = (0.0, 0.0);
            for _ in 0..400_000 {
                let flushes = model.flushes;
                let c = model.insert_batch(1);
                if model.flushes > flushes {
                    flushed_at.push(model.rows);
                }
                let work = (c.compaction_read_bytes.unwrap() + c.compaction_write_bytes.unwrap()) as f64;
                if work > 0.0 && first.is_none() {
                    first = Some((model.rows, work));
                }
                compacted += work;
                beside += c.compaction_running_bytes.unwrap() as f64;
            }
            // Each flush fills the same rows of both indexes' entries; four of them make the window.
            let gaps: Vec<u64> = flushed_at.windows(2).map(|w| w[1] - w[0]).collect();
            assert!(gaps.len() > 8 && gaps.iter().all(|&g| g == gaps[0]), "{strategy}: {gaps:?}");
            assert_eq!(model.running.window(), 4 * gaps[0], "{strategy}");
            // The compaction starts after the row that flushed: the next row runs beside it.
            let (row, work) = first.expect("a 1 MiB memtable compacts L0 within 400k rows");
            let mut alone = LsmModel::new(find(strategy).unwrap(), 50, 42, 400_000, shape).unwrap();
            let _ = alone.insert_batch(row);
            let next = alone.insert_batch(1).compaction_running_bytes.unwrap() as f64;
            assert!(next >= (work / model.running.window() as f64).floor(), "{strategy}: {next} of {work}");
            // Every byte is counted beside a row or still owed (each row's count rounded).
            let owed = model.running.owed(model.rows);
            assert!(
                (beside + owed - compacted).abs() <= 400_000.0 * 0.5,
                "{strategy}: {beside} + {owed} vs {compacted}"
            );
        }
    }

    #[test]
    fn keys_a_server_makes_or_a_mapping_table_are_refused() {
        assert!(LsmModel::new(find("uuid4-rowid").unwrap(), 50, 42, 1000, Shape::MYROCKS).is_err());
    }
}
