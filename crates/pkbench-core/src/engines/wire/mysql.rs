//! The MySQL wire (MariaDB, MySQL), through the `mysql` crate: server-side prepared statements
//! (the crate takes parameters by value, so each execution allocates a few small buffers; its API
//! offers no way to rebind in place), multi-row statements as literal rows appended to one text
//! statement within `max_allowed_packet`, and driver errors mapped onto [`ServerErrorKind`]s by
//! error code.

use super::{BulkSql, Connection, KeyField, Value, counted};
use crate::Error;
use crate::control::RunControl;
use crate::engines::kind::EngineKind;
use crate::generators::Key;
use crate::keys::KeyRow;
use crate::strategy::Storage;
use crate::values::Param;
use crate::{ServerError, ServerErrorKind};
use mysql::prelude::Queryable;
use std::fmt::Write;

/// Most rows per multi-row statement.
pub const ROWS_PER_STATEMENT: usize = 1000;

impl Error {
    /// Wraps a MariaDB/MySQL error with what pkbench was doing.
    pub fn mariadb(context: impl Into<String>, cause: mysql::Error) -> Self {
        Error::server(context, server_error(&cause))
    }
}

/// The driver's error as a [`ServerError`]: the server's code and message, or the client's
/// error.
pub fn server_error(e: &mysql::Error) -> ServerError {
    let (kind, message) = match e {
        // max_statement_time (MariaDB) and max_execution_time (MySQL) exceeded.
        mysql::Error::MySqlError(m) if matches!(m.code, 1969 | 3024) => (
            kind_of(m.code),
            format!(
                "ERROR {} ({}): {} (the run's --statement-timeout: raise it, or give off)",
                m.code, m.state, m.message
            ),
        ),
        mysql::Error::MySqlError(m) => (kind_of(m.code), format!("ERROR {} ({}): {}", m.code, m.state, m.message)),
        mysql::Error::IoError(io) => (super::io_fault(io.kind()).unwrap_or(ServerErrorKind::ServerGone), plain(e)),
        // The wire broke mid-packet: the server went away or the connection was cut.
        mysql::Error::CodecError(c) if std::error::Error::source(c).is_some_and(|s| s.is::<std::io::Error>()) => {
            (ServerErrorKind::ServerGone, plain(e))
        }
        mysql::Error::DriverError(mysql::DriverError::CouldNotConnect(_)) => (ServerErrorKind::Unreachable, plain(e)),
        mysql::Error::DriverError(mysql::DriverError::ConnectTimeout) => (ServerErrorKind::Unreachable, plain(e)),
        other => (ServerErrorKind::Other, plain(other)),
    };
    ServerError { engine: EngineKind::MariaDb.label(), kind, message }
}

/// The driver's message without its Rust type names (`DriverError { … }`, `IoError { … }`):
/// what went wrong, as a person reads it.
fn plain(e: &mysql::Error) -> String {
    match e {
        mysql::Error::IoError(io) => io.to_string(),
        mysql::Error::CodecError(c) => match std::error::Error::source(c) {
            Some(io) => io.to_string(),
            None => c.to_string(),
        },
        mysql::Error::DriverError(d) => d.to_string(),
        mysql::Error::UrlError(u) => u.to_string(),
        other => other.to_string(),
    }
}

fn kind_of(code: u16) -> ServerErrorKind {
    match code {
        1062 | 1586 => ServerErrorKind::UniqueViolation,
        1044 | 1045 | 1698 => ServerErrorKind::AuthenticationFailed,
        1021 | 1114 => ServerErrorKind::DiskFull,
        1205 | 1213 => ServerErrorKind::Conflict,
        // MariaDB's max_statement_time, MySQL's max_execution_time.
        1969 | 3024 => ServerErrorKind::Timeout,
        1053 | 1927 | 2006 | 2013 => ServerErrorKind::ServerGone,
        1142 | 1143 => ServerErrorKind::PermissionDenied,
        1049 | 1054 | 1064 | 1146 | 1227 | 1235 => ServerErrorKind::Rejected,
        _ => ServerErrorKind::Other,
    }
}

