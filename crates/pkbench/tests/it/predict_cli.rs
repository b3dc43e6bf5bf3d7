//! `pkbench predict` end to end: a small prediction writes a results.json that validates
//! against the committed schema and prints its table; bad input is one line.

use assert_cmd::Command;
use predicates::prelude::*;
use serde_json::Value;

fn pkbench() -> Command {
    Command::cargo_bin("pkbench").expect("pkbench binary")
}

#[test]
fn predict_writes_valid_results_and_prints_the_table() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("out");
    pkbench()
        .args(["predict", "-s", "int,uuid4,int+uuid4", "-n", "30k", "-b", "10k", "--cache-mb", "1", "-q", "--out"])
        .arg(&out)
        .assert()
        .success()
        .stdout(predicate::str::contains("leaf fill").and(predicate::str::contains("counts only, no calibration")))
        .stderr(predicate::str::contains("Results written to"));
    let text = std::fs::read_to_string(out.join("results.json")).unwrap();
    let doc: Value = serde_json::from_str(&text).unwrap();
    let schema: Value = serde_json::from_str(include_str!("../../../../schema/results.schema.json")).unwrap();
    let validator = jsonschema::validator_for(&schema).unwrap();
    let errors: Vec<String> = validator.iter_errors(&doc).map(|e| e.to_string()).collect();
    assert!(errors.is_empty(), "{errors:?}");
    let runs = doc["runs"].as_array().unwrap();
    assert_eq!(runs.len(), 3);
    for run in runs {
        assert_eq!(run["workload"], "predict");
        assert_eq!(run["engine"], "sqlite-model");
        assert_eq!(run["verified_rows"], 30_000);
        assert_eq!(run["settings"]["workload_options"]["mode"], "exact");
        let batches = run["batches"].as_array().unwrap();
        assert_eq!(batches.len(), 3);
        for b in batches {
            assert_eq!(b["elapsed_ns"], 0, "no calibration: no invented time");
            assert!(b["counters"]["pages_written"].as_u64().unwrap() > 0);
        }
    }
    assert_eq!(runs[2]["btrees"].as_array().unwrap().len(), 2, "int+uuid4 has a table and an index");
    assert!(out.join("report.html").exists());
}

#[test]
fn server_models_write_their_engine_and_trees() {
    for (engine, name, trees) in [
        ("postgres", "postgres-model", &["bench", "bench_ext_id_key", "bench_pkey"][..]),
        ("mariadb", "mariadb-model", &["PRIMARY", "ext_id"][..]),
    ] {
        let dir = tempfile::tempdir().unwrap();
        let out = dir.path().join("out");
        pkbench()
            .args(["predict", "--engine", engine, "-s", "int+uuid4", "-n", "20k", "-b", "5k", "--cache-mb", "8", "-q"])
            .arg("--out")
            .arg(&out)
            .assert()
            .success()
            .stdout(predicate::str::contains(name));
        let doc: Value = serde_json::from_str(&std::fs::read_to_string(out.join("results.json")).unwrap()).unwrap();
        let run = &doc["runs"][0];
        assert_eq!(run["engine"], name);
        assert_eq!(run["verified_rows"], 20_000);
        let names: Vec<&str> = run["btrees"].as_array().unwrap().iter().map(|b| b["name"].as_str().unwrap()).collect();
        assert_eq!(names, trees, "{engine}");
        assert!(run["batches"][3]["counters"]["page_splits"].as_u64().unwrap() > 0);
    }
}

