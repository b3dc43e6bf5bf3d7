//! What advise did not measure, or measured on a machine that moved: the lines of its
//! "Not measured" section, each saying what a user's answer leaves out and how to measure it.

use super::ContentionSetup;
use super::pressure::Pressure;
use super::profile::TableProfile;
use crate::engines::EngineKind;
use crate::predict::calibrate::recorded_checkpoint_scale;
use crate::predict::canary::MachineSpeed;
use crate::results::ResultsDoc;
use crate::strategy::Strategy;

/// What the calibration carries to the target, where the page model keeps the table's indexes.
const CARRIED_BEYOND_INDEXES: &str = "Foreign keys and each row's other work: the page model keeps your table's indexes tree by tree; the time the calibration runs spend beyond what the model counts is carried from the calibration to the target";
/// What the calibration carries to the target, where the page model keeps the key's tree alone.
const CARRIED_INDEXES: &str = "Secondary indexes tree by tree: the calibration runs insert your table with its indexes, and the time they add beyond the key's tree is carried from the calibration to the target";

/// What advise did not measure, for this table.
pub(super) fn for_table(
    engine: EngineKind,
    profile: &TableProfile,
    sharded: bool,
    contention: Option<&ContentionSetup>,
    pressure: Option<&Pressure>,
) -> Vec<String> {
    // A model that keeps every index leaves the rest of a row's cost to carry.
    let (carried, modelled) = match engine.models_table_indexes() {
        true => (CARRIED_BEYOND_INDEXES, ""),
        false => (CARRIED_INDEXES, ", not modelled page by page"),
    };
    let mut out = vec![
        "Reads: your queries' plans and latencies (pkbench run --workload app measures reads beside inserts)."
            .to_string(),
        match pressure {
            None => format!("{carried} at the same cache pressure{modelled}."),
            Some(p) => format!("{carried}{modelled}, and {}.", p.not_measured_words()),
        },
    ];
    out.push(match (contention, sharded) {
        (Some(_), true) => "Contention at the target size: the --insert-rate check starts from an empty table without your indexes; the shards' figures are where rows land, not their time.".to_string(),
        (Some(_), false) => "Contention at the target size: the --insert-rate check starts from an empty table without your indexes; sharded layouts (--shards).".to_string(),
        (None, true) => "One inserting client: contention between many writers (--insert-rate); the shards' figures are where rows land, not their time.".to_string(),
        (None, false) => "One inserting client: contention between many writers (--insert-rate) and sharded layouts (--shards).".to_string(),
    });
    if engine == EngineKind::MariaDb {
        out.push("InnoDB's redo at the target: its page model keeps no redo log, so WAL bytes/row is each calibration run's own redo per row over its last tenth, at the calibration's size.".into());
    }
    if profile.current_key.is_none() {
        out.push("Today's time: a new table has no rows, so its time now is its first batch's.".into());
    }
    out.extend(references_unseen(engine, profile));
    out
}

/// The candidates that ran no calibration of their own (`pairs`: each with the candidate whose
/// run it took), if any.
pub(super) fn stand_ins(pairs: &[(&Strategy, &Strategy)]) -> Option<String> {
    let each: Vec<String> = pairs.iter().map(|(s, c)| format!("{} took {}'s run", s.name, c.name)).collect();
    (!each.is_empty()).then(|| {
        format!(
            "A calibration run of every candidate: {}, each a key whose rows land in the key's tree as its own do (the same source of keys, or keys that only increase, in the same column type, table layout and second key). Its own page model's counts are priced at the costs fitted on the calibrated runs, with that run's unexplained time and machine speeds, and that run's WAL per row where the model keeps no WAL (--calibrate-each gives each candidate a run of its own).",
            each.join(", ")
        )
    })
}

