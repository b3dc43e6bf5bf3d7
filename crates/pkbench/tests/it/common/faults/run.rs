//! A `pkbench run` with a fault injected mid-way, and the checks every fault must pass: a
//! non-zero exit, one line naming the fault, every committed batch kept and verified, the kept
//! results rendering, and nothing left behind. Each check prints its row of the fault matrix.

use serde_json::Value;
use std::io::Read;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

/// A `pkbench run` in progress, writing to `out`.
pub struct FaultRun {
    child: Child,
    stderr: std::thread::JoinHandle<String>,
    /// The results folder.
    pub out: PathBuf,
}

/// What a fault run left.
pub struct Ended {
    /// pkbench's process id.
    pub pid: u32,
    /// Its exit code (`None`: ended by a signal).
    pub code: Option<i32>,
    /// Its standard error.
    pub stderr: String,
    /// The results folder.
    pub out: PathBuf,
    /// What the fault left that it may leave, and why (e.g. the scratch schema on a server that
    /// was gone when pkbench ended); shown in the matrix.
    pub excused: Option<String>,
}

impl FaultRun {
    /// Starts `pkbench run ARGS -q -o OUT` (`env` added to its environment).
    pub fn start(args: &[&str], env: &[(&str, &str)], out: &Path) -> Self {
        let mut cmd = Command::new(assert_cmd::cargo::cargo_bin("pkbench"));
        cmd.env_remove("PKBENCH_PG_URL").env_remove("PKBENCH_MYSQL_URL");
        cmd.envs(env.iter().copied()).arg("run").args(args).arg("-q").arg("-o").arg(out);
        let mut child = cmd.stdout(Stdio::null()).stderr(Stdio::piped()).spawn().unwrap();
        let mut pipe = child.stderr.take().unwrap();
        let stderr = std::thread::spawn(move || {
            let mut text = String::new();
            let _ = pipe.read_to_string(&mut text);
            text
        });
        FaultRun { child, stderr, out: out.to_path_buf() }
    }

    /// pkbench's process id.
    pub fn pid(&self) -> u32 {
        self.child.id()
    }

    /// Waits until the case of `strategy` (not the first) has journaled `n` batches, so a fault
    /// injected next lands mid-run with a finished case and batches of an unfinished one to keep.
    pub fn wait_for_batches_of(&self, strategy: &str, n: usize) {
        let what = format!("{n} batches of {strategy} committed");
        crate::common::wait_until(&what, Duration::from_secs(120), || {
            let journal = std::fs::read_to_string(self.out.join("journal.jsonl")).unwrap_or_default();
            let lines: Vec<Value> = journal.lines().filter_map(|l| serde_json::from_str(l).ok()).collect();
            let start = lines.iter().position(|l| l["run"]["strategy"] == strategy);
            start.is_some_and(|s| lines[s..].iter().filter(|l| l.get("batch").is_some()).count() >= n)
        });
    }

    /// Waits (up to 60 s) for pkbench to exit.
    pub fn end(mut self) -> Ended {
        let started = Instant::now();
        let status = loop {
            if let Some(s) = self.child.try_wait().unwrap() {
                break s;
            }
            assert!(started.elapsed() < Duration::from_secs(60), "pkbench did not stop after the fault");
            std::thread::sleep(Duration::from_millis(50));
        };
        Ended {
            pid: self.child.id(),
            code: status.code(),
            stderr: self.stderr.join().unwrap(),
            out: self.out,
            excused: None,
        }
    }
}

/// The results document in `out`, if it is there and parses.
pub fn read_doc(out: &Path) -> Option<Value> {
    serde_json::from_slice(&std::fs::read(out.join("results.json")).ok()?).ok()
}

/// Where a fault leaves the rows pkbench committed.
pub enum Committed {
    /// pkbench counted them after the fault (the server still answers): `verified_rows`.
    Counted,
    /// Nobody can: the server and its data are gone with it.
    Gone,
}

impl Ended {
    /// Runs every check, then prints the fault matrix's row for `fault` on `engine`; `leftovers`
    /// is what the test found left behind (empty: nothing).
    pub fn check(&self, fault: &str, engine: &str, names: &[&str], committed: Committed, leftovers: &[String]) {
        let first = self.first_error_line(names);
        let code = self.code.filter(|c| *c != 0);
        assert!(code.is_some(), "exit {:?} after {fault}: {}", self.code, self.stderr);
        let doc = read_doc(&self.out).unwrap_or_else(|| panic!("no results.json after {fault}: {}", self.stderr));
        let (kept_batches, kept_rows) = check_batches(&doc);
        assert!(!self.out.join("journal.jsonl").exists(), "the results hold every batch: no journal left");
        let verified = match committed {
            Committed::Counted => {
                let failed = doc["runs"].as_array().unwrap().iter().find(|r| r["complete"] == false).unwrap();
                let n = failed["verified_rows"].as_u64();
                n.unwrap_or_else(|| panic!("the rows committed before {fault} were not counted: {failed:#}"))
            }
            Committed::Gone => kept_rows,
        };
        assert_eq!(verified, kept_rows, "{fault}: rows committed vs rows of the batches kept; {}", self.stderr);
        self.report_renders();
        assert!(leftovers.is_empty(), "{fault} on {engine} left {leftovers:?}");
        let committed = match committed {
            Committed::Gone => "? (the server's data went with it)".to_string(),
            _ => format!("{verified} rows"),
        };
        let left = self.excused.as_deref().unwrap_or("none");
        eprintln!(
            "FAULT-MATRIX | {fault} | {engine} | exit {} | {first} | kept {kept_batches} batches, {kept_rows} rows / committed {committed} | leftovers: {left}",
            code.unwrap()
        );
    }

