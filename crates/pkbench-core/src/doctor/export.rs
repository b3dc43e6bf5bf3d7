//! `doctor --export-schema`: a table's shape, written so `run --schema` can benchmark it on a
//! throwaway server — the DDL of the table, the tables it references and the tables
//! referencing it, and a `--values` file of column statistics (value-length histograms, NULL
//! shares, distinct counts) from a bounded sample. Only aggregates are read: never a row's
//! contents.
//!
//! Each engine's folder reads its catalog and sample into [`ExportedTable`]s (`export.rs`);
//! this file writes them out.

use crate::Error;
use crate::engines::EngineKind;
use std::fmt::Write;

/// Rows sampled per table for the statistics, unless `--full`.
pub const EXPORT_SAMPLE_ROWS: u64 = 100_000;
/// Fewest distinct values of varying length exported as `distinct` (fewer would make the
/// generated widths depend on a handful of draws).
const MIN_DISTINCT_WITH_LENGTHS: u64 = 200;
/// Most buckets of an exported length histogram.
const MAX_BUCKETS: usize = 16;

/// A secondary index: name, unique, columns.
pub type IndexDef = (String, bool, Vec<String>);
/// A foreign key: columns, referenced table, referenced columns.
pub type ForeignKeyDef = (Vec<String>, String, Vec<String>);

/// One table's shape and column statistics.
#[derive(Clone, Debug, PartialEq)]
pub struct ExportedTable {
    /// Its name.
    pub name: String,
    /// Rows: a server's catalog estimate, SQLite's count.
    pub rows_estimate: Option<u64>,
    /// Rows the statistics were read from.
    pub sampled: u64,
    /// Columns in order.
    pub columns: Vec<ExportedColumn>,
    /// Primary key columns.
    pub primary_key: Vec<String>,
    /// Secondary indexes: name, unique, columns.
    pub indexes: Vec<IndexDef>,
    /// Foreign keys: columns, referenced table, referenced columns.
    pub foreign_keys: Vec<ForeignKeyDef>,
}

/// One column's declaration and statistics.
#[derive(Clone, Debug, PartialEq)]
pub struct ExportedColumn {
    /// Its name.
    pub name: String,
    /// Its type as the catalog spells it.
    pub declared: String,
    /// Whether it may be NULL.
    pub nullable: bool,
    /// Sampled rows where it is NULL.
    pub nulls: u64,
    /// Distinct non-NULL values in the sample.
    pub distinct: Option<u64>,
    /// Value lengths (characters of text, bytes of binary or JSON) and how many sampled values
    /// have each, for columns whose length varies; empty otherwise.
    pub lengths: Vec<(u64, u64)>,
    /// Whether the length is JSON's (bytes of its text), which the values file gives as a range.
    pub json: bool,
}

impl ExportedColumn {
    /// Mean length of the sampled non-NULL values, if lengths were read.
    pub fn mean_length(&self) -> Option<f64> {
        let n: u64 = self.lengths.iter().map(|l| l.1).sum();
        (n > 0).then(|| self.lengths.iter().map(|(len, c)| (*len * *c) as f64).sum::<f64>() / n as f64)
    }
}

/// The exported files: the schema and its values file.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ExportFiles {
    /// The DDL (`CREATE TABLE`s and `CREATE INDEX`es), referenced tables first.
    pub schema: String,
    /// The `--values` TOML file.
    pub values: String,
}

