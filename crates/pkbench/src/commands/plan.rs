//! Plans: `pkbench plan show PLAN.toml` lists the cases, `pkbench run --plan PLAN.toml` runs
//! them one after another, each into its own folder with the plan file beside them. Every case's
//! settings go through the same parser and checks as typed flags, all before anything runs.

use crate::cli::{CaseOrder, RunArgs, RunOptions};
use crate::output::{out, say};
use anyhow::Context;
use clap::Args;
use pkbench_core::compare::{compare, percent, render};
use pkbench_core::config::setting::parse;
use pkbench_core::config::{RunConfig, RunSettings, Setting};
use pkbench_core::plan::{Case, Plan, key_position, shard};
use pkbench_core::report::{ResultsWriter, load_results};
use pkbench_core::util::folder::{self, write_atomically};
use pkbench_core::util::input::{InputKind, read_bytes, read_text};
use pkbench_core::util::pick::Pick;
use pkbench_core::util::text::count;
use pkbench_core::util::time::folder_stamp_now;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

#[derive(Debug, Args)]
pub struct PlanArgs {
    /// `show PLAN.toml`: list the plan's cases with the `pkbench run` flags of each.
    /// `merge DIR…`: join the folders of a plan's shards (`run --plan … --shard K/N -o DIR`) into
    /// one results folder (-o), refusing folders of different plans and naming missing or
    /// duplicate cases.
    #[arg(value_parser = ["show", "merge"])]
    pub action: String,
    /// The plan file (show), or the plan's results folders (merge).
    #[arg(required = true, value_name = "PLAN.toml|DIR")]
    pub paths: Vec<PathBuf>,
    /// merge: the results folder to write [default: ./pkbench-results/<timestamp>-merged].
    #[arg(long, short = 'o')]
    pub out: Option<PathBuf>,
}

/// Reads and expands `file`, and reads and checks every case's settings (its SQLite databases
/// and results to go to `<out>/case-NNN`), before anything runs.
fn load(file: &Path, out: &Path) -> anyhow::Result<(String, Vec<(Case, RunConfig)>)> {
    let text = read_text(file, InputKind::Plan)?;
    let cases = load_text(file, &text, out)?;
    Ok((text, cases))
}

/// [`load`] of the plan `text` read from `file`.
fn load_text(file: &Path, text: &str, out: &Path) -> anyhow::Result<Vec<(Case, RunConfig)>> {
    let plan = Plan::parse(text, file)?;
    let cases = plan.cases();
    if cases.is_empty() {
        anyhow::bail!("{}: every case is excluded: remove an [[exclude]] or add axis values", file.display());
    }
    cases
        .into_iter()
        .map(|case| {
            let at = |key: &str, message: &str| {
                let (line, col) = key_position(text, key).unwrap_or((0, 0));
                anyhow::anyhow!("{}:{line}:{col}: case {} ({}): {message}", file.display(), case.number, case.label)
            };
            let settings = case_settings(&case).map_err(|(key, message)| at(&key, &message))?;
            // The checks `run` makes before it creates a file (strategies the engine lacks,
            // settings the workload refuses), pointed at the key whose value the message names.
            match RunConfig::new(settings, &out.join(case_folder(&case))) {
                Ok(config) => Ok((case, config)),
                Err(e) => {
                    let message = e.to_string();
                    let key = case
                        .settings
                        .iter()
                        .find(|(_, v)| !v.is_empty() && message.contains(v.as_str()))
                        .map_or("", |(k, _)| k.as_str());
                    Err(at(key, &message))
                }
            }
        })
        .collect()
}

