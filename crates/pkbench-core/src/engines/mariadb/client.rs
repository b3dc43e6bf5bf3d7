//! One more client connection to the case's server, for concurrent inserts: one row per
//! autocommit statement through a server-side prepared single-row INSERT (as sysbench does).

use crate::Error;
use crate::engines::{InsertClient, KeyRow};
use crate::generators::Key;
use crate::strategy::Storage;
use mysql::prelude::Queryable;
use mysql::{Params, Value};

/// The single-row INSERT into `db.bench` for the given client-side key columns.
pub fn single_row_insert(db: &str, primary: Option<Storage>, secondary: Option<Storage>) -> String {
    let mut cols: Vec<&str> = Vec::new();
    if primary.is_some() {
        cols.push("id");
    }
    if secondary.is_some() {
        cols.push("ext_id");
    }
    cols.push("payload");
    let marks = vec!["?"; cols.len()].join(", ");
    format!("INSERT INTO {db}.bench ({}) VALUES ({marks})", cols.join(", "))
}

/// A client connection inserting single rows in autocommit mode.
pub(super) struct MariaDbClient {
    conn: mysql::Conn,
    insert: mysql::Statement,
    payload: Vec<u8>,
    /// Storage of the primary and external key columns, where the client sends them.
    storages: [Option<Storage>; 2],
}

impl MariaDbClient {
    /// Connects with `opts` and prepares the INSERT.
    pub(super) fn connect(
        opts: mysql::Opts,
        sql: &str,
        payload: &[u8],
        storages: [Option<Storage>; 2],
    ) -> Result<Self, Error> {
        let mut conn =
            mysql::Conn::new(opts).map_err(|e| Error::mariadb("could not open another MariaDB connection", e))?;
        let insert = conn.prep(sql).map_err(|e| Error::mariadb("could not prepare INSERT", e))?;
        Ok(MariaDbClient { conn, insert, payload: payload.to_vec(), storages })
    }
}

/// A key as a statement parameter in its column's storage form.
pub(super) fn value(key: Option<Key>, storage: Storage) -> Value {
    match (key, storage.text_encoding()) {
        (Some(Key::Int(v)), _) => Value::Int(v),
        (Some(Key::Uuid(b)), Some(encoding)) => Value::Bytes(encoding.encode(&b, &mut [0u8; 36]).as_bytes().to_vec()),
        (Some(Key::Uuid(b)), None) => Value::Bytes(storage.binary_form(b).to_vec()),
        (None, _) => Value::NULL,
    }
}

impl InsertClient for MariaDbClient {
    fn insert_one(&mut self, row: &KeyRow) -> Result<(), Error> {
        // The mysql crate takes parameters by value (a Vec of owned values), so each execution
        // allocates a few small buffers; its API offers no way to rebind in place.
        let mut values = Vec::with_capacity(3);
        for (key, storage) in [row.primary, row.secondary].into_iter().zip(self.storages) {
            if let Some(s) = storage {
                values.push(value(key, s));
            }
        }
        values.push(Value::Bytes(self.payload.clone()));
        self.conn.exec_drop(&self.insert, Params::Positional(values)).map_err(|e| Error::mariadb("INSERT failed", e))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn single_row_inserts_list_the_client_side_columns() {
        assert_eq!(single_row_insert("d", None, None), "INSERT INTO d.bench (payload) VALUES (?)");
        assert_eq!(
            single_row_insert("d", Some(Storage::Binary16), None),
            "INSERT INTO d.bench (id, payload) VALUES (?, ?)"
        );
        assert_eq!(
            single_row_insert("d", Some(Storage::Integer), Some(Storage::Binary16)),
            "INSERT INTO d.bench (id, ext_id, payload) VALUES (?, ?, ?)"
        );
    }
}
