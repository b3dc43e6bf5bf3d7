//! InnoDB B-tree state read from the tablespace file itself. InnoDB has no leaf-fill statistic,
//! so on a managed server (whose datadir pkbench knows) the table is quiesced with
//! `FLUSH TABLES … FOR EXPORT` (dirty pages written, file consistent) and every page header of
//! its `.ibd` file is read: page type, B-tree level and index id, heap top, garbage, directory
//! slots, and the next-leaf link (the layout of `fil0fil.h` / `page0page.h`).

use super::flavor::Flavor;
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
pub fn tablespace_stats(
    conn: &mut mysql::Conn,
    flavor: Flavor,
    db: &str,
    table: &str,
    ibd: &Path,
) -> Result<Vec<BtreeStats>, Error> {
    let page_size: usize = conn
        .query_first("SELECT @@innodb_page_size")
        .map_err(|e| Error::mariadb("could not read innodb_page_size", e))?
        .unwrap_or(16384);
    let names: BTreeMap<u64, String> = conn
        .exec::<(u64, String), _, _>(index_names_sql(flavor), (format!("{db}/{table}"),))
        .map_err(|e| Error::mariadb("could not list InnoDB indexes", e))?
        .into_iter()
        .collect();
    conn.query_drop(format!("FLUSH TABLES {db}.{table} FOR EXPORT"))
        .map_err(|e| Error::mariadb("FLUSH TABLES … FOR EXPORT failed", e))?;
    let stats = from_ibd(ibd, page_size, &names);
    conn.query_drop("UNLOCK TABLES").map_err(|e| Error::mariadb("UNLOCK TABLES failed", e))?;
    stats.map_err(|e| Error::io("read", ibd, e))
}

/// The ids and names of a table's InnoDB indexes, from the flavour's data dictionary views.
fn index_names_sql(flavor: Flavor) -> String {
    let (tables, indexes) = flavor.innodb_dictionary();
    format!(
        "SELECT i.INDEX_ID, i.NAME FROM information_schema.{indexes} i \
         JOIN information_schema.{tables} t ON t.TABLE_ID = i.TABLE_ID WHERE t.NAME = ?"
    )
}

/// `FIL_PAGE_INDEX`: a B-tree page.
const FIL_PAGE_INDEX: u16 = 17855;
/// `FIL_NULL`: no next page.
const FIL_NULL: u32 = 0xffff_ffff;
/// Bytes of the FIL trailer at the end of each page.
const FIL_TRAILER: u64 = 8;
/// Start of the index page header (`FIL_PAGE_DATA`).
const PAGE_HEADER: usize = 38;
/// Start of the extent descriptors on a descriptor page (`FSP_HEADER_OFFSET + FSP_HEADER_SIZE`).
const XDES_ARR_OFFSET: usize = 38 + 112;
/// Offset of `XDES_STATE` and of the page bitmap (`XDES_BITMAP`) in an extent descriptor.
const XDES_STATE: usize = 20;
const XDES_BITMAP: usize = 24;

/// Which pages of a tablespace are free, from its extent descriptors (`fsp0fsp.h`): every
/// `page_size`-th page (0, 16384, … for 16 KiB pages) describes the extents that follow it, two
/// bits per page, bit 0 set when the page is free. A freed B-tree page keeps its old header, so
/// without this a table that shrank (churn) would still count its freed leaves.
struct FreePages {
    page_size: usize,
    extent_pages: usize,
    /// Descriptor page number → its bytes.
    descriptors: BTreeMap<usize, Vec<u8>>,
}

impl FreePages {
    fn new(page_size: usize) -> Self {
        // Extents are 1 MiB up to 16 KiB pages, 64 pages above (`FSP_EXTENT_SIZE`).
        let extent_pages = if page_size <= 16384 { (1 << 20) / page_size } else { 64 };
        FreePages { page_size, extent_pages, descriptors: BTreeMap::new() }
    }

    fn is_free(&self, page_no: usize) -> bool {
        let base = page_no - page_no % self.page_size;
        let Some(desc) = self.descriptors.get(&base) else { return false };
        let within = page_no - base;
        let entry = XDES_ARR_OFFSET + (within / self.extent_pages) * (XDES_BITMAP + self.extent_pages / 4);
        if entry + XDES_BITMAP + self.extent_pages / 4 > desc.len() {
            return false;
        }
        // State 0: the extent lies beyond the space's free limit and was never initialised.
        if u32_at(desc, entry + XDES_STATE) == 0 {
            return true;
        }
        let bit = 2 * (within % self.extent_pages);
        desc[entry + XDES_BITMAP + bit / 8] >> (bit % 8) & 1 == 1
    }
}

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
    let mut free = FreePages::new(page_size);
    for page_no in 0usize.. {
        match file.read_exact(&mut page) {
            Ok(()) => {}
            Err(e) if e.kind() == std::io::ErrorKind::UnexpectedEof => break,
            Err(e) => return Err(e),
        }
        if page_no % page_size == 0 {
            free.descriptors.insert(page_no, page.clone());
        }
        if u16_at(&page, 24) != FIL_PAGE_INDEX || free.is_free(page_no) {
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
                key_share: None,
                misses_per_1k_rows: None,
                index_blocks_touched_per_1k_rows: None,
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn index_names_come_from_each_flavours_dictionary() {
        assert!(
            index_names_sql(Flavor::MariaDb).contains("INNODB_SYS_INDEXES i JOIN information_schema.INNODB_SYS_TABLES")
        );
        let mysql = index_names_sql(Flavor::MySql { major: 8, minor: 4, patch: 0 });
        assert!(mysql.contains("information_schema.INNODB_INDEXES i") && mysql.contains("INNODB_TABLES t"), "{mysql}");
    }

    #[test]
    fn extent_descriptors_mark_free_pages() {
        let page_size = 16384;
        let mut free = FreePages::new(page_size);
        assert_eq!(free.extent_pages, 64);
        let mut desc = vec![0u8; page_size];
        let entry = |n: usize| XDES_ARR_OFFSET + n * (XDES_BITMAP + 16);
        // Extent 0 in use with its page 5 free; extent 1 in use, all pages used; extent 2
        // beyond the free limit (state 0).
        desc[entry(0) + XDES_STATE + 3] = 2;
        desc[entry(0) + XDES_BITMAP + 10 / 8] |= 1 << (10 % 8);
        desc[entry(1) + XDES_STATE + 3] = 4;
        free.descriptors.insert(0, desc);
        assert!(!free.is_free(4));
        assert!(free.is_free(5));
        assert!(!free.is_free(6));
        assert!(!free.is_free(64 + 5));
        assert!(free.is_free(128));
        // No descriptor read for that range: nothing is known to be free.
        assert!(!free.is_free(page_size + 3));
    }
}