/// A case's settings, read as typed flags are; an error names the key it is about.
fn case_settings(case: &Case) -> Result<RunSettings, (String, String)> {
    let mut settings = RunSettings::default();
    for (key, value) in &case.settings {
        if key == "quiet" {
            // A plan may quieten its cases: `quiet = true` is `-q` for each (see `case_options`).
            parse::switch(value).map_err(|e| (key.clone(), format!("invalid value '{value}' for '--{key}': {e}")))?;
            continue;
        }
        let Some(setting) = Setting::from_key(key) else {
            let message = if RunOptions::BESIDE_A_PLAN.contains(&key.as_str()) {
                format!("'{key}' is given on the command line beside --plan (--{key}), not in the plan")
            } else {
                format!("unexpected argument '--{key}': not a `pkbench run` setting (see pkbench run --help)")
            };
            return Err((key.clone(), message));
        };
        settings
            .set(setting, value)
            .map_err(|e| (key.clone(), format!("invalid value '{value}' for '{}': {e}", setting.flag())))?;
    }
    Ok(settings)
}

/// The run options of a case: the command line's, quiet also where the plan says `quiet = true`.
fn case_options(args: &RunOptions, case: &Case) -> RunOptions {
    let quiet = case.settings.iter().any(|(k, v)| k == "quiet" && v == "true");
    RunOptions { quiet: args.quiet || quiet, ..args.clone() }
}

/// A case's results folder under the plan's.
fn case_folder(case: &Case) -> String {
    format!("case-{:03}", case.number)
}

/// The positions of shard `k` of `n`'s cases, balanced by an estimate of each case's cost.
fn shard_of(cases: &[(Case, RunConfig)], k: usize, n: usize) -> Vec<usize> {
    let plain: Vec<Case> = cases.iter().map(|(c, _)| c.clone()).collect();
    shard(&plain, k, n, |c: &Case| cases[c.number - 1].1.cost())
}

/// `pkbench plan show` and `pkbench plan merge`.
pub fn plan(args: PlanArgs) -> anyhow::Result<ExitCode> {
    if args.action == "merge" {
        return merge(&args.paths, args.out.as_deref());
    }
    let [file] = args.paths.as_slice() else { anyhow::bail!("plan show takes one plan file") };
    let (_, cases) = load(file, &default_plan_dir())?;
    let mut text = format!("{} in {}\n", count(cases.len(), "case"), file.display());
    // The estimate `--shard` balances: rows inserted (ten thousand a second of a timed case).
    let total: f64 = cases.iter().map(|(_, config)| config.cost()).sum();
    for (case, config) in &cases {
        text.push_str(&format!(
            "case {:>3}  {}  [cost {} rows, {:.0}%]\n          pkbench run {}\n",
            case.number,
            case.label,
            short(config.cost()),
            100.0 * config.cost() / total.max(1.0),
            case.args().join(" ")
        ));
    }
    text.push_str(&format!("Estimated cost: {} rows in all (what --shard K/N deals out evenly)\n", short(total)));
    out!("{text}")?;
    Ok(ExitCode::SUCCESS)
}

/// `pkbench run --plan`: every case, in order, into `<out>/case-NNN`; stops at the first case that
/// fails (the folders of the cases before it stay; a plan that measured nothing leaves no folder).
pub fn run_plan(RunArgs { settings, options: args }: RunArgs) -> anyhow::Result<ExitCode> {
    let file = args.plan.clone().context("no plan")?;
    if let Some(setting) = settings.given().first() {
        anyhow::bail!("{} cannot be given beside --plan: put it in the plan's [run] table", setting.flag());
    }
    let dir = args.out.clone().unwrap_or_else(default_plan_dir);
    let (text, mut cases) = load(&file, &dir)?;
    if let Some((k, n)) = args.shard {
        let keep = shard_of(&cases, k, n);
        say!(
            "Shard {k}/{n}: {} {}",
            if keep.len() == 1 { "case" } else { "cases" },
            keep.iter().map(|i| cases[*i].0.number.to_string()).collect::<Vec<_>>().join(", ")
        );
        cases = cases.into_iter().enumerate().filter(|(i, _)| keep.contains(i)).map(|(_, c)| c).collect();
    }
    let kept = dir.join("plan.toml");
    // A new run of the plan takes a new or empty folder (--force: replaces an earlier pkbench
    // folder); --resume goes on in the folder as it is.
    let text = text.into_bytes();
    let prepared = match read_bytes(&kept, InputKind::Plan) {
        Ok(earlier) if earlier != text && !args.force => anyhow::bail!(
            "{} holds the results of another plan: give a new -o folder (or --force to replace them)",
            dir.display()
        ),
        Ok(_) if !args.resume && !args.force => anyhow::bail!(
            "{} holds an earlier run of this plan: add --resume to finish it, or --force to run it again",
            dir.display()
        ),
        Ok(earlier) if args.resume && earlier == text => None,
        Err(_) if args.resume => {
            anyhow::bail!("--resume needs the -o folder of an earlier run of this plan; {} has none", dir.display())
        }
        _ => Some(super::out_dir::prepare(&dir, args.force)?),
    };
    let result = run_cases(&dir, &text, cases, &args);
    if let Some(prepared) = prepared
        && !result.as_ref().is_ok_and(|code| *code == ExitCode::SUCCESS)
    {
        prepared.discard_unless_measured();
    }
    result
}

