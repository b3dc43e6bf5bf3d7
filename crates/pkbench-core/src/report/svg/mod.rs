//! A small SVG writer for the report's charts. It needs no fonts or system libraries, and a chart
//! is a few kilobytes of text that diffs well in snapshot tests.
//!
//! Colours of text, grid and axes come from CSS classes (`muted`, `grid`, `axis`), so the page's
//! stylesheet (or, for a standalone file, [`STANDALONE_STYLE`]) adapts them to light and dark
//! mode; series colours are fixed (see [`palette`]).

pub mod bar;
pub mod heat;
pub mod legend;
pub mod line;
pub mod palette;
pub mod scale;

use std::fmt::Write;

/// Width of every chart, in SVG units (it scales to its container).
pub const WIDTH: f64 = 760.0;
/// Font size of ordinary chart text.
const FONT_SIZE: f64 = 12.0;
/// A generous average glyph width at [`FONT_SIZE`], for layout without font metrics.
const CHAR_WIDTH: f64 = 6.8;

/// Style embedded in standalone SVG files (inline SVG uses the page's stylesheet instead).
pub const STANDALONE_STYLE: &str = "text{fill:#1f2328}.muted{fill:#59636e}.grid{stroke:#e3e6ea}\
.axis{stroke:#8c959f}@media (prefers-color-scheme:dark){text{fill:#e6edf3}.muted{fill:#9198a1}\
.grid{stroke:#30363d}.axis{stroke:#6e7681}}";

/// Text above the plot: a title and a subtitle, shown only in standalone files (a page has its
/// own headings), and an accessible label always.
#[derive(Clone, Debug, Default)]
pub struct Head<'a> {
    /// Accessible name of the chart (`aria-label`).
    pub label: &'a str,
    /// Visible title, for standalone files.
    pub title: Option<&'a str>,
    /// Visible subtitle under the title, for standalone files.
    pub subtitle: Option<&'a str>,
}

impl Head<'_> {
    /// Height the visible title and subtitle take.
    fn height(&self) -> f64 {
        let title = if self.title.is_some() { 26.0 } else { 0.0 };
        let subtitle = self.subtitle.map_or(0.0, |s| 18.0 * wrap(s, WIDTH - 20.0, 0.95).len() as f64);
        title + subtitle + if self.title.is_some() || self.subtitle.is_some() { 8.0 } else { 0.0 }
    }
}

/// Escapes text for SVG/HTML content and attribute values.
pub fn esc(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            c => out.push(c),
        }
    }
    out
}

/// A coordinate with at most one decimal, without a trailing `.0` (keeps files small).
pub fn num(v: f64) -> String {
    let v = if v.is_finite() { (v * 10.0).round() / 10.0 } else { 0.0 };
    let s = format!("{v:.1}");
    let s = s.strip_suffix(".0").unwrap_or(&s);
    if s == "-0" { "0".into() } else { s.to_string() }
}

/// Estimated width of `s` at the chart font size times `scale`.
pub fn text_width(s: &str, scale: f64) -> f64 {
    s.chars().count() as f64 * CHAR_WIDTH * scale
}

/// Splits `s` into lines no wider than `width` (by estimate), at spaces.
pub fn wrap(s: &str, width: f64, scale: f64) -> Vec<String> {
    let mut lines: Vec<String> = Vec::new();
    for word in s.split_whitespace() {
        match lines.last_mut() {
            Some(line) if text_width(line, scale) + text_width(word, scale) + CHAR_WIDTH < width => {
                line.push(' ');
                line.push_str(word);
            }
            _ => lines.push(word.to_string()),
        }
    }
    lines
}

/// Horizontal text anchor.
#[derive(Clone, Copy, Debug)]
pub enum Anchor {
    /// Text starts at x.
    Start,
    /// Text is centred on x.
    Middle,
    /// Text ends at x.
    End,
}

/// An SVG document being written: the root element is opened by [`Canvas::new`] and closed by
/// [`Canvas::finish`].
pub struct Canvas {
    out: String,
}

