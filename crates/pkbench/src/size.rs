//! Human-friendly counts and sizes for flags (`500k`, `2M`, `1G`): the library's parsers, which
//! plan files use too.

pub use pkbench_core::config::values::{parse_count, parse_gib, parse_seed};
