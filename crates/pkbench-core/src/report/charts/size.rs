//! Size on disk per strategy (database file and write-ahead log), and beside it the B-trees'
//! pages split into table and indexes, where the results say.
//!
//! The two are separate panels on purpose: pages not yet checkpointed live in the WAL and are
//! also counted in the B-trees, so stacking B-trees and WAL would count them twice.

use super::{Chart, Plot, ReportData, SeriesRun, parts_legend};
use crate::metrics::stats::ratio;
use crate::report::fmt;
use crate::report::svg::bar::{BarChart, BarRow, Panel, Segment};
use crate::report::svg::scale::short_number;
use crate::results::RunResult;

const FILE: (&str, &str) = ("database file", "#8C8C8C");
const FILE_AND_WAL: (&str, &str) = ("database file + WAL (not reported apart)", "#BBBBBB");
const WAL: (&str, &str) = ("write-ahead log", "#E69F00");
const TABLE: (&str, &str) = ("table B-tree", "#0072B2");
const INDEXES: (&str, &str) = ("index B-trees", "#56B4E9");
const SORTED_FILES: (&str, &str) = ("sorted files as the run left them (LSM)", "#CC79A7");
const COMPACTED: (&str, &str) = ("fully compacted (LSM)", "#009E73");
const MIB: f64 = 1024.0 * 1024.0;

fn seg((name, colour): (&'static str, &'static str), bytes: u64) -> Segment {
    Segment { value: bytes as f64 / MIB, colour, name: name.into() }
}

/// On disk: the database file and its WAL (or both together when the WAL was not reported); an
/// LSM table's share of the sorted files.
fn on_disk(run: &RunResult) -> Option<Vec<Segment>> {
    let total = run.size_bytes?;
    if crate::report::levels::last(run).is_some() || run.compacted_size_bytes.is_some() {
        return Some(vec![seg(SORTED_FILES, total)]);
    }
    Some(match run.wal_size_bytes {
        Some(wal) => vec![seg(FILE, total.saturating_sub(wal)), seg(WAL, wal.min(total))],
        None => vec![seg(FILE_AND_WAL, total)],
    })
}

fn btree_bytes(run: &RunResult, kind: &str) -> u64 {
    run.btrees.iter().filter(|b| b.kind == kind).map(|b| b.size_bytes).sum()
}

/// The B-trees' pages: table and indexes.
fn in_btrees(run: &RunResult) -> Option<Vec<Segment>> {
    (!run.btrees.is_empty())
        .then(|| vec![seg(TABLE, btree_bytes(run, "table")), seg(INDEXES, btree_bytes(run, "index"))])
}

/// An LSM table's size once compacted into the bottom level.
fn compacted(run: &RunResult) -> Option<Vec<Segment>> {
    run.compacted_size_bytes.map(|bytes| vec![seg(COMPACTED, bytes)])
}

/// Size bars, when any run measured its size.
pub fn chart(data: &ReportData<'_>) -> Option<Chart> {
    let runs: Vec<&SeriesRun<'_>> =
        data.series.iter().filter(|s| s.run.size_bytes.is_some() || !s.run.btrees.is_empty()).collect();
    if runs.is_empty() {
        return None;
    }
    let disk: Vec<Option<Vec<Segment>>> = runs.iter().map(|s| on_disk(s.run)).collect();
    let trees: Vec<Option<Vec<Segment>>> = runs.iter().map(|s| in_btrees(s.run)).collect();
    let settled: Vec<Option<Vec<Segment>>> = runs.iter().map(|s| compacted(s.run)).collect();
    let present = |name: &str| {
        disk.iter().chain(&trees).chain(&settled).flatten().flatten().any(|s| s.name == name && s.value > 0.0)
    };
    let legend = parts_legend(&[FILE, FILE_AND_WAL, WAL, TABLE, INDEXES, SORTED_FILES, COMPACTED], present);
    let panel = |title: &str, values| Panel {
        title: title.into(),
        values,
        format: |v| format!("{v:.1} MiB"),
        tick: |v| format!("{} MiB", short_number(v)),
        max: None,
        reference: None,
    };
    let mut panels = vec![panel("on disk after the run", disk)];
    if trees.iter().any(Option::is_some) {
        panels.push(panel("pages in the B-trees", trees));
    }
    if settled.iter().any(Option::is_some) {
        panels.push(panel("after a full compaction", settled));
    }
    let plot = Plot::Bars(BarChart {
        rows: runs.iter().map(|s| BarRow { label: s.label.clone(), style: Some(s.style) }).collect(),
        panels,
        legend,
    });
    Some(Chart { id: "size", title: "Size on disk, MiB".into(), shows: sentence(data, &runs), plot })
}

