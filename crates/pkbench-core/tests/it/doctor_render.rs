//! Snapshots of doctor's terminal and Markdown output for databases grown by pkbench's own
//! workload (seeded keys on a virtual clock, so the files and the report are the same each run).

use pkbench_core::control::{MonotonicTimer, RunControl};
use pkbench_core::doctor::{DoctorOptions, DoctorReport, diagnose, migration_sql, render};
use pkbench_core::engines::sqlite::{SqliteEngine, SqliteSettings};
use pkbench_core::strategy::find;
use pkbench_core::workloads::{CaseContext, InsertGrowth, Silent, Workload};
use std::path::{Path, PathBuf};

fn fixture(dir: &Path, strategy: &str) -> PathBuf {
    let settings = SqliteSettings { cache_mb: 2, keep_db: true, ..SqliteSettings::seed_000(dir.to_path_buf()) };
    let mut engine = SqliteEngine::new(settings).unwrap();
    let workload = InsertGrowth::new(3_000, 1_000, 50, 7).unwrap();
    let (control, timer) = (RunControl::new(), MonotonicTimer::default());
    let ctx = CaseContext { control: &control, timer: &timer, observer: &Silent, counter_budget: Default::default() };
    let (result, error) = workload.run_case(&mut engine, find(strategy).unwrap(), &ctx);
    assert!(error.is_none(), "{strategy}: {error:?}");
    PathBuf::from(result.kept_database.expect("kept database"))
}

/// The report with the machine-specific parts (temporary path, library version) made stable.
fn report(path: &Path) -> DoctorReport {
    let mut r = diagnose(path, &DoctorOptions::default()).unwrap();
    r.target = path.file_name().unwrap().to_string_lossy().into_owned();
    r.engine_version = "3.x".into();
    r
}

#[test]
fn text_uuid4_table_output() {
    let dir = tempfile::tempdir().unwrap();
    let path = fixture(dir.path(), "uuid4-text");
    insta::assert_snapshot!(render::render(&report(&path), false));
}

#[test]
fn int_markdown_output() {
    let dir = tempfile::tempdir().unwrap();
    let path = fixture(dir.path(), "int");
    insta::assert_snapshot!(render::render(&report(&path), true));
}

#[test]
fn ulid_text_migration_script() {
    let dir = tempfile::tempdir().unwrap();
    let path = fixture(dir.path(), "ulid-text");
    insta::assert_snapshot!(migration_sql(&path, &report(&path)).unwrap());
}
