//! PostgreSQL's wire, through the `postgres` crate: parameters bound in place (no allocation
//! per row), multi-row statements as one array parameter per column (`unnest($1::uuid[])`,
//! `= ANY($1)`), and driver errors mapped onto [`ServerErrorKind`]s by SQLSTATE.

use super::{BulkSql, Connection, KeyField, Value, counted};
use crate::Error;
use crate::control::RunControl;
use crate::engines::kind::EngineKind;
use crate::generators::{Key, TextEncoding};
use crate::keys::KeyRow;
use crate::strategy::Storage;
use crate::values::Param;
use crate::{ServerError, ServerErrorKind};
use bytes::BytesMut;
use postgres::error::SqlState;
use postgres::types::{FromSql, IsNull, ToSql, Type, to_sql_checked};
use postgres::{Client, Row, Statement};

/// Rows per multi-row INSERT (one array element per row).
pub const ROWS_PER_STATEMENT: usize = 1000;

impl Error {
    /// Wraps a PostgreSQL error with what pkbench was doing.
    pub fn postgres(context: impl Into<String>, cause: postgres::Error) -> Self {
        Error::server(context, server_error(&cause))
    }
}

/// The driver's error as a [`ServerError`]: the server's own message (severity, text) where it
/// sent one, else the client's error with its causes.
pub fn server_error(e: &postgres::Error) -> ServerError {
    let (kind, message) = match e.as_db_error() {
        Some(db) if db.message().contains("statement timeout") => (
            kind_of(db.code()),
            format!("{}: {} (the run's --statement-timeout: raise it, or give off)", db.severity(), db.message()),
        ),
        Some(db) => (kind_of(db.code()), format!("{}: {}", db.severity(), db.message())),
        None => {
            // Client-side errors keep the cause (e.g. "Connection refused") in their source chain.
            let mut text = e.to_string();
            let mut source = std::error::Error::source(e);
            let mut fault = None;
            while let Some(s) = source {
                if let Some(io) = s.downcast_ref::<std::io::Error>() {
                    fault = fault.or(super::io_fault(io.kind()));
                }
                let part = s.to_string();
                if !text.contains(&part) {
                    text.push_str(": ");
                    text.push_str(&part);
                }
                source = s.source();
            }
            // The driver refuses to connect without the password the server asked for.
            let kind = if text.contains("password missing") {
                ServerErrorKind::AuthenticationFailed
            } else if e.is_closed() || fault == Some(ServerErrorKind::ServerGone) {
                ServerErrorKind::ServerGone
            } else if fault == Some(ServerErrorKind::Unreachable) || text.contains("error connecting") {
                ServerErrorKind::Unreachable
            } else {
                ServerErrorKind::Other
            };
            (kind, text)
        }
    };
    ServerError { engine: EngineKind::Postgres.label(), kind, message }
}

fn kind_of(code: &SqlState) -> ServerErrorKind {
    let class = &code.code()[..2];
    if *code == SqlState::UNIQUE_VIOLATION {
        ServerErrorKind::UniqueViolation
    } else if *code == SqlState::DISK_FULL {
        ServerErrorKind::DiskFull
    } else if class == "28" {
        ServerErrorKind::AuthenticationFailed
    } else if *code == SqlState::INSUFFICIENT_PRIVILEGE {
        ServerErrorKind::PermissionDenied
    } else if *code == SqlState::QUERY_CANCELED {
        ServerErrorKind::Timeout
    } else if class == "40" {
        ServerErrorKind::Conflict
    } else if class == "57" || class == "08" {
        ServerErrorKind::ServerGone
    } else if matches!(class, "42" | "0A" | "22") {
        ServerErrorKind::Rejected
    } else {
        ServerErrorKind::Other
    }
}

impl ToSql for Param<'_> {
    fn to_sql(&self, ty: &Type, out: &mut BytesMut) -> Result<IsNull, Box<dyn std::error::Error + Sync + Send>> {
        match self {
            Param::Null => Ok(IsNull::Yes),
            Param::Int(v) if *ty == Type::INT4 => i32::try_from(*v)?.to_sql(ty, out),
            Param::Int(v) => v.to_sql(ty, out),
            Param::Uuid(b) => uuid::Uuid::from_bytes(*b).to_sql(ty, out),
            Param::Text(t) => t.to_sql(ty, out),
            Param::Bytes(b) => b.to_sql(ty, out),
        }
    }

    fn accepts(_: &Type) -> bool {
        true
    }

    to_sql_checked!();
}

