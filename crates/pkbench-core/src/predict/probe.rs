//! Micro-probes: the machine's own per-operation costs, timed directly in the folder the
//! engine writes to, as bounds for the time fit. A calibration's batches tell costs apart only
//! as far as they vary independently; where two move together (a cache miss and the WAL-index
//! hash tables it searches), the fit could give one's cost to the other and a forecast whose
//! mix differs would be far off. A probe says what an operation cannot cost less than, and for
//! a pure CPU operation what it costs within a factor of two above it.

use super::ModelEngine;
use super::fit::{Bounds, UNBOUNDED};
use super::terms::Term;
use crate::Error;
use crate::util::pick::Pick;
use std::fs::{File, OpenOptions};
use std::os::unix::fs::FileExt;
use std::path::Path;
use std::time::Instant;

/// Rounds of the file probes; each cost is the fastest round's.
const ROUNDS: usize = 3;
/// Size of the file the read and random-write probes use.
const FILE_BYTES: u64 = 32 << 20;
/// Bytes the append probe writes before its sync.
const APPEND_BYTES: u64 = 32 << 20;
/// Random reads timed.
const READS: u64 = 20_000;
/// Random reads from the device timed.
const DEVICE_READS: u64 = 2_000;
/// Random page writes timed (then one sync).
const RANDOM_WRITES: u64 = 2_048;
/// One-page syncs timed per round.
const SYNCS: usize = 8;
/// WAL-index hash tables the search probe builds (one per 4096 frames, as SQLite).
const HASH_TABLES: usize = 32;
/// Searches the probe times, each through every table.
const SEARCHES: usize = 20_000;
/// A fitted CPU cost is at least the probe's (the engine's loop does the probe's work and its
/// own bookkeeping besides) and at most this many times it.
const CPU_FACTOR: f64 = 2.0;
/// Points of the cached-read curve: files of [`FILE_BYTES`] × 2^i.
pub const CURVE_POINTS: usize = 7;
/// Random reads timed at each point of the curve, over the whole file and over its first
/// [`FILE_BYTES`] each, in [`CURVE_SPLITS`] alternating parts.
const CURVE_READS: u64 = 50_000;
/// Parts of each point's reads: the point is the fastest part over the whole file less the
/// fastest over its first [`FILE_BYTES`], so a moment the machine ran slow moves neither.
const CURVE_SPLITS: u64 = 5;

/// What the probes measured, for a fit: the device's costs and the working-set curve, each if
/// probed.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Probes {
    /// The file probes' per-operation costs.
    pub device: Option<DeviceCosts>,
    /// What a leaf jump costs more in a larger cache.
    pub working_set: Option<super::working_set::WorkingSet>,
    /// The machine-speed canary timed around the probes, ns (the median of those before and
    /// after each; [`super::canary::around`]).
    pub machine_ns: Option<u64>,
}

/// Per-operation costs measured on this machine, microseconds.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct DeviceCosts {
    /// Page size the file probes used, bytes.
    pub page_size: u32,
    /// A page read at a random offset of a file the operating system holds in its page cache.
    pub cached_read_us: f64,
    /// A page appended to a log, its share of the sync that follows included.
    pub append_us: f64,
    /// A page written at a random offset of a file, its share of the sync that follows included.
    pub random_write_us: f64,
    /// Of [`DeviceCosts::random_write_us`], the sync's share: what flushing a page the OS
    /// holds dirty costs.
    pub random_sync_us: f64,
    /// A sync of a file with one page dirty: the fixed part of every flush.
    pub sync_us: f64,
    /// One SQLite WAL-index hash table searched for a page (`walFindFrame`'s inner loop).
    pub hash_search_us: f64,
    /// A page read at a random offset from the device itself (`O_DIRECT`, past the OS page
    /// cache); `None` where the folder's file system cannot bypass it (tmpfs).
    pub device_read_us: Option<f64>,
    /// What a read from the OS page cache costs over [`DeviceCosts::cached_read_us`] when the
    /// file is [`FILE_BYTES`] × 2^i, µs, as far as the probe went (`None` beyond): a page of a
    /// larger file is less often in the CPU's caches and its lookup walks a deeper tree, so a
    /// calibration's small files price a miss below what a large target pays.
    pub read_growth_us: [Option<f64>; CURVE_POINTS],
}

