//! The head's Spider table: the strategy's table with `ENGINE=SPIDER`, partitioned by
//! `RANGE COLUMNS(id)` at the layout's bounds or by `KEY(id)`, one partition per shard, each
//! partition's comment naming its shard's server. An engine-assigned key comes from the head's
//! own counter (`auto_increment_mode "1"`): Spider's default locks every shard to read the
//! largest key for each row, and four sessions inserting at once then stalled.
//!
//! `KEY(id)` is MariaDB's own hash, and it is uneven over a power-of-two number of partitions:
//! 10,000 random UUIDs over `PARTITIONS 4` landed about 1,650 / 2,530 / 1,650 / 4,170, and
//! sequential BIGINTs 1,480 / 4,520 / 1,480 / 2,520 (InnoDB tables, MariaDB 10.11). By hash the
//! head therefore has [`hash_partitions`] partitions (odd: the hash's remainder then uses all of
//! its bits), dealt round-robin over the shards, each with its own table on its shard
//! ([`partition_table`]): Spider scans a remote table once per partition naming it, so partitions
//! sharing one table would count its rows several times. Hash-sharded databases spread many more
//! buckets than nodes in the same way.

use crate::Error;
use crate::engines::mariadb::dialect::MysqlDialect;
use crate::engines::sharded::bound_literal;
use crate::engines::sql;
use crate::sharding::bounds::Bound;
use crate::sharding::{ShardLayout, Sharding};
use crate::strategy::Strategy;

/// Tables on the head: Spider tables holding no rows.
pub const SPIDER: MysqlDialect = MysqlDialect {
    storage_engine: "SPIDER",
    kind: crate::engines::kind::EngineKind::MariaDb,
    row_store: "InnoDB",
    foreign_keys: true,
};

/// KEY partitions of a hash-sharded Spider table over `shards` servers: `8 × shards − 1`, so
/// the round-robin leaves at most one more on a shard than on another (within 1/7 of even).
pub fn hash_partitions(shards: usize) -> usize {
    8 * shards.max(1) - 1
}

/// The shard table of hash partition `p` (range partitions keep the table's own name).
pub fn partition_table(p: usize) -> String {
    format!("bench_p{p}")
}

/// The tables shard `shard` of `shards` holds by hash: those of the partitions dealt to it.
pub fn shard_partition_tables(shards: usize, shard: usize) -> Vec<String> {
    (0..hash_partitions(shards)).filter(|p| p % shards == shard).map(partition_table).collect()
}

/// The head's statements for `strategy`'s table `bench` in database `db`.
pub fn head_table(
    strategy: &Strategy,
    db: &str,
    layout: &ShardLayout,
    bounds: &[Bound],
    names: &[String],
) -> Result<Vec<String>, Error> {
    let rendered = sql::bench::render(&SPIDER, strategy, db)?;
    let Some(create) = rendered.create.first() else {
        return Err(Error::Internal(format!("{} has no table to shard", strategy.name)));
    };
    let parts: Vec<String> = match layout.sharding {
        Sharding::Range => names
            .iter()
            .enumerate()
            .map(|(i, name)| {
                let less = bounds.get(i).map_or_else(|| "MAXVALUE".to_string(), |b| bound_literal(b, true));
                format!("PARTITION {name} VALUES LESS THAN ({less}) COMMENT = 'srv \"{name}\"'")
            })
            .collect(),
        Sharding::Hash => (0..hash_partitions(names.len()))
            .map(|p| {
                let (srv, table) = (&names[p % names.len()], partition_table(p));
                format!("PARTITION p{p} COMMENT = 'srv \"{srv}\", table \"{table}\"'")
            })
            .collect(),
    };
    let by = match layout.sharding {
        Sharding::Range => "RANGE COLUMNS(id)",
        Sharding::Hash => "KEY(id)",
    };
    Ok(vec![format!(
        "{create} COMMENT = 'wrapper \"mysql\", database \"{db}\", table \"bench\", auto_increment_mode \"1\"' PARTITION BY {by} ({})",
        parts.join(", ")
    )])
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::strategy::find;

    #[test]
    fn range_partitions_end_at_maxvalue_and_name_their_shard() {
        let layout = ShardLayout::new(2, Sharding::Range).unwrap();
        let sql = head_table(find("uuid4").unwrap(), "pkbench", &layout, &[Bound::Bytes([0x80; 16])], &layout.names())
            .unwrap();
        assert_eq!(
            sql[0],
            "CREATE TABLE pkbench.bench (id BINARY(16) NOT NULL PRIMARY KEY, payload BLOB NOT NULL) ENGINE=SPIDER \
             COMMENT = 'wrapper \"mysql\", database \"pkbench\", table \"bench\", auto_increment_mode \"1\"' PARTITION BY RANGE COLUMNS(id) \
             (PARTITION shard0 VALUES LESS THAN (x'80808080808080808080808080808080') COMMENT = 'srv \"shard0\"', \
             PARTITION shard1 VALUES LESS THAN (MAXVALUE) COMMENT = 'srv \"shard1\"')"
        );
    }

    #[test]
    fn hash_partitions_use_key_hashing() {
        let layout = ShardLayout::new(2, Sharding::Hash).unwrap();
        let sql = head_table(find("int").unwrap(), "pkbench", &layout, &[], &layout.names()).unwrap();
        assert!(sql[0].contains("AUTO_INCREMENT"), "{}", sql[0]);
        assert!(
            sql[0].contains("PARTITION BY KEY(id) (PARTITION p0 COMMENT = 'srv \"shard0\", table \"bench_p0\"', PARTITION p1 COMMENT = 'srv \"shard1\", table \"bench_p1\"', PARTITION p2 COMMENT = 'srv \"shard0\", table \"bench_p2\"'"),
            "{}",
            sql[0]
        );
        assert!(sql[0].ends_with("PARTITION p14 COMMENT = 'srv \"shard0\", table \"bench_p14\"')"), "{}", sql[0]);
        assert_eq!(shard_partition_tables(2, 1).len(), 7);
        assert_eq!(
            shard_partition_tables(4, 0),
            ["bench_p0", "bench_p4", "bench_p8", "bench_p12", "bench_p16", "bench_p20", "bench_p24", "bench_p28"]
        );
    }
}
