//! TiDB through MySQL's wire: MySQL's spellings, with the key layouts and catalogs TiDB
//! documents. Written from the documentation, not run against a cluster.
//!
//! - Rows live in TiKV regions split by key. A `CLUSTERED` primary key is the row's key; a
//!   `NONCLUSTERED` one is a unique index beside rows keyed by the hidden `_tidb_rowid`
//!   (<https://docs.pingcap.com/tidb/stable/clustered-indexes>): the `-rowid` strategies' heap
//!   plus index. Every key says which it is, whatever `tidb_enable_clustered_index` defaults to.
//! - `--sharding hash` uses what TiDB offers against write hot spots
//!   (<https://docs.pingcap.com/tidb/stable/troubleshoot-hot-spot-issues>): engine-assigned
//!   integers become `BIGINT AUTO_RANDOM` (random shard bits above an increasing part;
//!   <https://docs.pingcap.com/tidb/stable/auto-random>), and a `NONCLUSTERED` table gets
//!   `SHARD_ROW_ID_BITS = 4` (16 shards of `_tidb_rowid`) with `PRE_SPLIT_REGIONS = 2`
//!   (<https://docs.pingcap.com/tidb/stable/shard-row-id-bits>). A clustered client key is
//!   placed by its own value either way: TiDB has no hash-sharded primary key.
//! - No UUID column type and no UUIDv4/v7 function: only `UUID()` (v1), stored as
//!   `BINARY(16)` with `DEFAULT (UUID_TO_BIN(UUID()))`, the binary default TiDB documents
//!   (<https://docs.pingcap.com/tidb/stable/data-type-default-values>).
//! - No `ENGINE=` (TiDB ignores it) and no `OPTIMIZE TABLE` rebuild.

use super::{CatalogRow, ShardFigures, Sharding, fields, literal, number};
use crate::Error;
use crate::engines::dialect::{Dialect, TableDef};
use crate::engines::kind::EngineKind;
use crate::engines::mariadb::dialect::INNODB;
use crate::engines::txn::Isolation;
use crate::engines::wire::{BulkSql, KeyField};
use crate::generators::Scheme;
use crate::strategy::{PrimaryIndex, Storage, Strategy};

/// TiDB's dialect with what `--sharding` chose against hot spots.
#[derive(Clone, Copy, Debug)]
pub struct TidbDialect {
    /// Range (TiDB's own) or the hot-spot remedies above.
    pub sharding: Sharding,
}

/// TiDB's own layout: keys placed by value.
pub static RANGE: TidbDialect = TidbDialect { sharding: Sharding::Range };
/// `AUTO_RANDOM` and `SHARD_ROW_ID_BITS` where TiDB has them.
pub static HASH: TidbDialect = TidbDialect { sharding: Sharding::Hash };

/// Shard bits of `_tidb_rowid` (16 shards), and regions split off at creation (4; at most
/// the shard bits).
const SHARD_OPTIONS: &str = " SHARD_ROW_ID_BITS = 4 PRE_SPLIT_REGIONS = 2";

impl Dialect for TidbDialect {
    fn kind(&self) -> EngineKind {
        EngineKind::MariaDb
    }

