//! The environment block: enough for a reader to reproduce a run.

use crate::platform;
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
            kernel: platform::kernel_release().unwrap_or_else(|| std::env::consts::OS.into()),
            cpu_model: platform::cpu_model().unwrap_or_else(|| "unknown".to_string()),
            cpu_cores: std::thread::available_parallelism().map_or(1, |n| n.get() as u32),
            memory_bytes: platform::memory_bytes().unwrap_or(0),
            data_filesystem: platform::filesystem_of(data_dir),
        }
    }
}

fn os_name() -> String {
    std::fs::read_to_string("/etc/os-release")
        .ok()
        .and_then(|s| s.lines().find_map(|l| l.strip_prefix("PRETTY_NAME=")).map(|v| v.trim_matches('"').to_string()))
        .unwrap_or_else(|| std::env::consts::OS.to_string())
}
