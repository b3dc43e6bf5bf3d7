//! ID generation speed, side by side with the best crates, in one run:
//!
//! * UUIDv4: ours vs `uuid::Uuid::new_v4()` (`fast-rng`);
//! * UUIDv7 (method 1, monotonic): ours vs `uuid::Uuid::now_v7()`;
//! * ULID (monotonic): ours vs the `ulid` crate's `Generator`;
//! * every pkbench scheme's production generator (OS-seeded ChaCha8, its production clock);
//! * the same three comparisons on all cores (time per ID of the whole machine).
//!
//! "ours (generator)" is a generator owned by the benchmark thread; "ours (thread-local)" is the
//! `generators::local` free function, the like-for-like counterpart of the crates' free functions.
//!
//! `cargo bench -p pkbench-core --bench ids` (add `-- uuid7` to run one group).

use criterion::{BenchmarkId, Criterion, Throughput, criterion_group, criterion_main};
use pkbench_core::generators::{CoarseClock, KeyRng, Scheme, SchemeParams, SystemClock, Ulid, UuidV4, UuidV7, local};
use std::hint::black_box;
use std::time::{Duration, Instant};

fn os_rng() -> KeyRng {
    KeyRng::from_os().expect("OS random source")
}

fn uuid4(c: &mut Criterion) {
    let mut g = c.benchmark_group("uuid4");
    g.throughput(Throughput::Elements(1));
    let mut ours = UuidV4::new(os_rng());
    g.bench_function("ours (generator)", |b| b.iter(|| black_box(ours.next_bytes())));
    g.bench_function("ours (thread-local)", |b| b.iter(|| black_box(local::uuid4())));
    g.bench_function("uuid crate new_v4 (fast-rng)", |b| b.iter(|| black_box(uuid::Uuid::new_v4())));
    g.finish();
}

fn uuid7(c: &mut Criterion) {
    let mut g = c.benchmark_group("uuid7");
    g.throughput(Throughput::Elements(1));
    let mut coarse = UuidV7::new(os_rng(), CoarseClock);
    g.bench_function("ours (generator, coarse clock)", |b| b.iter(|| black_box(coarse.next_bytes())));
    g.bench_function("ours (thread-local, coarse clock)", |b| b.iter(|| black_box(local::uuid7())));
    let mut precise = UuidV7::new(os_rng(), SystemClock);
    g.bench_function("ours (generator, SystemTime clock)", |b| b.iter(|| black_box(precise.next_bytes())));
    g.bench_function("uuid crate now_v7", |b| b.iter(|| black_box(uuid::Uuid::now_v7())));
    g.finish();
}

fn ulid(c: &mut Criterion) {
    let mut g = c.benchmark_group("ulid");
    g.throughput(Throughput::Elements(1));
    let mut ours = Ulid::new(os_rng(), CoarseClock);
    g.bench_function("ours (generator, coarse clock)", |b| b.iter(|| black_box(ours.next_bytes())));
    g.bench_function("ours (thread-local, coarse clock)", |b| b.iter(|| black_box(local::ulid())));
    let mut theirs = ulid::Generator::new();
    g.bench_function("ulid crate Generator (monotonic)", |b| {
        b.iter(|| black_box(theirs.generate().expect("no overflow")))
    });
    g.finish();
}

fn schemes(c: &mut Criterion) {
    let mut g = c.benchmark_group("scheme");
    g.throughput(Throughput::Elements(1));
    let params = SchemeParams::default();
    for scheme in Scheme::ALL {
        let mut generator = scheme.build(&params, os_rng(), scheme.production_clock(&params)).expect("defaults");
        g.bench_function(BenchmarkId::from_parameter(scheme.name()), |b| b.iter(|| black_box(generator.next_key())));
    }
    g.finish();
}

/// Runs `make` on every core, each thread making `iters` IDs with its own state; returns the
/// wall time divided by the thread count, i.e. the machine's time per ID.
fn on_all_cores<F, G>(iters: u64, setup: F) -> Duration
where
    F: Fn() -> G + Sync,
    G: FnMut(),
{
    let threads = std::thread::available_parallelism().map_or(1, |n| n.get());
    let barrier = std::sync::Barrier::new(threads + 1);
    let start = std::thread::scope(|s| {
        for _ in 0..threads {
            s.spawn(|| {
                let mut make = setup();
                barrier.wait();
                for _ in 0..iters {
                    make();
                }
            });
        }
        barrier.wait();
        Instant::now()
    });
    start.elapsed() / threads as u32
}

fn all_cores(c: &mut Criterion) {
    let threads = std::thread::available_parallelism().map_or(1, |n| n.get());
    let mut g = c.benchmark_group(format!("all cores ({threads})"));
    g.throughput(Throughput::Elements(1));
    g.bench_function("uuid4 ours (thread-local)", |b| {
        b.iter_custom(|n| {
            on_all_cores(n, || {
                || {
                    black_box(local::uuid4());
                }
            })
        })
    });
    g.bench_function("uuid4 uuid crate new_v4", |b| {
        b.iter_custom(|n| {
            on_all_cores(n, || {
                || {
                    black_box(uuid::Uuid::new_v4());
                }
            })
        })
    });
    g.bench_function("uuid7 ours (thread-local)", |b| {
        b.iter_custom(|n| {
            on_all_cores(n, || {
                || {
                    black_box(local::uuid7());
                }
            })
        })
    });
    g.bench_function("uuid7 uuid crate now_v7", |b| {
        b.iter_custom(|n| {
            on_all_cores(n, || {
                || {
                    black_box(uuid::Uuid::now_v7());
                }
            })
        })
    });
    g.bench_function("ulid ours (thread-local)", |b| {
        b.iter_custom(|n| {
            on_all_cores(n, || {
                || {
                    black_box(local::ulid());
                }
            })
        })
    });
    g.bench_function("ulid ulid crate Generator (one per thread)", |b| {
        b.iter_custom(|n| {
            on_all_cores(n, || {
                let mut theirs = ulid::Generator::new();
                move || {
                    black_box(theirs.generate().expect("no overflow"));
                }
            })
        })
    });
    g.finish();
}

fn config() -> Criterion {
    Criterion::default().warm_up_time(Duration::from_millis(500)).measurement_time(Duration::from_secs(2))
}

criterion_group! {
    name = ids;
    config = config();
    targets = uuid4, uuid7, ulid, schemes, all_cores
}
criterion_main!(ids);
