//! Helpers shared by the CLI tests.

use std::path::Path;
use std::time::{Duration, Instant};

/// Waits (up to 120 s, for a loaded machine) until the run writing to `out` has committed a
/// batch — its journal holds one — so a signal sent next finds measured rows to keep.
pub fn wait_for_a_batch(out: &Path) {
    let started = Instant::now();
    while started.elapsed() < Duration::from_secs(120) {
        let journal = std::fs::read_to_string(out.join("journal.jsonl")).unwrap_or_default();
        if journal.lines().any(|l| l.starts_with("{\"batch\"")) {
            return;
        }
        std::thread::sleep(Duration::from_millis(200));
    }
    panic!("no batch committed in {} within 120 s", out.display());
}
