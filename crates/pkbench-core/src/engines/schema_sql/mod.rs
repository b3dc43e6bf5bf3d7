//! A user's schema (`crate::schema`) as SQL on each engine: the DDL per strategy
//! ([`render()`]) and the statements of a `run --schema` ([`run_sql`]).

mod render;
mod statements;

pub use render::{column_type, render};
pub use statements::{INDEX_READ_LIMIT, IndexRead, Insert, RunSql, check_strategy, run_sql};