impl DeviceCosts {
    /// Times each probe in `dir` (a scratch file, removed afterwards) with pages of `page_size`;
    /// the cached-read curve grows its file up to the first point at or above
    /// `largest_file_bytes` (the target's files; the file is written whole, so keep it within
    /// the memory the OS page cache has).
    pub fn measure(dir: &Path, page_size: u32, largest_file_bytes: u64) -> Result<DeviceCosts, Error> {
        let costs = DeviceCosts::moment(dir, page_size, [None; CURVE_POINTS])?;
        let path = scratch(dir)?;
        let curve = read_curve(&path, u64::from(page_size), largest_file_bytes);
        let _ = std::fs::remove_file(&path);
        Ok(DeviceCosts { read_growth_us: curve.map_err(|e| cannot_time(dir, e))?, ..costs })
    }

    /// Another moment's file, device-read and search probes in `dir`; the cached-read curve is
    /// kept from these costs (each of its points is a difference of reads timed together).
    pub fn measure_again(&self, dir: &Path) -> Result<DeviceCosts, Error> {
        DeviceCosts::moment(dir, self.page_size, self.read_growth_us)
    }

    /// One moment's file, device-read and search probes in `dir`, with `read_growth_us` as its
    /// curve.
    fn moment(dir: &Path, page_size: u32, read_growth_us: [Option<f64>; CURVE_POINTS]) -> Result<DeviceCosts, Error> {
        let (files, device_read_us) = file_rounds(dir, page_size)?;
        Ok(DeviceCosts {
            page_size,
            cached_read_us: files.cached_read_us,
            append_us: files.append_us,
            random_write_us: files.random_write_us,
            random_sync_us: files.random_sync_us,
            sync_us: files.sync_us,
            hash_search_us: hash_search_us(),
            device_read_us,
            read_growth_us,
        })
    }

    /// Each cost the median of `moments`' (the device read the median of the moments that
    /// read the device; the curve the first's). Where a fitted cost sits at its bound, the
    /// forecast moves with the probe, and one probe taken while the machine ran slow — or
    /// unusually fast — would bound the fit away from the machine the batches ran on; the median
    /// of a few moments keeps one from setting the bounds.
    pub fn median(moments: &[DeviceCosts]) -> Option<DeviceCosts> {
        let first = *moments.first()?;
        // `moments` is not empty, so each median is there; the first's cost stands in regardless.
        let median = |cost: fn(&DeviceCosts) -> f64| {
            crate::metrics::stats::median(&moments.iter().map(cost).collect::<Vec<_>>()).unwrap_or_else(|| cost(&first))
        };
        let device: Vec<f64> = moments.iter().filter_map(|m| m.device_read_us).collect();
        Some(DeviceCosts {
            cached_read_us: median(|m| m.cached_read_us),
            append_us: median(|m| m.append_us),
            random_write_us: median(|m| m.random_write_us),
            random_sync_us: median(|m| m.random_sync_us),
            sync_us: median(|m| m.sync_us),
            hash_search_us: median(|m| m.hash_search_us),
            device_read_us: crate::metrics::stats::median(&device),
            ..first
        })
    }

    /// What a read from the OS page cache costs over the probe's smallest file when the files
    /// hold `files_bytes`, µs: the curve, linear in log₂ size between its points, flat past its
    /// last.
    pub fn read_growth_at(&self, files_bytes: u64) -> f64 {
        let points: Vec<f64> = self.read_growth_us.iter().map_while(|p| *p).collect();
        let Some(&last) = points.last() else { return 0.0 };
        let at = (files_bytes.max(1) as f64 / FILE_BYTES as f64).log2().max(0.0);
        let i = at.floor() as usize;
        if i + 1 >= points.len() {
            return last;
        }
        let f = at - i as f64;
        points[i] + (points[i + 1] - points[i]) * f
    }

