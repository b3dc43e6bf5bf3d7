//! The statements of a `run --schema` on one engine: the DDL ([`super::render()`]), one INSERT
//! per filled table, the reads of the workload mix, and the counts and foreign-key checks that
//! verify the rows.
//!
//! Parameters are numbered in column order, leaving out a key the engine assigns (read back
//! with `RETURNING`, or on SQLite as the connection's last rowid). PostgreSQL binds parameters
//! in binary, so its statements cast each one from the type pkbench binds
//! (`$3::text::numeric`); MySQL and SQLite convert on insert.

use super::render::{qualified, render_with_changes};
use crate::Error;
use crate::engines::EngineKind;
use crate::engines::dialect::Dialect;
use crate::schema::{Fill, Plan, Role, Source, ext_column};
use crate::strategy::{KeySource, SecondaryLookup, Storage, Strategy};
use crate::values::SqlType;

/// Every statement of one strategy's schema run on one engine.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RunSql {
    /// DDL, referenced tables first.
    pub create: Vec<String>,
    /// Run before the referenced tables are filled: where their foreign keys form a cycle,
    /// SQLite stops checking foreign keys.
    pub before_parents: Vec<String>,
    /// Run once the referenced tables are filled: the foreign keys that close a cycle are added
    /// (checking every row), or SQLite checks foreign keys again.
    pub after_parents: Vec<String>,
    /// Per filled table (as `Plan::fills`): its INSERT.
    pub inserts: Vec<Insert>,
    /// Per filled table: `SELECT count(*)`.
    pub counts: Vec<String>,
    /// Per foreign key filled: what it is, and a count of its rows whose parent is missing.
    pub orphans: Vec<(String, String)>,
    /// A key-table row by key (one parameter: the key).
    pub by_key: String,
    /// Per secondary index of the key table: its name, its columns' positions in the key table,
    /// and a read of at most [`INDEX_READ_LIMIT`] rows by all of its columns.
    pub by_index: Vec<IndexRead>,
    /// Per child table: its position in `Plan::fills`, and the join of one key-table row (by
    /// key) with its children.
    pub children_of: Vec<(usize, String)>,
}

/// One filled table's INSERT.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Insert {
    /// The statement.
    pub sql: String,
    /// The positions (in the table's columns) of the parameters, in order.
    pub columns: Vec<usize>,
    /// Whether the INSERT gives back the key the engine assigned.
    pub returns_key: bool,
    /// Whether that key is SQLite's rowid, read from the connection after the INSERT
    /// ([`crate::engines::wire::Connection::last_insert_rowid`]) instead of with `RETURNING`,
    /// which costs SQLite about as much per row again as the insert of a small row.
    pub key_is_rowid: bool,
    /// Whether a last parameter, after `columns`, is the strategy's second key
    /// ([`crate::schema::ext_column`]).
    pub second_key: bool,
}

/// A read of the key table through one secondary index.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct IndexRead {
    /// The index's name.
    pub name: String,
    /// Positions of its columns in the key table, in index order.
    pub columns: Vec<usize>,
    /// The query.
    pub sql: String,
}

/// Most rows one read by a secondary index returns (a value many rows share would otherwise
/// read them all).
pub const INDEX_READ_LIMIT: u32 = 20;

