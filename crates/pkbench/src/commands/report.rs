//! `pkbench report`: render one or more results files as a self-contained HTML page (or
//! Markdown with its key chart beside it), comparing runs when given several.

use crate::output::say;
use anyhow::Context;
use clap::{Args, ValueEnum};
use pkbench_core::report::{
    JOURNAL_FILE, KEY_CHART_FILE, key_chart_svg, label_sources, load_results, recover, render_html, render_markdown,
};
use pkbench_core::util::folder::{self, write_atomically};
use pkbench_core::util::text::count;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum ReportFormat {
    /// One self-contained HTML page with charts.
    Html,
    /// Markdown; the key chart is written beside it as batch-times.svg.
    Md,
}

#[derive(Debug, Args)]
pub struct ReportArgs {
    /// results.json files written by `pkbench run` (or the results folders holding them);
    /// several are compared on the same charts.
    #[arg(required = true, value_name = "RESULTS.json|DIR")]
    pub files: Vec<PathBuf>,
    /// Output file [default: report.html, or report.md with --format md].
    #[arg(long, short = 'o')]
    pub out: Option<PathBuf>,
    /// Output format.
    #[arg(long, value_enum, default_value = "html")]
    pub format: ReportFormat,
}

/// Reads every results file (one-line errors name the file and the problem), renders, writes.
pub fn report(mut args: ReportArgs) -> anyhow::Result<ExitCode> {
    // A results folder stands for the results.json in it, plus the batches its journal holds
    // when the run was killed before it could write them.
    let mut docs = Vec::new();
    let folders: Vec<String> =
        args.files.iter().filter(|f| is_plan_folder(f)).map(|f| f.display().to_string()).collect();
    for file in &mut args.files {
        if file.is_dir() {
            let dir = file.clone();
            *file = dir.join("results.json");
            if let Some(doc) = recover(&dir)? {
                let (strategy, batches, phases) =
                    doc.runs.last().map(|r| (r.strategy.clone(), r.batches.len(), r.phases.len())).unwrap_or_default();
                let what = if phases > 0 { count(phases, "phase") } else { count(batches, "batch") };
                say!("{}: the run was killed; {what} of '{strategy}' recovered from its {JOURNAL_FILE}", dir.display());
                docs.push(doc);
                continue;
            }
            if !file.is_file() && is_plan_folder(&dir) {
                anyhow::bail!(
                    "'{}' holds a plan's cases (case-NNN folders), not one run: merge the plan's folders first (pkbench plan merge {} -o merged), then pkbench report merged",
                    dir.display(),
                    folders.join(" ")
                );
            }
            if !file.is_file() {
                anyhow::bail!(
                    "'{}' is a folder without a results.json: give a pkbench results folder or file",
                    dir.display()
                );
            }
        }
        docs.push(load_results(file)?);
    }
    let out = args
        .out
        .clone()
        .unwrap_or_else(|| PathBuf::from(if args.format == ReportFormat::Md { "report.md" } else { "report.html" }));
    if args.files.iter().any(|f| same_file(f, &out)) {
        anyhow::bail!("'{}' is one of the results files: pass another --out", out.display());
    }
    let sources = label_sources(&args.files, docs);
    let text = match args.format {
        ReportFormat::Html => render_html(&sources),
        ReportFormat::Md => render_markdown(&sources)?,
    };
    let dir = out.parent().filter(|p| !p.as_os_str().is_empty()).unwrap_or(Path::new("."));
    if !dir.exists() {
        // A folder report creates is its own: its manifest lists the report's files.
        folder::create(dir).with_context(|| format!("could not create the folder '{}'", dir.display()))?;
    }
    // Whole or not at all: a full disk leaves an earlier report as it was, and no empty file.
    write_atomically(&out, text.as_bytes())?;
    if args.format == ReportFormat::Md
        && let Some(svg) = key_chart_svg(&sources)
    {
        let path = dir.join(KEY_CHART_FILE);
        write_atomically(&path, svg.as_bytes())?;
    }
    // The whole path: without -o the report goes to the current folder, not beside the results.
    say!("Report written to {}", std::path::absolute(&out).unwrap_or(out).display());
    Ok(ExitCode::SUCCESS)
}

fn same_file(a: &Path, b: &Path) -> bool {
    match (std::fs::canonicalize(a), std::fs::canonicalize(b)) {
        (Ok(a), Ok(b)) => a == b,
        _ => false,
    }
}

/// Whether `dir` is a plan's folder (or one shard's): its `plan.toml` and `case-NNN` folders.
fn is_plan_folder(dir: &Path) -> bool {
    dir.join("plan.toml").is_file()
        || std::fs::read_dir(dir).is_ok_and(|entries| {
            entries.filter_map(Result::ok).any(|e| e.file_name().to_string_lossy().starts_with("case-"))
        })
}