    /// Milliseconds the files' size adds to `reads` misses served by the OS page cache beyond
    /// the probe's smallest file (nothing on an engine that reads the device directly).
    pub fn read_growth_ms(&self, engine: ModelEngine, reads: u64, files_bytes: u64) -> f64 {
        if super::memory::direct_io(engine) {
            return 0.0;
        }
        reads as f64 * self.read_growth_at(files_bytes) / 1000.0
    }

    /// Each term's bounds in milliseconds per unit, for `engine`'s fit: only work the inserting
    /// connection waits for is bounded below (a server's background writers are not), and
    /// PostgreSQL's checkpoint flush: the checkpointer syncs in the background, but on the
    /// device and CPUs the backend's commits wait on, so with random keys, which dirty many
    /// pages, a forecast without the term comes out short.
    pub fn bounds(&self, engine: ModelEngine, terms: &[Term]) -> Vec<Bounds> {
        let ms = |us: f64| us / 1000.0;
        // An engine that reads past the OS page cache misses onto the device.
        let miss_us = match self.device_read_us {
            Some(us) if super::memory::direct_io(engine) => us,
            _ => self.cached_read_us,
        };
        terms
            .iter()
            .map(|t| match (engine, t) {
                (_, Term::Misses) => (ms(miss_us), f64::INFINITY),
                (_, Term::WalHashSearches) => (ms(self.hash_search_us), ms(self.hash_search_us * CPU_FACTOR)),
                (ModelEngine::Sqlite, Term::PagesWritten) => (ms(self.append_us), f64::INFINITY),
                (ModelEngine::Sqlite, Term::CheckpointPages) => {
                    (ms(self.cached_read_us + self.random_write_us), f64::INFINITY)
                }
                (_, Term::Syncs) => (ms(self.sync_us), f64::INFINITY),
                // The page's write to the OS is a page written; the checkpoint's sync flushes it.
                (ModelEngine::Postgres | ModelEngine::PostgresFdw, Term::CheckpointPages) => {
                    (ms(self.random_sync_us), f64::INFINITY)
                }
                (_, Term::WalBytes) => (ms(self.append_us) / f64::from(self.page_size), f64::INFINITY),
                _ => UNBOUNDED,
            })
            .collect()
    }

    /// The most the probes timed any page costing, µs: a read from the device (from the OS
    /// page cache where the folder cannot bypass it), a write at random with its sync's share,
    /// and a sync of its own.
    pub fn page_ceiling_us(&self) -> f64 {
        self.device_read_us.unwrap_or(self.cached_read_us) + self.random_write_us + self.sync_us
    }

    /// The per-page costs of `terms` (fitted at `ms_per_unit`) above [`Self::page_ceiling_us`],
    /// each with its µs. No page costs that much on this machine, so such a cost stands for work
    /// the model does not count that moved with the term's count in the calibration.
    pub fn above_page_ceiling(&self, terms: &[Term], ms_per_unit: &[f64]) -> Vec<(Term, f64)> {
        let ceiling = self.page_ceiling_us();
        terms
            .iter()
            .zip(ms_per_unit)
            .map(|(&t, ms)| (t, ms * 1000.0))
            .filter(|&(t, us)| t.per_page() && us > ceiling)
            .collect()
    }

    /// One line for the results: what the probes measured.
    pub fn describe(&self) -> String {
        let device = match self.device_read_us {
            Some(us) => format!("read from the device {us:.1} µs"),
            None => "no device read (the folder cannot bypass the OS cache)".into(),
        };
        let curve: Vec<String> = self
            .read_growth_us
            .iter()
            .enumerate()
            .filter_map(|(i, p)| Some(format!("+{:.2} µs at {} MiB", (*p)?, (FILE_BYTES << i) >> 20)))
            .skip(1)
            .collect();
        let curve = if curve.is_empty() { String::new() } else { format!(" ({})", curve.join(", ")) };
        format!(
            "{} B page read from the OS cache {:.2} µs in a {} MiB file{curve}, {device}, appended and synced {:.2} µs, written at random and synced {:.2} µs ({:.2} µs of it the sync), one page synced {:.0} µs; a WAL-index hash table searched {:.3} µs",
            self.page_size,
            self.cached_read_us,
            FILE_BYTES >> 20,
            self.append_us,
            self.random_write_us,
            self.random_sync_us,
            self.sync_us,
            self.hash_search_us
        )
    }
}

