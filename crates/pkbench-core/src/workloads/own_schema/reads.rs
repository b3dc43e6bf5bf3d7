//! The reads of a schema run: which key-table rows they ask for (`--read-locality`), chosen
//! before the load so the load can keep exactly those rows' keys and indexed values (never
//! every row's), and how many children each has.

use crate::generators::Key;
use crate::util::pick::Pick;
use crate::values::Param;
use std::collections::HashMap;

/// Share of the rows, from the newest, that `recent` reads choose among.
pub const RECENT_SHARE: f64 = 0.10;

/// Which rows the reads ask for.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum ReadLocality {
    /// Uniformly among the newest [`RECENT_SHARE`] of the rows (what applications mostly read).
    #[default]
    Recent,
    /// Uniformly among all rows.
    Uniform,
    /// Newer rows more often: the rank from the newest row is approximately Zipf-distributed
    /// with exponent 1 (`rank = ⌊rows^u⌋ − 1`, `u` uniform).
    Zipf,
}

impl ReadLocality {
    /// The name `--read-locality` takes.
    pub fn name(self) -> &'static str {
        match self {
            ReadLocality::Recent => "recent",
            ReadLocality::Uniform => "uniform",
            ReadLocality::Zipf => "zipf",
        }
    }

    /// What the reads choose among, in a few words.
    pub fn describe(self) -> String {
        match self {
            ReadLocality::Recent => format!("rows among the newest {:.0}%", RECENT_SHARE * 100.0),
            ReadLocality::Uniform => "rows drawn uniformly from the whole table".into(),
            ReadLocality::Zipf => "rows drawn by a Zipf(1) law over their age, newest first".into(),
        }
    }
}

/// A value kept from a sampled row, owned.
#[derive(Clone, Debug, PartialEq)]
pub(super) enum Kept {
    Null,
    Int(i64),
    Uuid([u8; 16]),
    Text(String),
    Bytes(Vec<u8>),
}

impl Kept {
    pub(super) fn of(p: &Param<'_>) -> Kept {
        match *p {
            Param::Null => Kept::Null,
            Param::Int(v) => Kept::Int(v),
            Param::Uuid(b) => Kept::Uuid(b),
            Param::Text(t) => Kept::Text(t.to_string()),
            Param::Bytes(b) => Kept::Bytes(b.to_vec()),
        }
    }

    pub(super) fn param(&self) -> Param<'_> {
        match self {
            Kept::Null => Param::Null,
            Kept::Int(v) => Param::Int(*v),
            Kept::Uuid(b) => Param::Uuid(*b),
            Kept::Text(t) => Param::Text(t),
            Kept::Bytes(b) => Param::Bytes(b),
        }
    }
}

/// One sampled key-table row.
#[derive(Clone, Debug, Default)]
pub(super) struct Sampled {
    /// Its key, once inserted.
    pub key: Option<Key>,
    /// Its values of the indexed columns, by parameter position in the key table's INSERT.
    pub values: HashMap<usize, Kept>,
    /// Its children per child table (as `RunSql::children_of`).
    pub children: Vec<u64>,
}

/// The rows the reads ask for, in read order, and what the load kept of them.
pub(super) struct Targets {
    /// Row numbers (0-based), one per read, in the order they are read.
    pub order: Vec<u64>,
    /// Row number → its sample.
    pub rows: HashMap<u64, Sampled>,
}

impl Targets {
    /// `reads` rows of a table of `rows` rows, chosen by `locality` from `seed`.
    pub(super) fn choose(rows: u64, reads: u64, locality: ReadLocality, seed: u64, child_tables: usize) -> Self {
        let mut pick = Pick(seed ^ 0x7ead);
        let unit = |p: &mut Pick| p.below(1 << 52) as f64 / (1u64 << 52) as f64;
        let order: Vec<u64> = (0..reads)
            .map(|_| match locality {
                ReadLocality::Uniform => pick.below(rows as usize) as u64,
                ReadLocality::Recent => {
                    let window = ((rows as f64 * RECENT_SHARE).ceil() as u64).clamp(1, rows);
                    rows - window + pick.below(window as usize) as u64
                }
                ReadLocality::Zipf => {
                    let rank = ((rows as f64).powf(unit(&mut pick)).floor() as u64).clamp(1, rows) - 1;
                    rows - 1 - rank
                }
            })
            .collect();
        let rows =
            order.iter().map(|&r| (r, Sampled { children: vec![0; child_tables], ..Sampled::default() })).collect();
        Targets { order, rows }
    }
}
