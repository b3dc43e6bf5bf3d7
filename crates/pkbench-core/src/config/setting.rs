//! How a run setting's value is read from text: once for the command line and plan files alike.

use super::choices::Choice;
use crate::engines::EngineKind;
use crate::engines::sqlite::{Journal, Synchronous};
use crate::engines::txn::{Isolation, TxnShape};
use crate::generators::V7Method;
use crate::metrics::budget::CounterBudget;
use crate::report::Format;
use crate::sharding::Sharding;
use crate::workloads::{FkLocality, ReadLocality};
use std::path::PathBuf;
use std::time::Duration;

/// How a setting is written on the command line.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Shape {
    /// `--flag`: on when given (`true`/`false` in a plan).
    Switch,
    /// `--flag VALUE`.
    Value,
    /// `--flag VALUE`, repeatable: every value is kept.
    Repeated,
}

/// The heading a setting is listed under in `pkbench run --help`, in the order they are listed.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum SettingGroup {
    /// What runs: the workload, the strategies, your schema.
    Input,
    /// How much: rows, batches, repeats, connections, time.
    Size,
    /// How the keys are made.
    Keys,
    /// The engine and its settings.
    Engine,
    /// Your server, or the throwaway one pkbench starts.
    Server,
    /// What is printed and kept.
    Output,
}

impl SettingGroup {
    /// The heading's text.
    pub fn heading(self) -> &'static str {
        match self {
            SettingGroup::Input => "Input",
            SettingGroup::Size => "Size",
            SettingGroup::Keys => "Keys",
            SettingGroup::Engine => "Engine",
            SettingGroup::Server => "Server",
            SettingGroup::Output => "Output",
        }
    }
}

/// A doc comment's paragraphs (`lines` one per line, as the settings macro gives them), each
/// paragraph's lines joined with a space.
pub(super) fn paragraphs(lines: &str) -> Vec<String> {
    let mut paragraphs = Vec::new();
    let mut current: Vec<&str> = Vec::new();
    for line in lines.lines().map(str::trim) {
        if line.is_empty() {
            if !current.is_empty() {
                paragraphs.push(current.join(" "));
                current.clear();
            }
        } else {
            current.push(line);
        }
    }
    if !current.is_empty() {
        paragraphs.push(current.join(" "));
    }
    paragraphs
}

/// One of the names a setting's value takes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ValueName {
    /// The name.
    pub name: &'static str,
    /// One line of help.
    pub help: &'static str,
    /// Other names accepted for it.
    pub aliases: &'static [&'static str],
}

/// A type a run setting holds.
pub trait SettingValue: Sized {
    /// How the setting is written.
    const SHAPE: Shape = Shape::Value;

    /// The names it takes, with their help, when it is one of a few.
    fn names() -> Vec<ValueName> {
        Vec::new()
    }

    /// Stores `value` in `slot`; a repeated setting adds to what is there.
    fn store(slot: &mut Option<Self>, value: Self) {
        *slot = Some(value);
    }

    /// Whether a stored value counts as given (a switch set to `false` does not).
    fn is_given(&self) -> bool {
        true
    }
}

macro_rules! plain_values {
    ($($t:ty),*) => { $(impl SettingValue for $t {})* };
}
plain_values!(u64, u32, u16, u8, f64, String, PathBuf, Duration, CounterBudget);

macro_rules! choice_values {
    ($($t:ty),*) => {
        $(impl SettingValue for $t {
            fn names() -> Vec<ValueName> {
                <$t as Choice>::choices()
                    .into_iter()
                    .map(|(value, name, help)| ValueName { name, help, aliases: value.aliases() })
                    .collect()
            }
        })*
    };
}
choice_values!(
    EngineKind,
    Synchronous,
    Journal,
    TxnShape,
    Isolation,
    FkLocality,
    ReadLocality,
    Sharding,
    Format,
    V7Method,
    super::WorkloadKind
);

impl SettingValue for bool {
    const SHAPE: Shape = Shape::Switch;

    fn is_given(&self) -> bool {
        *self
    }
}

impl SettingValue for Vec<String> {
    const SHAPE: Shape = Shape::Repeated;

    fn store(slot: &mut Option<Self>, value: Self) {
        slot.get_or_insert_with(Vec::new).extend(value);
    }
}

/// Parsers of the value types that have no parser of their own.
pub mod parse {
    use super::Choice;
    use std::path::PathBuf;

    /// Any of the [`Choice`] names.
    pub fn choice<T: Choice>(text: &str) -> Result<T, String> {
        T::from_name(text)
    }

    /// A whole number of the type's range.
    pub fn number<T: std::str::FromStr>(text: &str) -> Result<T, String> {
        text.trim().parse().map_err(|_| format!("'{text}' is not a whole number in range"))
    }

    /// `true` or `false`.
    pub fn switch(text: &str) -> Result<bool, String> {
        match text {
            "true" => Ok(true),
            "false" => Ok(false),
            _ => Err(format!("'{text}' is not a switch value: use true or false")),
        }
    }

    /// Any text.
    pub fn text(text: &str) -> Result<String, String> {
        Ok(text.to_string())
    }

    /// One value of a repeatable setting.
    pub fn one(text: &str) -> Result<Vec<String>, String> {
        Ok(vec![text.to_string()])
    }

    /// A file or folder path.
    pub fn path(text: &str) -> Result<PathBuf, String> {
        Ok(PathBuf::from(text))
    }

    /// A counter budget (`5%`, `unlimited`).
    pub fn budget(text: &str) -> Result<crate::metrics::budget::CounterBudget, String> {
        text.parse()
    }
}
