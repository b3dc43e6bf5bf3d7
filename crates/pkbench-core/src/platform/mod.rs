//! What pkbench asks of the operating system, in one place.
//!
//! Most of it is POSIX and the same everywhere (memory size, kernel release, whether a process
//! exists, peak memory). The rest is Linux-only and lives in `linux.rs`; every other system gets
//! `fallback.rs`, whose documented fallbacks are compiled and tested on Linux too, so a change
//! that breaks the macOS/BSD build shows up in this machine's tests:
//!
//! | Linux | elsewhere |
//! |---|---|
//! | the parent-death signal: a managed server dies with a SIGKILLed pkbench | the server outlives it; the next run removes its folder (PostgreSQL then shuts itself down, as it does when its `postmaster.pid` goes) |
//! | `CLOCK_REALTIME_COARSE` for the real clock of key generators | `SystemTime` (precise, 20–60 ns slower per key) |
//! | cgroup memory limits in the memory cap | RAM only |
//! | the data folder's filesystem, and whether it is in memory | not detected |
//! | the CPU model | "unknown" |
//! | freed memory handed back to the system at once (glibc's `malloc_trim`) | when the allocator does |

#[cfg_attr(target_os = "linux", allow(dead_code))]
mod fallback;
#[cfg(target_os = "linux")]
mod linux;

#[cfg(not(target_os = "linux"))]
use fallback as native;
#[cfg(target_os = "linux")]
use linux as native;

use crate::Error;
use std::path::Path;
use std::process::Command;

/// Asks the kernel to send `signal` to the process `cmd` starts when the thread that starts it
/// ends (Linux); a no-op elsewhere.
pub fn set_parent_death_signal(cmd: &mut Command, signal: i32) {
    native::set_parent_death_signal(cmd, signal);
}

/// Hands the memory the process has freed back to the system. glibc keeps memory freed on a
/// thread for that thread's later use, so forecasts that end on one thread while a larger one
/// grows on another would hold both (Linux with glibc); elsewhere the allocator decides.
pub fn release_freed_memory() {
    native::release_freed_memory();
}

/// Asks the processor for the cache line holding `value`'s first byte, so that a later read of
/// it need not wait on main memory (x86-64; nothing on other processors). Reads and changes
/// nothing the program sees.
#[inline]
pub fn prefetch<T>(value: &T) {
    #[cfg(target_arch = "x86_64")]
    // SAFETY: SSE is part of every x86-64 processor, and a prefetch of a valid reference neither
    // reads nor writes anything the program sees.
    unsafe {
        std::arch::x86_64::_mm_prefetch::<{ std::arch::x86_64::_MM_HINT_T0 }>((value as *const T).cast())
    };
    #[cfg(not(target_arch = "x86_64"))]
    let _ = value;
}

/// The real time from a clock that is cheap to read (tick-granular on Linux), ns since the epoch.
#[inline]
pub fn coarse_now_ns() -> u64 {
    native::coarse_now_ns()
}

/// How far apart [`coarse_now_ns`]'s distinct readings are, ns.
pub fn coarse_resolution_ns() -> u64 {
    native::coarse_resolution_ns()
}

/// The memory limit of this process's cgroup, bytes, if one is set (Linux).
pub fn cgroup_memory_limit() -> Option<u64> {
    native::cgroup_memory_limit()
}

/// Whether `path` is on a filesystem held in memory (tmpfs, ramfs); `None` if unknown.
pub fn in_memory_fs(path: &Path) -> Option<bool> {
    native::in_memory_fs(path)
}

/// The type of the filesystem holding `path` (e.g. "ext4"), if known.
pub fn filesystem_of(path: &Path) -> Option<String> {
    native::filesystem_of(path)
}

/// The CPU's model name, if known.
pub fn cpu_model() -> Option<String> {
    native::cpu_model()
}

/// Physical memory, bytes (POSIX `sysconf`).
pub fn memory_bytes() -> Option<u64> {
    // SAFETY: sysconf has no preconditions.
    let (pages, page) = unsafe { (libc::sysconf(libc::_SC_PHYS_PAGES), libc::sysconf(libc::_SC_PAGESIZE)) };
    (pages > 0 && page > 0).then(|| pages as u64 * page as u64)
}

/// What tells process `pid` from a later process given the same id (Linux: its boot and start
/// tick); `None` where the system does not say.
pub fn process_start_token(pid: u32) -> Option<String> {
    native::process_start_token(pid)
}

