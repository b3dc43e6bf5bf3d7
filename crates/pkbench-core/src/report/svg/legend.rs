//! Chart legends: a swatch and a label per entry, flowing into rows across the chart's width.

use super::palette::SeriesStyle;
use super::{Anchor, Canvas, WIDTH, esc, num, text_width};
use std::fmt::Write;

/// Height of one legend row.
const ROW: f64 = 20.0;
/// Width of a swatch and the gap after it.
const SWATCH: f64 = 30.0;
/// Gap between entries.
const GAP: f64 = 18.0;

/// What a legend entry shows before its label.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Swatch {
    /// A short line in a series' colour and dash, with its marker.
    Series(SeriesStyle),
    /// A filled box (a segment of stacked bars).
    Fill(&'static str),
}

/// One legend entry.
#[derive(Clone, Debug, PartialEq)]
pub struct LegendItem {
    /// The label.
    pub label: String,
    /// The swatch.
    pub swatch: Swatch,
}

/// The x of each entry and the row it lands on.
fn layout(items: &[LegendItem]) -> Vec<(f64, usize)> {
    let (mut x, mut row) = (10.0, 0);
    items
        .iter()
        .map(|item| {
            let w = SWATCH + text_width(&item.label, 1.0);
            if x > 10.0 && x + w > WIDTH - 10.0 {
                (x, row) = (10.0, row + 1);
            }
            let at = (x, row);
            x += w + GAP;
            at
        })
        .collect()
}

/// Height the legend takes (0 without entries).
pub fn height(items: &[LegendItem]) -> f64 {
    layout(items).last().map_or(0.0, |(_, row)| (*row + 1) as f64 * ROW + 4.0)
}

/// Draws the legend with its first row's top at `top`.
pub fn draw(canvas: &mut Canvas, items: &[LegendItem], top: f64) {
    for (item, (x, row)) in items.iter().zip(layout(items)) {
        let y = top + row as f64 * ROW + ROW / 2.0;
        let mut m = String::new();
        match item.swatch {
            Swatch::Series(style) => {
                let dash = style.dash.map(|d| format!(" stroke-dasharray=\"{d}\"")).unwrap_or_default();
                let _ = write!(
                    m,
                    r#"<path d="M{},{}h22" stroke="{c}" stroke-width="2"{dash} fill="none"/><path d="{}" fill="{c}"/>"#,
                    num(x),
                    num(y),
                    style.marker.path(x + 11.0, y, 3.5),
                    c = style.colour,
                );
            }
            Swatch::Fill(colour) => {
                let _ =
                    write!(m, r#"<rect x="{}" y="{}" width="22" height="12" fill="{colour}"/>"#, num(x), num(y - 6.0));
            }
        }
        canvas.raw(&m);
        canvas.text(x + SWATCH, y + 4.0, Anchor::Start, "", &item.label, None);
    }
}

/// An SVG `<title>` (hover text) element.
pub fn tooltip(s: &str) -> String {
    format!("<title>{}</title>", esc(s))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn long_legends_wrap_into_rows() {
        let items: Vec<LegendItem> = (0..20)
            .map(|i| LegendItem { label: format!("strategy number {i}"), swatch: Swatch::Fill("#000") })
            .collect();
        let rows = layout(&items).iter().map(|(_, r)| *r).max().unwrap();
        assert!(rows >= 3);
        assert!(layout(&items).iter().all(|(x, _)| *x < WIDTH));
        assert_eq!(height(&[]), 0.0);
    }
}
