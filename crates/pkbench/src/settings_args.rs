//! The library's run settings as command-line flags: each [`Setting`] becomes a flag with its
//! help, default and value names, and what was typed is read back into a [`RunSettings`]
//! through the same parser plan files use. Only typed flags are kept, so a refusal can name
//! the flags that were given.

use clap::builder::{PossibleValue, PossibleValuesParser, TypedValueParser};
use clap::parser::ValueSource;
use clap::{Arg, ArgAction, ArgMatches, Command};
use pkbench_core::config::setting::Shape;
use pkbench_core::config::{RunSettings, Setting};

/// Which settings `-h` lists (`--help` lists them all).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ShortHelp {
    /// All but the advanced ones.
    Common,
    /// Every one.
    All,
}

/// Adds `settings` to `cmd` as flags, grouped under their headings in the headings' order.
pub fn augment(cmd: Command, settings: impl IntoIterator<Item = Setting>, short: ShortHelp) -> Command {
    let mut settings: Vec<Setting> = settings.into_iter().collect();
    // clap lists headings in the order their first flag was added.
    settings.sort_by_key(|s| s.group());
    settings.into_iter().fold(cmd, |cmd, setting| {
        cmd.arg(arg(setting).hide_short_help(short == ShortHelp::Common && setting.is_advanced()))
    })
}

/// The settings among `settings` that were typed on the command line.
pub fn read(matches: &ArgMatches, settings: impl IntoIterator<Item = Setting>) -> Result<RunSettings, clap::Error> {
    let mut read = RunSettings::default();
    for setting in settings {
        if matches.value_source(setting.key()) != Some(ValueSource::CommandLine) {
            continue;
        }
        let texts: Vec<String> = match setting.shape() {
            Shape::Switch => vec!["true".to_string()],
            Shape::Value | Shape::Repeated => {
                matches.get_many::<String>(setting.key()).into_iter().flatten().cloned().collect()
            }
        };
        for text in texts {
            // Each value was checked as it was parsed; this reads it into its type.
            read.set(setting, &text).map_err(|e| clap::Error::raw(clap::error::ErrorKind::ValueValidation, e))?;
        }
    }
    Ok(read)
}

/// One setting's flag: its summary for `-h`, its whole help and the names of its values for
/// `--help`.
fn arg(setting: Setting) -> Arg {
    let default = setting.default_text().map(|d| format!(" [default: {d}]")).unwrap_or_default();
    let summary = setting.summary();
    let mut help =
        std::iter::once(format!("{summary}{default}")).chain(setting.details()).collect::<Vec<_>>().join("\n\n");
    let summary = format!("{}{default}", summary.trim_end_matches('.'));
    let names = setting.names();
    if !names.is_empty() {
        // Listed here rather than by clap, whose `-h` would put them all on the flag's line.
        help.push_str("\n\nPossible values:");
        for name in &names {
            help.push_str(&format!("\n- {}", name.name));
            if !name.help.is_empty() {
                help.push_str(&format!(": {}", name.help));
            }
        }
    }
    let arg = Arg::new(setting.key())
        .long(setting.key())
        .help(summary)
        .long_help(help)
        .help_heading(setting.group().heading());
    let arg = match setting.short() {
        Some(c) => arg.short(c),
        None => arg,
    };
    let action = match setting.shape() {
        Shape::Switch => return arg.action(ArgAction::SetTrue),
        Shape::Value => ArgAction::Set,
        Shape::Repeated => ArgAction::Append,
    };
    let value_name = setting.value_name().map_or_else(|| setting.key().to_uppercase().replace('-', "_"), String::from);
    let arg = arg.action(action).value_name(value_name).allow_hyphen_values(true);
    let check = move |text: String| RunSettings::default().set(setting, &text).map(|()| text);
    if names.is_empty() {
        return arg.value_parser(move |text: &str| check(text.to_string()));
    }
    let values = names.into_iter().map(|v| PossibleValue::new(v.name).help(v.help).aliases(v.aliases.iter().copied()));
    // Names in any case, as strategy names: `--engine PostgreSQL`.
    arg.ignore_case(true).hide_possible_values(true).value_parser(PossibleValuesParser::new(values).try_map(check))
}
