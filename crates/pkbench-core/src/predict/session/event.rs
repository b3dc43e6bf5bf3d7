//! What a forecast tells whoever watches it as it goes: each step begun, each probe's costs,
//! a line every tenth of the rows. Each event displays as the line `pkbench predict` prints.

use crate::engines::EngineKind;
use crate::predict::probe::DeviceCosts;
use crate::predict::sharded::ShardedConfig;
use crate::predict::working_set::WorkingSet;
use crate::predict::{CalibrationPlan, Mode};
use crate::strategy::Strategy;
use crate::util::text::count;
use std::fmt;
use std::path::Path;
use std::time::Duration;

/// One step of a forecast, as it happens.
#[derive(Clone, Copy, Debug)]
pub enum PredictEvent<'a> {
    /// The calibration's real runs begin.
    Calibrating {
        /// What they run.
        plan: &'a CalibrationPlan,
        /// Strategies forecast with another's run instead of one of their own.
        stand_ins: &'a [(&'static Strategy, &'static Strategy)],
    },
    /// The device was probed (its first moment).
    ProbedDevice {
        /// The probes' costs.
        costs: &'a DeviceCosts,
    },
    /// The device was probed before each of the calibration's runs.
    ProbedEachRun {
        /// Moments probed (one per run).
        moments: usize,
        /// Each cost the median of the moments'.
        costs: &'a DeviceCosts,
    },
    /// The device was probed twice more beside a calibration file.
    ProbedTwiceMore {
        /// Each cost the median of the three moments'.
        costs: &'a DeviceCosts,
    },
    /// The working set (SQLite's cache, MyRocks' memtable) was probed.
    ProbedWorkingSet {
        /// The curve measured.
        curve: &'a WorkingSet,
    },
    /// MyRocks' memtable could not be probed on this machine: the forecast goes on without it.
    WorkingSetUnprobed {
        /// Why.
        reason: &'a str,
    },
    /// A strategy's real run (the calibration's or the check's) begins, its engine started.
    RealRun {
        /// The strategy.
        strategy: &'a str,
        /// Its place among the real run's strategies, from 0.
        place: usize,
        /// The real run's strategies.
        count: usize,
    },
    /// The calibration's real runs were saved.
    CalibrationWritten {
        /// Their results folder.
        dir: &'a Path,
    },
    /// A strategy's forecast begins.
    Predicting {
        /// The strategy.
        strategy: &'a str,
        /// Exact or bounded leaves.
        mode: Mode,
        /// Rows forecast.
        rows: u64,
        /// The scale model's K (1: every row simulated).
        scale: u64,
        /// A larger `--batch` that would let the model simulate fewer rows, if any.
        faster_batch: Option<u64>,
    },
    /// A strategy's forecast passed another tenth of its rows.
    Progress {
        /// The strategy.
        strategy: &'a str,
        /// Rows forecast so far.
        rows_done: u64,
        /// Rows to forecast.
        rows: u64,
        /// Since its forecast began.
        elapsed: Duration,
    },
    /// The check's real runs begin.
    Checking {
        /// Rows per strategy.
        rows: u64,
        /// The engine run.
        engine: EngineKind,
    },
    /// The sharded model places a strategy's rows.
    Placing {
        /// The strategy.
        strategy: &'a str,
        /// The model's settings.
        config: &'a ShardedConfig,
    },
}

impl<'a> PredictEvent<'a> {
    /// [`PredictEvent::RealRun`] of the strategy at `place` among `strategies`.
    pub fn real_run(strategies: &'a [&'static Strategy], place: usize) -> Self {
        PredictEvent::RealRun { strategy: strategies[place].name, place, count: strategies.len() }
    }
}

impl fmt::Display for PredictEvent<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match *self {
            PredictEvent::Calibrating { plan, stand_ins } => {
                write!(f, "Calibrating: a real run per strategy on {}", plan.describe())?;
                if !stand_ins.is_empty() {
                    let pairs: Vec<String> =
                        stand_ins.iter().map(|(s, c)| format!("{} takes {}'s", s.name, c.name)).collect();
                    write!(f, ", but {} (their rows land alike)", pairs.join(", "))?;
                }
                f.write_str("…")
            }
            PredictEvent::ProbedDevice { costs } => write!(f, "Probed the device: {}", costs.describe()),
            PredictEvent::ProbedEachRun { moments, costs } => write!(
                f,
                "Probed the device before each of the {}, each cost the median of the {}: {}",
                count(moments, "run"),
                count(moments, "moment"),
                costs.describe()
            ),
            PredictEvent::ProbedTwiceMore { costs } => write!(
                f,
                "Probed the device twice more, seconds apart, each cost the median of the three moments: {}",
                costs.describe()
            ),
            PredictEvent::ProbedWorkingSet { curve } => write!(f, "Probed the working set: {}", curve.describe()),
            PredictEvent::WorkingSetUnprobed { reason } => write!(
                f,
                "Warning: the memtable was not probed, so an insert inside its key range is priced at the calibration's memtable size, not the target's: {reason}"
            ),
            PredictEvent::RealRun { strategy, place, count } => write!(f, "  {strategy} ({}/{count})…", place + 1),
            PredictEvent::CalibrationWritten { dir } => {
                write!(f, "Calibration results written to {}", dir.display())
            }
            PredictEvent::Predicting { strategy, mode, rows, scale, faster_batch } => {
                let scale = match scale {
                    1 => String::new(),
                    k => format!(", scale model 1/{k}: {} simulated", count(rows.div_ceil(k), "row")),
                };
                write!(f, "Predicting {strategy} ({} mode, {}{scale})…", mode.name(), count(rows, "row"))?;
                match faster_batch {
                    Some(b) => {
                        write!(f, " the batch holds the scale model back: --batch {b} simulates fewer rows, faster")
                    }
                    None => Ok(()),
                }
            }
            PredictEvent::Progress { strategy, rows_done, rows, elapsed } => {
                write!(f, "  {strategy}: {rows_done} of {rows} rows ({:.0} s)", elapsed.as_secs_f64())
            }
            PredictEvent::Checking { rows, engine } => {
                write!(f, "Checking: a real {rows}-row {} run per strategy with the same settings…", engine.label())
            }
            PredictEvent::Placing { strategy, config } => write!(
                f,
                "Placing {strategy} ({} on {}, {})…",
                count(config.rows, "row"),
                count(config.layout.shards, "shard"),
                config.model_name()
            ),
        }
    }
}

/// Whoever watches a forecast: the command line prints each event as a line.
pub trait PredictObserver {
    /// Called as each step happens, in order.
    fn event(&mut self, event: &PredictEvent<'_>);
}

/// Watches nothing.
#[derive(Clone, Copy, Debug, Default)]
pub struct Unobserved;

impl PredictObserver for Unobserved {
    fn event(&mut self, _event: &PredictEvent<'_>) {}
}