/// The probes' scratch file in `dir`, listed in its manifest where `dir` is a results folder.
fn scratch(dir: &Path) -> Result<std::path::PathBuf, Error> {
    let path = dir.join(format!("pkbench-probe-{}.tmp", std::process::id()));
    crate::util::folder::claim_path(&path)?;
    Ok(path)
}

fn cannot_time(dir: &Path, e: std::io::Error) -> Error {
    Error::System(format!("cannot time the device in {}: {e}", dir.display()))
}

/// The file probes' and the device read's fastest of [`ROUNDS`] rounds in `dir`: a bound
/// should not carry one round's hiccup.
fn file_rounds(dir: &Path, page_size: u32) -> Result<(FileCosts, Option<f64>), Error> {
    let path = scratch(dir)?;
    let mut files = FileCosts::NONE;
    let mut device: Option<f64> = None;
    for _ in 0..ROUNDS {
        let result = probe_files(&path, u64::from(page_size));
        if result.is_ok()
            && let Some(us) = device_read_us(&path, u64::from(page_size))
        {
            device = Some(device.map_or(us, |d| d.min(us)));
        }
        let _ = std::fs::remove_file(&path);
        files = files.fastest(result.map_err(|e| cannot_time(dir, e))?);
    }
    Ok((files, device))
}

/// One round of the file probes, µs (see [`DeviceCosts`]).
#[derive(Clone, Copy)]
struct FileCosts {
    cached_read_us: f64,
    append_us: f64,
    random_write_us: f64,
    random_sync_us: f64,
    sync_us: f64,
}

impl FileCosts {
    const NONE: FileCosts = FileCosts {
        cached_read_us: f64::INFINITY,
        append_us: f64::INFINITY,
        random_write_us: f64::INFINITY,
        random_sync_us: f64::INFINITY,
        sync_us: f64::INFINITY,
    };

    /// Each cost the faster of the two rounds'.
    fn fastest(self, o: FileCosts) -> FileCosts {
        FileCosts {
            cached_read_us: self.cached_read_us.min(o.cached_read_us),
            append_us: self.append_us.min(o.append_us),
            random_write_us: self.random_write_us.min(o.random_write_us),
            random_sync_us: self.random_sync_us.min(o.random_sync_us),
            sync_us: self.sync_us.min(o.sync_us),
        }
    }
}

/// One round of the file probes in a new file at `path`.
fn probe_files(path: &Path, page: u64) -> std::io::Result<FileCosts> {
    let file = OpenOptions::new().read(true).write(true).create_new(true).open(path)?;
    let buf = vec![0x5a_u8; page as usize];
    let pages = FILE_BYTES / page;

    // Append: sequential pages, then one sync (a commit's WAL write).
    let started = Instant::now();
    for i in 0..APPEND_BYTES / page {
        file.write_all_at(&buf, i * page)?;
    }
    file.sync_data()?;
    let append_us = per(started, APPEND_BYTES / page);

    // Cached reads: the file was just written, so the OS holds it; read it once more to be sure.
    let mut read = vec![0_u8; page as usize];
    for i in 0..pages {
        file.read_exact_at(&mut read, i * page)?;
    }
    let mut rng = Pick(0x5eed);
    let started = Instant::now();
    for _ in 0..READS {
        file.read_exact_at(&mut read, rng.below(pages as usize) as u64 * page)?;
    }
    let cached_read_us = per(started, READS);
    std::hint::black_box(&read);

    // Random writes over the synced file, then one sync (a checkpoint's copy-back).
    let started = Instant::now();
    for _ in 0..RANDOM_WRITES {
        file.write_all_at(&buf, rng.below(pages as usize) as u64 * page)?;
    }
    let syncing = Instant::now();
    file.sync_data()?;
    let random_sync_us = per(syncing, RANDOM_WRITES);
    let random_write_us = per(started, RANDOM_WRITES);

    // One page written, then synced (a commit's sync of a small batch), the fastest of a few.
    let mut sync_us = f64::INFINITY;
    for _ in 0..SYNCS {
        file.write_all_at(&buf, rng.below(pages as usize) as u64 * page)?;
        let started = Instant::now();
        file.sync_data()?;
        sync_us = sync_us.min(per(started, 1));
    }
    drop::<File>(file);
    Ok(FileCosts { cached_read_us, append_us, random_write_us, random_sync_us, sync_us })
}

