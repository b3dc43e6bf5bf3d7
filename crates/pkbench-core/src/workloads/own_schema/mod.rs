//! schema: each strategy as the key of the user's own table (`run --schema FILE.sql`).
//!
//! The tables the key table references are filled first (`--parent-rows` each); then the key
//! table's rows go in timed batches, each followed in the same transaction by its children
//! (`--children-per-row` per child table, their foreign key a parent of the batch or of the whole
//! table, `--fk-locality`); then reads of the workload mix, one phase each: by key, by every
//! secondary index, and each row's children, over rows chosen by `--read-locality`. At the end
//! every table's rows are counted and every foreign key is checked to resolve.

mod key_rows;
mod load;
mod read_phases;
mod reads;
mod rows;
mod unique;

pub use key_rows::{KeyRowSink, KeyRows};
pub use reads::{RECENT_SHARE, ReadLocality};

use super::outcome::{SettingsBase, conclude, result_skeleton, verify};
use super::{CaseContext, Workload};
use crate::Error;
use crate::engines::Engine;
use crate::engines::EngineKind;
use crate::engines::own_schema::SchemaCase;
use crate::generators::Key;
use crate::keys::KeySettings;
use crate::metrics::budget::{CounterAccount, CounterBudget};
use crate::results::{PhaseResult, RunResult};
use crate::schema::{Plan, Role, Schema, Source, key_share};
use crate::strategy::{Storage, Strategy};
use crate::util::pick::Pick;
use crate::values::Param;
use crate::values::{ColumnSpec, Sidecar, SpecOverrides, resolve};
use load::Loaded;
use rows::{MAX_COLUMNS, Ref, TableRows};
use std::collections::BTreeMap;

/// Largest `--parent-rows` accepted.
pub const MAX_PARENT_ROWS: u64 = 100_000_000;
/// Largest `--children-per-row` accepted.
pub const MAX_CHILDREN_PER_ROW: u64 = 100;
/// Largest `--reads` accepted (the sampled rows are kept in memory).
pub const MAX_READS: u64 = 10_000_000;

/// Which parent a child row references.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum FkLocality {
    /// A row of the batch being inserted (children arrive with their parent).
    #[default]
    Recent,
    /// Any row inserted so far.
    Uniform,
}

impl FkLocality {
    /// The name `--fk-locality` takes.
    pub fn name(self) -> &'static str {
        match self {
            FkLocality::Recent => "recent",
            FkLocality::Uniform => "uniform",
        }
    }
}

/// What [`OwnSchema::key_rows`] hands each row to: its rowid, client key, columns and parameters.
pub type KeyRowVisitor<'a> = dyn FnMut(i64, Option<Key>, &[usize], &[Param<'_>]) + 'a;

/// The phase of a schema run that rebuilt its tables once measured ([`SchemaSizes::rebuild`]).
pub const REBUILD_PHASE: &str = "rebuild";

/// The sizes and choices of a schema run.
#[derive(Clone, Debug, PartialEq)]
pub struct SchemaSizes {
    /// Key-table rows.
    pub rows: u64,
    /// Key-table rows per transaction (with their children).
    pub batch_rows: u64,
    /// Rows of each table the key table references.
    pub parent_rows: u64,
    /// Rows of each child table per key-table row.
    pub children_per_row: u64,
    /// Which parent a child references.
    pub fk_locality: FkLocality,
    /// Which rows the reads ask for.
    pub read_locality: ReadLocality,
    /// Reads per phase.
    pub reads: u64,
    /// The strategy whose tables are rebuilt once measured, timed (`rebuild` phase): what
    /// rewriting the table costs, for advise's switch-over.
    pub rebuild: Option<String>,
}

/// The schema workload.
#[derive(Clone, Debug)]
pub struct OwnSchema {
    plan: Plan,
    /// Value specs of generated columns, by (fill, column).
    specs: BTreeMap<(usize, usize), ColumnSpec>,
    sizes: SchemaSizes,
    keys: KeySettings,
    /// The schema file's name, for the results.
    file: String,
}

