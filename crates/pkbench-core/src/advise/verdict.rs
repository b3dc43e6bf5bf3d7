//! The answer: which candidate inserts fastest at the target, whether the difference is
//! measurable (the 90% intervals apart) or not, and why, in the counters that explain it.

use super::figures::{CandidateFigures, Estimate};
use crate::report::fmt;
use crate::util::text::thousands;

/// The verdict line and, per notable candidate, the paragraph that explains it.
#[derive(Clone, Debug, PartialEq)]
pub struct Verdict {
    /// The first line advise prints.
    pub line: String,
    /// The candidate advised.
    pub advised: String,
    /// Candidates whose time at the target is not measurably different from the advised one's.
    pub tied: Vec<String>,
    /// One paragraph per notable candidate.
    pub why: Vec<String>,
}

/// Ranks `candidates` by their time per row at `target_rows`; a candidate is only called faster
/// when its interval lies wholly below the other's, and of those tied with the fastest the first
/// shown is advised.
pub fn decide(candidates: &[CandidateFigures], target_rows: u64) -> Verdict {
    let timed: Vec<(&CandidateFigures, Estimate)> =
        candidates.iter().filter_map(|c| c.us_per_row_target.map(|e| (c, e))).collect();
    let Some(&(fastest_candidate, fastest)) = timed.iter().min_by(|a, b| a.1.value.total_cmp(&b.1.value)) else {
        return Verdict {
            line: "No candidate's time was forecast: nothing to rank.".into(),
            advised: String::new(),
            tied: Vec::new(),
            why: Vec::new(),
        };
    };
    // Of the candidates no measurably slower than the fastest, the first in the order shown (the
    // current key, then the simplest): a tie is no reason to change or to choose the rarer key.
    let (best, best_time) =
        timed.iter().copied().find(|(_, e)| !fastest.clearly_below(e)).unwrap_or((fastest_candidate, fastest));
    let tied: Vec<String> = timed
        .iter()
        .filter(|(c, e)| c.strategy != best.strategy && !best_time.clearly_below(e))
        .map(|(c, _)| c.strategy.clone())
        .collect();
    let at = format!("at {} rows", thousands(target_rows));
    let current = timed.iter().find(|(c, _)| c.current);
    let line = match current {
        Some((c, _)) if c.strategy == best.strategy => {
            format!("Keep {}: {at} no other candidate inserts measurably faster{}.", c.strategy, tie_note(&tied))
        }
        Some((c, e)) => format!(
            "Use {}: {at} it inserts {} faster than your current {} key{}{}.",
            best.strategy,
            times(e.ratio_to(&best_time)),
            c.strategy,
            smaller(best, c) + &referencing(best, c),
            tie_note(&tied)
        ),
        None => {
            let slowest = timed.iter().max_by(|a, b| a.1.value.total_cmp(&b.1.value)).map(|(c, e)| (*c, *e));
            match slowest {
                Some((s, e)) if best_time.clearly_below(&e) => format!(
                    "Use {}: {at} it inserts {} faster than {}{}{}.",
                    best.strategy,
                    times(e.ratio_to(&best_time)),
                    s.strategy,
                    smaller(best, s) + &referencing(best, s),
                    tie_note(&tied)
                ),
                _ => format!(
                    "No measurable difference {at}: every candidate's 90% interval overlaps {}'s.",
                    best.strategy
                ),
            }
        }
    };
    let line = line + &shard_note(candidates, best) + &rate_note(candidates, best);
    let why = candidates.iter().filter_map(|c| explain(c, best, &tied)).collect();
    Verdict { line, advised: best.strategy.clone(), tied, why }
}

/// ` But on the shards, …` where the advised candidate's rows crowd one shard (its hottest shard
/// takes over twice the even share) and another candidate spreads them.
fn shard_note(candidates: &[CandidateFigures], best: &CandidateFigures) -> String {
    let Some(share) = best.hottest_shard_share else { return String::new() };
    let spread = candidates
        .iter()
        .filter_map(|c| c.hottest_shard_share.map(|s| (c, s)))
        .min_by(|a, b| a.1.total_cmp(&b.1))
        .filter(|(_, s)| *s * 2.0 < share);
    match spread {
        Some((c, s)) => format!(
            " But on the shards its hottest shard takes {:.0}% of each batch's rows, where {} spreads them ({:.0}%): a hot spot if one node cannot take every insert.",
            share * 100.0,
            c.strategy,
            s * 100.0
        ),
        None => String::new(),
    }
}