/// The cached-read curve: a file grown from [`FILE_BYTES`] by doubling, each size's random
/// page reads timed (after one warming pass) against reads within its first [`FILE_BYTES`],
/// alternately, the fastest part of each ([`CURVE_SPLITS`]); non-decreasing (a larger file's
/// page is not cheaper to find, whatever one sample says).
fn read_curve(path: &Path, page: u64, largest: u64) -> std::io::Result<[Option<f64>; CURVE_POINTS]> {
    let file = OpenOptions::new().read(true).write(true).create_new(true).open(path)?;
    let chunk = vec![0x5a_u8; 1 << 20];
    let mut read = vec![0_u8; page as usize];
    let mut rng = Pick(0xc0de);
    let mut curve = [None; CURVE_POINTS];
    let (mut written, mut highest) = (0, 0.0_f64);
    let mut timed = |pages: u64, reads: u64| -> std::io::Result<f64> {
        let started = Instant::now();
        for _ in 0..reads {
            file.read_exact_at(&mut read, rng.below(pages as usize) as u64 * page)?;
        }
        Ok(per(started, reads))
    };
    for (i, point) in curve.iter_mut().enumerate() {
        let bytes = FILE_BYTES << i;
        if i > 0 && bytes / 2 >= largest {
            break;
        }
        while written < bytes {
            file.write_all_at(&chunk, written)?;
            written += chunk.len() as u64;
        }
        let pages = bytes / page;
        // The first point is the baseline itself: 0 by definition.
        if i > 0 {
            timed(pages, CURVE_READS / 4)?;
            let (mut whole, mut first) = (f64::INFINITY, f64::INFINITY);
            for _ in 0..CURVE_SPLITS {
                whole = whole.min(timed(pages, CURVE_READS / CURVE_SPLITS)?);
                first = first.min(timed(FILE_BYTES / page, CURVE_READS / CURVE_SPLITS)?);
            }
            highest = highest.max(whole - first);
        }
        *point = Some(highest);
    }
    std::hint::black_box(&read);
    Ok(curve)
}

/// µs per page read at random from `path` with `O_DIRECT`; `None` if it cannot be opened so.
fn device_read_us(path: &Path, page: u64) -> Option<f64> {
    use std::os::unix::fs::OpenOptionsExt;
    let file = OpenOptions::new().read(true).custom_flags(libc::O_DIRECT).open(path).ok()?;
    // O_DIRECT wants a buffer aligned to the logical block; a page-aligned slice of a larger one.
    let mut raw = vec![0_u8; 2 * page as usize];
    let start = raw.as_ptr().align_offset(page as usize);
    let buf = &mut raw[start..start + page as usize];
    let pages = FILE_BYTES / page;
    let mut rng = Pick(0xd15c);
    let started = Instant::now();
    for _ in 0..DEVICE_READS {
        file.read_exact_at(buf, rng.below(pages as usize) as u64 * page).ok()?;
    }
    Some(per(started, DEVICE_READS))
}

fn per(started: Instant, n: u64) -> f64 {
    started.elapsed().as_secs_f64() * 1e6 / n as f64
}

/// SQLite's WAL-index hash table: 8192 slots of frame numbers (1-based, 0 = empty) hashed by
/// page number, and the 4096 frames' page numbers (`wal.c`, `HASHTABLE_NSLOT`).
struct HashTable {
    slots: Vec<u16>,
    pgno: Vec<u32>,
}

const NSLOT: usize = 8192;
const NPAGE: usize = 4096;

