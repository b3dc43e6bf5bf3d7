//! The time fit, held to a synthetic engine whose per-operation costs are known: its batches
//! are the page model's own counts priced by those costs (and a little noise), so the fit must
//! give the costs back, forecast a larger run, refuse data that cannot pin the costs down, and
//! report its error on batches it did not fit.

use pkbench_core::control::RunControl;
use pkbench_core::predict::ModelEngine;
use pkbench_core::predict::fit::{Observation, TimeFit, UNBOUNDED};
use pkbench_core::predict::probe::{CURVE_POINTS, DeviceCosts, Probes};
use pkbench_core::predict::terms::{Shape, Term};
use pkbench_core::predict::working_set::{self, WorkingSet};
use pkbench_core::predict::{Calibration, CalibrationPlan, Mode, PredictConfig, predict};
use pkbench_core::results::RunResult;
use pkbench_core::strategy::{Strategy, find};
use std::collections::BTreeMap;

const STRATEGIES: [&str; 4] = ["int", "uuid4", "uuid4-text", "int+uuid4"];

/// Microseconds per unit of each term, in `Term::SQLITE` order.
const COSTS_US: [f64; 8] = [1.0, 0.5, 0.02, 6.0, 0.4, 20.0, 12.0, 800.0];

fn config(rows: u64, batch_rows: u64) -> PredictConfig {
    PredictConfig {
        rows,
        batch_rows,
        payload_bytes: 50,
        seed: 5,
        page_size: 4096,
        cache_mb: 1,
        mode: Mode::Exact,
        scale: 1,
    }
}

/// A deterministic ±`noise` factor per batch.
fn jitter(i: u64, noise: f64) -> f64 {
    let z = (i.wrapping_mul(0x9e37_79b9_7f4a_7c15) >> 11) as f64 / (1u64 << 53) as f64;
    1.0 + noise * (2.0 * z - 1.0)
}

/// The synthetic engine's run: the model's counts, each batch timed as Σ cost × units.
fn synthetic_runs(config: &PredictConfig, noise: f64) -> Vec<RunResult> {
    STRATEGIES
        .iter()
        .map(|name| {
            let s: &Strategy = find(name).unwrap();
            let shape = Shape::sqlite(s, config.payload_bytes, config.page_size).unwrap();
            let mut run = predict(s, config, None, &RunControl::new(), &mut |_| {}).unwrap();
            for (i, b) in run.batches.iter_mut().enumerate() {
                let us: f64 =
                    Term::SQLITE.iter().zip(COSTS_US).map(|(t, c)| c * t.value(shape, &b.counters, b.rows)).sum();
                b.elapsed_ns = (us * 1000.0 * jitter(i as u64 + 17 * name.len() as u64, noise)) as u64;
            }
            run
        })
        .collect()
}

fn plan_of(config: &PredictConfig) -> CalibrationPlan {
    CalibrationPlan {
        engine: pkbench_core::engines::EngineKind::Sqlite,
        rows: config.rows,
        batch_rows: config.batch_rows,
        cache_kib: config.cache_mb * 1024,
        page_size: config.page_size,
        payload_bytes: config.payload_bytes,
        seed: config.seed,
        checkpoint_scale: 1,
        server_bin: None,
    }
}

fn strategies() -> Vec<&'static Strategy> {
    STRATEGIES.iter().map(|n| find(n).unwrap()).collect()
}

#[test]
fn a_synthetic_engines_costs_are_recovered_within_ten_percent() {
    let config = config(200_000, 5_000);
    let cal = Calibration::from_runs(&synthetic_runs(&config, 0.0), &strategies(), plan_of(&config), Probes::default())
        .unwrap();
    for (j, (t, want)) in Term::SQLITE.iter().zip(COSTS_US).enumerate() {
        let got = cal.fit.ms_per_unit[j] * 1000.0;
        assert!((got / want - 1.0).abs() < 0.10, "{t:?}: fitted {got} µs, engine {want} µs; {:?}", cal.fit);
    }
    assert!(cal.fit.holdout.rms < 0.01, "{:?}", cal.fit.holdout);
    // Costs shared by every strategy: each is forecast from the others' batches as well, except
    // where only it shows a cost (int+uuid4's two trees price the B-tree entry).
    let loo: std::collections::BTreeMap<_, _> = cal.fit.leave_one_out.iter().cloned().collect();
    assert_eq!(loo.len(), STRATEGIES.len(), "{loo:?}");
    assert!(loo["uuid4"] < 0.05 && loo["int"] < 0.05, "{loo:?}");
}

