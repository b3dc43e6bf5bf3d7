//! churn: a retention pattern. Fill a table to `rows`, then turn it over [`TURNOVERS`] times in
//! steps: delete the oldest `batch` rows (one transaction), insert `batch` new ones (another).
//! Every insert is a batch in `batches`; every step is a phase `churn-NNN` with the table's
//! size on disk and leaf fill after it, so ordered and random keys can be compared over time.

use super::outcome::{Batches, SettingsBase, conclude, empty_result, record_report, verify};
use super::{CaseContext, Workload};
use crate::Error;
use crate::engines::{CaseSpec, Engine, InsertCase, Physical, maintained};
use crate::generators::Key;
use crate::keys::{KeySettings, KeyStream};
use crate::results::{PhaseResult, RunResult};
use crate::strategy::{KeySource, Strategy};
use std::collections::{BTreeMap, VecDeque};

/// How many times the whole table is replaced.
pub const TURNOVERS: u64 = 3;

/// The churn workload: a table of `rows` rows, replaced `batch_rows` at a time.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Churn {
    rows: u64,
    batch_rows: u64,
    payload_bytes: u64,
    keys: KeySettings,
}

impl Churn {
    /// Uses insert-growth's limits; `batch_rows` must not exceed `rows`.
    pub fn new(rows: u64, batch_rows: u64, payload_bytes: u64, keys: impl Into<KeySettings>) -> Result<Self, Error> {
        let keys = keys.into();
        super::InsertGrowth::new(rows, batch_rows, payload_bytes, keys)?;
        if batch_rows > rows {
            return Err(Error::InvalidInput(format!(
                "churn replaces --batch rows at a time in a table of --rows rows: --batch {batch_rows} exceeds --rows {rows}"
            )));
        }
        Ok(Churn { rows, batch_rows, payload_bytes, keys })
    }

    fn steps(&self) -> u64 {
        (TURNOVERS * self.rows).div_ceil(self.batch_rows)
    }
}

/// Inserts `n` rows, remembering their primary keys in insertion order.
struct Inserter {
    batches: Batches,
    /// Primary keys of the rows in the table, oldest first.
    live: VecDeque<Key>,
    /// The next engine-assigned key (SQLite rowids and identity columns count up from 1).
    next_assigned: i64,
}

impl Inserter {
    fn insert(
        &mut self,
        case: &mut dyn InsertCase,
        n: u64,
        last: bool,
        result: &mut RunResult,
        ctx: &CaseContext<'_>,
        strategy: &str,
    ) -> Result<u64, Error> {
        let rows_total = self.live.len() as u64 + n;
        let elapsed_ns = self.batches.insert(case, n, rows_total, last, result, ctx, strategy)?;
        for r in self.batches.rows() {
            let key = r.primary.unwrap_or_else(|| {
                self.next_assigned += 1;
                Key::Int(self.next_assigned)
            });
            self.live.push_back(key);
        }
        Ok(elapsed_ns)
    }
}

/// Figures of the table's physical state: size, WAL, and the main tree's leaf fill.
fn state_figures(p: &Physical, figures: &mut BTreeMap<String, f64>) {
    figures.insert("size_bytes".into(), p.size_bytes as f64);
    // Unknown figures are left out, never written as zero.
    if let Some(wal) = p.wal_size_bytes {
        figures.insert("wal_bytes".into(), wal as f64);
    }
    if let Some(fill) = p.leaf_fill() {
        figures.insert("leaf_pages".into(), p.leaf_pages() as f64);
        figures.insert("leaf_fill".into(), fill);
    }
}

