//! The terminal table printed at the end of `pkbench predict`.

use crate::report::fmt;
use crate::results::{BatchResult, Counters, ResultsDoc, RunResult};
use comfy_table::{CellAlignment, ContentArrangement, Table, presets::UTF8_FULL_CONDENSED};

/// Counts per 1k rows over the last tenth of the batches (at least one): the rate at the
/// predicted size, not the average over the growth.
pub fn tail_per_1k(run: &RunResult, f: fn(&Counters) -> Option<u64>) -> Option<f64> {
    let n = run.batches.len();
    let tail = &run.batches[n - (n / 10).max(1).min(n)..];
    let rows: u64 = tail.iter().map(|b| b.rows).sum();
    let counts: Vec<u64> = tail.iter().filter_map(|b| f(&b.counters)).collect();
    // A model that does not predict a counter (InnoDB's pages written) shows none, not zero.
    (rows > 0 && !counts.is_empty()).then(|| counts.iter().sum::<u64>() as f64 * 1000.0 / rows as f64)
}

/// A predicted batch time with its interval: `1234 (1100–1400)`.
fn with_interval(b: Option<&BatchResult>) -> String {
    let Some(b) = b else { return fmt::ms(None) };
    let ms = |ns: u64| fmt::ms(Some(ns as f64 / 1e6));
    match (b.elapsed_ns_low, b.elapsed_ns_high) {
        (Some(lo), Some(hi)) => format!("{} ({}–{})", ms(b.elapsed_ns), ms(lo), ms(hi)),
        _ => ms(b.elapsed_ns),
    }
}

/// One line per strategy: predicted size, leaf pages and fill, cache misses, pages written,
/// pages checkpointed and splits per 1k rows at the end of the growth, and (calibrated) predicted ms per batch.
pub fn render(doc: &ResultsDoc) -> String {
    if doc.runs.iter().any(|r| crate::report::levels::last(r).is_some()) {
        return render_lsm(doc);
    }
    let calibrated = doc.has_batch_times();
    let mut header: Vec<String> = [
        "strategy",
        "rows",
        "size",
        "leaf pages",
        "leaf fill",
        // Rates at the predicted size (the last tenth of the batches), not averages over the
        // growth as in `pkbench run`'s table: say so in the titles.
        "cache misses /1k rows, last 10%",
        "pages written /1k rows, last 10%",
        "checkpoint pages /1k rows, last 10%",
        "splits /1k rows, last 10%",
    ]
    .map(String::from)
    .to_vec();
    if calibrated {
        header.extend(["first batch ms (pred., 90% interval)".into(), "last batch ms (pred., 90% interval)".into()]);
    }
    header.push("model s".into());
    let mut t = Table::new();
    t.load_style(UTF8_FULL_CONDENSED)
        .force_no_tty()
        .set_content_arrangement(ContentArrangement::Disabled)
        .set_header(header);
    for run in &doc.runs {
        let leaves: u64 = run.btrees.iter().map(|b| b.leaf_pages).sum();
        let fill = if leaves == 0 {
            0.0
        } else {
            run.btrees.iter().map(|b| b.leaf_fill * b.leaf_pages as f64).sum::<f64>() / leaves as f64
        };
        let mut row = vec![
            run.strategy.clone(),
            run.rows_inserted().to_string(),
            fmt::mib(run.size_bytes),
            leaves.to_string(),
            fmt::percent(fill),
            fmt::per_1k(tail_per_1k(run, |c| c.cache_misses)),
            fmt::per_1k(tail_per_1k(run, |c| c.pages_written)),
            fmt::per_1k(tail_per_1k(run, |c| c.checkpoint_pages)),
            fmt::per_1k(tail_per_1k(run, |c| c.page_splits)),
        ];
        if calibrated {
            row.extend([with_interval(run.batches.first()), with_interval(run.batches.last())]);
        }
        row.push(run.settings.workload_options.get("model_seconds").cloned().unwrap_or_default());
        t.add_row(row);
    }
    for i in 1..t.column_count() {
        if let Some(c) = t.column_mut(i) {
            c.set_cell_alignment(CellAlignment::Right);
        }
    }
    let mut out = String::new();
    if let Some(run) = doc.runs.first() {
        let o = &run.settings.workload_options;
        let get = |k: &str| o.get(k).cloned().unwrap_or_default();
        out.push_str(&format!(
            "{} · {} mode · {} rows in batches of {} · payload {} B · seed {} · page {} B · cache {} MiB ({} pages) · {}\n",
            run.engine,
            get("mode"),
            run.settings.rows,
            run.settings.batch_rows,
            run.settings.payload_bytes,
            run.settings.seed,
            get("page_size"),
            get("cache_mb"),
            get("cache_pages"),
            get("timing"),
        ));
        if let Some(scale) = o.get("scale") {
            out.push_str(&format!("scale model {scale}\n"));
        }
        for (key, label) in [
            ("calibration_error", "calibration error"),
            ("calibration_leave_one_out", "leaving one strategy out"),
            ("calibration_left_out", "costs left out"),
            ("calibration_pinned", "held at the probe"),
            ("calibration_above_probes", "warning"),
            ("calibration_unexplained", "the table's other trees, beyond the key's (added)"),
            ("device_costs", "device costs"),
            ("machine", "machine speed"),
            ("extrapolation", "warning"),
        ] {
            if let Some(v) = o.get(key) {
                out.push_str(&format!("{label}: {v}\n"));
            }
        }
    }
    for run in &doc.runs {
        if let Some(r) = run.settings.workload_options.get("memory_regimes") {
            out.push_str(&format!("{}'s misses served by: {r}\n", run.strategy));
        }
    }
    out.push_str(&stand_ins(doc));
    out.push_str(&t.to_string());
    out.push('\n');
    out
}

