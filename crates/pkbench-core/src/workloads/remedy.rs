//! remedy: the advice of "Your SQLite Inserts Got 10× Slower — and a Random UUID Did It" (Arthur)
//! tested. Grow a table with random UUIDv4 keys, switch new rows to UUIDv7 and keep inserting (does
//! the batch time drop back at once?), then `VACUUM` (size and leaf fill before and after, time,
//! space it needs). Batches of both segments are in `batches`; phases `insert-uuid4`,
//! `insert-uuid7` and `vacuum` summarise the three steps.

use super::outcome::{Batches, SettingsBase, conclude, empty_result, record_report};
use super::{CaseContext, Workload};
use crate::Error;
use crate::engines::{CaseSpec, Engine, InsertCase, Physical, maintained};
use crate::generators::Scheme;
use crate::keys::{KeySettings, KeyStream};
use crate::results::{BatchResult, Counters, PhaseResult, RunResult};
use crate::strategy::{KeySource, SecondaryKey, Storage, Strategy};
use std::collections::BTreeMap;

/// The remedy workload: `rows` in batches of `batch_rows`, switching to UUIDv7 after
/// `switch_rows`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Remedy {
    rows: u64,
    batch_rows: u64,
    switch_rows: u64,
    payload_bytes: u64,
    keys: KeySettings,
}

impl Remedy {
    /// Uses insert-growth's limits for `rows`, `batch_rows` and `payload_bytes`; the switch
    /// happens after the batch that reaches half of `rows`.
    pub fn new(rows: u64, batch_rows: u64, payload_bytes: u64, keys: impl Into<KeySettings>) -> Result<Self, Error> {
        let keys = keys.into();
        let growth = super::InsertGrowth::new(rows, batch_rows, payload_bytes, keys)?;
        let batch_rows = growth.batch_rows();
        if rows < 2 * batch_rows {
            return Err(Error::InvalidInput(format!(
                "remedy needs at least two batches: --rows {rows} with --batch {batch_rows}; use --rows {} or a smaller --batch",
                2 * batch_rows
            )));
        }
        let switch_rows = (rows / 2).div_ceil(batch_rows) * batch_rows;
        Ok(Remedy { rows, batch_rows, switch_rows, payload_bytes, keys })
    }

    /// The strategy after the switch: the random UUID key (primary, else external) becomes v7.
    pub fn switched(strategy: &Strategy) -> Result<Strategy, Error> {
        let refuse = || {
            Error::InvalidInput(format!(
                "remedy switches a random UUID key to UUIDv7, and '{}' has none: use e.g. --strategies uuid4,uuid4-rowid,int+uuid4",
                strategy.name
            ))
        };
        let mut after = *strategy;
        match (strategy.primary.source, strategy.secondary) {
            (KeySource::Client(Scheme::Uuid4), _) if strategy.primary.storage != Storage::Integer => {
                after.primary.source = KeySource::Client(Scheme::Uuid7);
            }
            (_, Some(sec)) if sec.scheme == Scheme::Uuid4 => {
                after.secondary = Some(SecondaryKey { scheme: Scheme::Uuid7, ..sec });
            }
            _ => return Err(refuse()),
        }
        Ok(after)
    }

    fn insert_segment(
        &self,
        case: &mut dyn InsertCase,
        batches: &mut Batches,
        until: u64,
        result: &mut RunResult,
        ctx: &CaseContext<'_>,
        strategy: &str,
    ) -> Result<PhaseResult, Error> {
        let first = result.batches.len();
        let mut total = result.rows_inserted();
        while total < until {
            if ctx.control.is_cancelled() {
                return Err(Error::Interrupted);
            }
            let n = self.batch_rows.min(until - total);
            batches.insert(case, n, total + n, total + n == until, result, ctx, strategy)?;
            total += n;
        }
        let segment = &result.batches[first..];
        let mut phase = PhaseResult {
            operations: segment.len() as u64,
            rows: segment.iter().map(|b| b.rows).sum(),
            elapsed_ns: segment.iter().map(|b| b.elapsed_ns).sum(),
            ..PhaseResult::default()
        };
        phase.counters = Counters::over(segment);
        let ms = |b: &BatchResult| b.elapsed_ns as f64 / 1e6;
        if let (Some(f), Some(l)) = (segment.first(), segment.last()) {
            phase.figures.insert("first_batch_index".into(), f.index as f64);
            phase.figures.insert("first_batch_ms".into(), ms(f));
            phase.figures.insert("last_batch_ms".into(), ms(l));
        }
        Ok(phase)
    }
}

