//! The wait-evidence table: for each strategy's sampled step, the share of its sessions' sampled
//! time in each wait the engine named — the most common waits as columns, the rest as "other".

use super::fmt;
use crate::results::ResultsDoc;
use std::collections::BTreeMap;

/// Waits shown as columns; the rest are summed into "other".
const SHOWN: usize = 6;

/// Header and rows of the wait table (empty when no step was sampled): strategy, step, samples,
/// the sessions busy in a statement on average, then each wait's share of the busy sessions'
/// samples (about the share of their time spent in it).
pub fn table(doc: &ResultsDoc) -> (Vec<String>, Vec<Vec<String>>) {
    let sampled: Vec<(&str, &crate::results::PhaseResult)> = doc
        .runs
        .iter()
        .flat_map(|r| r.phases.iter().map(move |p| (r.strategy.as_str(), p)))
        .filter(|(_, p)| p.figures.contains_key("wait_samples"))
        .collect();
    if sampled.is_empty() {
        return (Vec::new(), Vec::new());
    }
    // The waits with the largest share in any step, most common first.
    let mut peak: BTreeMap<&str, f64> = BTreeMap::new();
    for (_, p) in &sampled {
        let busy: u64 = p.waits.values().sum();
        for (event, n) in &p.waits {
            let share = *n as f64 / busy.max(1) as f64;
            let e = peak.entry(event.as_str()).or_insert(0.0);
            *e = e.max(share);
        }
    }
    let mut events: Vec<(&str, f64)> = peak.into_iter().collect();
    events.sort_by(|a, b| b.1.total_cmp(&a.1).then(a.0.cmp(b.0)));
    let shown: Vec<&str> = events.iter().take(SHOWN).map(|(e, _)| *e).collect();
    let other = events.len() > shown.len();
    let mut header: Vec<String> = ["strategy", "step", "samples", "sessions busy"].map(String::from).to_vec();
    header.extend(shown.iter().map(|e| e.to_string()));
    if other {
        header.push("other".into());
    }
    let rows = sampled
        .iter()
        .map(|(strategy, p)| {
            let samples = p.figures.get("wait_samples").copied().unwrap_or(0.0);
            let busy: u64 = p.waits.values().sum();
            let share = |n: u64| if busy > 0 { fmt::percent(n as f64 / busy as f64) } else { "–".into() };
            let mut row = vec![
                strategy.to_string(),
                p.name.clone(),
                format!("{samples}"),
                if samples > 0.0 { format!("{:.1}", busy as f64 / samples) } else { "–".into() },
            ];
            row.extend(shown.iter().map(|e| share(p.waits.get(*e).copied().unwrap_or(0))));
            if other {
                let rest: u64 = p.waits.iter().filter(|(e, _)| !shown.contains(&e.as_str())).map(|(_, n)| n).sum();
                row.push(share(rest));
            }
            row
        })
        .collect();
    (header, rows)
}