#[test]
fn the_myrocks_model_writes_bytes_and_levels_and_no_time() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("out");
    // 1.5M rows of int fill two 64 MiB memtables: flushes, an L0 and the levels table.
    pkbench()
        .args(["predict", "--engine", "myrocks", "-s", "int,int+uuid4", "-n", "1500k", "-b", "500k", "-q", "--out"])
        .arg(&out)
        .assert()
        .success()
        .stdout(
            predicate::str::contains("myrocks-model").and(predicate::str::contains("compaction written bytes /row")),
        );
    let doc: Value = serde_json::from_str(&std::fs::read_to_string(out.join("results.json")).unwrap()).unwrap();
    let schema: Value = serde_json::from_str(include_str!("../../../../schema/results.schema.json")).unwrap();
    assert!(jsonschema::validator_for(&schema).unwrap().is_valid(&doc), "results.json follows the schema");
    for run in doc["runs"].as_array().unwrap() {
        assert_eq!(run["engine"], "myrocks-model");
        assert_eq!(run["verified_rows"], 1_500_000);
        let last = run["batches"].as_array().unwrap().last().unwrap();
        assert_eq!(last["elapsed_ns"], 0, "no time is forecast");
        assert!(last["lsm_levels"].as_array().is_some_and(|l| !l.is_empty()), "{last}");
        let flushed: u64 =
            run["batches"].as_array().unwrap().iter().map(|b| b["counters"]["flush_bytes"].as_u64().unwrap()).sum();
        assert!(flushed > 0, "{run}");
    }
    let report = std::fs::read_to_string(out.join("report.html")).unwrap();
    assert!(report.contains("LSM levels after the run"), "the report draws the levels");
}

#[test]
fn other_engines_and_bad_sizes_are_one_line_errors() {
    for (args, needle) in [
        (&["predict", "--engine", "postgres", "--page-size", "4096"][..], "pages are 8192 bytes"),
        (&["predict", "--engine", "mariadb", "--bounded"][..], "bounded mode is SQLite's"),
        (&["predict", "--engine", "postgres", "-n", "1G", "--scale", "2"][..], "use --scale 16 or more"),
        (&["predict", "--engine", "mariadb", "-s", "uuid4-rowid"][..], "clusters"),
        (&["predict", "-n", "0"][..], "--rows 0 is out of range"),
        (&["predict", "--page-size", "1000"][..], "--page-size 1000"),
        (&["predict", "--payload", "5000", "-s", "uuid4"][..], "overflow pages"),
        (&["predict", "-s", "uuid5"][..], "unknown strategy"),
        (&["predict", "-s", "seq-uuid", "--scale", "4"][..], "use --scale 1"),
        (&["predict", "--scale", "3"][..], "must divide the batch"),
        (&["predict", "--ram", "4"][..], "add --calibrate"),
        (&["predict", "--engine", "myrocks", "--scale", "2"][..], "keeps no keys"),
        (&["predict", "--engine", "myrocks", "--calibrate"][..], "too few for MyRocks' batches of 100000"),
        (&["predict", "--engine", "myrocks", "-s", "uuid4-rowid"][..], "RocksDB always clusters"),
    ] {
        let output = pkbench().args(args).output().unwrap();
        assert!(!output.status.success());
        let stderr = String::from_utf8_lossy(&output.stderr);
        let lines: Vec<&str> = stderr.lines().filter(|l| !l.trim().is_empty()).collect();
        assert_eq!(lines.len(), 1, "{stderr}");
        assert!(lines[0].starts_with("Error: ") && lines[0].contains(needle), "{stderr}");
    }
    pkbench()
        .args(["predict", "--calibrate", "--ram", "-1"])
        .assert()
        .failure()
        .stderr(predicate::str::contains("give GiB as a positive number"));
}