impl OwnSchema {
    /// Plans a run of `schema` keyed at `table` (default: the table the others reference), with
    /// value specs from column comments and `sidecar`; every error is one line.
    pub fn new(
        schema: &Schema,
        table: Option<&str>,
        sidecar: Option<&Sidecar>,
        sizes: SchemaSizes,
        keys: impl Into<KeySettings>,
        file: &str,
    ) -> Result<Self, Error> {
        let range = |flag: &str, v: u64, lo: u64, hi: u64| {
            if v < lo || v > hi {
                Err(Error::InvalidInput(format!("{flag} {v} is out of range: use {lo} to {hi}")))
            } else {
                Ok(())
            }
        };
        range("--rows", sizes.rows, 1, super::MAX_ROWS)?;
        range("--batch", sizes.batch_rows, 1, super::MAX_BATCH_ROWS)?;
        range("--parent-rows", sizes.parent_rows, 1, MAX_PARENT_ROWS)?;
        range("--children-per-row", sizes.children_per_row, 0, MAX_CHILDREN_PER_ROW)?;
        range("--reads", sizes.reads, 0, MAX_READS)?;
        let key = schema.key_table(table)?.name.clone();
        let plan = Plan::new(schema, &key)?;
        let mut specs = BTreeMap::new();
        for (f, fill) in plan.fills.iter().enumerate() {
            for (c, source) in fill.sources.iter().enumerate() {
                let Source::Value(ty) = *source else { continue };
                let column = &fill.table.columns[c];
                let at = |e: Error| {
                    Error::InvalidInput(format!("line {}: {}.{}: {}", column.line, fill.table.name, column.name, e))
                };
                let comment = match &column.comment {
                    Some(text) => SpecOverrides::parse_comment(text).map_err(at)?,
                    None => None,
                };
                // What the type itself admits comes first: an ENUM's labels, YEAR's range.
                let implied = implied(column);
                let mut layers: Vec<&SpecOverrides> = implied.iter().chain(comment.iter()).collect();
                layers.extend(sidecar.and_then(|s| s.column(&fill.table.name, &column.name)));
                specs.insert((f, c), resolve(ty, &layers).map_err(at)?);
            }
        }
        let sizes = SchemaSizes { batch_rows: sizes.batch_rows.min(sizes.rows), ..sizes };
        Ok(OwnSchema { plan, specs, sizes, keys: keys.into(), file: file.to_string() })
    }

    /// How the tables this run makes for `strategy` on `engine` differ from the file's (the key
    /// column, the columns that reference it, and what does not carry over to another engine).
    pub fn changes(&self, engine: EngineKind, strategy: &Strategy) -> Vec<crate::engines::schema_sql::Change> {
        let key = &self.plan.key_table().name;
        crate::engines::schema_sql::render_with_changes(&self.plan.schema(), key, strategy, engine, "")
            .map(|r| r.changes)
            .unwrap_or_default()
    }

    /// The plan: which tables are filled and how.
    pub fn plan(&self) -> &Plan {
        &self.plan
    }

    /// Key-table rows a case inserts.
    pub fn rows(&self) -> u64 {
        self.sizes.rows
    }

    /// The key table's rows as a case makes them — the same key stream and generated values;
    /// foreign keys to its ancestors drawn from the same distribution — for a page model:
    /// `each(rowid, key, columns, params)` gets the row's rowid (1, 2, …), its client key (`None`
    /// where the engine assigns it) and its parameters, `params[i]` for column `columns[i]`.
    pub fn key_rows(&self, strategy: &Strategy, each: &mut KeyRowVisitor<'_>) -> Result<(), Error> {
        let mut rows = self.key_row_stream(strategy)?;
        while rows.next(&mut |rowid, keys, columns, params| each(rowid, keys.primary, columns, params))? {}
        Ok(())
    }

    fn children_rows(&self) -> u64 {
        self.sizes.rows * self.sizes.children_per_row
    }

    /// Rows each filled table must hold at the end.
    fn expected(&self, fill: usize) -> u64 {
        match self.plan.fills[fill].role {
            Role::Ancestor => self.sizes.parent_rows,
            Role::Key => self.sizes.rows,
            Role::Child => self.children_rows(),
        }
    }

    fn feeds(&self, case: &dyn SchemaCase) -> Result<Vec<TableRows>, Error> {
        let sql = case.sql();
        (0..self.plan.fills.len())
            .map(|f| {
                TableRows::new(&self.plan, f, &sql.inserts[f], self.keys.seed, self.expected(f), &mut |_, c| {
                    Ok(self.specs[&(f, c)].clone())
                })
            })
            .collect()
    }

