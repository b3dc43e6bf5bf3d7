//! InnoDB B-tree state read from the tablespace file itself. InnoDB has no leaf-fill statistic,
//! so on a managed server (whose datadir pkbench knows) the table is quiesced with
//! `FLUSH TABLES … FOR EXPORT` (dirty pages written, file consistent) and every page header of
//! its `.ibd` file is read: page type, B-tree level and index id, heap top, garbage, directory
//! slots, and the next-leaf link (the layout of `fil0fil.h` / `page0page.h`).

use crate::results::BtreeStats;
use std::collections::BTreeMap;
use std::io::Read;
use std::path::Path;

/// `FIL_PAGE_INDEX`: a B-tree page.
const FIL_PAGE_INDEX: u16 = 17855;
/// `FIL_NULL`: no next page.
const FIL_NULL: u32 = 0xffff_ffff;
/// Bytes of the FIL trailer at the end of each page.
const FIL_TRAILER: u64 = 8;
/// Start of the index page header (`FIL_PAGE_DATA`).
const PAGE_HEADER: usize = 38;

#[derive(Default)]
struct Acc {
    pages: u64,
    leaves: u64,
    used_share: f64,
    backward: u64,
}

fn u16_at(p: &[u8], at: usize) -> u16 {
    u16::from_be_bytes([p[at], p[at + 1]])
}

fn u32_at(p: &[u8], at: usize) -> u32 {
    u32::from_be_bytes([p[at], p[at + 1], p[at + 2], p[at + 3]])
}

/// Per-index statistics of one tablespace file; `names` maps index ids to names. The clustered
/// index (`PRIMARY`, or InnoDB's hidden `GEN_CLUST_INDEX`) is reported as the table.
pub fn from_ibd(path: &Path, page_size: usize, names: &BTreeMap<u64, String>) -> std::io::Result<Vec<BtreeStats>> {
    // One page at a time: a tablespace can be far larger than memory.
    let mut file = std::io::BufReader::new(std::fs::File::open(path)?);
    let mut page = vec![0u8; page_size];
    let mut acc: BTreeMap<u64, Acc> = BTreeMap::new();
    for page_no in 0usize.. {
        match file.read_exact(&mut page) {
            Ok(()) => {}
            Err(e) if e.kind() == std::io::ErrorKind::UnexpectedEof => break,
            Err(e) => return Err(e),
        }
        if u16_at(&page, 24) != FIL_PAGE_INDEX {
            continue;
        }
        let h = PAGE_HEADER;
        let index_id = u64::from_be_bytes(page[h + 28..h + 36].try_into().unwrap_or_default());
        let a = acc.entry(index_id).or_default();
        a.pages += 1;
        if u16_at(&page, h + 26) == 0 {
            let (slots, heap_top, garbage) = (u16_at(&page, h), u16_at(&page, h + 2), u16_at(&page, h + 8));
            let used = u64::from(heap_top).saturating_sub(u64::from(garbage)) + 2 * u64::from(slots) + FIL_TRAILER;
            a.leaves += 1;
            a.used_share += (used as f64 / page_size as f64).min(1.0);
            let next = u32_at(&page, 12);
            if next != FIL_NULL && (next as usize) < page_no {
                a.backward += 1;
            }
        }
    }
    Ok(acc
        .into_iter()
        .map(|(id, a)| {
            let name = names.get(&id).cloned().unwrap_or_else(|| format!("index {id}"));
            let clustered = name == "PRIMARY" || name == "GEN_CLUST_INDEX";
            BtreeStats {
                kind: if clustered { "table" } else { "index" }.into(),
                name,
                pages: a.pages,
                leaf_pages: a.leaves,
                leaf_fill: if a.leaves == 0 { 0.0 } else { a.used_share / a.leaves as f64 },
                leaf_out_of_order: if a.leaves < 2 { 0.0 } else { a.backward as f64 / (a.leaves - 1) as f64 },
                size_bytes: a.pages * page_size as u64,
            }
        })
        .collect())
}
