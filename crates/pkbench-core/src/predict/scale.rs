//! Scale models: to predict N rows, simulate N/k rows with a 1/k batch, a 1/k cache and a WAL
//! that checkpoints after 1/k of the frames, and multiply the counts by k.
//!
//! Why that is faithful for some key streams and not others: when every tree's keys arrive in
//! increasing order, each batch appends to the right edge, so pages, misses and writes per batch
//! are proportional to the batch. When they are uniform random draws over the key space, what a
//! batch costs depends on ratios — leaves touched per batch against leaves in the tree, leaves in
//! the tree against pages in the cache — and the 1/k model keeps every one of them (the tree has
//! 1/k of the leaves and interior pages; the top levels, always cached, are a handful of pages
//! either way). A stream with structure of a fixed size — a block prefix that changes every
//! 65,536 keys, a time prefix per 60 s of key time, v1's time_low wrapping every 7 minutes —
//! would see that structure at k times its real scale, so those strategies are never scaled.
//! `tests/predict_model.rs` holds the scale model to the full simulation.

use crate::generators::Scheme;
use crate::results::BtreeStats;
use crate::strategy::{KeySource, Strategy};

/// Rows a scale model simulates at most when the scale is chosen automatically (as far as the
/// floors below allow). A random key's insert lands on cold memory of the model's own, so a
/// forecast's time grows with the rows simulated; the floors, not this ceiling, keep a scale
/// model faithful (`docs/findings/predict-accuracy.md` holds each model at this ceiling against
/// a scale that simulates four times as many rows).
pub const AUTO_MAX_SIMULATED_ROWS: u64 = 6_250_000;

/// Pages the scaled cache keeps at least when the scale is chosen automatically: below this,
/// the handful of always-hot pages (roots, the right edge) take a visible share of the cache.
pub const AUTO_MIN_CACHE_PAGES: u64 = 100;

/// Pages a scaled cache keeps at least, whatever the scale: below this a model's cache no longer
/// holds a tree's path from its root.
pub const MIN_SCALED_CACHE_PAGES: u64 = 10;

/// Rows a scaled batch keeps at least when the scale is chosen automatically: each commit also
/// writes a few pages whatever its size (page 1, the path to the right edge), and in a small
/// batch those take a visible share of the writes.
pub const AUTO_MIN_BATCH_ROWS: u64 = 5_000;

/// Rows per transaction of a forecast whose batch is not given: 100k, doubled until the
/// forecast has at most [`DEFAULT_MAX_BATCHES`] batches. A large forecast's batch grows with it,
/// so its scale model can come closer to [`AUTO_MAX_SIMULATED_ROWS`] (a batch of 100k holds the
/// scale of a billion-row forecast at 16: 62.5M rows simulated).
pub fn default_batch_rows(rows: u64) -> u64 {
    let mut batch = 100_000u64;
    while rows.div_ceil(batch) > DEFAULT_MAX_BATCHES {
        batch *= 2;
    }
    batch
}

/// Most batches a forecast at the default batch has.
pub const DEFAULT_MAX_BATCHES: u64 = 1_000;

/// How a scheme's keys arrive, for the scale model.
fn scales(scheme: Scheme) -> bool {
    // Ordered schemes append; these three are uniform over their key space.
    scheme.is_ordered() || matches!(scheme, Scheme::Uuid4 | Scheme::MaskedInt | Scheme::CombMssql)
}

/// Why `strategy` cannot be predicted by a scale model, if it cannot.
pub fn unscalable(strategy: &Strategy) -> Option<String> {
    let mut schemes: Vec<Scheme> = match strategy.primary.source {
        KeySource::EngineAssigned => Vec::new(),
        KeySource::Client(s) | KeySource::Server(s) => vec![s],
    };
    schemes.extend(strategy.secondary.map(|s| s.scheme));
    schemes.into_iter().find_map(|s| {
        (!scales(s)).then(|| {
            format!(
            "'{}' cannot be scaled: its {} keys are neither in order nor uniformly random, so a scale model would stretch their structure; use --scale 1",
            strategy.name,
                s.name()
            )
        })
    })
}

/// The scale for `rows` rows of `strategies` with batches of `batch_rows` and a cache of
/// `cache_pages`: 1 (simulate everything) up to [`AUTO_MAX_SIMULATED_ROWS`] rows or when a
/// strategy cannot be scaled, else the smallest power of two that brings the simulated rows to
/// that limit, as long as it divides the batch and leaves [`AUTO_MIN_BATCH_ROWS`] in it and
/// [`AUTO_MIN_CACHE_PAGES`] in the cache.
pub fn auto(rows: u64, batch_rows: u64, cache_pages: u64, strategies: &[&Strategy]) -> u64 {
    if rows <= AUTO_MAX_SIMULATED_ROWS || strategies.iter().any(|s| unscalable(s).is_some()) {
        return 1;
    }
    let mut k = 1;
    while rows / k > AUTO_MAX_SIMULATED_ROWS
        && batch_rows.is_multiple_of(k * 2)
        && batch_rows / (k * 2) >= AUTO_MIN_BATCH_ROWS
        && cache_pages / (k * 2) >= AUTO_MIN_CACHE_PAGES
    {
        k *= 2;
    }
    k
}