#[test]
fn a_noisy_calibration_forecasts_four_times_the_rows_within_ten_percent() {
    let small = config(200_000, 5_000);
    let cal = Calibration::from_runs(&synthetic_runs(&small, 0.05), &strategies(), plan_of(&small), Probes::default())
        .unwrap();
    // The target: four times the rows, batches and cache (the calibration's pressure).
    let target = PredictConfig { cache_mb: 4, ..config(800_000, 20_000) };
    let (mut covered, mut total) = (0, 0);
    for run in synthetic_runs(&target, 0.0) {
        let late = &run.batches[run.batches.len() / 2..];
        for b in late {
            let p = cal.predict(&run.strategy, &b.counters, b.rows);
            let real = b.elapsed_ns as f64 / 1e6;
            assert!(
                (p.ms / real - 1.0).abs() < 0.10,
                "{} batch {}: predicted {} ms, engine {real} ms",
                run.strategy,
                b.index,
                p.ms
            );
            total += 1;
            covered += usize::from(p.low <= real && real <= p.high);
        }
    }
    assert!(covered * 10 >= total * 8, "intervals cover {covered} of {total}");
}

fn obs(group: &str, position: f64, x: Vec<f64>, ms: f64) -> Observation {
    Observation { group: group.into(), position, x, ms, machine: None }
}

/// The synthetic engine on a machine whose canary read `canary_ms(batch, batches)` ms: each
/// batch took (its canary ÷ 2.5 ms)^0.6 times as long.
fn on_a_machine(runs: &mut [RunResult], canary_ms: impl Fn(usize, usize) -> f64) {
    for run in runs {
        let n = run.batches.len();
        for (i, b) in run.batches.iter_mut().enumerate() {
            let ms = canary_ms(i, n);
            b.elapsed_ns = (b.elapsed_ns as f64 * (ms / 2.5_f64).powf(0.6)) as u64;
            b.machine_ns = Some((ms * 1e6) as u64);
        }
    }
}

#[test]
fn intervals_hold_a_run_at_a_machine_speed_the_calibrations_held_out_batches_did_not_see() {
    let small = config(200_000, 5_000);
    let mut calibration = synthetic_runs(&small, 0.03);
    // Slow (2.5 ms), but for one spell of six batches in four before the held-out last third,
    // at 0.8 and 1.2 ms in turn.
    on_a_machine(&mut calibration, |i, n| match (i / 6) % 8 {
        0 if i < n * 2 / 3 => 0.8,
        4 if i < n * 2 / 3 => 1.2,
        _ => 2.5,
    });
    let with = Calibration::from_runs(&calibration, &strategies(), plan_of(&small), Probes::default()).unwrap();
    let moves = with.fit.machine.as_ref().expect("the batches carry canaries");
    for s in STRATEGIES {
        assert!((moves.of(s) - 0.6).abs() < 0.1, "{s}: {moves:?}");
    }
    assert_eq!(moves.unsettled, None, "the costs and the shares settle in turn");
    for run in &mut calibration {
        run.batches.iter_mut().for_each(|b| b.machine_ns = None);
    }
    let without = Calibration::from_runs(&calibration, &strategies(), plan_of(&small), Probes::default()).unwrap();
    assert_eq!(without.fit.machine, None);
    // The real run: four times the rows, every batch on a fast machine (1 ms).
    let target = PredictConfig { cache_mb: 4, ..config(800_000, 20_000) };
    let mut real = synthetic_runs(&target, 0.0);
    on_a_machine(&mut real, |_, _| 1.0);
    let covered = |cal: &Calibration| {
        let (mut covered, mut total) = (0, 0);
        for run in &real {
            for b in &run.batches[run.batches.len() / 2..] {
                let p = cal.predict(&run.strategy, &b.counters, b.rows);
                let ms = b.elapsed_ns as f64 / 1e6;
                total += 1;
                covered += usize::from(p.low <= ms && ms <= p.high);
            }
        }
        covered as f64 / total as f64
    };
    let (with, without) = (covered(&with), covered(&without));
    assert!(with >= 0.8 && without < 0.5, "covered {with} with the canaries, {without} without");
}