/// This machine's host name (`uname -n`).
pub fn host_name() -> Option<String> {
    uname_field(|name| &name.nodename)
}

/// The kernel's release (`uname -r`).
pub fn kernel_release() -> Option<String> {
    uname_field(|name| &name.release)
}

/// One field of `uname`.
fn uname_field(field: impl Fn(&libc::utsname) -> &[libc::c_char]) -> Option<String> {
    // SAFETY: utsname is plain old data, for which all zeroes is a valid value.
    let mut name: libc::utsname = unsafe { std::mem::zeroed() };
    // SAFETY: uname fills the valid, writable struct it is given.
    if unsafe { libc::uname(&mut name) } != 0 {
        return None;
    }
    // SAFETY: uname NUL-terminates each field.
    let text = unsafe { std::ffi::CStr::from_ptr(field(&name).as_ptr()) };
    Some(text.to_string_lossy().into_owned())
}

/// Whether a process with this id exists (signal 0: nothing is sent).
pub fn process_exists(pid: u32) -> bool {
    let Ok(pid) = signallable_pid(pid) else { return false };
    // SAFETY: signal 0 only checks that the process exists and may be signalled.
    unsafe { libc::kill(pid, 0) == 0 || std::io::Error::last_os_error().raw_os_error() == Some(libc::EPERM) }
}

/// Whether this process runs as root (effective user id 0).
pub fn is_root() -> bool {
    // SAFETY: geteuid has no preconditions and cannot fail.
    unsafe { libc::geteuid() == 0 }
}

/// Sends `signal` to the process `pid`.
pub fn signal_process(pid: u32, signal: i32) -> Result<(), Error> {
    let target = signallable_pid(pid)?;
    // SAFETY: `target` is a positive pid, so kill addresses that one process and no group.
    let rc = unsafe { libc::kill(target, signal) };
    kill_result(rc, "process", pid, signal)
}

/// Sends `signal` to every process of the process group that `pid` leads.
pub fn signal_process_group(pid: u32, signal: i32) -> Result<(), Error> {
    let target = signallable_pid(pid)?;
    // SAFETY: `target` is positive, so `-target` names exactly its process group: never 0 (this
    // process's own group) nor -1 (every process this user may signal).
    let rc = unsafe { libc::kill(-target, signal) };
    kill_result(rc, "process group", pid, signal)
}

/// `pid` as the kernel's pid type, refusing what would make `kill` reach other processes: 0
/// (the caller's own group) and ids beyond `pid_t` (negative once converted).
fn signallable_pid(pid: u32) -> Result<libc::pid_t, Error> {
    match libc::pid_t::try_from(pid) {
        Ok(target) if target > 0 => Ok(target),
        _ => Err(Error::InvalidInput(format!("{pid} is not a process id pkbench may signal"))),
    }
}

fn kill_result(rc: i32, what: &str, pid: u32, signal: i32) -> Result<(), Error> {
    if rc == 0 {
        return Ok(());
    }
    let cause = std::io::Error::last_os_error();
    Err(Error::System(format!("could not send signal {signal} to {what} {pid}: {cause}")))
}

/// Reads one `SQLITE_DBSTATUS_*` counter of `conn` as (current, highwater), resetting it when
/// `reset` is set (`sqlite3_db_status`).
#[cfg(feature = "sqlite")]
pub fn sqlite_db_status(conn: &rusqlite::Connection, op: i32, reset: bool) -> Result<(i32, i32), Error> {
    use rusqlite::ffi;
    let (mut current, mut highwater): (std::os::raw::c_int, std::os::raw::c_int) = (0, 0);
    // SAFETY: `conn.handle()` is a live connection owned by `conn` for the whole call, the
    // out-pointers are valid locals, and sqlite3_db_status only reads the connection's stats.
    let rc = unsafe { ffi::sqlite3_db_status(conn.handle(), op, &mut current, &mut highwater, i32::from(reset)) };
    if rc != ffi::SQLITE_OK {
        return Err(Error::Internal(format!("sqlite3_db_status({op}) failed with code {rc}")));
    }
    Ok((current, highwater))
}