/// Column `i` of `row` as a [`Value`], by its PostgreSQL type.
fn value(row: &Row, i: usize) -> Result<Value, postgres::Error> {
    let ty = row.columns()[i].type_().clone();
    Ok(match ty {
        Type::INT8 => row.try_get::<_, Option<i64>>(i)?.map_or(Value::Null, Value::Int),
        Type::INT4 | Type::OID => row.try_get::<_, Option<i32>>(i)?.map_or(Value::Null, |v| Value::Int(v.into())),
        Type::INT2 => row.try_get::<_, Option<i16>>(i)?.map_or(Value::Null, |v| Value::Int(v.into())),
        Type::FLOAT8 => row.try_get::<_, Option<f64>>(i)?.map_or(Value::Null, Value::Float),
        Type::FLOAT4 => row.try_get::<_, Option<f32>>(i)?.map_or(Value::Null, |v| Value::Float(v.into())),
        Type::BOOL => row.try_get::<_, Option<bool>>(i)?.map_or(Value::Null, |v| Value::Int(v.into())),
        Type::UUID => row.try_get::<_, Option<uuid::Uuid>>(i)?.map_or(Value::Null, |u| Value::Uuid(*u.as_bytes())),
        Type::BYTEA => row.try_get::<_, Option<Vec<u8>>>(i)?.map_or(Value::Null, Value::Bytes),
        _ if <String as FromSql>::accepts(&ty) => row.try_get::<_, Option<String>>(i)?.map_or(Value::Null, Value::Text),
        // Any other type (timestamp, numeric, jsonb, …) as the bytes the server sent.
        _ => row.try_get::<_, Option<Raw>>(i)?.map_or(Value::Null, |r| Value::Bytes(r.0)),
    })
}

/// A value of any type, as the server's binary form.
struct Raw(Vec<u8>);

impl<'a> FromSql<'a> for Raw {
    fn from_sql(_: &Type, raw: &'a [u8]) -> Result<Self, Box<dyn std::error::Error + Sync + Send>> {
        Ok(Raw(raw.to_vec()))
    }

    fn accepts(_: &Type) -> bool {
        true
    }
}

fn values(row: &Row) -> Result<Vec<Value>, postgres::Error> {
    (0..row.len()).map(|i| value(row, i)).collect()
}