fn to_mysql(p: &Param<'_>) -> mysql::Value {
    match p {
        Param::Null => mysql::Value::NULL,
        Param::Int(v) => mysql::Value::Int(*v),
        Param::Uuid(b) => mysql::Value::Bytes(b.to_vec()),
        Param::Text(t) => mysql::Value::Bytes(t.as_bytes().to_vec()),
        Param::Bytes(b) => mysql::Value::Bytes(b.to_vec()),
    }
}

fn from_mysql(v: mysql::Value) -> Value {
    match v {
        mysql::Value::NULL => Value::Null,
        mysql::Value::Bytes(b) => Value::Bytes(b),
        mysql::Value::Int(i) => Value::Int(i),
        mysql::Value::UInt(u) => Value::Int(i64::try_from(u).unwrap_or(i64::MAX)),
        mysql::Value::Float(f) => Value::Float(f.into()),
        mysql::Value::Double(f) => Value::Float(f),
        other => Value::Text(other.as_sql(true).trim_matches('\'').to_string()),
    }
}

fn params(params: &[Param<'_>]) -> mysql::Params {
    if params.is_empty() {
        mysql::Params::Empty
    } else {
        mysql::Params::Positional(params.iter().map(to_mysql).collect())
    }
}

/// Appends `key` as an SQL literal for its storage, without allocating.
pub fn push_literal(buf: &mut String, key: Option<Key>, storage: Storage) {
    const HEX: &[u8; 16] = b"0123456789abcdef";
    match (key, storage.text_encoding()) {
        (Some(Key::Int(v)), _) => {
            let _ = write!(buf, "{v}");
        }
        (Some(Key::Uuid(b)), Some(encoding)) => {
            // Text encodings are ASCII letters, digits and hyphens: no quoting needed inside ''.
            buf.push('\'');
            buf.push_str(encoding.encode(&b, &mut [0u8; 36]));
            buf.push('\'');
        }
        (Some(Key::Uuid(b)), None) => {
            buf.push_str("X'");
            for byte in storage.binary_form(b) {
                buf.push(HEX[usize::from(byte >> 4)] as char);
                buf.push(HEX[usize::from(byte & 0xf)] as char);
            }
            buf.push('\'');
        }
        (None, _) => buf.push_str("NULL"),
    }
}

/// A connection on the MySQL wire.
pub struct MyConnection {
    conn: mysql::Conn,
}

impl MyConnection {
    /// Wraps a connected client.
    pub fn new(conn: mysql::Conn) -> Self {
        MyConnection { conn }
    }

    /// The driver's connection, for what only MariaDB has (InnoDB's status and tablespaces).
    pub fn conn(&mut self) -> &mut mysql::Conn {
        &mut self.conn
    }
}

/// A multi-row statement's text prefix, its key columns and its reusable buffer.
pub struct MyBulk {
    prefix: String,
    keys: Vec<(KeyField, Storage)>,
    /// The payload's hex literal, if rows carry one.
    payload: Option<String>,
    /// Rows (or keys) per statement, so a statement stays within half of `max_allowed_packet`.
    per_statement: usize,
    buf: String,
}

impl Connection for MyConnection {
    type Statement = mysql::Statement;
    type Bulk = MyBulk;

    fn execute(&mut self, sql: &str) -> Result<(), ServerError> {
        self.conn.query_drop(sql).map_err(|e| server_error(&e))
    }

    fn prepare(&mut self, sql: &str) -> Result<mysql::Statement, ServerError> {
        self.conn.prep(sql).map_err(|e| server_error(&e))
    }

    fn exec(&mut self, stmt: &mysql::Statement, p: &[Param<'_>]) -> Result<u64, ServerError> {
        self.conn.exec_drop(stmt, params(p)).map_err(|e| server_error(&e))?;
        Ok(self.conn.affected_rows())
    }

    fn query(
        &mut self,
        stmt: &mysql::Statement,
        p: &[Param<'_>],
        row: &mut dyn FnMut(&[Value]),
    ) -> Result<u64, ServerError> {
        let rows = self.conn.exec_iter(stmt, params(p)).map_err(|e| server_error(&e))?;
        let mut n = 0;
        for r in rows {
            let r = r.map_err(|e| server_error(&e))?;
            let values: Vec<Value> = r.unwrap().into_iter().map(from_mysql).collect();
            row(&values);
            n += 1;
        }
        Ok(n)
    }

    fn query_text(&mut self, sql: &str) -> Result<Vec<Vec<Value>>, ServerError> {
        let rows: Vec<mysql::Row> = self.conn.query(sql).map_err(|e| server_error(&e))?;
        Ok(rows.into_iter().map(|r| r.unwrap().into_iter().map(from_mysql).collect()).collect())
    }

    fn bulk(&mut self, sql: &BulkSql, payload_bytes: usize) -> Result<MyBulk, ServerError> {
        let max_packet = self.max_statement_bytes()?.unwrap_or(16 << 20);
        // A row's literal: hex payload, up to two keys of at most 40 characters, punctuation.
        let row_bytes = 2 * payload_bytes as u64 + 100;
        let per_statement = ((max_packet / 2) / row_bytes).clamp(1, ROWS_PER_STATEMENT as u64) as usize;
        let payload = sql.payload.then(|| {
            let mut p = String::with_capacity(2 * payload_bytes + 3);
            p.push_str("X'");
            for _ in 0..payload_bytes {
                p.push_str("a5");
            }
            p.push('\'');
            p
        });
        Ok(MyBulk { prefix: sql.sql.clone(), keys: sql.keys.clone(), payload, per_statement, buf: String::new() })
    }

    fn insert_rows(&mut self, bulk: &mut MyBulk, rows: &[KeyRow], control: &RunControl) -> Result<bool, ServerError> {
        let MyBulk { prefix, keys, payload, per_statement, buf } = bulk;
        for chunk in rows.chunks(*per_statement) {
            buf.clear();
            buf.push_str(prefix);
            for (i, row) in chunk.iter().enumerate() {
                if i > 0 {
                    buf.push(',');
                }
                buf.push('(');
                for (k, (field, storage)) in keys.iter().enumerate() {
                    if k > 0 {
                        buf.push(',');
                    }
                    push_literal(buf, field.of(row), *storage);
                }
                if let Some(p) = payload {
                    if !keys.is_empty() {
                        buf.push(',');
                    }
                    buf.push_str(p);
                }
                buf.push(')');
            }
            self.conn.query_drop(&*buf).map_err(|e| server_error(&e))?;
            if !counted(control, chunk.len()) {
                return Ok(false);
            }
        }
        Ok(true)
    }

    fn delete_keys(
        &mut self,
        bulk: &mut MyBulk,
        keys: &[Key],
        per_statement: usize,
        control: &RunControl,
    ) -> Result<Option<u64>, ServerError> {
        let Some(&(_, storage)) = bulk.keys.first() else { return Ok(Some(0)) };
        let mut affected = 0;
        for chunk in keys.chunks(per_statement.min(bulk.per_statement).max(1)) {
            bulk.buf.clear();
            bulk.buf.push_str(&bulk.prefix);
            for (i, key) in chunk.iter().enumerate() {
                if i > 0 {
                    bulk.buf.push(',');
                }
                push_literal(&mut bulk.buf, Some(*key), storage);
            }
            bulk.buf.push(')');
            self.conn.query_drop(&bulk.buf).map_err(|e| server_error(&e))?;
            affected += self.conn.affected_rows();
            if control.is_cancelled() {
                return Ok(None);
            }
        }
        Ok(Some(affected))
    }

    fn max_statement_bytes(&mut self) -> Result<Option<u64>, ServerError> {
        self.conn.query_first("SELECT @@max_allowed_packet").map_err(|e| server_error(&e))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_missing_table_or_column_privilege_is_permission_denied_not_a_rejected_statement() {
        assert_eq!(kind_of(1142), ServerErrorKind::PermissionDenied);
        assert_eq!(kind_of(1143), ServerErrorKind::PermissionDenied);
        assert_eq!(kind_of(1146), ServerErrorKind::Rejected);
    }
}
