//! The page's text sections: summary and B-tree tables, and how each run was made (command
//! line, settings, environment) so a reader can reproduce it.

use crate::report::columns;
use crate::report::engine_settings::ReadableSetting;
use crate::report::input::Source;
use crate::report::svg::esc;
use crate::results::{ResultsDoc, Settings};
use std::fmt::Write;

/// An HTML table from a header and rows; the columns in `left` are text (left-aligned), the
/// column named "batch ms trend" is a sparkline.
fn table(out: &mut String, header: &[String], rows: &[Vec<String>], incomplete: impl Fn(usize) -> bool) {
    out.push_str("<div class=\"scroll\"><table><thead><tr>");
    // A heading takes its column's class, so it is aligned as the values under it are.
    for h in header {
        let _ = write!(out, "<th{}>{}</th>", column_class(h), esc(h));
    }
    out.push_str("</tr></thead><tbody>\n");
    for (i, row) in rows.iter().enumerate() {
        out.push_str(if incomplete(i) { "<tr class=\"incomplete\">" } else { "<tr>" });
        for (cell, h) in row.iter().zip(header) {
            let _ = write!(out, "<td{}>{}</td>", column_class(h), esc(cell));
        }
        out.push_str("</tr>\n");
    }
    out.push_str("</tbody></table></div>\n");
}

/// The class of a column's cells: text and sparklines are left-aligned, figures right-aligned.
fn column_class(header: &str) -> &'static str {
    match header {
        "batch ms trend" => " class=\"spark\"",
        "b-tree" | "kind" | "step" | "details" => " class=\"text\"",
        _ => "",
    }
}

/// A sub-heading naming the source, only when several are shown.
fn source_heading(out: &mut String, source: &Source, several: bool) {
    if several {
        let _ = write!(out, "<h3>{}</h3>", esc(&source.label));
    }
}

/// The per-strategy summary table of every source.
pub fn summary(out: &mut String, sources: &[Source]) {
    out.push_str("<section id=\"summary\"><h2>Summary</h2>");
    let mut baselines: Vec<String> = Vec::new();
    for source in sources {
        source_heading(out, source, sources.len() > 1);
        let (header, rows) = columns::summary(&source.doc);
        table(out, &header, &rows, |i| source.doc.runs.get(i).is_some_and(|r| !r.complete));
        if let Some(baseline) = columns::baseline(&source.doc)
            && !baselines.contains(&baseline)
        {
            baselines.push(baseline);
        }
    }
    // The footnote names the column as its header does: `vs int`.
    let vs: String = baselines.iter().map(|b| format!("vs {b}: time per row over {b}'s. ")).collect();
    let _ = write!(
        out,
        "<p class=\"lede\">last/first: the last batch's time over the first's (1× = flat). \
         {}Counters are per 1,000 rows inserted.</p></section>",
        esc(&vs)
    );
}

/// The B-tree table of every source that has one.
pub fn btrees(out: &mut String, sources: &[Source]) {
    if sources.iter().all(|s| s.doc.runs.iter().all(|r| r.btrees.is_empty())) {
        return;
    }
    out.push_str("<section id=\"btree-table\"><h2>B-trees after the run</h2>");
    for source in sources {
        let (header, rows) = columns::btrees(&source.doc);
        if !rows.is_empty() {
            source_heading(out, source, sources.len() > 1);
            table(out, &header, &rows, |_| false);
            if let Some(note) = columns::btree_note(&source.doc) {
                out.push_str(&format!("<p>{}</p>", crate::report::svg::esc(&note)));
            }
        }
    }
    out.push_str("</section>");
}

/// The timed steps (queries, concurrent inserts, file writes, maintenance) of every source
/// that has any.
pub fn phases(out: &mut String, sources: &[Source]) {
    if sources.iter().all(|s| s.doc.runs.iter().all(|r| r.phases.is_empty())) {
        return;
    }
    out.push_str("<section id=\"phases\"><h2>Timed steps</h2>");
    for source in sources {
        let (header, rows) = columns::phases(&source.doc);
        if !rows.is_empty() {
            source_heading(out, source, sources.len() > 1);
            table(out, &header, &rows, |_| false);
        }
    }
    out.push_str(
        "<p class=\"lede\">Latency percentiles come from an HDR histogram of every timed operation \
         (warm-up excluded); details are each step's own figures, units in their names.</p></section>",
    );
}

