//! Physical state after a run: heap and index pages, leaf density and fragmentation
//! (`pgstattuple`'s `pgstattuple()` and `pgstatindex()`), sizes.

use crate::results::BtreeStats;
use postgres::Client;

/// Page size of PostgreSQL builds we support (`BLCKSZ`).
const BLOCK: u64 = 8192;

/// Heap and index statistics of `schema.table` (needs the `pgstattuple` extension). The heap's
/// "leaf fill" is its share not free (`100 - free_percent`); heaps have no key order, so their
/// out-of-order share is 0 by definition.
pub fn btree_stats(client: &mut Client, schema: &str, table: &str) -> Result<Vec<BtreeStats>, postgres::Error> {
    let qualified = format!("{schema}.{table}");
    let mut out = Vec::new();
    let heap_bytes: i64 = client.query_one("SELECT pg_relation_size($1::text::regclass)", &[&qualified])?.get(0);
    let heap_pages = heap_bytes.max(0) as u64 / BLOCK;
    let free: f64 = client.query_one("SELECT free_percent FROM pgstattuple($1::text::regclass)", &[&qualified])?.get(0);
    let heap_fill = (100.0 - free) / 100.0;
    out.push(BtreeStats {
        key_share: None,
        misses_per_1k_rows: None,
        index_blocks_touched_per_1k_rows: None,
        name: table.to_string(),
        kind: "table".into(),
        pages: heap_pages,
        leaf_pages: heap_pages,
        leaf_fill: heap_fill.clamp(0.0, 1.0),
        leaf_out_of_order: 0.0,
        size_bytes: heap_bytes.max(0) as u64,
    });
    let indexes: Vec<String> = client
        .query(
            "SELECT c.relname::text FROM pg_index i JOIN pg_class c ON c.oid = i.indexrelid \
             WHERE i.indrelid = $1::text::regclass ORDER BY c.relname",
            &[&qualified],
        )?
        .iter()
        .map(|r| r.get(0))
        .collect();
    for index in indexes {
        let q = format!("{schema}.{index}");
        let bytes: i64 = client.query_one("SELECT pg_relation_size($1::text::regclass)", &[&q])?.get(0);
        let r = client.query_one(
            "SELECT leaf_pages::bigint, avg_leaf_density::float8, leaf_fragmentation::float8 FROM pgstatindex($1)",
            &[&q],
        )?;
        // pgstatindex reports NaN for an index with a single leaf: nothing to be out of order.
        let finite = |v: f64| if v.is_finite() { v / 100.0 } else { 0.0 };
        let (leaf_pages, fill, frag) = (r.get::<_, i64>(0).max(0) as u64, finite(r.get(1)), finite(r.get(2)));
        out.push(BtreeStats {
            key_share: None,
            misses_per_1k_rows: None,
            index_blocks_touched_per_1k_rows: None,
            name: index,
            kind: "index".into(),
            pages: bytes.max(0) as u64 / BLOCK,
            leaf_pages,
            leaf_fill: fill.clamp(0.0, 1.0),
            leaf_out_of_order: frag.clamp(0.0, 1.0),
            size_bytes: bytes.max(0) as u64,
        });
    }
    Ok(out)
}
