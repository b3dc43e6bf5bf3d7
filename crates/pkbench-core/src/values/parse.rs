//! Settings that refine a column's default spec, from a SQL comment on the column
//! (`-- pkbench: len=8..40 nulls=0.2 distinct=1000 zipf=1.1`) or a TOML sidecar
//! (`[users.name]` then `len = "8..40"`). Both read the same keys with the same messages.

use super::spec::{Alphabet, ColumnSpec, Distinct, Lengths, Skew, SqlType, ValueKind};
use crate::Error;
use std::collections::BTreeMap;

/// Every key, in the order messages list them.
const KEYS: [&str; 11] =
    ["len", "lengths", "nulls", "distinct", "zipf", "range", "monotonic", "step", "values", "alphabet", "words"];

/// The marker that makes a column comment pkbench's.
const MARKER: &str = "pkbench:";

/// Settings for one column, each optional; [`SpecOverrides::apply`] lays them over a spec.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct SpecOverrides {
    /// `len=MIN..MAX` or `len=N`: characters of text, bytes of binary or JSON.
    pub len: Option<(u32, u32)>,
    /// `lengths=8:0.5,16:0.3,40:0.2`: a length histogram of `LEN:WEIGHT` buckets.
    pub lengths: Option<Vec<(u32, f64)>>,
    /// `nulls=0.2`: the NULL share, 0 to 1.
    pub nulls: Option<f64>,
    /// `distinct=1000`: draw from this many distinct values.
    pub distinct: Option<u64>,
    /// `zipf=1.1`: skew the distinct values' draw with this exponent.
    pub zipf: Option<f64>,
    /// `range=MIN..MAX`: integer or float bounds, as written (parsed for the column's kind).
    pub range: Option<(String, String)>,
    /// `monotonic=true|false`: timestamps at the row's time, or anywhere before it.
    pub monotonic: Option<bool>,
    /// `step=1ms`: time between one row and the next, in microseconds.
    pub step_us: Option<u64>,
    /// `values=new|paid|shipped`: one of these values.
    pub values: Option<Vec<String>>,
    /// `alphabet=abc123`: the characters text is drawn from.
    pub alphabet: Option<Vec<char>>,
    /// `words=red|green|blue`: the words text is made of.
    pub words: Option<Vec<String>>,
}

impl SpecOverrides {
    /// Reads a column comment: `-- pkbench: …`, `/* pkbench: … */`, or the bare text of a
    /// `COMMENT 'pkbench: …'`. `None` if it is not pkbench's (no `pkbench:` marker); otherwise
    /// its `key=value` settings, separated by spaces (so values hold no spaces: the sidecar's
    /// can), or a one-line error naming the bad key or value and what is allowed.
    pub fn parse_comment(comment: &str) -> Result<Option<Self>, Error> {
        let text = comment.trim();
        let text = match text.strip_prefix("/*") {
            Some(block) => block.strip_suffix("*/").unwrap_or(block),
            None => text.trim_start_matches("--"),
        };
        let text = text.trim_start();
        let Some(settings) = text.strip_prefix(MARKER) else { return Ok(None) };
        let mut overrides = SpecOverrides::default();
        let mut seen: Vec<&str> = Vec::new();
        for token in settings.split_whitespace() {
            let Some((key, value)) = token.split_once('=') else {
                return Err(invalid(format!("'{token}' has no value: write key=value, e.g. len=8..40")));
            };
            if seen.contains(&key) {
                return Err(invalid(format!("key '{key}' given twice")));
            }
            seen.push(key);
            overrides.set(key, value).map_err(invalid)?;
        }
        Ok(Some(overrides))
    }