/// Command line, settings and environment of every source.
pub fn provenance(out: &mut String, sources: &[Source]) {
    out.push_str("<section id=\"how\"><h2>How this was measured</h2>");
    for source in sources {
        source_heading(out, source, sources.len() > 1);
        let doc = &source.doc;
        let _ = write!(out, "<p class=\"lede\">Command</p><pre><code>{}</code></pre>", esc(&shell_line(&doc.command)));
        settings(out, doc);
        environment(out, doc);
    }
    out.push_str("</section>");
}

fn facts(out: &mut String, title: &str, items: &[(String, String)]) {
    let _ = write!(out, "<p class=\"lede\">{}</p><dl class=\"facts\">", esc(title));
    for (k, v) in items {
        let _ = writeln!(out, "<dt>{}</dt><dd>{}</dd>", esc(k), esc(v));
    }
    out.push_str("</dl>");
}

fn settings(out: &mut String, doc: &ResultsDoc) {
    let Some(first) = doc.runs.first() else {
        return;
    };
    let s: &Settings = &first.settings;
    let mut items = vec![
        ("workload".to_string(), first.workload.clone()),
        ("rows per strategy".to_string(), s.rows.to_string()),
        ("rows per transaction".to_string(), s.batch_rows.to_string()),
        ("payload per row".to_string(), format!("{} bytes", s.payload_bytes)),
        ("seed".to_string(), s.seed.to_string()),
        ("key clock".to_string(), s.key_clock.clone()),
        ("insert path".to_string(), s.insert_path.clone()),
    ];
    if let Some(keys) = crate::report::columns::key_note(doc) {
        items.push(("key parameters".to_string(), keys));
    }
    items.extend(s.engine.iter().map(|(k, v)| {
        let setting = ReadableSetting::new(k, v);
        (format!("{} {}", first.engine, setting.name), setting.value)
    }));
    // Key parameters belong to each strategy's keys (listed above), not to the run's settings.
    let without_keys = |r: &Settings| Settings { key_parameters: Default::default(), ..r.clone() };
    let differing: Vec<&str> =
        doc.runs.iter().filter(|r| without_keys(&r.settings) != without_keys(s)).map(|r| r.strategy.as_str()).collect();
    let title = if differing.is_empty() {
        "Settings (the same for every strategy)".to_string()
    } else {
        format!("Settings of {} ({} differ: see results.json)", first.strategy, differing.join(", "))
    };
    facts(out, &title, &items);
}

fn environment(out: &mut String, doc: &ResultsDoc) {
    let e = &doc.environment;
    let memory = if e.memory_bytes == 0 {
        "unknown".into()
    } else {
        format!("{:.1} GiB", e.memory_bytes as f64 / (1u64 << 30) as f64)
    };
    let items = [
        ("pkbench", e.pkbench_version.clone()),
        ("engine", format!("{} {}", e.engine, e.engine_version)),
        ("OS", format!("{} (kernel {})", e.os, e.kernel)),
        ("CPU", format!("{} ({} cores available)", e.cpu_model, e.cpu_cores)),
        ("memory", memory),
        ("data filesystem", e.data_filesystem.clone().unwrap_or_else(|| "unknown".into())),
        ("started", doc.started_at.clone()),
    ]
    .map(|(k, v)| (k.to_string(), v));
    facts(out, "Environment", &items);
}

/// The command line as a POSIX shell would accept it (arguments quoted where needed).
pub fn shell_line(args: &[String]) -> String {
    let safe = |c: char| c.is_ascii_alphanumeric() || "-_./:=,+@%".contains(c);
    args.iter()
        .map(
            |a| {
                if !a.is_empty() && a.chars().all(safe) { a.clone() } else { format!("'{}'", a.replace('\'', r"'\''")) }
            },
        )
        .collect::<Vec<_>>()
        .join(" ")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shell_quoting() {
        let args = ["pkbench", "run", "-s", "int,uuid4", "--out", "my dir", "it's", ""].map(String::from);
        assert_eq!(shell_line(&args), r"pkbench run -s int,uuid4 --out 'my dir' 'it'\''s' ''");
    }
}
