//! A reusable array parameter of the multi-row INSERT: one per key column, filled per
//! statement without allocating per row.

use super::ROWS_PER_STATEMENT;
use crate::generators::{Key, TextEncoding};
use crate::strategy::Storage;
use postgres::types::ToSql;

/// A reusable array parameter: filled per statement without allocating per row.
pub(super) enum Column {
    None,
    Int(Vec<i64>),
    Uuid(Vec<uuid::Uuid>, Storage),
    Text(Vec<String>, TextEncoding),
}

impl Column {
    pub(super) fn for_storage(storage: Option<Storage>) -> Self {
        match storage {
            None => Column::None,
            Some(Storage::Integer) => Column::Int(Vec::with_capacity(ROWS_PER_STATEMENT)),
            Some(s @ (Storage::Binary16 | Storage::Binary16TimeSwapped | Storage::MariaDbUuid)) => {
                Column::Uuid(Vec::with_capacity(ROWS_PER_STATEMENT), s)
            }
            Some(s @ (Storage::Text36 | Storage::Text26 | Storage::Hex32 | Storage::VarHex32 | Storage::VarText36)) => {
                Column::Text(
                    Vec::with_capacity(ROWS_PER_STATEMENT),
                    s.text_encoding().unwrap_or(TextEncoding::Hyphenated),
                )
            }
        }
    }

    pub(super) fn fill(&mut self, keys: impl Iterator<Item = Option<Key>>) {
        let mut buf = [0u8; 36];
        match self {
            Column::None => {}
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

    pub(super) fn param(&self) -> Option<&(dyn ToSql + Sync)> {
        match self {
            Column::None => None,
            Column::Int(v) => Some(v),
            Column::Uuid(v, _) => Some(v),
            Column::Text(v, _) => Some(v),
        }
    }
}
