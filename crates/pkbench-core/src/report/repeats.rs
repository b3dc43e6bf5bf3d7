//! The terminal table of `--repeat`: median and 95% bootstrap interval of every figure.

use super::fmt;
use crate::metrics::{WIDE_SPREAD, repeated_figures};
use crate::results::ResultsDoc;
use comfy_table::{ContentArrangement, Table, presets::UTF8_FULL_CONDENSED};

/// The repeats table, or `None` when no case ran more than once.
pub fn render_repeats(doc: &ResultsDoc) -> Option<String> {
    let figures = repeated_figures(doc);
    if figures.is_empty() {
        return None;
    }
    let mut t = Table::new();
    t.load_style(UTF8_FULL_CONDENSED)
        .force_no_tty()
        .set_content_arrangement(ContentArrangement::Disabled)
        .set_header(["strategy", "figure", "runs", "median", "95% CI", "spread"]);
    let num = |v: f64| fmt::rate(Some(v));
    let mut wide = 0;
    for f in &figures {
        let spread = f.ci.relative_width().map_or("–".to_string(), |w| format!("±{:.1}%", w * 50.0));
        wide += usize::from(f.wide);
        t.add_row([
            f.strategy.clone(),
            f.figure.clone(),
            f.runs.to_string(),
            num(f.ci.median),
            format!("{} – {}", num(f.ci.low), num(f.ci.high)),
            if f.wide { format!("{spread} too wide to rank") } else { spread },
        ]);
    }
    let mut out = format!(
        "Repeated runs (median, 95% bootstrap CI; flagged when the CI spans more than {:.0}% of the median):\n",
        WIDE_SPREAD * 100.0
    );
    out.push_str(&t.to_string());
    out.push('\n');
    if wide > 0 {
        out.push_str(&format!(
            "{wide} figure(s) vary too much between runs to rank strategies by them: run more repeats.\n"
        ));
    }
    Some(out)
}