/// Writes `tables` (referenced tables first) of `engine` (`version`) as a schema file and a
/// values file named `values_file` in the schema's header, for benchmarking `key_table`.
pub fn render(
    engine: EngineKind,
    version: &str,
    key_table: &str,
    tables: &[ExportedTable],
    values_file: &str,
) -> Result<ExportFiles, Error> {
    let dialect = engine.dialect();
    let q = |n: &str| dialect.quote(n);
    let mut schema = String::new();
    let _ = writeln!(
        schema,
        "-- pkbench doctor --export-schema: the shape of {key_table} on {} {version}, the tables it references and the tables referencing it.",
        engine.label()
    );
    let _ = writeln!(
        schema,
        "-- Statistics only (value lengths, NULL shares, distinct counts), in {values_file}: no row contents."
    );
    let _ = writeln!(
        schema,
        "-- Benchmark it: pkbench run --schema THIS_FILE --values {values_file} --table {key_table} --engine {}",
        engine.name()
    );
    let mut values = String::from("# Column statistics for pkbench run --values, from doctor --export-schema.\n");
    for t in tables {
        let rows = t.rows_estimate.map_or("unknown".to_string(), |n| n.to_string());
        let _ = writeln!(schema, "\n-- {}: about {rows} rows; statistics from {} sampled rows", t.name, t.sampled);
        let mut parts: Vec<String> = t
            .columns
            .iter()
            .map(|c| format!("    {} {}{}", q(&c.name), c.declared, if c.nullable { "" } else { " NOT NULL" }))
            .collect();
        if !t.primary_key.is_empty() {
            parts.push(format!("    PRIMARY KEY ({})", list(&t.primary_key, &q)));
        }
        for (columns, parent, referred) in &t.foreign_keys {
            parts.push(format!(
                "    FOREIGN KEY ({}) REFERENCES {} ({})",
                list(columns, &q),
                q(parent),
                list(referred, &q)
            ));
        }
        let _ = writeln!(schema, "CREATE TABLE {} (\n{}\n);", q(&t.name), parts.join(",\n"));
        for (name, unique, columns) in &t.indexes {
            let unique = if *unique { "UNIQUE " } else { "" };
            let _ = writeln!(schema, "CREATE {unique}INDEX {} ON {} ({});", q(name), q(&t.name), list(columns, &q));
        }
        for c in &t.columns {
            let settings = column_settings(c, t.sampled, t.indexes.iter().any(|i| i.1 && i.2 == [c.name.clone()]));
            if !settings.is_empty() {
                let _ = writeln!(values, "\n[{}.{}]\n{}", toml_key(&t.name), toml_key(&c.name), settings.join("\n"));
            }
        }
    }
    Ok(ExportFiles { schema, values })
}

fn list(columns: &[String], q: &dyn Fn(&str) -> String) -> String {
    columns.iter().map(|c| q(c)).collect::<Vec<_>>().join(", ")
}

/// A TOML key, quoted where it is not bare.
fn toml_key(name: &str) -> String {
    if !name.is_empty() && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-') {
        name.to_string()
    } else {
        format!("\"{}\"", name.replace('\\', "\\\\").replace('"', "\\\""))
    }
}

/// A column's `--values` settings from its statistics: the NULL share, the distinct count where
/// values repeat (not for a unique column), and its lengths.
fn column_settings(c: &ExportedColumn, sampled: u64, unique: bool) -> Vec<String> {
    let mut out = Vec::new();
    if c.nullable && sampled > 0 && c.nulls > 0 {
        out.push(format!("nulls = {:.4}", c.nulls as f64 / sampled as f64));
    }
    let present = sampled.saturating_sub(c.nulls);
    // Few distinct values of varying length would each draw one length: their widths would
    // stray from the sample's, so such a column keeps its lengths and loses its repeats.
    let varying = c.lengths.len() > 1;
    if let Some(d) = c.distinct
        && !unique
        && d > 0
        && (d as f64) < 0.5 * present as f64
        && (!varying || d >= MIN_DISTINCT_WITH_LENGTHS)
    {
        out.push(format!("distinct = {d}"));
    }
    if c.lengths.is_empty() {
        return out;
    }
    let (min, max) = (c.lengths[0].0, c.lengths[c.lengths.len() - 1].0);
    if c.json {
        // JSON sizes are a range in the values file: centred on the sampled mean.
        let mean = c.mean_length().unwrap_or(min as f64);
        let half = (mean - min as f64).min(max as f64 - mean).max(0.0);
        let (lo, hi) = ((mean - half).round().max(2.0) as u64, (mean + half).round().max(2.0) as u64);
        out.push(format!("len = \"{lo}..{hi}\""));
    } else if min == max {
        out.push(format!("len = \"{min}\""));
    } else {
        out.push(format!("lengths = \"{}\"", histogram(&c.lengths)));
    }
    out
}

