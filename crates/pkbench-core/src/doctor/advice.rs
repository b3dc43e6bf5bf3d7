//! The verdict: ranked advice, each with the measurement that supports it, or "the key is fine".

use super::physical::{BtreeReport, REBUILT_LEAF_FILL};
use super::remedies::Remedies;
use super::sample::{KeyStorage, SchemeReport};
use super::schema::{Layout, TableSchema};
use super::{KeyColumnReport, OrderReport};
use crate::engines::EngineKind;
use serde::{Deserialize, Serialize};

/// What a piece of advice asks for.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum AdviceKind {
    /// Generate new primary keys in time order (UUIDv7, a sequence).
    TimeOrderedKey,
    /// Store 128-bit keys in 16 bytes (BLOB, uuid, BINARY(16)) instead of text.
    BinaryStorage,
    /// Generate new values of a UNIQUE-indexed random column in time order.
    TimeOrderedUniqueColumn,
    /// Rebuild once (`VACUUM`, `REINDEX`, `OPTIMIZE TABLE`) to repack half-empty pages.
    Repack,
}

/// One recommendation.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Advice {
    /// 1 = most gain.
    pub rank: u32,
    /// What it asks for.
    pub kind: AdviceKind,
    /// The recommendation, one sentence.
    pub text: String,
    /// The measurement behind it.
    pub evidence: String,
    /// Bytes it would save, where that can be estimated.
    pub gain_bytes: Option<u64>,
}

/// Bytes a rebuild copies: SQLite's VACUUM copies the whole file (twice its size at the peak);
/// the servers rebuild the table or its indexes.
fn rebuilt_bytes(engine: EngineKind, database_bytes: u64, table_bytes: u64) -> u64 {
    match engine {
        EngineKind::Sqlite => database_bytes * 2,
        EngineKind::Postgres
        | EngineKind::MariaDb
        | EngineKind::Spider
        | EngineKind::PostgresFdw
        | EngineKind::MyRocks => table_bytes,
    }
}

/// `12.3 MB`, `456 KB`, `789 B`.
pub fn human_bytes(b: u64) -> String {
    match b {
        0..1_000 => format!("{b} B"),
        1_000..1_000_000 => format!("{:.0} KB", b as f64 / 1e3),
        1_000_000..1_000_000_000 => format!("{:.1} MB", b as f64 / 1e6),
        _ => format!("{:.2} GB", b as f64 / 1e9),
    }
}

fn order_line(order: Option<&OrderReport>) -> String {
    let Some(o) = order else { return String::new() };
    match (o.vs_rowid_inversion_ratio, o.vs_time_inversion_ratio) {
        (Some(r), _) => {
            format!(
                "; key order vs insertion order (rowid, ctid or auto-increment): inversion ratio {r:.2} (0 = in order, 0.5 = random)"
            )
        }
        (None, Some(t)) => format!("; embedded times in key order: inversion ratio {t:.2} (0 = in order)"),
        _ => String::new(),
    }
}

fn fill_line(b: &BtreeReport) -> String {
    let (name, leaves, fill) = (&b.stats.name, b.stats.leaf_pages, b.stats.leaf_fill * 100.0);
    if b.estimated.is_some() {
        return format!("b-tree '{name}': {leaves} leaf pages, leaf fill ~{fill:.0}% (estimated)");
    }
    format!(
        "b-tree '{name}': {leaves} leaf pages, leaf fill {fill:.0}%, {:.0}% of leaves out of order",
        b.stats.leaf_out_of_order * 100.0
    )
}

/// The b-tree that holds a key's order: the table itself when clustered on it, else its index.
fn key_btree<'a>(btrees: &'a [BtreeReport], table: &str, key: &KeyColumnReport) -> Option<&'a BtreeReport> {
    let name = key.index.as_deref().unwrap_or(table);
    btrees.iter().find(|b| b.stats.name.eq_ignore_ascii_case(name))
}

fn is_random(scheme: &SchemeReport, order: Option<&OrderReport>) -> bool {
    scheme.scheme.is_random() && scheme.share >= 0.8 && order.and_then(|o| o.appends_in_order) != Some(true)
}

/// Ranked advice for one table; empty when nothing would help.
pub fn advise(
    table: &TableSchema,
    rows: u64,
    primary: Option<&KeyColumnReport>,
    unique: &[KeyColumnReport],
    btrees: &[BtreeReport],
    database_bytes: u64,
    engine: EngineKind,
) -> Vec<Advice> {
    let remedies = Remedies::of(engine);
    let mut out = Vec::new();
    if let Some(pk) = primary
        && let Some(scheme) = &pk.scheme
    {
        out.extend(time_ordered_key(table, pk, scheme, btrees));
        out.extend(binary_storage(table, rows, pk, scheme, btrees, &remedies));
    }
    for key in unique {
        out.extend(time_ordered_unique_column(table, key, btrees));
    }
    out.extend(repack(btrees, database_bytes, engine, &remedies));
    out.sort_by_key(|a| (a.kind, std::cmp::Reverse(a.gain_bytes)));
    for (i, a) in out.iter_mut().enumerate() {
        a.rank = i as u32 + 1;
    }
    out
}

