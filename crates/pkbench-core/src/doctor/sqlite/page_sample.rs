//! Bounded physical statistics for a large SQLite b-tree: random root-to-leaf descents read from
//! the file (a few pages each) instead of `dbstat`'s walk of every page. Leaf fill and the share
//! of leaves whose right sibling lies earlier in the file are averaged over the sampled leaves;
//! page and leaf counts use Knuth's estimator (the product of fan-outs along a random path is an
//! unbiased estimate of the number of nodes at that depth). Only for files no one is writing
//! through a WAL: pages still in a `-wal` file are not in the main file.

use crate::results::BtreeStats;
use std::fs::File;
use std::os::unix::fs::FileExt;
use std::path::Path;

/// Why the file could not be sampled (the caller falls back to `dbstat`).
#[derive(Debug, thiserror::Error)]
pub enum PageSampleError {
    /// Reading the file failed.
    #[error("could not read the file: {0}")]
    Io(#[from] std::io::Error),
    /// A page did not look like a b-tree page (the file changed under us, or is corrupt).
    #[error("page {0} is not a b-tree page")]
    NotBtree(u32),
}

/// The file's page size and reserved bytes per page, from its header.
pub fn page_geometry(file: &File) -> Result<(usize, usize), PageSampleError> {
    let mut header = [0u8; 100];
    file.read_exact_at(&mut header, 0)?;
    let size = match u16::from_be_bytes([header[16], header[17]]) {
        1 => 65_536,
        n => usize::from(n),
    };
    Ok((size, usize::from(header[20])))
}

/// A tiny deterministic generator (splitmix64): the same file gives the same sample.
struct Mix(u64);

impl Mix {
    fn below(&mut self, n: usize) -> usize {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        ((z ^ (z >> 31)) % n.max(1) as u64) as usize
    }
}

/// One b-tree page's header fields that matter here.
struct Page {
    leaf: bool,
    index: bool,
    cells: usize,
    /// Child page numbers in key order (interior pages only).
    children: Vec<u32>,
    /// Bytes not used, as `dbstat` counts them.
    unused: usize,
}

fn u16_at(p: &[u8], at: usize) -> usize {
    p.get(at..at + 2).map_or(0, |b| usize::from(u16::from_be_bytes([b[0], b[1]])))
}

fn u32_at(p: &[u8], at: usize) -> u32 {
    p.get(at..at + 4).map_or(0, |b| u32::from_be_bytes([b[0], b[1], b[2], b[3]]))
}

fn read_page(file: &File, pgno: u32, size: usize, buf: &mut [u8]) -> Result<Page, PageSampleError> {
    file.read_exact_at(buf, u64::from(pgno - 1) * size as u64)?;
    let h = if pgno == 1 { 100 } else { 0 };
    let kind = buf[h];
    let leaf = matches!(kind, 10 | 13);
    if !leaf && !matches!(kind, 2 | 5) {
        return Err(PageSampleError::NotBtree(pgno));
    }
    let header = if leaf { 8 } else { 12 };
    let cells = u16_at(buf, h + 3);
    let content = match u16_at(buf, h + 5) {
        0 => 65_536,
        n => n,
    };
    let pointers = h + header;
    if pointers + 2 * cells > size || content > size {
        return Err(PageSampleError::NotBtree(pgno));
    }
    let mut unused = (content.saturating_sub(pointers + 2 * cells)) + usize::from(buf[h + 7]);
    let mut free = u16_at(buf, h + 1);
    let mut guard = 0;
    while free != 0 && free + 4 <= size && guard < size {
        unused += u16_at(buf, free + 2);
        free = u16_at(buf, free);
        guard += 1;
    }
    let mut children = Vec::new();
    if !leaf {
        children.reserve(cells + 1);
        for i in 0..cells {
            let cell = u16_at(buf, pointers + 2 * i);
            children.push(u32_at(buf, cell));
        }
        children.push(u32_at(buf, h + 8));
    }
    Ok(Page { leaf, index: matches!(kind, 2 | 10), cells, children, unused })
}

/// One b-tree's estimated statistics.
#[derive(Clone, Debug, PartialEq)]
pub struct SampledBtree {
    /// Pages, leaves, fill and order, estimated.
    pub stats: BtreeStats,
    /// Entries (rows of a rowid table; keys of an index or WITHOUT ROWID b-tree), estimated.
    pub entries: f64,
    /// Distinct pages read.
    pub pages_read: usize,
}

/// Estimates `name`'s statistics from `descents` random root-to-leaf paths starting at page
/// `root`.
pub fn sample_btree(
    path: &Path,
    name: &str,
    kind: &str,
    root: u32,
    descents: usize,
) -> Result<SampledBtree, PageSampleError> {
    let file = File::open(path)?;
    let (size, _reserved) = page_geometry(&file)?;
    let pages_in_file = (file.metadata()?.len() / size as u64) as u32;
    let mut buf = vec![0u8; size];
    let mut rng = Mix(u64::from(root));
    let (mut fill, mut backward, mut with_sibling) = (0.0, 0u64, 0u64);
    let (mut nodes, mut leaves, mut entries) = (0.0f64, 0.0f64, 0.0f64);
    let mut read = std::collections::HashSet::new();
    for _ in 0..descents.max(1) {
        let mut pgno = root;
        let mut weight = 1.0f64;
        let mut sibling = None;
        loop {
            if pgno == 0 || pgno > pages_in_file {
                return Err(PageSampleError::NotBtree(pgno));
            }
            read.insert(pgno);
            let page = read_page(&file, pgno, size, &mut buf)?;
            nodes += weight;
            // Index b-trees keep entries in interior cells too; a rowid table only on leaves.
            if page.leaf || page.index {
                entries += weight * page.cells as f64;
            }
            if page.leaf {
                leaves += weight;
                fill += (size - page.unused.min(size)) as f64 / size as f64;
                if let Some(next) = sibling {
                    with_sibling += 1;
                    backward += u64::from(next < pgno);
                }
                break;
            }
            let k = rng.below(page.children.len());
            weight *= (page.cells + 1) as f64;
            sibling = page.children.get(k + 1).copied();
            pgno = page.children[k];
        }
    }
    let n = descents.max(1) as f64;
    let (pages, leaf_pages) = ((nodes / n).round() as u64, (leaves / n).round() as u64);
    let stats = BtreeStats {
        key_share: None,
        misses_per_1k_rows: None,
        index_blocks_touched_per_1k_rows: None,
        name: name.into(),
        kind: kind.into(),
        pages,
        leaf_pages,
        leaf_fill: fill / n,
        leaf_out_of_order: if with_sibling == 0 { 0.0 } else { backward as f64 / with_sibling as f64 },
        size_bytes: pages * size as u64,
    };
    Ok(SampledBtree { stats, entries: entries / n, pages_read: read.len() })
}

pub use crate::doctor::SAMPLE_ABOVE_BYTES;
/// Root-to-leaf descents per b-tree.
pub const DESCENTS: usize = 512;

/// Whether `path`'s pages may be read from the file itself: no `-wal` file with content.
pub fn file_is_current(path: &Path) -> bool {
    let wal = path.with_file_name(format!("{}-wal", path.file_name().unwrap_or_default().to_string_lossy()));
    std::fs::metadata(wal).map_or(true, |m| m.len() == 0)
}

/// Every table and index b-tree of `conn`'s main database (root pages from `sqlite_schema`),
/// sampled; `None` if any page did not read as expected (the caller then uses `dbstat`).
pub fn all_btrees(path: &Path, conn: &rusqlite::Connection) -> rusqlite::Result<Option<Vec<SampledBtree>>> {
    let roots: Vec<(String, String, i64)> = conn
        .prepare("SELECT name, type, rootpage FROM sqlite_schema WHERE type IN ('table', 'index') AND rootpage > 0")?
        .query_map([], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)))?
        .collect::<Result<_, _>>()?;
    let mut out = Vec::with_capacity(roots.len());
    for (name, kind, root) in roots {
        match sample_btree(path, &name, &kind, root.clamp(1, i64::from(u32::MAX)) as u32, DESCENTS) {
            Ok(b) => out.push(b),
            Err(_) => return Ok(None),
        }
    }
    Ok(Some(out))
}
