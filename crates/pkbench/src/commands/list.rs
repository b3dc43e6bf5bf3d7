//! `pkbench list`: the strategies, with descriptions, accepted aliases, and the exact schema
//! each engine creates for them (or why an engine refuses one).

use crate::output::outln;
use pkbench_core::engines::kind::Wire;
use pkbench_core::engines::{EngineKind, schema_of};
use pkbench_core::strategy::CATALOG;
use std::process::ExitCode;

/// Every workload with one line on what it measures.
const WORKLOADS: [(&str, &str); 8] = [
    ("insert-growth", "insert rows in batches, timing each batch as the table grows (--presort sorts each batch)"),
    (
        "concurrent",
        "--threads N connections insert single rows (autocommit) for --duration after --warmup; per-second rows/s, latency p50/p95/p99/max, SQLite lock wait",
    ),
    (
        "app",
        "seed 001's small-SaaS app (users + orders): load, aggregate, point select, paginated join, CRUD (SQLite, PostgreSQL, MariaDB)",
    ),
    ("file-baseline", "seed 004: plain-file writes (per row, buffered, ± fsync) vs SQLite at every synchronous level"),
    (
        "remedy",
        "seed 000's advice: grow with uuid4, switch new rows to uuid7, then VACUUM / VACUUM FULL / OPTIMIZE TABLE (default --strategies uuid4)",
    ),
    (
        "churn",
        "retention: fixed-size table, delete oldest --batch rows and insert new ones; size and leaf fill over time",
    ),
    (
        "schema",
        "your own tables (--schema FILE.sql): parents, batches of rows with their children, reads by key, index and children; every row and foreign key verified",
    ),
    (
        "scale",
        "seed 003's regimes: insert-growth split by table size vs engine cache and memory cap (cgroup limit or RAM)",
    ),
];

pub fn list() -> anyhow::Result<ExitCode> {
    let width = CATALOG.iter().map(|s| s.name.len()).max().unwrap_or(0);
    outln!("Strategies (use with --strategies; seed-001 names in brackets are accepted too):\n")?;
    for s in CATALOG {
        let aliases = if s.aliases.is_empty() { String::new() } else { format!(" [{}]", s.aliases.join(", ")) };
        outln!("  {:width$}  {}{aliases}", s.name, s.description)?;
    }
    outln!("\nWorkloads (--workload):")?;
    for (name, what) in WORKLOADS {
        outln!("  {name:14} {what}")?;
    }
    for engine in EngineKind::ALL {
        let namespace = match engine.wire() {
            Wire::Embedded => String::new(),
            Wire::Postgres | Wire::Mysql => format!(" ({} `pkbench`)", engine.dialect().namespace_word()),
        };
        outln!("\n--engine {engine}: {}{namespace}; schema per strategy:", engine.describe())?;
        for s in CATALOG {
            match schema_of(engine, s) {
                Ok(create) => outln!("  {:width$}  {}", s.name, create.join("; "))?,
                Err(e) => outln!("  {:width$}  (not available: {e})", s.name)?,
            }
        }
    }
    Ok(ExitCode::SUCCESS)
}
