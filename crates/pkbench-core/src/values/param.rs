//! A statement parameter: what a generated value, a key or a wire's value binds as. Borrowed
//! from the caller's buffers, so binding a row allocates nothing.

/// A statement parameter.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Param<'a> {
    /// SQL NULL.
    Null,
    /// A 64-bit integer (also binds a 32-bit integer parameter on PostgreSQL).
    Int(i64),
    /// 16 bytes for a `uuid` or `BINARY(16)` column, already in the column's byte order.
    Uuid([u8; 16]),
    /// Text.
    Text(&'a str),
    /// Raw bytes (`bytea`, `BLOB`).
    Bytes(&'a [u8]),
}
