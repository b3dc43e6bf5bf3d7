//! Every subcommand that prints to standard output, piped into a reader that stops reading and
//! into `/dev/full`: no panic, no backtrace, the conventional status (141 after a closed pipe,
//! as if SIGPIPE had ended it; 0 where the command had already finished) and, for a full device,
//! one line that says standard output could not be written.

use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

fn bin() -> PathBuf {
    PathBuf::from(env!("CARGO_BIN_EXE_pkbench"))
}

/// Results and a kept SQLite database from one small run, shared by the commands that read them.
fn fixture(dir: &Path) -> (PathBuf, PathBuf) {
    let out = dir.join("fixture");
    let status = Command::new(bin())
        .args(["run", "-s", "int", "-n", "2k", "-b", "1k", "--keep-db", "-q", "-o"])
        .arg(&out)
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .expect("pkbench runs");
    assert!(status.success(), "the fixture run failed");
    let db = std::fs::read_dir(&out)
        .unwrap()
        .filter_map(|e| e.ok().map(|e| e.path()))
        .find(|p| p.extension().is_some_and(|x| x == "sqlite"))
        .expect("the kept database");
    (out.join("results.json"), db)
}

/// Every command line that prints to stdout (each writing into its own folder under `dir`).
fn commands(dir: &Path) -> Vec<(String, Vec<String>)> {
    let (results, db) = fixture(dir);
    let s = |v: &[&str]| v.iter().map(|x| x.to_string()).collect::<Vec<_>>();
    let out = |name: &str| dir.join(name).display().to_string();
    vec![
        ("list".into(), s(&["list"])),
        ("schema".into(), s(&["schema", "../pkbench-core/tests/fixtures/schema/accounts_orders.pg.sql"])),
        ("doctor".into(), s(&["doctor", &db.display().to_string(), "--sql"])),
        (
            "predict".into(),
            s(&["predict", "-s", "int,uuid4", "-n", "20k", "-b", "10k", "-q", "--force", "-o", &out("p")]),
        ),
        ("run".into(), s(&["run", "-s", "int", "-n", "2k", "-b", "1k", "-q", "--force", "-o", &out("r")])),
        ("ids bench".into(), s(&["ids", "bench", "--ms", "1", "--threads", "1", "uuid4", "uuid7"])),
        ("ids inspect".into(), s(&["ids", "inspect", "0190163d-8694-739b-aea5-966c26f8ad91", "42"])),
        ("ids gen".into(), s(&["ids", "gen", "uuid7", "-n", "200000"])),
        ("report md".into(), s(&["report", &results.display().to_string(), "--format", "md", "-o", &out("r.md")])),
    ]
}

/// Whether stderr shows a panic or a backtrace.
fn panicked(output: &Output) -> bool {
    let stderr = String::from_utf8_lossy(&output.stderr);
    stderr.contains("panicked") || stderr.contains("RUST_BACKTRACE")
}

/// Starts pkbench with both outputs piped.
fn spawn(args: &[String]) -> std::process::Child {
    Command::new(bin()).args(args).stdout(Stdio::piped()).stderr(Stdio::piped()).spawn().expect("pkbench starts")
}

#[test]
fn a_reader_that_stops_reading_ends_each_command_quietly() {
    let dir = tempfile::tempdir().unwrap();
    for (name, args) in commands(dir.path()) {
        // The reader is gone before the command writes: the write must fail with EPIPE.
        let mut child = spawn(&args);
        drop(child.stdout.take());
        let output = child.wait_with_output().unwrap();
        assert!(!panicked(&output), "{name}: {}", String::from_utf8_lossy(&output.stderr));
        let code = output.status.code();
        assert!(matches!(code, Some(0 | 141)), "{name}: status {code:?}");
        assert!(
            !String::from_utf8_lossy(&output.stderr).contains("Error:"),
            "{name}: a closed pipe is not an error: {}",
            String::from_utf8_lossy(&output.stderr)
        );

        // A reader that takes one line and stops.
        let mut child = spawn(&args);
        let mut first = String::new();
        let _ = BufReader::new(child.stdout.take().unwrap()).read_line(&mut first);
        let output = child.wait_with_output().unwrap();
        assert!(!panicked(&output), "{name}: {}", String::from_utf8_lossy(&output.stderr));
        assert!(matches!(output.status.code(), Some(0 | 141)), "{name}: status {:?}", output.status);
    }
}

#[test]
fn a_full_device_is_one_line_and_a_failure() {
    let dir = tempfile::tempdir().unwrap();
    for (name, args) in commands(dir.path()) {
        if name == "report md" {
            continue; // writes its output to a file, not to stdout
        }
        let full = std::fs::OpenOptions::new().write(true).open("/dev/full").expect("/dev/full");
        let output = Command::new(bin()).args(&args).stdout(full).stderr(Stdio::piped()).output().unwrap();
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert!(!panicked(&output), "{name}: {stderr}");
        assert_eq!(output.status.code(), Some(1), "{name}: {stderr}");
        let errors: Vec<&str> = stderr.lines().filter(|l| l.starts_with("Error:")).collect();
        assert_eq!(errors.len(), 1, "{name}: {stderr}");
        assert!(
            errors[0].contains("standard output") || errors[0].contains("stdout"),
            "{name}: the error names standard output: {stderr}"
        );
    }
}
