//! The names pkbench gives what it adds to a user's table: the column and index of a strategy's
//! second key.

use super::model::Table;

/// The column of the key table holding a strategy's second key (`int+uuid4`'s UUID beside the
/// integer key): `ext_id`, as in pkbench's own tables, or `pkbench_ext_id` where the table
/// already has an `ext_id`.
pub fn ext_column(table: &Table) -> String {
    if table.column("ext_id").is_some() { "pkbench_ext_id".into() } else { "ext_id".into() }
}

/// The unique index on [`ext_column`]: `<table>_ext_id_key`.
pub fn ext_index(table: &Table) -> String {
    format!("{}_ext_id_key", table.name)
}
