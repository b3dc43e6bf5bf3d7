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

/// The error and its causes on one line, joined by ": " as `{err:#}` joins them, ending at the
/// first cause the message before it already ends with: the library's errors quote their cause,
/// and what lies below a quoted cause was said by it.
pub fn error_line(err: &anyhow::Error) -> String {
    let mut chain = err.chain().map(ToString::to_string);
    let mut line = chain.next().unwrap_or_default();
    let mut last = line.clone();
    for cause in chain {
        if last.ends_with(&cause) {
            break;
        }
        line.push_str(": ");
        line.push_str(&cause);
        last = cause;
    }
    line
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

#[cfg(test)]
mod tests {
    use super::error_line;
    use anyhow::Context;
    use pkbench_core::Error;

    fn missing() -> Error {
        Error::io("read", "/nonexistent/results.json", std::io::Error::from(std::io::ErrorKind::NotFound))
    }

    #[test]
    fn a_quoted_cause_is_printed_once() {
        let err = anyhow::Error::new(missing());
        assert!(std::error::Error::source(&missing()).is_some());
        assert_eq!(error_line(&err), "could not read '/nonexistent/results.json': entity not found");
    }

    #[test]
    fn contexts_above_a_library_error_are_kept() {
        let err = Err::<(), _>(missing()).context("the run stopped").unwrap_err();
        assert_eq!(error_line(&err), "the run stopped: could not read '/nonexistent/results.json': entity not found");
        let plain = Err::<(), _>(std::io::Error::other("disk gone")).context("could not write").unwrap_err();
        assert_eq!(error_line(&plain), format!("{plain:#}"));
    }
}