/// The plan's cases (and the drift check) in its folder `dir`, the plan's `text` kept there.
fn run_cases(
    dir: &Path,
    text: &[u8],
    mut cases: Vec<(Case, RunConfig)>,
    args: &RunOptions,
) -> anyhow::Result<ExitCode> {
    folder::create(dir).with_context(|| format!("could not create {}", dir.display()))?;
    write_atomically(&dir.join("plan.toml"), text)
        .with_context(|| format!("could not copy the plan into {}", dir.display()))?;
    if let CaseOrder::Shuffle(seed) = args.order {
        let mut pick = Pick(seed);
        // Fisher–Yates, seeded: the same plan and seed give the same order on every machine.
        for i in (1..cases.len()).rev() {
            cases.swap(i, pick.below(i + 1));
        }
        let order: Vec<String> = cases.iter().map(|(c, _)| c.number.to_string()).collect();
        say!("Cases in shuffled order: {}", order.join(", "));
    }
    let first = cases.first().map(|(c, _)| c.clone());
    let total = cases.len();
    for (i, (case, config)) in cases.into_iter().enumerate() {
        let out = dir.join(case_folder(&case));
        if args.resume && complete(&out) {
            say!("Plan case {} ({} of {total}): done before, skipped", case.number, i + 1);
            continue;
        }
        say!("Plan case {} ({} of {total}): {}", case.number, i + 1, case.label);
        if args.resume && out.exists() {
            // What an unfinished run of this plan left in its own case folder (a journal, partial
            // files) is pkbench's: the case starts over. Anything else there stops the plan.
            folder::clear(&out)?;
        }
        let code = super::run::execute(config, &case_options(args, &case))?;
        if code != ExitCode::SUCCESS {
            return Ok(code);
        }
    }
    if let (true, Some(case)) = (args.drift_check, first) {
        drift_check(dir, &case, args)?;
    }
    say!("Plan done: {} in {}", count(total, "case"), dir.display());
    Ok(ExitCode::SUCCESS)
}

/// Runs the plan's first case again into `dir/drift-check` and compares it with its first run;
/// the comparison goes to `dir/drift-check.md` and a change beyond the noise is said.
fn drift_check(dir: &Path, case: &Case, options: &RunOptions) -> anyhow::Result<()> {
    let first = dir.join(case_folder(case));
    let second = dir.join("drift-check");
    if second.exists() {
        folder::clear(&second)?;
    }
    say!("Drift check: case {} again", case.number);
    let again = case_settings(case).map_err(|(_, message)| anyhow::anyhow!(message))?;
    let code = super::run::execute(RunConfig::new(again, &second)?, &case_options(options, case))?;
    if code != ExitCode::SUCCESS {
        anyhow::bail!("the drift check's run of case {} failed", case.number);
    }
    let changes = compare(&load_results(&first.join("results.json"))?, &load_results(&second.join("results.json"))?)?;
    write_atomically(&dir.join("drift-check.md"), render(&changes, true).as_bytes())
        .context("could not write drift-check.md")?;
    for c in changes.iter().filter(|c| c.verdict != "no detectable change") {
        say!(
            "Drift: case {} ({}) ran {} at the end than at the start ({} … {}): the machine's speed moved while the plan ran; differences between cases of that size are not the keys'",
            case.number,
            c.strategy,
            percent(c.ratio),
            percent(c.low),
            percent(c.high)
        );
    }
    Ok(())
}

