//! Whether keys arrive in order: key order against rowid (insertion) order where the table has
//! a rowid, and against the time embedded in the key where it has one.

use super::sample::{SampledKey, classify};
use super::value::SampleValue;
use crate::generators::inspect::{IdValue, summarize_order};
use serde::{Deserialize, Serialize};

/// Inversion ratios: 0 = same order, ~0.5 = unrelated (random), 1 = reversed.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct OrderReport {
    /// Keys in rowid order compared with key order (rowid tables whose key is not the rowid).
    pub vs_rowid_inversion_ratio: Option<f64>,
    /// Embedded times in key order compared with time order (keys that carry a time).
    pub vs_time_inversion_ratio: Option<f64>,
    /// Whether new keys append at the end of the key order, when the evidence says.
    pub appends_in_order: Option<bool>,
}

/// Below this inversion ratio, keys count as arriving in order.
const IN_ORDER_BELOW: f64 = 0.05;

/// How SQLite compares the value, as an [`IdValue`]: integers as themselves, BLOB and TEXT by
/// their first 16 bytes.
fn order_value(v: &SampleValue) -> Option<IdValue> {
    let prefix = |b: &[u8]| {
        let mut buf = [0u8; 16];
        let k = b.len().min(16);
        buf[..k].copy_from_slice(&b[..k]);
        IdValue::Bytes(buf)
    };
    match v {
        SampleValue::Integer(i) => Some(IdValue::Int(*i)),
        SampleValue::Blob(b) => Some(prefix(b)),
        SampleValue::Text(s) => Some(prefix(s.as_bytes())),
        _ => None,
    }
}

/// Compares the order of `keys` (as sampled) with their rowids (when `compare_rowid`) and with
/// their embedded times.
pub fn analyse(keys: &[SampledKey], compare_rowid: bool) -> OrderReport {
    let mut by_rowid: Vec<(i64, IdValue)> =
        keys.iter().filter_map(|k| Some((k.rowid?, order_value(&k.value)?))).collect();
    let vs_rowid = (compare_rowid && by_rowid.len() >= 2).then(|| {
        by_rowid.sort_by_key(|p| p.0);
        summarize_order(&by_rowid.iter().map(|p| p.1).collect::<Vec<_>>()).inversion_ratio
    });
    let mut timed: Vec<(IdValue, i128)> =
        keys.iter().filter_map(|k| Some((order_value(&k.value)?, classify(&k.value).2?))).collect();
    let vs_time = (timed.len() >= 2 && timed.len() * 2 >= keys.len()).then(|| {
        timed.sort_by_key(|p| p.0);
        let times: Vec<IdValue> = timed.iter().map(|p| IdValue::Int(p.1 as i64)).collect();
        summarize_order(&times).inversion_ratio
    });
    let appends_in_order = vs_rowid.or(vs_time).map(|r| r < IN_ORDER_BELOW);
    OrderReport { vs_rowid_inversion_ratio: vs_rowid, vs_time_inversion_ratio: vs_time, appends_in_order }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn keys(values: &[i64]) -> Vec<SampledKey> {
        values
            .iter()
            .enumerate()
            .map(|(i, &v)| SampledKey { rowid: Some(i as i64), value: SampleValue::Integer(v) })
            .collect()
    }

    #[test]
    fn rowid_order_tells_appends_from_random_inserts() {
        let r = analyse(&keys(&[1, 2, 3, 4]), true);
        assert_eq!(r.vs_rowid_inversion_ratio, Some(0.0));
        assert_eq!(r.appends_in_order, Some(true));
        let r = analyse(&keys(&[4, 3, 2, 1]), true);
        assert_eq!(r.appends_in_order, Some(false));
        assert_eq!(analyse(&keys(&[1, 2]), false).appends_in_order, None);
    }
}