/// Renders `plan`'s statements for `strategy` on `engine`, in `namespace` (ignored by SQLite).
pub fn run_sql(plan: &Plan, strategy: &Strategy, engine: EngineKind, namespace: &str) -> Result<RunSql, Error> {
    let rendered = render_with_changes(&plan.schema(), &plan.key_table().name, strategy, engine, namespace)?;
    let cycle =
        plan.fills.iter().enumerate().any(|(i, f)| f.sources.iter().any(|s| matches!(s, Source::Parent(p) if *p > i)));
    // SQLite cannot add a foreign key to a table: it declares them all and stops checking.
    let (before_parents, after_parents) = if cycle && engine == EngineKind::Sqlite {
        (vec!["PRAGMA foreign_keys = OFF".into()], vec!["PRAGMA foreign_keys = ON".into()])
    } else {
        (Vec::new(), rendered.deferred)
    };
    let create = rendered.statements;
    let dialect = engine.dialect();
    let sql = Spelling {
        plan,
        engine,
        dialect,
        namespace,
        casts: matches!(engine, EngineKind::Postgres | EngineKind::PostgresFdw),
    };
    let inserts = plan.fills.iter().map(|fill| sql.insert(fill, strategy)).collect();
    let counts = plan.fills.iter().map(|f| format!("SELECT count(*) FROM {}", sql.qualify(&f.table.name))).collect();
    let key = plan.key_table();
    let key_name = sql.quote(&key.primary_key[0]);
    // Rows are looked up by the key the application holds: a second key where there is one.
    let lookup = if strategy.secondary.is_some() { sql.quote(&ext_column(key)) } else { key_name.clone() };
    let by_key = format!("SELECT * FROM {} WHERE {lookup} = {}", sql.qualify(&key.name), dialect.placeholder(1));
    Ok(RunSql {
        create,
        before_parents,
        after_parents,
        inserts,
        counts,
        orphans: sql.orphan_counts(),
        by_key,
        by_index: sql.index_reads(),
        children_of: sql.children_reads(&key_name, &lookup),
    })
}

/// How a run's statements are spelled: the plan, the engine's dialect and the namespace.
struct Spelling<'a> {
    plan: &'a Plan,
    engine: EngineKind,
    dialect: &'static dyn Dialect,
    namespace: &'a str,
    /// Whether parameters are cast to their column's type (PostgreSQL).
    casts: bool,
}

impl Spelling<'_> {
    fn quote(&self, name: &str) -> String {
        self.dialect.quote(name)
    }

    fn qualify(&self, table: &str) -> String {
        qualified(self.engine, self.namespace, table)
    }

    /// The `n`-th (1-based) placeholder, cast for a column filled from `source` where needed.
    fn parameter(&self, n: usize, source: Source) -> String {
        format!("{}{}", self.dialect.placeholder(n), if self.casts { cast(self.plan, source) } else { "" })
    }

    /// The INSERT of one filled table.
    fn insert(&self, fill: &Fill, strategy: &Strategy) -> Insert {
        let t = &fill.table;
        let engine_key = !matches!(strategy.primary.source, KeySource::Client(_));
        let columns: Vec<usize> = (0..t.columns.len())
            .filter(|&i| !(engine_key && fill.role == Role::Key && fill.sources[i] == Source::Key))
            .filter(|&i| fill.sources[i] != Source::Computed)
            .collect();
        let mut names: Vec<String> = columns.iter().map(|&i| self.quote(&t.columns[i].name)).collect();
        let mut marks: Vec<String> =
            columns.iter().enumerate().map(|(n, &i)| self.parameter(n + 1, fill.sources[i])).collect();
        let second_key = fill.role == Role::Key && strategy.secondary.is_some();
        if second_key {
            names.push(self.quote(&ext_column(t)));
            marks.push(self.dialect.placeholder(columns.len() + 1));
        }
        let returns_key = engine_key && fill.role == Role::Key;
        // SQLite assigns only an INTEGER PRIMARY KEY, the rowid.
        let key_is_rowid = returns_key
            && self.engine == EngineKind::Sqlite
            && strategy.primary.source == KeySource::EngineAssigned
            && strategy.primary.storage == Storage::Integer;
        let returning = if returns_key && !key_is_rowid {
            format!(" RETURNING {}", self.quote(&t.primary_key[0]))
        } else {
            String::new()
        };
        Insert {
            sql: format!(
                "INSERT INTO {} ({}) VALUES ({}){returning}",
                self.qualify(&t.name),
                names.join(", "),
                marks.join(", ")
            ),
            columns,
            returns_key,
            key_is_rowid,
            second_key,
        }
    }

    /// Per foreign key filled: what it is, and a count of its rows whose parent is missing.
    fn orphan_counts(&self) -> Vec<(String, String)> {
        let mut orphans = Vec::new();
        for fill in &self.plan.fills {
            for (i, source) in fill.sources.iter().enumerate() {
                let Source::Parent(p) = *source else { continue };
                let (child, parent) = (&fill.table, &self.plan.fills[p].table);
                let (column, key) = (self.quote(&child.columns[i].name), self.quote(&parent.primary_key[0]));
                orphans.push((
                    format!("{}.{} → {}", child.name, child.columns[i].name, parent.name),
                    format!(
                        "SELECT count(*) FROM {} c WHERE c.{column} IS NOT NULL AND NOT EXISTS (SELECT 1 FROM {} p WHERE p.{key} = c.{column})",
                        self.qualify(&child.name),
                        self.qualify(&parent.name)
                    ),
                ));
            }
        }
        orphans
    }

    /// Per secondary index of the key table with a column: a read of at most
    /// [`INDEX_READ_LIMIT`] rows by all of its columns.
    fn index_reads(&self) -> Vec<IndexRead> {
        let key = self.plan.key_table();
        let key_fill = &self.plan.fills[self.plan.key];
        let schema = self.plan.schema();
        let mut by_index = Vec::new();
        for (n, index) in key.indexes.iter().enumerate() {
            let columns: Vec<usize> = index
                .columns
                .iter()
                .filter_map(|c| key.columns.iter().position(|k| k.name.eq_ignore_ascii_case(c)))
                .collect();
            // An index on expressions alone (`lower(email)`) has no column to read it by.
            if columns.is_empty() {
                continue;
            }
            let wheres: Vec<String> = columns
                .iter()
                .enumerate()
                .map(|(j, &i)| {
                    format!("{} = {}", self.quote(&key.columns[i].name), self.parameter(j + 1, key_fill.sources[i]))
                })
                .collect();
            by_index.push(IndexRead {
                name: super::index_name(self.engine, &schema, key, n),
                columns,
                sql: format!(
                    "SELECT * FROM {} WHERE {} LIMIT {INDEX_READ_LIMIT}",
                    self.qualify(&key.name),
                    wheres.join(" AND ")
                ),
            });
        }
        by_index
    }

    /// Per child table of the key table: its rows with their parent's key, by the parent's
    /// `lookup` column.
    fn children_reads(&self, key_name: &str, lookup: &str) -> Vec<(usize, String)> {
        let key = self.plan.key_table();
        let p1 = self.dialect.placeholder(1);
        let mut children_of = Vec::new();
        for c in self.plan.children() {
            let child = &self.plan.fills[c];
            let Some(fk) = child.sources.iter().position(|s| *s == Source::Parent(self.plan.key)) else { continue };
            children_of.push((
                c,
                format!(
                    "SELECT p.{key_name}, c.* FROM {} p JOIN {} c ON c.{} = p.{key_name} WHERE p.{lookup} = {p1}",
                    self.qualify(&key.name),
                    self.qualify(&child.table.name),
                    self.quote(&child.table.columns[fk].name)
                ),
            ));
        }
        children_of
    }
}

