//! What systems other than Linux get (see the table in `mod.rs`). Compiled, and tested, on Linux
//! too.

use std::path::Path;
use std::process::Command;
use std::time::{SystemTime, UNIX_EPOCH};

/// The allocator hands freed memory back as it sees fit.
pub fn release_freed_memory() {}

/// No parent-death signal: the server outlives a SIGKILLed pkbench until the next run's sweep.
pub fn set_parent_death_signal(_cmd: &mut Command, _signal: i32) {}

#[inline]
pub fn coarse_now_ns() -> u64 {
    SystemTime::now().duration_since(UNIX_EPOCH).map_or(0, |d| u64::try_from(d.as_nanos()).unwrap_or(u64::MAX))
}

pub fn coarse_resolution_ns() -> u64 {
    1
}

pub fn cgroup_memory_limit() -> Option<u64> {
    None
}

pub fn in_memory_fs(_path: &Path) -> Option<bool> {
    None
}

pub fn filesystem_of(_path: &Path) -> Option<String> {
    None
}

pub fn cpu_model() -> Option<String> {
    None
}

pub fn process_start_token(_pid: u32) -> Option<String> {
    None
}
