//! What postgres_fdw adds to PostgreSQL's backend: the extension and a foreign server per shard
//! on the head (reached through the shard's private socket, sending 1,000 rows per remote
//! INSERT), and the shards' row counts and sizes.

use super::dialect;
use crate::Error;
use crate::engines::CaseSpec;
use crate::engines::kind::EngineKind;
use crate::engines::postgres::PostgresBackend;
use crate::engines::server::{Backend, ManagedOptions};
use crate::engines::sharded::ShardFamily;
use crate::engines::wire::Connection;
use crate::engines::wire::postgres::PgConnection;
use crate::sharding::ShardLayout;
use crate::sharding::bounds::Bound;

impl ShardFamily for PostgresBackend {
    const SHARDED: EngineKind = EngineKind::PostgresFdw;
    const SHARDED_INSERT_PATH: &'static str = "multi-row INSERT … VALUES with bound keys, 1,000 rows per statement, one transaction per batch, into the head's partitioned table, whose postgres_fdw partitions send rows to their shards in remote INSERTs of up to 1,000 rows (batch_size)";

    fn head_options(_options: &mut ManagedOptions) {}

    fn shard_options(_options: &mut ManagedOptions) {}

    fn link(conn: &mut PgConnection, name: &str, shard: &Self) -> Result<(), Error> {
        let Some(server) = shard.managed() else {
            return Err(Error::Internal("a postgres_fdw shard must be a managed server".into()));
        };
        let fail = |e| Error::server(format!("could not link the head to {name}"), e);
        conn.execute("CREATE EXTENSION IF NOT EXISTS postgres_fdw").map_err(|e| {
            Error::server(
                "could not create the postgres_fdw extension on the head (is PostgreSQL's contrib installed?)",
                e,
            )
        })?;
        let dir = server.dir().display().to_string().replace('\'', "''");
        conn.execute(&format!(
            "CREATE SERVER {name} FOREIGN DATA WRAPPER postgres_fdw OPTIONS (host '{dir}', port '{}', dbname 'postgres', batch_size '1000')",
            server.port()
        ))
        .map_err(fail)?;
        conn.execute(&format!("CREATE USER MAPPING FOR CURRENT_USER SERVER {name} OPTIONS (user 'postgres')"))
            .map_err(fail)
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

    fn shard_fill(
        &self,
        conn: &mut PgConnection,
        namespace: &str,
        tables: &[&str],
    ) -> Result<(Option<u64>, Option<u64>), Error> {
        // The statistics views lag a second or more behind another session's commits; a count
        // is exact (an index-only scan of the shard's key).
        let (mut rows, mut size) = (0, 0);
        for t in tables {
            let q = format!("SELECT count(*), pg_total_relation_size('{namespace}.{t}') FROM {namespace}.{t}");
            let row = conn.query_text(&q).map_err(|e| Error::server("could not count a shard's rows", e))?;
            let cell = |i: usize| row.first().and_then(|r| r.get(i)).and_then(|v| v.as_u64()).unwrap_or(0);
            rows += cell(0);
            size += cell(1);
        }
        Ok((Some(rows), Some(size)))
    }
}
