//! A user's own schema (issue 18's foundation): one or more `CREATE TABLE` statements with their
//! indexes and foreign keys, in PostgreSQL, MySQL/MariaDB or SQLite syntax, read with a real SQL
//! parser (`sqlparser`) into a [`Schema`]; the table whose key pkbench replaces is chosen from
//! it ([`Schema::key_table`]). Statements it does not need (SET, sequences, views, functions,
//! grants, …) are skipped and listed. Bad files get one line naming the table, column and line.
//!
//! Needs no driver: `run --schema`, `predict --schema` and doctor's export share it.

mod carried;
mod comments;
mod model;
mod names;
mod parse;
mod plan;
mod types;

pub use carried::{carried_note, key_share, stored_key_bytes};
pub use model::{Column, ForeignKey, Index, Schema, Skipped, Table};
pub use names::{ext_column, ext_index};
pub use parse::{detect_engine, parse};
pub use plan::{Fill, Plan, Role, Source};
pub use types::{implied_range, sql_type};

#[cfg(test)]
mod tests;
