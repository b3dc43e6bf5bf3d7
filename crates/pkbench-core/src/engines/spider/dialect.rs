//! The head's Spider table: the strategy's table with `ENGINE=SPIDER`, partitioned by
//! `RANGE COLUMNS(id)` at the layout's bounds or by `KEY(id)`, one partition per shard, each
//! partition's comment naming its shard's server. An engine-assigned key comes from the head's
//! own counter (`auto_increment_mode "1"`): Spider's default locks every shard to read the
//! largest key for each row, and four sessions inserting at once then stalled.
//!
//! `KEY(id)` is MariaDB's own hash, and it is uneven over a power-of-two number of partitions:
//! 10,000 random UUIDs over `PARTITIONS 4` landed about 1,650 / 2,530 / 1,650 / 4,170, and
//! sequential BIGINTs 1,480 / 4,520 / 1,480 / 2,520 (InnoDB tables, MariaDB 10.11). pkbench
//! reports what it does rather than hiding it: mapping several partitions to one shard would need
//! a remote table per partition, since Spider scans a shared remote table once per partition.

use crate::Error;
use crate::engines::mariadb::dialect::MysqlDialect;
use crate::engines::sharded::bound_literal;
use crate::engines::sql;
use crate::sharding::bounds::Bound;
use crate::sharding::{ShardLayout, Sharding};
use crate::strategy::Strategy;

/// Tables on the head: Spider tables holding no rows.
pub const SPIDER: MysqlDialect = MysqlDialect { storage_engine: "SPIDER" };

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
        return Err(Error::InvalidInput(format!("{} has no table to shard", strategy.name)));
    };
    let partition = |i: usize, name: &str| {
        let less = match layout.sharding {
            Sharding::Hash => String::new(),
            Sharding::Range => match bounds.get(i) {
                Some(b) => format!(" VALUES LESS THAN ({})", bound_literal(b, true)),
                None => " VALUES LESS THAN (MAXVALUE)".into(),
            },
        };
        format!("PARTITION {name}{less} COMMENT = 'srv \"{name}\"'")
    };
    let parts: Vec<String> = names.iter().enumerate().map(|(i, n)| partition(i, n)).collect();
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
        assert!(sql[0].ends_with("PARTITION BY KEY(id) (PARTITION shard0 COMMENT = 'srv \"shard0\"', PARTITION shard1 COMMENT = 'srv \"shard1\"')"), "{}", sql[0]);
    }
}
