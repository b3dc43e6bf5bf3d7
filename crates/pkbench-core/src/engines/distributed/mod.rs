//! Distributed SQL over a wire pkbench already speaks: CockroachDB and YugabyteDB through
//! PostgreSQL's, TiDB through MySQL's. Each is a flavour of the PostgreSQL or MariaDB engine
//! (like MySQL is of MariaDB, see [`super::mariadb::flavor`]), recognised from the version text
//! the server reports, with a [`Dialect`] of its own for the key layouts its documentation
//! recommends and the catalog queries that show where rows and writes land.
//!
//! No such server can be started here: the dialects and catalog queries are written from each
//! system's documentation (cited beside each one) and snapshot-tested, not run against a live
//! cluster.
//!
//! - [`cockroach`]: CockroachDB — ranges, `PRIMARY KEY (id) USING HASH`, `SHOW RANGES`.
//! - [`yugabyte`]: YugabyteDB — tablets, `PRIMARY KEY (id HASH)` or `(id ASC)`, tablet views.
//! - [`tidb`]: TiDB — regions, `AUTO_RANDOM`, `SHARD_ROW_ID_BITS`, region status tables.

/// Methods a flavour's dialect takes unchanged from the dialect it wraps.
macro_rules! pass_through {
    ($base:expr => $( fn $name:ident(&self $(, $arg:ident : $ty:ty)*) -> $ret:ty; )*) => {
        $( fn $name(&self $(, $arg: $ty)*) -> $ret { $base.$name($($arg),*) } )*
    };
}

pub mod cockroach;
pub mod tidb;
pub mod yugabyte;

use super::dialect::{ColumnDef, Dialect, TableDef};
use super::kind::{EngineKind, Wire};
use crate::Error;

pub use crate::sharding::Sharding;

/// A distributed SQL system behind a PostgreSQL or MySQL connection.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum DistributedSql {
    /// CockroachDB (PostgreSQL wire): `version()` starts `CockroachDB CCL v23.2.4 …`.
    Cockroach,
    /// YugabyteDB YSQL (PostgreSQL wire): `version()` reads `PostgreSQL 11.2-YB-2.20.1.0-b0 …`.
    Yugabyte,
    /// TiDB (MySQL wire): `VERSION()` reads `8.0.11-TiDB-v7.5.1`.
    Tidb,
}

impl DistributedSql {
    /// Every system, in the order lists show them.
    pub const ALL: [DistributedSql; 3] = [DistributedSql::Cockroach, DistributedSql::Yugabyte, DistributedSql::Tidb];

    /// The system a server on `wire` is, from the version text it reports; `None` for any other
    /// server (PostgreSQL, MariaDB, MySQL, or a system pkbench has no dialect for).
    pub fn recognise(wire: Wire, version: &str) -> Option<DistributedSql> {
        let lower = version.trim().to_ascii_lowercase();
        let mut words = lower.split_whitespace();
        let (first, second) = (words.next().unwrap_or_default(), words.next().unwrap_or_default());
        match wire {
            Wire::Postgres if first == "cockroachdb" => Some(DistributedSql::Cockroach),
            // YugabyteDB appends `-YB-<release>` to the PostgreSQL version it is built on; the
            // rest of the line (compiler, host) may say anything.
            Wire::Postgres if first == "postgresql" && second.contains("-yb-") => Some(DistributedSql::Yugabyte),
            // `<MySQL version>-TiDB-v<release>`.
            Wire::Mysql if first.contains("-tidb-v") => Some(DistributedSql::Tidb),
            _ => None,
        }
    }

    /// The system's own release in its version text (`v23.2.4`, `2.20.1.0-b0`, `v7.5.1`).
    pub fn release(self, version: &str) -> Option<&str> {
        let word = |marker: &str| {
            let lower = version.to_ascii_lowercase();
            let at = lower.find(marker)? + marker.len();
            version[at..].split([' ', ',', '(']).next().filter(|w| !w.is_empty())
        };
        match self {
            DistributedSql::Cockroach => version.split_whitespace().find(|w| w.starts_with('v')),
            DistributedSql::Yugabyte => word("-yb-"),
            DistributedSql::Tidb => word("-tidb-"),
        }
    }

