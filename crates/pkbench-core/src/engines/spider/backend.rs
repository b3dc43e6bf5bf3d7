//! What Spider adds to MariaDB's backend: the plugin on the head, a foreign server per shard
//! reached through the shard's private socket, and the shards' row counts from their per-table
//! statistics (`userstat`).

use super::dialect;
use crate::Error;
use crate::engines::CaseSpec;
use crate::engines::kind::EngineKind;
use crate::engines::mariadb::MariaDbBackend;
use crate::engines::server::{Backend, ManagedOptions, ServerSetting};
use crate::engines::sharded::ShardFamily;
use crate::engines::wire::Connection;
use crate::engines::wire::mysql::MyConnection;
use crate::sharding::bounds::Bound;
use crate::sharding::{ShardLayout, Sharding};

impl ShardFamily for MariaDbBackend {
    const SHARDED: EngineKind = EngineKind::Spider;
    const SHARDED_INSERT_PATH: &'static str = "multi-row INSERT … VALUES with literal keys, 1,000 rows per statement, one transaction per batch, into the head's Spider table, which sends each row to its shard's InnoDB table";

    fn head_options(options: &mut ManagedOptions) {
        options.settings.push(ServerSetting { name: "plugin_load_add".into(), value: "ha_spider".into() });
    }

    fn shard_options(options: &mut ManagedOptions) {
        // Per-table row counts (information_schema.TABLE_STATISTICS), cheap to read.
        options.settings.push(ServerSetting { name: "userstat".into(), value: "1".into() });
    }

    fn link(conn: &mut MyConnection, name: &str, shard: &Self) -> Result<(), Error> {
        let Some(server) = shard.managed() else {
            return Err(Error::Internal("a Spider shard must be a managed server".into()));
        };
        let socket = server.dir().join("mariadb.sock");
        let sql = format!(
            "CREATE SERVER {name} FOREIGN DATA WRAPPER mysql OPTIONS (SOCKET '{}', USER 'root')",
            socket.display().to_string().replace('\'', "''")
        );
        conn.execute(&sql).map_err(|e| Error::server(format!("could not link the head to {name}"), e))
    }

    fn head_table(
        spec: &CaseSpec<'_>,
        namespace: &str,
        layout: &ShardLayout,
        bounds: &[Bound],
        names: &[String],
    ) -> Result<Vec<String>, Error> {
        dialect::head_table(spec.strategy, namespace, layout, bounds, names)
    }

    fn partition_tables(layout: &ShardLayout, shard: usize, _tables: &[&str]) -> Option<Vec<String>> {
        (layout.sharding == Sharding::Hash).then(|| dialect::shard_partition_tables(layout.shards as usize, shard))
    }

    fn shard_fill(
        &self,
        conn: &mut MyConnection,
        namespace: &str,
        tables: &[&str],
    ) -> Result<(Option<u64>, Option<u64>), Error> {
        let list = tables.iter().map(|t| format!("'{t}'")).collect::<Vec<_>>().join(", ");
        let sql = format!(
            "SELECT COALESCE(SUM(ROWS_CHANGED), 0) FROM information_schema.TABLE_STATISTICS \
             WHERE TABLE_SCHEMA = '{namespace}' AND TABLE_NAME IN ({list})"
        );
        let rows = conn
            .query_one_text(&sql)
            .map_err(|e| Error::server("could not read a shard's table statistics", e))?
            .and_then(|v| v.as_u64());
        // The tablespace files' length: exact and free to read on a managed server.
        let size = self.managed().map(|m| {
            let db = m.dir().join("data").join(namespace);
            tables.iter().filter_map(|t| std::fs::metadata(db.join(format!("{t}.ibd"))).ok()).map(|m| m.len()).sum()
        });
        Ok((rows, size))
    }
}
