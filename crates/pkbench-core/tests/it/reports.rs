//! Snapshot tests of the runner and the text exporters, driven by the deterministic mock engine
//! (fixed environment, fake timer), so the output is identical on every machine.

use pkbench_core::control::RunControl;
use pkbench_core::engines::mock::{FakeTimer, MockEngine};
use pkbench_core::report::{Format, JOURNAL_FILE, ResultsWriter, recover};
use pkbench_core::results::{Environment, ResultsDoc};
use pkbench_core::run::{RunOutcome, RunPlan, run};
use pkbench_core::strategy::parse_list;
use pkbench_core::workloads::{CaseContext, InsertGrowth, Silent};
use std::sync::Arc;

fn environment() -> Environment {
    Environment {
        pkbench_version: "0.0.0-test".into(),
        engine: "mock".into(),
        engine_version: "1.0".into(),
        os: "TestOS 1".into(),
        kernel: "6.1.0".into(),
        cpu_model: "Test CPU".into(),
        cpu_cores: 2,
        memory_bytes: 24 << 30,
        data_filesystem: Some("ext4".into()),
    }
}

fn mock_run(strategies: &str, fail_at_batch: Option<u64>, writer: Option<&ResultsWriter>) -> RunOutcome {
    let timer = Arc::new(FakeTimer::default());
    let mut engine = MockEngine::new(Arc::clone(&timer));
    engine.fail_at_batch = fail_at_batch;
    mock_run_on(engine, timer, strategies, writer)
}

fn mock_run_on(
    mut engine: MockEngine,
    timer: Arc<FakeTimer>,
    strategies: &str,
    writer: Option<&ResultsWriter>,
) -> RunOutcome {
    let workload = InsertGrowth::new(100_000, 10_000, 50, 42).unwrap();
    let plan = RunPlan {
        workload: &workload,
        strategies: parse_list(strategies).unwrap(),
        command: vec!["pkbench".into(), "run".into(), "--engine".into(), "mock".into()],
    };
    let control = RunControl::new();
    let ctx =
        CaseContext { control: &control, timer: timer.as_ref(), observer: &Silent, counter_budget: Default::default() };
    let mut outcome = run(&plan, &mut engine, environment(), writer, &ctx).unwrap();
    outcome.doc.started_at = "2026-01-01T00:00:00.000Z".into();
    outcome
}

fn doc() -> ResultsDoc {
    let outcome = mock_run("int,uuid7,uuid4,uuid4-text,int+uuid4", None, None);
    assert!(outcome.error.is_none());
    outcome.doc
}

#[test]
fn table_snapshot() {
    insta::assert_snapshot!(Format::Table.exporter().render(&doc()).unwrap());
}

#[test]
fn markdown_snapshot() {
    insta::assert_snapshot!(Format::Markdown.exporter().render(&doc()).unwrap());
}

#[test]
fn a_prediction_without_batch_times_shows_none() {
    // An uncalibrated prediction: counts and sizes, every batch untimed.
    let mut doc = doc();
    for batch in doc.runs.iter_mut().flat_map(|r| &mut r.batches) {
        batch.elapsed_ns = 0;
    }
    let md = Format::Markdown.exporter().render(&doc).unwrap();
    assert!(!md.contains("## Milliseconds per batch"), "{md}");
    assert!(!md.contains("No batch finished") && !md.contains("| 0.00 |"), "{md}");
    let int = md.lines().find(|l| l.starts_with("| int |")).unwrap();
    assert!(int.starts_with("| int | – | – | – |"), "{int}");
}

#[test]
fn csv_has_one_row_per_batch() {
    let csv = Format::Csv.exporter().render(&doc()).unwrap();
    let lines: Vec<&str> = csv.lines().collect();
    assert_eq!(lines.len(), 1 + 5 * 10);
    insta::assert_snapshot!(lines[..4].join("\n"));
}

#[test]
fn json_round_trips() {
    let d = doc();
    let text = Format::Json.exporter().render(&d).unwrap();
    let back: ResultsDoc = serde_json::from_str(&text).unwrap();
    assert_eq!(back, d);
}

