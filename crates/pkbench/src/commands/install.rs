//! `pkbench completions SHELL` and `pkbench man`: what a package or an installer puts beside the
//! binary, generated from the same command-line definition (clap_complete, clap_mangen).

use crate::cli::Cli;
use crate::output::write_out;
use clap::CommandFactory;
use std::process::ExitCode;

/// Prints the completion script for `shell`.
pub fn completions(shell: clap_complete::Shell) -> anyhow::Result<ExitCode> {
    let mut script = Vec::new();
    clap_complete::generate(shell, &mut Cli::command(), "pkbench", &mut script);
    write_out(&String::from_utf8_lossy(&script))?;
    Ok(ExitCode::SUCCESS)
}

/// Prints the man page of `pkbench` (roff), with one section per subcommand.
pub fn man() -> anyhow::Result<ExitCode> {
    let command = Cli::command();
    let mut page = Vec::new();
    clap_mangen::Man::new(command.clone()).render(&mut page)?;
    for sub in command.get_subcommands().filter(|s| !s.is_hide_set()) {
        let mut text = Vec::new();
        clap_mangen::Man::new(sub.clone()).render_subcommands_section(&mut text)?;
        let mut body = Vec::new();
        clap_mangen::Man::new(sub.clone()).render_options_section(&mut body)?;
        page.extend_from_slice(format!(".SH \"PKBENCH {}\"\n", sub.get_name().to_uppercase()).as_bytes());
        if let Some(about) = sub.get_about() {
            page.extend_from_slice(format!("{about}\n").as_bytes());
        }
        page.extend_from_slice(&strip_heading(&body));
        page.extend_from_slice(&strip_heading(&text));
    }
    write_out(&String::from_utf8_lossy(&page))?;
    Ok(ExitCode::SUCCESS)
}

/// A rendered section without its `.SH` heading line, so it nests under the subcommand's.
fn strip_heading(section: &[u8]) -> Vec<u8> {
    let text = String::from_utf8_lossy(section);
    text.lines().filter(|l| !l.starts_with(".SH ")).flat_map(|l| format!("{l}\n").into_bytes()).collect()
}
