//! How doctor words its remedies on each engine: the storage it recommends for 128-bit keys and
//! the rebuild that repacks half-empty pages. Doctor's own table, so SQL dialects hold only SQL.

use crate::engines::EngineKind;
use crate::engines::distributed::DistributedSql;

/// The words of one engine's remedies.
#[derive(Clone, Copy, Debug)]
pub struct Remedies {
    /// The 16-byte storage advice recommends instead of text.
    pub binary_storage: &'static str,
    /// The one-off rebuild that repacks half-empty pages.
    pub repack: &'static str,
    /// What the rebuild needs while it runs, given the size of what it rebuilds (formatted).
    pub repack_needs: fn(&str) -> String,
}

impl Remedies {
    /// The remedies on `engine` (a sharded engine's are its shards' engine's).
    pub fn of(engine: EngineKind) -> Remedies {
        match engine {
            EngineKind::Sqlite => Remedies {
                binary_storage: "a 16-byte BLOB",
                repack: "VACUUM once to repack",
                repack_needs: |size| format!("needs ~{size} free disk space while it runs"),
            },
            EngineKind::Postgres | EngineKind::PostgresFdw => Remedies {
                binary_storage: "the native 16-byte uuid type",
                repack: "REINDEX the sparse indexes once (REINDEX … CONCURRENTLY avoids blocking writes)",
                repack_needs: |size| format!("needs room for a new copy of each index rebuilt, up to ~{size}"),
            },
            EngineKind::MariaDb | EngineKind::Spider => Remedies {
                binary_storage: "BINARY(16) (or the 16-byte UUID type on MariaDB 10.7+)",
                repack: "OPTIMIZE TABLE once to rebuild the table and its indexes",
                repack_needs: |size| format!("copies the table: needs ~{size} free disk space while it runs"),
            },
            EngineKind::MyRocks => Remedies {
                binary_storage: "BINARY(16) (or the 16-byte UUID type on MariaDB 10.7+)",
                repack: "OPTIMIZE TABLE once to compact the table's key ranges",
                repack_needs: |size| format!("writes new sorted files: needs ~{size} free disk space while it runs"),
            },
        }
    }

    /// The remedies on a distributed SQL system, whose storage compacts itself.
    pub fn of_distributed(system: DistributedSql) -> Remedies {
        match system {
            DistributedSql::Cockroach => Remedies {
                binary_storage: "the native 16-byte UUID type",
                repack: "nothing to run: CockroachDB compacts its storage itself and collects old versions after gc.ttlseconds",
                repack_needs: |_| "no rebuild: space comes back as the storage engine compacts".into(),
            },
            DistributedSql::Yugabyte => Remedies {
                binary_storage: "the native 16-byte uuid type",
                repack: "nothing to run: DocDB compacts its tablets itself",
                repack_needs: |_| "no rebuild: space comes back as DocDB compacts".into(),
            },
            DistributedSql::Tidb => Remedies {
                binary_storage: "BINARY(16) (TiDB has no UUID column type)",
                repack: "nothing to run: TiKV compacts its storage itself after the GC life time",
                repack_needs: |_| "no rebuild: space comes back as TiKV compacts".into(),
            },
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_engine_words_its_rebuild_with_the_size() {
        for engine in EngineKind::ALL {
            let remedies = Remedies::of(engine);
            assert!(remedies.binary_storage.contains("16"), "{engine}");
            assert!((remedies.repack_needs)("3 MiB").contains("~3 MiB"), "{engine}");
        }
        for system in DistributedSql::ALL {
            let remedies = Remedies::of_distributed(system);
            assert!(remedies.repack.starts_with("nothing to run"));
            assert!((remedies.repack_needs)("3 MiB").starts_with("no rebuild"));
        }
    }
}
