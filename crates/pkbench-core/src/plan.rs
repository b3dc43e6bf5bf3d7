//! A whole benchmark in one file (`pkbench run --plan plan.toml`, `pkbench plan show`): fixed
//! `run` settings, axes whose lists multiply into cases, and combinations to leave out.
//!
//! ```toml
//! [run]                       # every case: any `pkbench run` flag, as `name = value`
//! engine = "postgres"
//! rows = "1M"
//!
//! [axes]                      # lists: the plan is their product
//! strategies = ["int,uuid7,uuid4", "uuid4-text"]
//! cache_mb = [8, 64]
//!
//! [[exclude]]                 # a case matching every key of one table is left out
//! cache_mb = 8
//! strategies = "uuid4-text"
//! ```
//!
//! Keys are `run` flags without their dashes (`cache_mb` or `cache-mb` for `--cache-mb`); `true`
//! sets a switch, `false` leaves it off. This module only expands the file; the command line
//! checks every case's flags as it checks typed ones, before anything runs.

use crate::Error;
use std::path::Path;
use toml::Value;

/// The most cases a plan may have (before its `[[exclude]]`s).
pub const MAX_CASES: usize = 10_000;

/// A parsed plan.
#[derive(Clone, Debug, PartialEq)]
pub struct Plan {
    /// Settings of every case, in file order.
    pub fixed: Vec<(String, Value)>,
    /// Axes, in file order, each with its values.
    pub axes: Vec<(String, Vec<Value>)>,
    /// Combinations left out.
    pub exclude: Vec<Vec<(String, Value)>>,
}

/// One case of a plan: its number (from 1) and its settings, as `run` flag names and values.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Case {
    /// 1-based position among the plan's cases.
    pub number: usize,
    /// `(flag, value)`: the flag's long name (`cache-mb`), the value as text (`true`/`false`
    /// for switches).
    pub settings: Vec<(String, String)>,
    /// The axes' values that make this case, `name=value` (for its folder and its label).
    pub label: String,
}

impl Plan {
    /// Parses the plan in `text` (read from `file`); a syntax error names `file:line:column`.
    pub fn parse(text: &str, file: &Path) -> Result<Plan, Error> {
        let doc: toml::Table = text.parse().map_err(|e: toml::de::Error| {
            let (line, col) = e.span().map_or((0, 0), |s| line_col(text, s.start));
            let message = e.message().lines().map(str::trim).collect::<Vec<_>>().join("; ");
            Error::InvalidInput(format!("{}:{line}:{col}: {message}", file.display()))
        })?;
        let bad_at = |key: &str, what: &str| {
            let (line, col) = key_position(text, key).unwrap_or((0, 0));
            Error::InvalidInput(format!("{}:{line}:{col}: {what}", file.display()))
        };
        let bad = |what: &str| Error::InvalidInput(format!("{}: {what}", file.display()));
        let mut plan = Plan { fixed: Vec::new(), axes: Vec::new(), exclude: Vec::new() };
        for (section, value) in doc {
            match (section.as_str(), value) {
                ("run", Value::Table(t)) => plan.fixed.extend(t.into_iter().map(|(k, v)| (flag_name(&k), v))),
                ("axes", Value::Table(t)) => {
                    for (k, v) in t {
                        let Value::Array(values) = v else {
                            return Err(bad_at(&k, &format!("axis '{k}' must be a list, e.g. {k} = [8, 64]")));
                        };
                        if values.is_empty() {
                            return Err(bad_at(&k, &format!("axis '{k}' is empty: give at least one value")));
                        }
                        plan.axes.push((flag_name(&k), values));
                    }
                }
                ("exclude", Value::Array(tables)) => {
                    for t in tables {
                        let Value::Table(t) = t else { return Err(bad("each [[exclude]] must be a table")) };
                        plan.exclude.push(t.into_iter().map(|(k, v)| (flag_name(&k), v)).collect());
                    }
                }
                (other, _) => {
                    return Err(bad_at(
                        other,
                        &format!("unknown section '{other}': a plan has [run], [axes] and [[exclude]]"),
                    ));
                }
            }
        }
        if plan.fixed.is_empty() && plan.axes.is_empty() {
            // Not one setting: its single case would be the default benchmark, which nobody wrote.
            return Err(bad("the plan has no cases: add a [run] table of settings and [axes] to vary"));
        }
        let product = plan.axes.iter().fold(1usize, |n, (_, values)| n.saturating_mul(values.len()));
        if product > MAX_CASES {
            // Each case is a benchmark run: a product this large is a mistake, and listing it
            // would not fit in memory.
            return Err(bad(&format!(
                "the axes make {product} combinations, more than the {MAX_CASES} cases a plan may have: split it into several plans"
            )));
        }
        for (axis, _) in &plan.axes {
            if plan.fixed.iter().any(|(k, _)| k == axis) {
                return Err(bad(&format!("'{axis}' is both in [run] and an axis: keep one")));
            }
        }
        Ok(plan)
    }

