//! Every file a flag or argument names is read bounded and checked before any work: a device
//! (`/dev/zero`), a file larger than its kind may be, an endless pipe or line, and a file that
//! cannot serve end quickly in one line with a non-zero exit, instead of filling the machine's
//! memory or failing after minutes of forecasting. Smaller input checks ride along: empty plans,
//! a plan's `out`, future Snowflake epochs, engine names in any case, MySQL URLs.

use assert_cmd::Command;
use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::time::{Duration, Instant};

const SCHEMA: &str = "../pkbench-core/tests/fixtures/schema/accounts_orders.pg.sql";
const RESULTS: &str = "../pkbench-core/tests/fixtures/sqlite-small.json";

/// Far beyond the milliseconds a refusal takes, far below what reading 256 MiB of `/dev/zero`
/// into JSON (or the old unbounded read) takes; the timeout turns a hang into a failure.
const QUICK: Duration = Duration::from_secs(10);

fn pkbench() -> Command {
    Command::cargo_bin("pkbench").expect("pkbench binary")
}

/// Runs `args` with `stdin` (none if `None`), killed after [`QUICK`]; its output.
fn run(args: &[&str], stdin: Option<&Path>) -> std::process::Output {
    let mut cmd = std::process::Command::new(assert_cmd::cargo::cargo_bin("pkbench"));
    // Handed over as it is (assert_cmd's pipe_stdin would read all of it first).
    let input = stdin.map_or_else(Stdio::null, |p| Stdio::from(std::fs::File::open(p).unwrap()));
    cmd.args(args).stdin(input).stdout(Stdio::piped()).stderr(Stdio::piped());
    let child = cmd.spawn().unwrap();
    let pid = child.id().to_string();
    let (done, wait) = std::sync::mpsc::channel();
    std::thread::spawn(move || done.send(child.wait_with_output()));
    match wait.recv_timeout(QUICK) {
        Ok(out) => out.unwrap(),
        Err(_) => {
            std::process::Command::new("kill").args(["-9", &pid]).status().unwrap();
            panic!("{args:?} still ran after {QUICK:?}");
        }
    }
}

/// Runs `args` (with `stdin`, if any) and asserts a quick exit with status 1 and one line on
/// standard error that holds `expect`; returns that line.
fn refused(args: &[&str], stdin: Option<&Path>, expect: &str) -> String {
    let started = Instant::now();
    let out = run(args, stdin);
    let took = started.elapsed();
    let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
    assert!(took < QUICK, "{args:?} took {took:?}: {stderr}");
    assert_eq!(out.status.code(), Some(1), "{args:?}: {stderr}");
    // A password typed in a URL also gets its warning (user_server_cli holds it to one line).
    let lines = stderr.trim_end().lines().filter(|l| !l.starts_with("Warning: the password in"));
    assert_eq!(lines.count(), 1, "{args:?}: not one line: {stderr}");
    assert!(stderr.contains(expect), "{args:?}: expected '{expect}' in: {stderr}");
    stderr
}

/// Every entry point that reads a file, with `BAD` where the file goes, and its kind's limit.
fn entry_points(out: &str) -> Vec<(Vec<String>, u64)> {
    const MIB: u64 = 1 << 20;
    let cases: [(&[&str], u64); 14] = [
        (&["report", "BAD", "-o", "OUT/r.html"], 256 * MIB),
        (&["compare", "BAD", RESULTS], 256 * MIB),
        (&["compare", RESULTS, "BAD"], 256 * MIB),
        (&["plan", "show", "BAD"], MIB),
        (&["run", "--plan", "BAD", "-o", "OUT/plan"], MIB),
        (&["schema", "BAD"], 64 * MIB),
        (&["run", "--schema", "BAD", "-n", "1k", "-o", "OUT/run"], 64 * MIB),
        (&["run", "--schema", SCHEMA, "--values", "BAD", "-n", "1k", "-o", "OUT/run"], 16 * MIB),
        (&["predict", "-n", "20M", "--check-from", "BAD", "-o", "OUT/p"], 256 * MIB),
        (&["predict", "-n", "20M", "--calibrate-from", "BAD", "-o", "OUT/p"], 256 * MIB),
        (&["predict", "-n", "1k", "--schema", "BAD"], 64 * MIB),
        (&["predict", "-n", "1k", "--schema", SCHEMA, "--values", "BAD"], 16 * MIB),
        (&["doctor", "mysql://u@127.0.0.1:1/db?ssl-mode=VERIFY_CA&ssl-ca=BAD"], 4 * MIB),
        (&["doctor", "postgres://u@127.0.0.1:1/db?sslmode=verify-ca&sslrootcert=BAD"], 4 * MIB),
    ];
    cases.iter().map(|(args, limit)| (args.iter().map(|a| a.replace("OUT", out)).collect(), *limit)).collect()
}

