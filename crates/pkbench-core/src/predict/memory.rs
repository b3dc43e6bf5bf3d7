//! The memory hierarchy below the engine's cache: a page the engine misses comes from the
//! operating system's page cache while the database's files fit in the memory left beside the
//! engine's cache (`--ram` minus the cache), and otherwise, for the share that does not fit,
//! from the device. A calibration runs at a size that fits, so the device's share is priced by
//! the probe alone ([`super::probe::DeviceCosts::device_read_us`]), and the output says so.

use super::ModelEngine;
use std::fmt;

/// Where a batch's cache misses are served from.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Regime {
    /// Fewer than one miss per 1,000 rows: the working set fits the engine's cache.
    EngineCache,
    /// Misses, served by the OS page cache (the files fit in the memory left).
    OsCache,
    /// Misses, a share of them read from the device (the files outgrow the memory left).
    Device,
}

impl fmt::Display for Regime {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Regime::EngineCache => "engine cache",
            Regime::OsCache => "OS page cache",
            Regime::Device => "device",
        })
    }
}

/// Whether `engine` reads its data files past the OS page cache: InnoDB opens them with
/// `O_DIRECT` (MariaDB 10.6+'s default `innodb_flush_method`), so each of its misses reads the
/// device.
pub fn direct_io(engine: ModelEngine) -> bool {
    matches!(engine, ModelEngine::MariaDb | ModelEngine::Spider)
}

/// The memory a forecast assumes.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Memory {
    /// The machine's memory for the database (`--ram`), bytes.
    pub ram_bytes: u64,
    /// The engine's own cache, bytes (taken from `ram_bytes`).
    pub engine_cache_bytes: u64,
    /// A device read's extra cost over a read from the OS page cache, ms (the probes'
    /// difference; `None` where the folder has no device to time, e.g. tmpfs).
    pub device_extra_ms: Option<f64>,
    /// The engine reads past the OS page cache (InnoDB's `O_DIRECT`): every miss is a device
    /// read, as in its calibration, whose fitted miss cost already holds it.
    pub direct_io: bool,
}

impl Memory {
    /// Bytes left for the OS page cache.
    pub fn os_cache_bytes(&self) -> u64 {
        self.ram_bytes.saturating_sub(self.engine_cache_bytes)
    }

    /// The share of misses read from the device when the files hold `files_bytes`: none while
    /// they fit the OS page cache, then the part that does not (misses spread over the files,
    /// as a random key's are; an ordered key hardly misses at all).
    pub fn device_share(&self, files_bytes: u64) -> f64 {
        if self.direct_io {
            return 1.0;
        }
        let os = self.os_cache_bytes() as f64;
        if files_bytes as f64 <= os { 0.0 } else { 1.0 - os / files_bytes as f64 }
    }

    /// The regime of a batch of `rows` rows with `misses` misses and files of `files_bytes`.
    pub fn regime(&self, rows: u64, misses: u64, files_bytes: u64) -> Regime {
        if misses * 1000 < rows {
            Regime::EngineCache
        } else if self.device_share(files_bytes) > 0.0 {
            Regime::Device
        } else {
            Regime::OsCache
        }
    }

    /// Milliseconds the device adds to a batch with `misses` misses and files of `files_bytes`
    /// (beyond the fitted miss cost: nothing when the engine reads the device directly).
    pub fn device_ms(&self, misses: u64, files_bytes: u64) -> f64 {
        if self.direct_io {
            return 0.0;
        }
        misses as f64 * self.device_share(files_bytes) * self.device_extra_ms.unwrap_or(0.0)
    }
}

/// The rows at which each regime a forecast passes through begins, in order.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Regimes(Vec<(Regime, u64)>);

impl Regimes {
    /// Notes a batch ending at `rows_total` in `regime`. Only a deeper regime than any before
    /// starts a new part: a table that grows does not leave the device for good, and a batch
    /// that happens to miss less (a checkpoint's timing, a new root) is not a new regime.
    pub fn record(&mut self, regime: Regime, rows_total: u64, batch_rows: u64) {
        if self.0.last().is_none_or(|&(r, _)| r < regime) {
            self.0.push((regime, rows_total.saturating_sub(batch_rows)));
        }
    }

    /// Whether any batch reached the device.
    pub fn reaches_device(&self) -> bool {
        self.0.iter().any(|&(r, _)| r == Regime::Device)
    }

    /// "engine cache from 0 rows; OS page cache from 200000 rows; …".
    pub fn describe(&self) -> String {
        let parts: Vec<String> = self.0.iter().map(|(r, at)| format!("{r} from {at} rows")).collect();
        parts.join("; ")
    }
}

/// The memory available to the database: the machine's, or its cgroup's limit if lower.
pub fn available_bytes() -> Option<u64> {
    let machine = crate::platform::memory_bytes();
    let cgroup = ["/sys/fs/cgroup/memory.max", "/sys/fs/cgroup/memory/memory.limit_in_bytes"]
        .iter()
        .find_map(|p| std::fs::read_to_string(p).ok()?.trim().parse::<u64>().ok());
    match (machine, cgroup) {
        (Some(m), Some(c)) => Some(m.min(c)),
        (m, c) => m.or(c),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn misses_reach_the_device_once_the_files_outgrow_the_memory_left() {
        let gib = 1 << 30;
        let m = Memory { ram_bytes: 4 * gib, engine_cache_bytes: gib, device_extra_ms: Some(0.1), direct_io: false };
        assert_eq!(m.device_share(2 * gib), 0.0);
        assert!((m.device_share(6 * gib) - 0.5).abs() < 1e-12);
        assert_eq!(m.regime(100_000, 10, 6 * gib), Regime::EngineCache);
        assert_eq!(m.regime(100_000, 50_000, 2 * gib), Regime::OsCache);
        assert_eq!(m.regime(100_000, 50_000, 6 * gib), Regime::Device);
        assert!((m.device_ms(1000, 6 * gib) - 50.0).abs() < 1e-9);
        let mut r = Regimes::default();
        for (regime, total) in
            [(Regime::EngineCache, 100), (Regime::OsCache, 200), (Regime::OsCache, 300), (Regime::Device, 400)]
        {
            r.record(regime, total, 100);
        }
        assert_eq!(r.describe(), "engine cache from 0 rows; OS page cache from 100 rows; device from 300 rows");
        assert!(r.reaches_device());
        let direct = Memory { direct_io: true, ..m };
        assert_eq!(direct.regime(100_000, 50_000, 2 * gib), Regime::Device);
        assert_eq!(direct.device_ms(1000, 6 * gib), 0.0, "already in the fitted miss cost");
    }
}
