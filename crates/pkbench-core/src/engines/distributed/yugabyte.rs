//! YugabyteDB (YSQL) through PostgreSQL's wire: PostgreSQL's spellings, with the key layouts and
//! catalogs YugabyteDB documents. Written from the documentation, not run against a cluster.
//!
//! - Rows live in DocDB tablets keyed by the primary key; the first key column is hashed unless
//!   it says `ASC`/`DESC` (<https://docs.yugabyte.com/stable/explore/going-beyond-sql/data-sharding/>,
//!   <https://docs.yugabyte.com/stable/explore/ysql-language-features/indexes-constraints/primary-key-ysql/>).
//!   pkbench writes the choice out: `PRIMARY KEY (id HASH)` (the default) or
//!   `PRIMARY KEY (id ASC)` for `--sharding range`.
//! - There is no heap: a table without a primary key gets an internal row id, so `-rowid`
//!   strategies are refused.
//! - No autovacuum options (DocDB is an LSM store with its own compactions, and YSQL's VACUUM
//!   does nothing).
//! - YugabyteDB 2.20 and earlier are PostgreSQL 11 inside: `gen_random_uuid()` comes from the
//!   `pgcrypto` extension there; 2.25+ (PostgreSQL 15) has it built in. Neither has `uuidv7()`.

use super::{CatalogRow, ShardFigures, Sharding, create_with_key_constraint, fields, literal, number};
use crate::Error;
use crate::engines::dialect::{Dialect, TableDef, TablePurpose};
use crate::engines::kind::EngineKind;
use crate::engines::postgres::dialect::{PostgresDialect, version_num};
use crate::engines::txn::Isolation;
use crate::engines::wire::{BulkSql, KeyField};
use crate::generators::Scheme;
use crate::strategy::{PrimaryIndex, Storage, Strategy};

/// YugabyteDB's dialect with the sharding of its primary keys.
#[derive(Clone, Copy, Debug)]
pub struct YugabyteDialect {
    /// Hash (YugabyteDB's default for the first key column) or range-sharded primary keys.
    pub sharding: Sharding,
}

/// Range-sharded primary keys (`ASC`).
pub static RANGE: YugabyteDialect = YugabyteDialect { sharding: Sharding::Range };
/// Hash-sharded primary keys (`HASH`), YugabyteDB's default.
pub static HASH: YugabyteDialect = YugabyteDialect { sharding: Sharding::Hash };

impl Dialect for YugabyteDialect {
    fn kind(&self) -> EngineKind {
        EngineKind::Postgres
    }

    fn product(&self) -> &'static str {
        "YugabyteDB"
    }

    fn layout(&self, _strategy: &Strategy) -> String {
        match self.sharding {
            Sharding::Range => "YugabyteDB table: rows in DocDB in primary-key order, tablets split by key range",
            Sharding::Hash => "YugabyteDB table: rows in DocDB by primary key, tablets split by the key's hash",
        }
        .into()
    }

    fn refusal(&self, strategy: &Strategy) -> Option<String> {
        if strategy.index == PrimaryIndex::HeapWithIndex {
            return Some(
                "YugabyteDB stores rows in DocDB by primary key; there is no heap plus index (use the strategy without -rowid)"
                    .into(),
            );
        }
        PostgresDialect.refusal(strategy)
    }

    fn key_function(&self, scheme: Scheme) -> Option<&'static str> {
        // PostgreSQL's uuidv7() arrived in 18; YugabyteDB is built on 11 or 15.
        (scheme == Scheme::Uuid4).then_some("gen_random_uuid()")
    }

    fn table_options(&self, _purpose: TablePurpose) -> &'static str {
        ""
    }

    fn create_table(&self, table: &TableDef) -> Vec<String> {
        let key = |name: &str| match self.sharding {
            Sharding::Range => format!("PRIMARY KEY ({name} ASC)"),
            Sharding::Hash => format!("PRIMARY KEY ({name} HASH)"),
        };
        create_with_key_constraint(table, key, "")
    }

    fn compact(&self, tables: &str) -> String {
        // YSQL accepts VACUUM and ignores it; DocDB compacts its own files.
        format!("-- YugabyteDB has no VACUUM FULL; {tables} are compacted by DocDB")
    }

    fn version_requirement(&self, strategy: &Strategy, version: &str) -> Option<String> {
        // `server_version` reads `11.2-YB-2.20.1.0-b0`: the PostgreSQL it is built on first.
        let num = version_num(version)?;
        match strategy.server_primary()? {
            Scheme::Uuid4 if num < 130_000 => Some(format!(
                "gen_random_uuid() is built into YugabyteDB on PostgreSQL 13+ (2.25 and newer); this server ({version}) has it only from the pgcrypto extension"
            )),
            _ => PostgresDialect.version_requirement(strategy, version),
        }
    }

    fn set_isolation(&self, level: Isolation) -> String {
        PostgresDialect.set_isolation(level)
    }

    pass_through! { PostgresDialect =>
        fn key_type(&self, storage: Storage) -> &'static str;
        fn bigint(&self) -> &'static str;
        fn bytes(&self) -> &'static str;
        fn text(&self, max_chars: u32) -> String;
        fn identity_key(&self) -> &'static str;
        fn server_key(&self, function: &str, storage: Storage) -> Option<String>;
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

/// How YugabyteDB laid a table out.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TableProperties {
    /// Tablets the table is split into.
    pub tablets: u64,
    /// Hashed primary-key columns: 0 for a range-sharded table.
    pub hash_key_columns: u64,
    /// Whether it shares one tablet with the database's other colocated tables.
    pub colocated: bool,
}

