//! `pkbench list`: the strategies, with descriptions and accepted aliases.

use pkbench_core::engines::sqlite::render_schema;
use pkbench_core::strategy::CATALOG;
use std::process::ExitCode;

pub fn list() -> anyhow::Result<ExitCode> {
    let width = CATALOG.iter().map(|s| s.name.len()).max().unwrap_or(0);
    println!("Strategies (use with --strategies; seed-001 names in brackets are accepted too):\n");
    for s in CATALOG {
        let aliases = if s.aliases.is_empty() { String::new() } else { format!(" [{}]", s.aliases.join(", ")) };
        println!("  {:width$}  {}{aliases}", s.name, s.description);
    }
    println!("\nWorkloads:\n  insert-growth  insert rows in batches, timing each batch as the table grows");
    println!("\nEngines:\n  sqlite  embedded SQLite {} (bundled); schema per strategy:", rusqlite_version());
    for s in CATALOG {
        if let Ok(schema) = render_schema(s) {
            println!("    {:width$}  {}", s.name, schema.create.join("; "));
        }
    }
    Ok(ExitCode::SUCCESS)
}

fn rusqlite_version() -> String {
    use pkbench_core::engines::Engine;
    use pkbench_core::engines::sqlite::{SqliteEngine, SqliteSettings};
    SqliteEngine::new(SqliteSettings::seed_000(".".into())).map(|e| e.info().version).unwrap_or_default()
}