    /// The engine whose wire it speaks and whose flavour it is.
    pub fn kind(self) -> EngineKind {
        match self {
            DistributedSql::Cockroach | DistributedSql::Yugabyte => EngineKind::Postgres,
            DistributedSql::Tidb => EngineKind::MariaDb,
        }
    }

    /// The product name.
    pub fn label(self) -> &'static str {
        match self {
            DistributedSql::Cockroach => "CockroachDB",
            DistributedSql::Yugabyte => "YugabyteDB",
            DistributedSql::Tidb => "TiDB",
        }
    }

    /// How the system shards a table when nothing says otherwise: CockroachDB and TiDB split
    /// by key ranges, YugabyteDB hashes the first primary-key column.
    pub fn default_sharding(self) -> Sharding {
        match self {
            DistributedSql::Cockroach | DistributedSql::Tidb => Sharding::Range,
            DistributedSql::Yugabyte => Sharding::Hash,
        }
    }

    /// The dialect creating this system's tables with `sharding`.
    pub fn dialect(self, sharding: Sharding) -> &'static dyn Dialect {
        match (self, sharding) {
            (DistributedSql::Cockroach, Sharding::Range) => &cockroach::RANGE,
            (DistributedSql::Cockroach, Sharding::Hash) => &cockroach::HASH,
            (DistributedSql::Yugabyte, Sharding::Range) => &yugabyte::RANGE,
            (DistributedSql::Yugabyte, Sharding::Hash) => &yugabyte::HASH,
            (DistributedSql::Tidb, Sharding::Range) => &tidb::RANGE,
            (DistributedSql::Tidb, Sharding::Hash) => &tidb::HASH,
        }
    }

    /// `Ok` unless a server on `wire` reporting `version` is one of these systems: doctor reads
    /// PostgreSQL's and InnoDB's own catalogs, which they do not have.
    pub fn refuse_diagnosis(wire: Wire, version: &str) -> Result<(), Error> {
        match Self::recognise(wire, version) {
            Some(system) => Err(Error::InvalidInput(format!(
                "the server is {} ('{version}'): pkbench runs benchmarks on it with --url, but doctor reads PostgreSQL's and InnoDB's own catalogs and cannot diagnose it",
                system.label()
            ))),
            None => Ok(()),
        }
    }

    /// The error of something pkbench does not do on this system.
    pub fn not_supported(self, what: &str) -> Error {
        Error::InvalidInput(format!(
            "{what} is not supported on {}: use a PostgreSQL or MariaDB server for it",
            self.label()
        ))
    }
}

/// One range (CockroachDB), tablet (YugabyteDB) or region (TiDB) of a table: where its rows
/// are and how much it holds. A figure the catalog does not give is `None`.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ShardFigures {
    /// The range, tablet or region id.
    pub id: String,
    /// First key (inclusive) as the catalog shows it; `None` for the table's start.
    pub start_key: Option<String>,
    /// End key (exclusive); `None` for the table's end.
    pub end_key: Option<String>,
    /// The node or store holding the leaseholder / leader, as the catalog names it.
    pub node: Option<String>,
    /// Approximate size, bytes.
    pub size_bytes: Option<u64>,
    /// Live keys (rows of a one-family table), approximate where the catalog says so.
    pub rows: Option<u64>,
    /// Bytes written recently (TiDB: as PD last reported), bytes.
    pub written_bytes: Option<u64>,
}

/// One result row of a catalog query, every column as text (`None` for SQL NULL).
pub type CatalogRow = Vec<Option<String>>;