impl Canvas {
    /// Opens an SVG of `height` (width is [`WIDTH`]) with the head's text drawn at the top.
    /// Returns the canvas and the y where the head's text ends.
    pub fn new(height: f64, head: &Head<'_>, standalone: bool) -> (Self, f64) {
        let mut out = String::new();
        let _ = write!(
            out,
            r#"<svg xmlns="http://www.w3.org/2000/svg" class="chart" viewBox="0 0 {w} {h}" width="{w}" height="{h}" role="img" aria-label="{label}" font-family="system-ui,-apple-system,'Segoe UI',Roboto,sans-serif" font-size="{FONT_SIZE}">"#,
            w = num(WIDTH),
            h = num(height),
            label = esc(head.label),
        );
        out.push('\n');
        if standalone {
            let _ = writeln!(out, "<style>{STANDALONE_STYLE}</style>");
        }
        let mut canvas = Canvas { out };
        let mut y = 0.0;
        if let Some(title) = head.title {
            y += 20.0;
            canvas.text(10.0, y, Anchor::Start, "", title, Some("font-size=\"16\" font-weight=\"600\""));
            y += 6.0;
        }
        if let Some(subtitle) = head.subtitle {
            for line in wrap(subtitle, WIDTH - 20.0, 0.95) {
                y += 18.0;
                canvas.text(10.0, y, Anchor::Start, "muted", &line, Some("font-size=\"12.5\""));
            }
        }
        (canvas, head.height())
    }

    /// Appends raw SVG markup (one line per call keeps diffs of charts readable).
    pub fn raw(&mut self, markup: &str) {
        self.out.push_str(markup);
        self.out.push('\n');
    }

    /// A text element; `extra` is additional attributes.
    pub fn text(&mut self, x: f64, y: f64, anchor: Anchor, class: &str, s: &str, extra: Option<&str>) {
        let anchor = match anchor {
            Anchor::Start => "",
            Anchor::Middle => " text-anchor=\"middle\"",
            Anchor::End => " text-anchor=\"end\"",
        };
        let class = if class.is_empty() { String::new() } else { format!(" class=\"{class}\"") };
        let extra = extra.map(|e| format!(" {e}")).unwrap_or_default();
        let _ = writeln!(self.out, r#"<text x="{}" y="{}"{anchor}{class}{extra}>{}</text>"#, num(x), num(y), esc(s));
    }

    /// A straight line with a CSS class and optional extra attributes.
    pub fn line(&mut self, (x1, y1): (f64, f64), (x2, y2): (f64, f64), class: &str, extra: Option<&str>) {
        let extra = extra.map(|e| format!(" {e}")).unwrap_or_default();
        let _ = writeln!(
            self.out,
            r#"<line x1="{}" y1="{}" x2="{}" y2="{}" class="{class}"{extra}/>"#,
            num(x1),
            num(y1),
            num(x2),
            num(y2)
        );
    }

    /// A text label rotated a quarter turn anticlockwise, centred on (x, y) (a y-axis title).
    pub fn vertical_text(&mut self, x: f64, y: f64, s: &str) {
        let _ = writeln!(
            self.out,
            r#"<text transform="translate({},{}) rotate(-90)" text-anchor="middle" class="muted">{}</text>"#,
            num(x),
            num(y),
            esc(s)
        );
    }

    /// Closes the root element and returns the markup.
    pub fn finish(mut self) -> String {
        self.out.push_str("</svg>");
        self.out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numbers_are_short_and_escaping_is_complete() {
        assert_eq!(num(12.0), "12");
        assert_eq!(num(12.345), "12.3");
        assert_eq!(num(-0.01), "0");
        assert_eq!(num(f64::NAN), "0");
        assert_eq!(esc(r#"<a & "b" 'c'>"#), "&lt;a &amp; &quot;b&quot; &#39;c&#39;&gt;");
    }

    #[test]
    fn wrapping_keeps_every_word_and_respects_the_width() {
        let s = "uuid4's last batch took 5.56× its first (310 → 1725 ms); int's 0.92×. Others: uuid7 1.04×";
        let lines = wrap(s, 200.0, 1.0);
        assert!(lines.len() > 1);
        assert_eq!(lines.join(" "), s);
        assert!(lines.iter().all(|l| text_width(l, 1.0) < 200.0 || !l.contains(' ')));
    }

    #[test]
    fn a_canvas_is_one_closed_svg_element() {
        let head = Head { label: "t", title: Some("Title"), subtitle: Some("sub") };
        let (mut c, top) = Canvas::new(100.0, &head, true);
        assert!(top > 40.0);
        c.line((0.0, 0.0), (1.0, 1.0), "grid", None);
        let svg = c.finish();
        assert!(svg.starts_with("<svg ") && svg.ends_with("</svg>"));
        assert_eq!(svg.matches("<svg").count(), 1);
        assert!(svg.contains("<style>"));
    }
}
