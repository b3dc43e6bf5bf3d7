//! What doctor reads of a table stored in an LSM tree (MyRocks): the sorted files holding each
//! of its indexes and the levels of the column family they are in. An LSM tree has no leaf fill
//! (its files are written full) and no page splits; a random key costs compaction instead,
//! which RocksDB counts per server, not per table.

use super::advice::human_bytes;
use crate::results::LsmLevel;
use serde::{Deserialize, Serialize};

/// A table's sorted files and its column family's levels.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct LsmReport {
    /// The primary key (`PRIMARY`, or the hidden key) and each secondary index.
    pub indexes: Vec<LsmIndexReport>,
    /// The column family holding the table's keys (shared with every table in it).
    pub column_family: String,
    /// Its levels, in level order.
    pub levels: Vec<LsmLevel>,
}

/// One index's entries in the sorted files.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct LsmIndexReport {
    /// The index's name.
    pub name: String,
    /// Sorted files holding some of its entries.
    pub files: u64,
    /// Entries in those files (a row written twice before a compaction counts twice).
    pub entries: u64,
    /// Deletion markers (tombstones) among them, which only a compaction removes.
    pub deletes: u64,
    /// Its share of the files' bytes on disk.
    pub size_bytes: u64,
}

impl LsmReport {
    /// The bytes of every index of the table on disk.
    pub fn size_bytes(&self) -> u64 {
        self.indexes.iter().map(|i| i.size_bytes).sum()
    }

    /// "sorted files: PRIMARY in 12 files (34.0 MB), …; column family 'default': L0 2 files 3.1 MB, L1 …"
    pub fn evidence(&self) -> String {
        let indexes: Vec<String> = self
            .indexes
            .iter()
            .map(|i| format!("{} in {} files ({})", i.name, i.files, human_bytes(i.size_bytes)))
            .collect();
        format!("sorted files: {}; {}", indexes.join(", "), self.levels_line())
    }

    /// "column family 'default': L0 2 files 3.1 MB (score 0.50), L1 4 files 20.0 MB (score 0.08)"
    pub fn levels_line(&self) -> String {
        let levels: Vec<String> = self
            .levels
            .iter()
            .map(|l| format!("{} {} files {} (score {:.2})", l.level, l.files, human_bytes(l.size_bytes), l.score))
            .collect();
        match levels.is_empty() {
            true => format!("column family '{}': no sorted files yet", self.column_family),
            false => format!("column family '{}': {}", self.column_family, levels.join(", ")),
        }
    }
}

/// Said once per report that examined an LSM table.
pub const NOTE: &str = "RocksDB (MyRocks) tables have no leaf fill to measure: sorted files are written full. A random key costs compaction instead (every flushed file overlaps the files below it), which RocksDB counts per server, not per table: `pkbench run --engine myrocks` measures it";

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn evidence_names_each_index_and_level() {
        let report = LsmReport {
            indexes: vec![LsmIndexReport {
                name: "PRIMARY".into(),
                files: 3,
                entries: 10,
                deletes: 0,
                size_bytes: 2_500_000,
            }],
            column_family: "default".into(),
            levels: vec![LsmLevel { level: "L0".into(), files: 3, size_bytes: 2_500_000, score: 0.75 }],
        };
        assert_eq!(
            report.evidence(),
            "sorted files: PRIMARY in 3 files (2.5 MB); column family 'default': L0 3 files 2.5 MB (score 0.75)"
        );
        let empty = LsmReport { levels: vec![], ..report };
        assert!(empty.levels_line().ends_with("no sorted files yet"), "{}", empty.levels_line());
    }
}
