//! One function per subcommand.

pub mod advise;
pub mod compare;
pub mod doctor;
pub mod ids;
mod install;
pub mod key_args;
mod list;
mod out_dir;
pub mod plan;
mod predict;
pub mod report;
pub(crate) mod run;
pub mod schema;

use crate::cli::{Cli, Command};
use std::process::ExitCode;

/// Runs the parsed command line.
pub fn dispatch(cli: Cli) -> anyhow::Result<ExitCode> {
    if let Command::Run(args) = &cli.command {
        for (flag, url) in [("--url", &args.settings.url), ("--like", &args.settings.like)] {
            if let Some(url) = url {
                crate::password_warning::warn_if_in(flag, url);
            }
        }
    }
    match cli.command {
        Command::Run(args) if args.options.plan.is_some() => plan::run_plan(*args),
        Command::Run(args) => run::run(*args),
        Command::Advise(args) => advise::advise(*args),
        Command::List => list::list(),
        Command::Ids(args) => ids::ids(args),
        Command::Report(args) => report::report(args),
        Command::Compare(args) => compare::compare_cmd(args),
        Command::Plan(args) => plan::plan(args),
        Command::Doctor(args) => doctor::doctor(args),
        Command::Predict(args) => predict::predict(*args),
        Command::Schema(args) => schema::schema(args),
        Command::Completions { shell } => install::completions(shell),
        Command::Man => install::man(),
    }
}
