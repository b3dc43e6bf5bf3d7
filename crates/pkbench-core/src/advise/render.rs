//! The answer as terminal text, Markdown and an HTML page whose first screen is the verdict,
//! followed by the forecast's report charts.

use super::AdviceReport;
use super::figures::{CandidateFigures, Estimate};
use crate::report::fmt;
use crate::results::ResultsDoc;
use crate::util::text::thousands;
use comfy_table::{CellAlignment, ContentArrangement, Table, presets::UTF8_FULL_CONDENSED};
use std::fmt::Write as _;

/// The table's column titles.
const HEADER: [&str; 10] = [
    "key",
    "µs/row now (90%)",
    "µs/row at target (90%)",
    "time to target (90%)",
    "size at target",
    "cache misses/row",
    "pages written/row",
    "WAL bytes/row",
    "key bytes",
    "inserts land",
];

/// The column titles, with the hottest shard's share when the rows were placed on shards and
/// the latency at the peak rate when contention was checked.
fn header(r: &AdviceReport) -> Vec<String> {
    let mut h: Vec<String> = HEADER.iter().map(|t| t.to_string()).collect();
    if !r.table.references.is_empty() {
        h.push("key in referencing columns".into());
    }
    if r.sharded.is_some() {
        h.push("hottest shard's share".into());
    }
    if let Some(c) = &r.contention {
        h.push(format!("at {} rows/s: p99", thousands(c.rate)));
    }
    h
}

/// One candidate's cells, as [`header`] titles them.
fn row(r: &AdviceReport, c: &CandidateFigures) -> Vec<String> {
    let mut cells = cells(c).to_vec();
    if !r.table.references.is_empty() {
        cells.push(match (c.referencing_bytes, c.referencing_copy_bytes) {
            (Some(bytes), _) => fmt::mib(Some(bytes)),
            (None, Some(per_copy)) => format!("{} B per copy", thousands(per_copy.round() as u64)),
            (None, None) => "—".into(),
        });
    }
    if r.sharded.is_some() {
        cells.push(c.hottest_shard_share.map_or("—".into(), fmt::percent));
    }
    if r.contention.is_some() {
        cells.push(c.contention.as_ref().map_or("—".into(), |k| {
            let behind = if k.kept_up { String::new() } else { format!(", fell behind: {:.0}/s", k.rate_achieved) };
            format!("{:.1} ms{behind}", k.p99_ms)
        }));
    }
    cells
}

/// Each column of another table that holds the key: its copies per row and its rows.
fn reference_lines(r: &AdviceReport) -> Vec<String> {
    r.table
        .references
        .iter()
        .map(|x| {
            let copies = match x.copies {
                1 => "holds the key once per row".to_string(),
                n => format!("holds the key {n} times per row (the column and the index entries holding it)"),
            };
            let rows = match (x.rows_now, x.rows_at(r.table.rows_now, r.target.rows)) {
                (Some(now), Some(at)) => format!(
                    "; {} rows today, {} at the target if it grows with {}",
                    thousands(now),
                    thousands(at),
                    r.table.table
                ),
                (Some(now), None) => format!("; {} rows today", thousands(now)),
                (None, _) => String::new(),
            };
            format!("{}.{} {copies}{rows}.", x.table, x.column)
        })
        .collect()
}

/// Each candidate at the peak rate: rate reached, latency, what the sessions waited for.
fn contention_lines(r: &AdviceReport) -> Vec<String> {
    let Some(setup) = &r.contention else { return Vec::new() };
    let mut lines = vec![format!("{}; results in {}.", setup.setup, setup.results_dir.display())];
    for c in &r.candidates {
        let Some(k) = &c.contention else { continue };
        let waited = match (&k.top_wait, k.top_wait_share) {
            (Some(wait), Some(share)) => format!("; waited most for {wait} ({})", fmt::percent(share)),
            _ => String::new(),
        };
        let errors = if k.errors > 0 { format!("; {} statements failed", thousands(k.errors)) } else { String::new() };
        lines.push(format!(
            "{}: {:.0} of {} rows/s ({}), p50 {:.2} ms, p99 {:.1} ms from each row's due time{waited}{errors}.",
            c.strategy,
            k.rate_achieved,
            thousands(k.rate_asked),
            if k.kept_up { "kept up" } else { "fell behind" },
            k.p50_ms,
            k.p99_ms
        ));
    }
    lines.extend(setup.skipped.iter().map(|s| format!("Not checked: {s}")));
    lines
}