    /// Sets `key` from its text `value`; the error names both and what is allowed.
    fn set(&mut self, key: &str, value: &str) -> Result<(), String> {
        let bad = |expected: &str| format!("{key}={value}: expected {expected}");
        match key {
            "len" => {
                self.len = Some(parse_len(value).ok_or_else(|| bad("N or MIN..MAX with MIN <= MAX, e.g. len=8..40"))?)
            }
            "lengths" => {
                let buckets = parse_buckets(value).ok_or_else(|| {
                    bad("LEN:WEIGHT buckets separated by commas, weights >= 0, e.g. lengths=8:0.5,16:0.3,40:0.2")
                })?;
                self.lengths = Some(buckets);
            }
            "nulls" => {
                let share = value.parse().ok().filter(|s: &f64| (0.0..=1.0).contains(s));
                self.nulls = Some(share.ok_or_else(|| bad("a share from 0 to 1, e.g. nulls=0.2"))?);
            }
            "distinct" => {
                let n = value.replace('_', "").parse().ok().filter(|n: &u64| *n >= 1);
                self.distinct = Some(n.ok_or_else(|| bad("a whole number of at least 1, e.g. distinct=1000"))?);
            }
            "zipf" => {
                let s = value.parse().ok().filter(|s: &f64| s.is_finite() && *s > 0.0);
                self.zipf = Some(s.ok_or_else(|| bad("an exponent above 0, e.g. zipf=1.1"))?);
            }
            "range" => {
                let (min, max) = value
                    .split_once("..")
                    .filter(|(a, b)| !a.is_empty() && !b.is_empty())
                    .ok_or_else(|| bad("MIN..MAX, e.g. range=0..100"))?;
                self.range = Some((min.to_string(), max.to_string()));
            }
            "monotonic" => {
                self.monotonic = Some(value.parse().map_err(|_| bad("true or false"))?);
            }
            "step" => {
                let step = parse_duration_us(value).filter(|us| *us > 0);
                self.step_us = Some(
                    step.ok_or_else(|| bad("a duration above 0 with a unit (us, ms, s, m, h, d), e.g. step=1ms"))?,
                );
            }
            "values" => {
                self.values = Some(split_list(value).ok_or_else(|| bad("values separated by |, e.g. values=new|paid"))?)
            }
            "alphabet" => {
                let chars: Vec<char> = value.chars().collect();
                if chars.is_empty() {
                    return Err(bad("the characters to draw from, e.g. alphabet=abcdef0123456789"));
                }
                self.alphabet = Some(chars);
            }
            "words" => {
                self.words = Some(split_list(value).ok_or_else(|| bad("words separated by |, e.g. words=red|green"))?)
            }
            _ => return Err(unknown_key(key)),
        }
        Ok(())
    }

    /// `base` with these settings laid over it, checked: a key that does not fit the column's
    /// kind gets an error listing the keys that do.
    pub fn apply(&self, mut spec: ColumnSpec) -> Result<ColumnSpec, Error> {
        let kind_name = kind_name(&spec.kind);
        let misfit = |key: &str| {
            invalid(format!("{key} does not apply to {kind_name} columns; their keys are: {}", keys_for(kind_name)))
        };
        if let Some(share) = self.nulls {
            spec.null_share = share;
        }
        if let Some(count) = self.distinct {
            spec.distinct = Some(Distinct { count, skew: Skew::Uniform });
        }
        if let Some(s) = self.zipf {
            let Some(d) = spec.distinct.as_mut() else {
                return Err(invalid(format!("zipf={s} needs distinct=N: zipf skews the draw over N distinct values")));
            };
            d.skew = Skew::Zipf(s);
        }
        if self.len.is_some() && self.lengths.is_some() {
            return Err(invalid("len and lengths both given: use one".into()));
        }
        if self.alphabet.is_some() && self.words.is_some() {
            return Err(invalid("alphabet and words both given: use one".into()));
        }
        if let Some(values) = &self.values {
            match spec.kind {
                ValueKind::Text { .. } | ValueKind::Enum { .. } => {
                    spec.kind = ValueKind::Enum { values: values.clone() }
                }
                _ => return Err(misfit("values")),
            }
        }
        let new_lengths = match (self.len, &self.lengths) {
            (Some((min, max)), _) => Some(Lengths::Range { min, max }),
            (None, Some(buckets)) => Some(Lengths::Histogram(buckets.clone())),
            (None, None) => None,
        };
        match &mut spec.kind {
            ValueKind::Text { lengths, alphabet } => {
                *lengths = new_lengths.unwrap_or_else(|| lengths.clone());
                if let Some(chars) = &self.alphabet {
                    *alphabet = Alphabet::Chars(chars.clone());
                }
                if let Some(words) = &self.words {
                    *alphabet = Alphabet::Words(words.clone());
                }
            }
            ValueKind::Binary { lengths } => *lengths = new_lengths.unwrap_or_else(|| lengths.clone()),
            ValueKind::Json { min_bytes, max_bytes } => {
                if self.lengths.is_some() {
                    return Err(misfit("lengths"));
                }
                if let Some((min, max)) = self.len {
                    (*min_bytes, *max_bytes) = (min, max);
                }
            }
            _ if self.len.is_some() => return Err(misfit("len")),
            _ if self.lengths.is_some() => return Err(misfit("lengths")),
            _ => {}
        }
        let text_only = [("alphabet", self.alphabet.is_some()), ("words", self.words.is_some())];
        if let Some((key, _)) = text_only.iter().find(|(_, set)| *set)
            && !matches!(spec.kind, ValueKind::Text { .. })
        {
            return Err(misfit(key));
        }
        if let Some((lo, hi)) = &self.range {
            let range_error = |expected: &str| invalid(format!("range={lo}..{hi}: expected {expected}"));
            match &mut spec.kind {
                ValueKind::Integer { min, max } => match (lo.parse(), hi.parse()) {
                    (Ok(a), Ok(b)) if a <= b => (*min, *max) = (a, b),
                    _ => return Err(range_error("whole numbers with MIN <= MAX, e.g. range=0..100")),
                },
                ValueKind::Float { min, max } => match (lo.parse::<f64>(), hi.parse::<f64>()) {
                    (Ok(a), Ok(b)) if a.is_finite() && b.is_finite() && a <= b => (*min, *max) = (a, b),
                    _ => return Err(range_error("numbers with MIN <= MAX, e.g. range=0.5..99.5")),
                },
                _ => return Err(misfit("range")),
            }
        }
        if self.monotonic.is_some() || self.step_us.is_some() {
            let ValueKind::Timestamp { monotonic, step_us, .. } = &mut spec.kind else {
                return Err(misfit(if self.monotonic.is_some() { "monotonic" } else { "step" }));
            };
            *monotonic = self.monotonic.unwrap_or(*monotonic);
            *step_us = self.step_us.unwrap_or(*step_us);
        }
        spec.validate()?;
        Ok(spec)
    }
}