// https://docs.yugabyte.com/stable/explore/going-beyond-sql/data-sharding/ (tablets, hash and
// range sharding). yb_table_properties(oid) has no reference page of its own found here; its
// columns — num_tablets, num_hash_key_columns, is_colocated, tablegroup_oid, colocation_id — are
// as YugabyteDB's own tests read them (yugabyte/yugabyte-db, the pgwrapper tablet-split test).
/// The table's tablet count and sharding, for `schema.table`; read by [`parse_table_properties`].
pub fn table_properties_sql(schema: &str, table: &str) -> String {
    format!(
        "SELECT num_tablets::text, num_hash_key_columns::text, is_colocated::text \
         FROM yb_table_properties({}::regclass)",
        literal(&format!("{schema}.{table}"))
    )
}

/// [`table_properties_sql`]'s one row.
pub fn parse_table_properties(rows: &[CatalogRow]) -> Result<TableProperties, Error> {
    let row = rows.first().ok_or_else(|| Error::UnexpectedResponse("yb_table_properties returned no row".into()))?;
    let [tablets, hash, colocated] = fields::<3>(row, "yb_table_properties")?;
    let count = |v, name| number(v, name)?.ok_or_else(|| Error::UnexpectedResponse(format!("{name} is NULL")));
    Ok(TableProperties {
        tablets: count(tablets, "num_tablets")?,
        hash_key_columns: count(hash, "num_hash_key_columns")?,
        colocated: matches!(colocated, Some("t" | "true")),
    })
}

// https://docs.yugabyte.com/stable/explore/observability/yb-tablet-metadata/ — cluster-wide, one
// row per tablet: tablet_id, oid, db_name, relname, start_hash_code / end_hash_code (int, NULL
// for range-sharded tables), leader (host:port), replicas (text[]). A recent view (2.27 docs);
// older servers have only yb_local_tablets below.
/// Every tablet of `schema.table` with its hash range and leader, read by [`parse_tablet_metadata`].
pub fn tablet_metadata_sql(schema: &str, table: &str) -> String {
    format!(
        "SELECT tablet_id, start_hash_code::text, end_hash_code::text, leader FROM yb_tablet_metadata \
         WHERE db_name = current_database() AND oid = {}::regclass ORDER BY start_hash_code NULLS FIRST",
        literal(&format!("{schema}.{table}"))
    )
}

/// Figures per tablet from [`tablet_metadata_sql`]'s rows: hash codes as 4 hex digits (DocDB's
/// 16-bit hash space, `0x0000`–`0xFFFF`), the leader as its address.
pub fn parse_tablet_metadata(rows: &[CatalogRow]) -> Result<Vec<ShardFigures>, Error> {
    let hash =
        |v: Option<&str>, name| -> Result<Option<String>, Error> { Ok(number(v, name)?.map(|h| format!("0x{h:04X}"))) };
    rows.iter()
        .map(|row| {
            let [id, start, end, leader] = fields::<4>(row, "yb_tablet_metadata")?;
            Ok(ShardFigures {
                id: id
                    .ok_or_else(|| Error::UnexpectedResponse("yb_tablet_metadata returned no tablet_id".into()))?
                    .into(),
                start_key: hash(start, "start_hash_code")?,
                end_key: hash(end, "end_hash_code")?,
                node: leader.map(String::from),
                ..ShardFigures::default()
            })
        })
        .collect()
}

// https://docs.yugabyte.com/stable/explore/observability/yb-local-tablets/ — the tablets with a
// replica on the node this session is connected to: tablet_id, table_id, table_type,
// namespace_name, ysql_schema_name, table_name, partition_key_start / partition_key_end (bytea,
// NULL at either end of the table) and, in later releases, state (not read: older ones lack it).
/// The tablets of `schema.table` on the connected node, read by [`parse_local_tablets`].
pub fn local_tablets_sql(schema: &str, table: &str) -> String {
    format!(
        "SELECT tablet_id, encode(partition_key_start, 'hex'), encode(partition_key_end, 'hex') \
         FROM yb_local_tablets WHERE namespace_name = current_database() AND ysql_schema_name = {} \
         AND table_name = {} ORDER BY partition_key_start NULLS FIRST",
        literal(schema),
        literal(table)
    )
}

/// Figures per tablet from [`local_tablets_sql`]'s rows: partition keys as hex; the view names
/// no leader or size (those are on the tserver's `:9000/tablets` page, not in SQL).
pub fn parse_local_tablets(rows: &[CatalogRow]) -> Result<Vec<ShardFigures>, Error> {
    rows.iter()
        .map(|row| {
            let [id, start, end] = fields::<3>(row, "yb_local_tablets")?;
            Ok(ShardFigures {
                id: id
                    .ok_or_else(|| Error::UnexpectedResponse("yb_local_tablets returned no tablet_id".into()))?
                    .into(),
                start_key: start.map(|k| format!("0x{k}")),
                end_key: end.map(|k| format!("0x{k}")),
                ..ShardFigures::default()
            })
        })
        .collect()
}
