//! RocksDB's leveled compaction over sorted files, simulated from their key ranges: a flushed
//! memtable becomes an L0 file; L0 is compacted into L1 once it holds the trigger's number of
//! files; a level above its target size sends one file down, merged with the files of the next
//! level it overlaps (or moved without a rewrite when it overlaps none). The rules are RocksDB's
//! `LevelCompactionPicker` with MyRocks' defaults: `kMinOverlappingRatio` picks the file, levels
//! have static targets (`level_compaction_dynamic_level_bytes=false`).
//!
//! A file is a key range per index it holds, with that index's bytes spread evenly over its
//! range. That is exact for the files of an ordered key (each holds one narrow, new range) and,
//! for a random key, true on average (a flushed file spans the whole key space, evenly); a
//! compaction's output is cut where the merged inputs' bytes reach the target file size. Files
//! at the bottom of the tree are rewritten once to zero their sequence numbers, which makes
//! them smaller (RocksDB's bottommost-file compaction).

use crate::engine_facts::myrocks;

/// Most L0 files a point read checks without comparing their key ranges, when no deeper level
/// holds files (RocksDB's `FilePicker::GetNextFile`).
pub const L0_UNRANGED_FILES: usize = 3;

/// A key's place in the column family: the index's number, then the key's order-preserving form.
pub type Pos = (u8, u128);

/// One index's entries in a file: its key range, with its bytes spread evenly over it.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Piece {
    /// The smallest key (`lo.0 == hi.0`).
    pub lo: Pos,
    /// The largest key.
    pub hi: Pos,
    /// Bytes on disk of entries that still carry their sequence numbers.
    pub seq_bytes: f64,
    /// Bytes on disk of entries whose sequence numbers a bottommost compaction zeroed.
    pub zero_bytes: f64,
    /// Entries.
    pub entries: f64,
}

impl Piece {
    /// Bytes on disk.
    pub fn bytes(&self) -> f64 {
        self.seq_bytes + self.zero_bytes
    }

    /// Keys the range spans, as a float (the upper end counted).
    fn span(&self) -> f64 {
        (self.hi.1 - self.lo.1) as f64 + 1.0
    }
}

/// One sorted (SST) file: a piece per index it holds keys of, in key order.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct File {
    /// The pieces, sorted and disjoint.
    pub pieces: Vec<Piece>,
}

impl File {
    /// An empty file spanning [lo, hi]: what an overlap test compares a set of files with.
    fn span(lo: Pos, hi: Pos) -> File {
        File { pieces: vec![Piece { lo, hi, seq_bytes: 0.0, zero_bytes: 0.0, entries: 0.0 }] }
    }

    /// Its smallest key.
    pub fn lo(&self) -> Pos {
        self.pieces.first().map_or((0, 0), |p| p.lo)
    }

    /// Its largest key.
    pub fn hi(&self) -> Pos {
        self.pieces.last().map_or((0, 0), |p| p.hi)
    }

    /// Bytes on disk.
    pub fn bytes(&self) -> f64 {
        self.pieces.iter().map(Piece::bytes).sum()
    }

    /// Whether every entry's sequence number is zeroed.
    fn zeroed(&self) -> bool {
        self.pieces.iter().all(|p| p.seq_bytes <= 0.0)
    }

    /// RocksDB compares files by their smallest and largest keys only.
    fn overlaps(&self, other: &File) -> bool {
        self.lo() <= other.hi() && other.lo() <= self.hi()
    }

    /// Whether `key` lies within the file's range (a point read checks its bloom filter then).
    pub fn covers(&self, key: Pos) -> bool {
        self.lo() <= key && key <= self.hi()
    }
}

/// The shape RocksDB gives the tree (`ROCKSDB_CF_OPTIONS`).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Shape {
    /// The memtable's size, whose flush makes an L0 file (`write_buffer_size`).
    pub memtable_bytes: f64,
    /// L0 files that start an L0 → L1 compaction (`level0_file_num_compaction_trigger`).
    pub l0_trigger: usize,
    /// Bytes a compaction output file is cut at (`target_file_size_base`; the multiplier is 1).
    pub target_file_bytes: f64,
    /// L1's target size (`max_bytes_for_level_base`).
    pub level_base_bytes: f64,
    /// Each level's target over the one above (`max_bytes_for_level_multiplier`).
    pub multiplier: f64,
    /// Levels, L0 included (`num_levels`).
    pub levels: usize,
}

