//! Physical B-tree statistics from SQLite's `dbstat` virtual table.

use crate::results::BtreeStats;
use rusqlite::Connection;

/// Running totals for one B-tree while scanning `dbstat` in key order.
#[derive(Default)]
struct Acc {
    pages: u64,
    size_bytes: u64,
    leaves: u64,
    leaf_used_share: f64,
    backward_steps: u64,
    last_leaf: Option<i64>,
}

/// Pages, leaves, leaf fill and leaf order of every table and index in `conn`'s main database.
///
/// Leaf fill is the share of each leaf page not reported `unused`; out-of-order is the share of
/// leaf-to-next-leaf steps (in key order) that go backwards in the file — the same definition
/// as PostgreSQL's `pgstatindex().leaf_fragmentation`.
pub fn btree_stats(conn: &Connection) -> rusqlite::Result<Vec<BtreeStats>> {
    let kinds: Vec<(String, String)> = conn
        .prepare("SELECT name, type FROM sqlite_schema WHERE type IN ('table', 'index') ORDER BY rowid")?
        .query_map([], |r| Ok((r.get(0)?, r.get(1)?)))?
        .collect::<Result<_, _>>()?;
    let mut out = Vec::new();
    let mut stmt = conn.prepare("SELECT pagetype, pageno, unused, pgsize FROM dbstat WHERE name = ?1 ORDER BY path")?;
    for (name, kind) in kinds {
        let mut acc = Acc::default();
        let mut rows = stmt.query([&name])?;
        while let Some(r) = rows.next()? {
            let (pagetype, pageno, unused, pgsize): (String, i64, i64, i64) =
                (r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?);
            acc.pages += 1;
            acc.size_bytes += pgsize as u64;
            if pagetype == "leaf" {
                acc.leaves += 1;
                acc.leaf_used_share += (pgsize - unused) as f64 / pgsize as f64;
                if acc.last_leaf.is_some_and(|prev| pageno < prev) {
                    acc.backward_steps += 1;
                }
                acc.last_leaf = Some(pageno);
            }
        }
        let share = |n: f64, d: u64| if d == 0 { 0.0 } else { n / d as f64 };
        out.push(BtreeStats {
            key_share: None,
            misses_per_1k_rows: None,
            index_blocks_touched_per_1k_rows: None,
            name,
            kind,
            pages: acc.pages,
            leaf_pages: acc.leaves,
            leaf_fill: share(acc.leaf_used_share, acc.leaves),
            leaf_out_of_order: share(acc.backward_steps as f64, acc.leaves.saturating_sub(1)),
            size_bytes: acc.size_bytes,
        });
    }
    Ok(out)
}

/// [`btree_stats`] of a user's schema: each index named `table.index`.
pub fn schema_trees(conn: &Connection) -> rusqlite::Result<Vec<BtreeStats>> {
    let owners: std::collections::BTreeMap<String, String> = conn
        .prepare("SELECT name, tbl_name FROM sqlite_schema WHERE type = 'index'")?
        .query_map([], |r| Ok((r.get(0)?, r.get(1)?)))?
        .collect::<rusqlite::Result<_>>()?;
    let mut trees = btree_stats(conn)?;
    for t in &mut trees {
        if let Some(table) = owners.get(&t.name) {
            t.name = format!("{table}.{}", t.name);
        }
    }
    Ok(trees)
}
