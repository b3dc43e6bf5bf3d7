//! What a jump costs as the memory it lands in grows. An insert whose leaf is not the
//! previous insert's (a uuid4 row, nearly always) searches a page the CPU's caches have likely
//! lost, and how far it has to go for it — L2, L3, DRAM, a TLB walk — depends on how much memory
//! the engine's cache spans. A calibration scaled to the target's cache pressure has a cache ten
//! times smaller than the target's, so its batches price a jump in a few MiB; the target pays for
//! it in tens or hundreds. `perf` on SQLite shows where: `sqlite3BtreeIndexMoveto`, `memcmp` and
//! `pcache1Fetch` cost 1.6–2× as much per row with a 32 MiB cache as with an 8 MiB one, at the
//! same table. MyRocks' memtable is the same: a calibration's memtable is a tenth of the
//! target's, and a random key's insert and unique check descend a skip list that many times
//! larger.
//!
//! The probes measure it directly: on SQLite, random 16-byte keys inserted in one transaction
//! into an in-memory table (no I/O, nothing evicted) as it grows to the target's cache; on
//! MyRocks, random 16-byte keys inserted into a memtable that is never flushed as it grows to the
//! target's ([`crate::engines::myrocks::memtable`]); µs per row by size. The fit prices a jump at
//! the calibration's size ([`WorkingSet::growth_ms`] taken off its batches) and the forecast adds
//! the growth at the target's.

#[cfg(any(feature = "sqlite", feature = "mysql"))]
use crate::Error;

/// Largest table the probe builds; the growth is taken as flat past it.
pub const MAX_PROBE_BYTES: u64 = 512 << 20;
/// Smallest table (or memtable) a point is taken at.
#[cfg(any(feature = "sqlite", feature = "mysql"))]
const FIRST_BYTES: u64 = 256 << 10;
/// Smallest chunk of rows timed (a chunk is an eighth of the rows so far, so each doubling of
/// the table has about six).
#[cfg(feature = "sqlite")]
const MIN_CHUNK_ROWS: u64 = 1_000;

/// What a curve's jumps are, and the memory they land in.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Jumps {
    /// Inserts into a B-tree leaf that is not the previous insert's, by the engine's cache in use
    /// (SQLite's probe).
    Leaves,
    /// Inserts inside an LSM memtable's key range, which descend its skip list, by the
    /// memtable's bytes (MyRocks' probe).
    Memtable {
        /// Rows per statement the probe committed.
        commit_rows: usize,
    },
}

/// The cost of a jump over the smallest size the probe measured, by size.
#[derive(Clone, Debug, PartialEq)]
pub struct WorkingSet {
    /// What the jumps are.
    pub jumps: Jumps,
    /// (bytes in use; µs over the first point), one point per doubling, non-decreasing.
    pub points: Vec<(u64, f64)>,
}

impl WorkingSet {
    /// The curve of `jumps` from `samples` of (bytes in use, µs per row): the median of each
    /// doubling from the first sample's size, less the first doubling's, non-decreasing (more
    /// memory does not make a page nearer, whatever one sample says). `None` without two
    /// doublings.
    pub fn from_samples(jumps: Jumps, samples: &[(u64, f64)]) -> Option<WorkingSet> {
        let first = samples.iter().map(|s| s.0).min()?.max(1);
        let mut bins: Vec<Vec<f64>> = Vec::new();
        for &(bytes, us) in samples {
            let i = (bytes as f64 / first as f64).log2().floor().max(0.0) as usize;
            if bins.len() <= i {
                bins.resize(i + 1, Vec::new());
            }
            bins[i].push(us);
        }
        let mut points = Vec::new();
        let (mut base, mut highest) = (None, 0.0_f64);
        for (i, bin) in bins.iter_mut().enumerate() {
            if bin.is_empty() {
                continue;
            }
            bin.sort_by(f64::total_cmp);
            let median = bin[bin.len() / 2];
            let base = *base.get_or_insert(median);
            highest = highest.max(median - base);
            // The bin's middle, geometrically.
            let at = (first as f64 * 2f64.powf(i as f64 + 0.5)) as u64;
            points.push((at, highest));
        }
        (points.len() >= 2).then_some(WorkingSet { jumps, points })
    }