    /// Every case: the product of the axes in file order (the last axis varies fastest), less
    /// the excluded combinations.
    pub fn cases(&self) -> Vec<Case> {
        let mut combos: Vec<Vec<(String, Value)>> = vec![Vec::new()];
        for (axis, values) in &self.axes {
            combos = combos
                .into_iter()
                .flat_map(|c| {
                    values.iter().map(move |v| {
                        let mut c = c.clone();
                        c.push((axis.clone(), v.clone()));
                        c
                    })
                })
                .collect();
        }
        let excluded = |combo: &[(String, Value)]| {
            self.exclude.iter().any(|ex| {
                ex.iter().all(|(k, v)| combo.iter().chain(&self.fixed).any(|(ck, cv)| ck == k && text(cv) == text(v)))
            })
        };
        combos
            .into_iter()
            .filter(|c| !excluded(c))
            .enumerate()
            .map(|(i, combo)| Case {
                number: i + 1,
                label: if combo.is_empty() {
                    "the [run] settings".to_string()
                } else {
                    combo.iter().map(|(k, v)| format!("{k}={}", text(v))).collect::<Vec<_>>().join(" ")
                },
                settings: self.fixed.iter().chain(&combo).map(|(k, v)| (k.clone(), text(v))).collect(),
            })
            .collect()
    }
}

/// Which cases shard `k` of `n` (1-based) runs: the cases are dealt out by estimated cost,
/// largest first, each to the shard with the least cost so far (ties to the lowest shard), so
/// every machine given the same plan and `n` computes the same split and the shards take about
/// the same time. `cost` estimates a case's cost (e.g. rows × strategies).
pub fn shard(cases: &[Case], k: usize, n: usize, cost: impl Fn(&Case) -> f64) -> Vec<usize> {
    let mut order: Vec<(usize, f64)> = cases.iter().enumerate().map(|(i, c)| (i, cost(c))).collect();
    order.sort_by(|a, b| b.1.total_cmp(&a.1).then(a.0.cmp(&b.0)));
    let mut load = vec![0.0_f64; n.max(1)];
    let mut mine = Vec::new();
    for (i, c) in order {
        let target = (0..load.len()).min_by(|&a, &b| load[a].total_cmp(&load[b]).then(a.cmp(&b))).unwrap_or(0);
        load[target] += c;
        if target + 1 == k {
            mine.push(i);
        }
    }
    mine.sort_unstable();
    mine
}

impl Case {
    /// The `pkbench run` arguments of this case (after `run`): `--flag value`, or `--flag` for a
    /// switch set to true.
    pub fn args(&self) -> Vec<String> {
        let mut out = Vec::new();
        for (flag, value) in &self.settings {
            match value.as_str() {
                "true" => out.push(format!("--{flag}")),
                "false" => {}
                _ => out.extend([format!("--{flag}"), value.clone()]),
            }
        }
        out
    }
}

/// The 1-based line and column where `key` (a flag name; `_` and `-` alike) is first set
/// (`key =`) or opens a table (`[key]`, `[[key]]`) in the plan `text`.
pub fn key_position(text: &str, key: &str) -> Option<(usize, usize)> {
    let mut start = 0;
    for line in text.lines() {
        let t = line.trim_start();
        let name: String =
            t.trim_start_matches('[').chars().take_while(|c| c.is_alphanumeric() || *c == '_' || *c == '-').collect();
        let rest = t.trim_start_matches('[')[name.len()..].trim_start();
        if flag_name(&name) == flag_name(key) && (rest.starts_with('=') || rest.starts_with(']')) {
            return Some(line_col(text, start + (line.len() - t.len())));
        }
        start += line.len() + 1;
    }
    None
}

/// `cache_mb` → `cache-mb`.
fn flag_name(key: &str) -> String {
    key.replace('_', "-")
}

/// A value as the command line would take it.
fn text(v: &Value) -> String {
    match v {
        Value::String(s) => s.clone(),
        Value::Array(items) => items.iter().map(text).collect::<Vec<_>>().join(","),
        other => other.to_string(),
    }
}

