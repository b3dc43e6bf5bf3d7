//! Nothing of the user's is lost: `--force` removes only the files pkbench wrote (its
//! `.pkbench-manifest` lists them) and never the current folder; a start that measured nothing
//! leaves no folder; a closed or full standard error never stops a run; the report is written
//! whole or not at all.

use assert_cmd::Command;
use std::path::{Path, PathBuf};
use std::process::{Output, Stdio};

fn pkbench() -> Command {
    Command::cargo_bin("pkbench").expect("pkbench binary")
}

fn bin() -> PathBuf {
    assert_cmd::cargo::cargo_bin("pkbench")
}

/// A small SQLite run into `out` with `extra` flags.
fn run(out: &Path, extra: &[&str]) -> Output {
    pkbench().args(["run", "-s", "int", "-n", "2k", "-b", "1k", "-q", "-o"]).arg(out).args(extra).output().unwrap()
}

/// The command failed with exactly one `Error:` line on stderr, containing `needle`.
fn assert_refused(output: &Output, needle: &str) {
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(1), "{stderr}");
    let errors: Vec<&str> = stderr.lines().filter(|l| l.starts_with("Error:")).collect();
    assert_eq!(errors.len(), 1, "{stderr}");
    assert!(errors[0].contains(needle), "{stderr}");
}

/// Every file under `dir` with its bytes, sorted: what must not change.
fn snapshot(dir: &Path) -> Vec<(PathBuf, Vec<u8>)> {
    let mut files = Vec::new();
    let mut folders = vec![dir.to_path_buf()];
    while let Some(folder) = folders.pop() {
        for entry in std::fs::read_dir(&folder).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                folders.push(path);
            } else {
                files.push((path.strip_prefix(dir).unwrap().to_path_buf(), std::fs::read(&path).unwrap()));
            }
        }
    }
    files.sort();
    files
}

fn strategies(out: &Path) -> Vec<String> {
    let doc: serde_json::Value = serde_json::from_slice(&std::fs::read(out.join("results.json")).unwrap()).unwrap();
    doc["runs"].as_array().unwrap().iter().map(|r| r["strategy"].as_str().unwrap().to_string()).collect()
}

#[test]
fn force_refuses_a_folder_that_only_looks_like_results() {
    // Finding 1: a results.json was all --force looked for; it then removed the whole folder.
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("thesis");
    std::fs::create_dir_all(out.join("data")).unwrap();
    std::fs::write(out.join("results.json"), "{}").unwrap();
    std::fs::write(out.join("thesis.txt"), "three years of work").unwrap();
    std::fs::write(out.join("data/measurements.csv"), "a,b\n1,2\n").unwrap();
    let before = snapshot(&out);
    assert_refused(&run(&out, &["--force"]), "no .pkbench-manifest");
    assert_eq!(snapshot(&out), before, "every file still there, unchanged");
}

#[test]
fn force_refuses_a_results_folder_holding_a_file_of_the_users() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("out");
    assert!(run(&out, &[]).status.success());
    std::fs::create_dir(out.join("notes")).unwrap();
    std::fs::write(out.join("notes/what-i-saw.txt"), "uuid4 slows down").unwrap();
    std::fs::write(out.join("analysis.py"), "print(1)").unwrap();
    let before = snapshot(&out);
    let output = run(&out, &["--force"]);
    assert_refused(&output, "files pkbench did not write");
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(stderr.contains("analysis.py") && stderr.contains("notes"), "the message names them: {stderr}");
    assert_eq!(snapshot(&out), before, "nothing removed, pkbench's own files included");
}

#[test]
fn force_replaces_a_results_folder_pkbench_wrote() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("out");
    assert!(run(&out, &["--keep-db"]).status.success());
    assert!(out.join("int.sqlite").is_file());
    let output = pkbench()
        .args(["run", "-s", "uuid4", "-n", "2k", "-b", "1k", "-q", "--force", "-o"])
        .arg(&out)
        .output()
        .unwrap();
    assert!(output.status.success(), "{}", String::from_utf8_lossy(&output.stderr));
    assert_eq!(strategies(&out), ["uuid4"]);
    assert!(!out.join("int.sqlite").exists(), "the kept database was pkbench's: replaced with the rest");
    // A plan's folder, its case folders with it.
    let plan = dir.path().join("plan.toml");
    std::fs::write(&plan, "[run]\nrows = \"1k\"\nbatch = \"1k\"\n\n[axes]\nstrategies = [\"int\", \"uuid7\"]\n")
        .unwrap();
    let plan_out = dir.path().join("plan");
    let run_plan = || pkbench().args(["run", "-q", "--force", "--plan"]).arg(&plan).arg("-o").arg(&plan_out).output();
    assert!(run_plan().unwrap().status.success());
    std::fs::write(&plan, "[run]\nrows = \"1k\"\nbatch = \"1k\"\nstrategies = \"uuid4\"\n").unwrap();
    let output = run_plan().unwrap();
    assert!(output.status.success(), "{}", String::from_utf8_lossy(&output.stderr));
    assert!(plan_out.join("case-001").is_dir() && !plan_out.join("case-002").exists(), "the old cases went");
    assert_eq!(strategies(&plan_out.join("case-001")), ["uuid4"]);
    // A user's file in a case folder stops the whole replacement.
    std::fs::write(plan_out.join("case-001/mine.txt"), "x").unwrap();
    let before = snapshot(&plan_out);
    assert_refused(&run_plan().unwrap(), "mine.txt");
    assert_eq!(snapshot(&plan_out), before);
}