/// "uuid4 took the most space: 31.3 MiB, 2.28× int's 13.7 MiB, 50% of it write-ahead log."
fn sentence(data: &ReportData<'_>, runs: &[&SeriesRun<'_>]) -> String {
    let size = |s: &&SeriesRun<'_>| s.run.size_bytes;
    let mut out = String::new();
    if let Some(largest) = runs.iter().rev().filter(|s| size(s).is_some()).max_by_key(|s| size(s)) {
        let total = largest.run.size_bytes.unwrap_or(0);
        out = format!("{} took the most space: {}", largest.name, fmt::mib(Some(total)));
        let reference = data
            .baseline_of(largest)
            .filter(|b| b.run.size_bytes.is_some())
            .or_else(|| runs.iter().copied().filter(|s| size(s).is_some()).min_by_key(|s| size(s)))
            .filter(|r| !std::ptr::eq(r.run, largest.run));
        if let Some(r) = reference {
            let times = fmt::times(ratio(total as f64, r.run.size_bytes.unwrap_or(0) as f64));
            out.push_str(&format!(", {times} {}'s {}", r.name, fmt::mib(r.run.size_bytes)));
        }
        let share = largest.run.wal_size_bytes.and_then(|w| ratio(w as f64 * 100.0, total as f64));
        if let Some(share) = share.filter(|s| *s >= 1.0) {
            out.push_str(&format!(", {share:.0}% of it write-ahead log"));
        }
        out.push('.');
    }
    if let Some(s) =
        runs.iter().rev().filter(|s| btree_bytes(s.run, "index") > 0).max_by_key(|s| btree_bytes(s.run, "index"))
    {
        let index = btree_bytes(s.run, "index");
        out.push_str(&format!(" {}'s indexes hold {} of its B-tree pages.", s.name, fmt::mib(Some(index))));
    }
    out.trim_start().to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn run(size_bytes: u64, wal: Option<u64>, lsm: bool) -> RunResult {
        let levels = serde_json::json!([{ "level": "L0", "files": 1, "size_bytes": size_bytes, "score": 0.25 }]);
        serde_json::from_value(serde_json::json!({
            "engine": "e", "engine_version": "0", "workload": "insert-growth", "strategy": "s",
            "strategy_description": "", "settings": { "rows": 0, "batch_rows": 0, "payload_bytes": 0, "seed": 0,
            "key_clock": "", "insert_path": "", "engine": {} },
            "batches": [{ "index": 0, "rows": 1, "rows_total": 1, "elapsed_ns": 1, "keygen_ns": 0, "counters": {},
                "lsm_levels": if lsm { levels } else { serde_json::Value::Null } }],
            "verified_rows": 1, "size_bytes": size_bytes, "wal_size_bytes": wal, "btrees": [],
            "kept_database": null, "complete": true, "error": null
        }))
        .unwrap()
    }

    #[test]
    fn an_lsm_tables_size_is_its_sorted_files_and_a_b_trees_its_file_and_log() {
        let names = |segments: Option<Vec<Segment>>| -> Vec<String> {
            segments.unwrap().into_iter().map(|s| s.name.to_string()).collect()
        };
        assert_eq!(names(on_disk(&run(1 << 20, None, true))), [SORTED_FILES.0]);
        assert_eq!(names(on_disk(&run(1 << 20, None, false))), [FILE_AND_WAL.0]);
        assert_eq!(names(on_disk(&run(1 << 20, Some(1024), false))), [FILE.0, WAL.0]);
    }
}
