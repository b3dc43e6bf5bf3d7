//! Number formatting shared by the text exporters.

/// Milliseconds with precision that suits their size.
pub fn ms(v: Option<f64>) -> String {
    match v {
        None => "–".into(),
        Some(v) if v >= 100.0 => format!("{v:.0}"),
        Some(v) if v >= 10.0 => format!("{v:.1}"),
        Some(v) => format!("{v:.2}"),
    }
}

/// A ratio as `6.1×`.
pub fn times(v: Option<f64>) -> String {
    v.map_or_else(|| "–".into(), |v| if v >= 10.0 { format!("{v:.0}×") } else { format!("{v:.2}×") })
}

/// A count per second with k/M suffixes.
pub fn rate(v: Option<f64>) -> String {
    match v {
        None => "–".into(),
        Some(v) if v >= 1e6 => format!("{:.2}M", v / 1e6),
        Some(v) if v >= 1e3 => format!("{:.1}k", v / 1e3),
        Some(v) => format!("{v:.0}"),
    }
}

/// Bytes in MiB.
pub fn mib(v: Option<u64>) -> String {
    v.map_or_else(|| "–".into(), |b| format!("{:.1} MiB", b as f64 / (1024.0 * 1024.0)))
}

/// Total size in MiB, with the WAL's share when there is one: `470.2 MiB (50% WAL)`.
pub fn size_with_wal(total: Option<u64>, wal: Option<u64>) -> String {
    match (total, wal) {
        (Some(t), Some(w)) if t > 0 && w > 0 => format!("{} ({:.0}% WAL)", mib(Some(t)), w as f64 * 100.0 / t as f64),
        _ => mib(total),
    }
}

/// A per-1k figure.
pub fn per_1k(v: Option<f64>) -> String {
    match v {
        None => "–".into(),
        Some(v) if v >= 100.0 => format!("{v:.0}"),
        Some(v) => format!("{v:.1}"),
    }
}

/// A 0–1 share as a percentage.
pub fn percent(v: f64) -> String {
    format!("{:.1}%", v * 100.0)
}

/// Batch times as a sparkline scaled to `max` (shared across strategies so lines compare).
/// Long series are resampled to at most `width` characters by averaging.
pub fn sparkline(values: &[f64], max: f64, width: usize) -> String {
    const BARS: [char; 8] = ['▁', '▂', '▃', '▄', '▅', '▆', '▇', '█'];
    if values.is_empty() || max <= 0.0 || width == 0 {
        return String::new();
    }
    let buckets = values.len().min(width);
    (0..buckets)
        .map(|i| {
            let (a, b) =
                (i * values.len() / buckets, ((i + 1) * values.len() / buckets).max(i * values.len() / buckets + 1));
            let avg = values[a..b].iter().sum::<f64>() / (b - a) as f64;
            let level = ((avg / max) * BARS.len() as f64).ceil().clamp(1.0, BARS.len() as f64) - 1.0;
            BARS[level as usize]
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sparkline_scales_to_shared_max() {
        assert_eq!(sparkline(&[1.0, 1.0, 1.0], 8.0, 10), "▁▁▁");
        assert_eq!(sparkline(&[1.0, 4.0, 8.0], 8.0, 10), "▁▄█");
        assert_eq!(sparkline(&[1.0; 40], 1.0, 10).chars().count(), 10);
    }
}