/// One candidate's cells.
fn cells(c: &CandidateFigures) -> [String; 10] {
    let name = match (&c.calibrated_as, c.current) {
        (_, true) => format!("{} (current)", c.strategy),
        (Some(other), false) => format!("{} (calibrated as {other})", c.strategy),
        (None, false) => c.strategy.clone(),
    };
    [
        name,
        estimate(c.us_per_row_now, 2),
        estimate(c.us_per_row_target, 2),
        duration(c.seconds_to_target),
        fmt::mib(Some(c.size_bytes)),
        c.cache_misses_per_row.map_or("—".into(), |v| format!("{v:.3}")),
        c.pages_written_per_row.map_or("—".into(), |v| format!("{v:.3}")),
        c.wal_bytes_per_row.map_or("—".into(), |v| thousands(v.round() as u64)),
        c.key_bytes.to_string(),
        if c.ordered { "one hot page".into() } else { "whole tree".into() },
    ]
}

/// `1.23 (1.10–1.40)`.
fn estimate(e: Option<Estimate>, digits: usize) -> String {
    match e {
        Some(e) => format!("{:.digits$} ({:.digits$}–{:.digits$})", e.value, e.low, e.high),
        None => "—".into(),
    }
}

/// `1.2 h (0.9–1.6 h)`: seconds in the unit that suits the value.
fn duration(e: Option<Estimate>) -> String {
    let Some(e) = e else { return "—".into() };
    let (unit, per) = time_unit(e.value);
    format!("{:.1} {unit} ({:.1}–{:.1})", e.value / per, e.low / per, e.high / per)
}

/// The unit that suits `seconds`, and its seconds.
pub(super) fn time_unit(seconds: f64) -> (&'static str, f64) {
    match seconds {
        v if v >= 2.0 * 86_400.0 => ("d", 86_400.0),
        v if v >= 2.0 * 3_600.0 => ("h", 3_600.0),
        v if v >= 120.0 => ("min", 60.0),
        _ => ("s", 1.0),
    }
}

/// The lines above the table: what was read, the target, how the forecast was made.
fn context(r: &AdviceReport) -> Vec<String> {
    let t = &r.table;
    let mut lines = vec![format!(
        "Table {} ({}) on {}{}: {} rows today{}, forecast at {} rows ({}).",
        t.table,
        t.source,
        t.engine,
        t.engine_version.as_ref().map_or(String::new(), |v| format!(" {v}")),
        thousands(t.rows_now),
        if t.rows_estimated { " (the server's estimate)" } else { "" },
        thousands(r.target.rows),
        r.target.chosen_by
    )];
    if let Some(k) = &t.current_key {
        lines.push(format!("Current key: {} {} — {}.", k.column, k.declared_type, k.evidence));
    }
    if let Some(sharded) = &r.sharded {
        lines.push(format!("Rows placed on {sharded}: an even spread gives each shard 1 ÷ shards of a batch."));
    }
    lines.push(format!(
        "Forecast: the {} page model with a {} MiB page cache and rows as wide as yours ({} payload bytes beside the key); sizes from the schema model at {} rows, scaled to the target; calibrated on {}.",
        t.engine,
        r.cache_mb,
        r.payload_bytes,
        thousands(r.sample_rows),
        r.calibrated_on.as_deref().unwrap_or("this machine")
    ));
    lines
}

/// Title of the section that ends with doctor's migration script.
const HOW_TO_GET_THERE: &str = "How to get there";

/// The script that follows the section titled `title`, if any.
fn script_after<'r>(r: &'r AdviceReport, title: &str) -> Option<&'r str> {
    r.migration_sql.as_deref().filter(|_| title == HOW_TO_GET_THERE)
}