    fn product(&self) -> &'static str {
        "TiDB"
    }

    fn layout(&self, strategy: &Strategy) -> String {
        match (strategy.index, self.sharding) {
            (PrimaryIndex::Clustered, _) => "TiDB clustered table: rows in TiKV in primary-key order",
            (PrimaryIndex::HeapWithIndex, Sharding::Range) => {
                "TiDB NONCLUSTERED table: rows in the order of a hidden _tidb_rowid, the key in a unique index"
            }
            (PrimaryIndex::HeapWithIndex, Sharding::Hash) => {
                "TiDB NONCLUSTERED table: rows by a hidden _tidb_rowid under SHARD_ROW_ID_BITS, the key in a unique index"
            }
        }
        .into()
    }

    fn refusal(&self, strategy: &Strategy) -> Option<String> {
        (strategy.primary.storage == Storage::MariaDbUuid)
            .then(|| "TiDB has no UUID column type (MariaDB's); use the strategy storing BINARY(16)".into())
    }

    fn identity_key(&self) -> &'static str {
        match self.sharding {
            Sharding::Range => "BIGINT NOT NULL AUTO_INCREMENT PRIMARY KEY",
            Sharding::Hash => "BIGINT NOT NULL AUTO_RANDOM PRIMARY KEY",
        }
    }

    fn key_function(&self, scheme: Scheme) -> Option<&'static str> {
        (scheme == Scheme::Uuid1).then_some("UUID()")
    }

    fn server_key(&self, function: &str, storage: Storage) -> Option<String> {
        (storage == Storage::Binary16)
            .then(|| format!("BINARY(16) NOT NULL DEFAULT (UUID_TO_BIN({function})) PRIMARY KEY"))
    }

    fn primary_key_clause(&self, index: PrimaryIndex) -> &'static str {
        match index {
            PrimaryIndex::Clustered => "PRIMARY KEY",
            PrimaryIndex::HeapWithIndex => "PRIMARY KEY NONCLUSTERED",
        }
    }

    fn create_table(&self, table: &TableDef) -> Vec<String> {
        let mut def = table.clone();
        for c in &mut def.columns {
            if c.definition.ends_with(" PRIMARY KEY") {
                c.definition.push_str(" CLUSTERED");
            }
        }
        let nonclustered = def.columns.iter().any(|c| c.definition.ends_with(" NONCLUSTERED"));
        let mut out = INNODB.create_table(&def);
        if let Some(create) = out.first_mut() {
            let engine = format!(" ENGINE={}", INNODB.storage_engine);
            if let Some(stripped) = create.strip_suffix(engine.as_str()) {
                *create = stripped.to_string();
            }
            if nonclustered && self.sharding == Sharding::Hash {
                create.push_str(SHARD_OPTIONS);
            }
        }
        out
    }

    fn compact(&self, tables: &str) -> String {
        // TiKV compacts its RocksDB files itself; OPTIMIZE TABLE is not a rebuild there.
        format!("-- TiDB has no table rebuild; {tables} are compacted by TiKV")
    }

    fn version_requirement(&self, _strategy: &Strategy, _version: &str) -> Option<String> {
        // UUID() and UUID_TO_BIN() defaults are in the releases whose documentation lists them;
        // an older server refuses the CREATE TABLE itself.
        None
    }

    fn set_isolation(&self, level: Isolation) -> String {
        INNODB.set_isolation(level)
    }

    pass_through! { INNODB =>
        fn key_type(&self, storage: Storage) -> &'static str;
        fn bigint(&self) -> &'static str;
        fn bytes(&self) -> &'static str;
        fn text(&self, max_chars: u32) -> String;
        fn placeholder(&self, n: usize) -> String;
        fn row_comparison(&self) -> bool;
        fn quote(&self, name: &str) -> String;
        fn ordered_join(&self, orders: &str, users: &str) -> String;
        fn average(&self, column: &str, table: &str) -> String;
        fn bulk_insert(&self, table: &str, columns: &[(&str, KeyField, Storage)], payload: bool) -> BulkSql;
        fn bulk_delete(&self, table: &str, storage: Storage) -> BulkSql;
        fn keys_per_delete(&self) -> usize;
        fn begin(&self) -> &'static str;
        fn create_namespace(&self, name: &str) -> String;
        fn drop_namespace(&self, name: &str) -> String;
        fn namespace_word(&self) -> &'static str;
    }
}