impl Shape {
    /// MyRocks' defaults on MariaDB 10.11: a 64 MiB memtable, a 4-file L0 trigger, 64 MiB
    /// files, a 256 MiB L1, ×10 per level, seven levels.
    pub const MYROCKS: Shape = Shape {
        memtable_bytes: myrocks::MEMTABLE_BYTES as f64,
        l0_trigger: myrocks::L0_TRIGGER as usize,
        target_file_bytes: myrocks::TARGET_FILE_BYTES as f64,
        level_base_bytes: myrocks::LEVEL_BASE_BYTES as f64,
        multiplier: myrocks::LEVEL_MULTIPLIER,
        levels: 7,
    };

    /// Level `n`'s (n ≥ 1) target size.
    fn target(&self, n: usize) -> f64 {
        self.level_base_bytes * self.multiplier.powi(n as i32 - 1)
    }

    /// The shape a run recorded (its `rocksdb_cf_*` settings, read from `ROCKSDB_CF_OPTIONS`),
    /// each option it lacks MyRocks' default.
    pub fn from_settings(settings: &std::collections::BTreeMap<String, String>) -> Shape {
        let get = |name: &str| settings.get(&format!("rocksdb_cf_{name}")).and_then(|v| v.trim().parse::<f64>().ok());
        let d = Shape::MYROCKS;
        Shape {
            memtable_bytes: get("write_buffer_size").unwrap_or(d.memtable_bytes),
            l0_trigger: get("level0_file_num_compaction_trigger").map_or(d.l0_trigger, |v| v as usize),
            target_file_bytes: get("target_file_size_base").unwrap_or(d.target_file_bytes),
            level_base_bytes: get("max_bytes_for_level_base").unwrap_or(d.level_base_bytes),
            multiplier: get("max_bytes_for_level_multiplier").unwrap_or(d.multiplier),
            levels: d.levels,
        }
    }
}

/// What compactions read and wrote.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Work {
    /// Bytes of input files merged.
    pub read_bytes: f64,
    /// Bytes of output files written.
    pub write_bytes: f64,
    /// Bytes of files moved down a level without a rewrite.
    pub moved_bytes: f64,
}

impl Work {
    /// Adds `other`'s bytes.
    pub fn add(&mut self, other: Work) {
        self.read_bytes += other.read_bytes;
        self.write_bytes += other.write_bytes;
        self.moved_bytes += other.moved_bytes;
    }
}

/// The levels: L0's files newest last, each deeper level's sorted by key and disjoint.
#[derive(Clone, Debug)]
pub struct Levels {
    shape: Shape,
    /// Per index: an entry's bytes once its sequence number is zeroed ÷ before.
    shrink: Vec<f64>,
    /// `files[0]` is L0.
    files: Vec<Vec<File>>,
}

impl Levels {
    /// An empty tree; `shrink` is each index's bytes with zeroed sequence numbers ÷ without.
    pub fn new(shape: Shape, shrink: Vec<f64>) -> Self {
        Levels { shape, shrink, files: vec![Vec::new(); shape.levels.max(2)] }
    }

    /// Each level's files.
    pub fn files(&self) -> &[Vec<File>] {
        &self.files
    }

    /// The bloom filters a point read of `key` (one not in the tree, as a unique check's is)
    /// checks: each L0 file whose range holds the key, and in each deeper level the one file
    /// whose range holds it. A key beyond every file's range checks none — except while the
    /// tree is L0 alone with at most [`L0_UNRANGED_FILES`] files, where RocksDB's `FilePicker`
    /// skips the range test and checks every file's filter.
    pub fn filters_checked(&self, key: Pos) -> u64 {
        let l0 = &self.files[0];
        if l0.len() <= L0_UNRANGED_FILES && self.files[1..].iter().all(Vec::is_empty) {
            return l0.len() as u64;
        }
        let l0 = l0.iter().filter(|f| f.covers(key)).count();
        let deeper = self.files[1..]
            .iter()
            .filter(|level| {
                let i = level.partition_point(|f| f.hi() < key);
                level.get(i).is_some_and(|f| f.covers(key))
            })
            .count();
        (l0 + deeper) as u64
    }

