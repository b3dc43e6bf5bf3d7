//! The workload's bookkeeping on the mock engine (fake time: every row costs 10 µs of it).

use super::*;
use crate::control::RunControl;
use crate::engines::mock::{FakeTimer, MockEngine};
use crate::strategy::find;
use crate::workloads::Silent;
use std::sync::Arc;

fn run(warmup_s: u64, control: &RunControl) -> (RunResult, Option<Error>) {
    let timer = Arc::new(FakeTimer::default());
    let mut engine = MockEngine::new(Arc::clone(&timer));
    let workload = ConcurrentInsert::new(4, Duration::from_secs(2), Duration::from_secs(warmup_s), 50, 42).unwrap();
    let ctx = CaseContext { control, timer: timer.as_ref(), observer: &Silent, counter_budget: Default::default() };
    workload.run_case(&mut engine, find("uuid4").unwrap(), &ctx)
}

#[test]
fn warm_up_rows_are_excluded_from_the_phase_but_verified() {
    let (result, error) = run(1, &RunControl::new());
    assert!(error.is_none(), "{error:?}");
    assert!(result.complete);
    let phase = &result.phases[0];
    assert_eq!(phase.name, "concurrent-insert");
    let warmup = phase.figures["warmup_rows"] as u64;
    // 10 µs of fake time per row: at least ~100k rows in the fake second of warm-up. No upper
    // bound: the coordinator notices the end by polling in real time, and in an optimised build
    // the threads run through several fake seconds per real millisecond.
    assert!(warmup >= 90_000, "warm-up rows {warmup}");
    assert_eq!(result.verified_rows, Some(warmup + phase.operations));
    assert_eq!(result.settings.rows, warmup + phase.operations);
    assert_eq!(phase.rows, phase.operations);
    assert_eq!(phase.latency.unwrap().count, phase.operations, "one latency per measured row");
    assert_eq!(phase.figures["threads"], 4.0);
    assert_eq!(phase.figures["errors"], 0.0);
    assert!(!phase.figures.contains_key("lock_wait_ns"), "the mock has no lock to time");
    assert_eq!(result.settings.workload_options["threads"], "4");
}

#[test]
fn intervals_cover_the_timed_part_one_second_each() {
    let (result, _) = run(1, &RunControl::new());
    let phase = &result.phases[0];
    let intervals = &phase.intervals;
    // Two one-second intervals; the coordinator polls, and fake time runs fast, so on a loaded
    // machine a boundary may be sampled late (the exact bucketing is tested in `intervals`).
    assert!((1..=3).contains(&intervals.len()), "{intervals:?}");
    assert_eq!(intervals.iter().map(|i| i.operations).sum::<u64>(), phase.operations);
    assert_eq!(intervals[0].start_ns, 0);
    let mut next = 0;
    for i in intervals {
        assert_eq!(i.start_ns, next, "intervals are contiguous");
        next += i.elapsed_ns;
        assert!(i.elapsed_ns > 0 && i.operations > 0, "{i:?}");
    }
    assert_eq!(next, phase.elapsed_ns);
    assert!(phase.elapsed_ns >= 2_000_000_000);
}

#[test]
fn a_slow_counter_read_does_not_stretch_the_measured_time() {
    // Each read takes 50 ms of real time, in which the clients run through many fake seconds:
    // they stop at the end of the 2 s by themselves, and the phase ends there.
    let timer = Arc::new(FakeTimer::default());
    let mut engine = MockEngine::new(Arc::clone(&timer));
    engine.counter_read = Duration::from_millis(50);
    let workload = ConcurrentInsert::new(4, Duration::from_secs(2), Duration::ZERO, 50, 42).unwrap();
    let control = RunControl::new();
    let ctx =
        CaseContext { control: &control, timer: timer.as_ref(), observer: &Silent, counter_budget: Default::default() };
    let (result, error) = workload.run_case(&mut engine, find("uuid4").unwrap(), &ctx);
    assert!(error.is_none(), "{error:?}");
    let phase = &result.phases[0];
    assert_eq!(phase.elapsed_ns, 2_000_000_000);
    assert_eq!(phase.intervals.iter().map(|i| i.elapsed_ns).sum::<u64>(), phase.elapsed_ns);
    // 10 µs of fake time per row: 200k rows in 2 s, and at most one more in flight per client.
    assert!(phase.operations <= 200_000 + 4, "{} rows measured in 2 s", phase.operations);
}

#[test]
fn without_warm_up_every_row_is_measured() {
    let (result, error) = run(0, &RunControl::new());
    assert!(error.is_none(), "{error:?}");
    let phase = &result.phases[0];
    assert_eq!(phase.figures["warmup_rows"], 0.0);
    assert_eq!(result.verified_rows, Some(phase.operations));
}

#[test]
fn ctrl_c_stops_the_threads_and_keeps_the_results() {
    let control = RunControl::new();
    control.cancel();
    let (result, error) = run(1, &control);
    assert!(matches!(error, Some(Error::Interrupted)), "{error:?}");
    assert_eq!(result.phases.len(), 1, "what was measured is kept");
    assert_eq!(result.verified_rows, Some(result.settings.rows), "rows are still verified");
    assert!(!result.complete);
}

#[test]
fn bad_options_and_mapping_tables_are_refused_in_one_line() {
    let new = |t, d| ConcurrentInsert::new(t, Duration::from_secs(d), Duration::ZERO, 50, 1).unwrap_err().to_string();
    assert!(new(0, 1).contains("--threads 0 is out of range"), "{}", new(0, 1));
    assert!(new(MAX_THREADS + 1, 1).contains("use 1 to"));
    assert!(new(4, 0).contains("--duration 0s is out of range"), "{}", new(4, 0));
    let w = ConcurrentInsert::new(4, Duration::from_secs(1), Duration::ZERO, 50, 1).unwrap();
    let err = w.check(find("uuid7+uuid4-map").unwrap(), "sqlite").unwrap_err().to_string();
    assert!(err.contains("mapping table needs two") && !err.contains('\n'), "{err}");
    assert!(w.check(find("int+uuid4").unwrap(), "sqlite").is_ok());
}
