//! Sharded engines, written once over a [`ShardFamily`]: one head server that routes every row
//! to one of N shard servers of the same engine, all started by pkbench. The head holds no rows;
//! counters are the shards' own, summed, and kept per shard in the results (`shards`).
//!
//! A sharded engine adds a folder like `spider/`: `mod.rs`, `backend.rs` (its [`ShardFamily`]:
//! what the head needs, how it reaches a shard, how much a shard holds) and `dialect.rs` (the
//! head's routing table).

#[cfg(any(feature = "postgres", feature = "mysql"))]
mod backend;

#[cfg(any(feature = "postgres", feature = "mysql"))]
pub use backend::{ShardFamily, ShardedBackend};

use crate::sharding::bounds::Bound;
use crate::strategy::{KeyColumn, KeySource, Strategy};

/// The strategy whose tables the shards hold: the same, except that an engine-assigned key
/// arrives from the head's counter as a plain integer (a shard's own identity column would
/// refuse it).
pub fn shard_strategy(strategy: &Strategy) -> Strategy {
    let mut s = *strategy;
    if strategy.primary.source == KeySource::EngineAssigned {
        s.primary = KeyColumn { source: KeySource::Client(crate::generators::Scheme::Int), ..strategy.primary };
    }
    s
}

/// A bound written as a SQL literal: `mysql` gives binary keys as `x'…'`, PostgreSQL as a
/// hyphenated `uuid` string.
pub fn bound_literal(bound: &Bound, mysql: bool) -> String {
    match bound {
        Bound::Int(v) => v.to_string(),
        Bound::Bytes(b) if mysql => format!("x'{}'", hex(b)),
        Bound::Bytes(b) => {
            let mut out = [0u8; 36];
            format!("'{}'", crate::generators::encode_hyphenated_str(b, &mut out))
        }
        // Text keys are hex, hyphens or Crockford base32: nothing to escape.
        Bound::Text(t) => format!("'{t}'"),
    }
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::strategy::find;

    #[test]
    fn literals_per_wire() {
        let b = Bound::Bytes([0xab; 16]);
        assert_eq!(bound_literal(&b, true), "x'abababababababababababababababab'");
        assert_eq!(bound_literal(&b, false), "'abababab-abab-abab-abab-abababababab'");
        assert_eq!(bound_literal(&Bound::Int(42), false), "42");
    }

    #[test]
    fn shards_take_the_heads_integers_as_plain_keys() {
        let int = find("int").unwrap();
        assert!(shard_strategy(int).client_primary().is_some());
        assert_eq!(shard_strategy(find("uuid4").unwrap()).primary, find("uuid4").unwrap().primary);
    }
}
