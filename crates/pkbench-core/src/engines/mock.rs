//! A deterministic engine for snapshot tests of the runner and reports. It measures nothing:
//! it advances a [`FakeTimer`] by a fixed cost model, so output is identical on every machine.
//! Never use it in place of a real engine.

use super::{CaseReport, CaseSpec, Engine, EngineInfo, InsertCase, InsertClient};
use crate::Error;
use crate::control::{RunControl, Timer};
use crate::keys::KeyRow;
use crate::results::{BtreeStats, Counters};
use crate::strategy::Strategy;
use std::collections::BTreeMap;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};

/// A timer that only moves when the mock engine says so.
#[derive(Debug, Default)]
pub struct FakeTimer(AtomicU64);

impl FakeTimer {
    /// Advances the fake time by `ns`.
    pub fn advance(&self, ns: u64) {
        self.0.fetch_add(ns, Ordering::SeqCst);
    }
}

impl Timer for FakeTimer {
    fn now_ns(&self) -> u64 {
        self.0.load(Ordering::SeqCst)
    }
}

/// The mock engine. Ordered keys cost a flat 1 µs per row; random keys cost more as the table
/// grows, and miss the "cache" in proportion.
#[derive(Debug)]
pub struct MockEngine {
    timer: Arc<FakeTimer>,
    /// Fail the given batch index of every case with a disk-full error (for error-path tests).
    pub fail_at_batch: Option<u64>,
    /// Commit the given batch index of every case, then answer as a dropped connection would:
    /// the batch is in the table though pkbench was told it failed (for error-path tests).
    pub lose_answer_at_batch: Option<u64>,
    /// Real time each counter read takes (a server's costly counters under load).
    pub counter_read: std::time::Duration,
}

impl MockEngine {
    /// A mock engine advancing `timer`.
    pub fn new(timer: Arc<FakeTimer>) -> Self {
        MockEngine { timer, fail_at_batch: None, lose_answer_at_batch: None, counter_read: Default::default() }
    }
}

impl Engine for MockEngine {
    fn info(&self) -> EngineInfo {
        EngineInfo { name: "mock", version: "1.0".into() }
    }

    fn insert_path(&self) -> &'static str {
        "none (deterministic mock)"
    }

    fn check(&self, _strategy: &Strategy) -> Result<(), Error> {
        Ok(())
    }

    fn create_case(&mut self, spec: &CaseSpec<'_>) -> Result<Box<dyn InsertCase + '_>, Error> {
        let random =
            !spec.strategy.primary_is_ordered() || spec.strategy.secondary.is_some_and(|s| !s.scheme.is_ordered());
        Ok(Box::new(MockCase {
            engine: self,
            random,
            rows: 0,
            batches: 0,
            pending: Counters::default(),
            client_rows: Arc::default(),
        }))
    }
}

struct MockCase<'a> {
    engine: &'a MockEngine,
    random: bool,
    rows: u64,
    batches: u64,
    pending: Counters,
    /// Rows inserted by concurrent clients.
    client_rows: Arc<AtomicU64>,
}

/// A concurrent client of the mock engine: every row costs a flat 10 µs of fake time.
struct MockClient {
    timer: Arc<FakeTimer>,
    rows: Arc<AtomicU64>,
}

impl InsertClient for MockClient {
    fn insert_one(&mut self, _row: &KeyRow) -> Result<(), Error> {
        self.timer.advance(10_000);
        self.rows.fetch_add(1, Ordering::SeqCst);
        Ok(())
    }
}

impl InsertCase for MockCase<'_> {
    fn effective_settings(&mut self) -> Result<BTreeMap<String, String>, Error> {
        Ok(BTreeMap::from([("mode".to_string(), "mock".to_string())]))
    }

    fn insert_batch(&mut self, rows: &[KeyRow], control: &RunControl) -> Result<(), Error> {
        if self.engine.fail_at_batch == Some(self.batches) {
            return Err(Error::DiskFull { path: "mock.db".into() });
        }
        let n = rows.len() as u64;
        let per_row_ns = if self.random { 1_000 + self.rows / 100 } else { 1_000 };
        self.engine.timer.advance(n * per_row_ns);
        let misses = if self.random { n * self.rows / (self.rows + 10_000) } else { 0 };
        self.pending = Counters {
            cache_hits: Some(n * 3),
            cache_misses: Some(misses),
            pages_written: Some(n / 50 + misses / 2),
            cache_spills: Some(0),
            ..Counters::default()
        };
        self.rows += n;
        self.batches += 1;
        control.add_rows(n);
        if self.engine.lose_answer_at_batch == Some(self.batches - 1) {
            let lost = crate::ServerError {
                engine: "mock",
                kind: crate::ServerErrorKind::ServerGone,
                message: "connection closed".into(),
            };
            return Err(Error::server("COMMIT failed", lost));
        }
        Ok(())
    }

    fn committed_rows(&mut self) -> Option<u64> {
        Some(self.rows)
    }

    fn take_counters(&mut self) -> Result<Counters, Error> {
        std::thread::sleep(self.engine.counter_read);
        Ok(std::mem::take(&mut self.pending))
    }

    fn connect_with(&mut self, options: &super::txn::ClientOptions) -> Result<Box<dyn InsertClient + Send>, Error> {
        if *options != super::txn::ClientOptions::default() {
            return Err(Error::Internal("the mock engine's clients run single-row autocommit inserts only".into()));
        }
        Ok(Box::new(MockClient { timer: Arc::clone(&self.engine.timer), rows: Arc::clone(&self.client_rows) }))
    }

    fn finish(mut self: Box<Self>) -> Result<CaseReport, Error> {
        self.rows += self.client_rows.load(Ordering::SeqCst);
        let leaf_fill = if self.random { 0.69 } else { 0.99 };
        Ok(CaseReport {
            verified_rows: self.rows,
            size_bytes: self.rows * if self.random { 100 } else { 70 },
            wal_size_bytes: Some(self.rows * 10),
            compacted_size_bytes: None,
            btrees: vec![BtreeStats {
                key_share: None,
                misses_per_1k_rows: None,
                index_blocks_touched_per_1k_rows: None,
                name: "bench".into(),
                kind: "table".into(),
                pages: self.rows / 50 + 1,
                leaf_pages: self.rows / 55 + 1,
                leaf_fill,
                leaf_out_of_order: if self.random { 0.5 } else { 0.0 },
                size_bytes: (self.rows / 50 + 1) * 4096,
            }],
            kept: None,
        })
    }
}
