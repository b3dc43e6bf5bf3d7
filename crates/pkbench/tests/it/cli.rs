//! Command-line tests: `run` end to end with small sizes, `list`, and every error path the user
//! can hit (one line, non-zero exit, results kept).

use crate::common::{self, assert_one_line_error, pkbench, read_json};

use predicates::prelude::*;
use serde_json::Value;

#[test]
fn run_writes_results_and_prints_the_table() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("out");
    pkbench()
        .args(["run", "--strategies", "int,uuid4,int+uuid4", "--rows", "3k", "--batch", "1k", "--quiet", "--out"])
        .arg(&out)
        .assert()
        .success()
        .stdout(predicate::str::contains("last/first").and(predicate::str::contains("int+uuid4")))
        .stderr(predicate::str::contains("Results written to"));
    let doc = read_json(&out.join("results.json"));
    let runs = doc["runs"].as_array().unwrap();
    assert_eq!(runs.len(), 3);
    for run in runs {
        assert_eq!(run["verified_rows"], 3000);
        assert_eq!(run["complete"], true);
        assert_eq!(run["batches"].as_array().unwrap().len(), 3);
    }
    assert_eq!(doc["environment"]["engine"], "sqlite");
    let csv = std::fs::read_to_string(out.join("results.csv")).unwrap();
    assert_eq!(csv.lines().count(), 1 + 9);
    assert!(std::fs::read_to_string(out.join("results.md")).unwrap().contains("## Milliseconds per batch"));
    let leftovers: Vec<_> = std::fs::read_dir(&out)
        .unwrap()
        .filter_map(|e| e.ok())
        .filter(|e| e.file_name().to_string_lossy().contains("sqlite"))
        .collect();
    assert!(leftovers.is_empty(), "databases left behind: {leftovers:?}");
}

#[test]
fn keep_db_keeps_each_database_and_aliases_work() {
    let dir = tempfile::tempdir().unwrap();
    pkbench()
        .args([
            "run",
            "--strategies",
            "Integer,Uuid7WithoutRowid",
            "--rows",
            "500",
            "--batch",
            "250",
            "-q",
            "--keep-db",
        ])
        .arg("--out")
        .arg(dir.path())
        .assert()
        .success();
    assert!(dir.path().join("int.sqlite").exists());
    assert!(dir.path().join("uuid7.sqlite").exists());
}

#[test]
fn every_format_prints() {
    let dir = tempfile::tempdir().unwrap();
    for (format, check) in [("json", "\"schema_version\""), ("csv", "engine,workload,strategy"), ("md", "| strategy |")]
    {
        let out = dir.path().join(format);
        let assert = pkbench()
            .args(["run", "-s", "uuid7", "-n", "200", "-b", "100", "-q", "--format", format, "--out"])
            .arg(&out)
            .assert()
            .success()
            .stdout(predicate::str::contains(check));
        if format == "json" {
            let v: Value = serde_json::from_slice(&assert.get_output().stdout).unwrap();
            assert_eq!(v["runs"][0]["verified_rows"], 200);
        }
    }
}

#[test]
fn list_shows_every_strategy_and_alias() {
    pkbench()
        .arg("list")
        .assert()
        .success()
        .stdout(
            predicate::str::contains("uuid7+uuid4-map").and(predicate::str::contains("Uuid7WithUuid4ToUuid7Mapping")),
        )
        .stdout(predicate::str::contains("hash-seq").and(predicate::str::contains("snowflake-workers")))
        .stdout(predicate::str::contains("WITHOUT ROWID"))
        // Server-only variants: each engine's DDL, or its one-line refusal.
        .stdout(predicate::str::contains("id uuid NOT NULL DEFAULT gen_random_uuid() PRIMARY KEY"))
        .stdout(predicate::str::contains("id UUID NOT NULL DEFAULT (UUID()) PRIMARY KEY"))
        .stdout(predicate::str::contains("SQLite has no built-in UUID function"))
        // The counters each engine reads, which the glossary (docs/reference/counters.md) is made from.
        .stdout(predicate::str::contains("\n  sqlite        cache_hits, cache_misses, pages_written, cache_spills\n"))
        .stdout(predicate::str::contains("\n  myrocks       cache_hits, cache_misses, wal_bytes, ingest_bytes"));
}