#[test]
fn devices_are_refused_by_every_entry_point_at_once() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().to_str().unwrap();
    for device in ["/dev/zero", "/dev/urandom"] {
        for (args, _) in entry_points(out) {
            let args: Vec<String> = args.iter().map(|a| a.replace("BAD", device)).collect();
            let args: Vec<&str> = args.iter().map(String::as_str).collect();
            refused(&args, None, &format!("'{device}' is a device, not a"));
        }
    }
    assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 0, "nothing was created");
}

#[test]
fn files_larger_than_their_kind_are_refused_before_they_are_read() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("out");
    for (i, (args, limit)) in entry_points(out.to_str().unwrap()).into_iter().enumerate() {
        // Sparse: a byte past the limit costs no disk.
        let big = dir.path().join(format!("big-{i}"));
        std::fs::File::create(&big).unwrap().set_len(limit + 1).unwrap();
        let args: Vec<String> = args.iter().map(|a| a.replace("BAD", big.to_str().unwrap())).collect();
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        refused(&args, None, &format!("is larger than {} MiB, the most a", limit >> 20));
    }
    assert!(!out.exists(), "nothing was created");
}

#[test]
fn an_endless_pipe_is_read_up_to_its_limit_only() {
    let dir = tempfile::tempdir().unwrap();
    let fifo = dir.path().join("endless.toml");
    assert!(std::process::Command::new("mkfifo").arg(&fifo).status().unwrap().success());
    let writer = {
        let fifo = fifo.clone();
        // Writes until pkbench closes its end (then the write fails and the thread ends).
        std::thread::spawn(move || {
            use std::io::Write;
            let mut f = std::fs::OpenOptions::new().write(true).open(fifo).unwrap();
            let line = b"# a comment that never ends\n".repeat(1000);
            while f.write_all(&line).is_ok() {}
        })
    };
    refused(&["plan", "show", fifo.to_str().unwrap()], None, "is larger than 1 MiB, the most a plan may be");
    writer.join().unwrap();
}

#[test]
fn ids_inspect_reads_standard_input_a_bounded_line_at_a_time() {
    refused(&["ids", "inspect"], Some(Path::new("/dev/zero")), "line 1 is longer than 4096 bytes");
    let dir = tempfile::tempdir().unwrap();
    let lines = dir.path().join("ids.txt");
    std::fs::write(&lines, format!("1\n2\n{}\n3\n", "9".repeat(5000))).unwrap();
    let out = run(&["ids", "inspect"], Some(&lines));
    assert_eq!(out.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&out.stdout).contains("scheme"), "the lines before it are decoded");
    assert_eq!(
        String::from_utf8_lossy(&out.stderr).trim_end(),
        "Error: standard input: line 3 is longer than 4096 bytes: give one value per line"
    );
}

#[test]
fn a_report_folder_whose_journal_is_a_device_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let run = dir.path().join("run");
    std::fs::create_dir(&run).unwrap();
    std::os::unix::fs::symlink("/dev/zero", run.join("journal.jsonl")).unwrap();
    let html = dir.path().join("r.html");
    refused(&["report", run.to_str().unwrap(), "-o", html.to_str().unwrap()], None, "is a device, not a results file");
    assert!(!html.exists());
}