/// ` At 5,000 rows/s from many clients it kept up …` with `--insert-rate`: whether the advised
/// candidate kept up with the peak rate, and which candidate did where it did not.
fn rate_note(candidates: &[CandidateFigures], best: &CandidateFigures) -> String {
    let Some(c) = &best.contention else { return String::new() };
    let at = format!("at {} rows/s from many clients", thousands(c.rate_asked));
    if c.kept_up {
        return format!(
            " {} it kept up (99% of rows committed within {:.1} ms of their due time).",
            capitalised(&at),
            c.p99_ms
        );
    }
    let kept_up = candidates
        .iter()
        .filter_map(|o| o.contention.as_ref().filter(|oc| oc.kept_up).map(|oc| (o, oc)))
        .min_by(|a, b| a.1.p99_ms.total_cmp(&b.1.p99_ms));
    match kept_up {
        Some((o, _)) => format!(
            " But {at} it fell behind ({:.0} rows/s) where {} kept up: at that peak, {} is the key that keeps up.",
            c.rate_achieved, o.strategy, o.strategy
        ),
        None => {
            let best_rate = candidates
                .iter()
                .filter_map(|o| o.contention.as_ref().map(|oc| (o, oc.rate_achieved)))
                .max_by(|a, b| a.1.total_cmp(&b.1));
            let fastest =
                best_rate.map_or(String::new(), |(o, r)| format!(" (the most: {} at {r:.0} rows/s)", o.strategy));
            format!(" {} no candidate kept up on this machine{fastest}.", capitalised(&at))
        }
    }
}

/// `text` with its first letter upper-case.
fn capitalised(text: &str) -> String {
    let mut chars = text.chars();
    chars.next().map_or(String::new(), |first| first.to_uppercase().chain(chars).collect())
}

/// `, its table and indexes 41% smaller` where the advised candidate's are smaller.
fn smaller(best: &CandidateFigures, other: &CandidateFigures) -> String {
    if best.size_bytes == 0 || other.size_bytes <= best.size_bytes {
        return String::new();
    }
    let share = 1.0 - best.size_bytes as f64 / other.size_bytes as f64;
    format!(", and its table with every index is {:.0}% smaller", share * 100.0)
}

/// `; in the tables that reference yours, each copy of its key takes 8 bytes instead of 37 (…)`
/// where other tables reference the key and the advised candidate's key is narrower there.
fn referencing(best: &CandidateFigures, other: &CandidateFigures) -> String {
    let (Some(b), Some(o)) = (best.referencing_copy_bytes, other.referencing_copy_bytes) else {
        return String::new();
    };
    if b >= o {
        return String::new();
    }
    let total = match (best.referencing_bytes, other.referencing_bytes) {
        (Some(bt), Some(ot)) => format!(" ({} instead of {} at the target)", fmt::mib(Some(bt)), fmt::mib(Some(ot))),
        _ => String::new(),
    };
    format!(
        "; in the tables that reference yours, each copy of its key takes {} bytes instead of {}{total}",
        thousands(b.round() as u64),
        thousands(o.round() as u64)
    )
}

/// ` (no measurable difference from a, b)` when others tie with the advised candidate.
fn tie_note(tied: &[String]) -> String {
    if tied.is_empty() { String::new() } else { format!(" (no measurable difference from {})", tied.join(", ")) }
}

/// `2.4× (1.9–3.1×)`.
fn times(ratio: Estimate) -> String {
    format!("{:.1}× (90% interval {:.1}–{:.1}×)", ratio.value, ratio.low, ratio.high)
}