#[test]
fn unknown_strategy_suggests_the_nearest_and_creates_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("never");
    let output = pkbench().args(["run", "--strategies", "int,uuidv4", "--out"]).arg(&out).output().unwrap();
    assert_one_line_error(&output, "unknown strategy 'uuidv4' (did you mean 'uuid4'?)");
    assert!(!out.exists());
}

#[test]
fn bad_sizes_are_rejected_with_the_allowed_range() {
    for (args, needle) in [
        (vec!["--rows", "0"], "--rows 0 is out of range"),
        (vec!["--rows", "100G"], "--rows 100000000000 is out of range"),
        (vec!["--batch", "0"], "--batch 0 is out of range"),
        (vec!["--payload", "10M"], "--payload 10000000 is too large"),
        (vec!["--page-size", "1000"], "--page-size 1000 is not valid"),
        (vec!["--cache-mb", "0"], "--cache-mb 0 is out of range"),
    ] {
        let dir = tempfile::tempdir().unwrap();
        let output = pkbench().arg("run").args(&args).arg("--out").arg(dir.path().join("o")).output().unwrap();
        assert_one_line_error(&output, needle);
    }
    pkbench().args(["run", "--rows", "lots"]).assert().failure().stderr(predicate::str::contains("is not a count"));
}

#[test]
fn an_unwritable_output_folder_is_a_clear_error() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("a-file");
    std::fs::write(&file, b"").unwrap();
    let output = pkbench().args(["run", "-n", "10", "--out"]).arg(file.join("sub")).output().unwrap();
    assert_one_line_error(&output, "could not create the results folder");
}

/// The disk-full test (tier two: it mounts a tmpfs, which needs root).
#[cfg(feature = "server-tests")]
mod full_disk {
    use super::*;
    use crate::common::tmpfs::Tmpfs;

    #[test]
    fn a_full_disk_stops_the_run_with_partial_results_kept() {
        let dir = tempfile::tempdir().unwrap();
        let _fs = Tmpfs::mount(dir.path(), "3m");
        let out = dir.path().join("out");
        // `int` fits in 3 MiB; `uuid4-text` (bigger keys, half-full pages) does not.
        let output = pkbench()
            .args(["run", "-s", "int,uuid4-text", "-n", "25k", "-b", "5k", "--payload", "40", "-q", "--out"])
            .arg(&out)
            .output()
            .unwrap();
        assert_one_line_error(&output, "disk full");
        let doc = read_json(&out.join("results.json"));
        let runs = doc["runs"].as_array().unwrap();
        assert_eq!(runs.len(), 2, "{doc:#}");
        assert_eq!(runs[0]["complete"], true);
        assert_eq!(runs[1]["complete"], false);
        assert!(runs[1]["error"].as_str().unwrap().contains("disk full"));
        assert!(!out.join("uuid4-text.sqlite").exists(), "the failed database must be removed");
        assert!(!out.join("journal.jsonl").exists(), "the results files hold every batch: no journal stays");
    }
}

