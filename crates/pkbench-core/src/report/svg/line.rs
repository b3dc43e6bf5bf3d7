//! Line charts: one line per series over a shared x axis, with markers, a legend and labels at
//! the lines' ends.

use super::legend::{self, LegendItem, Swatch};
use super::palette::SeriesStyle;
use super::scale::{Scale, short_number};
use super::{Anchor, Canvas, Head, WIDTH, num, text_width};
use std::fmt::Write;

/// Height of the plot area.
const PLOT_HEIGHT: f64 = 300.0;
/// At most this many markers per line (long series get every n-th point, and the last).
const MAX_MARKERS: usize = 12;
/// Series beyond this count get no end labels (the legend alone names them).
const MAX_END_LABELS: usize = 10;

/// One line.
#[derive(Clone, Debug, PartialEq)]
pub struct LineSeries {
    /// Legend and end label.
    pub label: String,
    /// Colour, marker, dash.
    pub style: SeriesStyle,
    /// (x, y) points in x order.
    pub points: Vec<(f64, f64)>,
    /// An interval around the line: (low, high) at each point's x, drawn as a faint band
    /// (a prediction's 90% interval); empty for none.
    pub band: Vec<(f64, f64)>,
}

/// A line chart's content.
#[derive(Clone, Debug, PartialEq)]
pub struct LineChart {
    /// X axis title, with unit.
    pub x_label: String,
    /// Y axis title, with unit.
    pub y_label: String,
    /// The lines.
    pub series: Vec<LineSeries>,
}

/// Y axis scale of a rendering.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum YScale {
    /// Linear from zero.
    Linear,
    /// Logarithmic.
    Log,
}

/// Renders `chart` as one SVG element.
pub fn render(chart: &LineChart, y_scale: YScale, head: &Head<'_>, standalone: bool) -> String {
    let all = || chart.series.iter().flat_map(|s| s.points.iter());
    let max_x = all().map(|p| p.0).fold(0.0, f64::max);
    let band_max = chart.series.iter().flat_map(|s| s.band.iter()).map(|b| b.1).fold(0.0, f64::max);
    let max_y = all().map(|p| p.1).fold(band_max, f64::max);
    let min_y = all().map(|p| p.1).filter(|y| *y > 0.0).fold(f64::INFINITY, f64::min);
    let (xs, x_ticks) = Scale::linear_from_zero(max_x, 6);
    let (ys, y_ticks) = match y_scale {
        YScale::Linear => Scale::linear_from_zero(max_y, 5),
        YScale::Log => Scale::log(min_y, max_y),
    };

    let items: Vec<LegendItem> =
        chart.series.iter().map(|s| LegendItem { label: s.label.clone(), swatch: Swatch::Series(s.style) }).collect();
    let end_labels = chart.series.len() <= MAX_END_LABELS;
    let tick_w = y_ticks.iter().map(|t| text_width(&short_number(*t), 1.0)).fold(0.0, f64::max);
    let left = 10.0 + 18.0 + tick_w + 8.0;
    let right = if end_labels {
        WIDTH - 14.0 - chart.series.iter().map(|s| text_width(&s.label, 1.0) + 18.0).fold(0.0, f64::max)
    } else {
        WIDTH - 16.0
    };
    let legend_top = head.height() + 4.0;
    let top = legend_top + legend::height(&items) + 10.0;
    let bottom = top + PLOT_HEIGHT;
    let height = bottom + 46.0;

    let (mut c, _) = Canvas::new(height, head, standalone);
    legend::draw(&mut c, &items, legend_top);
    for t in &y_ticks {
        let y = ys.map(*t, bottom, top);
        c.line((left, y), (right, y), "grid", None);
        c.text(left - 6.0, y + 4.0, Anchor::End, "muted", &short_number(*t), None);
    }
    c.line((left, bottom), (right, bottom), "axis", None);
    for t in &x_ticks {
        let x = xs.map(*t, left, right);
        c.line((x, bottom), (x, bottom + 4.0), "axis", None);
        c.text(x, bottom + 17.0, Anchor::Middle, "muted", &short_number(*t), None);
    }
    c.text((left + right) / 2.0, bottom + 38.0, Anchor::Middle, "muted", &chart.x_label, None);
    c.vertical_text(16.0, (top + bottom) / 2.0, &chart.y_label);

    let to_px = |(x, y): (f64, f64)| (xs.map(x, left, right), ys.map(y, bottom, top));
    for band in chart.series.iter().map(|s| band_markup(s, to_px)).filter(|b| !b.is_empty()) {
        c.raw(&band);
    }
    for s in &chart.series {
        c.raw(&series_markup(s, to_px));
    }
    if end_labels {
        draw_end_labels(&mut c, chart, to_px, right, (top, bottom));
    }
    c.finish()
}

