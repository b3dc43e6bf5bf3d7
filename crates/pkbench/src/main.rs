//! `pkbench`: measure what your primary key costs. This file only parses arguments, calls the
//! library and prints errors.

mod cli;
mod commands;
mod duration;
mod progress;
mod size;

use clap::Parser;
use std::process::ExitCode;

fn main() -> ExitCode {
    let cli = cli::Cli::parse();
    match commands::dispatch(cli) {
        Ok(code) => code,
        Err(err) => {
            eprintln!("Error: {err:#}");
            ExitCode::FAILURE
        }
    }
}
