//! Spreading a bounded number of index seeks over a key range (SQLite and MariaDB keys).

use super::sample::SampledKey;
use super::value::SampleValue;

/// At most `n` keys spread over the key range `lo..=hi`: `at_or_after(probe)` seeks the first key
/// at or after each of `n` evenly spaced probes (one index seek each). Keys bunched in a narrow
/// part of the range (a v7 counter, say) leave most probes on the same key: then
/// `after(key, k)` reads the `k` keys following each distinct hit instead, still at most `n`.
/// Keys come back in key order, without duplicates.
pub fn spread_over_key_range<E>(
    lo: &SampleValue,
    hi: &SampleValue,
    n: usize,
    mut at_or_after: impl FnMut(SampleValue) -> Result<Option<SampledKey>, E>,
    mut after: impl FnMut(&SampleValue, usize) -> Result<Vec<SampledKey>, E>,
) -> Result<Vec<SampledKey>, E> {
    let n = n.max(2);
    let mut keys: Vec<SampledKey> = Vec::with_capacity(n);
    for i in 0..n {
        let Some(probe) = interpolate(lo, hi, i as u128, n as u128 - 1) else { break };
        if let Some(key) = at_or_after(probe)?
            && keys.last().is_none_or(|k| k.value != key.value)
        {
            keys.push(key);
        }
    }
    if keys.len() < n / 2 {
        let per_probe = (n / keys.len().max(1)).saturating_sub(1);
        let mut spread = Vec::with_capacity(n);
        for probe in std::mem::take(&mut keys) {
            let following = after(&probe.value, per_probe)?;
            spread.push(probe);
            spread.extend(following);
        }
        spread.sort_by(|a, b| order_cmp(&a.value, &b.value));
        spread.dedup_by(|a, b| a.value == b.value);
        keys = spread;
    }
    Ok(keys)
}

/// SQLite's order for values of one column: integers, then text, then BLOBs.
fn order_cmp(a: &SampleValue, b: &SampleValue) -> std::cmp::Ordering {
    match (a, b) {
        (SampleValue::Integer(x), SampleValue::Integer(y)) => x.cmp(y),
        (SampleValue::Text(x), SampleValue::Text(y)) => x.cmp(y),
        (SampleValue::Blob(x), SampleValue::Blob(y)) => x.cmp(y),
        _ => std::cmp::Ordering::Equal,
    }
}

/// The value `i / n` of the way from `lo` to `hi`, for integer, BLOB and TEXT keys (by their
/// first 16 bytes); `None` when the two are not of one type.
fn interpolate(lo: &SampleValue, hi: &SampleValue, i: u128, n: u128) -> Option<SampleValue> {
    fn prefix(b: &[u8]) -> u128 {
        let mut buf = [0u8; 16];
        let k = b.len().min(16);
        buf[..k].copy_from_slice(&b[..k]);
        u128::from_be_bytes(buf)
    }
    let between = |a: u128, b: u128| a + ((b.saturating_sub(a)) / n.max(1)).saturating_mul(i);
    match (lo, hi) {
        (SampleValue::Integer(a), SampleValue::Integer(b)) => {
            let v = i128::from(*a) + (i128::from(*b) - i128::from(*a)) * i as i128 / n.max(1) as i128;
            Some(SampleValue::Integer(v as i64))
        }
        (SampleValue::Blob(a), SampleValue::Blob(b)) => {
            Some(SampleValue::Blob(between(prefix(a), prefix(b)).to_be_bytes().to_vec()))
        }
        (SampleValue::Text(a), SampleValue::Text(b)) => {
            // Keep the probe printable ASCII; probes stay ordered closely enough for spreading.
            let bytes = between(prefix(a.as_bytes()), prefix(b.as_bytes())).to_be_bytes();
            Some(SampleValue::Text(bytes.iter().map(|&x| char::from(x.clamp(0x20, 0x7e))).collect()))
        }
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn interpolation_stays_between_the_ends() {
        let (lo, hi) = (SampleValue::Blob(vec![0; 16]), SampleValue::Blob(vec![0xff; 16]));
        assert_eq!(interpolate(&lo, &hi, 0, 4), Some(lo.clone()));
        let Some(SampleValue::Blob(mid)) = interpolate(&lo, &hi, 2, 4) else { panic!() };
        assert_eq!(mid[0], 0x7f);
        assert_eq!(
            interpolate(&SampleValue::Integer(10), &SampleValue::Integer(20), 1, 2),
            Some(SampleValue::Integer(15))
        );
        assert_eq!(interpolate(&SampleValue::Integer(1), &SampleValue::Text("a".into()), 1, 2), None);
    }

    /// Work is bounded by `n` whatever the table size: at most `n` seeks, at most `n` keys, also
    /// when every probe lands on the same key and the fallback reads following keys.
    #[test]
    fn at_most_n_seeks_and_keys_on_any_table() {
        let table: Vec<i64> = (0..1_000_000).map(|i| i * 7).collect();
        for (lo, hi, bunched) in [(0i64, 6_999_993i64, false), (0, i64::MAX, true)] {
            let (mut seeks, mut read) = (0usize, 0usize);
            let keys = spread_over_key_range(
                &SampleValue::Integer(lo),
                &SampleValue::Integer(hi),
                64,
                |p| {
                    seeks += 1;
                    let SampleValue::Integer(p) = p else { return Ok::<_, ()>(None) };
                    // A bunched table: every key sits at the bottom of the range.
                    let at = if bunched { 0 } else { table.partition_point(|&k| k < p) };
                    Ok(table.get(at).map(|&k| SampledKey { rowid: None, value: SampleValue::Integer(k) }))
                },
                |after, limit| {
                    let SampleValue::Integer(a) = after else { return Ok(vec![]) };
                    let from = table.partition_point(|&k| k <= *a);
                    let next: Vec<SampledKey> = table[from..(from + limit).min(table.len())]
                        .iter()
                        .map(|&k| SampledKey { rowid: None, value: SampleValue::Integer(k) })
                        .collect();
                    read += next.len();
                    Ok(next)
                },
            )
            .unwrap();
            assert!(seeks <= 64 && read <= 64 && keys.len() <= 64, "{seeks} seeks, {read} read, {}", keys.len());
            assert!(keys.len() >= 32, "bunched {bunched}: only {} keys", keys.len());
        }
    }
}