/// The sections after the table, as (title, lines).
fn sections(r: &AdviceReport) -> Vec<(&'static str, Vec<String>)> {
    let sizes = r
        .candidates
        .iter()
        .map(|c| {
            let trees: Vec<String> =
                c.trees.iter().map(|t| format!("{} {}", t.name, fmt::mib(Some(t.size_bytes)))).collect();
            format!("{}: {}", c.strategy, trees.join(", "))
        })
        .collect();
    let mut out = vec![
        ("Sizes at the target", sizes),
        ("Columns of other tables that hold the key", reference_lines(r)),
        ("Why", r.why.clone()),
    ];
    out.push(("Contention at the peak rate", contention_lines(r)));
    if !r.migration.is_empty() {
        out.push((HOW_TO_GET_THERE, r.migration.clone()));
    }
    out.push(("Not measured", r.not_measured.clone()));
    out.retain(|(_, lines)| !lines.is_empty());
    out
}

/// The terminal text: the verdict first, then the table and the sections.
pub fn text(r: &AdviceReport) -> String {
    let mut t = Table::new();
    t.load_style(UTF8_FULL_CONDENSED)
        .force_no_tty()
        .set_content_arrangement(ContentArrangement::Disabled)
        .set_header(header(r));
    for c in &r.candidates {
        t.add_row(row(r, c));
    }
    for i in (1..t.column_count()).filter(|&i| i != HEADER.len() - 1) {
        if let Some(col) = t.column_mut(i) {
            col.set_cell_alignment(CellAlignment::Right);
        }
    }
    let mut out = format!("{}\n\n{}\n\n{t}\n", r.verdict, context(r).join("\n"));
    for (title, lines) in sections(r) {
        let _ = write!(out, "\n{title}:\n");
        for line in lines {
            let _ = writeln!(out, "  - {line}");
        }
        for line in script_after(r, title).into_iter().flat_map(str::lines) {
            let _ = writeln!(out, "      {line}");
        }
    }
    out
}

/// Markdown: the verdict as the heading's paragraph, a table, the sections as lists.
pub fn markdown(r: &AdviceReport) -> String {
    let mut out = format!("# pkbench advise\n\n**{}**\n\n{}\n\n", r.verdict, context(r).join("\n\n"));
    let header = header(r);
    let _ = writeln!(out, "| {} |", header.join(" | "));
    let _ = writeln!(out, "|{}", "---|".repeat(header.len()));
    for c in &r.candidates {
        let cells: Vec<String> = row(r, c).iter().map(|cell| cell.replace('|', "\\|")).collect();
        let _ = writeln!(out, "| {} |", cells.join(" | "));
    }
    for (title, lines) in sections(r) {
        let _ = write!(out, "\n## {title}\n\n");
        for line in lines {
            let _ = writeln!(out, "- {line}");
        }
        if let Some(sql) = script_after(r, title) {
            let _ = write!(out, "\n```sql\n{}\n```\n", sql.trim_end());
        }
    }
    out
}

/// The HTML page: the verdict and table first, then the forecast's report.
pub fn html(r: &AdviceReport, forecast: &ResultsDoc) -> String {
    let esc = crate::report::svg_escape;
    let mut lead =
        format!("<section class=\"advice\"><p class=\"kicker\">pkbench advise</p><h1>{}</h1>", esc(&r.verdict));
    for line in context(r) {
        let _ = write!(lead, "<p>{}</p>", esc(&line));
    }
    lead.push_str("<table><thead><tr>");
    for h in header(r) {
        let _ = write!(lead, "<th>{}</th>", esc(&h));
    }
    lead.push_str("</tr></thead><tbody>");
    for c in &r.candidates {
        lead.push_str("<tr>");
        for cell in row(r, c) {
            let _ = write!(lead, "<td>{}</td>", esc(&cell));
        }
        lead.push_str("</tr>");
    }
    lead.push_str("</tbody></table>");
    for (title, lines) in sections(r) {
        let _ = write!(lead, "<h2>{}</h2><ul>", esc(title));
        for line in lines {
            let _ = write!(lead, "<li>{}</li>", esc(&line));
        }
        lead.push_str("</ul>");
        if let Some(sql) = script_after(r, title) {
            let _ = write!(lead, "<pre>{}</pre>", esc(sql));
        }
    }
    lead.push_str("</section>\n");
    crate::report::render_page(&[crate::report::Source::single(forecast.clone())], Some(&lead))
}
