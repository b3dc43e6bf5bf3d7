//! One function per subcommand.

mod list;
mod run;

use crate::cli::{Cli, Command};
use std::process::ExitCode;

/// Runs the parsed command line.
pub fn dispatch(cli: Cli) -> anyhow::Result<ExitCode> {
    match cli.command {
        Command::Run(args) => run::run(args),
        Command::List => list::list(),
    }
}