/// The spec for a column of type `ty` with `layers` of settings applied in order (the column's
/// comment, then the sidecar), checked against the declared length.
pub fn resolve(ty: SqlType, layers: &[&SpecOverrides]) -> Result<ColumnSpec, Error> {
    let mut spec = ColumnSpec::for_type(ty);
    for layer in layers {
        spec = layer.apply(spec)?;
    }
    let declared = match ty {
        SqlType::Text { max_chars } => max_chars,
        SqlType::Binary { max } => max,
        _ => None,
    };
    let longest = match &spec.kind {
        ValueKind::Text { lengths, .. } => Some((lengths.max(), "characters")),
        ValueKind::Binary { lengths } => Some((lengths.max(), "bytes")),
        ValueKind::Enum { values } => values.iter().map(|v| v.chars().count() as u32).max().map(|n| (n, "characters")),
        _ => None,
    };
    if let (Some(declared), Some((longest, unit))) = (declared, longest)
        && longest > declared
    {
        return Err(invalid(format!(
            "values up to {longest} {unit} long do not fit the column's declared length of {declared}"
        )));
    }
    Ok(spec)
}

/// A TOML sidecar of per-column settings: `[table.column]` sections of the comment's keys
/// (`len = "8..40"`, `nulls = 0.2`, `distinct = 1000`, `values = ["new", "paid"]`).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Sidecar {
    columns: BTreeMap<(String, String), SpecOverrides>,
}

type SidecarFile = BTreeMap<String, BTreeMap<String, BTreeMap<String, toml::Spanned<toml::Value>>>>;

impl Sidecar {
    /// Reads a sidecar; errors are one line with the line number, the section and the key.
    pub fn parse(text: &str) -> Result<Self, Error> {
        let line_of = |offset: usize| text[..offset.min(text.len())].matches('\n').count() + 1;
        let file: SidecarFile = toml::from_str(text).map_err(|e| {
            let line = e.span().map_or(String::new(), |s| format!(" line {}", line_of(s.start)));
            invalid(format!(
                "sidecar{line}: {}; expected [table.column] sections of key = value",
                e.message().trim().replace('\n', "; ")
            ))
        })?;
        let mut columns = BTreeMap::new();
        for (table, cols) in file {
            for (column, settings) in cols {
                let mut overrides = SpecOverrides::default();
                for (key, value) in settings {
                    let at = |msg: String| {
                        invalid(format!("sidecar line {}, [{table}.{column}]: {msg}", line_of(value.span().start)))
                    };
                    let text = toml_text(&key, value.get_ref()).map_err(at)?;
                    overrides.set(&key, &text).map_err(at)?;
                }
                columns.insert((table.clone(), column), overrides);
            }
        }
        Ok(Sidecar { columns })
    }