#[test]
fn too_few_batches_are_refused() {
    // The old calibration with -b equal to its rows: one batch per strategy.
    let config = config(100_000, 100_000);
    let err = Calibration::from_runs(&synthetic_runs(&config, 0.0), &strategies(), plan_of(&config), Probes::default())
        .unwrap_err();
    assert!(err.to_string().contains("needs 5 per cost"), "{err}");
}

#[test]
fn costs_the_data_cannot_tell_apart_are_refused() {
    // Misses and pages written in a fixed ratio in every batch: any split of their cost fits.
    let terms = [Term::Rows, Term::Misses, Term::PagesWritten];
    let data: Vec<Observation> = (0..60)
        .map(|i| {
            let m = f64::from(i % 13) * 100.0 + 50.0;
            let rows = 1000.0 + f64::from(i % 7) * 100.0;
            obs(
                if i % 2 == 0 { "a" } else { "b" },
                f64::from(i / 2 + 1) / 30.0,
                vec![rows, m, 2.0 * m],
                0.001 * rows + 0.01 * m,
            )
        })
        .collect();
    let err = TimeFit::fit(&terms, &data).unwrap_err().to_string();
    assert!(err.contains("cannot tell the cost per") && err.contains("cache miss"), "{err}");
    assert!(!err.contains('\n'), "one line: {err}");
}

#[test]
fn the_reported_error_is_out_of_sample() {
    // A cost per miss that doubles in the last third of the rows: a fit on the early batches
    // cannot know, so the reported error must show it, while an in-sample fit hides half of it.
    let terms = [Term::Rows, Term::Misses];
    let data: Vec<Observation> = (0..90)
        .map(|i| {
            let position = f64::from(i % 45 + 1) / 45.0;
            let (rows, m) = (1000.0, 200.0 + f64::from(i % 11) * 40.0);
            let per_miss = if position > 2.0 / 3.0 { 0.02 } else { 0.01 };
            obs(if i < 45 { "a" } else { "b" }, position, vec![rows, m], 0.001 * rows + per_miss * m)
        })
        .collect();
    let fit = TimeFit::fit(&terms, &data).unwrap();
    assert!(fit.holdout.mean < -0.2, "the early fit under-predicts the later batches: {:?}", fit.holdout);
    assert!(fit.holdout.rms > 1.5 * fit.in_sample_rms, "{:?} vs in sample {}", fit.holdout, fit.in_sample_rms);
    let mut options = BTreeMap::new();
    let plan = plan_of(&config(90_000, 1_000));
    let cal = Calibration {
        fit: fit.clone(),
        plan,
        shapes: BTreeMap::new(),
        seen_per_row: vec![0.0; 2],
        device: None,
        working_set: None,
        memory: None,
        machine: None,
        unexplained: BTreeMap::new(),
        unexplained_draws: BTreeMap::new(),
        carries_unexplained: false,
        batch_rows: Vec::new(),
        stand_ins: Default::default(),
    };
    cal.describe("int", &mut options);
    let reported = &options["calibration_error"];
    assert!(reported.starts_with(&format!("out of sample {:.1}% RMS", fit.holdout.rms * 100.0)), "{reported}");
}