// https://docs.pingcap.com/tidb/stable/information-schema-tikv-region-status — REGION_ID,
// START_KEY, END_KEY (hex of the memcomparable key: `t<table id>_r…` rows, `…_i…` indexes),
// DB_NAME, TABLE_NAME, IS_INDEX (a region holding rows and index entries is listed once for
// each, hence the GROUP BY), WRITTEN_BYTES (bytes written, as PD last reported),
// APPROXIMATE_SIZE (MB), APPROXIMATE_KEYS;
// https://docs.pingcap.com/tidb/stable/information-schema-tikv-region-peers — STORE_ID of the
// peer with IS_LEADER = 1.
/// `db.table`'s regions (rows and indexes), each once with its leader's store, in key order;
/// read by [`parse_regions`].
pub fn regions_sql(db: &str, table: &str) -> String {
    format!(
        "SELECT s.REGION_ID, MAX(s.START_KEY), MAX(s.END_KEY), MAX(p.STORE_ID), MAX(s.APPROXIMATE_SIZE), \
         MAX(s.APPROXIMATE_KEYS), MAX(s.WRITTEN_BYTES) FROM information_schema.TIKV_REGION_STATUS s \
         LEFT JOIN information_schema.TIKV_REGION_PEERS p ON p.REGION_ID = s.REGION_ID AND p.IS_LEADER = 1 \
         WHERE s.DB_NAME = {} AND s.TABLE_NAME = {} GROUP BY s.REGION_ID ORDER BY MAX(s.START_KEY)",
        literal(db),
        literal(table)
    )
}

/// Figures per region from [`regions_sql`]'s rows (sizes from MiB to bytes).
pub fn parse_regions(rows: &[CatalogRow]) -> Result<Vec<ShardFigures>, Error> {
    rows.iter()
        .map(|row| {
            let [id, start, end, store, size_mib, keys, written] = fields::<7>(row, "TIKV_REGION_STATUS")?;
            Ok(ShardFigures {
                id: id
                    .ok_or_else(|| Error::UnexpectedResponse("TIKV_REGION_STATUS returned no REGION_ID".into()))?
                    .into(),
                start_key: start.map(String::from),
                end_key: end.map(String::from),
                node: store.map(|s| format!("store {s}")),
                size_bytes: number(size_mib, "APPROXIMATE_SIZE")?.map(|mib| mib << 20),
                rows: number(keys, "APPROXIMATE_KEYS")?,
                written_bytes: number(written, "WRITTEN_BYTES")?,
            })
        })
        .collect()
}

/// A region PD currently counts as hot for `db.table`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct HotRegion {
    /// The region id.
    pub region_id: String,
    /// The index it holds, `None` for row data.
    pub index: Option<String>,
    /// `read` or `write`.
    pub kind: String,
    /// PD's hot degree for it (`MAX_HOT_DEGREE`: it grows while the region stays hot).
    pub hot_degree: Option<u64>,
    /// Bytes read or written in the region recently.
    pub flow_bytes: Option<u64>,
}

// https://docs.pingcap.com/tidb/stable/information-schema-tidb-hot-regions — TABLE_ID, INDEX_ID,
// DB_NAME, TABLE_NAME, INDEX_NAME, REGION_ID, TYPE (read/write), MAX_HOT_DEGREE, REGION_COUNT,
// FLOW_BYTES. Self-managed TiDB only (not TiDB Cloud).
/// The regions of `db.table` PD counts as write hot spots now, hottest first; read by
/// [`parse_hot_regions`].
pub fn hot_regions_sql(db: &str, table: &str) -> String {
    format!(
        "SELECT REGION_ID, INDEX_NAME, TYPE, MAX_HOT_DEGREE, FLOW_BYTES FROM information_schema.TIDB_HOT_REGIONS \
         WHERE DB_NAME = {} AND TABLE_NAME = {} AND TYPE = 'write' ORDER BY FLOW_BYTES DESC",
        literal(db),
        literal(table)
    )
}

/// Hot regions from [`hot_regions_sql`]'s rows.
pub fn parse_hot_regions(rows: &[CatalogRow]) -> Result<Vec<HotRegion>, Error> {
    rows.iter()
        .map(|row| {
            let [id, index, kind, degree, flow] = fields::<5>(row, "TIDB_HOT_REGIONS")?;
            Ok(HotRegion {
                region_id: id
                    .ok_or_else(|| Error::UnexpectedResponse("TIDB_HOT_REGIONS returned no REGION_ID".into()))?
                    .into(),
                index: index.map(String::from),
                kind: kind.unwrap_or("write").to_ascii_lowercase(),
                hot_degree: number(degree, "MAX_HOT_DEGREE")?,
                flow_bytes: number(flow, "FLOW_BYTES")?,
            })
        })
        .collect()
}