/// An LSM model's table: one line per strategy with its size, what the writes cost over the
/// whole growth (bytes per row flushed and compacted, write amplification, bloom filters
/// checked), the levels at the end and (calibrated) predicted ms per batch.
fn render_lsm(doc: &ResultsDoc) -> String {
    let timed = doc.has_batch_times();
    let mut header = vec![
        "strategy",
        "rows",
        "size",
        "flushed bytes /row",
        "compaction read bytes /row",
        "compaction written bytes /row",
        "write amplification",
        "filters checked /row",
        "levels at the end: files, MiB",
    ];
    if timed {
        header.extend(["first batch ms (pred., 90% interval)", "last batch ms (pred., 90% interval)"]);
    }
    header.push("model s");
    let mut t = Table::new();
    t.load_style(UTF8_FULL_CONDENSED).force_no_tty().set_content_arrangement(ContentArrangement::Disabled);
    t.set_header(header);
    for run in &doc.runs {
        let c = run.total_counters();
        let rows = run.rows_inserted().max(1) as f64;
        let per_row = |v: Option<u64>| v.map_or("–".into(), |v| format!("{:.1}", v as f64 / rows));
        let levels = crate::report::levels::last(run).unwrap_or(&[]);
        let levels: Vec<String> = levels
            .iter()
            .filter(|l| l.files > 0)
            .map(|l| format!("{} {}, {:.1}", l.level, l.files, l.size_bytes as f64 / 1048576.0))
            .collect();
        let mut row = vec![
            run.strategy.clone(),
            run.rows_inserted().to_string(),
            fmt::mib(run.size_bytes),
            per_row(c.flush_bytes),
            per_row(c.compaction_read_bytes),
            per_row(c.compaction_write_bytes),
            c.write_amplification().map_or("–".into(), |w| format!("{w:.2}")),
            c.bloom_checks.map_or("–".into(), |v| format!("{:.2}", v as f64 / rows)),
            levels.join(" · "),
        ];
        if timed {
            row.extend([with_interval(run.batches.first()), with_interval(run.batches.last())]);
        }
        row.push(run.settings.workload_options.get("model_seconds").cloned().unwrap_or_default());
        t.add_row(row);
    }
    for i in 1..t.column_count() {
        if let Some(c) = t.column_mut(i) {
            c.set_cell_alignment(CellAlignment::Right);
        }
    }
    let mut out = String::new();
    if let Some(run) = doc.runs.first() {
        out.push_str(&format!(
            "{} · {} rows in batches of {} · payload {} B · seed {} · bytes, compactions and levels{}\n",
            run.engine,
            run.settings.rows,
            run.settings.batch_rows,
            run.settings.payload_bytes,
            run.settings.seed,
            if timed { ", insert time calibrated" } else { " (no insert time: add --calibrate)" }
        ));
    }
    out.push_str(&stand_ins(doc));
    out.push_str(&unprobed(doc));
    out.push_str(&t.to_string());
    out.push('\n');
    out
}

