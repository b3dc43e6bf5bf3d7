//! The timed read phases of a schema run, right after the load: by key, by every secondary
//! index, and each row's children.

use super::load::Loaded;
use super::reads::Kept;
use super::{OwnSchema, cheap, reads};
use crate::Error;
use crate::engines::own_schema::{Read, SchemaCase};
use crate::engines::wire::KeySlot;
use crate::metrics::LatencyRecorder;
use crate::results::{PhaseResult, RunResult};
use crate::strategy::Strategy;
use crate::workloads::CaseContext;
use std::collections::BTreeMap;

impl OwnSchema {
    /// One timed read phase: `op(case, target)` for every target, returning rows read and the
    /// rows expected (`None`: at least one).
    pub(super) fn read_phase(
        &self,
        name: String,
        what: String,
        case: &mut dyn SchemaCase,
        loaded: &Loaded,
        ctx: &CaseContext<'_>,
        mut op: impl FnMut(&mut dyn SchemaCase, &reads::Sampled) -> Result<Option<(u64, Option<u64>)>, Error>,
    ) -> Result<PhaseResult, Error> {
        case.take_counters(&cheap())?;
        let mut latency = LatencyRecorder::new();
        let (mut ops, mut rows, mut elapsed_ns, mut skipped) = (0, 0, 0, 0);
        for t in &loaded.targets.order {
            if ctx.control.is_cancelled() {
                return Err(Error::Interrupted);
            }
            let sampled = &loaded.targets.rows[t];
            let t0 = ctx.timer.now_ns();
            let Some((found, expected)) = op(case, sampled)? else {
                skipped += 1;
                continue;
            };
            let ns = ctx.timer.now_ns() - t0;
            latency.record(ns);
            elapsed_ns += ns;
            ops += 1;
            rows += found;
            let ok = match expected {
                Some(e) => found == e,
                None => found >= 1,
            };
            if !ok {
                return Err(Error::InvalidInput(format!(
                    "{name} read {found} rows of row {t}, expected {}: the table is wrong",
                    expected.map_or("at least 1".to_string(), |e| e.to_string())
                )));
            }
        }
        let counters = case.take_counters(&cheap())?;
        let mut figures = BTreeMap::new();
        if let (Some(h), Some(m)) = (counters.cache_hits, counters.cache_misses)
            && h + m > 0
        {
            figures.insert("cache_hit_ratio".to_string(), h as f64 / (h + m) as f64);
            figures.insert("cache_misses_per_read".to_string(), m as f64 / ops.max(1) as f64);
        }
        let mut note = format!("{what}; {}; timed right after the load", self.sizes.read_locality.describe());
        if skipped > 0 {
            note.push_str(&format!("; {skipped} rows with a NULL in the index skipped"));
        }
        Ok(PhaseResult {
            name,
            operations: ops,
            rows,
            elapsed_ns,
            latency: latency.summary(),
            counters,
            figures,
            note: Some(note),
            ..PhaseResult::default()
        })
    }

    /// The read phases of the workload mix, one each: by key, by every secondary index, and
    /// each row's children, over the rows the load kept.
    pub(super) fn reads(
        &self,
        case: &mut dyn SchemaCase,
        loaded: &Loaded,
        strategy: &Strategy,
        result: &mut RunResult,
        ctx: &CaseContext<'_>,
    ) -> Result<(), Error> {
        if self.sizes.reads == 0 {
            return Ok(());
        }
        let sql = case.sql().clone();
        // Reads look rows up by the second key where the strategy has one.
        let storage = match strategy.secondary {
            Some(s) if sql.inserts[self.plan.key].second_key => s.storage,
            _ => strategy.primary.storage,
        };
        let key_table = &self.plan.key_table().name;
        let mut slot = KeySlot::default();
        let p = self.read_phase(
            "read-by-key".into(),
            match strategy.secondary {
                Some(_) if sql.inserts[self.plan.key].second_key => {
                    format!(
                        "one {key_table} row by its second key ({})",
                        crate::schema::ext_column(self.plan.key_table())
                    )
                }
                _ => format!("one {key_table} row by its key"),
            },
            case,
            loaded,
            ctx,
            |case, s| {
                let key = s.key.ok_or_else(|| Error::InvalidInput("a sampled row has no key".into()))?;
                let found = case.read(Read::ByKey, &[slot.bind(key, storage)])?;
                Ok(Some((found, Some(1))))
            },
        )?;
        result.phases.push(p);
        ctx.observer.phase_recorded(result);
        let key_insert = &sql.inserts[self.plan.key];
        for (i, index) in sql.by_index.iter().enumerate() {
            let positions: Vec<Option<usize>> =
                index.columns.iter().map(|c| key_insert.columns.iter().position(|x| x == c)).collect();
            let p = self.read_phase(
                format!("read-by-{}", index.name),
                format!("{key_table} rows by every column of index {}", index.name),
                case,
                loaded,
                ctx,
                |case, s| {
                    let mut params = Vec::with_capacity(positions.len());
                    for pos in &positions {
                        match pos.and_then(|p| s.values.get(&p)) {
                            Some(Kept::Null) | None => return Ok(None),
                            Some(v) => params.push(v.param()),
                        }
                    }
                    Ok(Some((case.read(Read::ByIndex(i), &params)?, None)))
                },
            )?;
            result.phases.push(p);
            ctx.observer.phase_recorded(result);
        }
        for (j, (child, _)) in sql.children_of.iter().enumerate() {
            let child = &self.plan.fills[*child].table.name;
            let p = self.read_phase(
                format!("children-of-{key_table}-in-{child}"),
                format!("one {key_table} row joined with its {child} rows"),
                case,
                loaded,
                ctx,
                |case, s| {
                    let key = s.key.ok_or_else(|| Error::InvalidInput("a sampled row has no key".into()))?;
                    Ok(Some((case.read(Read::ChildrenOf(j), &[slot.bind(key, storage)])?, Some(s.children[j]))))
                },
            )?;
            result.phases.push(p);
            ctx.observer.phase_recorded(result);
        }
        Ok(())
    }
}
