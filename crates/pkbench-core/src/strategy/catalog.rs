//! Every strategy pkbench knows, in the order `pkbench list` shows them.

use super::{KeyColumn, KeySource, PrimaryIndex, SecondaryKey, SecondaryLookup, Storage, Strategy};
use crate::generators::Scheme;

const ENGINE_INT: KeyColumn = KeyColumn { source: KeySource::EngineAssigned, storage: Storage::Integer };
const SNOWFLAKE: KeyColumn = KeyColumn { source: KeySource::Client(Scheme::Snowflake), storage: Storage::Integer };
const UUID4_BIN: KeyColumn = KeyColumn { source: KeySource::Client(Scheme::Uuid4), storage: Storage::Binary16 };
const UUID7_BIN: KeyColumn = KeyColumn { source: KeySource::Client(Scheme::Uuid7), storage: Storage::Binary16 };
const UUID4_TEXT: KeyColumn = KeyColumn { source: KeySource::Client(Scheme::Uuid4), storage: Storage::Text36 };
const UUID7_TEXT: KeyColumn = KeyColumn { source: KeySource::Client(Scheme::Uuid7), storage: Storage::Text36 };

const fn client(scheme: Scheme, storage: Storage) -> KeyColumn {
    KeyColumn { source: KeySource::Client(scheme), storage }
}

const fn server(scheme: Scheme, storage: Storage) -> KeyColumn {
    KeyColumn { source: KeySource::Server(scheme), storage }
}

const fn external(scheme: Scheme, lookup: SecondaryLookup) -> Option<SecondaryKey> {
    Some(SecondaryKey { scheme, storage: Storage::Binary16, lookup })
}

const fn strategy(
    name: &'static str,
    aliases: &'static [&'static str],
    description: &'static str,
    primary: KeyColumn,
    index: PrimaryIndex,
    secondary: Option<SecondaryKey>,
) -> Strategy {
    Strategy { name, aliases, description, primary, index, secondary }
}

use PrimaryIndex::{Clustered, HeapWithIndex};
use SecondaryLookup::{MappingTable, NoIndex, UniqueIndex};

