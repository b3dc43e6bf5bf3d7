//! Values crossing a wire: [`Param`]s going in (borrowed, so binding a row allocates nothing),
//! [`Value`]s coming back.

use crate::generators::{Key, decode_hyphenated};
use crate::strategy::Storage;
use crate::values::Param;

/// A value read from a server.
#[derive(Clone, Debug, PartialEq)]
pub enum Value {
    /// SQL NULL.
    Null,
    /// An integer of any width.
    Int(i64),
    /// A floating-point or decimal number.
    Float(f64),
    /// A PostgreSQL `uuid`.
    Uuid([u8; 16]),
    /// Text.
    Text(String),
    /// Bytes (MySQL sends most values as bytes in its text protocol).
    Bytes(Vec<u8>),
}

impl Value {
    /// The value as an integer, parsing text where the wire sent digits.
    pub fn as_i64(&self) -> Option<i64> {
        match self {
            Value::Int(v) => Some(*v),
            Value::Float(f) => Some(*f as i64),
            Value::Text(t) => t.trim().parse().ok(),
            Value::Bytes(b) => std::str::from_utf8(b).ok()?.trim().parse().ok(),
            Value::Null | Value::Uuid(_) => None,
        }
    }

    /// The value as a non-negative count (negative numbers read as 0).
    pub fn as_u64(&self) -> Option<u64> {
        match self {
            Value::Bytes(b) => std::str::from_utf8(b).ok()?.trim().parse().ok(),
            v => v.as_i64().map(|v| v.max(0) as u64),
        }
    }

    /// The value as text (MySQL sends text as bytes); `None` for NULL and binary values.
    pub fn as_text(&self) -> Option<String> {
        match self {
            Value::Text(t) => Some(t.clone()),
            Value::Bytes(b) => std::str::from_utf8(b).ok().map(str::to_string),
            Value::Int(v) => Some(v.to_string()),
            Value::Float(f) => Some(f.to_string()),
            Value::Null | Value::Uuid(_) => None,
        }
    }

    /// The value as a floating-point number.
    pub fn as_f64(&self) -> Option<f64> {
        match self {
            Value::Float(f) => Some(*f),
            Value::Int(v) => Some(*v as f64),
            Value::Text(t) => t.trim().parse().ok(),
            Value::Bytes(b) => std::str::from_utf8(b).ok()?.trim().parse().ok(),
            Value::Null | Value::Uuid(_) => None,
        }
    }

    /// The key a server assigned or returned: integers, 16-byte values, hyphenated text (MariaDB
    /// sends its UUID type as text).
    pub fn to_key(&self) -> Option<Key> {
        match self {
            Value::Int(v) => Some(Key::Int(*v)),
            Value::Uuid(b) => Some(Key::Uuid(*b)),
            Value::Bytes(b) if b.len() == 16 => <[u8; 16]>::try_from(b.as_slice()).ok().map(Key::Uuid),
            Value::Bytes(b) => decode_hyphenated(b).ok().map(Key::Uuid),
            Value::Text(t) => decode_hyphenated(t.as_bytes()).ok().map(Key::Uuid),
            Value::Null | Value::Float(_) => None,
        }
    }

    /// The value as a parameter, to send it back as it came (a keyset cursor).
    pub fn as_param(&self) -> Param<'_> {
        match self {
            Value::Null => Param::Null,
            Value::Int(v) => Param::Int(*v),
            // Parameters carry no float; no statement sends one back.
            Value::Float(f) => Param::Int(*f as i64),
            Value::Uuid(b) => Param::Uuid(*b),
            Value::Text(t) => Param::Text(t),
            Value::Bytes(b) => Param::Bytes(b),
        }
    }
}

/// A buffer that binds one key in its column's form (text keys are encoded into it), reused
/// from row to row.
#[derive(Clone, Copy, Debug)]
pub struct KeySlot {
    text: [u8; 36],
}

impl Default for KeySlot {
    fn default() -> Self {
        KeySlot { text: [0; 36] }
    }
}

impl KeySlot {
    /// `key` as the parameter a column of `storage` takes.
    #[inline]
    pub fn bind(&mut self, key: Key, storage: Storage) -> Param<'_> {
        match (key, storage.text_encoding()) {
            (Key::Int(v), _) => Param::Int(v),
            (Key::Uuid(b), None) => Param::Uuid(storage.binary_form(b)),
            (Key::Uuid(b), Some(encoding)) => Param::Text(encoding.encode(&b, &mut self.text)),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keys_bind_in_their_column_form() {
        let mut slot = KeySlot::default();
        let u = [0x11; 16];
        assert_eq!(slot.bind(Key::Int(7), Storage::Integer), Param::Int(7));
        assert_eq!(slot.bind(Key::Uuid(u), Storage::Binary16), Param::Uuid(u));
        assert_eq!(slot.bind(Key::Uuid(u), Storage::Text36), Param::Text("11111111-1111-1111-1111-111111111111"));
        assert_eq!(slot.bind(Key::Uuid(u), Storage::Hex32), Param::Text("11111111111111111111111111111111"));
    }

    #[test]
    fn values_read_back_as_keys_and_numbers() {
        assert_eq!(Value::Bytes(b"42".to_vec()).as_u64(), Some(42));
        assert_eq!(Value::Int(-3).as_u64(), Some(0));
        assert_eq!(Value::Bytes(vec![1; 16]).to_key(), Some(Key::Uuid([1; 16])));
        let text = "11111111-1111-1111-1111-111111111111";
        assert_eq!(Value::Bytes(text.as_bytes().to_vec()).to_key(), Some(Key::Uuid([0x11; 16])));
        assert_eq!(Value::Text("2.5".into()).as_f64(), Some(2.5));
    }
}