/// Sends `signal` to a SQLite run mid-way and checks it stops with `code`, keeping every batch
/// measured so far and leaving no database behind.
fn a_signal_stops_cleanly_and_keeps_results(signal: &str, code: i32) {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("out");
    let mut child = std::process::Command::new(assert_cmd::cargo::cargo_bin("pkbench"))
        .args(["run", "-s", "int,uuid4", "-n", "50M", "-b", "20k", "--cache-mb", "1", "-q", "--out"])
        .arg(&out)
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    common::wait_for_a_batch(&out);
    let status = std::process::Command::new("kill").args([signal, &child.id().to_string()]).status().unwrap();
    assert!(status.success());
    let started = std::time::Instant::now();
    let output = loop {
        if let Some(_status) = child.try_wait().unwrap() {
            break child.wait_with_output().unwrap();
        }
        assert!(started.elapsed().as_secs() < 20, "pkbench did not stop after {signal}");
        std::thread::sleep(std::time::Duration::from_millis(50));
    };
    assert_eq!(output.status.code(), Some(code), "stderr: {}", String::from_utf8_lossy(&output.stderr));
    assert!(String::from_utf8_lossy(&output.stderr).contains("Interrupted"));
    let doc = read_json(&out.join("results.json"));
    let run = &doc["runs"][0];
    assert_eq!(run["strategy"], "int");
    assert_eq!(run["complete"], false);
    let batches = run["batches"].as_array().unwrap();
    assert!(!batches.is_empty(), "batches measured before {signal} are kept");
    assert!(batches.iter().enumerate().all(|(i, b)| b["index"] == i), "every batch up to the signal, in order");
    pkbench().arg("report").arg(&out).args(["--format", "md", "-o"]).arg(dir.path().join("r.md")).assert().success();
    assert!(!out.join("int.sqlite").exists() && !out.join("int.sqlite-wal").exists(), "database left behind");
}

#[test]
fn ctrl_c_stops_cleanly_and_keeps_results() {
    a_signal_stops_cleanly_and_keeps_results("-INT", 130);
}

#[test]
fn sigterm_and_sighup_stop_like_ctrl_c() {
    a_signal_stops_cleanly_and_keeps_results("-TERM", 143);
    a_signal_stops_cleanly_and_keeps_results("-HUP", 129);
}

#[test]
fn negative_and_overflowing_numbers_get_their_own_words() {
    let out = pkbench().args(["run", "-n", "-5"]).output().unwrap();
    assert!(!out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains("'-5' is negative"), "{out:?}");
    let out = pkbench().args(["run", "--seed", "-1"]).output().unwrap();
    assert!(String::from_utf8_lossy(&out.stderr).contains("'-1' is negative"), "{out:?}");
    let out = pkbench().args(["predict", "-n", "99999999999999999999"]).output().unwrap();
    assert!(!out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains("is too large"), "{out:?}");
    // Values with a unit or a percent sign reach their parser too, not clap's "unexpected argument".
    let said = |args: &[&str]| {
        let out = pkbench().args(args).output().unwrap();
        assert!(!out.status.success(), "{args:?}");
        String::from_utf8_lossy(&out.stderr).into_owned()
    };
    assert!(said(&["run", "-w", "concurrent", "--duration", "-1s"]).contains("'-1s' is negative"));
    assert!(said(&["compare", "a", "b", "--fail-above", "-5%"]).contains("'-5%' is out of range"));
    assert!(said(&["run", "-n", "1.2345k"]).contains("'1.2345k' is 1234.5, not a whole number"));
}

#[test]
fn doctor_says_what_is_missing_and_refuses_what_it_would_ignore() {
    let dir = tempfile::tempdir().unwrap();
    let missing = dir.path().join("no-such.sqlite");
    assert_one_line_error(&pkbench().arg("doctor").arg(&missing).output().unwrap(), "does not exist");
    let empty = dir.path().join("empty.sqlite");
    std::fs::write(&empty, b"").unwrap();
    assert_one_line_error(&pkbench().arg("doctor").arg(&empty).output().unwrap(), "is empty (0 bytes)");
    // A real database without tables: run one case, keep it, then ask for a schema it lacks.
    let out = dir.path().join("run");
    pkbench().args(["run", "-s", "int", "-n", "1k", "-b", "1k", "--keep-db", "-q", "-o"]).arg(&out).assert().success();
    let db = std::fs::read_dir(&out)
        .unwrap()
        .filter_map(|e| e.ok().map(|e| e.path()))
        .find(|p| p.extension().is_some_and(|x| x == "sqlite"))
        .unwrap();
    let output = pkbench().arg("doctor").arg(&db).args(["--table", "nope"]).output().unwrap();
    assert!(!output.status.success(), "{output:?}");
    let output = pkbench().arg("doctor").arg(&db).args(["--schema", "nope"]).output().unwrap();
    assert_one_line_error(&output, "a SQLite file has only 'main'");
}