/// All strategies. Names are unique; aliases never equal a canonical name.
pub static CATALOG: &[Strategy] = &[
    strategy(
        "int",
        &["Integer"],
        "engine-assigned integer key (the engine's identity, auto-increment or row id)",
        ENGINE_INT,
        Clustered,
        None,
    ),
    strategy(
        "snowflake",
        &["Snowflake"],
        "client-generated 64-bit Snowflake as the integer key",
        SNOWFLAKE,
        Clustered,
        None,
    ),
    strategy("uuid4", &["Uuid4WithoutRowid"], "random UUIDv4 as a 16-byte binary key", UUID4_BIN, Clustered, None),
    strategy(
        "uuid7",
        &["Uuid7WithoutRowid"],
        "time-ordered UUIDv7 as a 16-byte binary key",
        UUID7_BIN,
        Clustered,
        None,
    ),
    strategy(
        "uuid4-rowid",
        &["Uuid4"],
        "UUIDv4 as a 16-byte binary key in its own unique index, the rows stored apart from it",
        UUID4_BIN,
        HeapWithIndex,
        None,
    ),
    strategy(
        "uuid7-rowid",
        &["Uuid7"],
        "UUIDv7 as a 16-byte binary key in its own unique index, the rows stored apart from it",
        UUID7_BIN,
        HeapWithIndex,
        None,
    ),
    strategy("uuid4-text", &[], "UUIDv4 as a 36-character text key", UUID4_TEXT, Clustered, None),
    strategy("uuid7-text", &[], "UUIDv7 as a 36-character text key", UUID7_TEXT, Clustered, None),
    strategy(
        "int+uuid4",
        &["IntegerWithUuid4Col"],
        "engine-assigned integer key plus a 16-byte UUIDv4 column with a UNIQUE index",
        ENGINE_INT,
        Clustered,
        external(Scheme::Uuid4, UniqueIndex),
    ),
    strategy(
        "int+uuid7",
        &[],
        "engine-assigned integer key plus a 16-byte UUIDv7 column with a UNIQUE index",
        ENGINE_INT,
        Clustered,
        external(Scheme::Uuid7, UniqueIndex),
    ),
    strategy(
        "int+uuid4-noindex",
        &["IntegerWithUuid4ColNoIndex"],
        "engine-assigned integer key plus an unindexed 16-byte UUIDv4 column (control for int+uuid4)",
        ENGINE_INT,
        Clustered,
        external(Scheme::Uuid4, NoIndex),
    ),
    strategy(
        "snowflake+uuid4",
        &["SnowflakeWithUuid4Col"],
        "Snowflake integer key plus a 16-byte UUIDv4 column with a UNIQUE index",
        SNOWFLAKE,
        Clustered,
        external(Scheme::Uuid4, UniqueIndex),
    ),
    strategy(
        "uuid7+uuid4",
        &["Uuid7WithUuid4ColWithoutRowid"],
        "16-byte UUIDv7 key plus a 16-byte UUIDv4 column with a UNIQUE index",
        UUID7_BIN,
        Clustered,
        external(Scheme::Uuid4, UniqueIndex),
    ),
    strategy(
        "uuid7+uuid4-rowid",
        &["Uuid7WithUuid4Col"],
        "16-byte UUIDv7 key in its own unique index, the rows stored apart from it, plus a 16-byte UUIDv4 column with a UNIQUE index",
        UUID7_BIN,
        HeapWithIndex,
        external(Scheme::Uuid4, UniqueIndex),
    ),
    strategy(
        "uuid7+uuid4-map",
        &["Uuid7WithUuid4ToUuid7Mapping"],
        "16-byte UUIDv7 key, an unindexed UUIDv4 column, and a UUIDv4 → UUIDv7 mapping table",
        UUID7_BIN,
        Clustered,
        external(Scheme::Uuid4, MappingTable),
    ),
    // The other ID schemes of `pkbench ids`: a clustered 16-byte key, plus its text form.
    strategy(
        "int-client",
        &[],
        "client-side integer sequence 1, 2, 3, … bound as the integer key",
        client(Scheme::Int, Storage::Integer),
        Clustered,
        None,
    ),
    strategy(
        "masked-int",
        &[],
        "keyed Feistel permutation of a sequence as the integer key (random order, hides the count)",
        client(Scheme::MaskedInt, Storage::Integer),
        Clustered,
        None,
    ),
    // Shard-aware integer keys (issue 21): spread over a range-sharded table, ordered within a
    // bucket, shard or worker.
    strategy(
        "hash-seq",
        &[],
        "sequence under a hashed bucket prefix (--hash-buckets, 16) like CockroachDB's hash-sharded index, as the integer key",
        client(Scheme::HashSeq, Storage::Integer),
        Clustered,
        None,
    ),
    strategy(
        "bitrev-seq",
        &[],
        "bit-reversed positive sequence (Spanner) as the integer key: even over the whole range",
        client(Scheme::BitrevSeq, Storage::Integer),
        Clustered,
        None,
    ),
    strategy(
        "shard-bits-seq",
        &[],
        "sequence under hashed shard bits (--shard-bits, 4) like TiDB SHARD_ROW_ID_BITS / AUTO_RANDOM, as the integer key",
        client(Scheme::ShardBitsSeq, Storage::Integer),
        Clustered,
        None,
    ),
    strategy(
        "snowflake-workers",
        &[],
        "Snowflake with the worker id first, workers (--worker-count, 4) taking turns, as the integer key",
        client(Scheme::SnowflakeWorkers, Storage::Integer),
        Clustered,
        None,
    ),
    strategy(
        "uuid1",
        &["uuid1-bin"],
        "UUIDv1 (time fields low-to-high, random node) as a 16-byte binary key",
        client(Scheme::Uuid1, Storage::Binary16),
        Clustered,
        None,
    ),
    strategy(
        "uuid1-text",
        &[],
        "UUIDv1 as a 36-character text key",
        client(Scheme::Uuid1, Storage::Text36),
        Clustered,
        None,
    ),
    strategy(
        "uuid6",
        &[],
        "time-ordered UUIDv6 as a 16-byte binary key",
        client(Scheme::Uuid6, Storage::Binary16),
        Clustered,
        None,
    ),
    strategy(
        "uuid6-text",
        &[],
        "UUIDv6 as a 36-character text key",
        client(Scheme::Uuid6, Storage::Text36),
        Clustered,
        None,
    ),
    strategy(
        "ulid",
        &[],
        "monotonic ULID as a 16-byte binary key",
        client(Scheme::Ulid, Storage::Binary16),
        Clustered,
        None,
    ),
    strategy(
        "ulid-text",
        &[],
        "ULID as a 26-character Crockford base32 text key",
        client(Scheme::Ulid, Storage::Text26),
        Clustered,
        None,
    ),
    strategy(
        "seq-uuid",
        &[],
        "sequence-based sequential UUID (2-byte block prefix, then random) as a 16-byte binary key",
        client(Scheme::SeqUuid, Storage::Binary16),
        Clustered,
        None,
    ),
    strategy(
        "seq-uuid-text",
        &[],
        "sequence-based sequential UUID as a 36-character text key",
        client(Scheme::SeqUuid, Storage::Text36),
        Clustered,
        None,
    ),
    strategy(
        "time-uuid",
        &[],
        "time-based sequential UUID (2-byte 60 s interval prefix, then random) as a 16-byte binary key",
        client(Scheme::TimeUuid, Storage::Binary16),
        Clustered,
        None,
    ),
    strategy(
        "time-uuid-text",
        &[],
        "time-based sequential UUID as a 36-character text key",
        client(Scheme::TimeUuid, Storage::Text36),
        Clustered,
        None,
    ),
    strategy(
        "comb",
        &[],
        "COMB (Unix ms in bytes 0-5, then random) as a 16-byte binary key",
        client(Scheme::Comb, Storage::Binary16),
        Clustered,
        None,
    ),
    strategy(
        "comb-text",
        &[],
        "COMB as a 36-character text key",
        client(Scheme::Comb, Storage::Text36),
        Clustered,
        None,
    ),
    strategy(
        "comb-mssql",
        &[],
        "SQL Server COMB (Unix ms in bytes 10-15) as a 16-byte binary key: random order outside SQL Server",
        client(Scheme::CombMssql, Storage::Binary16),
        Clustered,
        None,
    ),
    strategy(
        "comb-mssql-text",
        &[],
        "SQL Server COMB as a 36-character text key",
        client(Scheme::CombMssql, Storage::Text36),
        Clustered,
        None,
    ),
    // Storage variants "Are MySQL UUID inserts really that slow?" (obviyus) measured on MySQL: hex
    // text, variable-width text, MariaDB's UUID type, and UUIDv1 with MySQL's UUID_TO_BIN(u, 1)
    // time swap.
    strategy(
        "uuid4-hex32",
        &[],
        "UUIDv4 as 32 hex digits in a fixed-width text key (CHAR(32) where the engine has it)",
        client(Scheme::Uuid4, Storage::Hex32),
        Clustered,
        None,
    ),
    strategy(
        "uuid4-varhex32",
        &[],
        "UUIDv4 as 32 hex digits in a variable-width text key (VARCHAR(32) where the engine has it)",
        client(Scheme::Uuid4, Storage::VarHex32),
        Clustered,
        None,
    ),
    strategy(
        "uuid4-varchar36",
        &[],
        "UUIDv4 as 36-character text in a variable-width text key (VARCHAR(36) where the engine has it)",
        client(Scheme::Uuid4, Storage::VarText36),
        Clustered,
        None,
    ),
    strategy(
        "uuid4-mariadb-uuid",
        &[],
        "UUIDv4 in MariaDB's native UUID type (10.7+; stored fields reversed, still random)",
        client(Scheme::Uuid4, Storage::MariaDbUuid),
        Clustered,
        None,
    ),
    strategy(
        "uuid7-mariadb-uuid",
        &[],
        "UUIDv7 in MariaDB's native UUID type (v6-v8 are stored as-is, so time-ordered)",
        client(Scheme::Uuid7, Storage::MariaDbUuid),
        Clustered,
        None,
    ),
    strategy(
        "uuid1-mariadb-uuid",
        &[],
        "client UUIDv1 in MariaDB's UUID type (sorts by node, clock sequence, then time)",
        client(Scheme::Uuid1, Storage::MariaDbUuid),
        Clustered,
        None,
    ),
    strategy(
        "uuid1-bin-swapped",
        &[],
        "UUIDv1 as 16 bytes with time fields swapped high-mid-low (MySQL UUID_TO_BIN(u, 1), done client-side)",
        client(Scheme::Uuid1, Storage::Binary16TimeSwapped),
        Clustered,
        None,
    ),
    // Keys the server generates on insert: the client sends only the payload.
    strategy(
        "uuid4-server",
        &[],
        "UUIDv4 generated by the server (PostgreSQL gen_random_uuid(); MariaDB 11.7+ UUID_v4())",
        server(Scheme::Uuid4, Storage::Binary16),
        Clustered,
        None,
    ),
    strategy(
        "uuid7-server",
        &[],
        "UUIDv7 generated by the server (PostgreSQL 18+ uuidv7(); MariaDB 11.7+ UUID_v7())",
        server(Scheme::Uuid7, Storage::Binary16),
        Clustered,
        None,
    ),
    strategy(
        "uuid1-server",
        &[],
        "UUIDv1 from MariaDB's UUID() in its native UUID type (time-ordered there)",
        server(Scheme::Uuid1, Storage::MariaDbUuid),
        Clustered,
        None,
    ),
    strategy(
        "uuid1-server-bin",
        &[],
        "UUIDv1 from the server's UUID() as a 16-byte binary key",
        server(Scheme::Uuid1, Storage::Binary16),
        Clustered,
        None,
    ),
];

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::HashSet;

    #[test]
    fn a_stored_value_is_as_wide_as_its_text_form_or_sixteen_bytes() {
        for s in CATALOG.iter().flat_map(|s| std::iter::once(s.primary.storage).chain(s.secondary.map(|k| k.storage))) {
            let expected = match (s, s.text_encoding()) {
                (Storage::Integer, _) => 8,
                // MariaDB's UUID type is sent as text and stored in 16 bytes.
                (Storage::MariaDbUuid, _) | (_, None) => 16,
                (_, Some(encoding)) => encoding.encode(&[0; 16], &mut [0; 36]).len() as u32,
            };
            assert_eq!(s.value_bytes(), expected, "{s:?}");
        }
    }

    #[test]
    fn names_and_aliases_are_unique() {
        let mut seen = HashSet::new();
        for s in CATALOG {
            assert!(seen.insert(s.name), "duplicate {}", s.name);
            assert_eq!(s.name, s.name.to_lowercase());
        }
        for s in CATALOG {
            for a in s.aliases {
                assert!(seen.insert(a), "alias {a} collides");
            }
        }
    }

    #[test]
    fn every_id_scheme_has_a_strategy() {
        for scheme in Scheme::ALL {
            assert!(CATALOG.iter().any(|s| s.client_primary() == Some(scheme)), "{scheme} has no strategy");
        }
    }

    #[test]
    fn every_seed_001_strategy_has_an_equivalent() {
        let seed_001 = [
            "Integer",
            "IntegerWithUuid4ColNoIndex",
            "Snowflake",
            "IntegerWithUuid4Col",
            "SnowflakeWithUuid4Col",
            "Uuid4",
            "Uuid4WithoutRowid",
            "Uuid7",
            "Uuid7WithoutRowid",
            "Uuid7WithUuid4Col",
            "Uuid7WithUuid4ColWithoutRowid",
            "Uuid7WithUuid4ToUuid7Mapping",
        ];
        for name in seed_001 {
            assert!(CATALOG.iter().any(|s| s.aliases.contains(&name)), "{name} has no strategy");
        }
    }
}