    /// The one `Error:` line, which must be the last line and contain one of `names`.
    fn first_error_line(&self, names: &[&str]) -> String {
        let lines: Vec<&str> = self.stderr.lines().filter(|l| !l.trim().is_empty()).collect();
        let errors: Vec<&&str> = lines.iter().filter(|l| l.starts_with("Error")).collect();
        assert_eq!(errors.len(), 1, "one error line: {}", self.stderr);
        assert_eq!(lines.last(), errors.first().copied(), "the error comes last: {}", self.stderr);
        let line = errors[0].to_string();
        assert!(names.iter().any(|n| line.contains(n)), "the error names the fault ({names:?}): {line}");
        assert!(!self.stderr.contains(super::url_server::PASSWORD), "the password leaked: {}", self.stderr);
        line
    }

    fn report_renders(&self) {
        let md = self.out.join("kept.md");
        let out = Command::new(assert_cmd::cargo::cargo_bin("pkbench"))
            .arg("report")
            .arg(&self.out)
            .args(["--format", "md", "-o"])
            .arg(&md)
            .output()
            .unwrap();
        assert!(out.status.success(), "report: {}", String::from_utf8_lossy(&out.stderr));
        let text = std::fs::read_to_string(&md).unwrap();
        assert!(text.contains("uuid4") || text.contains("int"), "{text}");
    }
}

/// Checks every run's batches are whole and in order, complete runs hold every row, and returns
/// the batches and rows kept of the run the fault stopped.
fn check_batches(doc: &Value) -> (usize, u64) {
    let runs = doc["runs"].as_array().unwrap();
    assert!(!runs.is_empty(), "{doc:#}");
    let mut stopped = None;
    for run in runs {
        let batches = run["batches"].as_array().unwrap();
        let mut total = 0;
        for (i, b) in batches.iter().enumerate() {
            assert_eq!(b["index"], i, "batches in order: {run:#}");
            total += b["rows"].as_u64().unwrap();
            assert_eq!(b["rows_total"], total, "rows_total adds up: {run:#}");
        }
        if run["complete"] == true {
            assert_eq!(run["verified_rows"], run["settings"]["rows"], "a complete run holds every row");
            assert_eq!(total, run["settings"]["rows"].as_u64().unwrap());
        } else {
            assert!(stopped.is_none(), "one run stopped: {doc:#}");
            assert!(run["error"].as_str().is_some_and(|e| !e.is_empty()), "the stopped run says why: {run:#}");
            stopped = Some((batches.len(), total));
        }
    }
    stopped.unwrap_or_else(|| panic!("no run stopped: {doc:#}"))
}

/// Processes started for pkbench process `pid`'s managed servers that still run (their command
/// line names the server's folder, or they work in it).
pub fn managed_processes_left(pid: u32) -> Vec<String> {
    let marks = [format!("pkbench-postgres-{pid}-"), format!("pkbench-mariadb-{pid}-")];
    all_processes(|cmdline, cwd| marks.iter().any(|m| cmdline.contains(m.as_str()) || cwd.contains(m.as_str())))
}

/// Processes whose working folder is in `dir`.
pub fn processes_in(dir: &Path) -> Vec<String> {
    let dir = dir.display().to_string();
    all_processes(|_, cwd| cwd.starts_with(&dir))
}

/// The command lines of running processes (not this one) for which `matches(cmdline, cwd)`.
fn all_processes(matches: impl Fn(&str, &str) -> bool) -> Vec<String> {
    let me = std::process::id().to_string();
    let mut found = Vec::new();
    for entry in std::fs::read_dir("/proc").unwrap().filter_map(|e| e.ok()) {
        let name = entry.file_name().to_string_lossy().into_owned();
        if !name.bytes().all(|b| b.is_ascii_digit()) || name == me {
            continue;
        }
        let pid: u32 = name.parse().unwrap();
        let cmdline = std::fs::read(entry.path().join("cmdline")).unwrap_or_default();
        let cmdline = String::from_utf8_lossy(&cmdline).replace('\0', " ");
        let cwd = std::fs::read_link(entry.path().join("cwd")).map(|p| p.display().to_string()).unwrap_or_default();
        if super::url_server::alive(pid) && matches(&cmdline, &cwd) {
            found.push(format!("{pid} {cmdline}"));
        }
    }
    found
}

/// Managed servers' folders of pkbench process `pid` left in `parent`.
pub fn managed_dirs_left(parent: &Path, pid: u32) -> Vec<String> {
    let marks = [format!("pkbench-postgres-{pid}-"), format!("pkbench-mariadb-{pid}-")];
    std::fs::read_dir(parent)
        .map(|d| {
            d.filter_map(|e| e.ok())
                .map(|e| e.file_name().to_string_lossy().into_owned())
                .filter(|n| marks.iter().any(|m| n.starts_with(m.as_str())))
                .collect()
        })
        .unwrap_or_default()
}

/// The folder of the managed server pkbench process `pid` runs in `parent`, once it exists.
pub fn managed_dir(parent: &Path, pid: u32) -> PathBuf {
    let mut found = None;
    crate::common::wait_until("the managed server's folder", Duration::from_secs(60), || {
        found = managed_dirs_left(parent, pid).into_iter().next();
        found.is_some()
    });
    parent.join(found.unwrap())
}
