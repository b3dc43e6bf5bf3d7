//! The result skeleton every workload fills, how a timed insert batch and a case's outcome are
//! recorded.

use super::CaseContext;
use crate::Error;
use crate::engines::{CaseReport, Engine, EngineInfo, InsertCase};
use crate::keys::KeyRow;
use crate::keys::{KeySettings, KeyStream};
use crate::metrics::budget::{CostRate, CounterAccount};
use crate::results::{BatchResult, Counters, RunResult, Settings};
use crate::strategy::Strategy;
use std::collections::BTreeMap;

/// An empty, incomplete result for `strategy` under `workload` on `engine`.
pub(crate) fn empty_result(
    engine: &dyn Engine,
    workload: &str,
    strategy: &Strategy,
    settings: SettingsBase,
) -> RunResult {
    result_skeleton(engine.info(), engine.describe(strategy), workload, strategy, settings)
}

/// An empty, incomplete result for `strategy` (described as `description`) under `workload`
/// on the engine `info` names.
pub(crate) fn result_skeleton(
    engine: EngineInfo,
    description: String,
    workload: &str,
    strategy: &Strategy,
    settings: SettingsBase,
) -> RunResult {
    RunResult {
        engine: engine.name.to_string(),
        engine_version: engine.version,
        workload: workload.to_string(),
        strategy: strategy.name.to_string(),
        strategy_description: description,
        settings: Settings {
            rows: settings.rows,
            batch_rows: settings.batch_rows,
            payload_bytes: settings.payload_bytes,
            seed: settings.keys.seed,
            key_clock: settings.keys.clock().describe(),
            key_parameters: settings.keys.applied_to(strategy),
            insert_path: settings.insert_path,
            engine: BTreeMap::new(),
            workload_options: settings.options,
        },
        batches: Vec::new(),
        phases: Vec::new(),
        verified_rows: None,
        size_bytes: None,
        wal_size_bytes: None,
        compacted_size_bytes: None,
        btrees: Vec::new(),
        kept_database: None,
        complete: false,
        error: None,
    }
}

/// The settings a workload records besides the engine's own.
pub(crate) struct SettingsBase {
    /// Rows the case was asked to write.
    pub rows: u64,
    /// Rows per transaction.
    pub batch_rows: u64,
    /// Payload bytes per row.
    pub payload_bytes: u64,
    /// How the keys were made.
    pub keys: KeySettings,
    /// How rows reach the engine.
    pub insert_path: String,
    /// Workload options (`presort = true`, `users = 200000`, …).
    pub options: BTreeMap<String, String>,
}

/// Marks `result` complete, or records the error beside it.
pub(crate) fn conclude(mut result: RunResult, outcome: Result<(), Error>) -> (RunResult, Option<Error>) {
    match outcome {
        Ok(()) => {
            result.complete = true;
            (result, None)
        }
        Err(e) => {
            result.error = Some(e.to_string());
            (result, Some(e))
        }
    }
}

/// Checks that `found` rows are the `expected` ones.
pub(crate) fn verify(strategy: &str, expected: u64, found: u64) -> Result<(), Error> {
    if expected == found { Ok(()) } else { Err(Error::Verification { strategy: strategy.into(), expected, found }) }
}

/// Records what the engine measured after a case, and checks it holds the `expected` rows.
pub(crate) fn record_report(
    result: &mut RunResult,
    report: CaseReport,
    strategy: &str,
    expected: u64,
) -> Result<(), Error> {
    result.verified_rows = Some(report.verified_rows);
    result.size_bytes = Some(report.size_bytes);
    result.wal_size_bytes = report.wal_size_bytes;
    result.compacted_size_bytes = report.compacted_size_bytes;
    result.btrees = report.btrees;
    result.kept_database = report.kept.map(|p| p.display().to_string());
    verify(strategy, expected, report.verified_rows)
}

/// Adds a committed batch to `result`, telling the observer.
pub(crate) fn record_batch(result: &mut RunResult, batch: BatchResult, ctx: &CaseContext<'_>, strategy: &str) {
    ctx.observer.batch_done(strategy, &batch);
    result.batches.push(batch);
    ctx.observer.batch_recorded(result);
}

/// A key stream cut into timed insert batches, with one row buffer reused for every batch.
pub(crate) struct Batches {
    keys: KeyStream,
    rows: Vec<KeyRow>,
    presort: bool,
    /// What counter reads may still cost; `None` until the first batch brings the budget.
    account: Option<CounterAccount>,
    /// What a counter read has cost so far.
    read_cost: CostRate,
    /// Batches inserted since counters were last read.
    unread: u64,
    /// The batch whose insert failed, kept until the rows counted after the failure tell
    /// whether its COMMIT went through (a lost reply leaves it in doubt).
    unconfirmed: Option<BatchResult>,
}

