//! Where advise's calibration cannot run at the target's cache pressure: the smallest cache a
//! calibration runs with (a server's own least, or the models' floor) is larger per row than the
//! target's cache, so the time the table's other trees add, carried from the calibration to the
//! target, is measured at a lighter pressure than the target's.

use crate::engines::EngineKind;
use crate::predict::CacheFloor;
use crate::predict::session::{CalibrationStep, PagePlan};
use crate::util::text::thousands;

/// A calibration held above the target's cache pressure, in words.
#[derive(Clone, Debug, PartialEq)]
pub(super) struct Pressure {
    engine: EngineKind,
    /// The calibration's cache, KiB.
    cache_kib: u64,
    /// Its rows per candidate.
    rows: u64,
    floor: CacheFloor,
}

impl Pressure {
    /// The pressure `plan`'s calibration on `engine` cannot reach, if any.
    pub(super) fn of(plan: &PagePlan, engine: EngineKind) -> Option<Pressure> {
        let Some(CalibrationStep::Run(calibration)) = &plan.calibration else { return None };
        let floor = calibration.cache_floor(&plan.config)?;
        Some(Pressure { engine, cache_kib: calibration.cache_kib, rows: calibration.rows, floor })
    }

    fn cache(&self) -> String {
        match self.cache_kib % 1024 {
            0 => format!("{} MiB", self.cache_kib / 1024),
            _ => format!("{} KiB", self.cache_kib),
        }
    }

    /// Why the cache is what it is, where the least a calibration runs with did not set it: a
    /// server's whole MiB.
    fn rounded(&self) -> Option<String> {
        (!self.floor.least)
            .then(|| format!("the target's cache scaled down and rounded up to whole MiB on {}", self.engine.name()))
    }

    /// How the progress line says where the calibration runs.
    pub(super) fn progress_words(&self) -> String {
        let why =
            self.rounded().unwrap_or_else(|| format!("the least a calibration on {} runs with", self.engine.name()));
        format!("with {} of cache, {why} ({:.1}× the target's cache per row)", self.cache(), self.floor.times)
    }

    /// What the carried time of the other trees misses, and the rows that would reach the
    /// target's pressure.
    pub(super) fn not_measured_words(&self) -> String {
        format!(
            "not at the target's cache pressure: the calibration's {} of cache, {}, is {:.1}× the target's cache per row at {} rows per candidate, so an index that outgrows the target's cache but not the calibration's is forecast low (--calibrate-rows {} calibrates at the target's pressure)",
            self.cache(),
            self.rounded().unwrap_or_else(|| format!("the least it runs with on {}", self.engine.name())),
            self.floor.times,
            thousands(self.rows),
            self.floor.rows_at_pressure
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A calibration of 200k rows per candidate with `mib` of cache on `engine`.
    fn held(engine: EngineKind, mib: u64, floor: CacheFloor) -> Pressure {
        Pressure { engine, cache_kib: mib * 1024, rows: 200_000, floor }
    }

    #[test]
    fn the_words_name_the_cache_the_ratio_and_the_rows_that_reach_the_pressure() {
        let pressure =
            held(EngineKind::MariaDb, 6, CacheFloor { times: 2.34375, least: true, rows_at_pressure: 468_750 });
        assert_eq!(
            pressure.progress_words(),
            "with 6 MiB of cache, the least a calibration on mariadb runs with (2.3× the target's cache per row)"
        );
        let words = pressure.not_measured_words();
        assert!(words.contains("2.3× the target's cache per row at 200,000 rows per candidate"), "{words}");
        assert!(words.ends_with("(--calibrate-rows 468750 calibrates at the target's pressure)"), "{words}");
        let rounded =
            held(EngineKind::Postgres, 2, CacheFloor { times: 1.5625, least: false, rows_at_pressure: 312_500 });
        assert_eq!(
            rounded.progress_words(),
            "with 2 MiB of cache, the target's cache scaled down and rounded up to whole MiB on postgres (1.6× the target's cache per row)"
        );
    }
}
