//! The HTML report and its charts, from fixed results files in `tests/fixtures/` (a real small
//! SQLite run, an incomplete run, and a version-1 file without `wal_size_bytes`), so the output
//! is identical on every machine. The browser test in `crates/pkbench` checks how it renders.

use pkbench_core::report::{
    Format, KEY_CHART_FILE, ResultsWriter, Source, key_chart_svg, label_sources, load_results, render_html,
    render_markdown,
};
use pkbench_core::results::ResultsDoc;
use std::path::{Path, PathBuf};

fn fixture_path(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures").join(name)
}

fn fixture(name: &str) -> ResultsDoc {
    load_results(&fixture_path(name)).unwrap_or_else(|e| panic!("{name}: {e}"))
}

fn single(name: &str) -> Vec<Source> {
    vec![Source::single(fixture(name))]
}

/// Snapshot settings: the page names the pkbench version that wrote it.
fn settings() -> insta::Settings {
    let mut s = insta::Settings::clone_current();
    s.add_filter(r"pkbench \d+\.\d+\.\d+[^ <\x22]*", "pkbench [version]");
    s
}

/// The ids of the charts on a page, in order.
fn chart_ids(html: &str) -> Vec<&str> {
    html.split("<figure id=\"").skip(1).filter_map(|s| s.split('"').next()).collect()
}

/// Every element the SVG writer opens is closed, and nothing is fetched from anywhere.
fn assert_well_formed(markup: &str) {
    for tag in ["svg", "g", "text", "figure", "table", "section", "title"] {
        let open = markup.matches(&format!("<{tag}>")).count() + markup.matches(&format!("<{tag} ")).count();
        assert_eq!(open, markup.matches(&format!("</{tag}>")).count(), "unbalanced <{tag}>");
    }
    let without_ns = markup.replace("xmlns=\"http://www.w3.org/2000/svg\"", "");
    assert!(!without_ns.contains("http:") && !without_ns.contains("https:"), "the page refers to the network");
    assert!(!markup.contains("<script") && !markup.contains(" src="), "the page loads something");
}

#[test]
fn report_html_snapshot() {
    let html = render_html(&single("sqlite-small.json"));
    assert_well_formed(&html);
    assert_eq!(chart_ids(&html), ["batch-times", "slowdown", "size", "counters", "btrees"]);
    settings().bind(|| insta::assert_snapshot!(html));
}

#[test]
fn key_chart_svg_snapshot() {
    let svg = key_chart_svg(&single("sqlite-small.json")).expect("the run has batches");
    assert_well_formed(&svg);
    assert!(svg.contains("<style>") && svg.contains("prefers-color-scheme:dark"), "standalone files carry their style");
    insta::assert_snapshot!(svg);
}

#[test]
fn sentences_are_written_from_the_data() {
    let html = render_html(&single("sqlite-small.json"));
    for expected in [
        "uuid4&#39;s last batch took 7.17× as long as its first (80.1 → 574 ms); int&#39;s 1.13×.",
        "Per row, uuid4 took 10× as long as int; uuid7 1.77×.",
        "uuid4 took the most space: 31.3 MiB, 2.28× int&#39;s 13.7 MiB, 50% of it write-ahead log.",
        "missed the cache 1170 times (int: 0.0) and wrote 1066 pages (int: 14.8)",
    ] {
        assert!(html.contains(expected), "missing: {expected}");
    }
}

#[test]
fn an_incomplete_run_renders_and_says_so() {
    let html = render_html(&single("incomplete.json"));
    assert_well_formed(&html);
    assert!(html.contains("uuid4 (incomplete)"));
    assert!(html.contains("uuid4 stopped early: disk full"));
    assert_eq!(chart_ids(&html), ["batch-times", "slowdown", "size", "counters", "btrees"]);
    settings().bind(|| insta::assert_snapshot!(html));
}

#[test]
fn a_version_1_file_without_wal_size_still_renders() {
    let doc = fixture("v1-no-wal-size.json");
    assert!(doc.runs.iter().all(|r| r.wal_size_bytes.is_none()));
    let html = render_html(&[Source::single(doc)]);
    assert_well_formed(&html);
    assert!(html.contains("database file + WAL (not reported apart)"));
    assert!(!html.contains("of it write-ahead log"), "no WAL share is invented");
    assert_eq!(chart_ids(&html), ["batch-times", "slowdown", "size", "counters", "btrees"]);
}

#[test]
fn a_comparison_labels_every_run_by_its_file() {
    let paths = [fixture_path("sqlite-small.json"), fixture_path("incomplete.json")];
    let sources = label_sources(&paths, paths.iter().map(|p| load_results(p).unwrap()).collect());
    let html = render_html(&sources);
    assert_well_formed(&html);
    assert!(html.contains("uuid4 · sqlite-small") && html.contains("uuid4 · incomplete (incomplete)"));
    assert!(html.contains("stroke-dasharray=\"8 4\""), "the second file's lines are dashed");
    assert!(html.contains("Each file&#39;s runs are compared with that file&#39;s baseline."));
    insta::assert_snapshot!(key_chart_svg(&sources).unwrap());
}

#[test]
fn markdown_links_the_key_chart() {
    let md = render_markdown(&single("sqlite-small.json")).unwrap();
    assert!(md.contains(&format!("![Time per batch as the table grows]({KEY_CHART_FILE})")), "{md}");
    let paths = [fixture_path("sqlite-small.json"), fixture_path("v1-no-wal-size.json")];
    let sources = label_sources(&paths, paths.iter().map(|p| load_results(p).unwrap()).collect());
    let compared = render_markdown(&sources).unwrap();
    assert!(compared.starts_with("# pkbench comparison\n\n![Time per batch"));
    assert_eq!(compared.matches("\n## sqlite-small\n").count() + compared.matches("\n## v1-no-wal-size\n").count(), 2);
    assert_eq!(compared.matches("\n# ").count(), 0, "one top-level heading");
}

#[test]
fn a_file_without_runs_renders_a_page_without_charts() {
    let mut doc = fixture("sqlite-small.json");
    doc.runs.clear();
    let html = render_html(&[Source::single(doc.clone())]);
    assert_well_formed(&html);
    assert!(chart_ids(&html).is_empty() && html.contains("No measurements yet"));
    assert!(key_chart_svg(&[Source::single(doc)]).is_none());
}

#[test]
fn the_writer_puts_the_report_and_the_key_chart_beside_results_json() {
    let dir = tempfile::tempdir().unwrap();
    let writer = ResultsWriter::create(dir.path()).unwrap();
    let doc = fixture("sqlite-small.json");
    writer.write(&doc).unwrap();
    let html = std::fs::read_to_string(writer.html_path()).unwrap();
    assert_eq!(html, Format::Html.exporter().render(&doc).unwrap());
    let md = std::fs::read_to_string(dir.path().join("results.md")).unwrap();
    assert!(md.contains(KEY_CHART_FILE));
    assert!(std::fs::read_to_string(dir.path().join(KEY_CHART_FILE)).unwrap().starts_with("<svg"));
}