/// Figures per shard as an aligned text table (tests, and a later report section).
pub fn render(figures: &[ShardFigures]) -> String {
    let show = |v: &Option<String>| v.clone().unwrap_or_else(|| "-".into());
    let num = |v: Option<u64>| v.map_or_else(|| "-".into(), |n| n.to_string());
    let mut out = String::from("id | start_key | end_key | node | size_bytes | rows | written_bytes\n");
    for f in figures {
        out.push_str(&format!(
            "{} | {} | {} | {} | {} | {} | {}\n",
            f.id,
            show(&f.start_key),
            show(&f.end_key),
            show(&f.node),
            num(f.size_bytes),
            num(f.rows),
            num(f.written_bytes)
        ));
    }
    out
}

/// The `columns` fields of `row`, or an error naming the query when it has another width.
fn fields<'r, const N: usize>(row: &'r CatalogRow, query: &str) -> Result<[Option<&'r str>; N], Error> {
    if row.len() != N {
        return Err(Error::UnexpectedResponse(format!("{query} returned {} columns, expected {N}", row.len())));
    }
    Ok(std::array::from_fn(|i| row[i].as_deref().map(str::trim).filter(|s| !s.is_empty())))
}

/// A count or size column: a non-negative integer, or a decimal (rounded) where the catalog
/// reports one; `None` for NULL.
fn number(text: Option<&str>, column: &str) -> Result<Option<u64>, Error> {
    let Some(text) = text else { return Ok(None) };
    if let Ok(n) = text.parse::<u64>() {
        return Ok(Some(n));
    }
    match text.parse::<f64>() {
        Ok(f) if f.is_finite() && f >= 0.0 => Ok(Some(f.round() as u64)),
        _ => Err(Error::UnexpectedResponse(format!("{column} is not a count: '{text}'"))),
    }
}

/// `text` as an SQL string literal (`'` doubled); pkbench's own names never need it, but a
/// catalog filter should not break on one that does.
fn literal(text: &str) -> String {
    format!("'{}'", text.replace('\'', "''"))
}

/// Splits the column whose definition ends in a bare ` PRIMARY KEY` off into `(its name, the
/// columns with the definition cut before it)`, so a dialect can write the key as a table
/// constraint with its sharding (`PRIMARY KEY (id ASC)`, `PRIMARY KEY (id) USING HASH`).
fn split_primary_key(columns: &[ColumnDef]) -> Option<(&'static str, Vec<ColumnDef>)> {
    let key = columns.iter().find(|c| c.definition.ends_with(" PRIMARY KEY"))?;
    let rest = columns
        .iter()
        .map(|c| {
            let mut c = c.clone();
            if c.name == key.name {
                c.definition.truncate(c.definition.len() - " PRIMARY KEY".len());
            }
            c
        })
        .collect();
    Some((key.name, rest))
}

/// `CREATE TABLE` in standard SQL (unique and foreign keys inline, then one `CREATE INDEX` per
/// secondary index, like [`Dialect::create_table`]'s default) with the primary key written as a
/// table constraint by `key` (given the key column's name) and `options` after the columns.
fn create_with_key_constraint(table: &TableDef, key: impl Fn(&str) -> String, options: &str) -> Vec<String> {
    let (constraint, columns) = match split_primary_key(&table.columns) {
        Some((name, columns)) => (Some(key(name)), columns),
        None => (None, table.columns.clone()),
    };
    let mut parts: Vec<String> = columns
        .iter()
        .map(|c| {
            let unique = if c.unique { " UNIQUE" } else { "" };
            let references = c.references.as_ref().map_or(String::new(), |fk| format!(" REFERENCES {}(id)", fk.table));
            format!("{} {}{unique}{references}", c.name, c.definition)
        })
        .collect();
    parts.extend(constraint);
    let mut out = vec![format!("CREATE TABLE {} ({}){options}", table.name, parts.join(", "))];
    out.extend(table.indexes.iter().map(|(name, cols)| format!("CREATE INDEX {name} ON {} ({cols})", table.name)));
    out
}

#[cfg(test)]
mod tests;
