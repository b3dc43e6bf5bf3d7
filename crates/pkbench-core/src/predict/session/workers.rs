//! The forecast's strategies side by side, one per core, as many at once as their models are
//! expected to fit in memory together: each strategy's model is its own (its key stream, pages
//! and cache), so forecasting them at once gives the counts, times and trees one after the other
//! gives. What the caller sees keeps the plan's order: a strategy's events are told, and its
//! result handed on, once every strategy before it is done; the later ones' events wait, with
//! the times they were measured at.

use super::event::{PredictEvent, PredictObserver};
use crate::Error;
use crate::control::RunControl;
use crate::predict::{Calibration, Mode, ModelEngine, PredictConfig, predict_table};
use crate::results::{BatchResult, RunResult};
use crate::strategy::Strategy;
use crate::workloads::OwnSchema;
use std::ops::ControlFlow;
use std::sync::mpsc;
use std::sync::{Condvar, Mutex};
use std::time::{Duration, Instant};

/// What every strategy's forecast shares.
pub(super) struct Forecasts<'a> {
    /// The engine modelled.
    pub engine: ModelEngine,
    /// The strategies, in the plan's order.
    pub strategies: &'a [&'static Strategy],
    /// The model's settings.
    pub config: &'a PredictConfig,
    /// The user's table the models are fed, if any ([`crate::predict::predict_table`]).
    pub table: Option<&'a OwnSchema>,
    /// The fitted calibration, if any.
    pub calibration: Option<&'a Calibration>,
    /// Stops every forecast.
    pub control: &'a RunControl,
    /// A larger batch that would make the forecast sooner, for the `Predicting` line.
    pub faster_batch: Option<u64>,
}

/// What the workers share: which strategy is next, the bytes the models under way are expected
/// to hold and whether the forecast stops, and a signal when a model ends or it stops.
struct Room {
    /// Most bytes the models under way may be expected to hold together.
    budget: u64,
    state: Mutex<Taken>,
    freed: Condvar,
}

/// What the workers have taken so far.
#[derive(Default)]
struct Taken {
    /// The next strategy to take, by its index in the plan.
    next: usize,
    /// Bytes the models under way are expected to hold.
    running: u64,
    /// Whether the forecast stops: no worker takes another strategy.
    stopped: bool,
}

impl Room {
    fn new(budget: u64) -> Self {
        Room { budget, state: Mutex::new(Taken::default()), freed: Condvar::new() }
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Taken> {
        self.state.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Stops the forecast, waking the workers waiting for room.
    fn stop(&self) {
        self.lock().stopped = true;
        self.freed.notify_all();
    }
}

/// A model's expected bytes, given back to the [`Room`] when its forecast ends (or fails).
struct Held<'a> {
    room: &'a Room,
    bytes: u64,
}

impl Drop for Held<'_> {
    fn drop(&mut self) {
        // The model is gone: its pages' memory goes back before the next, larger one grows.
        crate::platform::release_freed_memory();
        self.room.lock().running -= self.bytes;
        self.room.freed.notify_all();
    }
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
fn model_bytes(engine: ModelEngine, config: &PredictConfig, strategy: &Strategy, table: Option<&OwnSchema>) -> u64 {
    let rows = config.rows.div_ceil(config.scale);
    if config.mode == Mode::Bounded {
        return rows * 4;
    }
    let rowid_table = u64::from(engine == ModelEngine::Sqlite);
    // A user's secondary indexes, where the model keeps them.
    let indexes = table.filter(|_| engine.models_table_indexes()).map_or(0, |t| t.plan().key_table().indexes.len());
    rows * (1 + rowid_table + u64::from(strategy.secondary.is_some()) + indexes as u64) * 16
}

impl Forecasts<'_> {
    /// Threads to forecast on: one per core, at most one per strategy.
    fn workers(&self) -> usize {
        let cores = std::thread::available_parallelism().map_or(1, usize::from);
        cores.min(self.strategies.len()).max(1)
    }

