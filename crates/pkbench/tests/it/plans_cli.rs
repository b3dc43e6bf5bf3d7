//! Plan files on the command line: a plan expands into checked cases, each run into its own
//! folder; shards of a plan run every case once between them; a stopped or killed plan resumes
//! where it stopped and is never mixed with another; a plan over two engines, sharded three ways,
//! merges into the unsharded cases.

use crate::common::{assert_one_line_error, pkbench};

#[test]
fn a_plan_expands_into_checked_cases_each_run_into_its_own_folder() {
    let dir = tempfile::tempdir().unwrap();
    let plan = dir.path().join("plan.toml");
    std::fs::write(
        &plan,
        "[run]\nrows = \"2k\"\nbatch = \"1k\"\n\n[axes]\nstrategies = [\"int,uuid4\", \"uuid7\"]\ncache_mb = [1, 8]\n\n[[exclude]]\nstrategies = \"uuid7\"\ncache_mb = 1\n",
    )
    .unwrap();
    let show = pkbench().args(["plan", "show"]).arg(&plan).output().unwrap();
    assert!(show.status.success());
    let text = String::from_utf8_lossy(&show.stdout);
    assert!(text.starts_with("3 cases in "), "{text}");
    assert!(text.contains("pkbench run --rows 2k --batch 1k --strategies uuid7 --cache-mb 8"), "{text}");
    // Each case's cost (rows × strategies), its share, and the total --shard balances.
    assert!(text.contains("[cost 4k rows, 40%]") && text.contains("[cost 2k rows, 20%]"), "{text}");
    assert!(text.contains("Estimated cost: 10k rows in all"), "{text}");
    let out = dir.path().join("out");
    pkbench().args(["run", "-q", "--plan"]).arg(&plan).arg("-o").arg(&out).assert().success();
    for case in 1..=3 {
        let doc: serde_json::Value =
            serde_json::from_slice(&std::fs::read(out.join(format!("case-{case:03}/results.json"))).unwrap()).unwrap();
        assert_eq!(doc["runs"][0]["settings"]["rows"], 2000);
    }
    assert!(out.join("plan.toml").is_file(), "the plan is kept with its results");
    // Bad plans: one line, with file:line:column, before anything runs.
    for (body, needle) in [
        ("[run]\nrows = \n", "plan.toml:2:8: invalid string"),
        (
            "[run]\nrows = \"2k\"\nbogus = 3\n",
            "plan.toml:3:1: case 1 (the [run] settings): unexpected argument '--bogus'",
        ),
        ("[axes]\ncache_mb = [8, \"lots\"]\n", "plan.toml:2:1: case 2 (cache-mb=lots): invalid value 'lots'"),
        ("[axes]\nrows = []\n", "plan.toml:2:1: axis 'rows' is empty"),
        (
            "[axes]\nstrategies = [\"int\", \"uuid4-mariadb-uuid\"]\n",
            "plan.toml:2:1: case 2 (strategies=uuid4-mariadb-uuid): strategy 'uuid4-mariadb-uuid' is not supported on sqlite",
        ),
    ] {
        std::fs::write(&plan, body).unwrap();
        let never = dir.path().join("never");
        let output = pkbench().args(["run", "--plan"]).arg(&plan).arg("-o").arg(&never).output().unwrap();
        assert_one_line_error(&output, needle);
        assert!(!never.exists(), "nothing runs for a bad plan");
    }
    let output = pkbench().args(["run", "--rows", "5", "--plan"]).arg(&plan).output().unwrap();
    assert_one_line_error(&output, "--rows cannot be given beside --plan");
}

