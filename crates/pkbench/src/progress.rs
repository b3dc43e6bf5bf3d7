//! Live progress: an indicatif bar fed from the run's shared row counter a few times a second
//! (never from the insert loop), or plain lines when stderr is not a terminal or with --quiet.

use crate::output::say;
use indicatif::{ProgressBar, ProgressDrawTarget, ProgressState, ProgressStyle};
use pkbench_core::control::RunControl;
use pkbench_core::metrics::stats::rate_per_sec;
use pkbench_core::report;
use pkbench_core::results::{BatchResult, RunResult};
use pkbench_core::util::text::count;
use pkbench_core::workloads::Observer;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::thread::JoinHandle;
use std::time::Duration;

const REFRESH: Duration = Duration::from_millis(150);

/// The progress view for one `pkbench run`.
pub struct Progress {
    bar: Option<ProgressBar>,
    stop: Arc<AtomicBool>,
    poller: Option<JoinHandle<()>>,
}

impl Progress {
    /// Starts the view; with `plain`, prints one line per strategy instead of a bar.
    pub fn start(control: Arc<RunControl>, plain: bool) -> Self {
        let stop = Arc::new(AtomicBool::new(false));
        if plain {
            return Progress { bar: None, stop, poller: None };
        }
        let bar = ProgressBar::with_draw_target(Some(0), ProgressDrawTarget::stderr_with_hz(8));
        idle(&bar, "starting…");
        let poller = {
            let (bar, stop) = (bar.clone(), Arc::clone(&stop));
            std::thread::spawn(move || {
                while !stop.load(Ordering::Relaxed) {
                    bar.set_position(control.rows_done());
                    std::thread::sleep(REFRESH);
                }
            })
        };
        Progress { bar: Some(bar), stop, poller: Some(poller) }
    }

    /// Stops the poller and clears the bar.
    pub fn finish(mut self) {
        self.stop.store(true, Ordering::Relaxed);
        if let Some(p) = self.poller.take() {
            let _ = p.join();
        }
        if let Some(bar) = &self.bar {
            bar.finish_and_clear();
        }
    }
}

/// Between cases (a server starting, a case's tables made or dropped): no bar, whose empty
/// length would read as a full "0/0 rows", but what is going on.
fn idle(bar: &ProgressBar, what: &'static str) {
    bar.set_style(ProgressStyle::with_template("{msg} {elapsed}").expect("valid template"));
    bar.set_message(what);
}

/// The bar for a sized case, or for a timed one (no length, no ETA).
fn style(timed: bool) -> ProgressStyle {
    let template = if timed {
        "{prefix:.bold} {human_pos} rows · {rate} rows/s · {elapsed}"
    } else {
        "{prefix:.bold} [{bar:30.cyan/blue}] {human_pos}/{human_len} rows · {rate} rows/s · ETA {eta}"
    };
    ProgressStyle::with_template(template)
        .expect("valid template")
        .with_key("rate", |state: &ProgressState, w: &mut dyn std::fmt::Write| {
            let _ = w.write_str(&report::rate(Some(state.per_sec())));
        })
        .progress_chars("=> ")
}

impl Observer for Progress {
    fn case_started(&self, strategy: &str, position: usize, count: usize, rows: u64, plan: &str) {
        match &self.bar {
            Some(bar) => {
                bar.set_position(0);
                // Timed workloads (rows = 0: not known in advance) show rows and elapsed time.
                bar.set_style(style(rows == 0));
                bar.set_length(rows);
                bar.reset();
                bar.set_prefix(format!("[{}/{count}] {strategy}", position + 1));
            }
            None if rows == 0 => say!("[{}/{count}] {strategy}: running", position + 1),
            None => say!("[{}/{count}] {strategy}: {plan}", position + 1),
        }
    }

    fn batch_done(&self, _strategy: &str, _batch: &BatchResult) {}

    fn case_finished(&self, result: &RunResult) {
        let status = if result.complete { "" } else { " (incomplete)" };
        let line = match (result.batches.is_empty(), result.phases.as_slice()) {
            // A timed workload with one step (concurrent): its operations and rate.
            (true, [phase]) => {
                let secs = phase.elapsed_ns as f64 / 1e9;
                let rate = rate_per_sec(phase.operations, phase.elapsed_ns).unwrap_or(0.0);
                format!(
                    "{}: {} in {secs:.2} s ({rate:.0}/s){status}",
                    result.strategy,
                    count(phase.operations, &format!("{} operation", phase.name))
                )
            }
            // Workloads without insert batches and several steps (file-baseline, app).
            (true, phases) if !phases.is_empty() => {
                let secs = phases.iter().map(|p| p.elapsed_ns).sum::<u64>() as f64 / 1e9;
                format!("{}: {} in {secs:.2} s{status}", result.strategy, count(phases.len(), "timed step"))
            }
            _ => {
                let rows = result.rows_inserted();
                let secs = result.insert_ns() as f64 / 1e9;
                let rate = rate_per_sec(rows, result.insert_ns()).unwrap_or(0.0);
                let growth = match (result.batches.first(), result.batches.last()) {
                    (Some(f), Some(l)) if f.elapsed_ns > 0 => {
                        format!(", last/first batch {:.2}×", l.elapsed_ns as f64 / f.elapsed_ns as f64)
                    }
                    _ => String::new(),
                };
                let counters = result.counters_ns() as f64 / 1e9;
                let share = 100.0 * counters / secs.max(1e-9);
                format!(
                    "{}: {} in {secs:.2} s ({rate:.0} rows/s){growth}; counters read in {counters:.2} s ({share:.1}% of inserting){status}",
                    result.strategy,
                    count(rows, "row")
                )
            }
        };
        match &self.bar {
            Some(bar) => {
                bar.println(line);
                idle(bar, "next case…");
                bar.reset();
            }
            None => say!("{line}"),
        }
    }
}
