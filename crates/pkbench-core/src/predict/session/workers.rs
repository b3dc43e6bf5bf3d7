//! The forecast's strategies side by side, one per core: each strategy's model is its own
//! (its key stream, pages and cache), so forecasting them at once gives the counts, times and
//! trees one after the other gives. What the caller sees keeps the plan's order: a strategy's
//! events are told, and its result handed on, once every strategy before it is done; the
//! later ones' events wait, with the times they were measured at.

use super::event::{PredictEvent, PredictObserver};
use crate::Error;
use crate::control::RunControl;
use crate::predict::{Calibration, Mode, ModelEngine, PredictConfig, predict_engine};
use crate::results::{BatchResult, RunResult};
use crate::strategy::Strategy;
use std::ops::ControlFlow;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::mpsc;
use std::time::{Duration, Instant};

/// What every strategy's forecast shares.
pub(super) struct Forecasts<'a> {
    /// The engine modelled.
    pub engine: ModelEngine,
    /// The strategies, in the plan's order.
    pub strategies: &'a [&'static Strategy],
    /// The model's settings.
    pub config: &'a PredictConfig,
    /// The fitted calibration, if any.
    pub calibration: Option<&'a Calibration>,
    /// Stops every forecast.
    pub control: &'a RunControl,
    /// A larger batch that would make the forecast sooner, for the `Predicting` line.
    pub faster_batch: Option<u64>,
}

/// One strategy's event, kept until the strategies before it are done.
enum Told {
    Predicting,
    Progress { rows_done: u64, elapsed: Duration },
}

/// A strategy's forecast, as a worker ends it.
type Outcome = Box<Result<RunResult, Error>>;

/// What a worker sends: strategy `index`'s event, or its forecast.
enum Message {
    Told(usize, Told),
    Done(usize, Outcome),
}

/// A strategy's events not told yet, and its forecast once done.
type Pending = (Vec<Told>, Option<Outcome>);

/// Most bytes the models forecast side by side may be expected to hold together: with the rest
/// of the process, a forecast stays within the 2 GB of memory it is allowed.
const SIDE_BY_SIDE_BYTES: u64 = 1 << 30;

/// Bytes `strategy`'s model on `engine` is expected to hold at least: 16 per key it keeps (in
/// SQLite's exact mode and on the servers every key of the primary key's tree and of the
/// external key's, and in SQLite also of the rowid table beside a key index), or about 4 per
/// row with SQLite's bounded leaves (205 MiB for 62.5M rows of uuid4).
fn model_bytes(engine: ModelEngine, config: &PredictConfig, strategy: &Strategy) -> u64 {
    let rows = config.rows.div_ceil(config.scale);
    if config.mode == Mode::Bounded {
        return rows * 4;
    }
    let rowid_table = u64::from(engine == ModelEngine::Sqlite);
    rows * (1 + rowid_table + u64::from(strategy.secondary.is_some())) * 16
}

impl Forecasts<'_> {
    /// Threads to forecast on: one per core, as long as the largest models forecast side by
    /// side are expected to fit in [`SIDE_BY_SIDE_BYTES`] together.
    fn workers(&self) -> usize {
        let cores = std::thread::available_parallelism().map_or(1, usize::from);
        let mut largest: Vec<u64> = self.strategies.iter().map(|s| model_bytes(self.engine, self.config, s)).collect();
        largest.sort_unstable_by(|a, b| b.cmp(a));
        let mut n = cores.min(largest.len()).max(1);
        while n > 1 && largest[..n].iter().sum::<u64>() > SIDE_BY_SIDE_BYTES {
            n -= 1;
        }
        n
    }

    /// Forecasts every strategy, telling `observer` each one's events and handing `on_result`
    /// each result, both in the plan's order. `on_result` breaks to stop: no strategy starts
    /// after that, and the results of those already under way are dropped.
    pub fn run(
        &self,
        observer: &mut dyn PredictObserver,
        on_result: &mut dyn FnMut(Result<RunResult, Error>) -> ControlFlow<()>,
    ) {
        let n = self.strategies.len();
        let (next, stop) = (AtomicUsize::new(0), AtomicBool::new(false));
        std::thread::scope(|scope| {
            let (tx, rx) = mpsc::channel();
            for _ in 0..self.workers() {
                let tx = tx.clone();
                let (next, stop) = (&next, &stop);
                scope.spawn(move || {
                    while !stop.load(Ordering::Relaxed) {
                        let index = next.fetch_add(1, Ordering::Relaxed);
                        if index >= n {
                            break;
                        }
                        let result = self.forecast_one(index, &tx);
                        if tx.send(Message::Done(index, Box::new(result))).is_err() {
                            break;
                        }
                    }
                });
            }
            drop(tx);
            let mut pending: Vec<Pending> = (0..n).map(|_| (Vec::new(), None)).collect();
            let mut current = 0;
            for message in rx {
                match message {
                    Message::Told(i, told) => pending[i].0.push(told),
                    Message::Done(i, result) => pending[i].1 = Some(result),
                }
                // Tell the current strategy's events; hand on its result and move on once done.
                while current < n {
                    for told in std::mem::take(&mut pending[current].0) {
                        self.tell(observer, current, &told);
                    }
                    let Some(result) = pending[current].1.take() else { break };
                    current += 1;
                    if on_result(*result).is_break() {
                        stop.store(true, Ordering::Relaxed);
                        return;
                    }
                }
            }
        });
    }

    /// Strategy `index`'s forecast, its events sent on `tx`: a line when it begins and every
    /// tenth of the rows.
    fn forecast_one(&self, index: usize, tx: &mpsc::Sender<Message>) -> Result<RunResult, Error> {
        let rows = self.config.rows;
        let _ = tx.send(Message::Told(index, Told::Predicting));
        let started = Instant::now();
        let mut next_tenth = 1;
        let mut report = |b: &BatchResult| {
            // A line every tenth of the rows: long predictions show they are alive.
            if b.rows_total * 10 >= next_tenth * rows {
                let elapsed = started.elapsed();
                let _ = tx.send(Message::Told(index, Told::Progress { rows_done: b.rows_total, elapsed }));
                next_tenth = b.rows_total * 10 / rows + 1;
            }
        };
        let strategy = self.strategies[index];
        predict_engine(self.engine, strategy, self.config, self.calibration, self.control, &mut report)
    }

    /// Tells `observer` strategy `index`'s event.
    fn tell(&self, observer: &mut dyn PredictObserver, index: usize, told: &Told) {
        let (strategy, config) = (self.strategies[index].name, self.config);
        let rows = config.rows;
        match *told {
            Told::Predicting => observer.event(&PredictEvent::Predicting {
                strategy,
                mode: config.mode,
                rows,
                scale: config.scale,
                faster_batch: self.faster_batch,
            }),
            Told::Progress { rows_done, elapsed } => {
                observer.event(&PredictEvent::Progress { strategy, rows_done, rows, elapsed })
            }
        }
    }
}