/// Why a candidate costs what it does, where it differs measurably from the advised one (or is
/// the current key): its cache misses, pages written, splits and WAL per row, and its key's
/// width.
fn explain(c: &CandidateFigures, best: &CandidateFigures, tied: &[String]) -> Option<String> {
    // The advised key is explained beside the others; a tie says nothing new.
    if c.strategy == best.strategy || (tied.contains(&c.strategy) && !c.current) {
        return None;
    }
    let (misses, best_misses) = (c.cache_misses_per_row?, best.cache_misses_per_row?);
    let order = if c.ordered { "arrive in increasing order" } else { "arrive in random order" };
    let mut text = format!(
        "{}: its keys {order}, so inserts land {}. At the target it misses the cache {:.2} times per row ({} {:.2})",
        c.strategy, c.hot_spot, misses, best.strategy, best_misses
    );
    if let (Some(w), Some(bw)) = (c.pages_written_per_row, best.pages_written_per_row) {
        text.push_str(&format!(" and writes {w:.2} pages per row ({bw:.2})"));
    }
    if let (Some(s), Some(bs)) = (c.page_splits_per_row, best.page_splits_per_row) {
        text.push_str(&format!("; {s:.4} page splits per row ({bs:.4})"));
    }
    if let (Some(w), Some(bw)) = (c.wal_bytes_per_row, best.wal_bytes_per_row) {
        text.push_str(&format!(
            "; {} bytes of WAL per row ({})",
            thousands(w.round() as u64),
            thousands(bw.round() as u64)
        ));
    }
    text.push('.');
    text.push_str(&format!(
        " Its key takes {} bytes in the key column ({} {})",
        c.key_bytes, best.strategy, best.key_bytes
    ));
    if let (Some(r), Some(br)) = (c.referencing_copy_bytes, best.referencing_copy_bytes) {
        text.push_str(&format!(
            " and {} in each copy the tables that reference yours keep ({} {})",
            thousands(r.round() as u64),
            best.strategy,
            thousands(br.round() as u64)
        ));
    }
    if let (Some(r), Some(br)) = (c.referencing_bytes, best.referencing_bytes) {
        text.push_str(&format!(
            ", {} of them at the target ({} {})",
            fmt::mib(Some(r)),
            best.strategy,
            fmt::mib(Some(br))
        ));
    }
    text.push('.');
    Some(text)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn candidate(name: &str, current: bool, us: (f64, f64, f64), size: u64) -> CandidateFigures {
        CandidateFigures {
            strategy: name.into(),
            description: String::new(),
            current,
            calibrated_as: None,
            us_per_row_now: None,
            us_per_row_target: Some(Estimate { value: us.0, low: us.1, high: us.2 }),
            seconds_to_target: None,
            size_bytes: size,
            trees: Vec::new(),
            cache_misses_per_row: Some(0.1),
            pages_written_per_row: None,
            page_splits_per_row: None,
            wal_bytes_per_row: None,
            key_bytes: 16,
            referencing_bytes: None,
            referencing_copy_bytes: None,
            ordered: true,
            hot_spot: "here".into(),
            hottest_shard_share: None,
            contention: None,
        }
    }

    fn at_rate(achieved: f64, p99_ms: f64) -> Option<crate::advise::Contention> {
        Some(crate::advise::Contention {
            rate_asked: 5000,
            rate_achieved: achieved,
            kept_up: achieved >= 5000.0 * crate::advise::contention::KEPT_UP,
            p50_ms: p99_ms / 4.0,
            p99_ms,
            top_wait: None,
            top_wait_share: None,
            errors: 0,
        })
    }

    #[test]
    fn the_insert_rate_says_whether_the_advised_key_kept_up_and_which_did() {
        let mut int = candidate("int", false, (1.0, 0.9, 1.1), 100);
        let mut uuid4 = candidate("uuid4", false, (5.0, 4.0, 6.0), 300);
        int.contention = at_rate(4990.0, 3.25);
        uuid4.contention = at_rate(4000.0, 900.0);
        let v = decide(&[int.clone(), uuid4.clone()], 100);
        assert!(
            v.line.ends_with(
                " At 5,000 rows/s from many clients it kept up (99% of rows committed within 3.2 ms of their due time)."
            ),
            "{}",
            v.line
        );
        int.contention = at_rate(2000.0, 4000.0);
        uuid4.contention = at_rate(4990.0, 20.0);
        let v = decide(&[int.clone(), uuid4.clone()], 100);
        assert!(v.line.ends_with(" But at 5,000 rows/s from many clients it fell behind (2000 rows/s) where uuid4 kept up: at that peak, uuid4 is the key that keeps up."), "{}", v.line);
        uuid4.contention = at_rate(3000.0, 900.0);
        let v = decide(&[int, uuid4], 100);
        assert!(v.line.ends_with(" At 5,000 rows/s from many clients no candidate kept up on this machine (the most: uuid4 at 3000 rows/s)."), "{}", v.line);
    }

    #[test]
    fn a_measurably_faster_candidate_replaces_the_current_key() {
        let c = [candidate("uuid4", true, (10.0, 9.0, 11.0), 200), candidate("uuid7", false, (4.0, 3.5, 4.5), 150)];
        let v = decide(&c, 1_000_000);
        assert_eq!(v.advised, "uuid7");
        assert!(v.line.starts_with("Use uuid7: at 1,000,000 rows it inserts 2.5× (90% interval 2.0–3.1×) faster than your current uuid4 key, and its table with every index is 25% smaller."), "{}", v.line);
    }

    #[test]
    fn the_columns_referencing_a_narrower_key_are_named_in_the_verdict() {
        let mut text = candidate("uuid4-text", true, (10.0, 9.0, 11.0), 200);
        let mut int = candidate("int", false, (4.0, 3.5, 4.5), 150);
        (text.referencing_copy_bytes, text.referencing_bytes) = (Some(37.0), Some(74 << 20));
        (int.referencing_copy_bytes, int.referencing_bytes) = (Some(8.0), Some(16 << 20));
        let v = decide(&[text.clone(), int.clone()], 1_000_000);
        assert!(
            v.line.contains(", and its table with every index is 25% smaller; in the tables that reference yours, each copy of its key takes 8 bytes instead of 37 (16.0 MiB instead of 74.0 MiB at the target)."),
            "{}",
            v.line
        );
        assert!(
            v.why[0].ends_with(
                "Its key takes 16 bytes in the key column (int 16) and 37 in each copy the tables that reference yours keep (int 8), 74.0 MiB of them at the target (int 16.0 MiB)."
            ),
            "{:?}",
            v.why
        );
        // Where the advised key is no narrower there, the verdict says nothing of them.
        int.referencing_copy_bytes = Some(37.0);
        assert!(!decide(&[text, int], 1_000_000).line.contains("reference yours"));
    }

    #[test]
    fn overlapping_intervals_are_no_measurable_difference() {
        let c = [candidate("uuid4", true, (5.0, 4.0, 6.0), 200), candidate("uuid7", false, (4.8, 4.2, 5.5), 150)];
        let v = decide(&c, 10);
        assert_eq!(
            v.line,
            "Keep uuid4: at 10 rows no other candidate inserts measurably faster (no measurable difference from uuid7)."
        );
        let new = [candidate("int", false, (1.0, 0.9, 1.1), 1), candidate("uuid7", false, (1.05, 0.95, 1.2), 1)];
        assert!(decide(&new, 10).line.starts_with("No measurable difference at 10 rows"));
    }

    #[test]
    fn ties_with_the_advised_key_are_named() {
        let c = [
            candidate("int", false, (1.0, 0.9, 1.1), 100),
            candidate("snowflake", false, (1.05, 0.95, 1.15), 100),
            candidate("uuid4", false, (5.0, 4.0, 6.0), 300),
        ];
        let v = decide(&c, 100);
        assert_eq!(v.tied, ["snowflake"]);
        assert!(
            v.line.contains("faster than uuid4") && v.line.ends_with("(no measurable difference from snowflake)."),
            "{}",
            v.line
        );
    }

    #[test]
    fn an_advised_key_that_crowds_one_shard_says_so() {
        let mut int = candidate("int", false, (1.0, 0.9, 1.1), 100);
        let mut uuid4 = candidate("uuid4", false, (5.0, 4.0, 6.0), 300);
        int.hottest_shard_share = Some(1.0);
        uuid4.hottest_shard_share = Some(0.13);
        let v = decide(&[int, uuid4], 100);
        assert!(v.line.ends_with("But on the shards its hottest shard takes 100% of each batch's rows, where uuid4 spreads them (13%): a hot spot if one node cannot take every insert."), "{}", v.line);
    }

    #[test]
    fn of_keys_tied_with_the_fastest_the_first_shown_is_advised() {
        let c = [
            candidate("int", false, (1.02, 0.9, 1.2), 100),
            candidate("int-client", false, (1.0, 0.9, 1.1), 100),
            candidate("uuid4", false, (5.0, 4.0, 6.0), 300),
        ];
        let v = decide(&c, 100);
        assert_eq!((v.advised.as_str(), v.tied.as_slice()), ("int", ["int-client".to_string()].as_slice()));
    }
}