#[test]
fn calibrate_runs_real_sqlite_and_predicts_time() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("out");
    pkbench()
        .args(["predict", "-s", "int,uuid4", "-n", "120k", "-b", "10k", "--cache-mb", "1", "--calibrate"])
        .args(["--calibrate-rows", "60k", "--ram", "0.005", "-q", "--out"])
        .arg(&out)
        .assert()
        .success()
        .stdout(
            predicate::str::contains("calibration error: out of sample")
                .and(predicate::str::contains("last batch ms (pred., 90% interval)")),
        );
    let doc: Value = serde_json::from_str(&std::fs::read_to_string(out.join("results.json")).unwrap()).unwrap();
    for run in doc["runs"].as_array().unwrap() {
        let options = &run["settings"]["workload_options"];
        // Half the rows: half the cache (512 KiB); half the batch would give 12 batches, so 60k / 30.
        let timing = options["timing"].as_str().unwrap();
        assert!(
            timing.starts_with(
                "calibrated on a real run (SQLite, 60000 rows per strategy in batches of 2000, 512 KiB cache (123 pages)"
            ),
            "{timing}"
        );
        assert!(options["calibration_error"].as_str().unwrap().starts_with("out of sample"));
        assert!(options["device_costs"].as_str().unwrap().contains("page read from the OS cache"), "{options}");
        // 5 MiB of memory beside a 1 MiB cache: uuid4's table outgrows the 4 MiB left.
        let regimes = options["memory_regimes"].as_str().unwrap();
        assert!(regimes.contains("(--ram 0.00 GiB"), "{regimes}");
        if run["strategy"] == "uuid4" {
            assert!(regimes.contains("device from"), "{regimes}");
        }
        for b in run["batches"].as_array().unwrap() {
            let (lo, ms, hi) = (
                b["elapsed_ns_low"].as_u64().unwrap(),
                b["elapsed_ns"].as_u64().unwrap(),
                b["elapsed_ns_high"].as_u64().unwrap(),
            );
            assert!(ms > 0 && lo <= ms && ms <= hi, "{b}");
        }
    }
    // The report draws each prediction's interval as a band around its line.
    let html = std::fs::read_to_string(out.join("report.html")).unwrap();
    let bands = html.matches("class=\"band\"").count();
    assert!(bands >= 2 && bands.is_multiple_of(2), "one band per strategy in each batch-time rendering: {bands}");
    // The real calibration run is kept beside the prediction, so both can be charted together.
    let real: Value =
        serde_json::from_str(&std::fs::read_to_string(out.join("calibration/results.json")).unwrap()).unwrap();
    assert_eq!(real["runs"][1]["verified_rows"], 60_000);
    assert_eq!(real["runs"][1]["batches"].as_array().unwrap().len(), 30);
}

#[test]
fn keys_whose_rows_land_alike_share_a_calibration_run_unless_each_is_asked() {
    let dir = tempfile::tempdir().unwrap();
    let calibrated = |extra: &[&str], name: &str| -> (Value, Value, String, String) {
        let out = dir.path().join(name);
        let assert = pkbench()
            .args(["predict", "-s", "int-client,snowflake,uuid4", "-n", "60k", "-b", "10k", "--cache-mb", "1"])
            .args(["--calibrate", "--calibrate-rows", "30k"])
            .args(extra)
            .arg("--out")
            .arg(&out)
            .assert()
            .success();
        let output = assert.get_output();
        let (stdout, stderr) = (String::from_utf8_lossy(&output.stdout), String::from_utf8_lossy(&output.stderr));
        let read = |f: &str| serde_json::from_str::<Value>(&std::fs::read_to_string(out.join(f)).unwrap()).unwrap();
        (read("results.json"), read("calibration/results.json"), stdout.into_owned(), stderr.into_owned())
    };
    let strategies = |doc: &Value| -> Vec<String> {
        doc["runs"].as_array().unwrap().iter().map(|r| r["strategy"].as_str().unwrap().to_string()).collect()
    };
    let (forecast, real, stdout, stderr) = calibrated(&[], "shared");
    assert_eq!(strategies(&real), ["int-client", "uuid4"], "snowflake takes int-client's run");
    assert!(stdout.contains("snowflake: no calibration run of its own"), "{stdout}");
    assert_eq!(strategies(&forecast), ["int-client", "snowflake", "uuid4"], "but every key is forecast");
    assert!(stderr.contains("snowflake takes int-client's"), "{stderr}");
    for run in forecast["runs"].as_array().unwrap() {
        let options = &run["settings"]["workload_options"];
        let taken = options.get("calibrated_as").and_then(Value::as_str);
        match run["strategy"].as_str().unwrap() {
            "snowflake" => assert!(taken.is_some_and(|t| t.contains("as int-client's do")), "{options}"),
            _ => assert_eq!(taken, None, "{options}"),
        }
        assert!(run["batches"].as_array().unwrap().iter().all(|b| b["elapsed_ns"].as_u64().unwrap() > 0));
    }
    let (forecast, real, stdout, stderr) = calibrated(&["--calibrate-each"], "each");
    assert_eq!(strategies(&real), ["int-client", "snowflake", "uuid4"]);
    assert!(!stderr.contains("takes int-client's") && !stdout.contains("no calibration run of its own"), "{stderr}");
    let taken = forecast["runs"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|r| r["settings"]["workload_options"].get("calibrated_as").is_some())
        .count();
    assert_eq!(taken, 0);
}

