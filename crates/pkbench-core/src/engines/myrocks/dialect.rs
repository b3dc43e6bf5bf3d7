//! MyRocks' SQL: MariaDB's dialect with `ENGINE=ROCKSDB`. On MariaDB 10.11's plugin RocksDB takes
//! every key type pkbench gives InnoDB — `BIGINT` with `AUTO_INCREMENT`, `BINARY(16)`, `CHAR` and
//! `VARCHAR` keys in the server's default collation, the `UUID` type and `DEFAULT (UUID())` — and
//! refuses foreign keys.

use crate::engines::kind::EngineKind;
use crate::engines::mariadb::dialect::MysqlDialect;

/// MariaDB with RocksDB tables.
pub const ROCKSDB: MysqlDialect =
    MysqlDialect { storage_engine: "ROCKSDB", kind: EngineKind::MyRocks, row_store: "RocksDB", foreign_keys: false };

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engines::dialect::Dialect;
    use crate::strategy::find;

    #[test]
    fn tables_are_rocksdb_tables_of_the_myrocks_engine() {
        for name in ["int", "uuid7", "uuid4", "uuid4-text", "int+uuid4"] {
            let sql = crate::engines::sql::bench::render(&ROCKSDB, find(name).unwrap(), "pkbench").unwrap();
            assert!(sql.create.iter().all(|s| s.ends_with("ENGINE=ROCKSDB")), "{name}: {:?}", sql.create);
        }
        assert_eq!(ROCKSDB.kind(), EngineKind::MyRocks);
        assert_eq!(EngineKind::MyRocks.dialect().kind(), EngineKind::MyRocks);
        let refusal = ROCKSDB.refusal(find("uuid4-rowid").unwrap()).unwrap_or_default();
        assert!(refusal.starts_with("RocksDB always clusters"), "{refusal}");
    }
}