#[test]
fn report_takes_a_results_folder() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("run");
    pkbench().args(["run", "-s", "int", "-n", "1k", "-b", "1k", "-q", "-o"]).arg(&out).assert().success();
    let html = dir.path().join("r.html");
    pkbench().arg("report").arg(&out).arg("-o").arg(&html).assert().success();
    assert!(std::fs::read_to_string(&html).unwrap().contains("<svg"));
    assert_one_line_error(&pkbench().arg("report").arg(dir.path()).output().unwrap(), "without a results.json");
}

#[test]
fn flags_a_workload_would_ignore_are_refused() {
    for (args, needle) in [
        (vec!["--threads", "4"], "--threads does not apply to --workload insert-growth"),
        (vec!["--duration", "10s"], "--duration does not apply to --workload insert-growth"),
        (vec!["--rate", "2k"], "--rate does not apply to --workload insert-growth"),
        (vec!["--users", "1k"], "--users does not apply to --workload insert-growth"),
        (vec!["--workload", "concurrent", "-n", "1k"], "--rows does not apply to --workload concurrent"),
        (vec!["--workload", "app", "--payload", "10"], "--payload does not apply to --workload app"),
    ] {
        let output = pkbench().arg("run").args(&args).output().unwrap();
        assert_one_line_error(&output, needle);
    }
}

#[test]
fn an_existing_results_folder_is_never_mixed_into() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("run");
    let run = |extra: &[&str]| {
        pkbench().args(["run", "-s", "int", "-n", "1k", "-b", "1k", "-q", "-o"]).arg(&out).args(extra).output().unwrap()
    };
    assert!(run(&[]).status.success());
    std::fs::write(out.join("stale.csv"), "from an earlier run").unwrap();
    assert_one_line_error(&run(&[]), "already holds files");
    assert!(out.join("stale.csv").exists(), "a refused run touches nothing");
    // --force replaces only what pkbench wrote (see results_folder_cli): a file of someone
    // else's stops it.
    assert_one_line_error(&run(&["--force"]), "files pkbench did not write (stale.csv)");
    assert!(out.join("stale.csv").exists());
    std::fs::remove_file(out.join("stale.csv")).unwrap();
    assert!(run(&["--force"]).status.success());
    assert!(out.join("results.json").is_file());
    let other = dir.path().join("other");
    std::fs::create_dir(&other).unwrap();
    std::fs::write(other.join("notes.txt"), "mine").unwrap();
    let output = pkbench()
        .args(["run", "-s", "int", "-n", "1k", "-b", "1k", "-q", "--force", "-o"])
        .arg(&other)
        .output()
        .unwrap();
    assert_one_line_error(&output, "not a pkbench results folder");
    assert!(other.join("notes.txt").exists());
}

#[test]
fn a_sigkilled_run_keeps_every_committed_batch_in_its_journal_and_report_renders_it() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("out");
    let mut child = std::process::Command::new(assert_cmd::cargo::cargo_bin("pkbench"))
        .args(["run", "-s", "int,uuid4", "-n", "50M", "-b", "20k", "--cache-mb", "1", "-q", "--out"])
        .arg(&out)
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    common::wait_for_batches(&out, 2);
    child.kill().unwrap(); // SIGKILL: no handler runs, nothing is written on the way out
    child.wait().unwrap();
    assert!(!out.join("results.json").exists(), "the first case never finished");
    let journal = std::fs::read_to_string(out.join("journal.jsonl")).unwrap();
    let batches = journal.lines().filter(|l| l.starts_with("{\"batch\"")).count();
    assert!(batches >= 2, "committed batches are journaled as they commit: {batches}");
    let md = dir.path().join("killed.md");
    let output = pkbench().arg("report").arg(&out).args(["--format", "md", "-o"]).arg(&md).output().unwrap();
    assert!(output.status.success(), "{}", String::from_utf8_lossy(&output.stderr));
    assert!(String::from_utf8_lossy(&output.stderr).contains("batches of 'int' recovered"));
    let text = std::fs::read_to_string(&md).unwrap();
    assert!(text.contains("int"), "{text}");
}