/// [`auto`], then doubled further (while it divides the batch and leaves
/// [`MIN_SCALED_CACHE_PAGES`] in the cache) until at most `ceiling` rows are simulated: a
/// forecast must stay within memory and time even when the batch or the cache is smaller than
/// [`auto`] would like (the server models keep every key they simulate).
pub fn auto_within(rows: u64, batch_rows: u64, cache_pages: u64, strategies: &[&Strategy], ceiling: u64) -> u64 {
    let mut k = auto(rows, batch_rows, cache_pages, strategies);
    while k > 1
        && rows.div_ceil(k) > ceiling
        && batch_rows.is_multiple_of(k * 2)
        && cache_pages / (k * 2) >= MIN_SCALED_CACHE_PAGES
    {
        k *= 2;
    }
    k
}

/// A 1/k scale model's tree statistics as the full tree's: pages and bytes ×k, fill and order
/// as they are.
pub fn btree(b: BtreeStats, k: u64) -> BtreeStats {
    BtreeStats { pages: b.pages * k, leaf_pages: b.leaf_pages * k, size_bytes: b.size_bytes * k, ..b }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::strategy::find;

    #[test]
    fn the_default_batch_grows_with_the_forecast_and_lets_a_billion_rows_scale() {
        assert_eq!(default_batch_rows(10_000_000), 100_000);
        assert_eq!(default_batch_rows(100_000_000), 100_000);
        assert_eq!(default_batch_rows(1_000_000_000), 1_600_000);
        assert_eq!(default_batch_rows(10_000_000_000), 12_800_000);
        let uuid4 = find("uuid4").unwrap();
        // PostgreSQL's 1 GiB cache: 131,072 pages of 8 KiB.
        assert_eq!(auto(1_000_000_000, 100_000, 131_072, &[uuid4]), 16, "a 100k batch holds the scale back");
        let k = auto(1_000_000_000, default_batch_rows(1_000_000_000), 131_072, &[uuid4]);
        assert!(1_000_000_000 / k <= AUTO_MAX_SIMULATED_ROWS, "scale {k}");
    }

    #[test]
    fn only_ordered_and_uniform_streams_scale() {
        for name in ["int", "uuid7", "uuid4", "uuid4-text", "int+uuid4", "ulid", "masked-int"] {
            assert_eq!(unscalable(find(name).unwrap()), None, "{name}");
        }
        for name in ["seq-uuid", "time-uuid", "uuid1", "comb"] {
            assert!(unscalable(find(name).unwrap()).is_some(), "{name}");
        }
    }

    #[test]
    fn auto_scale_stays_within_the_batch_and_the_cache() {
        let s = [find("uuid4").unwrap()];
        assert_eq!(auto(AUTO_MAX_SIMULATED_ROWS, 100_000, 16_000, &s), 1);
        assert_eq!(auto(50_000_000, 100_000, 16_000, &s), 8);
        // 100M rows in SQLite's default 8 MiB (1982 pages): 1/16, 6,250-row batches, 123 pages.
        assert_eq!(auto(100_000_000, 100_000, 1982, &s), 16);
        // 100k-row batches hold a billion rows at 1/16 (6,250 rows each); so does SQLite's
        // default cache with the default 1.6M-row batches (123 pages).
        assert_eq!(auto(1_000_000_000, 100_000, 16_000, &s), 16);
        assert_eq!(auto(1_000_000_000, 1_600_000, 1982, &s), 16);
        // A 1 MiB cache (248 pages) allows 1/2 at most; 10k-row batches 1/2 too.
        assert_eq!(auto(1_000_000_000, 100_000, 248, &s), 2);
        assert_eq!(auto(1_000_000_000, 10_000, 16_000, &s), 2);
        assert_eq!(auto(1_000_000_000, 100_000, 16_000, &[find("seq-uuid").unwrap()]), 1);
    }

    #[test]
    fn a_ceiling_on_simulated_rows_doubles_the_scale_past_auto() {
        let s = [find("uuid4").unwrap()];
        // 8 MiB of PostgreSQL buffers (1024 pages) stop auto at 1/8: 125M rows simulated.
        assert_eq!(auto(1_000_000_000, 100_000, 1024, &s), 8);
        assert_eq!(auto_within(1_000_000_000, 100_000, 1024, &s, 100_000_000), 16);
        // 100M rows: auto stops at 1/8 (128 pages), the ceiling takes it to 1/16 (64 pages).
        assert_eq!(auto_within(100_000_000, 100_000, 1024, &s, AUTO_MAX_SIMULATED_ROWS), 16);
        // A billion rows in 1.6M-row batches: 1/64, a 16-page cache; InnoDB's 412 pages stop at
        // 1/32, whose 12 pages are the least a scaled cache keeps.
        assert_eq!(auto_within(1_000_000_000, 1_600_000, 1024, &s, AUTO_MAX_SIMULATED_ROWS), 64);
        assert_eq!(auto_within(1_000_000_000, 1_600_000, 412, &s, AUTO_MAX_SIMULATED_ROWS), 32);
    }
}