    /// Fills every ancestor with `--parent-rows` rows, parents first, in transactions of
    /// `--batch` rows.
    fn fill_parents(
        &self,
        case: &mut dyn SchemaCase,
        feeds: &mut [TableRows],
        pick: &mut Pick,
        ctx: &CaseContext<'_>,
    ) -> Result<Option<PhaseResult>, Error> {
        let ancestors: Vec<usize> = self.plan.ancestors().collect();
        if ancestors.is_empty() {
            return Ok(None);
        }
        let storage = Storage::Integer;
        let parent_rows = self.sizes.parent_rows;
        case.take_counters(&cheap())?;
        let t0 = ctx.timer.now_ns();
        for sql in case.sql().before_parents.clone() {
            case.execute(&sql)?;
        }
        for &a in &ancestors {
            let mut done = 0;
            while done < parent_rows {
                let n = self.sizes.batch_rows.min(parent_rows - done);
                transaction(case, |case| {
                    for _ in 0..n {
                        let mut params = [Param::Null; MAX_COLUMNS];
                        let k = feeds[a].next(
                            None,
                            storage,
                            &mut |_| Ref::Row(pick.below(parent_rows as usize) as u64),
                            &mut params,
                        )?;
                        case.insert(a, &params[..k])?;
                    }
                    Ok(())
                })?;
                done += n;
                if ctx.control.is_cancelled() {
                    return Err(Error::Interrupted);
                }
            }
        }
        for sql in case.sql().after_parents.clone() {
            case.execute(&sql)?;
        }
        let names: Vec<&str> = ancestors.iter().map(|&a| self.plan.fills[a].table.name.as_str()).collect();
        let rows = parent_rows * ancestors.len() as u64;
        Ok(Some(PhaseResult {
            name: "fill-parents".into(),
            operations: rows,
            rows,
            elapsed_ns: ctx.timer.now_ns() - t0,
            counters: case.take_counters(&cheap())?,
            note: Some(format!("{parent_rows} rows in each table the key table references ({})", names.join(", "))),
            ..PhaseResult::default()
        }))
    }
}

/// An account that affords only the cheap statistics (the reads' cache hits and misses).
fn cheap() -> CounterAccount {
    CounterAccount::new(CounterBudget::PerMille(0))
}

/// Runs `body` in one transaction, rolling back if it fails.
fn transaction(
    case: &mut dyn SchemaCase,
    body: impl FnOnce(&mut dyn SchemaCase) -> Result<(), Error>,
) -> Result<(), Error> {
    case.begin()?;
    match body(case) {
        Ok(()) => case.end(true),
        Err(e) => {
            let _ = case.end(false);
            Err(e)
        }
    }
}

impl OwnSchema {
    /// Counts every table's rows and checks every foreign key resolves.
    fn finish(
        &self,
        case: Box<dyn SchemaCase + '_>,
        strategy: &Strategy,
        loaded: &Loaded,
        result: &mut RunResult,
        ctx: &CaseContext<'_>,
    ) -> Result<(), Error> {
        let sql = case.sql().clone();
        let t0 = ctx.timer.now_ns();
        let report = case.finish(self.sizes.rebuild.as_deref() == Some(strategy.name))?;
        let rebuilt_ns = match &report.rebuild {
            Some(Ok(r)) => r.spent_ns,
            _ => 0,
        };
        let elapsed_ns = (ctx.timer.now_ns() - t0).saturating_sub(rebuilt_ns);
        result.size_bytes = Some(report.size_bytes);
        result.wal_size_bytes = report.wal_size_bytes;
        let engine = EngineKind::parse(&result.engine)?;
        result.btrees = report.btrees;
        for tree in &mut result.btrees {
            tree.key_share = key_share(&self.plan, strategy, engine, &report.rows, tree);
            let (misses, touched) = loaded.per_tree.get(&tree.name).copied().unwrap_or_default();
            tree.misses_per_1k_rows = misses;
            tree.index_blocks_touched_per_1k_rows = touched;
        }
        result.kept_database = report.kept.map(|p| p.display().to_string());
        let mut figures = BTreeMap::new();
        let mut total = 0;
        for (f, found) in report.rows.iter().enumerate() {
            let table = &self.plan.fills[f].table.name;
            figures.insert(format!("rows.{table}"), *found as f64);
            verify(&format!("{} ({table})", strategy.name), self.expected(f), *found)?;
            total += found;
        }
        for ((what, _), orphans) in sql.orphans.iter().zip(&report.orphans) {
            if *orphans > 0 {
                return Err(Error::InvalidInput(format!(
                    "{orphans} rows of foreign key {what} reference a missing parent: the tables are wrong"
                )));
            }
        }
        result.verified_rows = Some(total);
        result.phases.push(PhaseResult {
            name: "verify".into(),
            operations: (report.rows.len() + report.orphans.len()) as u64,
            rows: total,
            elapsed_ns,
            figures,
            note: Some(format!(
                "every table's rows counted; each of {} foreign keys resolves in every row",
                report.orphans.len()
            )),
            ..PhaseResult::default()
        });
        let rebuild = match &report.rebuild {
            None => None,
            Some(Ok(r)) => Some(PhaseResult {
                rows: total,
                elapsed_ns: r.elapsed_ns,
                figures: BTreeMap::from([
                    ("size_before_bytes".to_string(), report.size_bytes as f64),
                    ("size_after_bytes".to_string(), r.size_after_bytes as f64),
                ]),
                note: Some(r.note.into()),
                ..PhaseResult::default()
            }),
            Some(Err(e)) => Some(PhaseResult {
                note: Some(format!("the rebuild failed, so it has no figures: {e}")),
                ..PhaseResult::default()
            }),
        };
        result.phases.extend(rebuild.map(|p| PhaseResult { name: REBUILD_PHASE.into(), operations: 1, ..p }));
        Ok(())
    }
}

