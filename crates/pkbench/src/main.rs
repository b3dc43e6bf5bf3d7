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
    let cli = cli::Cli::parse_args();
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
            let text =
                std::env::args_os().fold(format!("{err:#}"), |text, arg| hide_secrets(&text, &arg.to_string_lossy()));
            say!("Error: {text}");
            ExitCode::FAILURE
        }
    }
}
