//! Index entries in an order-preserving form: the first 12 bytes of the indexed values, then a
//! tie-breaker, in one `u128` the page models sort by.

use crate::values::Param;
use crate::values::SqlType;

/// The key of an index entry holding `columns` of a row (`value(c)`: column `c`'s parameter;
/// `None` stands for the row's key, `row_key`): their first 12 bytes, then `tie` (the row's
/// number or key) in the low 32 bits.
pub(super) fn index_key<'p>(
    columns: &[usize],
    value: impl Fn(usize) -> Option<Param<'p>>,
    types: &[Option<SqlType>],
    row_key: u128,
    tie: u32,
) -> u128 {
    let mut prefix = Prefix::default();
    for &c in columns {
        match value(c) {
            Some(p) => prefix.push(p, types[c]),
            None => prefix.push_key(row_key),
        }
    }
    (prefix.value() << 32) | u128::from(tie)
}

/// The first 12 bytes of an index entry's values in an order-preserving form (the rest are not
/// kept: no allocation per entry).
#[derive(Default)]
struct Prefix {
    bytes: [u8; 12],
    len: usize,
}

impl Prefix {
    fn extend(&mut self, bytes: impl IntoIterator<Item = u8>) {
        for b in bytes {
            if self.len == self.bytes.len() {
                return;
            }
            self.bytes[self.len] = b;
            self.len += 1;
        }
    }

    fn push(&mut self, p: Param<'_>, ty: Option<SqlType>) {
        match (p, ty) {
            (Param::Null, _) => self.extend([0]),
            (Param::Int(v), _) => self.extend(((v as u64) ^ (1 << 63)).to_be_bytes()),
            (Param::Text(t), Some(SqlType::Float | SqlType::Decimal { .. })) => {
                let f: f64 = t.parse().unwrap_or(0.0);
                let bits = f.to_bits();
                let sortable = if f.is_sign_negative() { !bits } else { bits | (1 << 63) };
                self.extend(sortable.to_be_bytes());
            }
            // `YYYY-MM-DD HH:MM:SS.ffffff` and `YYYY-MM-DD`: their digits, two a byte, so the
            // 12 bytes reach the microseconds.
            (Param::Text(t), Some(SqlType::Timestamp | SqlType::Date)) => {
                let mut digits = t.bytes().filter(u8::is_ascii_digit).map(|d| d - b'0');
                let pairs = std::iter::from_fn(|| digits.next().map(|hi| hi << 4 | digits.next().unwrap_or(0)));
                self.extend(pairs);
            }
            (Param::Text(t), _) => self.extend(t.bytes().chain([0])),
            (Param::Bytes(b), _) => self.extend(b.iter().copied().chain([0])),
            (Param::Uuid(b), _) => self.extend(b),
        }
    }

    fn push_key(&mut self, key: u128) {
        self.extend(key.to_be_bytes());
    }

    fn value(&self) -> u128 {
        self.bytes.iter().fold(0u128, |v, x| (v << 8) | u128::from(*x))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn timestamps_order_to_the_microsecond_and_ties_by_the_rank() {
        let ts = Some(SqlType::Timestamp);
        let key = |t: &'static str, tie| index_key(&[0], |_| Some(Param::Text(t)), &[ts], 0, tie);
        assert!(key("2000-01-01 00:00:00.000001", 0) > key("2000-01-01 00:00:00.000000", 9));
        assert!(key("2000-01-01 00:00:00.000000", 2) > key("2000-01-01 00:00:00.000000", 1));
        assert!(key("2001-01-01 00:00:00.000000", 0) > key("2000-12-31 23:59:59.999999", 9));
    }
}