fn wal_hash(pgno: u32) -> usize {
    (pgno as usize).wrapping_mul(383) & (NSLOT - 1)
}

impl HashTable {
    fn filled(rng: &mut Pick, pages: u64) -> HashTable {
        let mut t = HashTable { slots: vec![0; NSLOT], pgno: vec![0; NPAGE] };
        for frame in 0..NPAGE {
            let p = 1 + rng.below(pages as usize) as u32;
            t.pgno[frame] = p;
            let mut h = wal_hash(p);
            while t.slots[h] != 0 {
                h = (h + 1) & (NSLOT - 1);
            }
            t.slots[h] = (frame + 1) as u16;
        }
        t
    }

    /// `walFindFrame`'s loop over one table: the last frame holding `pgno`, if any.
    fn find(&self, pgno: u32) -> Option<usize> {
        let mut found = None;
        let mut h = wal_hash(pgno);
        loop {
            let key = self.slots[h] as usize;
            if key == 0 {
                return found;
            }
            if self.pgno[key - 1] == pgno {
                found = Some(key);
            }
            h = (h + 1) & (NSLOT - 1);
        }
    }
}

/// µs per table searched: misses looked up through every table, as a miss on a page the WAL
/// does not hold is.
fn hash_search_us() -> f64 {
    let pages = 1_000_000;
    let mut rng = Pick(0xa11);
    let tables: Vec<HashTable> = (0..HASH_TABLES).map(|_| HashTable::filled(&mut rng, pages)).collect();
    let wanted: Vec<u32> = (0..SEARCHES).map(|_| 1 + rng.below(pages as usize) as u32).collect();
    let started = Instant::now();
    let mut hits = 0_usize;
    for &p in &wanted {
        for t in tables.iter().rev() {
            if t.find(std::hint::black_box(p)).is_some() {
                hits += 1;
                break;
            }
        }
    }
    std::hint::black_box(hits);
    per(started, (SEARCHES * HASH_TABLES) as u64)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn probes_measure_positive_costs_and_bound_the_right_terms() {
        let dir = tempfile::tempdir().unwrap();
        let c = DeviceCosts::measure(dir.path(), 4096, 64 << 20).unwrap();
        assert!(c.cached_read_us > 0.0 && c.append_us > 0.0 && c.random_write_us > 0.0 && c.hash_search_us > 0.0);
        assert!(c.device_read_us.is_none_or(|us| us > 0.0));
        assert!(std::fs::read_dir(dir.path()).unwrap().next().is_none(), "the probe's file is removed");
        let b = c.bounds(ModelEngine::Sqlite, &Term::SQLITE);
        assert_eq!(b[0], UNBOUNDED, "per row: the data's alone");
        let search = Term::SQLITE.iter().position(|&t| t == Term::WalHashSearches).unwrap();
        assert!(b[search].0 > 0.0 && b[search].1.is_finite() && b[search].1 == 2.0 * b[search].0);
        assert!(c.random_sync_us > 0.0 && c.random_sync_us <= c.random_write_us);
        let syncs = Term::SQLITE.iter().position(|&t| t == Term::Syncs).unwrap();
        assert!(c.sync_us > 0.0 && b[syncs] == (c.sync_us / 1000.0, f64::INFINITY), "a sync: at least the probe's");
        let flushed = Term::POSTGRES.iter().position(|&t| t == Term::CheckpointPages).unwrap();
        let pg = c.bounds(ModelEngine::Postgres, &Term::POSTGRES);
        assert_eq!(pg[flushed], (c.random_sync_us / 1000.0, f64::INFINITY), "a checkpoint's flush: the sync's share");
        let dirtied = c.bounds(ModelEngine::MariaDb, &Term::INNODB);
        assert_eq!(dirtied[4], UNBOUNDED, "InnoDB's page cleaner writes in the background");
        assert!(c.read_growth_us[0] == Some(0.0) && c.read_growth_us[1].is_some(), "the curve reaches 64 MiB");
        assert!(c.read_growth_us[2].is_none(), "and stops there");
        assert!(c.read_growth_us[1].unwrap() >= 0.0);
    }

    #[test]
    fn a_page_cost_above_anything_the_probes_timed_is_named() {
        let c = DeviceCosts {
            page_size: 8192,
            cached_read_us: 1.0,
            append_us: 8.0,
            random_write_us: 6.0,
            random_sync_us: 5.0,
            sync_us: 100.0,
            hash_search_us: 0.01,
            device_read_us: Some(70.0),
            read_growth_us: [None; CURVE_POINTS],
        };
        assert_eq!(c.page_ceiling_us(), 176.0, "a device read, a random write and a sync");
        let terms = [Term::TreeEntries, Term::Misses, Term::PagesWritten, Term::WalBytes, Term::CheckpointPages];
        let above = c.above_page_ceiling(&terms, &[0.5, 0.15, 0.0, 0.5, 0.8]);
        assert_eq!(above, vec![(Term::CheckpointPages, 800.0)], "per entry and per WAL byte are not page costs");
        let cached = DeviceCosts { device_read_us: None, ..c };
        assert_eq!(cached.page_ceiling_us(), 107.0, "without a device read, the cached read");
        let misses = cached.above_page_ceiling(&[Term::Rows, Term::Misses], &[0.5, 0.15]);
        assert_eq!(misses, vec![(Term::Misses, 150.0)]);
    }

    #[test]
    fn probes_at_several_moments_give_each_costs_median() {
        let dir = tempfile::tempdir().unwrap();
        let first = DeviceCosts::measure(dir.path(), 4096, 64 << 20).unwrap();
        let again = first.measure_again(dir.path()).unwrap();
        assert!(again.cached_read_us > 0.0 && again.append_us > 0.0 && again.sync_us > 0.0, "{again:?}");
        assert_eq!(again.read_growth_us, first.read_growth_us, "the curve is kept");
        assert!(std::fs::read_dir(dir.path()).unwrap().next().is_none(), "the probe's file is removed");
        let slow = DeviceCosts { cached_read_us: 9.0, append_us: 90.0, device_read_us: None, ..first };
        let fast = DeviceCosts { cached_read_us: 0.1, append_us: 1.0, device_read_us: Some(40.0), ..first };
        let m = DeviceCosts::median(&[slow, first, fast]).unwrap();
        assert_eq!((m.cached_read_us, m.append_us), (first.cached_read_us, first.append_us), "one slow, one fast");
        let two = DeviceCosts::median(&[slow, fast]).unwrap();
        assert!((two.cached_read_us - 4.55).abs() < 1e-9, "two moments: their mean");
        assert_eq!(two.device_read_us, Some(40.0), "the moments that read the device");
        assert_eq!(DeviceCosts::median(&[]), None);
    }

    #[test]
    fn the_read_curve_is_linear_in_log_size_between_its_points_and_flat_past_them() {
        let c = DeviceCosts {
            page_size: 4096,
            cached_read_us: 0.5,
            append_us: 3.0,
            random_write_us: 5.0,
            random_sync_us: 3.0,
            sync_us: 500.0,
            hash_search_us: 0.01,
            device_read_us: None,
            read_growth_us: [Some(0.0), Some(0.2), Some(0.4), None, None, None, None],
        };
        let mib = 1 << 20;
        assert_eq!(c.read_growth_at(mib), 0.0, "below the smallest file: its cost");
        assert!((c.read_growth_at(32 * mib) - 0.0).abs() < 1e-12);
        assert!((c.read_growth_at(64 * mib) - 0.2).abs() < 1e-12);
        assert!((c.read_growth_at((90.5 * mib as f64) as u64) - 0.3).abs() < 1e-3, "√2 between 64 and 128 MiB");
        assert!((c.read_growth_at(10_000 * mib) - 0.4).abs() < 1e-12, "flat past the last point");
        assert!((c.read_growth_ms(ModelEngine::Sqlite, 1000, 128 * mib) - 0.4).abs() < 1e-12);
        assert_eq!(c.read_growth_ms(ModelEngine::MariaDb, 1000, 128 * mib), 0.0, "O_DIRECT reads the device");
    }
}
