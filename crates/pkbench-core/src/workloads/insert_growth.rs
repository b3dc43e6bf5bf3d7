//! insert-growth: insert rows in fixed-size transactions and time every batch as the table
//! grows — the experiment of
//! "Your SQLite Inserts Got 10× Slower — and a Random UUID Did It" (Arthur).

use super::outcome::{Batches, SettingsBase, conclude, empty_result, record_report};
use super::{CaseContext, Workload};
use crate::Error;
use crate::engines::{CaseSpec, Engine, InsertCase};
use crate::keys::{KeySettings, KeyStream};
use crate::results::RunResult;
use crate::strategy::Strategy;

/// Largest `--rows` accepted.
pub const MAX_ROWS: u64 = 10_000_000_000;
/// Largest `--batch` accepted (the batch's keys are held in memory).
pub const MAX_BATCH_ROWS: u64 = 20_000_000;
/// Largest `--payload` accepted.
pub const MAX_PAYLOAD_BYTES: u64 = 1 << 20;

/// The insert-growth workload's parameters.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct InsertGrowth {
    rows: u64,
    batch_rows: u64,
    payload_bytes: u64,
    keys: KeySettings,
    presort: bool,
}

impl InsertGrowth {
    /// Validates sizes; errors say what range is allowed. A batch larger than `rows` is
    /// shortened to `rows`.
    pub fn new(rows: u64, batch_rows: u64, payload_bytes: u64, keys: impl Into<KeySettings>) -> Result<Self, Error> {
        let keys = keys.into();
        if rows == 0 || rows > MAX_ROWS {
            return Err(Error::InvalidInput(format!(
                "--rows {rows} is out of range: use 1 to {MAX_ROWS} (e.g. --rows 1M)"
            )));
        }
        if batch_rows == 0 || batch_rows > MAX_BATCH_ROWS {
            return Err(Error::InvalidInput(format!(
                "--batch {batch_rows} is out of range: use 1 to {MAX_BATCH_ROWS} rows per transaction (e.g. --batch 100k)"
            )));
        }
        if payload_bytes > MAX_PAYLOAD_BYTES {
            return Err(Error::InvalidInput(format!(
                "--payload {payload_bytes} is too large: use 0 to {MAX_PAYLOAD_BYTES} bytes"
            )));
        }
        Ok(InsertGrowth { rows, batch_rows: batch_rows.min(rows), payload_bytes, keys, presort: false })
    }

    /// Sorts each batch's rows by primary key before inserting it (`--presort`). Sorting counts
    /// as key generation (`keygen_ns`), not insert time.
    pub fn with_presort(mut self, presort: bool) -> Self {
        self.presort = presort;
        self
    }

    /// Rows per case.
    pub fn rows(&self) -> u64 {
        self.rows
    }

    /// Rows per transaction.
    pub fn batch_rows(&self) -> u64 {
        self.batch_rows
    }

    /// Key-stream seed.
    pub fn seed(&self) -> u64 {
        self.keys.seed
    }

    fn insert_all(
        &self,
        case: &mut dyn InsertCase,
        strategy: &Strategy,
        result: &mut RunResult,
        ctx: &CaseContext<'_>,
    ) -> Result<(), Error> {
        let mut batches = Batches::new(KeyStream::new(strategy, self.keys), self.batch_rows, self.presort);
        let mut total = 0;
        while total < self.rows {
            if ctx.control.is_cancelled() {
                return Err(Error::Interrupted);
            }
            let n = self.batch_rows.min(self.rows - total);
            if let Err(e) = batches.insert(case, n, total + n, total + n == self.rows, result, ctx, strategy.name) {
                // A fault: count what the committed batches left, so none is lost or claimed
                // wrongly (a batch whose COMMIT answer was lost is kept if its rows are there).
                if !matches!(e, Error::Interrupted) {
                    result.verified_rows = case.committed_rows();
                    batches.keep_if_committed(result.verified_rows, result, ctx, strategy.name);
                }
                ctx.control.set_rows(result.rows_inserted());
                return Err(e);
            }
            total += n;
        }
        Ok(())
    }
}

impl Workload for InsertGrowth {
    fn name(&self) -> &'static str {
        "insert-growth"
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
            options: if self.presort {
                [("presort".to_string(), "true".to_string())].into()
            } else {
                Default::default()
            },
        };
        let mut result = empty_result(engine, self.name(), strategy, base);
        ctx.control.set_rows(0);
        let spec = CaseSpec { strategy, payload_bytes: self.payload_bytes as usize, rows: self.rows, keys: self.keys };
        let outcome = (|| -> Result<(), Error> {
            let mut case = engine.create_case(&spec)?;
            result.settings.engine = case.effective_settings()?;
            self.insert_all(case.as_mut(), strategy, &mut result, ctx)?;
            let report = case.finish()?;
            let expected = result.rows_inserted();
            record_report(&mut result, report, strategy.name, expected)
        })();
        conclude(result, outcome)
    }
}
