//! A run configuration built as library code builds it: settings in, checked config or a
//! one-line refusal out.

use super::*;

fn settings(pairs: &[(Setting, &str)]) -> RunSettings {
    let mut s = RunSettings::default();
    for (setting, text) in pairs {
        s.set(*setting, text).unwrap();
    }
    s
}

fn refusal(pairs: &[(Setting, &str)]) -> String {
    match RunConfig::new(settings(pairs), Path::new("unused")) {
        Ok(_) => panic!("{pairs:?} was accepted"),
        Err(e) => e.to_string(),
    }
}

#[test]
fn nothing_given_is_the_default_comparison_on_sqlite() {
    let config = RunConfig::new(RunSettings::default(), Path::new("out")).unwrap();
    assert_eq!(config.engine, EngineKind::Sqlite);
    assert_eq!(config.workload_kind, WorkloadKind::InsertGrowth);
    let names: Vec<&str> = config.strategies.iter().map(|s| s.name).collect();
    assert_eq!(names.join(","), DEFAULT_STRATEGIES);
    assert_eq!(config.keys.seed, 42);
    assert!(matches!(config.engine_plan, EnginePlan::Sqlite(_)));
    assert_eq!(config.cost(), 5_000_000.0);
}

#[test]
fn a_schema_file_picks_the_schema_workload_and_a_url_its_engine() {
    let s = resolved(settings(&[(Setting::Schema, "s.sql"), (Setting::Url, "mysql://u@h/db")])).unwrap();
    assert_eq!(s.workload, Some(WorkloadKind::Schema));
    assert_eq!(s.engine, Some(EngineKind::MariaDb));
    let s = resolved(settings(&[(Setting::Like, "postgres://u@h/db"), (Setting::Table, "t")])).unwrap();
    assert_eq!(s.engine, Some(EngineKind::Postgres));
    // An explicit engine is kept.
    let s = resolved(settings(&[(Setting::Engine, "sqlite"), (Setting::Url, "mysql://u@h/db")])).unwrap();
    assert_eq!(s.engine, Some(EngineKind::Sqlite));
}

#[test]
fn settings_a_workload_does_not_read_are_refused_naming_the_flag_and_its_workloads() {
    assert_eq!(
        refusal(&[(Setting::Threads, "4")]),
        "--threads does not apply to --workload insert-growth (it is for concurrent); remove it"
    );
    assert!(refusal(&[(Setting::Workload, "app"), (Setting::Rows, "5")]).contains("--rows does not apply"));
    assert!(refusal(&[(Setting::Presort, "true"), (Setting::Workload, "churn")]).contains("insert-growth only"));
    // A switch set to false is not given.
    let off = settings(&[(Setting::Presort, "false"), (Setting::Workload, "churn")]);
    assert!(RunConfig::new(off, Path::new("out")).is_ok());
}

#[test]
fn workload_defaults_and_refusals_come_from_the_registry() {
    let remedy = RunConfig::new(settings(&[(Setting::Workload, "remedy")]), Path::new("out")).unwrap();
    assert_eq!(remedy.strategies.iter().map(|s| s.name).collect::<Vec<_>>(), ["uuid4"]);
    assert!(refusal(&[(Setting::Workload, "file-baseline"), (Setting::Strategies, "int")]).contains("no --strategies"));
    assert!(
        refusal(&[(Setting::Workload, "file-baseline"), (Setting::Engine, "postgres")])
            .contains("--workload file-baseline does not run on PostgreSQL: use --engine sqlite")
    );
    assert!(refusal(&[(Setting::KeyRate, "5"), (Setting::Strategies, "int")]).contains("--key-rate shapes"));
    assert!(refusal(&[(Setting::Repeat, "0")]).contains("--repeat 0 is out of range"));
}

#[test]
fn repeats_multiply_the_strategies_and_the_cost() {
    let config =
        RunConfig::new(settings(&[(Setting::Strategies, "int,uuid4"), (Setting::Repeat, "3")]), Path::new("out"))
            .unwrap();
    assert_eq!(config.strategies.len(), 6);
    assert_eq!(config.cost(), 6_000_000.0);
}

#[test]
fn engine_settings_are_checked_before_anything_starts() {
    assert!(refusal(&[(Setting::Engine, "postgres"), (Setting::PageSize, "8192")]).contains("--engine sqlite only"));
    assert!(refusal(&[(Setting::DataDir, "/tmp")]).contains("--data-dir applies to server engines"));
    assert!(refusal(&[(Setting::Shards, "4")]).contains("--shards applies to the sharded engines"));
    assert!(refusal(&[(Setting::Like, "postgres://u@h/d")]).contains("--like needs --table"));
}

#[cfg(feature = "sqlite")]
#[test]
fn a_memory_cap_is_read_by_the_scale_workload_only() {
    use crate::control::{MonotonicTimer, RunControl};
    use crate::workloads::{CaseContext, Silent};
    let dir = tempfile::tempdir().unwrap();
    let pairs =
        [(Setting::Workload, "scale"), (Setting::MemoryCapMb, "64"), (Setting::Rows, "2k"), (Setting::Batch, "1k")];
    let config = RunConfig::new(settings(&pairs), dir.path()).unwrap();
    let (mut engine, _) = config.engine_plan.clone().open().unwrap();
    let (control, timer) = (RunControl::new(), MonotonicTimer::default());
    let ctx =
        CaseContext { control: &control, timer: &timer, observer: &Silent, counter_budget: config.counter_budget };
    let (result, error) = config.workload.run_case(engine.as_mut(), config.strategies[0], &ctx);
    assert!(error.is_none(), "{error:?}");
    assert_eq!(result.settings.workload_options["memory_cap_bytes"], (64u64 << 20).to_string());
    assert!(result.settings.workload_options["memory_cap"].starts_with("--memory-cap-mb 64"));
    assert_eq!(
        refusal(&[(Setting::MemoryCapMb, "64")]),
        "--memory-cap-mb does not apply to --workload insert-growth (it is for scale); remove it"
    );
}

#[test]
fn a_myrocks_server_is_reached_by_a_mariadb_url() {
    for url in ["mysql://u@h/db", "mariadb://u@h/db"] {
        let config = RunConfig::new(settings(&[(Setting::Engine, "myrocks"), (Setting::Url, url)]), Path::new("out"))
            .unwrap_or_else(|e| panic!("{url}: {e}"));
        assert_eq!(config.engine, EngineKind::MyRocks);
        assert!(matches!(config.engine_plan, EnginePlan::Server(EngineKind::MyRocks, _)), "{url}");
    }
    let e = refusal(&[(Setting::Engine, "myrocks"), (Setting::Url, "postgres://u@h/db")]);
    assert!(e.contains("is for PostgreSQL, not MyRocks") && e.contains("start it with mysql:// or mariadb://"), "{e}");
}
