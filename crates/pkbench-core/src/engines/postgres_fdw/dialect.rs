//! The head's table: partitioned by `RANGE (id)` at the layout's bounds or by `HASH (id)`, each
//! partition a `postgres_fdw` foreign table on its shard. The head keeps no primary key (an index
//! cannot span foreign partitions); each shard's own table has it. An engine-assigned key comes
//! from one sequence on the head.

use crate::Error;
use crate::engines::dialect::Dialect;
use crate::engines::postgres::dialect::PostgresDialect;
use crate::engines::sharded::bound_literal;
use crate::sharding::bounds::Bound;
use crate::sharding::{ShardLayout, Sharding};
use crate::strategy::{Storage, Strategy};

/// The head's statements for `strategy`'s table `bench` in schema `schema`.
pub fn head_table(
    strategy: &Strategy,
    schema: &str,
    layout: &ShardLayout,
    bounds: &[Bound],
    names: &[String],
) -> Result<Vec<String>, Error> {
    let d = PostgresDialect;
    let storage = strategy.primary.storage;
    if let Some(reason) = d.refusal(strategy) {
        return Err(d.unsupported(strategy, reason));
    }
    let table = d.qualify(schema, "bench");
    let sequence = d.qualify(schema, "bench_id_seq");
    let engine_assigned = strategy.client_primary().is_none();
    // Range bounds compare text keys byte by byte, as the shards' C collation does.
    let collate =
        if storage.text_encoding().is_some() && storage != Storage::MariaDbUuid { " COLLATE \"C\"" } else { "" };
    let default = if engine_assigned { format!(" DEFAULT nextval('{sequence}')") } else { String::new() };
    let by = match layout.sharding {
        Sharding::Range => "RANGE",
        Sharding::Hash => "HASH",
    };
    let mut out = Vec::new();
    if engine_assigned {
        out.push(format!("CREATE SEQUENCE {sequence}"));
    }
    out.push(format!(
        "CREATE TABLE {table} (id {}{collate} NOT NULL{default}, payload {} NOT NULL) PARTITION BY {by} (id)",
        d.key_type(storage),
        d.bytes()
    ));
    if engine_assigned {
        out.push(format!("ALTER SEQUENCE {sequence} OWNED BY {table}.id"));
    }
    let n = names.len();
    for (i, name) in names.iter().enumerate() {
        let values = match layout.sharding {
            Sharding::Hash => format!("WITH (MODULUS {n}, REMAINDER {i})"),
            Sharding::Range => {
                let from = if i == 0 { "MINVALUE".into() } else { literal(bounds, i - 1)? };
                let to = if i + 1 == n { "MAXVALUE".into() } else { literal(bounds, i)? };
                format!("FROM ({from}) TO ({to})")
            }
        };
        out.push(format!(
            "CREATE FOREIGN TABLE {} PARTITION OF {table} FOR VALUES {values} SERVER {name} OPTIONS (schema_name '{schema}', table_name 'bench')",
            d.qualify(schema, &format!("bench_{name}"))
        ));
    }
    Ok(out)
}

fn literal(bounds: &[Bound], i: usize) -> Result<String, Error> {
    bounds
        .get(i)
        .map(|b| bound_literal(b, false))
        .ok_or_else(|| Error::Internal(format!("range sharding needs {} bounds, got {}", i + 1, bounds.len())))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::strategy::find;

    #[test]
    fn range_partitions_run_from_minvalue_to_maxvalue_on_their_servers() {
        let layout = ShardLayout::new(2, Sharding::Range).unwrap();
        let sql = head_table(find("uuid7").unwrap(), "pkbench", &layout, &[Bound::Bytes([0x01; 16])], &layout.names())
            .unwrap();
        assert_eq!(sql.len(), 3);
        assert_eq!(
            sql[0],
            "CREATE TABLE pkbench.bench (id uuid NOT NULL, payload bytea NOT NULL) PARTITION BY RANGE (id)"
        );
        assert_eq!(
            sql[1],
            "CREATE FOREIGN TABLE pkbench.bench_shard0 PARTITION OF pkbench.bench FOR VALUES FROM (MINVALUE) TO ('01010101-0101-0101-0101-010101010101') SERVER shard0 OPTIONS (schema_name 'pkbench', table_name 'bench')"
        );
        assert!(
            sql[2].contains("FROM ('01010101-0101-0101-0101-010101010101') TO (MAXVALUE) SERVER shard1"),
            "{}",
            sql[2]
        );
    }

    #[test]
    fn engine_assigned_keys_come_from_one_sequence_and_hash_uses_modulus() {
        let layout = ShardLayout::new(3, Sharding::Hash).unwrap();
        let sql = head_table(find("int").unwrap(), "s", &layout, &[], &layout.names()).unwrap();
        assert_eq!(sql[0], "CREATE SEQUENCE s.bench_id_seq");
        assert!(sql[1].contains("id bigint NOT NULL DEFAULT nextval('s.bench_id_seq')"), "{}", sql[1]);
        assert!(sql[1].ends_with("PARTITION BY HASH (id)"));
        assert!(sql[5].contains("FOR VALUES WITH (MODULUS 3, REMAINDER 2) SERVER shard2"), "{}", sql[5]);
    }

    #[test]
    fn text_keys_compare_in_the_c_collation() {
        let layout = ShardLayout::new(2, Sharding::Range).unwrap();
        let b = [Bound::Text("8".repeat(36))];
        let sql = head_table(find("uuid4-text").unwrap(), "s", &layout, &b, &layout.names()).unwrap();
        assert!(sql[0].contains("id char(36) COLLATE \"C\" NOT NULL"), "{}", sql[0]);
    }
}