/// Calls `f` with `params` as the driver's parameter slice: on the stack for up to eight (every
/// statement pkbench prepares), on the heap beyond.
fn with_refs<T>(params: &[Param<'_>], f: impl FnOnce(&[&(dyn ToSql + Sync)]) -> T) -> T {
    const STACK: usize = 8;
    if params.len() <= STACK {
        let mut refs: [&(dyn ToSql + Sync); STACK] = [&Param::Null; STACK];
        for (slot, p) in refs.iter_mut().zip(params) {
            *slot = p;
        }
        f(&refs[..params.len()])
    } else {
        let refs: Vec<&(dyn ToSql + Sync)> = params.iter().map(|p| p as &(dyn ToSql + Sync)).collect();
        f(&refs)
    }
}

/// A connection on PostgreSQL's wire.
pub struct PgConnection {
    client: Client,
}

impl PgConnection {
    /// Wraps a connected client.
    pub fn new(client: Client) -> Self {
        PgConnection { client }
    }

    /// The driver's client, for what only PostgreSQL has (its statistics views, pg_walinspect).
    pub fn client(&mut self) -> &mut Client {
        &mut self.client
    }
}

/// A reusable array parameter: filled per statement without allocating per row.
enum Column {
    Int(Vec<i64>),
    Uuid(Vec<uuid::Uuid>, Storage),
    Text(Vec<String>, TextEncoding),
}

impl Column {
    fn for_storage(storage: Storage) -> Self {
        match storage.text_encoding() {
            _ if storage == Storage::Integer => Column::Int(Vec::with_capacity(ROWS_PER_STATEMENT)),
            None => Column::Uuid(Vec::with_capacity(ROWS_PER_STATEMENT), storage),
            Some(encoding) => Column::Text(Vec::with_capacity(ROWS_PER_STATEMENT), encoding),
        }
    }

    fn fill(&mut self, keys: impl Iterator<Item = Option<Key>>) {
        let mut buf = [0u8; 36];
        match self {
            Column::Int(v) => {
                v.clear();
                v.extend(keys.map(|k| match k {
                    Some(Key::Int(i)) => i,
                    _ => 0,
                }));
            }
            Column::Uuid(v, storage) => {
                v.clear();
                v.extend(keys.map(|k| match k {
                    Some(Key::Uuid(b)) => uuid::Uuid::from_bytes(storage.binary_form(b)),
                    _ => uuid::Uuid::nil(),
                }));
            }
            Column::Text(v, encoding) => {
                let mut n = 0;
                for k in keys {
                    if let Some(Key::Uuid(b)) = k {
                        if v.len() <= n {
                            v.push(String::with_capacity(36));
                        }
                        v[n].clear();
                        v[n].push_str(encoding.encode(&b, &mut buf));
                        n += 1;
                    }
                }
                v.truncate(n);
            }
        }
    }

    fn param(&self) -> &(dyn ToSql + Sync) {
        match self {
            Column::Int(v) => v,
            Column::Uuid(v, _) => v,
            Column::Text(v, _) => v,
        }
    }
}

/// A prepared multi-row statement and its array parameters.
pub struct PgBulk {
    statement: Statement,
    columns: Vec<(Column, KeyField)>,
    /// The payload every row carries, if the statement takes one.
    payload: Option<Vec<u8>>,
}

impl Connection for PgConnection {
    type Statement = Statement;
    type Bulk = PgBulk;

    fn execute(&mut self, sql: &str) -> Result<(), ServerError> {
        self.client.batch_execute(sql).map_err(|e| server_error(&e))
    }

    fn prepare(&mut self, sql: &str) -> Result<Statement, ServerError> {
        self.client.prepare(sql).map_err(|e| server_error(&e))
    }

    fn exec(&mut self, stmt: &Statement, params: &[Param<'_>]) -> Result<u64, ServerError> {
        with_refs(params, |refs| self.client.execute(stmt, refs)).map_err(|e| server_error(&e))
    }

    fn query(
        &mut self,
        stmt: &Statement,
        params: &[Param<'_>],
        row: &mut dyn FnMut(&[Value]),
    ) -> Result<u64, ServerError> {
        let rows = with_refs(params, |refs| self.client.query(stmt, refs)).map_err(|e| server_error(&e))?;
        for r in &rows {
            row(&values(r).map_err(|e| server_error(&e))?);
        }
        Ok(rows.len() as u64)
    }

    fn query_text(&mut self, sql: &str) -> Result<Vec<Vec<Value>>, ServerError> {
        let rows = self.client.query(sql, &[]).map_err(|e| server_error(&e))?;
        rows.iter().map(|r| values(r).map_err(|e| server_error(&e))).collect()
    }

    fn bulk(&mut self, sql: &BulkSql, payload_bytes: usize) -> Result<PgBulk, ServerError> {
        Ok(PgBulk {
            statement: self.prepare(&sql.sql)?,
            columns: sql.keys.iter().map(|(field, s)| (Column::for_storage(*s), *field)).collect(),
            payload: sql.payload.then(|| vec![0xa5; payload_bytes]),
        })
    }

    fn insert_rows(&mut self, bulk: &mut PgBulk, rows: &[KeyRow], control: &RunControl) -> Result<bool, ServerError> {
        let PgBulk { statement, columns, payload } = bulk;
        let payload: Option<&(dyn ToSql + Sync)> = payload.as_ref().map(|p| p as &(dyn ToSql + Sync));
        for chunk in rows.chunks(ROWS_PER_STATEMENT) {
            for (column, field) in columns.iter_mut() {
                let field = *field;
                column.fill(chunk.iter().map(|r| field.of(r)));
            }
            let count = chunk.len() as i32;
            let mut params: [&(dyn ToSql + Sync); 4] = [&count; 4];
            let mut p = 0;
            for (column, _) in columns.iter() {
                params[p] = column.param();
                p += 1;
            }
            if let Some(payload) = payload {
                params[p] = payload;
                p += 1;
            }
            if columns.is_empty() {
                params[p] = &count;
                p += 1;
            }
            self.client.execute(&*statement, &params[..p]).map_err(|e| server_error(&e))?;
            if !counted(control, chunk.len()) {
                return Ok(false);
            }
        }
        Ok(true)
    }

    fn delete_keys(
        &mut self,
        bulk: &mut PgBulk,
        keys: &[Key],
        per_statement: usize,
        control: &RunControl,
    ) -> Result<Option<u64>, ServerError> {
        let mut affected = 0;
        for chunk in keys.chunks(per_statement.max(1)) {
            let Some((column, _)) = bulk.columns.first_mut() else { break };
            column.fill(chunk.iter().map(|k| Some(*k)));
            affected += self.client.execute(&bulk.statement, &[column.param()]).map_err(|e| server_error(&e))?;
            if control.is_cancelled() {
                return Ok(None);
            }
        }
        Ok(Some(affected))
    }

    fn max_statement_bytes(&mut self) -> Result<Option<u64>, ServerError> {
        Ok(None)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn insufficient_privilege_is_permission_denied_not_a_rejected_statement() {
        assert_eq!(kind_of(&SqlState::INSUFFICIENT_PRIVILEGE), ServerErrorKind::PermissionDenied);
        assert_eq!(kind_of(&SqlState::UNDEFINED_TABLE), ServerErrorKind::Rejected);
    }
}
