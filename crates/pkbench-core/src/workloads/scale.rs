//! scale: the three regimes of Tomas Vondra's "Sequential UUID Generators" in one run.
//! insert-growth, with every batch placed in the regime its table size falls in — fits the engine
//! cache, exceeds the cache but fits the memory cap, exceeds the memory cap — and one phase per
//! regime with its throughput and the counters that explain it. pkbench never creates a cgroup: the
//! cap is the cgroup memory limit the process already runs under, else the machine's RAM (said in
//! `memory_cap`).

use super::{CaseContext, InsertGrowth, Workload};
use crate::Error;
use crate::engines::Engine;
use crate::results::{BatchResult, Counters, PhaseResult, RunResult};
use crate::strategy::Strategy;

/// Where the memory cap comes from.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct MemoryCap {
    /// The cap, bytes.
    pub bytes: u64,
    /// What it is, in one line.
    pub source: String,
}

impl MemoryCap {
    /// The cgroup memory limit of this process (v2 `memory.max`, v1 `memory.limit_in_bytes`),
    /// else the machine's RAM.
    pub fn detect() -> Self {
        let ram = crate::platform::memory_bytes().unwrap_or(0);
        let limit = crate::platform::cgroup_memory_limit();
        match limit {
            Some(b) if b < ram => {
                MemoryCap { bytes: b, source: format!("cgroup memory limit of this process ({b} bytes)") }
            }
            _ => MemoryCap {
                bytes: ram,
                source: format!(
                    "no cgroup memory limit below RAM applies and pkbench creates none: the cap is RAM ({ram} bytes); run under e.g. `systemd-run --scope -p MemoryMax=…` to impose one"
                ),
            },
        }
    }
}

impl MemoryCap {
    /// A cap of `mib` MiB given by the user (`--memory-cap-mb`): where a production machine's
    /// memory would end, on a machine with more.
    pub fn given(mib: u64) -> Self {
        MemoryCap { bytes: mib << 20, source: format!("--memory-cap-mb {mib} ({} bytes)", mib << 20) }
    }
}

/// The scale workload: insert-growth plus regimes.
pub struct Scale {
    growth: InsertGrowth,
    cache_bytes: u64,
    cap: MemoryCap,
}

/// The three regimes, in order.
const REGIMES: [&str; 3] = ["fits-cache", "exceeds-cache", "exceeds-memory-cap"];

/// The share of leaves out of file order from which a B-tree counts as taking scattered inserts
/// (an appending tree ends near 0%, a randomly written one near 50%).
pub const SCATTERED_OUT_OF_ORDER: f64 = 0.10;

impl Scale {
    /// `growth` inserts; `cache_bytes` is the engine cache (`--cache-mb`); `cap` the memory cap.
    pub fn new(growth: InsertGrowth, cache_bytes: u64, cap: MemoryCap) -> Self {
        Scale { growth, cache_bytes, cap }
    }

    /// The regime of a table of `size` bytes.
    fn regime(&self, size: f64) -> usize {
        if size <= self.cache_bytes as f64 {
            0
        } else if size <= self.cap.bytes as f64 {
            1
        } else {
            2
        }
    }

    /// One phase per regime reached. A batch is placed by the size of the structure that takes
    /// the scattered writes — the B-trees whose leaves ended out of file order (at least
    /// [`SCATTERED_OUT_OF_ORDER`]), e.g. a random key's index beside a heap that only appends —
    /// or, when every B-tree appends, by all of them. That size after each batch is estimated from
    /// the final size, in proportion to rows (B-trees grow about linearly in rows).
    fn regimes(&self, result: &RunResult) -> Vec<PhaseResult> {
        // The B-trees' pages are the table; the WAL is not.
        let trees: u64 = result.btrees.iter().map(|b| b.size_bytes).sum();
        let scattered: Vec<&str> = result
            .btrees
            .iter()
            .filter(|b| b.leaf_out_of_order >= SCATTERED_OUT_OF_ORDER)
            .map(|b| b.name.as_str())
            .collect();
        let scattered_bytes: u64 =
            result.btrees.iter().filter(|b| b.leaf_out_of_order >= SCATTERED_OUT_OF_ORDER).map(|b| b.size_bytes).sum();
        let (size, placed_by) = match (scattered_bytes, trees) {
            (s, _) if s > 0 => (Some(s), format!("the B-trees taking scattered inserts ({})", scattered.join(", "))),
            (0, t) if t > 0 => (Some(t), "all B-trees (every one appends)".to_string()),
            _ => (result.size_bytes, "the table's size on disk".to_string()),
        };
        let (Some(size), rows) = (size, result.rows_inserted()) else { return Vec::new() };
        let bytes_per_row = size as f64 / rows.max(1) as f64;
        let mut groups: [Vec<&BatchResult>; 3] = Default::default();
        for b in &result.batches {
            groups[self.regime(b.rows_total as f64 * bytes_per_row)].push(b);
        }
        let mut phases = Vec::new();
        for (name, batches) in REGIMES.iter().zip(&groups) {
            let (Some(first), Some(last)) = (batches.first(), batches.last()) else { continue };
            let mut p = PhaseResult {
                name: (*name).to_string(),
                operations: batches.len() as u64,
                rows: batches.iter().map(|b| b.rows).sum(),
                elapsed_ns: batches.iter().map(|b| b.elapsed_ns).sum(),
                ..PhaseResult::default()
            };
            p.counters = Counters::over(batches.iter().copied());
            p.figures.insert("rows_per_s".into(), p.rows as f64 * 1e9 / p.elapsed_ns.max(1) as f64);
            p.figures.insert("first_batch_index".into(), first.index as f64);
            p.figures.insert("table_bytes_at_end_est".into(), last.rows_total as f64 * bytes_per_row);
            if let Some(m) = p.counters.cache_misses {
                p.figures.insert("cache_misses_per_1k_rows".into(), m as f64 * 1000.0 / p.rows.max(1) as f64);
            }
            p.note =
                Some(format!("batches placed by the estimated size of {placed_by} (final bytes × rows ÷ final rows)"));
            phases.push(p);
        }
        phases
    }
}

impl Workload for Scale {
    fn name(&self) -> &'static str {
        "scale"
    }

    fn rows_per_case(&self) -> u64 {
        self.growth.rows()
    }

    fn run_case(
        &self,
        engine: &mut dyn Engine,
        strategy: &Strategy,
        ctx: &CaseContext<'_>,
    ) -> (RunResult, Option<Error>) {
        let (mut result, error) = self.growth.run_case(engine, strategy, ctx);
        result.workload = self.name().to_string();
        let options = &mut result.settings.workload_options;
        options.insert("engine_cache_bytes".into(), self.cache_bytes.to_string());
        options.insert("memory_cap_bytes".into(), self.cap.bytes.to_string());
        options.insert("memory_cap".into(), self.cap.source.clone());
        result.phases = self.regimes(&result);
        (result, error)
    }
}