impl Workload for OwnSchema {
    fn name(&self) -> &'static str {
        "schema"
    }

    fn rows_per_case(&self) -> u64 {
        self.sizes.rows
    }

    fn notices(&self, engine: EngineKind, strategies: &[&'static Strategy]) -> Vec<String> {
        let Some(first) = strategies.first() else { return Vec::new() };
        let changes = self.changes(engine, first);
        if changes.is_empty() {
            return vec![format!("Your tables are made as the file writes them on {}", engine.label())];
        }
        let mut out = vec![format!(
            "Your tables on {}, as pkbench makes them for {} ({}; each strategy gives the key column and the columns that reference it its own key type):",
            engine.label(),
            first.name,
            crate::util::text::count(changes.len(), "change")
        )];
        out.extend(changes.iter().map(|c| format!("  {c}")));
        out
    }

    fn case_plan(&self) -> String {
        format!(
            "inserting {} {} rows with {} children each, then {} reads per kind",
            self.sizes.rows,
            self.plan.key_table().name,
            self.sizes.children_per_row,
            self.sizes.reads
        )
    }

    fn run_case(
        &self,
        engine: &mut dyn Engine,
        strategy: &Strategy,
        ctx: &CaseContext<'_>,
    ) -> (RunResult, Option<Error>) {
        let s = &self.sizes;
        let info = engine.info();
        let kind = EngineKind::parse(info.name).ok();
        let options = BTreeMap::from([
            ("schema".to_string(), self.file.clone()),
            ("changes".to_string(), {
                let changes = kind.map(|e| self.changes(e, strategy)).unwrap_or_default();
                changes.iter().map(|c| c.to_string()).collect::<Vec<_>>().join("; ")
            }),
            ("key_table".to_string(), self.plan.key_table().name.clone()),
            (
                "tables".to_string(),
                self.plan.fills.iter().map(|f| f.table.name.as_str()).collect::<Vec<_>>().join(", "),
            ),
            ("parent_rows".to_string(), s.parent_rows.to_string()),
            ("children_per_row".to_string(), s.children_per_row.to_string()),
            ("fk_locality".to_string(), s.fk_locality.name().to_string()),
            ("read_locality".to_string(), s.read_locality.name().to_string()),
            ("reads".to_string(), s.reads.to_string()),
        ]);
        let base = SettingsBase {
            rows: s.rows,
            batch_rows: s.batch_rows,
            payload_bytes: 0,
            keys: self.keys,
            insert_path: "one cached prepared single-row INSERT per row: a batch's key-table rows, then their children, in one transaction; values generated in the timed loop".into(),
            options,
        };
        // The user's tables are written in the engine's own dialect, not a flavour's
        // (`run_sql`), so their layout is its.
        let description = match kind {
            Some(kind) => crate::engines::dialect::describe(kind.dialect(), strategy),
            None => engine.describe(strategy),
        };
        let mut result = result_skeleton(info.clone(), description, self.name(), strategy, base);
        ctx.control.set_rows(0);
        let outcome = (|| -> Result<(), Error> {
            let host = engine.own_schema().ok_or_else(|| {
                Error::InvalidInput(format!(
                    "--schema runs on SQLite, PostgreSQL and MariaDB, not {}: use --engine sqlite, postgres or mariadb",
                    info.name
                ))
            })?;
            let mut case = host.create_schema_case(strategy, &self.plan)?;
            result.settings.engine = case.effective_settings()?;
            let mut feeds = self.feeds(case.as_ref())?;
            let mut pick = Pick(self.keys.seed ^ 0xf0_0d);
            if let Some(p) = self.fill_parents(case.as_mut(), &mut feeds, &mut pick, ctx)? {
                result.phases.push(p);
                ctx.observer.phase_recorded(&result);
            }
            let loaded = self.load(case.as_mut(), &mut feeds, strategy, &mut pick, &mut result, ctx)?;
            self.reads(case.as_mut(), &loaded, strategy, &mut result, ctx)?;
            self.finish(case, strategy, &loaded, &mut result, ctx)?;
            ctx.observer.phase_recorded(&result);
            Ok(())
        })();
        conclude(result, outcome)
    }
}

/// The values a column's type admits beyond its family's defaults: an `ENUM`'s or `SET`'s
/// labels, `YEAR`'s 1901–2155.
fn implied(column: &crate::schema::Column) -> Option<SpecOverrides> {
    if !column.labels.is_empty() {
        return Some(SpecOverrides { values: Some(column.labels.clone()), ..SpecOverrides::default() });
    }
    let (lo, hi) = crate::schema::implied_range(&column.declared)?;
    Some(SpecOverrides { range: Some((lo.to_string(), hi.to_string())), ..SpecOverrides::default() })
}
