//! Help in two lengths: `-h` a one-line summary per common flag under its heading, short enough
//! to read without scrolling; `--help` every flag with its whole text.

use pkbench_core::config::Setting;
use std::process::Command;

/// Every subcommand with flags of its own.
const SUBCOMMANDS: [&[&str]; 11] = [
    &["run"],
    &["list"],
    &["ids", "gen"],
    &["ids", "inspect"],
    &["ids", "bench"],
    &["report"],
    &["plan"],
    &["compare"],
    &["doctor"],
    &["predict"],
    &["schema"],
];

fn help(args: &[&str], flag: &str) -> String {
    let out = Command::new(env!("CARGO_BIN_EXE_pkbench")).args(args).arg(flag).output().expect("pkbench runs");
    assert!(out.status.success(), "pkbench {args:?} {flag}: {}", String::from_utf8_lossy(&out.stderr));
    String::from_utf8(out.stdout).expect("UTF-8 help")
}

/// Runs of whitespace as one space, as help text reads once clap has laid it out.
fn squeezed(text: &str) -> String {
    text.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// The flag a help line starts with (`--rows` of `  -n, --rows <N>  Rows…`), if it starts with one:
/// flags are indented by at most six columns, the lists of their values further.
fn flag_of(line: &str) -> Option<&str> {
    let text = line.trim_start();
    if line.len() - text.len() > 6 {
        return None;
    }
    let bytes = text.as_bytes();
    let long = match bytes {
        [b'-', c, b',', b' ', ..] if *c != b'-' => &text[4..],
        _ => text,
    };
    long.starts_with("--").then(|| long.split([' ', '=']).next().unwrap_or(long))
}

#[test]
fn run_short_help_fits_a_screen_with_one_line_per_flag() {
    let short = help(&["run"], "-h");
    let lines: Vec<&str> = short.lines().collect();
    assert!(lines.len() <= 60, "`run -h` is {} lines:\n{short}", lines.len());
    for heading in ["Input:", "Size:", "Keys:", "Engine:", "Server:", "Output:"] {
        assert!(lines.contains(&heading), "no '{heading}' heading:\n{short}");
    }
    for line in lines.iter().filter(|l| flag_of(l).is_some()) {
        // The flag and its summary on one line, within the 100 columns clap lays help out in.
        assert!(line.trim_end().contains("  ") && line.len() <= 100, "not one line of ≤ 100 columns: {line:?}");
        let summary = line.trim().split("  ").last().unwrap_or_default();
        assert!(summary.len() >= 8, "no summary on {line:?}");
    }
    for setting in Setting::ALL {
        let listed = lines.iter().any(|l| flag_of(l) == Some(&setting.flag()));
        assert_eq!(listed, !setting.is_advanced(), "{} in `run -h`:\n{short}", setting.flag());
    }
}

#[test]
fn run_full_help_keeps_every_flag_with_its_whole_text() {
    let full = help(&["run"], "--help");
    let flat = squeezed(&full);
    for setting in Setting::ALL {
        assert!(full.lines().any(|l| flag_of(l) == Some(&setting.flag())), "{} missing:\n{full}", setting.flag());
        for paragraph in std::iter::once(setting.summary()).chain(setting.details()) {
            assert!(flat.contains(&squeezed(&paragraph)), "{}: '{paragraph}' missing from --help", setting.flag());
        }
        for name in setting.names() {
            assert!(flat.contains(&format!("- {}", name.name)), "{}: value {} missing", setting.flag(), name.name);
        }
    }
    let short = help(&["run"], "-h");
    for flag in short.lines().filter_map(flag_of) {
        assert!(full.lines().any(|l| flag_of(l) == Some(flag)), "{flag} is in -h but not in --help");
    }
}

/// Every subcommand's `--help` describes each of its flags, and its `-h` stays within a screen.
#[test]
fn every_subcommand_documents_every_flag() {
    for args in SUBCOMMANDS {
        let short = help(args, "-h");
        assert!(short.lines().count() <= 60, "`{args:?} -h` is {} lines:\n{short}", short.lines().count());
        let full = help(args, "--help");
        let lines: Vec<&str> = full.lines().collect();
        for (i, line) in lines.iter().enumerate() {
            if flag_of(line).is_none() || line.contains("--help") {
                continue;
            }
            let described = line.trim().contains("  ") || lines.get(i + 1).is_some_and(|next| !next.trim().is_empty());
            assert!(described, "{args:?}: {line:?} has no description:\n{full}");
        }
        for flag in short.lines().filter_map(flag_of) {
            assert!(lines.iter().any(|l| flag_of(l) == Some(flag)), "{args:?}: {flag} is in -h but not in --help");
        }
    }
}
