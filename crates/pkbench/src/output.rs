//! Standard output that never panics: `println!` panics when stdout is a closed pipe or a full
//! disk. [`outln!`] and [`out!`] write through a checked writer instead and return the error, which
//! `main` turns into a quiet exit (closed pipe) or one line (anything else).

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

pub(crate) use {out, outln};