#[test]
fn check_runs_real_sqlite_and_prints_predicted_against_measured() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("out");
    pkbench()
        .args(["predict", "-s", "int,uuid4", "-n", "90k", "-b", "10k", "--cache-mb", "1", "--calibrate"])
        .args(["--calibrate-rows", "60k", "--check", "90k", "-q", "--out"])
        .arg(&out)
        .assert()
        .success()
        .stdout(
            predicate::str::contains("Predicted against measured")
                .and(predicate::str::contains("uuid4, last 5 batches: "))
                .and(predicate::str::contains("inside the interval"))
                .and(predicate::str::contains("machine slowdown"))
                .and(predicate::str::contains("within 25%"))
                .and(predicate::str::contains("leaf pages")),
        );
    let real: Value = serde_json::from_str(&std::fs::read_to_string(out.join("check/results.json")).unwrap()).unwrap();
    assert_eq!(real["runs"][1]["batches"].as_array().unwrap().len(), 9);
    // Every real run, calibration and check, carries the machine's speed after its first batch,
    // and after later ones once they have taken ten canaries' time.
    let calibration: Value =
        serde_json::from_str(&std::fs::read_to_string(out.join("calibration/results.json")).unwrap()).unwrap();
    for doc in [&real, &calibration] {
        for run in doc["runs"].as_array().unwrap() {
            let batches = run["batches"].as_array().unwrap();
            assert!(batches[0]["machine_ns"].as_u64().is_some_and(|ns| ns > 0), "{}", batches[0]);
            for b in batches.iter().filter(|b| b.get("machine_ns").is_some()) {
                assert!(b["machine_ns"].as_u64().is_some_and(|ns| ns > 0), "{b}");
            }
        }
    }
    pkbench()
        .args(["predict", "-s", "int", "-n", "50k", "--check", "60k", "-q", "--out"])
        .arg(dir.path().join("more"))
        .assert()
        .failure()
        .stderr(predicate::str::contains("more than --rows"));
}

#[test]
fn sharded_model_prints_each_strategys_hottest_shard() {
    pkbench()
        .args([
            "predict",
            "-s",
            "int,uuid7,uuid4",
            "-n",
            "100k",
            "-b",
            "10k",
            "--shards",
            "4",
            "--sharding",
            "range",
            "-q",
        ])
        .assert()
        .success()
        .stdout(
            predicate::str::contains("sharded model (even-ranges) · 4 range shards")
                .and(predicate::str::contains("hottest share, median"))
                .and(predicate::str::contains("25000 25000 25000 25000"))
                .and(predicate::str::contains("not of time")),
        );
    let output = pkbench()
        .args(["predict", "-s", "int,uuid4", "-n", "100k", "-b", "10k", "--shards", "4", "--sharding", "hash"])
        .args(["--format", "json", "-q"])
        .output()
        .unwrap();
    assert!(output.status.success(), "{}", String::from_utf8_lossy(&output.stderr));
    let doc: Value = serde_json::from_slice(&output.stdout).unwrap();
    assert_eq!(doc["model"], "hash");
    assert!(doc["note"].as_str().unwrap().contains("not of time"));
    let forecasts = doc["forecasts"].as_array().unwrap();
    assert_eq!(forecasts.len(), 2);
    for f in forecasts {
        assert!(f["skew"]["max_over_mean_max"].as_f64().unwrap() <= 1.1, "{f}");
        assert_eq!(f["skew"]["intervals"], 10);
    }
    let output = pkbench()
        .args(["predict", "-s", "uuid7,uuid4", "-n", "200k", "-b", "2k", "--shards", "4", "--range-split-mb", "0.5"])
        .args(["--format", "json", "-q"])
        .output()
        .unwrap();
    assert!(output.status.success(), "{}", String::from_utf8_lossy(&output.stderr));
    let doc: Value = serde_json::from_slice(&output.stdout).unwrap();
    assert_eq!(doc["model"], "split-ranges");
    assert_eq!(doc["range_split_bytes"], 524_288);
    let share = |i: usize| doc["forecasts"][i]["skew"]["hottest_share_median"].as_f64().unwrap();
    assert!(share(0) >= 0.9 && share(1) <= 0.4, "{doc}");
}