/// The process's peak resident memory, bytes (`getrusage`).
pub fn peak_rss_bytes() -> Option<u64> {
    // SAFETY: rusage is plain old data, for which all zeroes is a valid value.
    let mut usage: libc::rusage = unsafe { std::mem::zeroed() };
    // SAFETY: getrusage fills the valid, writable struct it is given.
    if unsafe { libc::getrusage(libc::RUSAGE_SELF, &mut usage) } != 0 {
        return None;
    }
    let max = u64::try_from(usage.ru_maxrss).ok()?;
    // macOS reports bytes; Linux and the BSDs KiB.
    Some(if cfg!(target_vendor = "apple") { max } else { max * 1024 })
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::os::unix::process::CommandExt;

    #[test]
    fn the_posix_calls_answer_on_this_machine() {
        let memory = memory_bytes().unwrap();
        assert!(memory > 64 << 20, "{memory}");
        assert!(!kernel_release().unwrap().is_empty());
        assert!(process_exists(std::process::id()));
        assert!(!process_exists(u32::MAX >> 1), "no such pid");
        assert!(!process_exists(0) && !process_exists(u32::MAX), "0 and ids beyond pid_t are no process");
        let peak = peak_rss_bytes().unwrap();
        assert!(peak > 1 << 20 && peak < memory, "{peak}");
    }

    #[test]
    fn signals_never_reach_beyond_the_process_named() {
        for pid in [0, u32::MAX, 1 << 31] {
            let err = signal_process_group(pid, 0).unwrap_err().to_string();
            assert_eq!(err, format!("{pid} is not a process id pkbench may signal"));
            assert!(signal_process(pid, 0).is_err());
        }
        signal_process(std::process::id(), 0).unwrap();
        let mut child = Command::new("sleep").arg("30").process_group(0).spawn().unwrap();
        signal_process_group(child.id(), libc::SIGKILL).unwrap();
        assert!(!child.wait().unwrap().success());
    }

    #[cfg(feature = "sqlite")]
    #[test]
    fn sqlite_db_status_reads_a_counter() {
        let conn = rusqlite::Connection::open_in_memory().unwrap();
        conn.execute_batch("CREATE TABLE t (x); INSERT INTO t VALUES (1);").unwrap();
        let (current, _) = sqlite_db_status(&conn, rusqlite::ffi::SQLITE_DBSTATUS_CACHE_USED, false).unwrap();
        assert!(current > 0, "{current}");
        assert!(sqlite_db_status(&conn, -1, false).is_err());
    }

    /// The fallbacks other systems get, run here: each says "unknown" rather than guessing.
    #[test]
    fn the_fallbacks_for_other_systems_build_and_say_unknown() {
        let mut cmd = Command::new("true");
        fallback::set_parent_death_signal(&mut cmd, libc::SIGKILL);
        assert!(cmd.status().unwrap().success());
        assert!(fallback::coarse_now_ns() > 1_700_000_000 * 1_000_000_000);
        assert_eq!(fallback::coarse_resolution_ns(), 1);
        assert_eq!(fallback::cgroup_memory_limit(), None);
        assert_eq!(fallback::in_memory_fs(Path::new("/")), None);
        assert_eq!(fallback::filesystem_of(Path::new("/")), None);
        assert_eq!(fallback::cpu_model(), None);
        assert_eq!(fallback::process_start_token(std::process::id()), None);
    }

    #[cfg(target_os = "linux")]
    #[test]
    fn linux_knows_its_filesystems_and_clock() {
        assert_eq!(in_memory_fs(Path::new("/proc")), Some(false), "procfs is not tmpfs");
        assert_eq!(in_memory_fs(Path::new("/dev/shm")), Some(true));
        assert!(filesystem_of(Path::new("/proc/self")).is_some_and(|f| f == "proc"));
        let me = process_start_token(std::process::id()).unwrap();
        assert_eq!(process_start_token(std::process::id()).as_ref(), Some(&me), "fixed for a process's life");
        // A process started a clock tick later (10 ms at the usual 100 ticks a second) has
        // another token; one started within the same tick may share it, told apart by its id.
        std::thread::sleep(std::time::Duration::from_millis(50));
        let mut child = Command::new("sleep").arg("5").spawn().unwrap();
        assert_ne!(process_start_token(child.id()), Some(me));
        child.kill().unwrap();
        child.wait().unwrap();
        assert!(!host_name().unwrap_or_default().is_empty());
        assert!(coarse_resolution_ns() >= 1);
        let (a, b) = (coarse_now_ns(), fallback::coarse_now_ns());
        assert!(a.abs_diff(b) < 1_000_000_000, "coarse {a} vs precise {b}");
    }
}
