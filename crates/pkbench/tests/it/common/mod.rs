//! Helpers shared by the CLI tests.

#[cfg(feature = "server-tests")]
pub mod faults;
#[cfg(feature = "server-tests")]
pub mod tmpfs;

use assert_cmd::Command;
use serde_json::Value;
use std::path::Path;
use std::time::{Duration, Instant};

/// The `pkbench` binary of this build.
pub fn pkbench() -> Command {
    Command::cargo_bin("pkbench").expect("pkbench binary")
}

/// The JSON file at `path`.
pub fn read_json(path: &Path) -> Value {
    serde_json::from_slice(&std::fs::read(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))).unwrap()
}

/// The run failed with exactly one line on stderr, starting with `Error:`, containing `needle`.
pub fn assert_one_line_error(output: &std::process::Output, needle: &str) {
    assert!(!output.status.success(), "expected failure, got {:?}", output.status);
    let stderr = String::from_utf8_lossy(&output.stderr);
    let lines: Vec<&str> = stderr.lines().filter(|l| !l.trim().is_empty()).collect();
    let last = lines.last().copied().unwrap_or_default();
    assert!(last.starts_with("Error: ") && last.contains(needle), "stderr: {stderr}");
    assert!(lines.iter().filter(|l| l.starts_with("Error")).count() == 1, "stderr: {stderr}");
}

/// Polls `ready` every 50 ms until it holds; panics saying what did not happen if it still does
/// not after `timeout` (generous: a loaded machine is slow, a broken one never gets there).
pub fn wait_until(what: &str, timeout: Duration, mut ready: impl FnMut() -> bool) {
    let started = Instant::now();
    while !ready() {
        assert!(started.elapsed() < timeout, "{what}: not within {timeout:?}");
        std::thread::sleep(Duration::from_millis(50));
    }
}

/// Waits (up to 120 s, for a loaded machine) until the run writing to `out` has committed a
/// batch — its journal holds one — so a signal sent next finds measured rows to keep.
pub fn wait_for_a_batch(out: &Path) {
    wait_for_batches(out, 1);
}

/// Waits (up to 120 s) until the run writing to `out` has journaled `n` committed batches.
pub fn wait_for_batches(out: &Path, n: usize) {
    wait_until(&format!("{n} batches committed in {}", out.display()), Duration::from_secs(120), || {
        let journal = std::fs::read_to_string(out.join("journal.jsonl")).unwrap_or_default();
        journal.lines().filter(|l| l.starts_with("{\"batch\"")).count() >= n
    });
}

/// The `i`th of a set of distinct UUIDv4-shaped texts, spread over the key space as random
/// keys are.
pub fn uuid4_text(i: u32) -> String {
    format!(
        "{:08x}-{:04x}-4{:03x}-a{:03x}-{:012x}",
        i.wrapping_mul(2_654_435_761),
        i % 0xffff,
        i % 0xfff,
        (i * 7) % 0xfff,
        u64::from(i).wrapping_mul(0x9E37_79B9_7F4A) & 0xffff_ffff_ffff
    )
}