/// 1-based line and column of byte `offset` in `text`.
fn line_col(text: &str, offset: usize) -> (usize, usize) {
    let before = &text[..offset.min(text.len())];
    let line = before.matches('\n').count() + 1;
    let col = before.rsplit('\n').next().map_or(0, |l| l.chars().count()) + 1;
    (line, col)
}

#[cfg(test)]
mod tests {
    use super::*;

    const PLAN: &str = r#"
[run]
engine = "sqlite"
rows = "10k"
presort = true

[axes]
strategies = ["int,uuid4", "uuid7"]
cache_mb = [1, 8]

[[exclude]]
strategies = "uuid7"
cache-mb = 1
"#;

    #[test]
    fn axes_multiply_and_excludes_leave_out_their_combination() {
        let plan = Plan::parse(PLAN, Path::new("p.toml")).unwrap();
        let cases = plan.cases();
        let labels: Vec<&str> = cases.iter().map(|c| c.label.as_str()).collect();
        assert_eq!(
            labels,
            ["strategies=int,uuid4 cache-mb=1", "strategies=int,uuid4 cache-mb=8", "strategies=uuid7 cache-mb=8"]
        );
        assert_eq!(cases[2].number, 3);
        assert_eq!(
            cases[0].args(),
            ["--engine", "sqlite", "--rows", "10k", "--presort", "--strategies", "int,uuid4", "--cache-mb", "1"]
        );
    }

    #[test]
    fn shards_split_every_case_once_and_balance_their_cost() {
        let plan = Plan::parse("[axes]\nrows = [1, 2, 3, 4, 5, 6, 7]\n", Path::new("p.toml")).unwrap();
        let cases = plan.cases();
        let cost = |c: &Case| c.settings[0].1.parse::<f64>().unwrap();
        let shards: Vec<Vec<usize>> = (1..=3).map(|k| shard(&cases, k, 3, cost)).collect();
        let mut all: Vec<usize> = shards.concat();
        all.sort_unstable();
        assert_eq!(all, (0..7).collect::<Vec<_>>(), "each case exactly once: {shards:?}");
        let loads: Vec<f64> = shards.iter().map(|s| s.iter().map(|&i| cost(&cases[i])).sum()).collect();
        assert_eq!(loads, [10.0, 9.0, 9.0], "7+2+1, 6+3, 5+4");
    }

    #[test]
    fn errors_name_the_file_line_and_column_or_what_to_change() {
        let err = Plan::parse("[run]\nrows = \n", Path::new("p.toml")).unwrap_err().to_string();
        assert!(err.contains("p.toml:2:8"), "{err}");
        let err = Plan::parse("[axes]\ncache_mb = 8\n", Path::new("p.toml")).unwrap_err().to_string();
        assert!(err.contains("p.toml:2:1: axis 'cache_mb' must be a list"), "{err}");
        let err = Plan::parse("\n[cases]\n", Path::new("p.toml")).unwrap_err().to_string();
        assert!(err.contains("p.toml:2:1: unknown section 'cases'"), "{err}");
        assert_eq!(key_position("[run]\n  cache-mb = 8\n", "cache_mb"), Some((2, 3)));
        assert_eq!(key_position("[run]\nrows = 8\n", "batch"), None);
        let err = Plan::parse("[run]\nrows = 1\n[axes]\nrows = [1, 2]\n", Path::new("p.toml")).unwrap_err().to_string();
        assert!(err.contains("both in [run] and an axis"), "{err}");
    }

    #[test]
    fn a_plan_that_sets_nothing_has_no_cases() {
        for empty in ["", "# nothing\n", "[run]\n", "[run]\n[axes]\n", "[[exclude]]\nrows = 1\n"] {
            let err = Plan::parse(empty, Path::new("p.toml")).unwrap_err().to_string();
            assert_eq!(
                err, "p.toml: the plan has no cases: add a [run] table of settings and [axes] to vary",
                "{empty:?}"
            );
        }
        assert_eq!(Plan::parse("[run]\nrows = 1\n", Path::new("p.toml")).unwrap().cases().len(), 1);
        // 2^40 cases would never be listed, let alone run.
        let axes: String = (0..40).map(|i| format!("a{i} = [1, 2]\n")).collect();
        let err = Plan::parse(&format!("[axes]\n{axes}"), Path::new("p.toml")).unwrap_err().to_string();
        assert!(err.contains("the axes make 1099511627776 combinations, more than the 10000"), "{err}");
    }
}