#[test]
fn shards_of_a_plan_run_every_case_exactly_once_between_them() {
    let dir = tempfile::tempdir().unwrap();
    let plan = dir.path().join("plan.toml");
    std::fs::write(
        &plan,
        "[run]\nbatch = \"1k\"\n\n[axes]\nrows = [\"1k\", \"2k\", \"3k\"]\nstrategies = [\"int\", \"uuid4\"]\n",
    )
    .unwrap();
    let mut ran: Vec<String> = Vec::new();
    for k in 1..=2 {
        let out = dir.path().join(format!("shard{k}"));
        pkbench()
            .args(["run", "-q", "--shard", &format!("{k}/2"), "--plan"])
            .arg(&plan)
            .arg("-o")
            .arg(&out)
            .assert()
            .success();
        let cases: Vec<String> = std::fs::read_dir(&out)
            .unwrap()
            .filter_map(|e| e.ok().map(|e| e.file_name().to_string_lossy().to_string()))
            .filter(|n| n.starts_with("case-"))
            .collect();
        assert!(!cases.is_empty(), "shard {k} ran nothing");
        ran.extend(cases);
    }
    ran.sort();
    assert_eq!(ran, (1..=6).map(|i| format!("case-{i:03}")).collect::<Vec<_>>(), "each case once");
    let (s1, s2) = (dir.path().join("shard1"), dir.path().join("shard2"));
    // Reporting the shards' folders themselves points to plan merge.
    let output = pkbench().arg("report").arg(&s1).arg(&s2).output().unwrap();
    assert_one_line_error(&output, "holds a plan's cases");
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(stderr.contains(&format!("pkbench plan merge {} {} -o merged", s1.display(), s2.display())), "{stderr}");
    // The shards' folders merge into one results folder, every case once.
    let merged = dir.path().join("merged");
    pkbench().args(["plan", "merge"]).arg(&s1).arg(&s2).arg("-o").arg(&merged).assert().success();
    let doc: serde_json::Value = serde_json::from_slice(&std::fs::read(merged.join("results.json")).unwrap()).unwrap();
    assert_eq!(doc["runs"].as_array().unwrap().len(), 6);
    assert!(merged.join("report.html").is_file());
    let output = pkbench().args(["plan", "merge"]).arg(&s1).arg("-o").arg(dir.path().join("m2")).output().unwrap();
    assert_one_line_error(&output, "have no finished results in these folders");
    let output =
        pkbench().args(["plan", "merge"]).arg(&s1).arg(&s1).arg("-o").arg(dir.path().join("m3")).output().unwrap();
    assert_one_line_error(&output, "is in both");
    // A seeded shuffle, and the first case run again at the end to show drift.
    let out = dir.path().join("shuffled");
    let output = pkbench()
        .args(["run", "-q", "--order", "shuffle:3", "--drift-check", "--plan"])
        .arg(&plan)
        .arg("-o")
        .arg(&out)
        .output()
        .unwrap();
    assert!(output.status.success());
    let stderr = String::from_utf8_lossy(&output.stderr);
    let order = stderr.lines().find(|l| l.starts_with("Cases in shuffled order: ")).unwrap().to_string();
    assert_ne!(order, "Cases in shuffled order: 1, 2, 3, 4, 5, 6", "shuffled");
    let first = order.trim_start_matches("Cases in shuffled order: ").split(", ").next().unwrap().to_string();
    assert!(stderr.contains(&format!("Drift check: case {first} again")), "{stderr}");
    let md = std::fs::read_to_string(out.join("drift-check.md")).unwrap();
    assert!(md.starts_with("| engine | workload | strategy |"), "{md}");
    let output = pkbench().args(["run", "--shard", "3/2", "--plan"]).arg(&plan).output().unwrap();
    assert!(String::from_utf8_lossy(&output.stderr).contains("give K/N with 1 ≤ K ≤ N"));
}

#[test]
fn a_plan_resumes_where_it_stopped_and_never_mixes_plans() {
    let dir = tempfile::tempdir().unwrap();
    let plan = dir.path().join("plan.toml");
    std::fs::write(
        &plan,
        "[run]\nrows = \"1k\"\nbatch = \"1k\"\n\n[axes]\nstrategies = [\"int\", \"uuid4\", \"uuid7\"]\n",
    )
    .unwrap();
    let out = dir.path().join("out");
    let run = |extra: &[&str]| {
        pkbench().arg("run").args(extra).arg("--plan").arg(&plan).arg("-o").arg(&out).output().unwrap()
    };
    assert!(run(&["-q"]).status.success());
    // As if the machine was lost during case 2: its folder has no results.
    std::fs::remove_file(out.join("case-002/results.json")).unwrap();
    assert_one_line_error(&run(&["-q"]), "add --resume to finish it");
    let resumed = run(&["-q", "--resume"]);
    assert!(resumed.status.success(), "{}", String::from_utf8_lossy(&resumed.stderr));
    let stderr = String::from_utf8_lossy(&resumed.stderr);
    assert!(
        stderr.contains("Plan case 1 (1 of 3): done before, skipped")
            && stderr.contains("Plan case 3 (3 of 3): done before, skipped"),
        "{stderr}"
    );
    assert!(out.join("case-002/results.json").is_file(), "case 2 ran again");
    std::fs::write(&plan, "[run]\nrows = \"2k\"\n").unwrap();
    assert_one_line_error(&run(&["--resume"]), "holds the results of another plan");
}