/// What the columns holding the key leave out: a schema file's tables have no rows to grow, and
/// MariaDB lists only the tables a login may use.
fn references_unseen(engine: EngineKind, profile: &TableProfile) -> Option<String> {
    if let Some(why) = &profile.children_left_out {
        return Some(format!(
            "The tables that reference {}: their definitions do not read as a schema file ({why}), so the calibration inserts the table and the tables it references only, and the columns that hold its key are not counted.",
            profile.table
        ));
    }
    let refs = &profile.references;
    if !refs.is_empty() && refs.iter().any(|r| r.rows_at(profile.rows_now, 1).is_none()) {
        return Some("The key's bytes in the tables that reference it at the target: their rows today are not known here, so the table gives the bytes of one copy.".into());
    }
    // A table read from a server (a schema file's has no version).
    let read = profile.engine_version.is_some();
    // RocksDB keeps no foreign keys.
    (read && matches!(engine, EngineKind::MariaDb | EngineKind::Spider)).then(|| {
        "Tables this login may not use: MariaDB shows a login only the tables it has privileges on, so the columns that hold the key are those of the tables it sees.".into()
    })
}

/// Where the calibration priced a page's work above anything the machine's probes timed: the
/// forecast's warning, as a line of what advise could not measure.
fn above_probes(doc: &ResultsDoc) -> Option<String> {
    let warning = doc.runs.iter().find_map(|r| r.settings.workload_options.get("calibration_above_probes"))?;
    Some(format!("A fitted cost above what a page costs here: {warning}."))
}

/// Where the calibration ran on another major version than the user's server: which one, and
/// what that means.
fn other_version(profile: &TableProfile, calibrated_on: Option<&str>) -> Option<String> {
    let theirs = profile.engine_version.as_deref()?;
    let ours = calibrated_on?;
    let ours_version = ours.split_whitespace().nth(1)?;
    let major = super::version::major(theirs);
    (profile.engine != "sqlite" && major != super::version::major(ours_version)).then(|| {
        let install = match (profile.engine.as_str(), major) {
            ("postgres", Some(m)) => format!(" (installing PostgreSQL {m} here, apt-get install postgresql-{m}, lets advise calibrate on it)"),
            _ => String::new(),
        };
        format!(
            "Your server's version: it runs {theirs}, and pkbench calibrated on {ours}, the version it starts on this machine{install}; the page layout is the same, the time per page is this machine's."
        )
    })
}

/// Where a PostgreSQL calibration's cluster checkpointed after 1/k of the WAL the target's
/// does (k > 1), so that its smaller indexes take full-page images as often as the target's: with
/// as much WAL per row, it checkpointed about k times as often per row, and its batches cannot
/// tell what the checkpoints cost from what the WAL costs: both grow with the full-page images.
fn checkpoints_sooner(calibration: &ResultsDoc) -> Option<String> {
    let run = calibration.runs.first()?;
    let engine = EngineKind::from_name(&run.engine).filter(|e| *e == EngineKind::Postgres)?;
    let k = recorded_checkpoint_scale(engine, &run.settings.engine);
    (k > 1).then(|| {
        format!(
            "A checkpoint's cost apart from its WAL: the calibration's cluster checkpointed after 1/{k} of the WAL the target's will, so that its smaller indexes write full-page images as often as the target's, and so about {k}× as often per row; its batches cannot tell what the checkpoints cost from what the WAL costs, and a key that writes much WAL (a random key, in full-page images) may be forecast high (docs/findings/advise.md: uuid4's was, against real runs at ten times the calibration)."
        )
    })
}

/// What the calibration and the forecast made of this machine, where it matters: another major
/// version than the user's server, a fitted cost above the probes', a checkpoint's cost it could
/// not tell apart, a machine whose speed moved.
pub(super) fn of_calibration(
    profile: &TableProfile,
    calibration: Option<&ResultsDoc>,
    forecast: &ResultsDoc,
) -> Vec<String> {
    let version = other_version(profile, calibration.and_then(calibrated_on).as_deref());
    let speed = calibration.and_then(|c| MachineSpeed::of(&c.runs, None));
    let checkpoints = calibration.and_then(checkpoints_sooner);
    [version, above_probes(forecast), checkpoints, machine_moved(speed)].into_iter().flatten().collect()
}

