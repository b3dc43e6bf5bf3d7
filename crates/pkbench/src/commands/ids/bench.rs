//! `pkbench ids bench`: every scheme's production generator (OS-seeded ChaCha8, its production
//! clock) on one thread and on all cores; ns per ID and IDs per second.

use super::BenchArgs;
use crate::output::outln;
use pkbench_core::generators::throughput::{Throughput, measure};
use pkbench_core::generators::{CoarseClock, Scheme, SchemeParams};
use std::process::ExitCode;
use std::time::Duration;

pub fn bench(args: BenchArgs) -> anyhow::Result<ExitCode> {
    let schemes = if args.schemes.is_empty() { Scheme::ALL.to_vec() } else { args.schemes.clone() };
    let cores = args.threads.unwrap_or_else(|| std::thread::available_parallelism().map_or(1, |n| n.get())).max(1);
    let duration = Duration::from_millis(args.ms.max(1));
    let params = SchemeParams::default();
    outln!(
        "{} ms per scheme and thread count; OS-seeded ChaCha8; coarse clock resolution {} µs",
        duration.as_millis(),
        CoarseClock::resolution_ns() / 1000
    )?;
    outln!(
        "{:<12} {:>12} {:>14} {:>12} {:>14}",
        "scheme",
        "1T ns/ID",
        "1T IDs/s",
        format!("{cores}T ns/ID"),
        format!("{cores}T IDs/s")
    )?;
    for scheme in schemes {
        let one = measure(scheme, &params, 1, duration)?;
        let all = measure(scheme, &params, cores, duration)?;
        outln!(
            "{:<12} {:>12.1} {:>14} {:>12.1} {:>14}",
            scheme.name(),
            one.ns_per_id,
            rate(&one),
            all.ns_per_id,
            rate(&all)
        )?;
    }
    outln!("snowflake is capped at 4,096 IDs per ms per worker (each thread is its own worker).")?;
    Ok(ExitCode::SUCCESS)
}

fn rate(t: &Throughput) -> String {
    let r = t.ids_per_sec;
    if r >= 1e9 {
        format!("{:.2}G", r / 1e9)
    } else if r >= 1e6 {
        format!("{:.1}M", r / 1e6)
    } else if r >= 1e3 {
        format!("{:.1}k", r / 1e3)
    } else {
        format!("{r:.0}")
    }
}