/// Switch new primary keys to time order, when they arrive at random.
fn time_ordered_key(
    table: &TableSchema,
    pk: &KeyColumnReport,
    scheme: &SchemeReport,
    btrees: &[BtreeReport],
) -> Option<Advice> {
    if !is_random(scheme, pk.order.as_ref()) {
        return None;
    }
    let evidence = format!("{}{}", scheme.evidence, order_line(pk.order.as_ref()));
    let evidence_fill = key_btree(btrees, &table.name, pk).map(|b| format!("; {}", fill_line(b))).unwrap_or_default();
    let target =
        if scheme.storage == KeyStorage::Integer { "an ordered integer (a sequence or Snowflake)" } else { "UUIDv7" };
    let gain = match table.layout.is_lsm() {
        true => {
            "each flushed file holds new keys only and moves down the levels without being rewritten, instead of overlapping every file below and being compacted again at each level"
        }
        false => "inserts append instead of splitting random leaves",
    };
    // A one-to-one table's key is a copy of its parent's: its order is the parent's to change.
    let whose = match &table.key_references {
        Some(parent) => format!(
            ", a copy of {}.{} through its foreign key: switch that table's new keys to {target}, and this table's with them",
            parent.table, parent.column
        ),
        None => format!(": switch new keys to {target}"),
    };
    Some(Advice {
        rank: 0,
        kind: AdviceKind::TimeOrderedKey,
        text: format!(
            "Primary key is a {} stored as {} in a {}{whose} (no migration of old keys needed) so {gain}",
            scheme.scheme.label(),
            scheme.storage.label(),
            table.layout.describe()
        ),
        evidence: format!("{evidence}{evidence_fill}"),
        gain_bytes: None,
    })
}

/// Store a 128-bit key in 16 bytes, when it is stored as text.
fn binary_storage(
    table: &TableSchema,
    rows: u64,
    pk: &KeyColumnReport,
    scheme: &SchemeReport,
    btrees: &[BtreeReport],
    remedies: &Remedies,
) -> Option<Advice> {
    let overhead = scheme.storage.text_overhead_bytes();
    if overhead == 0 || scheme.share < 0.8 {
        return None;
    }
    let holders = super::physical::key_holders(table, pk.index.as_deref());
    let measured: Vec<&BtreeReport> = btrees
        .iter()
        .filter(|b| holders.iter().any(|h| h.eq_ignore_ascii_case(&b.stats.name)))
        .filter(|b| b.payload_bytes.is_some_and(|p| p > 0))
        .collect();
    let (saved, how) = if measured.is_empty() {
        let copies = holders.len() as u64;
        (
            rows * overhead * copies,
            format!("{overhead} extra bytes per key × {rows} rows × {copies} b-tree(s) holding the key"),
        )
    } else {
        measured_text_saving(&measured, overhead)
    };
    Some(Advice {
        rank: 0,
        kind: AdviceKind::BinaryStorage,
        text: format!(
            "store the key as {} instead of {} (saves ~{})",
            remedies.binary_storage,
            scheme.storage.label(),
            human_bytes(saved)
        ),
        evidence: format!("{how}; {}", scheme.evidence),
        gain_bytes: Some(saved),
    })
}

/// What storing the key in 16 bytes saves in the b-trees measured, and how that was worked out:
/// each b-tree shrinks by the share of its leaf payload the extra bytes take.
fn measured_text_saving(measured: &[&BtreeReport], overhead: u64) -> (u64, String) {
    let mut parts = Vec::new();
    let mut saved = 0.0;
    for b in measured {
        let (payload, cells) = (b.payload_bytes.unwrap_or(1), b.entries.unwrap_or(0));
        let share = (cells * overhead) as f64 / payload as f64;
        saved += share * b.stats.size_bytes as f64;
        parts.push(format!(
            "'{}': {cells} keys, {} of payload in {} (dbstat), {:.0}% of it text overhead",
            b.stats.name,
            human_bytes(payload),
            human_bytes(b.stats.size_bytes),
            share * 100.0
        ));
    }
    (saved.round() as u64, format!("{overhead} extra bytes per key; {}", parts.join("; ")))
}

/// Generate new values of a random UNIQUE column in time order.
fn time_ordered_unique_column(table: &TableSchema, key: &KeyColumnReport, btrees: &[BtreeReport]) -> Option<Advice> {
    let scheme = key.scheme.as_ref()?;
    if !is_random(scheme, key.order.as_ref()) {
        return None;
    }
    let fill = key_btree(btrees, &table.name, key).map(|b| format!("; {}", fill_line(b))).unwrap_or_default();
    Some(Advice {
        rank: 0,
        kind: AdviceKind::TimeOrderedUniqueColumn,
        text: format!(
            "UNIQUE column '{}' holds {} values: if they need not hide their creation time, generate UUIDv7 for new rows so its index appends too",
            key.columns[0],
            scheme.scheme.label()
        ),
        evidence: format!("{}{}{fill}", scheme.evidence, order_line(key.order.as_ref())),
        gain_bytes: None,
    })
}