impl Workload for Churn {
    fn name(&self) -> &'static str {
        "churn"
    }

    fn rows_per_case(&self) -> u64 {
        self.rows + self.steps() * self.batch_rows
    }

    fn run_case(
        &self,
        engine: &mut dyn Engine,
        strategy: &Strategy,
        ctx: &CaseContext<'_>,
    ) -> (RunResult, Option<Error>) {
        let base = SettingsBase {
            rows: self.rows,
            batch_rows: self.batch_rows,
            payload_bytes: self.payload_bytes,
            keys: self.keys,
            insert_path: engine.insert_path().to_string(),
            options: BTreeMap::from([
                ("turnovers".to_string(), TURNOVERS.to_string()),
                ("churn_steps".to_string(), self.steps().to_string()),
            ]),
        };
        let mut result = empty_result(engine, self.name(), strategy, base);
        ctx.control.set_rows(0);
        let spec = CaseSpec { strategy, payload_bytes: self.payload_bytes as usize, rows: self.rows, keys: self.keys };
        let outcome = (|| -> Result<(), Error> {
            if let KeySource::Server(_) = strategy.primary.source {
                return Err(Error::InvalidInput(format!(
                    "churn deletes the oldest rows by key, and the server generates '{}' keys without telling pkbench; use the client-generated strategy",
                    strategy.name
                )));
            }
            let mut case = engine.create_case(&spec)?;
            maintained(case.as_mut(), "churn")?; // refused before any row is written
            result.settings.engine = case.effective_settings()?;
            let mut ins = Inserter {
                batches: Batches::new(KeyStream::new(strategy, self.keys), self.batch_rows, false),
                live: VecDeque::with_capacity(self.rows as usize + self.batch_rows as usize),
                next_assigned: 0,
            };
            let mut fill_ns = 0;
            while (ins.live.len() as u64) < self.rows {
                let n = self.batch_rows.min(self.rows - ins.live.len() as u64);
                let last = ins.live.len() as u64 + n == self.rows;
                fill_ns += ins.insert(case.as_mut(), n, last, &mut result, ctx, strategy.name)?;
            }
            let mut fill = PhaseResult {
                name: "fill".into(),
                operations: result.batches.len() as u64,
                rows: self.rows,
                elapsed_ns: fill_ns,
                ..PhaseResult::default()
            };
            state_figures(&maintained(case.as_mut(), "churn")?.physical()?, &mut fill.figures);
            result.phases.push(fill);
            let mut doomed: Vec<Key> = Vec::with_capacity(self.batch_rows as usize);
            for step in 1..=self.steps() {
                if ctx.control.is_cancelled() {
                    return Err(Error::Interrupted);
                }
                doomed.clear();
                doomed.extend(ins.live.drain(..self.batch_rows as usize));
                let t0 = ctx.timer.now_ns();
                let deleted = maintained(case.as_mut(), "churn")?.delete_by_primary(&doomed, ctx.control)?;
                let delete_ns = ctx.timer.now_ns() - t0;
                verify(strategy.name, doomed.len() as u64, deleted)?;
                let insert_ns = ins.insert(case.as_mut(), self.batch_rows, true, &mut result, ctx, strategy.name)?;
                let mut phase = PhaseResult {
                    name: format!("churn-{step:03}"),
                    operations: 2,
                    rows: 2 * self.batch_rows,
                    elapsed_ns: delete_ns + insert_ns,
                    // Said once: the same maintenance runs after every delete.
                    note: if step == 1 {
                        maintained(case.as_mut(), "churn")?.delete_note().map(str::to_string)
                    } else {
                        None
                    },
                    ..PhaseResult::default()
                };
                phase.counters = result.batches.last().map(|b| b.counters).unwrap_or_default();
                phase.figures.insert("delete_ms".into(), delete_ns as f64 / 1e6);
                phase.figures.insert("insert_ms".into(), insert_ns as f64 / 1e6);
                state_figures(&maintained(case.as_mut(), "churn")?.physical()?, &mut phase.figures);
                result.phases.push(phase);
            }
            let report = case.finish()?;
            record_report(&mut result, report, strategy.name, self.rows)
        })();
        conclude(result, outcome)
    }
}
