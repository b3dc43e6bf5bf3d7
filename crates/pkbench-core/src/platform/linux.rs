//! The Linux-only parts (see the table in `mod.rs`).

use std::os::unix::process::CommandExt;
use std::path::Path;
use std::process::Command;

pub fn set_parent_death_signal(cmd: &mut Command, signal: i32) {
    // SAFETY: prctl(PR_SET_PDEATHSIG) is async-signal-safe and touches only the child.
    unsafe {
        cmd.pre_exec(move || {
            if libc::prctl(libc::PR_SET_PDEATHSIG, signal as libc::c_ulong) != 0 {
                return Err(std::io::Error::last_os_error());
            }
            Ok(())
        });
    }
}

pub fn release_freed_memory() {
    // SAFETY: malloc_trim only returns free heap memory to the kernel; it takes no pointer.
    #[cfg(target_env = "gnu")]
    unsafe {
        libc::malloc_trim(0);
    }
}

fn timespec_ns(ts: &libc::timespec) -> u64 {
    u64::try_from(ts.tv_sec).unwrap_or(0).saturating_mul(1_000_000_000) + u64::try_from(ts.tv_nsec).unwrap_or(0)
}

#[inline]
pub fn coarse_now_ns() -> u64 {
    let mut ts = libc::timespec { tv_sec: 0, tv_nsec: 0 };
    // SAFETY: `ts` is a valid, writable timespec; CLOCK_REALTIME_COARSE exists since Linux
    // 2.6.32. On failure `ts` stays zero and a generator keeps its last timestamp.
    unsafe { libc::clock_gettime(libc::CLOCK_REALTIME_COARSE, &mut ts) };
    timespec_ns(&ts)
}

pub fn coarse_resolution_ns() -> u64 {
    let mut ts = libc::timespec { tv_sec: 0, tv_nsec: 0 };
    // SAFETY: as above.
    let rc = unsafe { libc::clock_getres(libc::CLOCK_REALTIME_COARSE, &mut ts) };
    if rc == 0 { timespec_ns(&ts).max(1) } else { 1 }
}

/// This process's own cgroup (from /proc/self/cgroup), v2 then v1; the mount root last.
pub fn cgroup_memory_limit() -> Option<u64> {
    let read = |p: &str| std::fs::read_to_string(p).ok().and_then(|s| s.trim().parse::<u64>().ok());
    let own = std::fs::read_to_string("/proc/self/cgroup").unwrap_or_default();
    let v2 = own
        .lines()
        .find_map(|l| l.strip_prefix("0::"))
        .map(|p| format!("/sys/fs/cgroup{}/memory.max", p.trim_end_matches('/')));
    let v1 = own
        .lines()
        .find_map(|l| l.split_once(":memory:").map(|(_, p)| p.trim_end_matches('/').to_string()))
        .map(|p| format!("/sys/fs/cgroup/memory{p}/memory.limit_in_bytes"));
    [v2, v1, Some("/sys/fs/cgroup/memory.max".into()), Some("/sys/fs/cgroup/memory/memory.limit_in_bytes".into())]
        .into_iter()
        .flatten()
        .find_map(|p| read(&p))
}

pub fn in_memory_fs(path: &Path) -> Option<bool> {
    const TMPFS_MAGIC: i64 = 0x0102_1994;
    const RAMFS_MAGIC: i64 = 0x8584_58f6;
    let path = std::ffi::CString::new(path.as_os_str().as_encoded_bytes()).ok()?;
    // SAFETY: statfs is plain old data, for which all zeroes is a valid value.
    let mut fs: libc::statfs = unsafe { std::mem::zeroed() };
    // SAFETY: statfs fills the valid, writable struct for a NUL-terminated path.
    if unsafe { libc::statfs(path.as_ptr(), &mut fs) } != 0 {
        return None;
    }
    #[allow(clippy::unnecessary_cast)]
    let kind = fs.f_type as i64;
    Some(kind == TMPFS_MAGIC || kind == RAMFS_MAGIC)
}

/// The longest mount point in /proc/mounts that holds `path`.
pub fn filesystem_of(path: &Path) -> Option<String> {
    let path = std::fs::canonicalize(path).ok()?;
    let mounts = std::fs::read_to_string("/proc/mounts").ok()?;
    mounts
        .lines()
        .filter_map(|l| {
            let mut f = l.split_whitespace();
            let (_dev, point, fstype) = (f.next()?, f.next()?, f.next()?);
            path.starts_with(point).then(|| (point.len(), fstype.to_string()))
        })
        .max_by_key(|(len, _)| *len)
        .map(|(_, fs)| fs)
}

pub fn cpu_model() -> Option<String> {
    let info = std::fs::read_to_string("/proc/cpuinfo").ok()?;
    info.lines()
        .find(|l| l.starts_with("model name"))
        .and_then(|l| l.split_once(':'))
        .map(|(_, v)| v.trim().to_string())
}

/// `BOOT_ID:TICKS`: the boot and the clock ticks after it at which process `pid` started; both
/// are fixed for the life of a process, where a wall-clock start time read from `/proc/stat`'s
/// `btime` can move by a second.
pub fn process_start_token(pid: u32) -> Option<String> {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    // Field 22 counted after the command name's closing parenthesis (the name may hold spaces).
    let rest = &stat[stat.rfind(')')? + 1..];
    let ticks: u64 = rest.split_whitespace().nth(19)?.parse().ok()?;
    let boot = std::fs::read_to_string("/proc/sys/kernel/random/boot_id").ok()?;
    Some(format!("{}:{ticks}", boot.trim()))
}
