//! Output that never panics: `println!` and `eprintln!` panic when their stream is a closed pipe
//! or a full disk. [`outln!`] and [`out!`] write standard output through a checked writer instead
//! and return the error, which `main` turns into a quiet exit (closed pipe) or one line (anything
//! else). [`say!`] writes a line to standard error and ignores any error: a message about a run
//! must never stop it (the progress bar, indicatif's, ignores its write errors the same way).

use anyhow::Context;
use std::io::Write;

/// Exit status after a closed stdout, as if SIGPIPE had ended the process (128 + 13).
pub const EXIT_BROKEN_PIPE: u8 = 141;

/// Writes `text` to standard output and flushes it; the error says it was standard output.
pub fn write_out(text: &str) -> anyhow::Result<()> {
    let mut out = std::io::stdout().lock();
    out.write_all(text.as_bytes()).and_then(|()| out.flush()).context("could not write to standard output")
}

/// Whether `err` (anywhere in its chain) is a write into a closed pipe.
pub fn is_broken_pipe(err: &anyhow::Error) -> bool {
    err.chain()
        .any(|cause| cause.downcast_ref::<std::io::Error>().is_some_and(|e| e.kind() == std::io::ErrorKind::BrokenPipe))
}

/// Writes `text` to standard error in one write; a closed or full standard error is ignored.
pub fn say_text(text: &str) {
    let mut err = std::io::stderr().lock();
    let _ = err.write_all(text.as_bytes()).and_then(|()| err.flush());
}

/// `eprintln!` that never fails: a line on standard error, or nothing if it cannot be written.
macro_rules! say {
    ($($arg:tt)*) => {
        $crate::output::say_text(&format!("{}\n", format_args!($($arg)*)))
    };
}

/// `println!` that returns an error instead of panicking.
macro_rules! outln {
    ($($arg:tt)*) => {
        $crate::output::write_out(&format!("{}\n", format_args!($($arg)*)))
    };
}

/// `print!` that returns an error instead of panicking.
macro_rules! out {
    ($($arg:tt)*) => {
        $crate::output::write_out(&format!($($arg)*))
    };
}

pub(crate) use {out, outln, say};