    /// µs a jump costs over the curve's first point with `in_use` bytes of cache in use: linear
    /// in log₂ size between the points, none below the first, flat past the last.
    pub fn growth_us(&self, in_use: u64) -> f64 {
        let Some(&(first, _)) = self.points.first() else { return 0.0 };
        if in_use <= first {
            return 0.0;
        }
        for w in self.points.windows(2) {
            let ((a, ga), (b, gb)) = (w[0], w[1]);
            if in_use <= b {
                let f = (in_use as f64 / a as f64).log2() / (b as f64 / a as f64).log2();
                return ga + (gb - ga) * f;
            }
        }
        self.points.last().map_or(0.0, |p| p.1)
    }

    /// Milliseconds `jumps` cost over the first point with `in_use` bytes of cache in use.
    pub fn growth_ms(&self, jumps: u64, in_use: u64) -> f64 {
        jumps as f64 * self.growth_us(in_use) / 1000.0
    }

    /// One line for the results.
    pub fn describe(&self) -> String {
        let parts: Vec<String> = self.points.iter().map(|(b, g)| format!("+{g:.2} µs at {}", mib(*b))).collect();
        let what = match self.jumps {
            Jumps::Leaves => {
                "a leaf jump costs more as the cache in use grows (random keys into an in-memory SQLite table, one transaction)".to_string()
            }
            Jumps::Memtable { commit_rows } => format!(
                "an insert inside the memtable's key range costs more as the memtable grows (random keys into a MyRocks memtable that is not flushed, {}-row commits)",
                crate::util::text::thousands(commit_rows as u64)
            ),
        };
        format!("{what}: {}; flat past {}", parts.join(", "), self.points.last().map_or_else(String::new, |p| mib(p.0)))
    }
}

fn mib(bytes: u64) -> String {
    let m = bytes as f64 / 1048576.0;
    if m < 10.0 { format!("{m:.1} MiB") } else { format!("{m:.0} MiB") }
}

/// The cache in use: the engine's cache, or the data if smaller.
pub fn in_use(cache_bytes: u64, data_bytes: u64) -> u64 {
    cache_bytes.min(data_bytes)
}

/// Times random 16-byte keys with `payload_bytes` of payload inserted into an in-memory SQLite
/// table of `page_size` pages (`WITHOUT ROWID`, as `uuid4`'s) until it holds `largest_bytes`
/// (at least 1 MiB, at most [`MAX_PROBE_BYTES`]), three times with the same keys: each chunk's
/// cost is its fastest round's, as the file probes' are.
#[cfg(feature = "sqlite")]
pub fn measure_sqlite(page_size: u32, payload_bytes: u64, largest_bytes: u64) -> Result<WorkingSet, Error> {
    let largest = largest_bytes.clamp(4 * FIRST_BYTES, MAX_PROBE_BYTES);
    let rounds = (0..ROUNDS)
        .map(|_| {
            probe_round(page_size, payload_bytes, largest)
                .map_err(|e| Error::System(format!("the working-set probe failed in SQLite: {e}")))
        })
        .collect::<Result<Vec<_>, Error>>()?;
    WorkingSet::from_samples(Jumps::Leaves, &fastest_of(rounds))
        .ok_or_else(|| Error::System("the working-set probe measured fewer than two sizes".into()))
}

/// Each chunk's fastest round: the first round's sizes, each with the least µs per row any round
/// took for the same chunk, over the chunks every round has.
#[cfg(any(feature = "sqlite", feature = "mysql"))]
fn fastest_of(rounds: Vec<Vec<(u64, f64)>>) -> Vec<(u64, f64)> {
    let mut rounds = rounds.into_iter();
    let mut fastest = rounds.next().unwrap_or_default();
    for round in rounds {
        fastest.truncate(round.len());
        for (f, r) in fastest.iter_mut().zip(round) {
            f.1 = f.1.min(r.1);
        }
    }
    fastest
}

/// Rounds of MyRocks' memtable probe: each fills a memtable of the target's size.
#[cfg(feature = "mysql")]
const MEMTABLE_ROUNDS: usize = 3;

/// Times random 16-byte keys with `payload_bytes` of payload inserted into a MyRocks memtable
/// until it holds `largest_bytes` (at least 1 MiB, at most [`MAX_PROBE_BYTES`]), on a managed
/// server of the probe's own (of the binaries in `server_bin`, else the machine's),
/// [`MEMTABLE_ROUNDS`] times: each chunk's cost is its fastest round's. Stops with
/// [`Error::Interrupted`] when `control` is cancelled.
#[cfg(feature = "mysql")]
pub fn measure_myrocks(
    payload_bytes: u64,
    largest_bytes: u64,
    server_bin: Option<&std::path::Path>,
    control: &crate::control::RunControl,
) -> Result<WorkingSet, Error> {
    use crate::engines::myrocks::memtable::time_random_inserts;
    let largest = largest_bytes.clamp(4 * FIRST_BYTES, MAX_PROBE_BYTES);
    let rounds = time_random_inserts(payload_bytes, largest, MEMTABLE_ROUNDS, server_bin, control)?;
    let fastest = fastest_of(rounds);
    let first = fastest.iter().position(|s| s.0 >= FIRST_BYTES).unwrap_or(fastest.len());
    let jumps = Jumps::Memtable { commit_rows: crate::engines::myrocks::memtable::STATEMENT_ROWS };
    WorkingSet::from_samples(jumps, &fastest[first..])
        .ok_or_else(|| Error::System("the memtable probe measured fewer than two sizes".into()))
}

