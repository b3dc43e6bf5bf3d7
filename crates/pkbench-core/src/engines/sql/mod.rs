//! SQL written once over a [`Dialect`]: the insert-growth table ([`bench`](mod@bench)) and the
//! application's tables ([`app`]) of every server engine.

pub mod app;
pub mod bench;

use super::dialect::Dialect;
use crate::Error;
use crate::strategy::{KeySource, SecondaryLookup, Strategy};

pub use bench::BenchSql;

/// The primary-key column's definition (after `id `) of `strategy`: an identity for
/// engine-assigned keys, the storage's type for client keys, the server's function as default
/// for server-generated keys. Refuses what the engine has no layout, storage or function for.
pub fn primary_key(dialect: &dyn Dialect, strategy: &Strategy) -> Result<String, Error> {
    if let Some(reason) = dialect.refusal(strategy) {
        return Err(dialect.unsupported(strategy, reason));
    }
    if strategy.secondary.is_some_and(|s| s.lookup == SecondaryLookup::MappingTable)
        && strategy.client_primary().is_none()
    {
        return Err(dialect.unsupported(strategy, "a mapping table needs a client-generated primary key".into()));
    }
    Ok(match strategy.primary.source {
        KeySource::EngineAssigned => dialect.identity_key().to_string(),
        KeySource::Client(_) => format!(
            "{} NOT NULL {}",
            dialect.key_type(strategy.primary.storage),
            dialect.primary_key_clause(strategy.index)
        ),
        KeySource::Server(scheme) => {
            let label = dialect.product();
            let function = dialect.key_function(scheme).ok_or_else(|| {
                let builtin: Vec<&str> =
                    crate::generators::Scheme::ALL.iter().filter_map(|s| dialect.key_function(*s)).collect();
                dialect.unsupported(
                    strategy,
                    format!("{label} has no built-in {scheme} generator (it has {})", builtin.join(", ")),
                )
            })?;
            dialect.server_key(function, strategy.primary.storage).ok_or_else(|| {
                dialect.unsupported(
                    strategy,
                    format!("{label} stores keys from {function} as its UUID type, not {:?}", strategy.primary.storage),
                )
            })?
        }
    })
}