#[test]
fn sharded_model_bad_values_are_one_line_errors() {
    for (args, needle) in [
        (&["--shards", "1"][..], "--shards 1 is out of range"),
        (&["--sharding", "diagonal"][..], "--sharding 'diagonal' is not known"),
        (&["--sharding", "hash", "--range-split-mb", "8"][..], "leave it out with --sharding hash"),
        (&["--range-split-mb", "0"][..], "--range-split-mb 0 is out of range"),
        (&["--range-split-mb", "0.000001"][..], "use larger ranges"),
        (&["--shards", "4", "--check", "1k"][..], "--check is for the page model"),
        (&["--shards", "4", "-s", "uuid4-server"][..], "made by the server"),
        (&["--format", "json"][..], "--format json is for the sharded model"),
    ] {
        let output = pkbench().args(["predict", "-n", "10k", "-b", "1k", "-q"]).args(args).output().unwrap();
        assert!(!output.status.success(), "{args:?}");
        let stderr = String::from_utf8_lossy(&output.stderr);
        let lines: Vec<&str> = stderr.lines().filter(|l| !l.trim().is_empty()).collect();
        assert_eq!(lines.len(), 1, "{stderr}");
        assert!(lines[0].starts_with("Error: ") && lines[0].contains(needle), "{stderr}");
    }
}

/// Calibration and checks on managed servers (tier two).
#[cfg(feature = "server-tests")]
mod servers {
    use super::*;

    /// Every run of a calibrated forecast names the calibration and its `terms` (a cost's unit),
    /// and every batch has a time inside its interval.
    fn assert_calibrated_and_timed(doc: &Value, terms: &str, engine: &str) {
        for run in doc["runs"].as_array().unwrap() {
            let timing = run["settings"]["workload_options"]["timing"].as_str().unwrap();
            assert!(timing.contains("calibrated on a real run") && timing.contains(terms), "{engine}: {timing}");
            for b in run["batches"].as_array().unwrap() {
                let (ns, lo, hi) =
                    (b["elapsed_ns"].as_u64().unwrap(), b["elapsed_ns_low"].as_u64(), b["elapsed_ns_high"].as_u64());
                assert!(ns > 0 && lo.unwrap() <= ns && ns <= hi.unwrap(), "{engine}: {b}");
            }
        }
    }

