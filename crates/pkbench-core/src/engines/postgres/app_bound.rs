//! A key as a parameter of the application's prepared statements, in its column's form, and the
//! join's keyset cursor made of such keys.

use crate::generators::Key;
use crate::strategy::Storage;
use postgres::Row;
use postgres::types::ToSql;

/// A key as a statement parameter in its column's form; reused from row to row (text keys
/// keep their buffer).
#[derive(Clone, Debug)]
pub(super) enum Bound {
    Int(i64),
    Uuid(uuid::Uuid),
    Text(String),
}

impl Bound {
    /// Sets this slot to `key` as `storage` holds it, without allocating once warm.
    pub(super) fn set(&mut self, key: Key, storage: Storage) {
        match (key, storage.text_encoding()) {
            (Key::Int(v), _) => *self = Bound::Int(v),
            (Key::Uuid(b), None) => *self = Bound::Uuid(uuid::Uuid::from_bytes(storage.binary_form(b))),
            (Key::Uuid(b), Some(encoding)) => {
                if !matches!(self, Bound::Text(_)) {
                    *self = Bound::Text(String::with_capacity(36));
                }
                if let Bound::Text(s) = self {
                    s.clear();
                    s.push_str(encoding.encode(&b, &mut [0u8; 36]));
                }
            }
        }
    }

    /// Reads column `i` of `row`, stored as `storage`.
    pub(super) fn read(row: &Row, i: usize, storage: Storage) -> Result<Self, postgres::Error> {
        Ok(match (storage, storage.text_encoding()) {
            (Storage::Integer, _) => Bound::Int(row.try_get(i)?),
            (_, None) => Bound::Uuid(row.try_get(i)?),
            (_, Some(_)) => Bound::Text(row.try_get(i)?),
        })
    }

    /// The key this value stands for (server-assigned keys read back: integers and `uuid`s).
    pub(super) fn key(&self) -> Option<Key> {
        match self {
            Bound::Int(v) => Some(Key::Int(*v)),
            Bound::Uuid(u) => Some(Key::Uuid(*u.as_bytes())),
            Bound::Text(_) => None,
        }
    }

    pub(super) fn param(&self) -> &(dyn ToSql + Sync) {
        match self {
            Bound::Int(v) => v,
            Bound::Uuid(u) => u,
            Bound::Text(s) => s,
        }
    }
}

/// Keyset pagination state of the join.
pub(super) enum Cursor {
    /// Before the first page.
    Start,
    /// After this (user id, order id).
    After(Bound, Bound),
    /// The previous page was the last.
    End,
}