#[test]
fn a_finished_run_leaves_no_journal() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("out");
    pkbench().args(["run", "-s", "int", "-n", "2k", "-b", "1k", "-q", "-o"]).arg(&out).assert().success();
    assert!(out.join("results.json").is_file());
    assert!(!out.join("journal.jsonl").exists());
    assert!(!std::fs::read_dir(&out).unwrap().any(|e| e.unwrap().file_name().to_string_lossy().ends_with(".tmp")));
}

#[test]
fn key_parameters_reach_run_are_recorded_and_refused_where_unused() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("out");
    pkbench()
        .args(["run", "-s", "seq-uuid,time-uuid,int", "-n", "4k", "-b", "2k", "-q"])
        .args(["--block-size", "256", "--block-count", "4", "--interval", "1", "--key-rate", "500", "-o"])
        .arg(&out)
        .assert()
        .success()
        .stderr(predicate::str::contains("Time-based keys (time-uuid) are stamped as if inserted at 500 rows/s"));
    let doc = read_json(&out.join("results.json"));
    let params = |i: usize| doc["runs"][i]["settings"]["key_parameters"].clone();
    assert_eq!(params(0), serde_json::json!({"block_size": "256", "block_count": "4"}));
    assert_eq!(params(1), serde_json::json!({"key_rate": "500", "interval": "1", "interval_count": "65536"}));
    assert!(params(2).is_null(), "int's keys take no parameter: {}", params(2));
    assert!(doc["runs"][1]["settings"]["key_clock"].as_str().unwrap().contains("500 keys per second"));

    for (args, needle) in [
        (
            vec!["-s", "int,uuid4", "--block-size", "256"],
            "--block-size shapes seq-uuid keys, and none of -s int,uuid4 uses them",
        ),
        (
            vec!["-s", "uuid4", "--key-rate", "1000"],
            "--key-rate shapes snowflake, snowflake-workers, uuid1, uuid6, uuid7, ulid, time-uuid, comb, comb-mssql keys",
        ),
        (vec!["-s", "uuid7", "--key-rate", "0"], "--key-rate 0 stops time"),
        (vec!["-s", "snowflake", "--worker", "5000"], "snowflake worker 5000 does not fit in 10 bits"),
        (vec!["-s", "int,bitrev-seq", "--hash-buckets", "8"], "--hash-buckets shapes hash-seq keys"),
        (vec!["-s", "shard-bits-seq", "--shard-bits", "20"], "use 1-15"),
    ] {
        let output = pkbench().arg("run").args(&args).args(["-n", "10"]).output().unwrap();
        assert_one_line_error(&output, needle);
    }

    // The shard-aware keys' parameters, by their flags.
    let out = dir.path().join("shard-aware");
    pkbench()
        .args(["run", "-s", "hash-seq,bitrev-seq,shard-bits-seq,snowflake-workers", "-n", "2k", "-b", "1k", "-q"])
        .args(["--hash-buckets", "8", "--shard-bits", "2", "--worker-count", "3", "-o"])
        .arg(&out)
        .assert()
        .success();
    let doc = read_json(&out.join("results.json"));
    let params = |i: usize| doc["runs"][i]["settings"]["key_parameters"].clone();
    assert_eq!(params(0), serde_json::json!({"hash_buckets": "8"}));
    assert!(params(1).is_null(), "bitrev-seq takes no parameter: {}", params(1));
    assert_eq!(params(2), serde_json::json!({"shard_bits": "2"}));
    assert_eq!(params(3), serde_json::json!({"worker_count": "3", "epoch": "1288834974657", "key_rate": "1000"}));
}

