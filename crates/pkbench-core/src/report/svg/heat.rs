//! Heat maps: rows of cells over a shared x axis (e.g. shards × batches), each cell shaded by a
//! share from 0 to 1, rows grouped (one group per strategy) with a gap between groups.

use super::{Anchor, Canvas, Head, WIDTH, esc, num, text_width};

const CELL_H: f64 = 16.0;
const GROUP_GAP: f64 = 10.0;

/// One row of cells.
#[derive(Clone, Debug, PartialEq)]
pub struct HeatRow {
    /// Label (e.g. `shard2`).
    pub label: String,
    /// Per column: the share 0–1, or `None` where nothing was read.
    pub cells: Vec<Option<f64>>,
}

/// Rows that belong together (one strategy's shards).
#[derive(Clone, Debug, PartialEq)]
pub struct HeatGroup {
    /// The group's name, drawn above its rows.
    pub name: String,
    /// Its rows, top to bottom.
    pub rows: Vec<HeatRow>,
}

/// A heat map's content.
#[derive(Clone, Debug, PartialEq)]
pub struct HeatMap {
    /// Groups, top to bottom.
    pub groups: Vec<HeatGroup>,
    /// Each column's name (`batch 3`, `batches 11–20`), for the axis and hover text.
    pub columns: Vec<String>,
    /// The colour of a full cell; lighter shares are drawn more transparent.
    pub colour: &'static str,
}

/// Renders `map` as one SVG element.
pub fn render(map: &HeatMap, head: &Head<'_>, standalone: bool) -> String {
    let columns = map.columns.len().max(1);
    let label_w = map.groups.iter().flat_map(|g| g.rows.iter().map(|r| text_width(&r.label, 1.0))).fold(0.0, f64::max);
    let left = 14.0 + label_w + 10.0;
    let cell_w = (WIDTH - 10.0 - left) / columns as f64;
    let top = head.height() + 8.0;
    let rows: usize = map.groups.iter().map(|g| g.rows.len()).sum();
    let body = map.groups.len() as f64 * (18.0 + GROUP_GAP) + rows as f64 * CELL_H;
    let (mut c, _) = Canvas::new(top + body + 30.0, head, standalone);
    let mut y = top;
    for group in &map.groups {
        y += 14.0;
        c.text(14.0, y, Anchor::Start, "", &group.name, Some("font-weight=\"600\""));
        y += 4.0;
        for row in &group.rows {
            c.text(14.0, y + CELL_H - 4.0, Anchor::Start, "muted", &row.label, None);
            for (i, cell) in row.cells.iter().enumerate() {
                let x = left + i as f64 * cell_w;
                let (opacity, what) = match cell {
                    Some(share) => (share.clamp(0.0, 1.0), format!("{:.1}%", share * 100.0)),
                    None => (0.0, "not read".to_string()),
                };
                c.raw(&format!(
                    r#"<rect x="{}" y="{}" width="{}" height="{}" fill="{}" fill-opacity="{}" class="grid" stroke-width="0.5"><title>{}</title></rect>"#,
                    num(x),
                    num(y),
                    num((cell_w - 1.0).max(1.0)),
                    num(CELL_H - 1.0),
                    map.colour,
                    num(0.04 + 0.96 * opacity),
                    esc(&format!("{} · {} · {}: {what}", group.name, row.label, map.columns.get(i).map_or("", String::as_str)))
                ));
            }
            y += CELL_H;
        }
        y += GROUP_GAP;
    }
    if let (Some(first), Some(last)) = (map.columns.first(), map.columns.last()) {
        c.text(left, y + 12.0, Anchor::Start, "muted", first, None);
        c.text(left + columns as f64 * cell_w, y + 12.0, Anchor::End, "muted", last, None);
    }
    c.finish()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_cell_is_a_shaded_rect_with_its_share() {
        let map = HeatMap {
            groups: vec![HeatGroup {
                name: "int".into(),
                rows: vec![
                    HeatRow { label: "shard0".into(), cells: vec![Some(1.0), Some(0.0)] },
                    HeatRow { label: "shard1".into(), cells: vec![Some(0.0), None] },
                ],
            }],
            columns: vec!["batch 1".into(), "batch 2".into()],
            colour: "#0072B2",
        };
        let svg = render(&map, &Head { label: "x", ..Head::default() }, false);
        assert_eq!(svg.matches("<rect").count(), 4);
        assert!(svg.contains(r#"fill-opacity="1""#) && svg.contains("int · shard0 · batch 1: 100.0%"));
        assert!(svg.contains("int · shard1 · batch 2: not read"));
        assert!(svg.starts_with("<svg") && svg.ends_with("</svg>"));
    }
}
