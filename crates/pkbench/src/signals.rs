//! SIGINT, SIGTERM and SIGHUP stop a run the same way (what Ctrl-C, `timeout`, CI cancellation,
//! container stop and a closed terminal send): the first asks the run to stop after the step in
//! flight, so results measured so far are written and managed servers are stopped and removed;
//! a second exits at once, still killing managed servers and removing their folders. The exit
//! status is 128 + the signal's number (130, 143, 129), as shells report it.

use anyhow::Context;
use pkbench_core::control::RunControl;
use pkbench_core::engines::server::abort_all;
use signal_hook::consts::{SIGHUP, SIGINT, SIGTERM};
use signal_hook::iterator::Signals;
use std::sync::Arc;
use std::sync::atomic::{AtomicI32, Ordering};

/// The first stopping signal received, if any.
#[derive(Clone, Debug)]
pub struct Stop {
    signal: Arc<AtomicI32>,
}

impl Stop {
    /// The exit status for a run a signal stopped: 128 + its number (SIGINT's when none came,
    /// e.g. a stop the run noticed on its own).
    pub fn exit_code(&self) -> u8 {
        let signal = match self.signal.load(Ordering::SeqCst) {
            0 => SIGINT,
            s => s,
        };
        u8::try_from(128 + signal).unwrap_or(130)
    }
}

/// Installs the handler: the first signal cancels `control`, a second one ends the process.
pub fn install(control: Arc<RunControl>) -> anyhow::Result<Stop> {
    let mut signals = Signals::new([SIGINT, SIGTERM, SIGHUP]).context("could not install the signal handlers")?;
    let stop = Stop { signal: Arc::new(AtomicI32::new(0)) };
    let seen = Arc::clone(&stop.signal);
    std::thread::Builder::new()
        .name("signals".into())
        .spawn(move || {
            for signal in signals.forever() {
                if seen.compare_exchange(0, signal, Ordering::SeqCst, Ordering::SeqCst).is_ok() {
                    control.cancel();
                } else {
                    // No destructors run on exit: stop and remove managed servers first.
                    abort_all();
                    std::process::exit(128 + signal);
                }
            }
        })
        .context("could not start the signal thread")?;
    Ok(stop)
}
