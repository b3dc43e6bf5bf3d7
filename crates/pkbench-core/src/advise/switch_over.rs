//! What moving an existing table costs: its current key's calibration run rebuilds the table
//! once measured, as the remedy workload's compaction does (SQLite `VACUUM`, PostgreSQL `VACUUM
//! FULL`, MariaDB `OPTIMIZE TABLE`), the rewrite a change of the key's type makes too; advise
//! scales the time to the table's rows today.

use crate::results::ResultsDoc;
use crate::util::text::thousands;
use crate::workloads::REBUILD_PHASE;
use serde::{Deserialize, Serialize};

/// One rebuild of the table's copy with its current key, and the same scaled to its rows today.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct SwitchOver {
    /// The current key's strategy, whose calibration run was rebuilt.
    pub strategy: String,
    /// Rows of the table in that run.
    pub rows: u64,
    /// Seconds the rebuild took.
    pub seconds: f64,
    /// Size of the run's database on disk before it, bytes (SQLite: the file and its WAL, which
    /// the rebuild writes into).
    pub size_before_bytes: u64,
    /// After it.
    pub size_after_bytes: u64,
    /// The table's rows today.
    pub rows_now: u64,
    /// `seconds` scaled by rows to `rows_now`.
    pub seconds_now: f64,
    /// Which command ran and the room it needs, as the engine says.
    pub note: String,
}

impl SwitchOver {
    /// The rebuild in `calibration`'s run of `strategy`, scaled to `rows_now`; `None` where there
    /// is no such run or it did not rebuild (a failed rebuild's phase has no figures).
    pub fn read(calibration: Option<&ResultsDoc>, strategy: Option<&str>, rows_now: u64) -> Option<SwitchOver> {
        let strategy = strategy?;
        let run = calibration?.runs.iter().find(|r| r.strategy == strategy && r.error.is_none())?;
        let phase = run.phases.iter().find(|p| p.name == REBUILD_PHASE)?;
        let size_before_bytes = *phase.figures.get("size_before_bytes")? as u64;
        let size_after_bytes = *phase.figures.get("size_after_bytes")? as u64;
        let (seconds, rows) = (phase.elapsed_ns as f64 / 1e9, run.rows_inserted());
        Some(SwitchOver {
            strategy: strategy.to_string(),
            rows,
            seconds,
            size_before_bytes,
            size_after_bytes,
            rows_now,
            seconds_now: seconds * rows_now as f64 / rows.max(1) as f64,
            note: phase.note.clone().unwrap_or_default(),
        })
    }

    /// One sentence for "How to get there": `command` is the rebuild as the engine writes it.
    pub fn sentence(&self, table: &str, command: &str) -> String {
        format!(
            "Rewriting {table}, as a change of its key's type does: one rebuild ({command}) of pkbench's copy of it with your current key ({}) took {} for its {} rows; scaled by rows to your {} rows, about {} — a rough estimate, neither bound: the copy ran with the calibration's cache, sized for the target's pressure rather than like your server's, an index build sorts, which grows faster than its rows, a table larger than memory reads from disk, and the columns of other tables that hold the key are rewritten too; the table is locked and needs room for a copy of itself while it runs.",
            self.strategy,
            duration(self.seconds),
            thousands(self.rows),
            thousands(self.rows_now),
            duration(self.seconds_now),
        )
    }
}

/// Seconds in the unit that suits them: `12.3 s`, `4.5 min`, `1.2 h`.
fn duration(seconds: f64) -> String {
    match super::render::time_unit(seconds) {
        ("s", _) if seconds < 10.0 => format!("{seconds:.2} s"),
        (unit, per) => format!("{:.1} {unit}", seconds / per),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn durations_read_in_their_unit() {
        assert_eq!(duration(0.013), "0.01 s");
        assert_eq!(duration(12.34), "12.3 s");
        assert_eq!(duration(300.0), "5.0 min");
        assert_eq!(duration(9000.0), "2.5 h");
    }
}
