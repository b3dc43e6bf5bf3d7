//! What a concurrent client's transactions look like: the statements in each one and the
//! isolation level they run at (`--txn`, `--isolation`).

use std::fmt;

/// The statements of one concurrent-client transaction.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum TxnShape {
    /// One autocommit INSERT.
    #[default]
    Insert,
    /// INSERT, then read the next row after a recently inserted key (`WHERE id > $recent ORDER
    /// BY id LIMIT 1`): with an ordered key the read lands at the right edge where everyone
    /// inserts, with a random key anywhere.
    InsertReadRecent,
    /// INSERT, then UPDATE the payload of a recently inserted row, by its key.
    InsertUpdateRecent,
}

impl TxnShape {
    /// The `--txn` name.
    pub fn name(self) -> &'static str {
        match self {
            TxnShape::Insert => "insert",
            TxnShape::InsertReadRecent => "insert-read-recent",
            TxnShape::InsertUpdateRecent => "insert-update-recent",
        }
    }

    /// Whether the transaction touches a recently inserted row (so it needs its key).
    pub fn uses_recent(self) -> bool {
        self != TxnShape::Insert
    }

    /// The refusal of this shape for `strategy`, whose keys the server makes: a recent row is
    /// found by its key, which the client then does not have.
    pub fn server_keys_refusal(self, strategy: &str) -> crate::Error {
        crate::Error::InvalidInput(format!(
            "--txn {} reads or updates a recent row by its key, and {strategy}'s keys are made by the server: use a client-generated key (int-client for an ordered integer)",
            self.name()
        ))
    }
}

/// A transaction isolation level.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Isolation {
    /// READ COMMITTED.
    ReadCommitted,
    /// REPEATABLE READ.
    RepeatableRead,
    /// SERIALIZABLE.
    Serializable,
}

impl Isolation {
    /// The level as SQL spells it.
    pub fn sql(self) -> &'static str {
        match self {
            Isolation::ReadCommitted => "READ COMMITTED",
            Isolation::RepeatableRead => "REPEATABLE READ",
            Isolation::Serializable => "SERIALIZABLE",
        }
    }
}

impl fmt::Display for Isolation {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Isolation::ReadCommitted => "read-committed",
            Isolation::RepeatableRead => "repeatable-read",
            Isolation::Serializable => "serializable",
        })
    }
}

/// How a concurrent client works: its transactions and their isolation (`None`: the server's
/// default).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct ClientOptions {
    /// The statements of each transaction.
    pub txn: TxnShape,
    /// The isolation level each session sets.
    pub isolation: Option<Isolation>,
}
