//! A user's schema (`crate::schema`) as SQL on each engine: the DDL per strategy
//! ([`render()`]) and the statements of a `run --schema` ([`run_sql`]).

mod indexes;
mod render;
mod statements;

pub use indexes::index_name;
pub use render::{Change, Rendered, column_type, render, render_with_changes};
pub use statements::{INDEX_READ_LIMIT, IndexRead, Insert, RunSql, check_strategy, run_sql};
