//! `pkbench list`: the strategies, with descriptions, accepted aliases, and the exact schema
//! each engine creates for them (or why an engine refuses one), then the counters each engine
//! reads.

use crate::output::outln;
use pkbench_core::config::WorkloadKind;
use pkbench_core::engines::kind::Wire;
use pkbench_core::engines::{EngineKind, schema_of};
use pkbench_core::strategy::CATALOG;
use std::process::ExitCode;

pub fn list() -> anyhow::Result<ExitCode> {
    let width = CATALOG.iter().map(|s| s.name.len()).max().unwrap_or(0);
    outln!("Strategies (use with --strategies; the names in brackets, from 'SQLite ID Benchmarks', work too):\n")?;
    for s in CATALOG {
        let aliases = if s.aliases.is_empty() { String::new() } else { format!(" [{}]", s.aliases.join(", ")) };
        outln!("  {:width$}  {}{aliases}", s.name, s.description)?;
    }
    outln!("\nWorkloads (--workload):")?;
    for workload in WorkloadKind::ALL {
        outln!("  {:14} {}", workload.name(), workload.describe())?;
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
    outln!(
        "\nCounters each engine reads after a batch (results' `counters`; docs/reference/counters.md says what each counts):"
    )?;
    for engine in EngineKind::ALL {
        outln!("  {:13} {}", engine.name(), engine.capabilities().counters.join(", "))?;
    }
    Ok(ExitCode::SUCCESS)
}