/// At most [`MAX_BUCKETS`] buckets of equal weight, each at its values' mean length, so the
/// generated lengths keep the sampled mean.
fn histogram(lengths: &[(u64, u64)]) -> String {
    let total: u64 = lengths.iter().map(|l| l.1).sum();
    let per = total.div_ceil(MAX_BUCKETS as u64).max(1);
    let mut buckets: Vec<(f64, u64)> = Vec::new();
    let (mut sum, mut count) = (0u128, 0u64);
    for &(len, n) in lengths {
        sum += u128::from(len) * u128::from(n);
        count += n;
        if count >= per {
            buckets.push((sum as f64 / count as f64, count));
            (sum, count) = (0, 0);
        }
    }
    if count > 0 {
        buckets.push((sum as f64 / count as f64, count));
    }
    buckets
        .iter()
        .map(|(len, n)| format!("{}:{:.4}", len.round() as u64, *n as f64 / total as f64))
        .collect::<Vec<_>>()
        .join(",")
}

/// The tables to export around `key_table`, referenced tables first: its ancestors (found by
/// `parents`), itself, and the tables whose foreign keys reference it (`children`).
pub fn around(
    key_table: &str,
    parents: &mut dyn FnMut(&str) -> Result<Vec<String>, Error>,
    children: Vec<String>,
) -> Result<Vec<String>, Error> {
    let mut out: Vec<String> = Vec::new();
    fn visit(
        t: &str,
        parents: &mut dyn FnMut(&str) -> Result<Vec<String>, Error>,
        out: &mut Vec<String>,
        path: &mut Vec<String>,
    ) -> Result<(), Error> {
        path.push(t.to_string());
        for p in parents(t)? {
            if !out.contains(&p) && !path.contains(&p) {
                visit(&p, parents, out, path)?;
                out.push(p);
            }
        }
        path.pop();
        Ok(())
    }
    visit(key_table, parents, &mut out, &mut Vec::new())?;
    out.push(key_table.to_string());
    for c in children {
        if !out.contains(&c) {
            visit(&c, parents, &mut out, &mut vec![key_table.to_string()])?;
            if !out.contains(&c) {
                out.push(c);
            }
        }
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn column(name: &str, lengths: Vec<(u64, u64)>, nulls: u64) -> ExportedColumn {
        ExportedColumn {
            name: name.into(),
            declared: "text".into(),
            nullable: true,
            nulls,
            distinct: Some(900),
            lengths,
            json: false,
        }
    }

    #[test]
    fn the_histogram_keeps_the_mean_length() {
        let lengths: Vec<(u64, u64)> = (3..=40).map(|l| (l, 10 + l % 7)).collect();
        let c = column("name", lengths.clone(), 100);
        let text = histogram(&lengths);
        let buckets: Vec<(f64, f64)> = text
            .split(',')
            .map(|b| {
                let (l, w) = b.split_once(':').unwrap();
                (l.parse().unwrap(), w.parse().unwrap())
            })
            .collect();
        assert!(buckets.len() <= MAX_BUCKETS);
        let mean: f64 = buckets.iter().map(|(l, w)| l * w).sum::<f64>() / buckets.iter().map(|b| b.1).sum::<f64>();
        let truth = c.mean_length().unwrap();
        assert!((mean - truth).abs() / truth < 0.03, "{mean} vs {truth}");
    }

    #[test]
    fn the_files_parse_back_and_hold_no_values() {
        let t = ExportedTable {
            name: "accounts".into(),
            rows_estimate: Some(1000),
            sampled: 1000,
            columns: vec![
                ExportedColumn {
                    name: "id".into(),
                    declared: "bigint".into(),
                    nullable: false,
                    nulls: 0,
                    distinct: Some(1000),
                    lengths: vec![],
                    json: false,
                },
                column("name", vec![(3, 500), (9, 400)], 100),
            ],
            primary_key: vec!["id".into()],
            indexes: vec![("accounts_name".into(), false, vec!["name".into()])],
            foreign_keys: vec![],
        };
        let files = render(EngineKind::Postgres, "15", "accounts", &[t], "a.values.toml").unwrap();
        let schema = crate::schema::parse(&files.schema, Some(EngineKind::Postgres)).unwrap();
        assert_eq!(schema.tables[0].name, "accounts");
        assert_eq!(schema.tables[0].indexes[0].columns, ["name"]);
        let sidecar = crate::values::Sidecar::parse(&files.values).unwrap();
        let name = sidecar.column("accounts", "name").unwrap();
        assert_eq!(name.nulls, Some(0.1));
        assert!(files.values.contains("lengths = \"3:"), "{}", files.values);
    }
}
