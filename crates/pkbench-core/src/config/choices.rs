//! The run settings whose value is one of a few names (`--sync full`, `--txn insert`): each
//! name with its one-line help, for parsing, for `--help` and for shell completion.

use crate::engines::EngineKind;
use crate::engines::sqlite::{Journal, Synchronous};
use crate::engines::txn::{Isolation, TxnShape};
use crate::generators::V7Method;
use crate::report::Format;
use crate::sharding::Sharding;
use crate::workloads::{FkLocality, ReadLocality};

/// A value named by one of a fixed list of words.
pub trait Choice: Copy + Sized + 'static {
    /// Every value with its name and one line of help.
    fn choices() -> Vec<(Self, &'static str, &'static str)>;

    /// Other names it accepts, besides its own.
    fn aliases(self) -> &'static [&'static str] {
        &[]
    }

    /// The value called `name`, ignoring case (as strategy names are), or a message listing the
    /// names.
    fn from_name(name: &str) -> Result<Self, String> {
        let all = Self::choices();
        all.iter().find(|(_, n, _)| n.eq_ignore_ascii_case(name)).map(|(v, _, _)| *v).ok_or_else(|| {
            let names: Vec<&str> = all.iter().map(|(_, n, _)| *n).collect();
            format!("'{name}' is not one of {}", names.join(", "))
        })
    }
}

impl Choice for EngineKind {
    fn choices() -> Vec<(Self, &'static str, &'static str)> {
        EngineKind::ALL.iter().map(|k| (*k, k.name(), k.describe())).collect()
    }

    fn aliases(self) -> &'static [&'static str] {
        EngineKind::aliases(self)
    }

    fn from_name(name: &str) -> Result<Self, String> {
        EngineKind::parse(name).map_err(|e| e.to_string())
    }
}

impl Choice for Synchronous {
    fn choices() -> Vec<(Self, &'static str, &'static str)> {
        vec![
            (Synchronous::Off, "off", "no syncs"),
            (Synchronous::Normal, "normal", "sync at checkpoints (WAL)"),
            (Synchronous::Full, "full", "sync every commit"),
            (Synchronous::Extra, "extra", "FULL plus a directory sync"),
        ]
    }
}

impl Choice for Journal {
    fn choices() -> Vec<(Self, &'static str, &'static str)> {
        vec![(Journal::Wal, "wal", "write-ahead log"), (Journal::Delete, "delete", "rollback journal")]
    }
}

impl Choice for TxnShape {
    fn choices() -> Vec<(Self, &'static str, &'static str)> {
        vec![
            (TxnShape::Insert, "insert", "One autocommit INSERT"),
            (
                TxnShape::InsertReadRecent,
                "insert-read-recent",
                "INSERT, then read the next row after a recently committed key",
            ),
            (
                TxnShape::InsertUpdateRecent,
                "insert-update-recent",
                "INSERT, then UPDATE a recently committed row by its key",
            ),
        ]
    }
}

impl Choice for Isolation {
    fn choices() -> Vec<(Self, &'static str, &'static str)> {
        vec![
            (Isolation::ReadCommitted, "read-committed", "READ COMMITTED"),
            (Isolation::RepeatableRead, "repeatable-read", "REPEATABLE READ"),
            (Isolation::Serializable, "serializable", "SERIALIZABLE"),
        ]
    }
}

impl Choice for FkLocality {
    fn choices() -> Vec<(Self, &'static str, &'static str)> {
        vec![
            (FkLocality::Recent, "recent", "A row of the same batch"),
            (FkLocality::Uniform, "uniform", "Any row inserted before it"),
        ]
    }
}

impl Choice for ReadLocality {
    fn choices() -> Vec<(Self, &'static str, &'static str)> {
        vec![
            (ReadLocality::Recent, "recent", "Among the newest 10% of the rows"),
            (ReadLocality::Uniform, "uniform", "Any row"),
            (ReadLocality::Zipf, "zipf", "Newer rows more often (Zipf over age)"),
        ]
    }
}

impl Choice for Sharding {
    fn choices() -> Vec<(Self, &'static str, &'static str)> {
        vec![(Sharding::Range, "range", "contiguous key ranges"), (Sharding::Hash, "hash", "a hash of the key")]
    }
}

impl Choice for Format {
    fn choices() -> Vec<(Self, &'static str, &'static str)> {
        vec![
            (Format::Table, "table", "terminal tables"),
            (Format::Json, "json", "the results document"),
            (Format::Csv, "csv", "one row per batch"),
            (Format::Markdown, "md", "Markdown"),
        ]
    }
}

impl Choice for V7Method {
    fn choices() -> Vec<(Self, &'static str, &'static str)> {
        vec![
            (V7Method::Counter, "1", "Method 1: 42-bit counter after the millisecond"),
            (V7Method::SubMillisecond, "3", "Method 3: 12-bit sub-millisecond fraction"),
        ]
    }
}