    /// RocksDB's compaction score of level `n`: L0's files over the trigger, a deeper level's
    /// bytes over its target.
    pub fn score(&self, n: usize) -> f64 {
        match n {
            0 => self.files[0].len() as f64 / self.shape.l0_trigger as f64,
            // A fold from +0: an empty level's score is 0, not the -0 an empty float sum gives.
            _ => self.files[n].iter().fold(0.0, |sum, f| sum + f.bytes()) / self.shape.target(n),
        }
    }

    /// Adds a flushed memtable as an L0 file, then compacts until no level is over its target,
    /// as the background compactions would before the next flush; last, the files at the bottom
    /// that still carry sequence numbers are rewritten in place to zero them (RocksDB marks
    /// them for compaction once no snapshot needs them).
    pub fn flush(&mut self, file: File) -> Work {
        self.files[0].push(file);
        let mut work = Work::default();
        loop {
            // The highest score at or above 1 goes first; the last level never compacts down.
            let last = self.files.len() - 1;
            let next =
                (0..last).filter(|&n| self.score(n) >= 1.0).max_by(|&a, &b| self.score(a).total_cmp(&self.score(b)));
            match next {
                Some(0) => work.add(self.compact_l0()),
                Some(n) => work.add(self.compact_level(n)),
                None => match self.marked_bottommost() {
                    Some((n, i)) => work.add(self.zero_in_place(n, i)),
                    None => return work,
                },
            }
        }
    }

    /// Whether no file deeper than level `n` overlaps `file` (RocksDB's
    /// `RangeMightExistAfterSortedRun`; an L0 file counts only when it is the oldest and every
    /// deeper level is empty).
    fn bottommost(&self, n: usize, file: &File, oldest_l0: bool) -> bool {
        let deeper = &self.files[n + 1..];
        match n {
            0 => oldest_l0 && deeper.iter().all(Vec::is_empty),
            _ => deeper.iter().flatten().all(|g| !g.overlaps(file)),
        }
    }

    /// The first bottommost file that still carries sequence numbers.
    fn marked_bottommost(&self) -> Option<(usize, usize)> {
        (0..self.files.len()).find_map(|n| {
            let files = &self.files[n];
            (0..files.len()).find(|&i| !files[i].zeroed() && self.bottommost(n, &files[i], i == 0)).map(|i| (n, i))
        })
    }

    /// Zeroes `file`'s sequence numbers: each index's entries shrink by its ratio.
    fn zero(&self, file: &mut File) {
        for p in &mut file.pieces {
            p.zero_bytes += p.seq_bytes * self.shrink.get(usize::from(p.lo.0)).copied().unwrap_or(1.0);
            p.seq_bytes = 0.0;
        }
    }

    /// Rewrites file `i` of level `n` in place with zeroed sequence numbers.
    fn zero_in_place(&mut self, n: usize, i: usize) -> Work {
        let mut file = std::mem::take(&mut self.files[n][i]);
        let before = file.bytes();
        self.zero(&mut file);
        let write_bytes = file.bytes();
        self.files[n][i] = file;
        Work { read_bytes: before, write_bytes, moved_bytes: 0.0 }
    }

    /// L0 into L1: the newest L0 file, with every L0 file its range (growing as files join)
    /// overlaps, and the L1 files they overlap. A single file that overlaps nothing is moved
    /// without a rewrite; the other L0 files stay. (Measured on MariaDB 10.11's MyRocks: with an
    /// ordered key, each compaction moves the newest file and L0 keeps its three oldest.)
    fn compact_l0(&mut self) -> Work {
        let l0 = &self.files[0];
        let mut picked = vec![l0.len() - 1];
        let mut span = l0[l0.len() - 1].clone();
        loop {
            let joining: Vec<usize> = (0..l0.len()).filter(|i| !picked.contains(i) && l0[*i].overlaps(&span)).collect();
            if joining.is_empty() {
                break;
            }
            for i in joining {
                let (lo, hi) = (span.lo().min(l0[i].lo()), span.hi().max(l0[i].hi()));
                span = File::span(lo, hi);
                picked.push(i);
            }
        }
        let overlapping: Vec<usize> = (0..self.files[1].len()).filter(|&j| self.files[1][j].overlaps(&span)).collect();
        picked.sort_unstable();
        let inputs = self.take(0, &picked);
        if inputs.len() == 1 && overlapping.is_empty() {
            let moved_bytes = inputs[0].bytes();
            self.insert_sorted(1, inputs);
            return Work { moved_bytes, ..Work::default() };
        }
        let below = self.take(1, &overlapping);
        self.merge_into(1, inputs.into_iter().chain(below).collect())
    }