/// A series' band: along its highs, back along its lows, filled faintly in its colour.
fn band_markup(s: &LineSeries, to_px: impl Fn((f64, f64)) -> (f64, f64)) -> String {
    if s.band.len() != s.points.len() || s.band.len() < 2 {
        return String::new();
    }
    let highs = s.points.iter().zip(&s.band).map(|(p, b)| to_px((p.0, b.1)));
    let lows = s.points.iter().zip(&s.band).rev().map(|(p, b)| to_px((p.0, b.0)));
    let d: String = highs
        .chain(lows)
        .enumerate()
        .map(|(i, (x, y))| format!("{}{},{}", if i == 0 { 'M' } else { 'L' }, num(x), num(y)))
        .collect();
    format!(r#"<path class="band" d="{d}Z" fill="{}" fill-opacity="0.15" stroke="none"/>"#, s.style.colour)
}

/// A series' line and markers, grouped with its label as hover text.
fn series_markup(s: &LineSeries, to_px: impl Fn((f64, f64)) -> (f64, f64)) -> String {
    let px: Vec<(f64, f64)> = s.points.iter().map(|p| to_px(*p)).collect();
    let mut out = format!("<g>{}", legend::tooltip(&s.label));
    let dash = s.style.dash.map(|d| format!(" stroke-dasharray=\"{d}\"")).unwrap_or_default();
    if px.len() > 1 {
        let d: String = px
            .iter()
            .enumerate()
            .map(|(i, (x, y))| format!("{}{},{}", if i == 0 { 'M' } else { 'L' }, num(*x), num(*y)))
            .collect();
        let _ = write!(
            out,
            r#"<path d="{d}" fill="none" stroke="{}" stroke-width="2.2" stroke-linejoin="round"{dash}/>"#,
            s.style.colour
        );
    }
    let every = px.len().div_ceil(MAX_MARKERS).max(1);
    let markers: String = px
        .iter()
        .enumerate()
        .filter(|(i, _)| i % every == 0 || *i + 1 == px.len())
        .map(|(_, (x, y))| s.style.marker.path(*x, *y, 3.6))
        .collect();
    if !markers.is_empty() {
        let _ = write!(out, r#"<path d="{markers}" fill="{}"/>"#, s.style.colour);
    }
    out.push_str("</g>");
    out
}

/// Labels at the right of the plot, level with each line's last point and pushed apart so they
/// never overlap. A label that had to move gets a thin leader to its line's end; a line that
/// stops short of the right edge (an incomplete run) gets its marker beside the label instead.
fn draw_end_labels(
    c: &mut Canvas,
    chart: &LineChart,
    to_px: impl Fn((f64, f64)) -> (f64, f64),
    right: f64,
    (top, bottom): (f64, f64),
) {
    const SPACING: f64 = 14.0;
    let mut labels: Vec<(f64, (f64, f64), &LineSeries)> =
        chart.series.iter().filter_map(|s| s.points.last().map(|p| (to_px(*p).1, to_px(*p), s))).collect();
    labels.sort_by(|a, b| a.0.total_cmp(&b.0));
    for i in 1..labels.len() {
        labels[i].0 = labels[i].0.max(labels[i - 1].0 + SPACING);
    }
    // If the stack ran off the bottom, shift it up (never above the plot's top).
    if let Some(last) = labels.last().map(|l| l.0) {
        let overflow = (last - (bottom + 4.0)).max(0.0);
        for l in &mut labels {
            l.0 = (l.0 - overflow).max(top);
        }
    }
    for (y, (px, py), s) in labels {
        if px < right - 1.0 {
            c.raw(&format!(r#"<path d="{}" fill="{}"/>"#, s.style.marker.path(right + 10.0, y, 3.6), s.style.colour));
        } else if (y - py).abs() > 2.0 {
            c.raw(&format!(
                r#"<path d="M{},{}L{},{}" stroke="{}" stroke-width="1" fill="none"/>"#,
                num(px + 5.0),
                num(py),
                num(right + 12.0),
                num(y),
                s.style.colour
            ));
        }
        c.text(right + 18.0, y + 4.0, Anchor::Start, "", &s.label, None);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn chart() -> LineChart {
        let series = |label: &str, i, ys: &[f64]| LineSeries {
            label: label.into(),
            style: SeriesStyle::nth(i, 0),
            points: ys.iter().enumerate().map(|(n, y)| ((n + 1) as f64 * 1000.0, *y)).collect(),
            band: Vec::new(),
        };
        LineChart {
            x_label: "rows in table".into(),
            y_label: "ms per batch".into(),
            series: vec![series("int", 0, &[10.0, 10.0, 11.0]), series("uuid4", 1, &[10.0, 30.0, 60.0])],
        }
    }

    #[test]
    fn draws_one_line_per_series_with_legend_and_axis_titles() {
        let svg = render(&chart(), YScale::Linear, &Head { label: "t", ..Head::default() }, false);
        assert_eq!(svg.matches("stroke-width=\"2.2\"").count(), 2);
        assert!(svg.contains(">rows in table<") && svg.contains(">ms per batch<"));
        assert_eq!(svg.matches(">uuid4</text>").count(), 2, "legend and end label");
    }

    #[test]
    fn a_band_is_drawn_under_its_line_and_widens_the_axis() {
        let mut ch = chart();
        let plain = render(&ch, YScale::Linear, &Head { label: "t", ..Head::default() }, false);
        assert!(!plain.contains("class=\"band\""));
        ch.series[1].band = vec![(8.0, 12.0), (25.0, 40.0), (50.0, 90.0)];
        let svg = render(&ch, YScale::Linear, &Head { label: "t", ..Head::default() }, false);
        assert_eq!(svg.matches("class=\"band\"").count(), 1);
        assert!(svg.find("class=\"band\"").unwrap() < svg.find("stroke-width=\"2.2\"").unwrap(), "under the lines");
        assert!(
            svg.contains(">80<") || svg.contains(">90<") || svg.contains(">100<"),
            "the axis reaches the band's top"
        );
    }

    #[test]
    fn end_labels_never_overlap() {
        let mut ch = chart();
        ch.series[1].points = ch.series[0].points.clone();
        let svg = render(&ch, YScale::Log, &Head::default(), false);
        let ys: Vec<f64> = svg
            .split("<text x=\"")
            .skip(1)
            .filter(|t| t.contains(">int</text>") || t.contains(">uuid4</text>"))
            .filter_map(|t| t.split("y=\"").nth(1)?.split('"').next()?.parse().ok())
            .collect();
        assert_eq!(ys.len(), 4);
        assert!((ys[2] - ys[3]).abs() >= 13.9, "{ys:?}");
    }

    #[test]
    fn an_empty_chart_still_renders() {
        let svg = render(&LineChart { series: vec![], ..chart() }, YScale::Log, &Head::default(), false);
        assert!(svg.ends_with("</svg>"));
    }
}