/// Whether a case's folder holds finished results: a results.json whose every run completed.
fn complete(dir: &Path) -> bool {
    match load_results(&dir.join("results.json")) {
        Ok(doc) => !doc.runs.is_empty() && doc.runs.iter().all(|r| r.complete),
        Err(_) => false,
    }
}

/// `pkbench plan merge`: every case of the plan, from whichever folder holds it finished.
fn merge(dirs: &[PathBuf], out: Option<&Path>) -> anyhow::Result<ExitCode> {
    let plan_of = |dir: &Path| read_bytes(&dir.join("plan.toml"), InputKind::Plan).ok();
    let first = &dirs[0];
    let text = plan_of(first)
        .with_context(|| format!("{} holds no plan.toml: give the -o folders of `run --plan`", first.display()))?;
    for dir in &dirs[1..] {
        if plan_of(dir).as_deref() != Some(text.as_slice()) {
            anyhow::bail!(
                "{} is not a folder of the same plan as {}: merge the shards of one plan",
                dir.display(),
                first.display()
            );
        }
    }
    let (_, cases) = load(&first.join("plan.toml"), first)?;
    let mut found: Vec<Option<(PathBuf, pkbench_core::results::ResultsDoc)>> = vec![None; cases.len()];
    for dir in dirs {
        for (case, _) in &cases {
            let folder = dir.join(case_folder(case));
            if !complete(&folder) {
                continue;
            }
            let slot = &mut found[case.number - 1];
            if let Some((other, _)) = slot {
                anyhow::bail!(
                    "case {} is in both {} and {}: merge each case once",
                    case.number,
                    other.display(),
                    dir.display()
                );
            }
            *slot = Some((dir.clone(), load_results(&folder.join("results.json"))?));
        }
    }
    let missing: Vec<String> =
        found.iter().enumerate().filter(|(_, f)| f.is_none()).map(|(i, _)| (i + 1).to_string()).collect();
    if !missing.is_empty() {
        let (which, have) = if missing.len() == 1 { ("case", "has") } else { ("cases", "have") };
        anyhow::bail!(
            "{which} {} of {} {have} no finished results in these folders: run their shards (or --resume them) first",
            missing.join(", "),
            cases.len()
        );
    }
    let mut docs = found.into_iter().flatten().map(|(_, d)| d);
    let mut merged = docs.next().context("the plan has no case")?;
    for doc in docs {
        merged.runs.extend(doc.runs);
    }
    merged.command = std::env::args().collect();
    let dir = out
        .map(Path::to_path_buf)
        .unwrap_or_else(|| PathBuf::from("pkbench-results").join(format!("{}-merged", folder_stamp_now())));
    super::out_dir::prepare(&dir, false)?;
    let writer = ResultsWriter::create(&dir)?;
    writer.write(&merged)?;
    write_atomically(&dir.join("plan.toml"), &text).with_context(|| format!("could not write {}", dir.display()))?;
    say!("Merged {} ({}) into {}", count(cases.len(), "case"), count(merged.runs.len(), "run"), dir.display());
    Ok(ExitCode::SUCCESS)
}

/// A plan's results folder when no -o is given.
fn default_plan_dir() -> PathBuf {
    PathBuf::from("pkbench-results").join(format!("{}-plan", folder_stamp_now()))
}

/// A row count in short form: 950, 12k, 3.5M, 1.25G.
fn short(rows: f64) -> String {
    let (value, unit) = match rows {
        r if r >= 1e9 => (r / 1e9, "G"),
        r if r >= 1e6 => (r / 1e6, "M"),
        r if r >= 1e3 => (r / 1e3, "k"),
        r => (r, ""),
    };
    let text = format!("{value:.2}");
    format!("{}{unit}", text.trim_end_matches('0').trim_end_matches('.'))
}
