//! CockroachDB through PostgreSQL's wire: PostgreSQL's spellings, with the key layouts and
//! catalogs CockroachDB documents. Written from the documentation, not run against a cluster.
//!
//! - Rows live in the primary key's index, split into ranges by key
//!   (<https://www.cockroachlabs.com/docs/stable/architecture/distribution-layer>): there is no
//!   heap, so `-rowid` strategies are refused (a table without a primary key gets a hidden
//!   `rowid` from `unique_rowid()`, which is not the strategy's layout).
//! - Sequential keys make one hot range; the documented remedy is a hash-sharded primary key,
//!   `PRIMARY KEY (id) USING HASH`
//!   (<https://www.cockroachlabs.com/docs/stable/hash-sharded-indexes>), which `--sharding hash`
//!   writes (with the cluster's default bucket count).
//! - Engine-assigned integers are `DEFAULT unique_rowid()` (what `SERIAL` becomes by default),
//!   not an identity backed by a sequence; server-generated UUIDs are `gen_random_uuid()`, the
//!   only built-in generator (v4; <https://www.cockroachlabs.com/docs/stable/uuid>).
//! - No `WITH (autovacuum_enabled = off)`, fillfactor or `VACUUM`: CockroachDB has neither
//!   autovacuum nor a manual rebuild; MVCC garbage is collected after `gc.ttlseconds`.

use super::{CatalogRow, ShardFigures, Sharding, create_with_key_constraint, fields, number};
use crate::Error;
use crate::engines::dialect::{Dialect, TableDef, TablePurpose};
use crate::engines::kind::EngineKind;
use crate::engines::postgres::dialect::PostgresDialect;
use crate::engines::txn::Isolation;
use crate::engines::wire::{BulkSql, KeyField};
use crate::generators::Scheme;
use crate::strategy::{PrimaryIndex, Storage, Strategy};

/// CockroachDB's dialect with the sharding of its primary keys.
#[derive(Clone, Copy, Debug)]
pub struct CockroachDialect {
    /// Range (CockroachDB's own) or hash-sharded primary keys.
    pub sharding: Sharding,
}

/// Primary keys split by key ranges, CockroachDB's default.
pub static RANGE: CockroachDialect = CockroachDialect { sharding: Sharding::Range };
/// Hash-sharded primary keys (`USING HASH`).
pub static HASH: CockroachDialect = CockroachDialect { sharding: Sharding::Hash };

impl Dialect for CockroachDialect {
    fn kind(&self) -> EngineKind {
        EngineKind::Postgres
    }

    fn product(&self) -> &'static str {
        "CockroachDB"
    }

    fn layout(&self, _strategy: &Strategy) -> String {
        match self.sharding {
            Sharding::Range => "CockroachDB table: rows in the primary key's index, split into ranges by key",
            Sharding::Hash => {
                "CockroachDB table: rows in a hash-sharded primary key's index (a hashed bucket first), split into ranges"
            }
        }
        .into()
    }

    fn refusal(&self, strategy: &Strategy) -> Option<String> {
        if strategy.index == PrimaryIndex::HeapWithIndex {
            return Some(
                "CockroachDB stores rows in the primary key's index; there is no heap plus index (use the strategy without -rowid)"
                    .into(),
            );
        }
        PostgresDialect.refusal(strategy)
    }

    fn identity_key(&self) -> &'static str {
        "bigint NOT NULL DEFAULT unique_rowid() PRIMARY KEY"
    }

    fn key_function(&self, scheme: Scheme) -> Option<&'static str> {
        (scheme == Scheme::Uuid4).then_some("gen_random_uuid()")
    }

    fn server_key(&self, function: &str, storage: Storage) -> Option<String> {
        (storage == Storage::Binary16).then(|| format!("uuid NOT NULL DEFAULT {function} PRIMARY KEY"))
    }

    fn table_options(&self, _purpose: TablePurpose) -> &'static str {
        ""
    }

    fn create_table(&self, table: &TableDef) -> Vec<String> {
        let key = |name: &str| match self.sharding {
            Sharding::Range => format!("PRIMARY KEY ({name})"),
            Sharding::Hash => format!("PRIMARY KEY ({name}) USING HASH"),
        };
        create_with_key_constraint(table, key, "")
    }

    fn compact(&self, tables: &str) -> String {
        // No statement rebuilds a table: the storage engine compacts itself.
        format!("-- CockroachDB has no VACUUM FULL; {tables} are compacted by the storage engine")
    }

    fn version_requirement(&self, _strategy: &Strategy, _version: &str) -> Option<String> {
        // gen_random_uuid() and USING HASH are in every supported release (hash-sharded
        // indexes left preview in v22.1); `server_version` reports PostgreSQL 13 whatever the
        // release, so there is nothing to compare it with.
        None
    }

    fn set_isolation(&self, level: Isolation) -> String {
        PostgresDialect.set_isolation(level)
    }

    pass_through! { PostgresDialect =>
        fn key_type(&self, storage: Storage) -> &'static str;
        fn bigint(&self) -> &'static str;
        fn bytes(&self) -> &'static str;
        fn text(&self, max_chars: u32) -> String;
        fn placeholder(&self, n: usize) -> String;
        fn row_comparison(&self) -> bool;
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

// https://www.cockroachlabs.com/docs/v23.2/show-ranges — with DETAILS: range_size (bytes),
// lease_holder (node id), span_stats (JSON; live_count = live keys, v23.2+); with KEYS:
// raw_start_key (bytes) to order ranges by key. The pretty start_key/end_key read
// `…/1/123`, `<TableMin>`, `<after:/Table/107/1/"amsterdam">`.
/// Where `table`'s (qualified) ranges are: one row per range, in key order, columns as
/// [`parse_ranges`] reads them.
pub fn ranges_sql(table: &str) -> String {
    format!(
        "SELECT range_id::STRING, start_key, end_key, lease_holder::STRING, range_size::STRING, \
         (span_stats->>'live_count'), replicas::STRING \
         FROM [SHOW RANGES FROM TABLE {table} WITH DETAILS, KEYS] ORDER BY raw_start_key"
    )
}

/// Figures per range from [`ranges_sql`]'s rows. CockroachDB reports no bytes written per range:
/// writes over an interval are the growth of `size_bytes` and `rows` between two readings.
pub fn parse_ranges(rows: &[CatalogRow]) -> Result<Vec<ShardFigures>, Error> {
    rows.iter()
        .map(|row| {
            let [id, start, end, lease, size, live, _replicas] = fields::<7>(row, "SHOW RANGES")?;
            Ok(ShardFigures {
                id: id
                    .ok_or_else(|| Error::UnexpectedResponse("SHOW RANGES returned a range without an id".into()))?
                    .into(),
                start_key: start.map(String::from),
                end_key: end.map(String::from),
                node: lease.map(|n| format!("n{n}")),
                size_bytes: number(size, "range_size")?,
                rows: number(live, "span_stats.live_count")?,
                written_bytes: None,
            })
        })
        .collect()
}
