//! InnoDB B-tree state read from the tablespace file itself. InnoDB has no leaf-fill statistic,
//! so on a managed server (whose datadir pkbench knows) the table is quiesced with
//! `FLUSH TABLES … FOR EXPORT` (dirty pages written, file consistent) and every page header of
//! its `.ibd` file is read: page type, B-tree level and index id, heap top, garbage, directory
//! slots, and the next-leaf link (the layout of `fil0fil.h` / `page0page.h`).

use crate::Error;
use crate::results::BtreeStats;
use mysql::prelude::Queryable;
use std::collections::BTreeMap;
use std::io::Read;
use std::path::Path;

/// Data plus index bytes of `db.table`, after `ANALYZE TABLE` refreshed the page counts behind
/// them.
pub fn table_size(conn: &mut mysql::Conn, db: &str, table: &str) -> Result<u64, Error> {
    let _: Vec<mysql::Row> =
        conn.query(format!("ANALYZE TABLE {db}.{table}")).map_err(|e| Error::mariadb("ANALYZE TABLE failed", e))?;
    let size: Option<u64> = conn
        .exec_first(
            "SELECT data_length + index_length FROM information_schema.TABLES WHERE table_schema = ? AND table_name = ?",
            (db, table),
        )
        .map_err(|e| Error::mariadb("could not read the table size", e))?;
    Ok(size.unwrap_or(0))
}

/// B-tree statistics of `db.table` from its `.ibd` file `ibd`, read while the table is
/// quiesced (`FLUSH TABLES … FOR EXPORT`, then `UNLOCK TABLES`).
pub fn tablespace_stats(conn: &mut mysql::Conn, db: &str, table: &str, ibd: &Path) -> Result<Vec<BtreeStats>, Error> {
    let page_size: usize = conn
        .query_first("SELECT @@innodb_page_size")
        .map_err(|e| Error::mariadb("could not read innodb_page_size", e))?
        .unwrap_or(16384);
    let names: BTreeMap<u64, String> = conn
        .exec::<(u64, String), _, _>(
            "SELECT i.INDEX_ID, i.NAME FROM information_schema.INNODB_SYS_INDEXES i \
             JOIN information_schema.INNODB_SYS_TABLES t ON t.TABLE_ID = i.TABLE_ID WHERE t.NAME = ?",
            (format!("{db}/{table}"),),
        )
        .map_err(|e| Error::mariadb("could not list InnoDB indexes", e))?
        .into_iter()
        .collect();
    conn.query_drop(format!("FLUSH TABLES {db}.{table} FOR EXPORT"))
        .map_err(|e| Error::mariadb("FLUSH TABLES … FOR EXPORT failed", e))?;
    let stats = from_ibd(ibd, page_size, &names);
    conn.query_drop("UNLOCK TABLES").map_err(|e| Error::mariadb("UNLOCK TABLES failed", e))?;
    stats.map_err(|e| Error::io("read", ibd, e))
}

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
