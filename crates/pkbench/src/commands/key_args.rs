//! The key settings `ids gen` shares with `run`, under the same names: the virtual clock's key
//! rate and each scheme's parameters (the library's key [`Setting`]s, as flags).

use clap::{ArgMatches, Args, FromArgMatches};
use pkbench_core::Error;
use pkbench_core::config::{RunSettings, Setting, keys};
use pkbench_core::generators::SchemeParams;

/// The key settings among the run settings.
fn key_settings() -> impl Iterator<Item = Setting> {
    Setting::ALL.iter().copied().filter(|s| keys::shaped_by(*s).is_some())
}

/// Key parameters: the key rate of seeded streams and each scheme's own.
#[derive(Debug, Default)]
pub struct SchemeArgs(Box<RunSettings>);

impl SchemeArgs {
    /// The schemes' parameters, checked.
    pub fn params(&self) -> Result<SchemeParams, Error> {
        keys::scheme_params(&self.0)
    }

    /// The key rate, checked.
    pub fn rate(&self) -> Result<u64, Error> {
        keys::key_rate(&self.0)
    }

    /// Whether `--key-rate` was given.
    pub fn key_rate_given(&self) -> bool {
        self.0.key_rate.is_some()
    }
}

impl Args for SchemeArgs {
    fn augment_args(cmd: clap::Command) -> clap::Command {
        crate::settings_args::augment(cmd, key_settings(), crate::settings_args::ShortHelp::All)
    }

    fn augment_args_for_update(cmd: clap::Command) -> clap::Command {
        Self::augment_args(cmd)
    }
}

impl FromArgMatches for SchemeArgs {
    fn from_arg_matches(matches: &ArgMatches) -> Result<Self, clap::Error> {
        crate::settings_args::read(matches, key_settings()).map(|s| SchemeArgs(Box::new(s)))
    }

    fn update_from_arg_matches(&mut self, matches: &ArgMatches) -> Result<(), clap::Error> {
        *self = Self::from_arg_matches(matches)?;
        Ok(())
    }
}