    /// The settings for `table.column`, if the sidecar has a section for it.
    pub fn column(&self, table: &str, column: &str) -> Option<&SpecOverrides> {
        self.columns.get(&(table.to_string(), column.to_string()))
    }

    /// Every `(table, column)` the sidecar names, to report sections matching no column.
    pub fn columns(&self) -> impl Iterator<Item = (&str, &str)> {
        self.columns.keys().map(|(t, c)| (t.as_str(), c.as_str()))
    }
}

/// A TOML value in the comment's text form: arrays of strings join with `|` (`,` for lengths).
fn toml_text(key: &str, value: &toml::Value) -> Result<String, String> {
    match value {
        toml::Value::String(s) => Ok(s.clone()),
        toml::Value::Integer(i) => Ok(i.to_string()),
        toml::Value::Float(f) => Ok(f.to_string()),
        toml::Value::Boolean(b) => Ok(b.to_string()),
        toml::Value::Array(items) => {
            let parts: Option<Vec<&str>> = items.iter().map(toml::Value::as_str).collect();
            let parts = parts.ok_or_else(|| format!("{key}: expected an array of strings"))?;
            Ok(parts.join(if key == "lengths" { "," } else { "|" }))
        }
        _ => Err(format!("{key}: expected a string, number, boolean or array of strings")),
    }
}

fn invalid(message: String) -> Error {
    Error::InvalidInput(message)
}

fn unknown_key(key: &str) -> String {
    let near = KEYS
        .iter()
        .map(|k| (strsim::jaro_winkler(key, k), k))
        .filter(|(s, _)| *s > 0.8)
        .max_by(|a, b| a.0.total_cmp(&b.0));
    let hint = near.map_or(String::new(), |(_, k)| format!("; did you mean '{k}'?"));
    format!("unknown key '{key}'{hint}; allowed: {}", KEYS.join(", "))
}

fn kind_name(kind: &ValueKind) -> &'static str {
    match kind {
        ValueKind::Integer { .. } => "integer",
        ValueKind::Decimal { .. } => "decimal",
        ValueKind::Float { .. } => "float",
        ValueKind::Text { .. } => "text",
        ValueKind::Binary { .. } => "binary",
        ValueKind::Uuid => "uuid",
        ValueKind::Bool => "boolean",
        ValueKind::Date { .. } => "date",
        ValueKind::Timestamp { .. } => "timestamp",
        ValueKind::Json { .. } => "json",
        ValueKind::Enum { .. } => "enum",
    }
}

fn keys_for(kind_name: &str) -> String {
    let own = match kind_name {
        "integer" | "float" => "range, ",
        "text" => "len, lengths, alphabet, words, values, ",
        "binary" => "len, lengths, ",
        "json" => "len, ",
        "timestamp" => "monotonic, step, ",
        "enum" => "values, ",
        _ => "",
    };
    format!("{own}nulls, distinct, zipf")
}

fn parse_len(value: &str) -> Option<(u32, u32)> {
    let (min, max) = match value.split_once("..") {
        Some((a, b)) => (a.parse().ok()?, b.parse().ok()?),
        None => value.parse().ok().map(|n| (n, n))?,
    };
    (min <= max).then_some((min, max))
}

fn parse_buckets(value: &str) -> Option<Vec<(u32, f64)>> {
    let buckets: Option<Vec<(u32, f64)>> = value
        .split(',')
        .map(|b| {
            let (len, weight) = b.split_once(':')?;
            let weight: f64 = weight.parse().ok()?;
            (weight.is_finite() && weight >= 0.0).then_some((len.parse().ok()?, weight))
        })
        .collect();
    buckets.filter(|b| b.iter().any(|(_, w)| *w > 0.0))
}

fn parse_duration_us(value: &str) -> Option<u64> {
    let split = value.find(|c: char| !c.is_ascii_digit())?;
    let (number, unit) = value.split_at(split);
    let scale: u64 = match unit {
        "us" => 1,
        "ms" => 1_000,
        "s" => 1_000_000,
        "m" => 60_000_000,
        "h" => 3_600_000_000,
        "d" => 86_400_000_000,
        _ => return None,
    };
    number.parse::<u64>().ok()?.checked_mul(scale)
}

fn split_list(value: &str) -> Option<Vec<String>> {
    let items: Vec<String> = value.split('|').map(str::to_string).collect();
    items.iter().all(|s| !s.is_empty()).then_some(items)
}
