//! Series styles that stay distinguishable without colour vision: the Okabe–Ito colours (Okabe
//! & Ito, "Color Universal Design", 2008), each paired with its own marker shape, and dash
//! patterns for runs from different files.

use super::num;

/// Okabe–Ito colours in the order series receive them. Black and yellow are left out (one
/// vanishes on a dark page, the other on a white one); a neutral grey takes the last place.
pub const COLOURS: [&str; 7] = ["#0072B2", "#D55E00", "#009E73", "#CC79A7", "#E69F00", "#56B4E9", "#8C8C8C"];

/// [`COLOURS`] at 40% opacity (8-digit hex), for the lighter part of a two-part bar.
const FADED: [&str; 7] = ["#0072B266", "#D55E0066", "#009E7366", "#CC79A766", "#E69F0066", "#56B4E966", "#8C8C8C66"];

/// The faded form of one of [`COLOURS`] (other colours are returned unchanged).
pub fn faded(colour: &'static str) -> &'static str {
    COLOURS.iter().position(|c| *c == colour).map_or(colour, |i| FADED[i])
}

/// Dash patterns, one per results file in a comparison (solid for the first).
const DASHES: [Option<&str>; 4] = [None, Some("8 4"), Some("2 3"), Some("10 3 2 3")];

/// Marker shapes drawn at data points and in legends.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Marker {
    /// A filled circle.
    Circle,
    /// A filled square.
    Square,
    /// A filled upward triangle.
    Triangle,
    /// A filled diamond.
    Diamond,
    /// A filled downward triangle.
    TriangleDown,
    /// A filled plus sign.
    Plus,
    /// A filled ×.
    Cross,
}

const MARKERS: [Marker; 7] = [
    Marker::Circle,
    Marker::Square,
    Marker::Triangle,
    Marker::Diamond,
    Marker::TriangleDown,
    Marker::Plus,
    Marker::Cross,
];

/// How one series is drawn.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SeriesStyle {
    /// Stroke and fill colour.
    pub colour: &'static str,
    /// Marker shape.
    pub marker: Marker,
    /// `stroke-dasharray`, or `None` for a solid line.
    pub dash: Option<&'static str>,
}

impl SeriesStyle {
    /// The style of the `series`-th distinct series (e.g. strategy) from the `source`-th file.
    /// Colour and marker pairs are unique for the first 49 series.
    pub fn nth(series: usize, source: usize) -> Self {
        SeriesStyle {
            colour: COLOURS[series % COLOURS.len()],
            marker: MARKERS[(series + series / MARKERS.len()) % MARKERS.len()],
            dash: DASHES[source % DASHES.len()],
        }
    }
}

impl Marker {
    /// SVG path data of this marker centred on (x, y) with radius about `r`.
    pub fn path(self, x: f64, y: f64, r: f64) -> String {
        let poly = |pts: &[(f64, f64)]| {
            let mut d = String::new();
            for (i, (px, py)) in pts.iter().enumerate() {
                d.push(if i == 0 { 'M' } else { 'L' });
                d.push_str(&format!("{},{}", num(x + px * r), num(y + py * r)));
            }
            d.push('Z');
            d
        };
        match self {
            Marker::Circle => format!(
                "M{},{}a{r},{r} 0 1 0 {d},0a{r},{r} 0 1 0 -{d},0Z",
                num(x - r),
                num(y),
                r = num(r),
                d = num(2.0 * r)
            ),
            Marker::Square => poly(&[(-0.9, -0.9), (0.9, -0.9), (0.9, 0.9), (-0.9, 0.9)]),
            Marker::Triangle => poly(&[(0.0, -1.25), (1.15, 0.85), (-1.15, 0.85)]),
            Marker::TriangleDown => poly(&[(0.0, 1.25), (1.15, -0.85), (-1.15, -0.85)]),
            Marker::Diamond => poly(&[(0.0, -1.3), (1.1, 0.0), (0.0, 1.3), (-1.1, 0.0)]),
            Marker::Plus => poly(&plus(0.0)),
            Marker::Cross => poly(&plus(std::f64::consts::FRAC_PI_4)),
        }
    }
}

/// A plus sign's 12 corners, rotated by `angle`.
fn plus(angle: f64) -> [(f64, f64); 12] {
    let (a, w) = (1.25, 0.42);
    let base =
        [(-w, -a), (w, -a), (w, -w), (a, -w), (a, w), (w, w), (w, a), (-w, a), (-w, w), (-a, w), (-a, -w), (-w, -w)];
    base.map(|(px, py)| (px * angle.cos() - py * angle.sin(), px * angle.sin() + py * angle.cos()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_first_49_styles_are_distinct() {
        let styles: Vec<_> = (0..49).map(|i| SeriesStyle::nth(i, 0)).map(|s| (s.colour, s.marker)).collect();
        for (i, a) in styles.iter().enumerate() {
            assert!(!styles[i + 1..].contains(a), "style {i} repeats");
        }
    }

    #[test]
    fn sources_differ_by_dash() {
        assert_eq!(SeriesStyle::nth(0, 0).dash, None);
        assert_ne!(SeriesStyle::nth(0, 1).dash, SeriesStyle::nth(0, 2).dash);
        assert_eq!(SeriesStyle::nth(3, 1).colour, SeriesStyle::nth(3, 0).colour);
    }

    #[test]
    fn markers_are_closed_paths() {
        for m in MARKERS {
            let d = m.path(10.0, 10.0, 4.0);
            assert!(d.starts_with('M') && d.ends_with('Z'), "{m:?}: {d}");
        }
    }
}