    /// `--calibrate` and `--check` on the servers start a managed server (the calibration's with a
    /// scaled cache, the check's with the prediction's; on PostgreSQL of the `--pg-version`
    /// asked), fit the engine's own terms and print the comparison; every batch gets a time and
    /// an interval.
    #[test]
    fn server_models_calibrate_and_check_on_managed_servers() {
        for (engine, cache, terms) in [("postgres", "8", "WAL byte"), ("mariadb", "16", "page dirtied")] {
            let dir = tempfile::tempdir().unwrap();
            let out = dir.path().join("out");
            let version: &[&str] = if engine == "postgres" { &["--pg-version", "16"] } else { &[] };
            let output = pkbench()
                .env_remove("PKBENCH_PG_URL")
                .env_remove("PKBENCH_MYSQL_URL")
                .args([
                    "predict",
                    "--engine",
                    engine,
                    "-s",
                    "int,uuid4",
                    "-n",
                    "120k",
                    "-b",
                    "10k",
                    "--cache-mb",
                    cache,
                ])
                .args(version)
                .args(["--calibrate", "--calibrate-rows", "30k", "--check", "120k", "-o"])
                .arg(&out)
                .output()
                .unwrap();
            let stdout = String::from_utf8_lossy(&output.stdout);
            assert!(output.status.success(), "{engine}: {}", String::from_utf8_lossy(&output.stderr));
            assert!(stdout.contains("Predicted against measured"), "{engine}: {stdout}");
            // The servers' batches are held to issue 16's 30%, SQLite's to 25%.
            assert!(stdout.contains("within 30%"), "{engine}: {stdout}");
            let doc: Value = serde_json::from_str(&std::fs::read_to_string(out.join("results.json")).unwrap()).unwrap();
            assert_calibrated_and_timed(&doc, terms, engine);
            let real: Value =
                serde_json::from_str(&std::fs::read_to_string(out.join("check/results.json")).unwrap()).unwrap();
            assert_eq!(real["runs"][1]["verified_rows"], 120_000, "{engine}");
            let calibration: Value =
                serde_json::from_str(&std::fs::read_to_string(out.join("calibration/results.json")).unwrap()).unwrap();
            assert_eq!(calibration["runs"][0]["engine"], engine);
            if engine == "postgres" {
                for doc in [&calibration, &real] {
                    let version = doc["environment"]["engine_version"].as_str().unwrap();
                    assert!(version.starts_with("16."), "--pg-version 16 ran {version}");
                }
                // A quarter of the rows: checkpoints after a quarter of the WAL the check's do.
                let wal = |doc: &Value, name: &str| doc["runs"][0]["settings"]["engine"][name].clone();
                assert_eq!(
                    (wal(&calibration, "max_wal_size"), wal(&calibration, "wal_segment_size")),
                    ("16MB".into(), "4MB".into())
                );
                assert_eq!(
                    (wal(&real, "max_wal_size"), wal(&real, "wal_segment_size")),
                    ("64MB".into(), "16MB".into())
                );
            }
            // The same fit again from the saved runs: the plan (cache, batch) is read from them.
            let again = pkbench()
                .args([
                    "predict",
                    "--engine",
                    engine,
                    "-s",
                    "int,uuid4",
                    "-n",
                    "120k",
                    "-b",
                    "10k",
                    "--cache-mb",
                    cache,
                ])
                .args(["--calibrate-rows", "30k", "--calibrate-from"])
                .arg(out.join("calibration/results.json"))
                .arg("--check-from")
                .arg(out.join("check/results.json"))
                .arg("-o")
                .arg(dir.path().join("again"))
                .output()
                .unwrap();
            assert!(again.status.success(), "{engine}: {}", String::from_utf8_lossy(&again.stderr));
            let again: Value =
                serde_json::from_str(&std::fs::read_to_string(dir.path().join("again/results.json")).unwrap()).unwrap();
            let timing =
                |d: &Value| d["runs"][0]["settings"]["workload_options"]["timing"].as_str().unwrap().to_string();
            let plan = |t: String| t.split(';').next().unwrap().to_string();
            assert_eq!(plan(timing(&again)), plan(timing(&doc)), "{engine}: the plan read back");
            // A SQLite run is not this engine's calibration.
            let wrong = pkbench()
                .args(["predict", "-n", "120k", "-s", "int", "--calibrate-from"])
                .arg(out.join("calibration/results.json"))
                .output()
                .unwrap();
            assert!(!wrong.status.success());
            assert!(String::from_utf8_lossy(&wrong.stderr).contains("no SQLite batches"), "{engine}");
        }
    }