    /// The next strategy to forecast, once the models under way leave room for it in the
    /// room's budget (a model larger than that runs alone), and the bytes it is
    /// expected to hold; `None` when every strategy is taken or the forecast stops. Strategies
    /// are taken in the plan's order.
    fn take(&self, room: &Room) -> Option<(usize, u64)> {
        let mut taken = room.lock();
        loop {
            if taken.stopped || taken.next >= self.strategies.len() {
                return None;
            }
            let (next, bytes) =
                (taken.next, model_bytes(self.engine, self.config, self.strategies[taken.next], self.table));
            if taken.running == 0 || taken.running + bytes <= room.budget {
                taken.next += 1;
                taken.running += bytes;
                return Some((next, bytes));
            }
            taken = room.freed.wait(taken).unwrap_or_else(|e| e.into_inner());
        }
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
        let room = Room::new(SIDE_BY_SIDE_BYTES);
        std::thread::scope(|scope| {
            let (tx, rx) = mpsc::channel();
            for _ in 0..self.workers() {
                let tx = tx.clone();
                let room = &room;
                scope.spawn(move || {
                    while let Some((index, bytes)) = self.take(room) {
                        let held = Held { room, bytes };
                        let result = self.forecast_one(index, &tx);
                        drop(held);
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
                        room.stop();
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
        predict_table(self.engine, strategy, self.config, self.table, self.calibration, self.control, &mut report)
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::predict::Mode;

    const CONFIG: PredictConfig = PredictConfig {
        rows: 1_000_000,
        batch_rows: 100_000,
        payload_bytes: 50,
        seed: 1,
        page_size: 16384,
        cache_mb: 8,
        mode: Mode::Exact,
        scale: 1,
    };

    /// A MariaDB forecast of `strategies` at a million rows: 16 MB of keys for `int`, 32 MB
    /// for `int+uuid4`.
    fn forecasts<'a>(strategies: &'a [&'static Strategy], control: &'a RunControl) -> Forecasts<'a> {
        Forecasts {
            engine: ModelEngine::MariaDb,
            strategies,
            config: &CONFIG,
            table: None,
            calibration: None,
            control,
            faster_batch: None,
        }
    }

    /// A worker's [`Forecasts::take`] on a thread of its own: not back within 200 ms, then back
    /// within 10 s once `release` has run.
    fn take_after(forecasts: &Forecasts<'_>, room: &Room, release: impl FnOnce()) -> Option<(usize, u64)> {
        std::thread::scope(|scope| {
            let (tx, rx) = mpsc::channel();
            scope.spawn(move || tx.send(forecasts.take(room)).unwrap());
            assert!(rx.recv_timeout(Duration::from_millis(200)).is_err(), "taken before there was room");
            release();
            rx.recv_timeout(Duration::from_secs(10)).unwrap()
        })
    }

    #[test]
    fn a_model_waits_until_the_ones_under_way_leave_room_for_it() {
        let strategies = [crate::strategy::find("int").unwrap(), crate::strategy::find("int+uuid4").unwrap()];
        let control = RunControl::new();
        let forecasts = &forecasts(&strategies, &control);
        // Not both within 40 MB.
        let room = &Room::new(40_000_000);
        let (first, bytes) = forecasts.take(room).unwrap();
        assert_eq!((first, bytes), (0, 16_000_000));
        let held = Held { room, bytes };
        assert_eq!(take_after(forecasts, room, || drop(held)), Some((1, 32_000_000)));
        // Every strategy taken: none is left, however much room.
        assert_eq!(forecasts.take(room), None);
    }

    #[test]
    fn a_stopped_forecast_wakes_a_worker_waiting_for_room() {
        let strategies = [crate::strategy::find("int+uuid4").unwrap(), crate::strategy::find("int+uuid4").unwrap()];
        let control = RunControl::new();
        let forecasts = &forecasts(&strategies, &control);
        let room = &Room::new(40_000_000);
        let (_, bytes) = forecasts.take(room).unwrap();
        let _held = Held { room, bytes };
        assert_eq!(take_after(forecasts, room, || room.stop()), None);
    }
}