#[test]
fn a_failing_case_keeps_earlier_results_on_disk() {
    let dir = tempfile::tempdir().unwrap();
    let writer = ResultsWriter::create(dir.path()).unwrap();
    // The mock fails every case at batch 3: the first strategy stops there.
    let outcome = mock_run("int,uuid4", Some(3), Some(&writer));
    let err = outcome.error.expect("the run must fail").to_string();
    assert!(err.contains("disk full"), "{err}");
    let saved: ResultsDoc = serde_json::from_slice(&std::fs::read(writer.json_path()).unwrap()).unwrap();
    assert_eq!(saved.runs.len(), 1);
    assert!(!saved.runs[0].complete);
    assert_eq!(saved.runs[0].batches.len(), 3);
    assert_eq!(saved.runs[0].verified_rows, Some(30_000), "the rows the kept batches committed, counted");
    assert!(saved.runs[0].error.as_deref().unwrap().contains("disk full"));
    let table = Format::Table.exporter().render(&saved).unwrap();
    assert!(table.contains("int (incomplete)"), "{table}");
    assert!(dir.path().join("results.csv").exists() && dir.path().join("results.md").exists());
    assert!(outcome.journal.is_none(), "the results files hold every batch");
    assert!(!dir.path().join(JOURNAL_FILE).exists(), "a stop whose results were written leaves no journal");
}

#[test]
fn results_that_cannot_be_written_keep_the_journal() {
    let dir = tempfile::tempdir().unwrap();
    let writer = ResultsWriter::create(dir.path()).unwrap();
    // results.json's temporary file cannot be created: every write of the results fails.
    std::fs::create_dir(dir.path().join("results.json.tmp")).unwrap();
    let outcome = mock_run("int,uuid4", None, Some(&writer));
    assert!(outcome.error.is_some(), "a failed write stops the run");
    assert_eq!(outcome.journal.as_deref(), Some(dir.path().join(JOURNAL_FILE).as_path()));
    let recovered = recover(dir.path()).unwrap().expect("the journal holds the batches");
    assert_eq!(recovered.runs.len(), 1);
    assert_eq!(recovered.runs[0].batches.len(), 10);
    assert!(!writer.json_path().exists());
}

#[test]
fn a_batch_whose_commit_answer_was_lost_is_kept_when_its_rows_are_there() {
    let timer = Arc::new(FakeTimer::default());
    let mut engine = MockEngine::new(Arc::clone(&timer));
    engine.lose_answer_at_batch = Some(3);
    let outcome = mock_run_on(engine, timer, "int", None);
    let err = outcome.error.expect("the run must fail").to_string();
    assert!(err.starts_with("the mock server closed the connection: COMMIT failed"), "{err}");
    let run = &outcome.doc.runs[0];
    assert!(!run.complete);
    assert_eq!(run.batches.len(), 4, "batches 0-2 and the one committed without an answer");
    assert_eq!(run.verified_rows, Some(40_000));
    assert_eq!(run.batches.last().map(|b| b.rows_total), run.verified_rows);
}

#[test]
fn sampled_waits_are_tabled_and_charted_as_shares_of_busy_session_time() {
    use pkbench_core::results::PhaseResult;
    let mut d = doc();
    for (run, (cpu, lock)) in d.runs.iter_mut().zip([(30, 10), (10, 30)]) {
        run.phases.push(PhaseResult {
            name: "concurrent-insert".into(),
            waits: [("CPU".to_string(), cpu), ("Lock:transactionid".to_string(), lock)].into(),
            figures: [("wait_samples".to_string(), 20.0), ("wait_sample_hz".to_string(), 50.0)].into(),
            ..PhaseResult::default()
        });
    }
    let table = Format::Table.exporter().render(&d).unwrap();
    assert!(table.contains("What the sessions waited for"), "{table}");
    assert!(table.contains("75.0%") && table.contains("25.0%"), "{table}");
    let md = Format::Markdown.exporter().render(&d).unwrap();
    assert!(md.contains("| Lock:transactionid"), "{md}");
    let html = Format::Html.exporter().render(&d).unwrap();
    assert!(
        html.contains("The most common wait: int CPU (75.0%) and uuid7 Lock:transactionid (75.0%)."),
        "no chart sentence"
    );
}