#[test]
fn force_never_empties_the_current_folder_or_one_holding_it() {
    // Finding 2: `-o . --force` emptied the current folder, then failed.
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("out");
    assert!(run(&out, &[]).status.success());
    let before = snapshot(&out);
    let output = pkbench()
        .current_dir(&out)
        .args(["run", "-s", "int", "-n", "2k", "-b", "1k", "-q", "--force", "-o", "."])
        .output()
        .unwrap();
    assert_refused(&output, "current folder");
    assert_eq!(snapshot(&out), before, "nothing removed");
    // From a case folder of a plan, the plan's folder holds the current one.
    let plan = dir.path().join("plan.toml");
    std::fs::write(&plan, "[run]\nrows = \"1k\"\nbatch = \"1k\"\nstrategies = \"int\"\n").unwrap();
    let plan_out = dir.path().join("plan");
    pkbench().args(["run", "-q", "--plan"]).arg(&plan).arg("-o").arg(&plan_out).assert().success();
    let before = snapshot(&plan_out);
    let output = pkbench()
        .current_dir(plan_out.join("case-001"))
        .args(["run", "-s", "int", "-n", "2k", "-b", "1k", "-q", "--force", "-o", ".."])
        .output()
        .unwrap();
    assert_refused(&output, "current folder");
    assert_eq!(snapshot(&plan_out), before);
}

#[test]
fn force_without_an_out_folder_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    for args in [
        vec!["run", "-s", "int", "-n", "1k", "-b", "1k", "--force"],
        vec!["predict", "-s", "int", "-n", "20k", "-b", "10k", "--force"],
    ] {
        let output = pkbench().current_dir(dir.path()).args(&args).output().unwrap();
        assert_eq!(output.status.code(), Some(2), "{args:?}");
        assert!(String::from_utf8_lossy(&output.stderr).contains("--out"), "{args:?}");
    }
    assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 0, "nothing written");
}

#[test]
fn a_predictions_folder_is_replaced_only_whole() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("p");
    let predict = |strategies: &str| {
        pkbench()
            .args(["predict", "-s", strategies, "-n", "20k", "-b", "10k", "-q", "--force", "-o"])
            .arg(&out)
            .output()
    };
    assert!(predict("int").unwrap().status.success());
    assert!(predict("uuid4").unwrap().status.success());
    assert_eq!(strategies(&out), ["uuid4"]);
    std::fs::write(out.join("mine.txt"), "x").unwrap();
    let before = snapshot(&out);
    assert_refused(&predict("uuid7").unwrap(), "mine.txt");
    assert_eq!(snapshot(&out), before);
}

#[test]
fn a_start_that_fails_leaves_no_folder() {
    let dir = tempfile::tempdir().unwrap();
    // Nothing listens on port 1: the run fails as it connects, after its folder was made.
    let refused = |out: &Path| {
        pkbench()
            .args(["run", "--engine", "postgres", "--url", "postgres://u@127.0.0.1:1/x", "-s", "int", "-q", "-o"])
            .arg(out)
            .output()
            .unwrap()
    };
    let out = dir.path().join("new");
    assert_refused(&refused(&out), "could not connect");
    assert!(!out.exists(), "a folder pkbench made and measured nothing in is gone");
    let empty = dir.path().join("empty");
    std::fs::create_dir(&empty).unwrap();
    assert_refused(&refused(&empty), "could not connect");
    assert_eq!(std::fs::read_dir(&empty).unwrap().count(), 0, "a folder that was there stays, empty");
    // A plan whose first case cannot start leaves no plan folder either.
    let plan = dir.path().join("plan.toml");
    std::fs::write(&plan, "[run]\nengine = \"postgres\"\nurl = \"postgres://u@127.0.0.1:1/x\"\nstrategies = \"int\"\n")
        .unwrap();
    let plan_out = dir.path().join("plan");
    let output = pkbench().args(["run", "-q", "--plan"]).arg(&plan).arg("-o").arg(&plan_out).output().unwrap();
    assert_refused(&output, "could not connect");
    assert!(!plan_out.exists());
}

