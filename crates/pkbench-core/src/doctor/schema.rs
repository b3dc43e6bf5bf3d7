//! Primary keys and table layouts, read from `pragma_table_list`, `pragma_table_info` and
//! `pragma_index_list`.

use serde::{Deserialize, Serialize};

/// How SQLite stores a table's rows and finds them by primary key.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Layout {
    /// `INTEGER PRIMARY KEY`: the key is the rowid, rows are clustered on it.
    RowidAlias,
    /// `WITHOUT ROWID`: rows are clustered on the declared primary key.
    WithoutRowid,
    /// A rowid table whose primary key is a separate unique index (`sqlite_autoindex_…`).
    RowidWithKeyIndex,
    /// A rowid table without a declared primary key.
    RowidNoKey,
    /// PostgreSQL: a heap in insertion order plus a B-tree index for the primary key.
    HeapWithKeyIndex,
    /// PostgreSQL: a heap without a primary key.
    HeapNoKey,
    /// InnoDB: rows clustered on the primary key; secondary indexes carry the key.
    ClusteredOnKey,
    /// InnoDB without a primary key: rows clustered on a hidden 6-byte row id.
    ClusteredHiddenKey,
    /// MyRocks: rows in the sorted files of an LSM tree, in primary-key order; every secondary
    /// index carries the key.
    SortedOnKey,
    /// MyRocks without a primary key: rows sorted on a hidden 8-byte row id.
    SortedHiddenKey,
}

impl Layout {
    /// One line for people.
    pub fn describe(self) -> &'static str {
        match self {
            Layout::RowidAlias => "rowid table; INTEGER PRIMARY KEY is the rowid (rows clustered on the key)",
            Layout::WithoutRowid => "WITHOUT ROWID table (rows clustered on the primary key)",
            Layout::RowidWithKeyIndex => "rowid table plus a separate unique index for the primary key",
            Layout::RowidNoKey => "rowid table with no declared primary key",
            Layout::HeapWithKeyIndex => "heap table plus a B-tree index for the primary key (rows in insertion order)",
            Layout::HeapNoKey => "heap table with no primary key",
            Layout::ClusteredOnKey => {
                "clustered InnoDB table (rows in primary-key order; every secondary index carries the key)"
            }
            Layout::ClusteredHiddenKey => "clustered InnoDB table with no primary key (rows in hidden row-id order)",
            Layout::SortedOnKey => {
                "MyRocks table: rows in the sorted files of an LSM tree in primary-key order; every secondary index carries the key"
            }
            Layout::SortedHiddenKey => {
                "MyRocks table with no primary key: rows sorted on a hidden row id in an LSM tree"
            }
        }
    }

    /// Rows live in an LSM tree's sorted files, not in B-tree pages.
    pub fn is_lsm(self) -> bool {
        matches!(self, Layout::SortedOnKey | Layout::SortedHiddenKey)
    }

    /// Rows sit in the primary key's order, so the key's b-tree is the table itself.
    pub fn clustered_on_key(self) -> bool {
        matches!(self, Layout::RowidAlias | Layout::WithoutRowid | Layout::ClusteredOnKey | Layout::SortedOnKey)
    }
}

/// A key: its columns, the first column's declared type, the index enforcing it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct KeySchema {
    /// Column names in key order.
    pub columns: Vec<String>,
    /// Declared type of the first column, as written.
    pub declared_type: String,
    /// The index enforcing the key, if it has its own.
    pub index: Option<String>,
}

/// One table's columns and keys.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TableSchema {
    /// Table name.
    pub name: String,
    /// Declared `WITHOUT ROWID`.
    pub without_rowid: bool,
    /// Layout derived from the key and `WITHOUT ROWID`.
    pub layout: Layout,
    /// `(name, declared type)` of every column.
    pub columns: Vec<(String, String)>,
    /// The primary key.
    pub primary: Option<KeySchema>,
    /// Single-column UNIQUE indexes other than the primary key.
    pub unique: Vec<KeySchema>,
    /// Every index on the table: `(name, columns, CREATE sql if user-written)`.
    pub indexes: Vec<(String, Vec<String>, Option<String>)>,
    /// The single-column foreign keys that hold its primary key, its own included, and through
    /// a chain (a referencing column that is itself referenced) the ones that hold those, parents
    /// first (read on the servers, whose migration scripts convert them with the key).
    pub referenced_by: Vec<ReferencingColumn>,
    /// The column the primary key itself references, where a single-column foreign key on it
    /// makes it a copy of another table's key (read on the servers: the script converts that key,
    /// and this one with it).
    pub key_references: Option<ReferencedColumn>,
    /// MariaDB: the key column's DEFAULT and COMMENT clauses, which a `MODIFY` that changes its
    /// type must repeat.
    pub key_attributes: Option<String>,
}

/// The foreign keys that hold a key, followed breadth-first from `start` (the key's table and
/// column, as each engine identifies them): `holding` returns the foreign keys that reference one
/// column, each with its own column's identity to follow in turn. Each column is followed once
/// (a cycle ends); a foreign key met further down a chain names the column it references.
pub fn follow_chain<N: Clone + PartialEq, E>(
    start: N,
    mut holding: impl FnMut(&N) -> Result<Vec<(ReferencingColumn, N)>, E>,
) -> Result<Vec<ReferencingColumn>, E> {
    let mut out = Vec::new();
    let mut seen = vec![start.clone()];
    let mut queue = std::collections::VecDeque::from([(start, None)]);
    while let Some((column, via)) = queue.pop_front() {
        for (mut fk, child) in holding(&column)? {
            if !seen.contains(&child) {
                seen.push(child.clone());
                queue.push_back((child, Some(ReferencedColumn { table: fk.table.clone(), column: fk.column.clone() })));
            }
            fk.references = via.clone();
            out.push(fk);
        }
    }
    Ok(out)
}

/// A column a foreign key references.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct ReferencedColumn {
    /// Its table, as doctor names tables.
    pub table: String,
    /// The column.
    pub column: String,
}

/// A single-column foreign key that holds a table's key (another table's, or its own).
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct ReferencingColumn {
    /// The referencing table, as doctor names tables (schema- or database-qualified where it
    /// is not the default one).
    pub table: String,
    /// Its column holding the key.
    pub column: String,
    /// Whether the column may be NULL.
    pub nullable: bool,
    /// The foreign key's constraint name.
    pub constraint: String,
    /// The constraint's definition: PostgreSQL's `pg_get_constraintdef`; on MariaDB written from
    /// its columns and its ON DELETE and ON UPDATE rules.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub definition: Option<String>,
    /// The column it references where that is not the key itself but a column further up a
    /// chain that holds the key (absent for a foreign key to the key).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub references: Option<ReferencedColumn>,
    /// MariaDB: the column's DEFAULT and COMMENT clauses, which a `MODIFY` that changes its type
    /// must repeat.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub attributes: Option<String>,
}

/// Quotes an identifier for SQL.
pub fn quote(name: &str) -> String {
    format!("\"{}\"", name.replace('"', "\"\""))
}