fn vacuum(case: &mut dyn InsertCase, ctx: &CaseContext<'_>) -> Result<PhaseResult, Error> {
    let case = maintained(case, "remedy")?;
    let before = case.physical()?;
    let t0 = ctx.timer.now_ns();
    let note = case.compact()?;
    let elapsed_ns = ctx.timer.now_ns() - t0;
    let after = case.physical()?;
    let wal_before = before.wal_size_bytes.unwrap_or(0);
    let wal_after = after.wal_size_bytes.unwrap_or(0);
    let pages = |p: &Physical| p.btrees.iter().map(|b| b.pages).sum::<u64>() as f64;
    let mut figures = BTreeMap::from([
        ("size_before_bytes".to_string(), before.size_bytes as f64),
        // The database file alone (without the WAL): what VACUUM shrinks once checkpointed.
        ("file_before_bytes".to_string(), (before.size_bytes - wal_before) as f64),
        ("file_after_bytes".to_string(), (after.size_bytes - wal_after) as f64),
        ("size_after_bytes".to_string(), after.size_bytes as f64),
        ("pages_before".to_string(), pages(&before)),
        ("pages_after".to_string(), pages(&after)),
        ("wal_growth_bytes".to_string(), wal_after.saturating_sub(wal_before) as f64),
        // SQLite's VACUUM copies the database into a temporary database, then writes it back
        // through the WAL: it needs room for both at once. The servers' rebuilds write a new copy
        // (no WAL file counted): room for the copy.
        (
            "free_space_needed_bytes".to_string(),
            (before.size_bytes - wal_before + wal_after.saturating_sub(wal_before)) as f64,
        ),
    ]);
    // Leaf fill only where the engine could read the leaves; unknown is left out, never zero.
    if let (Some(fill_before), Some(fill_after)) = (before.leaf_fill(), after.leaf_fill()) {
        figures.insert("leaf_fill_before".into(), fill_before);
        figures.insert("leaf_fill_after".into(), fill_after);
    }
    Ok(PhaseResult {
        name: "vacuum".into(),
        operations: 1,
        rows: 0,
        elapsed_ns,
        figures,
        note: Some(note.into()),
        ..PhaseResult::default()
    })
}

impl Workload for Remedy {
    fn name(&self) -> &'static str {
        "remedy"
    }

    fn rows_per_case(&self) -> u64 {
        self.rows
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
            options: BTreeMap::from([("switch_to_uuid7_after_rows".to_string(), self.switch_rows.to_string())]),
        };
        let mut result = empty_result(engine, self.name(), strategy, base);
        ctx.control.set_rows(0);
        let spec = CaseSpec { strategy, payload_bytes: self.payload_bytes as usize, rows: self.rows, keys: self.keys };
        let outcome = (|| -> Result<(), Error> {
            let after = Remedy::switched(strategy)?;
            let mut case = engine.create_case(&spec)?;
            maintained(case.as_mut(), "remedy")?; // refused before any row is written
            result.settings.engine = case.effective_settings()?;
            let mut batches = Batches::new(KeyStream::new(strategy, self.keys), self.batch_rows, false);
            let mut phase =
                self.insert_segment(case.as_mut(), &mut batches, self.switch_rows, &mut result, ctx, strategy.name)?;
            phase.name = "insert-uuid4".into();
            phase.note = Some("the strategy's own keys, before the switch".into());
            result.phases.push(phase);
            // A different seed: the v7 stream must not replay the v4 stream's random bits.
            let mut batches = Batches::new(
                KeyStream::new(&after, self.keys.reseeded(self.keys.seed ^ 0x7e7e_7e7e)),
                self.batch_rows,
                false,
            );
            let mut phase =
                self.insert_segment(case.as_mut(), &mut batches, self.rows, &mut result, ctx, strategy.name)?;
            phase.name = "insert-uuid7".into();
            phase.note = Some("new rows get UUIDv7 keys in the same table; first_batch_index marks the switch".into());
            result.phases.push(phase);
            result.phases.push(vacuum(case.as_mut(), ctx)?);
            let report = case.finish()?;
            let expected = result.rows_inserted();
            record_report(&mut result, report, strategy.name, expected)
        })();
        conclude(result, outcome)
    }
}