/// PostgreSQL's cast of a parameter from the type pkbench binds for `source` to the column's.
fn cast(plan: &Plan, source: Source) -> &'static str {
    match source {
        Source::Key | Source::Null | Source::Computed => "",
        Source::Parent(p) if p == plan.key => "",
        // An ancestor's key is its row number, bound as its own key column is.
        Source::Parent(p) => {
            plan.fills[p].sources.iter().find(|s| matches!(s, Source::Sequence(_))).map_or("", |s| cast(plan, *s))
        }
        Source::Sequence(ty) | Source::Value(ty) => match ty {
            SqlType::Integer(_) => "::int8",
            SqlType::Decimal { .. } => "::text::numeric",
            SqlType::Float => "::text::float8",
            SqlType::Text { .. } => "::text",
            SqlType::Binary { .. } => "::bytea",
            SqlType::Uuid => "::uuid",
            SqlType::Bool => "::int4::boolean",
            SqlType::Date => "::text::date",
            SqlType::Timestamp => "::text::timestamp",
            SqlType::Json => "::text::jsonb",
        },
    }
}

/// The dialect-free check that a strategy can key a schema run: one key column, and a second
/// key beside it only in a column of the table with a unique index (not a mapping table).
pub fn check_strategy(strategy: &Strategy, dialect: &dyn Dialect) -> Result<(), Error> {
    if strategy.secondary.is_some_and(|s| s.lookup != SecondaryLookup::UniqueIndex) {
        return Err(dialect.unsupported(
            strategy,
            "--schema keeps a second key in a column of your table with a unique index, not unindexed or in a mapping table: choose int+uuid4, int+uuid7, …".into(),
        ));
    }
    Ok(())
}