    /// MyRocks' calibration and check run on managed servers, the check with MyRocks' own
    /// memtable and level sizes and the calibration, at a third of the target's rows, with a
    /// third of them; the recorded sizes are replayed by the model, and the calibration runs the
    /// target's batch. Its time is fitted to the memtable's skip-list levels descended among
    /// other costs, a random key's inserts are priced at the memtable they land in (the
    /// memtable probe's), and every batch gets a time and interval.
    #[test]
    fn myrocks_calibrates_and_checks_on_managed_servers() {
        let dir = tempfile::tempdir().unwrap();
        let out = dir.path().join("out");
        let output = pkbench()
            .env_remove("PKBENCH_MYROCKS_URL")
            .args(["predict", "--engine", "myrocks", "-s", "int,uuid4", "-n", "1M", "-b", "10k", "--cache-mb", "64"])
            .args(["--calibrate", "--calibrate-rows", "300k", "--check", "300k", "-o"])
            .arg(&out)
            .output()
            .unwrap();
        let stdout = String::from_utf8_lossy(&output.stdout);
        assert!(output.status.success(), "{}", String::from_utf8_lossy(&output.stderr));
        assert!(stdout.contains("Predicted against measured"), "{stdout}");
        let read =
            |path: &str| -> Value { serde_json::from_str(&std::fs::read_to_string(out.join(path)).unwrap()).unwrap() };
        let doc = read("results.json");
        assert_calibrated_and_timed(&doc, "skip-list level", "myrocks");
        let memtable = |doc: &Value| doc["runs"][0]["settings"]["engine"]["rocksdb_cf_write_buffer_size"].clone();
        assert_eq!(memtable(&read("calibration/results.json")), (67108864 / 3).to_string(), "a third of the tree");
        assert_eq!(memtable(&read("check/results.json")), "67108864", "MyRocks' default");
        // The memtable probe's curve, and uuid4's inserts inside the memtable priced on it.
        let note = |name: &str| {
            doc["runs"][1]["settings"]["workload_options"]["working_set"].as_str().map(|n| n.contains(name))
        };
        assert_eq!(note("memtable"), Some(true), "{}", doc["runs"][1]["settings"]["workload_options"]);
        let jumps = |run: usize| doc["runs"][run]["batches"][1]["counters"]["leaf_jumps"].as_u64();
        assert_eq!((jumps(0), jumps(1).map(|j| j > 9_000)), (Some(0), Some(true)), "int appends, uuid4 jumps");
    }
}

/// The "Predicting" line of `pkbench predict ARGS`; the forecast itself is not waited for.
fn predicting_line(args: &[&str]) -> String {
    use std::io::BufRead;
    let dir = tempfile::tempdir().unwrap();
    let mut child = std::process::Command::new(assert_cmd::cargo::cargo_bin("pkbench"))
        .arg("predict")
        .args(args)
        .arg("--out")
        .arg(dir.path().join("out"))
        .stderr(std::process::Stdio::piped())
        .stdout(std::process::Stdio::null())
        .spawn()
        .unwrap();
    let stderr = std::io::BufReader::new(child.stderr.take().unwrap());
    let line = stderr.lines().map_while(Result::ok).find(|l| l.starts_with("Predicting"));
    child.kill().unwrap();
    child.wait().unwrap();
    line.expect("a 'Predicting' line")
}

/// A batch that holds the scale model back is named up front, with the batch that would let it
/// simulate fewer rows.
#[test]
fn a_batch_that_holds_the_scale_back_is_named_before_the_forecast_starts() {
    let line = predicting_line(&["-s", "uuid4", "-n", "100M", "-b", "10k"]);
    assert!(line.contains("50000000 rows simulated"), "{line}");
    assert!(line.contains("--batch 100000 simulates fewer rows"), "{line}");
}

/// Without --batch, a billion-row forecast's batch grows with it (1.6M rows: 625 batches), and
/// its scale with the batch (1/256 keeps 6,250 rows per simulated batch).
#[test]
fn a_billion_row_forecast_gets_a_batch_that_lets_it_scale() {
    let line = predicting_line(&["-s", "uuid4", "-n", "1G", "--cache-mb", "1024"]);
    assert!(line.contains("scale model 1/256: 3906250 rows simulated"), "{line}");
    assert!(!line.contains("holds the scale model back"), "{line}");
}
