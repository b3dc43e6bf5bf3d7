//! The environment block: enough for a reader to reproduce a run.

use serde::{Deserialize, Serialize};
use std::path::Path;

/// Machine and software a run used.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
pub struct Environment {
    /// pkbench's version.
    pub pkbench_version: String,
    /// Engine name.
    pub engine: String,
    /// Engine version.
    pub engine_version: String,
    /// Operating system (e.g. "Debian GNU/Linux 12 (bookworm)").
    pub os: String,
    /// Kernel release.
    pub kernel: String,
    /// CPU model name.
    pub cpu_model: String,
    /// Logical cores available to pkbench.
    pub cpu_cores: u32,
    /// Physical memory, bytes (0 if unknown).
    pub memory_bytes: u64,
    /// Filesystem type of the directory holding the databases (e.g. "ext4"), if known.
    pub data_filesystem: Option<String>,
}

impl Environment {
    /// Reads the current machine's facts; unknown values become `"unknown"` / 0.
    pub fn detect(engine: &str, engine_version: &str, data_dir: &Path) -> Self {
        Environment {
            pkbench_version: crate::VERSION.to_string(),
            engine: engine.to_string(),
            engine_version: engine_version.to_string(),
            os: os_name(),
            kernel: read_trimmed("/proc/sys/kernel/osrelease").unwrap_or_else(|| std::env::consts::OS.into()),
            cpu_model: cpu_model(),
            cpu_cores: std::thread::available_parallelism().map_or(1, |n| n.get() as u32),
            memory_bytes: memory_bytes(),
            data_filesystem: filesystem_of(data_dir),
        }
    }
}

fn read_trimmed(path: &str) -> Option<String> {
    std::fs::read_to_string(path).ok().map(|s| s.trim().to_string())
}

fn os_name() -> String {
    std::fs::read_to_string("/etc/os-release")
        .ok()
        .and_then(|s| s.lines().find_map(|l| l.strip_prefix("PRETTY_NAME=")).map(|v| v.trim_matches('"').to_string()))
        .unwrap_or_else(|| std::env::consts::OS.to_string())
}

fn cpu_model() -> String {
    std::fs::read_to_string("/proc/cpuinfo")
        .ok()
        .and_then(|s| {
            s.lines()
                .find(|l| l.starts_with("model name"))
                .and_then(|l| l.split_once(':'))
                .map(|(_, v)| v.trim().to_string())
        })
        .unwrap_or_else(|| "unknown".to_string())
}

fn memory_bytes() -> u64 {
    std::fs::read_to_string("/proc/meminfo")
        .ok()
        .and_then(|s| {
            s.lines()
                .find_map(|l| l.strip_prefix("MemTotal:"))
                .and_then(|v| v.trim().trim_end_matches("kB").trim().parse::<u64>().ok())
        })
        .map_or(0, |kb| kb * 1024)
}

/// The filesystem type of the mount holding `dir` (longest matching mount point).
fn filesystem_of(dir: &Path) -> Option<String> {
    let dir = std::fs::canonicalize(dir).ok()?;
    let mounts = std::fs::read_to_string("/proc/mounts").ok()?;
    mounts
        .lines()
        .filter_map(|l| {
            let mut f = l.split_whitespace();
            let (_dev, point, fstype) = (f.next()?, f.next()?, f.next()?);
            dir.starts_with(point).then(|| (point.len(), fstype.to_string()))
        })
        .max_by_key(|(len, _)| *len)
        .map(|(_, fs)| fs)
}
