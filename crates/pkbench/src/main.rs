//! `pkbench`: measure what your primary key costs. This file only parses arguments, calls the
//! library and prints errors.

mod cli;
mod commands;
mod duration;
mod output;
mod progress;
mod signals;
mod size;

use std::process::ExitCode;

fn main() -> ExitCode {
    let cli = cli::Cli::parse_with_sources();
    match commands::dispatch(cli) {
        Ok(code) => code,
        // A reader that stopped reading (`pkbench list | head -1`) is not an error.
        Err(err) if output::is_broken_pipe(&err) => ExitCode::from(output::EXIT_BROKEN_PIPE),
        Err(err) => {
            eprintln!("Error: {err:#}");
            ExitCode::FAILURE
        }
    }
}