    /// One file of level `n`, picked as RocksDB's `kMinOverlappingRatio` does (the least bytes
    /// of level n+1 it overlaps per byte of its own; ties to the smallest key), into level n+1.
    fn compact_level(&mut self, n: usize) -> Work {
        let ratio = |f: &File| {
            let overlap: f64 = self.files[n + 1].iter().filter(|g| g.overlaps(f)).map(File::bytes).sum();
            overlap / f.bytes().max(1.0)
        };
        let pick = (0..self.files[n].len())
            .min_by(|&a, &b| ratio(&self.files[n][a]).total_cmp(&ratio(&self.files[n][b])))
            .expect("a level over its target holds a file");
        let file = self.files[n].remove(pick);
        let overlapping: Vec<usize> =
            (0..self.files[n + 1].len()).filter(|&j| file.overlaps(&self.files[n + 1][j])).collect();
        if overlapping.is_empty() {
            let moved_bytes = file.bytes();
            self.insert_sorted(n + 1, vec![file]);
            return Work { moved_bytes, ..Work::default() };
        }
        let below = self.take(n + 1, &overlapping);
        self.merge_into(n + 1, std::iter::once(file).chain(below).collect())
    }

    /// Removes the files at `indexes` (ascending) of level `n`.
    fn take(&mut self, n: usize, indexes: &[usize]) -> Vec<File> {
        let mut taken = Vec::with_capacity(indexes.len());
        for &i in indexes.iter().rev() {
            taken.push(self.files[n].remove(i));
        }
        taken
    }

    fn insert_sorted(&mut self, n: usize, files: Vec<File>) {
        self.files[n].extend(files);
        self.files[n].sort_by_key(File::lo);
    }

    /// Merges `inputs` and writes them to level `n` as files cut at the target size; when no
    /// deeper file overlaps them, the outputs' sequence numbers are zeroed (a bottommost
    /// compaction).
    fn merge_into(&mut self, n: usize, mut inputs: Vec<File>) -> Work {
        let read: f64 = inputs.iter().map(File::bytes).sum();
        let lo = inputs.iter().map(File::lo).min().unwrap_or((0, 0));
        let hi = inputs.iter().map(File::hi).max().unwrap_or((0, 0));
        if self.files[n + 1..].iter().flatten().all(|g| !g.overlaps(&File::span(lo, hi))) {
            for file in &mut inputs {
                self.zero(file);
            }
        }
        let outputs = merge(&inputs, self.shape.target_file_bytes);
        let written = outputs.iter().map(File::bytes).sum();
        self.insert_sorted(n, outputs);
        Work { read_bytes: read, write_bytes: written, moved_bytes: 0.0 }
    }
}

/// Bytes with and without sequence numbers, and entries, of a stretch of keys.
#[derive(Clone, Copy, Debug, Default)]
struct Amount {
    seq: f64,
    zero: f64,
    entries: f64,
}

impl Amount {
    fn bytes(&self) -> f64 {
        self.seq + self.zero
    }

    fn times(&self, k: f64) -> Amount {
        Amount { seq: self.seq * k, zero: self.zero * k, entries: self.entries * k }
    }
}