/// Misses and the WAL-index hash tables they search in a fixed ratio (as in a calibration whose
/// WAL stays short), priced 10 µs and 0.5 µs: alone, the data cannot split them.
fn misses_with_searches(searches_per_miss: f64) -> Vec<Observation> {
    (0..60)
        .map(|i| {
            let m = f64::from(i % 13) * 100.0 + 50.0;
            let rows = 1000.0 + f64::from(i % 7) * 100.0;
            let s = searches_per_miss * m;
            obs(
                if i % 2 == 0 { "a" } else { "b" },
                f64::from(i / 2 + 1) / 30.0,
                vec![rows, m, s],
                0.001 * rows + 0.01 * m + 0.0005 * s,
            )
        })
        .collect()
}

#[test]
fn a_probed_cost_separates_costs_the_batches_cannot() {
    let terms = [Term::Rows, Term::Misses, Term::WalHashSearches];
    let data = misses_with_searches(2.0);
    assert!(TimeFit::fit(&terms, &data).is_err(), "unbounded, the split is refused");
    // The probe timed a search at 0.5 µs: the fit keeps it within 2× of that.
    let bounds = [UNBOUNDED, (0.0, f64::INFINITY), (0.00025, 0.001)];
    let fit = TimeFit::fit_bounded(&terms, &data, &bounds).unwrap();
    let (miss, search) = (fit.ms_per_unit[1], fit.ms_per_unit[2]);
    assert!((0.00025..=0.001).contains(&search), "search within its probe's range: {search}");
    assert!((miss / 0.01 - 1.0).abs() < 0.10, "miss cost recovered within 10%: {miss} ms");
    // A target whose misses search ten times the tables is forecast within 10%.
    let late = misses_with_searches(20.0);
    for o in &late {
        let p = fit.predict(&o.group, &o.x).ms;
        assert!((p / o.ms - 1.0).abs() < 0.10, "predicted {p} ms, engine {} ms", o.ms);
    }
}

#[test]
fn a_cost_above_its_upper_bound_is_held_there_and_the_rest_refitted() {
    let terms = [Term::Rows, Term::Misses, Term::WalHashSearches];
    // Searches vary on their own here, priced 0.5 µs; the bound allows at most 0.2 µs.
    let data: Vec<Observation> = (0..60)
        .map(|i| {
            let (m, s, rows) =
                (f64::from(i % 13) * 100.0 + 50.0, f64::from(i % 11) * 300.0, 1000.0 + f64::from(i % 7) * 100.0);
            obs("a", f64::from(i + 1) / 60.0, vec![rows, m, s], 0.001 * rows + 0.01 * m + 0.0005 * s)
        })
        .collect();
    let free = TimeFit::fit(&terms, &data).unwrap();
    assert!((free.ms_per_unit[2] / 0.0005 - 1.0).abs() < 0.01, "{:?}", free.ms_per_unit);
    let held = TimeFit::fit_bounded(&terms, &data, &[UNBOUNDED, UNBOUNDED, (0.0, 0.0002)]).unwrap();
    assert_eq!(held.ms_per_unit[2], 0.0002);
    assert!(held.in_sample_rms > free.in_sample_rms, "the bound costs accuracy in sample");
}

/// The worst relative error of the last half of `real`'s batches under each calibration's
/// forecast of `target`.
fn worst_late_errors(real: &[RunResult], target: &PredictConfig, a: &Calibration, b: &Calibration) -> (f64, f64) {
    let (mut worst_a, mut worst_b) = (0.0_f64, 0.0_f64);
    for run in real {
        let s = find(&run.strategy).unwrap();
        let forecast = |cal: &Calibration| predict(s, target, Some(cal), &RunControl::new(), &mut |_| {}).unwrap();
        let (fa, fb) = (forecast(a), forecast(b));
        for ((real, p), q) in run.batches.iter().zip(&fa.batches).zip(&fb.batches).skip(run.batches.len() / 2) {
            let error =
                |x: &pkbench_core::results::BatchResult| (x.elapsed_ns as f64 / real.elapsed_ns as f64 - 1.0).abs();
            (worst_a, worst_b) = (worst_a.max(error(p)), worst_b.max(error(q)));
        }
    }
    (worst_a, worst_b)
}

