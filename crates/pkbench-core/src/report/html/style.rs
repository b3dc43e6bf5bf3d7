//! The report page's stylesheet: light and dark via `prefers-color-scheme`, black on white in
//! print, and the chart classes the SVG writer uses.

/// The page's CSS, inlined into `<style>`.
pub const CSS: &str = r#"
:root{color-scheme:light dark;--bg:#ffffff;--fg:#1f2328;--muted:#59636e;--line:#d1d9e0;--grid:#e3e6ea;--axis:#8c959f;--card:#f6f8fa;--warn:#9a6700}
@media (prefers-color-scheme:dark){:root{--bg:#0d1117;--fg:#e6edf3;--muted:#9198a1;--line:#3d444d;--grid:#2a3038;--axis:#6e7681;--card:#151b23;--warn:#d29922}}
*{box-sizing:border-box}
body{margin:0;background:var(--bg);color:var(--fg);font:15px/1.5 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif}
main{max-width:980px;margin:0 auto;padding:20px 20px 40px}
h1{font-size:1.55em;line-height:1.25;margin:.2em 0 .3em}
h2{font-size:1.15em;margin:0 0 .2em}
section>h2{margin-top:1.8em}
h3{font-size:1em;margin:1.2em 0 .4em}
.kicker{margin:0;color:var(--muted);font-size:.85em;letter-spacing:.06em;text-transform:uppercase}
.lede{margin:.2em 0;color:var(--muted)}
.warn{color:var(--warn);font-weight:600}
figure{margin:1.2em 0;padding:14px 16px 10px;border:1px solid var(--line);border-radius:8px;background:var(--card);break-inside:avoid}
.shows{margin:0 0 .5em}
.toggle{margin:0 .3em 0 0;vertical-align:middle}
.toggle+label{font-size:.85em;color:var(--muted);cursor:pointer}
.view{margin-top:.4em}
.view.log{display:none}
.toggle:checked~.view.lin{display:none}
.toggle:checked~.view.log{display:block}
svg.chart{display:block;width:100%;height:auto}
svg.chart text{fill:var(--fg)}
svg.chart .muted{fill:var(--muted)}
svg.chart .grid{stroke:var(--grid)}
svg.chart .axis{stroke:var(--axis)}
.scroll{overflow-x:auto}
table{border-collapse:collapse;font-size:.85em;font-variant-numeric:tabular-nums;margin:.3em 0}
th,td{padding:3px 9px;border-bottom:1px solid var(--line);text-align:right;white-space:nowrap}
th{font-weight:600;white-space:normal;vertical-align:bottom;min-width:4.5em}
th:first-child,td:first-child,th.text,td.text,th.spark{text-align:left}
td.spark{text-align:left;letter-spacing:-.05em}
tr.incomplete td{color:var(--warn)}
pre{margin:.3em 0;padding:8px 12px;background:var(--card);border:1px solid var(--line);border-radius:6px;white-space:pre-wrap;word-break:break-all;font-size:.85em}
dl.facts{display:grid;grid-template-columns:max-content 1fr;gap:2px 16px;margin:.3em 0;font-size:.9em}
dl.facts dt{color:var(--muted)}
dl.facts dd{margin:0}
footer{margin-top:2.5em;color:var(--muted);font-size:.8em}
@media print{
:root{--bg:#fff;--fg:#000;--muted:#444;--line:#bbb;--grid:#ddd;--axis:#666;--card:#fff;--warn:#000}
body{font-size:11pt}
main{max-width:none;padding:0}
.toggle,.toggle+label{display:none}
section{break-inside:avoid-page}
}
"#;
