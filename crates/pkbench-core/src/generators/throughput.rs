//! `pkbench ids bench`'s measurement: how fast each scheme's production generator runs on one
//! thread and on every core. (The criterion benchmarks in `benches/ids.rs` are the careful
//! side-by-side comparison with other crates; this is the quick check a user can run.)

use super::{IdError, Key, KeyRng, Scheme, SchemeParams};
use std::sync::Barrier;
use std::time::{Duration, Instant};

/// One scheme measured on some threads.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Throughput {
    /// The scheme.
    pub scheme: Scheme,
    /// Threads, each with its own generator.
    pub threads: usize,
    /// IDs made by all threads.
    pub ids: u64,
    /// Mean time per ID on one thread, nanoseconds.
    pub ns_per_id: f64,
    /// IDs per second, all threads together.
    pub ids_per_sec: f64,
}

const CHUNK: u64 = 1024;

/// Runs `scheme`'s production generator (OS-seeded, [`Scheme::production_clock`]) on `threads`
/// threads for about `duration` each. Snowflake threads get distinct worker numbers.
pub fn measure(
    scheme: Scheme,
    params: &SchemeParams,
    threads: usize,
    duration: Duration,
) -> Result<Throughput, IdError> {
    let threads = threads.max(1);
    params.validate()?;
    let barrier = Barrier::new(threads);
    let runs: Vec<Result<(u64, Duration), IdError>> = std::thread::scope(|s| {
        let handles: Vec<_> = (0..threads)
            .map(|i| {
                let barrier = &barrier;
                let mut p = *params;
                p.snowflake_worker = ((usize::from(params.snowflake_worker) + i) % 1024) as u16;
                s.spawn(move || {
                    let mut g = scheme.build(&p, KeyRng::from_os()?, scheme.production_clock(&p))?;
                    barrier.wait();
                    let start = Instant::now();
                    let mut ids = 0u64;
                    loop {
                        for _ in 0..CHUNK {
                            consume(g.next_key());
                        }
                        ids += CHUNK;
                        let elapsed = start.elapsed();
                        if elapsed >= duration {
                            return Ok((ids, elapsed));
                        }
                    }
                })
            })
            .collect();
        handles.into_iter().map(|h| h.join().unwrap_or_else(|panic| std::panic::resume_unwind(panic))).collect()
    });
    let mut ids = 0;
    let (mut ns_sum, mut rate) = (0.0, 0.0);
    for run in runs {
        let (n, elapsed) = run?;
        ids += n;
        ns_sum += elapsed.as_nanos() as f64 / n as f64;
        rate += n as f64 / elapsed.as_secs_f64();
    }
    Ok(Throughput { scheme, threads, ids, ns_per_id: ns_sum / threads as f64, ids_per_sec: rate })
}

#[inline]
fn consume(key: Key) {
    std::hint::black_box(key);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn measures_every_scheme_briefly() {
        for scheme in Scheme::ALL {
            let t = measure(scheme, &SchemeParams::default(), 2, Duration::from_millis(2)).unwrap();
            assert!(t.ids >= 2 * CHUNK && t.ns_per_id > 0.0 && t.ids_per_sec > 0.0, "{t:?}");
        }
    }
}