#[test]
fn a_plan_killed_mid_case_resumes_without_running_a_finished_case_again() {
    let dir = tempfile::tempdir().unwrap();
    let plan = dir.path().join("plan.toml");
    // Case 2 is long enough to be killed in the middle of.
    std::fs::write(
        &plan,
        "[run]\nbatch = \"10k\"\nstrategies = \"uuid4\"\n\n[axes]\nrows = [\"1k\", \"300k\", \"1k\"]\n",
    )
    .unwrap();
    let out = dir.path().join("out");
    let mut child = std::process::Command::new(assert_cmd::cargo::cargo_bin("pkbench"))
        .args(["run", "-q", "--plan"])
        .arg(&plan)
        .arg("-o")
        .arg(&out)
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    let journal = out.join("case-002/journal.jsonl");
    let started = std::time::Instant::now();
    while !journal.is_file() {
        assert!(started.elapsed() < std::time::Duration::from_secs(60), "case 2 never started");
        std::thread::sleep(std::time::Duration::from_millis(10));
    }
    child.kill().unwrap(); // SIGKILL: no handler runs
    child.wait().unwrap();
    assert!(!out.join("case-003").exists(), "killed before case 3");
    let first = std::fs::read(out.join("case-001/results.json")).unwrap();
    let resumed = pkbench().args(["run", "-q", "--resume", "--plan"]).arg(&plan).arg("-o").arg(&out).output().unwrap();
    assert!(resumed.status.success(), "{}", String::from_utf8_lossy(&resumed.stderr));
    let stderr = String::from_utf8_lossy(&resumed.stderr);
    // Executions, counted: case 1 skipped, cases 2 and 3 run once each.
    let ran = |n: u32| {
        stderr.lines().filter(|l| l.starts_with(&format!("Plan case {n} (")) && !l.ends_with("skipped")).count()
    };
    assert_eq!((ran(1), ran(2), ran(3)), (0, 1, 1), "{stderr}");
    assert_eq!(std::fs::read(out.join("case-001/results.json")).unwrap(), first, "case 1 untouched");
    for n in 2..=3 {
        let doc: serde_json::Value =
            serde_json::from_slice(&std::fs::read(out.join(format!("case-{n:03}/results.json"))).unwrap()).unwrap();
        assert_eq!(doc["runs"][0]["complete"], true);
    }
}

#[cfg(feature = "server-tests")]
#[test]
fn a_12_case_plan_over_two_engines_sharded_three_ways_merges_into_the_unsharded_cases() {
    let dir = tempfile::tempdir().unwrap();
    let plan = dir.path().join("plan.toml");
    std::fs::write(
        &plan,
        "[run]\nbatch = \"1k\"\nquiet = true\n\n[axes]\nengine = [\"sqlite\", \"postgres\"]\nstrategies = [\"int\", \"uuid7\", \"uuid4\"]\nrows = [\"1k\", \"2k\"]\n",
    )
    .unwrap();
    let run = |extra: &[&str], out: &std::path::Path| {
        let output = pkbench()
            .env_remove("PKBENCH_PG_URL")
            .env_remove("PKBENCH_MYSQL_URL")
            .arg("run")
            .args(extra)
            .arg("--plan")
            .arg(&plan)
            .arg("-o")
            .arg(out)
            .output()
            .unwrap();
        assert!(output.status.success(), "{}", String::from_utf8_lossy(&output.stderr));
    };
    // Three shards in three processes at once, as three machines would.
    let shards: Vec<std::path::PathBuf> = (1..=3).map(|k| dir.path().join(format!("shard{k}"))).collect();
    std::thread::scope(|s| {
        for (k, out) in shards.iter().enumerate() {
            let shard = format!("{}/3", k + 1);
            s.spawn(move || run(&["--shard", &shard], out));
        }
    });
    let whole = dir.path().join("whole");
    run(&[], &whole);
    let merged = dir.path().join("merged");
    let out = pkbench().args(["plan", "merge"]).args(&shards).arg("-o").arg(&merged).output().unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let cases = |doc: &serde_json::Value| -> Vec<String> {
        let mut v: Vec<String> = doc["runs"]
            .as_array()
            .unwrap()
            .iter()
            .map(|r| format!("{} {} {}", r["engine"], r["strategy"], r["settings"]["rows"]))
            .collect();
        v.sort();
        v
    };
    let merged_doc: serde_json::Value =
        serde_json::from_slice(&std::fs::read(merged.join("results.json")).unwrap()).unwrap();
    let mut whole_cases = Vec::new();
    for n in 1..=12 {
        let doc: serde_json::Value =
            serde_json::from_slice(&std::fs::read(whole.join(format!("case-{n:03}/results.json"))).unwrap()).unwrap();
        whole_cases.extend(cases(&doc));
    }
    whole_cases.sort();
    assert_eq!(whole_cases.len(), 12);
    assert_eq!(cases(&merged_doc), whole_cases, "the shards together hold exactly the unsharded cases, each once");
}
