//! One more client connection to the case's server, for concurrent inserts: one row per
//! autocommit statement through a prepared single-row INSERT.

use crate::Error;
use crate::engines::{InsertClient, KeyRow};
use crate::generators::Key;
use crate::strategy::Storage;
use postgres::types::ToSql;
use postgres::{Client, Config, NoTls, Statement};

/// The single-row INSERT into `schema.bench` for the given client-side key columns.
pub fn single_row_insert(schema: &str, primary: Option<Storage>, secondary: Option<Storage>) -> String {
    let mut cols: Vec<&str> = Vec::new();
    if primary.is_some() {
        cols.push("id");
    }
    if secondary.is_some() {
        cols.push("ext_id");
    }
    cols.push("payload");
    let values: Vec<String> = (1..=cols.len()).map(|i| format!("${i}")).collect();
    format!("INSERT INTO {schema}.bench ({}) VALUES ({})", cols.join(", "), values.join(", "))
}

/// A client connection inserting single rows in autocommit mode.
pub(super) struct PgClient {
    client: Client,
    insert: Statement,
    payload: Vec<u8>,
    /// Storage of the primary and external key columns, where the client sends them.
    storages: [Option<Storage>; 2],
    ints: [i64; 2],
    uuids: [uuid::Uuid; 2],
    texts: [String; 2],
}

impl PgClient {
    /// Connects with `config`, applies the run's commit mode and prepares the INSERT.
    pub(super) fn connect(
        config: &Config,
        durable_commits: bool,
        sql: &str,
        payload: &[u8],
        storages: [Option<Storage>; 2],
    ) -> Result<Self, Error> {
        let mut client =
            config.connect(NoTls).map_err(|e| Error::postgres("could not open another PostgreSQL connection", e))?;
        let commit = if durable_commits { "on" } else { "off" };
        client
            .batch_execute(&format!("SET synchronous_commit = {commit}"))
            .map_err(|e| Error::postgres("could not set synchronous_commit", e))?;
        let insert = client.prepare(sql).map_err(|e| Error::postgres("could not prepare INSERT", e))?;
        Ok(PgClient {
            client,
            insert,
            payload: payload.to_vec(),
            storages,
            ints: [0; 2],
            uuids: [uuid::Uuid::nil(); 2],
            texts: [String::with_capacity(36), String::with_capacity(36)],
        })
    }
}

impl InsertClient for PgClient {
    fn insert_one(&mut self, row: &KeyRow) -> Result<(), Error> {
        let PgClient { client, insert, payload, storages, ints, uuids, texts } = self;
        let mut buf = [0u8; 36];
        for (i, key) in [row.primary, row.secondary].into_iter().enumerate() {
            match (storages[i], key) {
                (Some(_), Some(Key::Int(v))) => ints[i] = v,
                (Some(s), Some(Key::Uuid(b))) => match s.text_encoding() {
                    Some(encoding) => {
                        texts[i].clear();
                        texts[i].push_str(encoding.encode(&b, &mut buf));
                    }
                    None => uuids[i] = uuid::Uuid::from_bytes(s.binary_form(b)),
                },
                _ => {}
            }
        }
        let mut params: [&(dyn ToSql + Sync); 3] = [&*payload; 3];
        let mut n = 0;
        for (i, storage) in storages.iter().enumerate() {
            if let Some(s) = storage {
                params[n] = match (s, s.text_encoding()) {
                    (Storage::Integer, _) => &ints[i],
                    (_, Some(_)) => &texts[i],
                    (_, None) => &uuids[i],
                };
                n += 1;
            }
        }
        params[n] = &*payload;
        client.execute(&*insert, &params[..=n]).map_err(|e| Error::postgres("INSERT failed", e))?;
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn single_row_inserts_list_the_client_side_columns() {
        assert_eq!(single_row_insert("s", None, None), "INSERT INTO s.bench (payload) VALUES ($1)");
        assert_eq!(
            single_row_insert("s", Some(Storage::Binary16), Some(Storage::Text36)),
            "INSERT INTO s.bench (id, ext_id, payload) VALUES ($1, $2, $3)"
        );
        assert_eq!(
            single_row_insert("s", None, Some(Storage::Binary16)),
            "INSERT INTO s.bench (ext_id, payload) VALUES ($1, $2)"
        );
    }
}