#[test]
fn ids_gen_paces_a_seeded_stream_at_the_key_rate() {
    let ms = |rate: &str| -> Vec<u64> {
        let out =
            pkbench().args(["ids", "gen", "uuid7", "-n", "2", "--seed", "1", "--key-rate", rate]).output().unwrap();
        String::from_utf8(out.stdout)
            .unwrap()
            .lines()
            .map(|l| u64::from_str_radix(&l.replace('-', "")[..12], 16).unwrap())
            .collect()
    };
    assert_eq!(ms("2")[1] - ms("2")[0], 500, "2 keys per second: 500 ms apart");
    assert_eq!(ms("1M")[1] - ms("1M")[0], 0, "a million per second: the same millisecond");
    let output = pkbench().args(["ids", "gen", "uuid7", "--key-rate", "10"]).output().unwrap();
    assert_one_line_error(&output, "--key-rate paces the virtual clock of a seeded stream: add --seed");
}

#[test]
fn a_sigkilled_app_run_keeps_its_finished_phases_in_the_journal() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("out");
    let mut child = std::process::Command::new(assert_cmd::cargo::cargo_bin("pkbench"))
        .args(["run", "-w", "app", "-s", "uuid4", "--users", "20k", "--orders-per-user", "5", "-q", "--out"])
        .arg(&out)
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    let started = std::time::Instant::now();
    while !std::fs::read_to_string(out.join("journal.jsonl")).unwrap_or_default().contains("{\"phase\"") {
        assert!(started.elapsed().as_secs() < 120, "no phase journaled");
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
    child.kill().unwrap();
    child.wait().unwrap();
    let output =
        pkbench().arg("report").arg(&out).args(["--format", "md", "-o"]).arg(dir.path().join("r.md")).output().unwrap();
    assert!(output.status.success(), "{}", String::from_utf8_lossy(&output.stderr));
    let stderr = String::from_utf8_lossy(&output.stderr);
    // "1 phase" or "N phases": as many as were journaled before the kill.
    assert!(stderr.contains(" phase") && stderr.contains(" of 'uuid4' recovered"), "{stderr}");
}

#[test]
fn compare_gives_each_case_a_change_an_interval_and_a_verdict_and_fails_above_a_threshold() {
    let dir = tempfile::tempdir().unwrap();
    let run = |name: &str, strategies: &str| {
        let out = dir.path().join(name);
        pkbench().args(["run", "-s", strategies, "-n", "20k", "-b", "1k", "-q", "-o"]).arg(&out).assert().success();
        out
    };
    let (base, other) = (run("base", "int,uuid4"), run("other", "int"));
    // The same run with every batch made twice as slow: a regression beyond doubt.
    let slow = dir.path().join("slow.json");
    let mut doc: serde_json::Value =
        serde_json::from_slice(&std::fs::read(base.join("results.json")).unwrap()).unwrap();
    for run in doc["runs"].as_array_mut().unwrap() {
        for b in run["batches"].as_array_mut().unwrap() {
            b["elapsed_ns"] = serde_json::json!(b["elapsed_ns"].as_u64().unwrap() * 2);
        }
    }
    std::fs::write(&slow, serde_json::to_vec(&doc).unwrap()).unwrap();
    let out = pkbench().arg("compare").arg(&base).arg(&slow).args(["--format", "md"]).output().unwrap();
    assert!(out.status.success(), "no --fail-above: a report, not a failure");
    let md = String::from_utf8_lossy(&out.stdout);
    assert!(
        md.contains("| sqlite | insert-growth | uuid4 |") && md.contains("+100.0%") && md.contains("slower"),
        "{md}"
    );
    assert!(md.contains("compare runs made with --repeat N"), "the within-run caveat is stated: {md}");
    let out = pkbench().arg("compare").arg(&base).arg(&slow).args(["--fail-above", "5%"]).output().unwrap();
    assert_eq!(out.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&out.stderr).contains("Regression above +5.0%: int +100.0%, uuid4 +100.0%"));
    // A run against itself: no change.
    let out = pkbench()
        .arg("compare")
        .arg(&base)
        .arg(&base)
        .args(["--format", "json", "--fail-above", "5%"])
        .output()
        .unwrap();
    assert!(out.status.success());
    let changes: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert!(changes.as_array().unwrap().iter().all(|c| c["verdict"] == "no detectable change" && c["ratio"] == 1.0));
    // Different cases: refused in one line that names them.
    let out = pkbench().arg("compare").arg(&base).arg(&other).output().unwrap();
    assert_one_line_error(&out, "missing from NEW: sqlite insert-growth uuid4");
}