/// The files a compaction writes from `inputs`: each index's bytes added up over each stretch
/// of keys the inputs' pieces share, in key order, cut every `target` bytes.
fn merge(inputs: &[File], target: f64) -> Vec<File> {
    let pieces: Vec<&Piece> = inputs.iter().flat_map(|f| &f.pieces).collect();
    // Stretch ends: each piece's first key and the key after its last (within its index; the
    // very last key of an index's space ends its stretch).
    let end_of = |p: &Piece| p.hi.1.saturating_add(1);
    let mut cuts: Vec<Pos> = pieces.iter().flat_map(|p| [p.lo, (p.hi.0, end_of(p))]).collect();
    cuts.sort_unstable();
    cuts.dedup();
    let mut out = Vec::new();
    let mut current = File { pieces: Vec::new() };
    let mut filled = 0.0;
    for w in cuts.windows(2) {
        let ((index, start), (next_index, end)) = (w[0], w[1]);
        if index != next_index || end <= start {
            continue;
        }
        let mut amount = Amount::default();
        for p in pieces.iter().filter(|p| p.lo.0 == index && p.lo.1 <= start && end <= end_of(p)) {
            let share = (end - start) as f64 / p.span();
            amount.seq += p.seq_bytes * share;
            amount.zero += p.zero_bytes * share;
            amount.entries += p.entries * share;
        }
        let mut from = start;
        while amount.bytes() > 0.0 {
            let room = target - filled;
            let take = if amount.bytes() <= room { 1.0 } else { room / amount.bytes() };
            let to = if take == 1.0 { end } else { (from + ((end - from) as f64 * take) as u128).clamp(from, end) };
            // A cut takes at least one key, so the next file starts after it.
            let to = if to == from && from < end { from + 1 } else { to };
            let part = amount.times(take);
            add(&mut current, index, (from, to), part);
            filled += part.bytes();
            if take == 1.0 {
                break;
            }
            out.push(std::mem::replace(&mut current, File { pieces: Vec::new() }));
            filled = 0.0;
            amount = amount.times(1.0 - take);
            from = to;
        }
    }
    if !current.pieces.is_empty() {
        out.push(current);
    }
    if out.is_empty() {
        return vec![File { pieces: pieces.into_iter().copied().collect() }];
    }
    // Stretches narrower than a float tells apart are dropped above; what they held is spread
    // over the outputs, so a compaction keeps every byte and entry.
    let sum = |files: &[File], f: fn(&Piece) -> f64| files.iter().flat_map(|x| &x.pieces).map(f).sum::<f64>();
    let ratio = |a: f64, b: f64| if b > 0.0 { a / b } else { 1.0 };
    let k_seq = ratio(sum(inputs, |p| p.seq_bytes), sum(&out, |p| p.seq_bytes));
    let k_zero = ratio(sum(inputs, |p| p.zero_bytes), sum(&out, |p| p.zero_bytes));
    let k_entries = ratio(sum(inputs, |p| p.entries), sum(&out, |p| p.entries));
    for p in out.iter_mut().flat_map(|f| f.pieces.iter_mut()) {
        p.seq_bytes *= k_seq;
        p.zero_bytes *= k_zero;
        p.entries *= k_entries;
    }
    out
}