/// A run's standard error into `stderr`, standard output nowhere: exit 0 and complete results.
fn assert_runs_to_completion_with_stderr(stderr: Stdio, out: &Path) {
    let status = std::process::Command::new(bin())
        .args(["run", "-s", "int,uuid4", "-n", "20k", "-b", "1k", "-o"])
        .arg(out)
        .stdout(Stdio::null())
        .stderr(stderr)
        .status()
        .unwrap();
    assert_eq!(status.code(), Some(0));
    let doc: serde_json::Value = serde_json::from_slice(&std::fs::read(out.join("results.json")).unwrap()).unwrap();
    let runs = doc["runs"].as_array().unwrap();
    assert_eq!(runs.len(), 2);
    assert!(runs.iter().all(|r| r["complete"] == true && r["batches"].as_array().unwrap().len() == 20));
    assert!(!out.join("journal.jsonl").exists());
}

#[test]
fn a_full_standard_error_never_stops_a_run() {
    // Finding 3: `2>/dev/full` ended the run at its first message (exit 101, only a journal).
    let dir = tempfile::tempdir().unwrap();
    let full = std::fs::OpenOptions::new().write(true).open("/dev/full").expect("/dev/full");
    assert_runs_to_completion_with_stderr(Stdio::from(full), &dir.path().join("out"));
}

#[test]
fn a_closed_standard_error_never_stops_a_run() {
    // `2>&1 | head -1`: the reader is gone after the first line; here before the first.
    let dir = tempfile::tempdir().unwrap();
    let (reader, writer) = std::io::pipe().unwrap();
    drop(reader);
    assert_runs_to_completion_with_stderr(Stdio::from(writer), &dir.path().join("out"));
}

#[test]
fn a_reader_that_stops_ends_ids_gen_as_it_ends_list() {
    for args in [vec!["list"], vec!["ids", "gen", "uuid7", "-n", "1M"]] {
        let mut child = std::process::Command::new(bin())
            .args(&args)
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        drop(child.stdout.take());
        let output = child.wait_with_output().unwrap();
        assert_eq!(output.status.code(), Some(141), "{args:?}: {}", String::from_utf8_lossy(&output.stderr));
        assert!(output.stderr.is_empty(), "{args:?}: {}", String::from_utf8_lossy(&output.stderr));
    }
}

#[test]
fn a_report_is_listed_in_the_folder_it_creates() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("out");
    assert!(run(&out, &[]).status.success());
    let report = dir.path().join("reports/cmp.md");
    pkbench().arg("report").arg(&out).args(["--format", "md", "-o"]).arg(&report).assert().success();
    let manifest = std::fs::read_to_string(dir.path().join("reports/.pkbench-manifest")).unwrap();
    assert!(manifest.lines().any(|l| l == "cmp.md") && manifest.lines().any(|l| l == "batch-times.svg"));
    // Written into a results folder, the report is pkbench's there too: --force replaces it.
    pkbench().arg("report").arg(&out).arg("-o").arg(out.join("again.html")).assert().success();
    assert!(run(&out, &["--force"]).status.success());
    assert!(!out.join("again.html").exists());
}

/// Tier two: a small tmpfs fills up for real (mounting needs root).
#[cfg(feature = "server-tests")]
mod full_folder {
    use super::*;
    use crate::common::tmpfs::Tmpfs;

    /// Fills the file system holding `dir` with one file, to the last byte.
    fn fill(dir: &Path) -> PathBuf {
        use std::io::Write;
        let path = dir.join("filler");
        let mut file = std::fs::File::create(&path).unwrap();
        let block = vec![0u8; 4096];
        while file.write_all(&block).is_ok() {}
        while file.write_all(&[0]).is_ok() {}
        path
    }

    #[test]
    fn a_report_on_a_full_disk_leaves_the_earlier_one_and_no_empty_file() {
        let dir = tempfile::tempdir().unwrap();
        let results = dir.path().join("results");
        assert!(run(&results, &[]).status.success());
        let disk = dir.path().join("disk");
        std::fs::create_dir(&disk).unwrap();
        let _fs = Tmpfs::mount(&disk, "1m");
        let report = disk.join("report.html");
        std::fs::write(&report, "an earlier report").unwrap();
        fill(&disk);
        let output = pkbench().arg("report").arg(&results).arg("-o").arg(&report).output().unwrap();
        assert_refused(&output, "disk full while writing");
        assert_eq!(std::fs::read_to_string(&report).unwrap(), "an earlier report");
        let others: Vec<_> = std::fs::read_dir(&disk)
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .filter(|n| n != "filler" && n != "report.html")
            .collect();
        assert!(others.is_empty(), "nothing half-written left: {others:?}");
        let fresh = disk.join("fresh.md");
        let output = pkbench().arg("report").arg(&results).args(["--format", "md", "-o"]).arg(&fresh).output().unwrap();
        assert_refused(&output, "disk full while writing");
        assert!(!fresh.exists(), "no 0-byte report");
    }

    #[test]
    fn a_run_that_cannot_start_on_a_full_disk_leaves_no_folder() {
        let dir = tempfile::tempdir().unwrap();
        let _fs = Tmpfs::mount(dir.path(), "1m");
        fill(dir.path());
        let out = dir.path().join("out");
        let output = run(&out, &[]);
        assert_refused(&output, "disk full");
        assert!(!out.exists(), "{}", String::from_utf8_lossy(&output.stderr));
    }
}
