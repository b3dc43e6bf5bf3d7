//! Horizontal bar charts: one row per series, in one or more side-by-side panels that share the
//! row labels (small multiples), with optional stacked segments and a reference line.

use super::legend::{self, LegendItem};
use super::palette::SeriesStyle;
use super::scale::Scale;
use super::{Anchor, Canvas, Head, WIDTH, num, text_width, wrap};
use std::fmt::Write;

const ROW: f64 = 24.0;
const BAR: f64 = 14.0;
const PANEL_GAP: f64 = 26.0;
const TITLE_LINE: f64 = 15.0;

/// One part of a bar.
#[derive(Clone, Debug, PartialEq)]
pub struct Segment {
    /// Length in the panel's unit.
    pub value: f64,
    /// Fill colour.
    pub colour: &'static str,
    /// What the part is (hover text; empty for single-part bars).
    pub name: std::borrow::Cow<'static, str>,
}

/// A row label, with the series' marker when the row is a series.
#[derive(Clone, Debug, PartialEq)]
pub struct BarRow {
    /// Label text.
    pub label: String,
    /// Series style, for a marker before the label.
    pub style: Option<SeriesStyle>,
}

/// One panel: a value (or stacked parts) per row on its own scale.
#[derive(Clone, Debug)]
pub struct Panel {
    /// Panel title, with unit.
    pub title: String,
    /// Per row: the bar's parts, or `None` where the value is not known.
    pub values: Vec<Option<Vec<Segment>>>,
    /// Formats a value for the bar's end label and hover text.
    pub format: fn(f64) -> String,
    /// Formats a tick value (shorter than `format`: `0`, `50%`, `5×`).
    pub tick: fn(f64) -> String,
    /// Fixed upper end of the scale (e.g. 1 for shares); otherwise a round number above the data.
    pub max: Option<f64>,
    /// A dashed reference line at this value (e.g. 1× for a ratio).
    pub reference: Option<f64>,
}

/// A bar chart's content.
#[derive(Clone, Debug)]
pub struct BarChart {
    /// Rows, top to bottom.
    pub rows: Vec<BarRow>,
    /// Panels, left to right.
    pub panels: Vec<Panel>,
    /// Legend (for stacked parts); may be empty.
    pub legend: Vec<LegendItem>,
}