/// Adds keys [from, to) of `index` holding `amount` to `file`, extending its last piece when
/// that is the same index's.
fn add(file: &mut File, index: u8, (from, to): (u128, u128), amount: Amount) {
    let hi = (index, to.saturating_sub(1).max(from));
    match file.pieces.last_mut() {
        Some(p) if p.lo.0 == index => {
            p.hi = hi;
            p.seq_bytes += amount.seq;
            p.zero_bytes += amount.zero;
            p.entries += amount.entries;
        }
        _ => file.pieces.push(Piece {
            lo: (index, from),
            hi,
            seq_bytes: amount.seq,
            zero_bytes: amount.zero,
            entries: amount.entries,
        }),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const MIB: f64 = 1024.0 * 1024.0;

    fn file(lo: u128, hi: u128, mib: f64) -> File {
        File {
            pieces: vec![Piece {
                lo: (0, lo),
                hi: (0, hi),
                seq_bytes: mib * MIB,
                zero_bytes: 0.0,
                entries: mib * 1000.0,
            }],
        }
    }

    fn shape() -> Shape {
        Shape { target_file_bytes: 4.0 * MIB, level_base_bytes: 16.0 * MIB, ..Shape::MYROCKS }
    }

    fn bytes(levels: &Levels, n: usize) -> f64 {
        levels.files()[n].iter().map(File::bytes).sum::<f64>() / MIB
    }

    #[test]
    fn an_empty_level_scores_zero_not_minus_zero() {
        let levels = Levels::new(shape(), vec![1.0]);
        assert!(levels.score(1) == 0.0 && levels.score(1).is_sign_positive(), "{}", levels.score(1));
    }

    #[test]
    fn ordered_flushes_move_down_without_a_rewrite() {
        let mut levels = Levels::new(shape(), vec![1.0]);
        let mut work = Work::default();
        for i in 0..40u128 {
            work.add(levels.flush(file(i * 1000, i * 1000 + 999, 4.0)));
        }
        // No file overlaps another: each is moved down, and rewritten once where it is the
        // bottom, to zero its sequence numbers — all but the two L0 keeps that are not its
        // oldest (L0 keeps its three oldest files).
        assert_eq!(levels.files()[0].len(), 3);
        assert!((work.write_bytes / MIB - 152.0).abs() < 1e-6, "{}", work.write_bytes / MIB);
        assert!(work.moved_bytes > 0.0);
        let total: f64 = (0..7).map(|n| bytes(&levels, n)).sum();
        assert!((total - 160.0).abs() < 1e-6, "{total}");
        assert!(levels.score(1) < 1.0 && levels.score(2) < 1.0, "every level within its target");
    }

    #[test]
    fn random_flushes_rewrite_the_level_below_each_time() {
        let mut levels = Levels::new(shape(), vec![1.0]);
        let mut written = 0.0;
        for _ in 0..40 {
            written += levels.flush(file(0, u128::MAX, 4.0)).write_bytes;
        }
        // 160 MiB flushed; each L0 compaction rewrites L1 whole and L1's overflow rewrites L2's
        // overlapping files: far more than the data itself.
        assert!(written / MIB > 2.0 * 160.0, "{}", written / MIB);
        let total: f64 = (0..7).map(|n| bytes(&levels, n)).sum();
        assert!((total - 160.0).abs() < 1e-6, "compaction keeps every byte: {total}");
        for n in 1..7 {
            let files = &levels.files()[n];
            assert!(files.windows(2).all(|w| w[0].hi() < w[1].lo()), "L{n} is sorted and disjoint");
            assert!(files.iter().all(|f| f.bytes() <= 4.0 * MIB + 1.0), "files are cut at the target");
        }
    }

    #[test]
    fn a_merge_keeps_bytes_and_entries_and_cuts_at_the_target() {
        let out = merge(&[file(0, 999, 6.0), file(500, 1499, 6.0)], 4.0 * MIB);
        let sum: f64 = out.iter().map(File::bytes).sum();
        let entries: f64 = out.iter().flat_map(|f| &f.pieces).map(|p| p.entries).sum();
        assert!((sum / MIB - 12.0).abs() < 1e-9 && (entries - 12_000.0).abs() < 1e-6, "{out:?}");
        assert_eq!(out.len(), 3);
        assert!(out.windows(2).all(|w| w[0].hi() < w[1].lo()), "{out:?}");
        // The overlap (500–999) holds twice the density, so the first file ends before key 700.
        assert!(out[0].hi().1 < 700, "{out:?}");
    }

    #[test]
    fn a_random_key_checks_each_l0_file_and_one_file_per_level_and_a_new_ordered_key_none() {
        let mut levels = Levels::new(shape(), vec![1.0]);
        for _ in 0..6 {
            levels.flush(file(0, u128::MAX, 4.0));
        }
        // L0's files span every key; a deeper level has a gap where a file went down.
        let l0 = levels.files()[0].len() as u64;
        for key in [(0, 1 << 100), (0, u128::MAX / 2)] {
            let deeper = (1..7).filter(|&n| levels.files()[n].iter().any(|f| f.covers(key))).count() as u64;
            assert!(deeper >= 1, "{levels:?}");
            assert_eq!(levels.filters_checked(key), l0 + deeper, "{key:?}");
        }
        let mut ordered = Levels::new(shape(), vec![1.0]);
        for i in 0..3u128 {
            ordered.flush(file(i * 1000, i * 1000 + 999, 4.0));
        }
        assert_eq!(ordered.filters_checked((0, 10_000)), 3, "L0 alone, 3 files: every filter, in range or not");
        for i in 3..6u128 {
            ordered.flush(file(i * 1000, i * 1000 + 999, 4.0));
        }
        assert!(!ordered.files()[1].is_empty(), "{ordered:?}");
        assert_eq!(ordered.filters_checked((0, 10_000)), 0, "above every file");
        assert_eq!(ordered.filters_checked((0, 1500)), 1, "inside one file");
    }

    #[test]
    fn a_shape_is_read_from_a_runs_settings() {
        let settings =
            [("rocksdb_cf_write_buffer_size", "6710886"), ("rocksdb_cf_level0_file_num_compaction_trigger", "4")]
                .iter()
                .map(|(k, v)| (k.to_string(), v.to_string()))
                .collect();
        let read = Shape::from_settings(&settings);
        assert_eq!(read.memtable_bytes, 6_710_886.0);
        assert_eq!(read.level_base_bytes, Shape::MYROCKS.level_base_bytes, "a missing option is the default");
    }
}