/// A probe whose cached read costs `per_doubling` µs more each time the file doubles past
/// 32 MiB, and whose other costs bound nothing the synthetic engine pays.
fn probe_with_curve(per_doubling: f64) -> DeviceCosts {
    let mut read_growth_us = [None; CURVE_POINTS];
    for (i, p) in read_growth_us.iter_mut().enumerate() {
        *p = Some(per_doubling * i as f64);
    }
    DeviceCosts {
        page_size: 4096,
        cached_read_us: 0.1,
        append_us: 0.1,
        random_write_us: 0.1,
        random_sync_us: 0.05,
        sync_us: 100.0,
        hash_search_us: 0.3,
        device_read_us: None,
        read_growth_us,
    }
}

#[test]
fn a_miss_that_costs_more_in_larger_files_is_forecast_from_the_probes_curve() {
    let device = probe_with_curve(3.0);
    // The synthetic engine: a miss costs what `COSTS_US` says in a file of up to 32 MiB and the
    // curve's growth beyond, in the files the model says the batch ends with.
    let engine_runs = |config: &PredictConfig| {
        let mut runs = synthetic_runs(config, 0.0);
        for run in &mut runs {
            for b in &mut run.batches {
                let growth = device.read_growth_ms(ModelEngine::Sqlite, b.counters.reads(), b.db_size_bytes.unwrap());
                b.elapsed_ns += (growth * 1e6) as u64;
            }
        }
        runs
    };
    let small = config(200_000, 5_000);
    let calibrated = |device: Option<DeviceCosts>| {
        let cal = Calibration::from_runs(
            &engine_runs(&small),
            &strategies(),
            plan_of(&small),
            Probes { device, working_set: None, machine_ns: None },
        )
        .unwrap();
        cal.with_memory(u64::MAX, 1 << 20)
    };
    let (with_curve, without) = (calibrated(Some(device)), calibrated(None));
    let target = PredictConfig { cache_mb: 4, ..config(800_000, 20_000) };
    let (worst_with, worst_without) = worst_late_errors(&engine_runs(&target), &target, &with_curve, &without);
    assert!(worst_with < 0.10, "with the probe's curve: worst late batch {:.1}% off", worst_with * 100.0);
    assert!(worst_without > 0.10, "the test needs the curve to matter: {:.1}% off without it", worst_without * 100.0);
}

#[test]
fn a_leaf_jump_that_costs_more_in_a_larger_cache_is_forecast_from_the_working_set_curve() {
    // 4 µs more per doubling of the cache in use from 256 KiB.
    let curve = WorkingSet {
        jumps: working_set::Jumps::Leaves,
        points: (0..8).map(|i| ((256 << 10) << i, 4.0 * f64::from(i))).collect(),
    };
    // The synthetic engine: a leaf jump costs the curve's growth at the cache in use (the
    // cache, or the file if smaller) besides what `COSTS_US` says.
    let engine_runs = |config: &PredictConfig| {
        let cache_bytes = config.cache_pages() * u64::from(config.page_size);
        let mut runs = synthetic_runs(config, 0.0);
        for run in &mut runs {
            for b in &mut run.batches {
                let in_use = working_set::in_use(cache_bytes, b.db_size_bytes.unwrap());
                b.elapsed_ns += (curve.growth_ms(b.counters.leaf_jumps.unwrap(), in_use) * 1e6) as u64;
            }
        }
        runs
    };
    let small = config(200_000, 5_000);
    let calibrated = |working_set: Option<WorkingSet>| {
        let probes = Probes { device: None, working_set, machine_ns: None };
        Calibration::from_runs(&engine_runs(&small), &strategies(), plan_of(&small), probes)
            .unwrap()
            .with_memory(u64::MAX, 1 << 20)
    };
    let (with_curve, without) = (calibrated(Some(curve.clone())), calibrated(None));
    let target = PredictConfig { cache_mb: 8, ..config(800_000, 20_000) };
    let (worst_with, worst_without) = worst_late_errors(&engine_runs(&target), &target, &with_curve, &without);
    assert!(worst_with < 0.10, "with the working-set curve: worst late batch {:.1}% off", worst_with * 100.0);
    assert!(worst_without > 0.10, "the test needs the curve to matter: {:.1}% off without it", worst_without * 100.0);
}