/// A refusal that depends only on the flags comes before any server starts, and leaves no
/// results folder.
#[test]
fn refusals_that_depend_only_on_the_flags_come_before_any_server_starts() {
    let dir = tempfile::tempdir().unwrap();
    for (args, needle) in [
        (
            &["--engine", "postgres", "-w", "concurrent", "--txn", "insert-read-recent", "-s", "int,uuid4"][..],
            "'s keys are made by the server",
        ),
        (
            &["--engine", "mariadb", "-w", "concurrent", "--txn", "insert-update-recent", "-s", "uuid4,int"][..],
            "int's keys",
        ),
        (
            &["--engine", "postgres", "--server-setting", "listen_addresses=*", "-s", "int"][..],
            "listen_addresses cannot",
        ),
        (&["--engine", "spider", "--server-setting", "port=3307", "-s", "int"][..], "port cannot be changed"),
    ] {
        let out_dir = dir.path().join("r");
        let out = pkbench().arg("run").args(args).arg("-o").arg(&out_dir).output().unwrap();
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(1), "{args:?}: {stderr}");
        assert!(!stderr.contains("Starting a throwaway"), "{args:?}: {stderr}");
        let errors: Vec<&str> = stderr.lines().filter(|l| l.starts_with("Error:")).collect();
        assert_eq!(errors.len(), 1, "{args:?}: {stderr}");
        assert!(errors[0].contains(needle), "{args:?}: {stderr}");
        assert!(!out_dir.exists(), "{args:?}: a results folder was left");
    }
}

/// Help and the version into a full standard output fail as every other output does.
#[test]
fn help_and_version_into_a_full_standard_output_say_so() {
    for args in [&["--help"][..], &["help"], &["run", "--help"], &["--version"], &["run", "-h"]] {
        let full = std::fs::OpenOptions::new().write(true).open("/dev/full").unwrap();
        let out = std::process::Command::new(assert_cmd::cargo::cargo_bin("pkbench"))
            .args(args)
            .stdout(full)
            .output()
            .unwrap();
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(1), "{args:?}: {stderr}");
        assert!(
            stderr.trim_end() == "Error: could not write to standard output: No space left on device (os error 28)",
            "{args:?}: {stderr}"
        );
    }
    pkbench().arg("--version").assert().success().stdout(predicate::str::starts_with("pkbench "));
}

/// MariaDB/MySQL connection and URL errors read as sentences, not as the driver's Rust types.
#[test]
fn mysql_errors_carry_no_rust_type_names() {
    let port = std::net::TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port();
    for url in [format!("mysql://u@127.0.0.1:{port}/db"), "mysql://u@h:x/db".to_string()] {
        let out = pkbench().args(["run", "--engine", "mariadb", "-n", "1k", "--url", &url]).output().unwrap();
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_one_line_error(&out, "");
        for rust in ["DriverError", "IoError", "CodecError", "ParseError", " { "] {
            assert!(!stderr.contains(rust), "{url}: {stderr}");
        }
    }
}