/// A warning for each strategy whose jumps were priced without the working-set probe (its
/// `working_set` note says "not probed").
fn unprobed(doc: &ResultsDoc) -> String {
    doc.runs
        .iter()
        .filter_map(|run| {
            let note = run.settings.workload_options.get("working_set")?;
            note.starts_with("not probed").then(|| format!("{}: warning: {note}\n", run.strategy))
        })
        .collect()
}

/// A line for each strategy forecast with another's calibration run (`calibrated_as`).
fn stand_ins(doc: &ResultsDoc) -> String {
    doc.runs
        .iter()
        .filter_map(|run| {
            run.settings.workload_options.get("calibrated_as").map(|c| format!("{}: {c}\n", run.strategy))
        })
        .collect()
}

/// The table of a sharded prediction (`predict --shards`): one line per strategy with the
/// hottest shard's share of each batch (median and max), max/mean, and rows per shard.
pub fn render_sharded(p: &super::sharded::ShardedPrediction) -> String {
    let split = p.range_split_bytes.is_some();
    let mut header: Vec<&str> = vec![
        "strategy",
        "hottest share, median",
        "hottest share, max",
        "max/mean, median",
        "max/mean, max",
        "rows per shard (whole run)",
    ];
    if split {
        header.push("ranges at end");
    }
    let mut t = Table::new();
    t.load_style(UTF8_FULL_CONDENSED)
        .force_no_tty()
        .set_content_arrangement(ContentArrangement::Disabled)
        .set_header(header);
    for f in &p.forecasts {
        let s = &f.skew;
        let per_shard: Vec<String> = s.rows_per_shard.iter().map(u64::to_string).collect();
        let mut row = vec![
            f.strategy.clone(),
            fmt::percent(s.hottest_share_median),
            fmt::percent(s.hottest_share_max),
            format!("{:.2}", s.max_over_mean_median),
            format!("{:.2}", s.max_over_mean_max),
            per_shard.join(" "),
        ];
        if split {
            row.push(f.ranges_at_end.map_or_else(String::new, |r| r.to_string()));
        }
        t.add_row(row);
    }
    for i in 1..t.column_count() {
        if let Some(c) = t.column_mut(i) {
            c.set_cell_alignment(CellAlignment::Right);
        }
    }
    let mut out = format!(
        "sharded model ({}) · {} {} shards · {} rows in batches of {} · payload {} B · seed {}\n",
        p.model,
        p.shards,
        p.sharding.name(),
        p.rows,
        p.batch_rows,
        p.payload_bytes,
        p.seed
    );
    out.push_str(&format!("rules: {}\n", p.rules));
    out.push_str(&t.to_string());
    out.push('\n');
    let sampled: Vec<String> = p
        .forecasts
        .iter()
        .filter(|f| f.sample_every_keys > 1)
        .map(|f| format!("{} every {}th key ({} routed)", f.strategy, f.sample_every_keys, f.routed_keys))
        .collect();
    if !sampled.is_empty() {
        out.push_str(&format!(
            "sampled: {} of each batch; each batch's counts scaled to its rows\n",
            sampled.join(", ")
        ));
    }
    out.push_str(&format!("note: {}\n", p.note));
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::control::RunControl;
    use crate::predict::{Mode, ModelEngine, PredictConfig, predict_engine};
    use crate::results::{Environment, SCHEMA_VERSION};

    #[test]
    fn an_lsm_forecast_without_the_memtable_probe_warns_under_its_table() {
        let config = PredictConfig {
            rows: 200_000,
            batch_rows: 100_000,
            payload_bytes: 50,
            seed: 1,
            page_size: 16384,
            cache_mb: 64,
            mode: Mode::Exact,
            scale: 1,
        };
        let strategy = crate::strategy::find("uuid4").unwrap();
        let mut run =
            predict_engine(ModelEngine::MyRocks, strategy, &config, None, &RunControl::new(), &mut |_| {}).unwrap();
        let dir = tempfile::tempdir().unwrap();
        let environment = Environment::detect("myrocks-model", "", dir.path());
        let mut doc = ResultsDoc {
            schema_version: SCHEMA_VERSION,
            command: vec![],
            started_at: String::new(),
            environment,
            runs: vec![run.clone()],
        };
        assert!(!render_lsm(&doc).contains("warning"), "a forecast with the probe, or without jumps, says nothing");
        let note = "not probed: no MyRocks server could be started here";
        run.settings.workload_options.insert("working_set".into(), note.into());
        doc.runs = vec![run];
        assert!(render_lsm(&doc).contains(&format!("uuid4: warning: {note}\n")), "{}", render_lsm(&doc));
    }
}