/// Rounds of the probe.
#[cfg(feature = "sqlite")]
const ROUNDS: usize = 3;

/// One round: (table bytes, µs per row) of each chunk from [`FIRST_BYTES`] on.
#[cfg(feature = "sqlite")]
fn probe_round(page_size: u32, payload_bytes: u64, largest: u64) -> rusqlite::Result<Vec<(u64, f64)>> {
    use crate::util::pick::Pick;
    use std::time::Instant;
    let conn = rusqlite::Connection::open_in_memory()?;
    conn.execute_batch(&format!(
        "PRAGMA page_size = {page_size}; PRAGMA cache_size = -{}; \
         CREATE TABLE t (id BLOB NOT NULL PRIMARY KEY, payload BLOB NOT NULL) WITHOUT ROWID; BEGIN",
        2 * largest / 1024
    ))?;
    let mut insert = conn.prepare("INSERT INTO t VALUES (?1, ?2)")?;
    let mut pages = conn.prepare("PRAGMA page_count")?;
    let payload = vec![0x5a_u8; payload_bytes as usize];
    let mut rng = Pick(0x5e7);
    let mut key = [0_u8; 16];
    let (mut rows, mut samples) = (0_u64, Vec::new());
    loop {
        let chunk = (rows / 8).max(MIN_CHUNK_ROWS);
        let started = Instant::now();
        for _ in 0..chunk {
            for b in key.chunks_mut(8) {
                b.copy_from_slice(&(rng.below(usize::MAX) as u64).to_le_bytes());
            }
            insert.execute(rusqlite::params![&key[..], &payload[..]])?;
        }
        let us = started.elapsed().as_secs_f64() * 1e6 / chunk as f64;
        rows += chunk;
        let bytes = pages.query_row([], |r| r.get::<_, i64>(0))? as u64 * u64::from(page_size);
        if bytes >= FIRST_BYTES {
            samples.push((bytes, us));
        }
        if bytes >= largest {
            return Ok(samples);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_curve_is_each_doublings_median_non_decreasing_and_flat_past_its_end() {
        let mib = 1 << 20;
        // 1–2 MiB: 1.0 µs; 2–4: 1.3 (and one outlier); 4–8: 1.2, below the doubling before it.
        let samples = [(mib, 1.0), (3 * mib / 2, 1.0), (2 * mib, 1.3), (3 * mib, 1.3), (3 * mib, 9.0), (5 * mib, 1.2)];
        let w = WorkingSet::from_samples(Jumps::Leaves, &samples).unwrap();
        assert_eq!(w.points.len(), 3);
        assert!((w.points[1].1 - 0.3).abs() < 1e-9 && (w.points[2].1 - 0.3).abs() < 1e-9, "{w:?}");
        assert_eq!(w.growth_us(mib / 2), 0.0, "below the first point: none");
        let mid = (w.points[0].0 as f64 * 2f64.sqrt()) as u64;
        assert!((w.growth_us(mid) - 0.15).abs() < 1e-3, "half a doubling: half the step");
        assert!((w.growth_us(1 << 40) - 0.3).abs() < 1e-9, "flat past the last");
        assert!((w.growth_ms(10_000, 1 << 40) - 3.0).abs() < 1e-9);
        assert!(WorkingSet::from_samples(Jumps::Leaves, &[(mib, 1.0)]).is_none(), "one size is no curve");
    }

    #[cfg(feature = "sqlite")]
    #[test]
    fn the_sqlite_probe_measures_several_doublings() {
        let w = measure_sqlite(4096, 50, 4 << 20).unwrap();
        assert!(w.points.len() >= 3, "{w:?}");
        assert!(w.points.windows(2).all(|p| p[0].0 < p[1].0 && p[0].1 <= p[1].1));
        assert!(w.points.last().unwrap().0 >= 2 << 20);
    }
}