/// Renders `chart` as one SVG element.
pub fn render(chart: &BarChart, head: &Head<'_>, standalone: bool) -> String {
    let label_w = chart.rows.iter().map(|r| text_width(&r.label, 1.0)).fold(0.0, f64::max);
    let left = 28.0 + label_w + 12.0;
    let k = chart.panels.len().max(1) as f64;
    let panel_w = (WIDTH - 10.0 - left - PANEL_GAP * (k - 1.0)) / k;
    let titles: Vec<Vec<String>> = chart.panels.iter().map(|p| wrap(&p.title, panel_w, 1.0)).collect();
    let title_lines = titles.iter().map(Vec::len).max().unwrap_or(1);

    let legend_top = head.height() + 4.0;
    let panels_top = legend_top + legend::height(&chart.legend) + 6.0;
    let top = panels_top + title_lines as f64 * TITLE_LINE + 8.0;
    let bottom = top + chart.rows.len() as f64 * ROW;
    let (mut c, _) = Canvas::new(bottom + 24.0, head, standalone);
    legend::draw(&mut c, &chart.legend, legend_top);

    for (i, row) in chart.rows.iter().enumerate() {
        let y = top + i as f64 * ROW + ROW / 2.0;
        if let Some(style) = row.style {
            c.raw(&format!(r#"<path d="{}" fill="{}"/>"#, style.marker.path(18.0, y, 3.6), style.colour));
        }
        c.text(28.0, y + 4.0, Anchor::Start, "", &row.label, None);
    }
    for (p, (panel, title)) in chart.panels.iter().zip(&titles).enumerate() {
        let x0 = left + p as f64 * (panel_w + PANEL_GAP);
        for (n, line) in title.iter().enumerate() {
            let y = panels_top + (n + 1) as f64 * TITLE_LINE - 3.0;
            c.text(x0, y, Anchor::Start, "", line, Some("font-weight=\"600\""));
        }
        draw_panel(&mut c, chart, panel, (x0, x0 + panel_w), (top, bottom));
    }
    c.finish()
}

/// One panel's grid, bars, value labels and ticks within `x0..x1`, `top..bottom`.
fn draw_panel(c: &mut Canvas, chart: &BarChart, panel: &Panel, (x0, x1): (f64, f64), (top, bottom): (f64, f64)) {
    let totals: Vec<Option<f64>> =
        panel.values.iter().map(|v| v.as_ref().map(|segs| segs.iter().map(|s| s.value).sum())).collect();
    let max = totals.iter().flatten().copied().fold(0.0, f64::max).max(panel.reference.unwrap_or(0.0));
    let value_w = totals.iter().flatten().map(|t| text_width(&(panel.format)(*t), 1.0)).fold(0.0, f64::max) + 8.0;
    let bar_end = (x1 - value_w).max(x0 + 20.0);
    let (scale, ticks) = match panel.max {
        Some(m) => (Scale::Linear { lo: 0.0, hi: m }, vec![0.0, m / 2.0, m]),
        None => Scale::linear_to(max, 3),
    };
    let x = |v: f64| scale.map(v, x0, bar_end);
    for t in &ticks {
        c.line((x(*t), top - 2.0), (x(*t), bottom), "grid", None);
        c.text(x(*t), bottom + 15.0, Anchor::Middle, "muted", &(panel.tick)(*t), None);
    }
    c.line((x0, top - 2.0), (x0, bottom), "axis", None);
    for (i, (values, total)) in panel.values.iter().zip(&totals).enumerate() {
        let y = top + i as f64 * ROW + (ROW - BAR) / 2.0;
        let row = chart.rows.get(i).map_or("", |r| r.label.as_str());
        let (Some(segments), Some(total)) = (values, total) else {
            c.text(x0 + 4.0, y + BAR - 3.0, Anchor::Start, "muted", "n/a", None);
            continue;
        };
        let mut at = 0.0;
        let mut m = String::new();
        for s in segments.iter().filter(|s| s.value > 0.0) {
            let (a, b) = (x(at), x(at + s.value));
            let hover = if s.name.is_empty() {
                format!("{row}: {}", (panel.format)(s.value))
            } else {
                format!("{row} · {}: {}", s.name, (panel.format)(s.value))
            };
            let _ = writeln!(
                m,
                r#"<rect x="{}" y="{}" width="{}" height="{BAR}" fill="{}">{}</rect>"#,
                num(a),
                num(y),
                num((b - a).max(0.5)),
                s.colour,
                legend::tooltip(&hover)
            );
            at += s.value;
        }
        c.raw(m.trim_end());
        c.text(x(*total) + 4.0, y + BAR - 3.0, Anchor::Start, "", &(panel.format)(*total), None);
    }
    if let Some(r) = panel.reference {
        c.line((x(r), top - 4.0), (x(r), bottom), "axis", Some("stroke-dasharray=\"4 3\" stroke-width=\"1.5\""));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn seg(value: f64) -> Option<Vec<Segment>> {
        Some(vec![Segment { value, colour: "#0072B2", name: "".into() }])
    }

    fn chart() -> BarChart {
        BarChart {
            rows: ["int", "uuid4"].map(|l| BarRow { label: l.into(), style: Some(SeriesStyle::nth(0, 0)) }).into(),
            panels: vec![Panel {
                title: "vs int".into(),
                values: vec![seg(1.0), seg(11.0)],
                format: |v| format!("{v:.1}×"),
                tick: |v| format!("{v}×"),
                max: None,
                reference: Some(1.0),
            }],
            legend: vec![],
        }
    }

    #[test]
    fn bars_scale_to_the_largest_value() {
        let svg = render(&chart(), &Head::default(), false);
        let widths: Vec<f64> = svg
            .split("<rect ")
            .skip(1)
            .filter_map(|r| r.split("width=\"").nth(1)?.split('"').next()?.parse().ok())
            .collect();
        assert_eq!(widths.len(), 2);
        assert!(widths[1] > 5.0 * widths[0], "{widths:?}");
        assert!(svg.contains(">11.0×<") && svg.contains("stroke-dasharray=\"4 3\""));
    }

    #[test]
    fn unknown_values_say_so() {
        let mut ch = chart();
        ch.panels[0].values[1] = None;
        assert!(render(&ch, &Head::default(), false).contains(">n/a<"));
    }
}