impl Batches {
    /// Batches of at most `batch_rows` rows from `keys`, each sorted by primary key if `presort`.
    pub(crate) fn new(keys: KeyStream, batch_rows: u64, presort: bool) -> Self {
        Batches {
            keys,
            rows: Vec::with_capacity(batch_rows as usize),
            presort,
            account: None,
            read_cost: CostRate::new(0.0),
            unread: 0,
            unconfirmed: None,
        }
    }

    /// After a failed batch: records it if `committed` rows (counted after the failure) say its
    /// COMMIT went through though its answer was lost; forgets it otherwise.
    pub(crate) fn keep_if_committed(
        &mut self,
        committed: Option<u64>,
        result: &mut RunResult,
        ctx: &CaseContext<'_>,
        strategy: &str,
    ) {
        if let Some(batch) = self.unconfirmed.take()
            && committed == Some(batch.rows_total)
        {
            record_batch(result, batch, ctx, strategy);
        }
    }

    /// The rows of the last batch.
    pub(crate) fn rows(&self) -> &[KeyRow] {
        &self.rows
    }

    /// One timed batch: the next `n` keys (generation timed apart), inserted in one
    /// transaction and recorded in `result` with `rows_total` rows in the table after it.
    /// Counters are read after it if the counter budget affords it, after the first batch (to
    /// learn what a read costs) and after the `last` batch of a phase whatever it costs; else
    /// they go to a later batch. Returns the insert time, ns.
    #[allow(clippy::too_many_arguments)]
    pub(crate) fn insert(
        &mut self,
        case: &mut dyn InsertCase,
        n: u64,
        rows_total: u64,
        last: bool,
        result: &mut RunResult,
        ctx: &CaseContext<'_>,
        strategy: &str,
    ) -> Result<u64, Error> {
        let t0 = ctx.timer.now_ns();
        self.keys.fill(&mut self.rows, n);
        if self.presort {
            self.rows.sort_unstable_by_key(|r| r.primary);
        }
        let t1 = ctx.timer.now_ns();
        let index = result.batches.len() as u64;
        if let Err(e) = case.insert_batch(&self.rows, ctx.control) {
            let elapsed = ctx.timer.now_ns() - t1;
            self.unconfirmed = Some(batch_result(index, (n, rows_total), (elapsed, t1 - t0), Counters::default()));
            return Err(e);
        }
        let t2 = ctx.timer.now_ns();
        let account = self.account.get_or_insert_with(|| CounterAccount::new(ctx.counter_budget));
        account.earn(t2 - t1);
        let first = result.batches.is_empty();
        // The batch is committed: a counter read that fails (the server gone) still records it.
        let mut failed = None;
        let (counters, (shards, lsm_levels), counters_ns, counters_span) =
            if first || last || case.counters_every_batch() || account.affords(self.read_cost.expected_ns(1)) {
                match case.take_counters_within(account) {
                    Ok(counters) => {
                        let layout = (case.take_shards(), case.take_levels());
                        let ns = ctx.timer.now_ns() - t2;
                        account.spend(ns);
                        self.read_cost.record(1, ns);
                        let span = std::mem::take(&mut self.unread) + 1;
                        (counters, layout, ns, span)
                    }
                    Err(e) => {
                        failed = Some(e);
                        (Counters::default(), (None, None), 0, 0)
                    }
                }
            } else {
                self.unread += 1;
                (Counters::default(), (None, None), 0, 0)
            };
        let batch = BatchResult {
            counters_ns,
            counters_span,
            shards,
            lsm_levels,
            ..batch_result(index, (n, rows_total), (t2 - t1, t1 - t0), counters)
        };
        record_batch(result, batch, ctx, strategy);
        match failed {
            Some(e) => Err(e),
            None => Ok(t2 - t1),
        }
    }
}

/// Batch `index` of `rows` rows (`rows_total` in the table after it), inserted in `elapsed` ns
/// after `keygen` ns making its keys, with `counters` (none read: a span of 0 batches).
fn batch_result(
    index: u64,
    (rows, rows_total): (u64, u64),
    (elapsed, keygen): (u64, u64),
    counters: Counters,
) -> BatchResult {
    BatchResult {
        index,
        rows,
        rows_total,
        elapsed_ns: elapsed,
        elapsed_ns_low: None,
        elapsed_ns_high: None,
        keygen_ns: keygen,
        counters,
        counters_ns: 0,
        counters_span: 0,
        db_size_bytes: None,
        shards: None,
        machine_ns: None,
        lsm_levels: None,
    }
}
