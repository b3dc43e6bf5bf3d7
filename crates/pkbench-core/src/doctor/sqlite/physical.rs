//! `dbstat` figures of a SQLite database's b-trees.

use crate::doctor::BtreeReport;
use crate::results::BtreeStats;
use rusqlite::Connection;

/// Fills in `dbstat` payload and entry counts for the b-trees named in `names` (a walk of those
/// b-trees only).
pub fn add_payload(conn: &Connection, btrees: &mut [BtreeReport], names: &[&str]) -> rusqlite::Result<()> {
    let mut stmt = conn.prepare(
        "SELECT coalesce(sum(payload), 0), \
         coalesce(sum(CASE WHEN pagetype = 'leaf' OR (pagetype = 'internal' AND payload > 0) THEN ncell END), 0) \
         FROM dbstat WHERE name = ?1",
    )?;
    for b in btrees.iter_mut().filter(|b| names.iter().any(|n| n.eq_ignore_ascii_case(&b.stats.name))) {
        let (payload, cells): (i64, i64) = stmt.query_row([&b.stats.name], |r| Ok((r.get(0)?, r.get(1)?)))?;
        b.payload_bytes = Some(payload.max(0) as u64);
        b.entries = Some(cells.max(0) as u64);
    }
    Ok(())
}

/// `dbstat` figures for every b-tree of the main database.
pub fn all_btrees(conn: &Connection) -> rusqlite::Result<Vec<BtreeStats>> {
    crate::engines::sqlite::btree_stats(conn)
}