#[test]
fn a_check_file_with_nothing_to_compare_is_refused_before_the_forecast() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("p");
    let o = out.to_str().unwrap();
    // The fixture ran 20k-row batches: the default 10k-row batches of a 20M-row forecast (minutes
    // of modelling) have nothing to compare with.
    let started = Instant::now();
    let line = refused(&["predict", "-n", "20M", "--check-from", RESULTS, "-o", o], None, "--check-from");
    assert!(started.elapsed() < Duration::from_secs(3), "took {:?}", started.elapsed());
    assert!(line.contains("no batches like the prediction's"), "{line}");
    let line =
        refused(&["predict", "-n", "20M", "-s", "uuid4-text", "--check-from", RESULTS, "-o", o], None, "--check-from");
    assert!(line.contains("same --batch and strategies"), "{line}");
    // Too few batches to fit a calibration: said before the device is probed for seconds.
    let started = Instant::now();
    let line = refused(
        &["predict", "-n", "20M", "-s", "uuid7", "--calibrate-from", RESULTS, "-o", o],
        None,
        "--calibrate-from",
    );
    assert!(line.contains("use a larger --calibrate-rows"), "{line}");
    assert!(started.elapsed() < Duration::from_secs(3), "took {:?}", started.elapsed());
    assert!(!out.exists(), "no results folder");
}

#[test]
fn a_plan_with_no_settings_is_refused_and_its_out_is_refused_by_show_and_run_alike() {
    let dir = tempfile::tempdir().unwrap();
    let write = |name: &str, text: &str| -> PathBuf {
        let p = dir.path().join(name);
        std::fs::write(&p, text).unwrap();
        p
    };
    let empty = write("empty.toml", "# nothing yet\n");
    let out = dir.path().join("out");
    let o = out.to_str().unwrap();
    let e = empty.to_str().unwrap();
    refused(&["plan", "show", e], None, "the plan has no cases");
    refused(&["run", "--plan", e, "-o", o], None, "the plan has no cases");
    let with_out = write("out.toml", "[run]\nrows = \"1k\"\nout = \"elsewhere\"\n");
    let w = with_out.to_str().unwrap();
    let shown = refused(&["plan", "show", w], None, "'out' is given on the command line beside --plan");
    let run = refused(&["run", "--plan", w, "-o", o], None, "'out' is given on the command line beside --plan");
    assert_eq!(shown, run);
    assert!(!out.exists() && !dir.path().join("elsewhere").exists());
}

#[test]
fn a_snowflake_epoch_not_reached_yet_is_refused() {
    refused(&["ids", "gen", "snowflake", "--epoch", "4102444800000"], None, "is after now");
    // Seeded streams read the virtual clock, which starts on 2026-01-01.
    let line = refused(&["ids", "gen", "snowflake", "--seed", "1", "--epoch", "1780000000000"], None, "virtual clock");
    assert!(line.contains("2026-01-01T00:00:00.000Z"), "{line}");
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("run");
    refused(
        &["run", "-s", "snowflake", "--epoch", "1780000000000", "-n", "1k", "-o", out.to_str().unwrap()],
        None,
        "virtual clock",
    );
    assert!(!out.exists());
    pkbench().args(["ids", "gen", "snowflake", "--epoch", "1700000000000", "-n", "1"]).assert().success();
}

#[test]
fn engine_names_are_read_in_any_case_as_strategy_names_are() {
    pkbench().args(["schema", SCHEMA, "--engine", "SQLite", "-s", "INT"]).assert().success();
    pkbench()
        .args(["predict", "--engine", "SQLite", "-n", "20k", "-b", "10k", "-s", "Int", "--shards", "2"])
        .assert()
        .success();
    // Reaches the URL check, which comes after the engine is read.
    let line = refused(&["run", "--engine", "PostgreSQL", "--url", "mysql://u@h/db", "-n", "1k"], None, "--url");
    assert!(line.contains("not PostgreSQL"), "{line}");
}

#[test]
fn a_mysql_password_that_ends_the_address_is_named_not_hidden_behind_a_valid_url() {
    let line = refused(&["doctor", "mysql://u:se/cret@127.0.0.1/db"], None, "its password holds '/'");
    assert!(line.contains("'mysql://u:***@127.0.0.1/db'") && !line.contains("cret"), "{line}");
}
