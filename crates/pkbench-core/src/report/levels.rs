//! An LSM run's sorted files by level after its last batch that read them: how deep the tree
//! grew and how much compaction still owed it. The terminal and Markdown table and the report's
//! chart read it.

use crate::results::{LsmLevel, ResultsDoc, RunResult};

const MIB: f64 = 1024.0 * 1024.0;

/// The levels of `run`'s last batch that read them, if it ran on an LSM engine.
pub fn last(run: &RunResult) -> Option<&[LsmLevel]> {
    run.batches.iter().rev().find_map(|b| b.lsm_levels.as_deref())
}

/// The table of every LSM run: one row per strategy, one column per level any run has.
pub fn table(doc: &ResultsDoc) -> (Vec<String>, Vec<Vec<String>>) {
    let mut names: Vec<&str> = doc.runs.iter().filter_map(last).flatten().map(|l| l.level.as_str()).collect();
    names.sort_by_key(|n| n[1..].parse::<u32>().unwrap_or(u32::MAX));
    names.dedup();
    let mut header = vec!["strategy".to_string(), "rows".to_string()];
    header.extend(names.iter().map(|n| format!("{n}: files, MiB (score)")));
    header.push("MiB over target".into());
    let mut rows = Vec::new();
    for run in &doc.runs {
        let Some(levels) = last(run) else { continue };
        let rows_total = run.batches.iter().rev().find(|b| b.lsm_levels.is_some()).map_or(0, |b| b.rows_total);
        let mut row = vec![run.strategy.clone(), rows_total.to_string()];
        row.extend(names.iter().map(|n| match levels.iter().find(|l| l.level == *n) {
            Some(l) => format!("{}, {:.1} ({:.2})", l.files, l.size_bytes as f64 / MIB, l.score),
            None => "–".into(),
        }));
        row.push(format!("{:.1}", LsmLevel::bytes_over_target(levels) as f64 / MIB));
        rows.push(row);
    }
    (header, rows)
}

/// What the table's figures mean, printed under it.
pub const NOTE: &str = "RocksDB's levels after the last batch whose counters were read (the memtable not yet flushed is in none). A score of 1 or more means the level waits for a compaction; MiB over target is what compaction still owes: the bytes above each level's target, all of L0 once at its trigger.";

#[cfg(test)]
mod tests {
    use super::*;

    fn run(strategy: &str, batches: serde_json::Value) -> serde_json::Value {
        serde_json::json!({
            "engine": "myrocks", "engine_version": "0", "workload": "insert-growth", "strategy": strategy,
            "strategy_description": "", "settings": { "rows": 0, "batch_rows": 0, "payload_bytes": 0, "seed": 0,
            "key_clock": "", "insert_path": "", "engine": {} }, "batches": batches, "verified_rows": null,
            "size_bytes": null, "btrees": [], "kept_database": null, "complete": true, "error": null
        })
    }

    #[test]
    fn one_row_per_lsm_run_with_a_column_per_level() {
        let batch = |rows_total: u64, levels| {
            serde_json::json!({ "index": 0, "rows": 1000, "rows_total": rows_total, "elapsed_ns": 1, "keygen_ns": 0,
                "counters": {}, "lsm_levels": levels })
        };
        let levels = serde_json::json!([
            { "level": "L0", "files": 2, "size_bytes": 1048576, "score": 0.5 },
            { "level": "L1", "files": 3, "size_bytes": 4194304, "score": 2.0 }
        ]);
        let doc: ResultsDoc = serde_json::from_value(serde_json::json!({
            "schema_version": 1, "command": [], "started_at": "",
            "environment": { "pkbench_version": "0", "engine": "myrocks", "engine_version": "0", "os": "", "kernel": "",
                "cpu_model": "", "cpu_cores": 1, "memory_bytes": 0, "data_filesystem": null },
            "runs": [run("uuid4", serde_json::json!([batch(1000, levels), batch(2000, serde_json::Value::Null)])),
                     run("int", serde_json::json!([]))]
        }))
        .unwrap();
        let (header, rows) = table(&doc);
        assert_eq!(header[2..], ["L0: files, MiB (score)", "L1: files, MiB (score)", "MiB over target"]);
        assert_eq!(rows, [["uuid4", "1000", "2, 1.0 (0.50)", "3, 4.0 (2.00)", "2.0"]]);
    }
}
