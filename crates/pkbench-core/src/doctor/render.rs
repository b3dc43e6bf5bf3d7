//! The report as plain text (terminal) and Markdown.

use super::advice::{AdviceKind, human_bytes};
use super::{DoctorReport, KeyColumnReport};
use crate::engines::EngineKind;
use std::fmt::Write;

fn key_line(key: &KeyColumnReport) -> String {
    let mut s = format!(
        "({}) declared {}",
        key.columns.join(", "),
        if key.declared_type.is_empty() { "untyped" } else { &key.declared_type }
    );
    if let Some(index) = &key.index {
        let _ = write!(s, ", index {index}");
    }
    match &key.scheme {
        Some(scheme) => {
            let _ = write!(s, "; {} [{}]", scheme.evidence, scheme.sampling);
        }
        None => s.push_str("; composite: values not sampled"),
    }
    if let Some(order) = &key.order {
        if let Some(r) = order.vs_rowid_inversion_ratio {
            let _ = write!(s, "; vs insertion order: inversion ratio {r:.2}");
        }
        if let Some(r) = order.vs_time_inversion_ratio {
            let _ = write!(s, "; vs embedded time: inversion ratio {r:.2}");
        }
    }
    s
}

/// What the examined tables are stored in: pages, or (tables in an LSM tree only, which have no
/// pages) their bytes in sorted files.
fn storage(report: &DoctorReport) -> String {
    let lsm: Option<Vec<_>> = report.tables.iter().map(|t| t.lsm.as_ref()).collect();
    match lsm {
        Some(lsm) if !lsm.is_empty() && report.page_count == 0 => {
            let bytes: u64 = lsm.iter().map(|l| l.size_bytes()).sum();
            format!("{} in sorted files", crate::report::fmt::mib(Some(bytes)))
        }
        _ => format!("{} pages of {} bytes, {} free", report.page_count, report.page_size_bytes, report.freelist_pages),
    }
}

/// Plain text for the terminal; `md` switches to Markdown headings, lists and tables.
pub fn render(report: &DoctorReport, md: bool) -> String {
    let mut out = String::new();
    let (h1, h2, bullet) = if md { ("# ", "## ", "- ") } else { ("", "", "  ") };
    let _ = writeln!(
        out,
        "{h1}pkbench doctor: {} ({} {}, {})",
        report.target,
        report.engine_kind().map_or(report.engine.as_str(), |k| k.label()),
        report.engine_version,
        storage(report)
    );
    if let Some(ro) = &report.read_only {
        let _ = writeln!(out, "{bullet}Session: {ro}");
    }
    for note in &report.notes {
        let _ = writeln!(out, "{bullet}Note: {note}");
    }
    for t in &report.tables {
        let approx = if t.rows_estimated { "~" } else { "" };
        let _ = writeln!(out, "\n{h2}Table {} ({approx}{} rows)", t.name, t.rows);
        let _ = writeln!(out, "{bullet}Layout: {}", t.layout_description);
        match &t.primary_key {
            Some(k) => {
                let _ = writeln!(out, "{bullet}Primary key: {}", key_line(k));
            }
            None => {
                let _ = writeln!(out, "{bullet}Primary key: none");
            }
        }
        for k in &t.unique_keys {
            let _ = writeln!(out, "{bullet}Unique: {}", key_line(k));
        }
        if let Some(lsm) = &t.lsm {
            for i in &lsm.indexes {
                let _ = writeln!(
                    out,
                    "{bullet}Sorted files of {}: {} files, {}, {} entries, {} deletion markers",
                    i.name,
                    i.files,
                    human_bytes(i.size_bytes),
                    i.entries,
                    i.deletes
                );
            }
            let _ = writeln!(out, "{bullet}Levels of {}", lsm.levels_line());
        } else if md {
            out.push_str("\n| b-tree | kind | pages | leaf fill | out of order | size | reclaimable |\n|---|---|---:|---:|---:|---:|---:|\n");
        } else {
            let _ = writeln!(
                out,
                "  {:<28} {:<6} {:>8} {:>9} {:>12} {:>10} {:>11}",
                "b-tree", "kind", "pages", "leaf fill", "out of order", "size", "reclaimable"
            );
        }
        for b in &t.btrees {
            // Estimated fill is marked '~'; their leaf order is not measured.
            let (fill, ooo) = match b.estimated {
                Some(_) => (format!("~{:.0}%", b.stats.leaf_fill * 100.0), "-".to_string()),
                None => {
                    (format!("{:.0}%", b.stats.leaf_fill * 100.0), format!("{:.0}%", b.stats.leaf_out_of_order * 100.0))
                }
            };
            let (size, rec) = (human_bytes(b.stats.size_bytes), human_bytes(b.reclaimable_bytes));
            if md {
                let _ = writeln!(
                    out,
                    "| {} | {} | {} | {fill} | {ooo} | {size} | {rec} |",
                    b.stats.name, b.stats.kind, b.stats.pages
                );
            } else {
                let _ = writeln!(
                    out,
                    "  {:<28} {:<6} {:>8} {fill:>9} {ooo:>12} {size:>10} {rec:>11}",
                    b.stats.name, b.stats.kind, b.stats.pages
                );
            }
        }
        for b in &t.btrees {
            if let Some(how) = &b.estimated {
                let _ = writeln!(out, "{bullet}~ {}: {how}", b.stats.name);
            }
        }
        let _ = writeln!(out, "\n{bullet}Verdict: {}", t.verdict);
        for a in &t.advice {
            let _ = writeln!(out, "{bullet}{}. {}\n{bullet}   evidence: {}", a.rank, a.text, a.evidence);
        }
        let keyed = t.advice.iter().any(|a| matches!(a.kind, AdviceKind::TimeOrderedKey | AdviceKind::BinaryStorage));
        if let (true, Some(command)) = (keyed, benchmark_command(report, &t.name, t.layout.is_lsm())) {
            let _ = writeln!(out, "{bullet}Benchmark this advice on this table's shape: {command}");
        }
    }
    out
}

/// The commands that benchmark a key change on `table`'s own shape: its schema (exported from a
/// server with its column statistics, or SQLite's `.schema`), then `run --schema` with the
/// current and advised keys.
fn benchmark_command(report: &DoctorReport, table: &str, lsm: bool) -> Option<String> {
    const STRATEGIES: &str = "int,uuid7,uuid4,uuid4-text";
    let engine = report.engine_kind()?;
    // A RocksDB table on a MariaDB server runs as MyRocks.
    let engine = if lsm && engine == EngineKind::MariaDb { EngineKind::MyRocks } else { engine };
    let file = format!("{table}.sql");
    Some(match engine {
        EngineKind::Sqlite => format!(
            "sqlite3 {} '.schema {table}' > {file} && pkbench run --schema {file} --table {table} -s {STRATEGIES}",
            report.target
        ),
        EngineKind::Postgres | EngineKind::MariaDb | EngineKind::MyRocks => format!(
            "pkbench doctor '{}' --table {table} --export-schema {file} && pkbench run --schema {file} --values {table}.values.toml --table {table} --engine {} -s {STRATEGIES}",
            report.target,
            engine.name()
        ),
        EngineKind::Spider | EngineKind::PostgresFdw => return None,
    })
}
