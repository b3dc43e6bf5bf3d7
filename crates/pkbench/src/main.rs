//! `pkbench`: measure what your primary key costs. This file only parses arguments, calls the
//! library and prints errors.

// Every line goes through `output` (`out!`, `outln!`, `say!`): the standard macros panic when a
// stream is closed or full.
#![deny(clippy::print_stdout, clippy::print_stderr)]

mod cli;
mod commands;
mod output;
mod password_warning;
mod progress;
mod settings_args;
mod signals;
mod size;

use crate::output::say;
use pkbench_core::engines::server::hide_secrets;
use std::io::IsTerminal;
use std::process::ExitCode;

fn main() -> ExitCode {
    let cli = match cli::Cli::parse_args() {
        Ok(cli) => cli,
        Err(e) => return clap_exit(&e),
    };
    // A server may ask for a password nothing else gave: ask the person, if one is there.
    if std::io::stdin().is_terminal() && std::io::stderr().is_terminal() {
        pkbench_core::engines::wire::credentials::set_password_prompt(|text| rpassword::prompt_password(text).ok());
    }
    match commands::dispatch(cli) {
        Ok(code) => code,
        // A reader that stopped reading (`pkbench list | head -1`) is not an error.
        Err(err) if output::is_broken_pipe(&err) => ExitCode::from(output::EXIT_BROKEN_PIPE),
        Err(err) => {
            // The library hides passwords itself; this also covers any message that quotes an
            // argument (a URL) it did not expect.
            let text = std::env::args_os()
                .fold(output::error_line(&err), |text, arg| hide_secrets(&text, &arg.to_string_lossy()));
            say!("Error: {text}");
            ExitCode::FAILURE
        }
    }
}

/// What clap has to say instead of a run: a refusal on stderr, or help and the version on
/// stdout, which, like every other output, fails when standard output is closed or full.
fn clap_exit(e: &clap::Error) -> ExitCode {
    use std::io::Write;
    let printed = e.print().and_then(|()| std::io::stdout().flush());
    match printed {
        Ok(()) => ExitCode::from(u8::try_from(e.exit_code()).unwrap_or(1)),
        Err(_) if e.use_stderr() => ExitCode::from(u8::try_from(e.exit_code()).unwrap_or(1)),
        Err(io) if io.kind() == std::io::ErrorKind::BrokenPipe => ExitCode::from(output::EXIT_BROKEN_PIPE),
        Err(io) => {
            say!("Error: could not write to standard output: {io}");
            ExitCode::FAILURE
        }
    }
}