/// The engine and version `calibration` ran on.
pub(super) fn calibrated_on(calibration: &ResultsDoc) -> Option<String> {
    let run = calibration.runs.first()?;
    Some(format!("{} {}", run.engine, run.engine_version))
}

/// Where the machine's speed moved across the calibration's batches (`speed`, from their
/// canaries: [`MachineSpeed::moved`]): the batch times scatter with it, and so do the costs
/// fitted to them and every interval drawn from those, so two candidates may tie here that a
/// quiet machine tells apart, or the other way round.
fn machine_moved(speed: Option<MachineSpeed>) -> Option<String> {
    let speed = speed.filter(MachineSpeed::moved)?;
    Some(format!(
        "A quiet machine: this one's speed moved while the calibration ran (a fixed task timed between its batches took {:.2}× as long at their 90th percentile as at their 10th), so its times, the costs fitted to them and every interval scatter with it; run advise again when the machine is quiet and compare.",
        speed.spread_ratio()
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn speed(canaries_ms: &[f64]) -> Option<MachineSpeed> {
        let ns: Vec<u64> = canaries_ms.iter().map(|ms| (ms * 1e6) as u64).collect();
        MachineSpeed::of_canaries(&ns, None)
    }

    #[test]
    fn a_calibration_on_a_machine_whose_speed_moved_is_named_with_how_far() {
        let line = machine_moved(speed(&[0.7, 0.7, 0.8, 0.7, 3.2, 3.4, 0.7, 0.9, 3.3, 0.7])).unwrap();
        assert!(line.starts_with("A quiet machine: this one's speed moved"), "{line}");
        assert!(line.contains("took 4.73× as long"), "{line}");
        assert!(line.ends_with("run advise again when the machine is quiet and compare."), "{line}");
    }

    fn calibration(engine: &str, max_wal_size: &str) -> ResultsDoc {
        serde_json::from_value(serde_json::json!({
            "schema_version": 1, "command": [], "started_at": "",
            "environment": {"pkbench_version": "t", "engine": engine, "engine_version": "15", "os": "t", "kernel": "t",
                "cpu_model": "t", "cpu_cores": 2, "memory_bytes": 1, "data_filesystem": null},
            "runs": [{"engine": engine, "engine_version": "15", "workload": "insert-growth", "strategy": "uuid4",
                "strategy_description": "", "settings": {"rows": 200000, "batch_rows": 2000, "payload_bytes": 50, "seed": 0,
                "key_clock": "", "insert_path": "", "engine": {"max_wal_size": max_wal_size}}, "batches": [],
                "verified_rows": 200000, "size_bytes": null, "btrees": [], "kept_database": null, "complete": true, "error": null}]
        }))
        .unwrap()
    }

    #[test]
    fn a_postgres_calibration_that_checkpointed_sooner_than_its_target_says_by_how_much() {
        let line = checkpoints_sooner(&calibration("postgres", "8MB")).unwrap();
        assert!(line.starts_with("A checkpoint's cost apart from its WAL:"), "{line}");
        assert!(line.contains("after 1/8 of the WAL") && line.contains("about 8× as often per row"), "{line}");
        assert!(line.ends_with("uuid4's was, against real runs at ten times the calibration)."), "{line}");
        assert_eq!(checkpoints_sooner(&calibration("postgres", "64MB")), None, "PostgreSQL's own sizes");
        assert_eq!(checkpoints_sooner(&calibration("sqlite", "8MB")), None, "not PostgreSQL");
        assert_eq!(checkpoints_sooner(&calibration("myrocks", "8MB")), None, "MyRocks scales its tree, not its WAL");
    }

    #[test]
    fn a_steady_machine_or_a_calibration_without_canaries_adds_no_line() {
        assert_eq!(machine_moved(speed(&[0.70, 0.72, 0.71, 0.75, 0.70, 0.73])), None);
        assert_eq!(machine_moved(speed(&[])), None);
    }
}