/// Rebuild once, when that would free a fifth of the table.
fn repack(btrees: &[BtreeReport], database_bytes: u64, engine: EngineKind, remedies: &Remedies) -> Option<Advice> {
    let size: u64 = btrees.iter().map(|b| b.stats.size_bytes).sum();
    let reclaim: u64 = btrees.iter().map(|b| b.reclaimable_bytes).sum();
    // Appends leave leaves ~85–100% full and random inserts ~70% once a tree is large: advise a
    // rebuild only when it would free a fifth of the table.
    if reclaim < 8 * 4096 || reclaim * 5 < size {
        return None;
    }
    let worst = btrees.iter().min_by(|a, b| a.stats.leaf_fill.total_cmp(&b.stats.leaf_fill));
    Some(Advice {
        rank: 0,
        kind: AdviceKind::Repack,
        text: format!(
            "{} (reclaims ~{}; {})",
            remedies.repack,
            human_bytes(reclaim),
            (remedies.repack_needs)(&human_bytes(rebuilt_bytes(engine, database_bytes, size)))
        ),
        evidence: format!(
            "{}; a rebuild fills leaves to ~{:.0}%",
            worst.map(fill_line).unwrap_or_default(),
            REBUILT_LEAF_FILL * 100.0
        ),
        gain_bytes: Some(reclaim),
    })
}

/// Adds a table's sorted files and levels to the evidence of the advice about key order (on an
/// LSM tree there is no leaf fill to quote).
pub fn add_lsm_evidence(advice: &mut [Advice], lsm: &super::lsm::LsmReport) {
    for a in advice {
        if matches!(a.kind, AdviceKind::TimeOrderedKey | AdviceKind::TimeOrderedUniqueColumn) {
            a.evidence = format!("{}; {}", a.evidence, lsm.evidence());
        }
    }
}

/// One line: the top advice, or that the key is fine and why.
pub fn verdict(advice: &[Advice], primary: Option<&KeyColumnReport>, layout: Layout) -> String {
    if let Some(top) = advice.first() {
        return top.text.clone();
    }
    let lsm = match layout.is_lsm() {
        true => "; an LSM tree has no leaf fill to lose: its sorted files are written full",
        false => "",
    };
    match primary.and_then(|k| k.scheme.as_ref()) {
        Some(s) => format!(
            "The key is fine: {} stored as {} in a {}, arriving in order ({}){lsm}",
            s.scheme.label(),
            s.storage.label(),
            layout.describe(),
            s.evidence
        ),
        None if primary.is_some() => {
            format!("The key is fine as far as doctor can tell (composite key, {})", layout.describe())
        }
        None => format!("No primary key: rows are stored in insertion order ({})", layout.describe()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn btree(leaf_fill: f64, reclaimable_bytes: u64) -> BtreeReport {
        BtreeReport {
            stats: crate::results::BtreeStats {
                key_share: None,
                misses_per_1k_rows: None,
                index_blocks_touched_per_1k_rows: None,
                name: "t".into(),
                kind: "table".into(),
                pages: 1_000,
                leaf_pages: 990,
                leaf_fill,
                leaf_out_of_order: 0.4,
                size_bytes: 4_096_000,
            },
            reclaimable_bytes,
            estimated: None,
            payload_bytes: None,
            entries: None,
        }
    }

    fn table() -> TableSchema {
        TableSchema {
            referenced_by: Vec::new(),
            key_references: None,
            key_attributes: None,
            name: "t".into(),
            without_rowid: false,
            layout: Layout::RowidNoKey,
            columns: vec![],
            primary: None,
            unique: vec![],
            indexes: vec![],
        }
    }

    #[test]
    fn repack_only_when_a_fifth_would_be_freed() {
        let half_empty = advise(&table(), 10, None, &[], &[btree(0.5, 1_900_000)], 4_096_000, EngineKind::Sqlite);
        assert_eq!(half_empty.len(), 1);
        assert_eq!(half_empty[0].kind, AdviceKind::Repack);
        assert_eq!(half_empty[0].rank, 1);
        assert!(half_empty[0].text.contains("1.9 MB"), "{}", half_empty[0].text);
        assert!(advise(&table(), 10, None, &[], &[btree(0.86, 400_000)], 4_096_000, EngineKind::Sqlite).is_empty());
    }

    #[test]
    fn sizes_read_naturally() {
        assert_eq!(human_bytes(999), "999 B");
        assert_eq!(human_bytes(60_000), "60 KB");
        assert_eq!(human_bytes(2_500_000_000), "2.50 GB");
    }
}
