//! The wait evidence of sampled steps (the concurrent workload on a server): for each strategy,
//! the share of its sessions' sampled time in each wait the engine named — the most common waits
//! by name, the rest as "other". The terminal and Markdown table and the report's chart read it.

use super::fmt;
use crate::metrics::stats;
use crate::results::{PhaseResult, ResultsDoc};
use std::collections::BTreeMap;

/// Waits shown by name; the rest are summed into "other".
const SHOWN: usize = 6;

/// One sampled step's shares.
pub struct WaitRow<'a> {
    /// The strategy.
    pub strategy: &'a str,
    /// The step.
    pub phase: &'a PhaseResult,
    /// Samples taken.
    pub samples: f64,
    /// Busy sessions seen, summed over the samples.
    pub busy: u64,
    /// Share of `busy` in each of [`WaitShares::events`], then in "other" when there is one.
    pub shares: Vec<f64>,
}

/// The shares of every sampled step, over the same wait names.
pub struct WaitShares<'a> {
    /// The waits shown by name, the largest share first.
    pub events: Vec<&'a str>,
    /// Whether the last share of each row is "other".
    pub other: bool,
    /// One row per sampled step.
    pub rows: Vec<WaitRow<'a>>,
}

/// The wait shares of `doc`'s sampled steps, or `None` when no step was sampled.
pub fn shares(doc: &ResultsDoc) -> Option<WaitShares<'_>> {
    let sampled: Vec<(&str, &PhaseResult)> = doc
        .runs
        .iter()
        .flat_map(|r| r.phases.iter().map(move |p| (r.strategy.as_str(), p)))
        .filter(|(_, p)| p.figures.contains_key("wait_samples"))
        .collect();
    if sampled.is_empty() {
        return None;
    }
    // The waits with the largest share in any step, most common first.
    let mut peak: BTreeMap<&str, f64> = BTreeMap::new();
    for (_, p) in &sampled {
        let busy: u64 = p.waits.values().sum();
        for (event, n) in &p.waits {
            let e = peak.entry(event.as_str()).or_insert(0.0);
            *e = e.max(*n as f64 / busy.max(1) as f64);
        }
    }
    let mut ranked: Vec<(&str, f64)> = peak.into_iter().collect();
    ranked.sort_by(|a, b| b.1.total_cmp(&a.1).then(a.0.cmp(b.0)));
    let events: Vec<&str> = ranked.iter().take(SHOWN).map(|(e, _)| *e).collect();
    let other = ranked.len() > events.len();
    let rows = sampled
        .into_iter()
        .map(|(strategy, phase)| {
            let busy: u64 = phase.waits.values().sum();
            let share = |n: u64| if busy > 0 { n as f64 / busy as f64 } else { 0.0 };
            let mut shares: Vec<f64> =
                events.iter().map(|e| share(phase.waits.get(*e).copied().unwrap_or(0))).collect();
            if other {
                let rest = phase.waits.iter().filter(|(e, _)| !events.contains(&e.as_str())).map(|(_, n)| n).sum();
                shares.push(share(rest));
            }
            let samples = phase.figures.get("wait_samples").copied().unwrap_or(0.0);
            WaitRow { strategy, phase, samples, busy, shares }
        })
        .collect();
    Some(WaitShares { events, other, rows })
}

/// Header and rows of the wait table (empty when no step was sampled): strategy, step, samples,
/// the sessions busy in a statement on average, busy-session samples per 1,000 rows inserted,
/// then each wait's share of the busy sessions' samples (about the share of their time in it).
pub fn table(doc: &ResultsDoc) -> (Vec<String>, Vec<Vec<String>>) {
    let Some(w) = shares(doc) else { return (Vec::new(), Vec::new()) };
    let mut header: Vec<String> =
        ["strategy", "step", "samples", "sessions busy", "busy samples /1k rows"].map(String::from).to_vec();
    header.extend(w.events.iter().map(|e| e.to_string()));
    if w.other {
        header.push("other".into());
    }
    let rows = w
        .rows
        .iter()
        .map(|r| {
            let mut row = vec![
                r.strategy.to_string(),
                r.phase.name.clone(),
                format!("{}", r.samples),
                if r.samples > 0.0 { format!("{:.1}", r.busy as f64 / r.samples) } else { "–".into() },
                fmt::per_1k(stats::per_thousand(r.busy, r.phase.rows)),
            ];
            row.extend(r.shares.iter().map(|s| if r.busy > 0 { fmt::percent(*s) } else { "–".into() }));
            row
        })
        .collect();
    (header, rows)
}
