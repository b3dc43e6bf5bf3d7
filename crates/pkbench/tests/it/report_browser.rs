//! The report in a real browser: `pkbench run` writes `report.html`, headless Chromium opens it
//! from disk, and the test checks that it rendered — no console messages (the page has no
//! scripts, so any message is a failed load, a blocked fetch or an error), every chart's SVG
//! present with a non-zero size in each of its views, and screenshots (light and dark) that are
//! not blank and show the series colours. The screenshots are kept under the target folder
//! (`target/tmp/report-browser/`) and their paths printed.
//!
//! Chromium comes from Debian's `chromium` package, installed by `scripts/setup-test-deps`
//! (which the README's `./scripts/test` runs). If it is missing or cannot start, this test fails.

use assert_cmd::Command;
use serde_json::Value;
use std::io::Read;
use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::time::{Duration, Instant};

const CHROMIUM: &str = "/usr/bin/chromium";
const TIMEOUT: Duration = Duration::from_secs(60);
const WINDOW: (u32, u32) = (1200, 1800);

/// Where the screenshots are kept: `<target>/tmp/report-browser/`.
fn artifact_dir() -> PathBuf {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join("report-browser");
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// What one Chromium run printed.
struct Browser {
    stdout: String,
    stderr: String,
}

/// Runs headless Chromium on `page` with `extra` flags and a fresh profile; fails the test with
/// a clear message if Chromium is missing, cannot start, fails or hangs.
fn chromium(page: &Path, extra: &[String]) -> Browser {
    assert!(
        Path::new(CHROMIUM).exists(),
        "Chromium is not installed at {CHROMIUM}: run ./scripts/setup-test-deps as root (./scripts/test does) to install Debian's chromium package"
    );
    let profile = tempfile::tempdir().unwrap();
    let mut child = std::process::Command::new(CHROMIUM)
        .args([
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--no-first-run",
            "--disable-background-networking",
            "--disable-component-update",
            "--disable-sync",
            "--hide-scrollbars",
            "--enable-logging=stderr",
            "--v=0",
        ])
        .arg(format!("--user-data-dir={}", profile.path().display()))
        .args(extra)
        .arg(format!("file://{}", page.display()))
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap_or_else(|e| panic!("Chromium ({CHROMIUM}) could not start: {e}"));
    // Drain both pipes on threads so a chatty Chromium never blocks on a full pipe.
    let drain = |mut r: Box<dyn Read + Send>| {
        std::thread::spawn(move || {
            let mut s = String::new();
            let _ = r.read_to_string(&mut s);
            s
        })
    };
    let out = drain(Box::new(child.stdout.take().unwrap()));
    let err = drain(Box::new(child.stderr.take().unwrap()));
    let started = Instant::now();
    let status = loop {
        if let Some(status) = child.try_wait().unwrap() {
            break status;
        }
        if started.elapsed() > TIMEOUT {
            let _ = child.kill();
            let _ = child.wait();
            panic!("Chromium did not finish within {TIMEOUT:?}; stderr:\n{}", err.join().unwrap_or_default());
        }
        std::thread::sleep(Duration::from_millis(20));
    };
    let (stdout, stderr) = (out.join().unwrap(), err.join().unwrap());
    assert!(status.success(), "Chromium failed ({status}); stderr:\n{stderr}");
    Browser { stdout, stderr }
}

/// Console messages Chromium logged (`…:CONSOLE…] "message", source: …`).
fn console_messages(stderr: &str) -> Vec<&str> {
    stderr.lines().filter(|l| l.contains(":CONSOLE")).collect()
}

/// The report with a probe: it records errors and CSP violations, then every chart's SVG sizes
/// with each figure's log-scale switch off and on, into `<pre id="probe">`. Only the probe's own
/// inline script is allowed in; the report's policy is otherwise unchanged.
fn probe_page(html: &str) -> String {
    const LISTEN: &str = r#"<script>window.__errors=[];addEventListener('error',e=>__errors.push('error: '+e.message));document.addEventListener('securitypolicyviolation',e=>__errors.push('blocked by CSP: '+e.violatedDirective+' '+e.blockedURI));</script>"#;
    const MEASURE: &str = r#"<script>
const measure=()=>[...document.querySelectorAll('figure')].map(f=>({id:f.id,svgs:[...f.querySelectorAll('svg')].map(s=>{const r=s.getBoundingClientRect();return [r.width,r.height];})}));
const toggles=[...document.querySelectorAll('input.toggle')];
const off=measure();toggles.forEach(t=>{t.checked=true;});const on=measure();toggles.forEach(t=>{t.checked=false;});
const pre=document.createElement('pre');pre.id='probe';pre.hidden=true;
pre.textContent=JSON.stringify({off,on,toggles:toggles.length,svgs:document.querySelectorAll('svg').length,errors:__errors,bg:getComputedStyle(document.body).backgroundColor});
document.body.appendChild(pre);
</script>"#;
    assert!(html.contains("default-src 'none'"), "the report must forbid every fetch");
    html.replacen("default-src 'none'", "default-src 'none'; script-src 'unsafe-inline'", 1)
        .replacen("<head>", &format!("<head>{LISTEN}"), 1)
        .replacen("</body>", &format!("{MEASURE}</body>"), 1)
}

/// The probe's JSON from a dumped DOM.
fn probe_result(dom: &str) -> Value {
    let start = dom.find("<pre id=\"probe\"").expect("the probe script did not run (no <pre id=probe> in the DOM)");
    let rest = &dom[start..];
    let rest = &rest[rest.find('>').expect("unterminated probe tag") + 1..];
    let json = &rest[..rest.find("</pre>").expect("unterminated probe output")];
    let json = json.replace("&quot;", "\"").replace("&lt;", "<").replace("&gt;", ">").replace("&amp;", "&");
    serde_json::from_str(&json).unwrap_or_else(|e| panic!("probe output is not JSON ({e}): {json}"))
}

/// Decodes a screenshot, checks its size, and returns a sample of its pixels as RGB (every
/// third pixel: plenty for the statistics below, and quick in a debug build).
fn screenshot_pixels(path: &Path) -> Vec<[u8; 3]> {
    let file = std::io::BufReader::new(std::fs::File::open(path).unwrap_or_else(|e| panic!("{}: {e}", path.display())));
    let mut decoder = png::Decoder::new(file);
    decoder.set_transformations(png::Transformations::normalize_to_color8());
    let mut reader = decoder.read_info().unwrap();
    let mut buf = vec![0; reader.output_buffer_size().expect("screenshot too large")];
    let info = reader.next_frame(&mut buf).unwrap();
    assert_eq!((info.width, info.height), WINDOW, "screenshot size");
    let channels = info.color_type.samples();
    assert!(channels >= 3, "unexpected colour type {:?}", info.color_type);
    buf[..info.buffer_size()].chunks_exact(channels).step_by(3).map(|p| [p[0], p[1], p[2]]).collect()
}

/// Checks one screenshot: not blank, and the charts' series colours painted; returns the mean
/// luminance (0–255).
fn check_screenshot(path: &Path) -> f64 {
    const SERIES: [[i32; 3]; 3] = [[0x00, 0x72, 0xB2], [0xD5, 0x5E, 0x00], [0x00, 0x9E, 0x73]];
    let pixels = screenshot_pixels(path);
    let (mut sum, mut sum_sq, mut near) = (0.0, 0.0, [0usize; 3]);
    for p in &pixels {
        let [r, g, b] = p.map(i32::from);
        let lum = 0.2126 * f64::from(r) + 0.7152 * f64::from(g) + 0.0722 * f64::from(b);
        sum += lum;
        sum_sq += lum * lum;
        for (count, c) in near.iter_mut().zip(SERIES) {
            if (r - c[0]).abs() <= 24 && (g - c[1]).abs() <= 24 && (b - c[2]).abs() <= 24 {
                *count += 1;
            }
        }
    }
    let n = pixels.len() as f64;
    let (mean, sd) = (sum / n, (sum_sq / n - (sum / n).powi(2)).max(0.0).sqrt());
    assert!(sd > 12.0, "{} looks blank: luminance sd {sd:.1}", path.display());
    for (count, c) in near.iter().zip(SERIES) {
        assert!(
            *count > 100,
            "{}: only {count} sampled pixels of series colour {c:x?}: charts not drawn?",
            path.display()
        );
    }
    mean
}

#[test]
fn the_report_renders_in_chromium() {
    let dir = artifact_dir();
    let run = dir.join("run");
    let _ = std::fs::remove_dir_all(&run);
    let assert = Command::cargo_bin("pkbench")
        .unwrap()
        .args(["run", "-s", "int,uuid7,uuid4", "-n", "30k", "-b", "5k", "--cache-mb", "1", "--quiet", "--out"])
        .arg(&run)
        .assert()
        .success();
    let report = run.join("report.html");
    let stderr = String::from_utf8_lossy(&assert.get_output().stderr).into_owned();
    assert!(stderr.contains(&format!("Report: {}", report.display())), "run must print the report's path: {stderr}");
    let html = std::fs::read_to_string(&report).unwrap();
    let probe = dir.join("probe.html");
    std::fs::write(&probe, probe_page(&html)).unwrap();

    // Two browsers at once: the report as written, in light mode (the kept screenshot); and
    // the probe page in dark mode, whose DOM carries the measurements (the probe's output is
    // hidden, so its screenshot shows the report too).
    let (light, dark) = (dir.join("report.png"), dir.join("report-dark.png"));
    let size = format!("--window-size={},{}", WINDOW.0, WINDOW.1);
    let light_flags = [size.clone(), format!("--screenshot={}", light.display())];
    let dark_flags =
        [size.clone(), format!("--screenshot={}", dark.display()), "--force-dark-mode".into(), "--dump-dom".into()];
    let (light_run, dark_run) = std::thread::scope(|s| {
        let l = s.spawn(|| chromium(&report, &light_flags));
        let d = s.spawn(|| chromium(&probe, &dark_flags));
        (l.join().unwrap(), d.join().unwrap())
    });
    println!("screenshots: {} and {}", light.display(), dark.display());

    for (what, b) in [("light", &light_run), ("dark, with probe", &dark_run)] {
        let console = console_messages(&b.stderr);
        assert!(console.is_empty(), "console messages while rendering ({what}):\n{}", console.join("\n"));
    }
    let result = probe_result(&dark_run.stdout);
    assert_eq!(result["errors"], Value::Array(vec![]), "page errors: {result}");
    let (off, on) = (result["off"].as_array().unwrap(), result["on"].as_array().unwrap());
    let ids: Vec<&str> = off.iter().filter_map(|f| f["id"].as_str()).collect();
    assert_eq!(ids, ["batch-times", "slowdown", "size", "counters", "btrees"], "charts on the page");
    let mut measured = 0;
    for (f_off, f_on) in off.iter().zip(on) {
        let id = f_off["id"].as_str().unwrap_or_default();
        let (a, b) = (f_off["svgs"].as_array().unwrap(), f_on["svgs"].as_array().unwrap());
        assert!(!a.is_empty(), "{id}: no SVG");
        for (i, (x, y)) in a.iter().zip(b).enumerate() {
            let area = |v: &Value| v[0].as_f64().unwrap_or(0.0) * v[1].as_f64().unwrap_or(0.0);
            assert!(area(x) > 0.0 || area(y) > 0.0, "{id}: SVG {i} has no size in either view ({x} / {y})");
            measured += 1;
        }
        // A chart with a log view shows exactly one of its two SVGs at a time.
        if a.len() == 2 {
            let shown = |v: &[Value]| v.iter().filter(|s| s[0].as_f64().unwrap_or(0.0) > 0.0).count();
            assert_eq!((shown(a), shown(b)), (1, 1), "{id}: the log-scale switch must show one view at a time");
            assert!(a[0][0].as_f64().unwrap() > 600.0, "{id}: the linear view must fill the figure: {a:?}");
        }
    }
    assert_eq!(measured, result["svgs"].as_u64().unwrap(), "every SVG on the page is a measured chart");
    assert!(result["toggles"].as_u64().unwrap() >= 1, "the batch-time chart has a log-scale switch");

    let light_mean = check_screenshot(&light);
    let dark_mean = check_screenshot(&dark);
    assert!(light_mean > 180.0, "the light page should be light (mean luminance {light_mean:.0})");
    assert!(dark_mean < 90.0, "prefers-color-scheme: dark should give a dark page (mean luminance {dark_mean:.0})");
}

/// `pkbench advise`'s page: rendered by Chromium without errors, its verdict on the first screen
/// of a 1280×800 window, and the forecast's charts after it.
#[test]
fn the_advice_page_shows_its_verdict_without_scrolling() {
    let dir = artifact_dir();
    let out = dir.join("advise");
    let _ = std::fs::remove_dir_all(&out);
    Command::cargo_bin("pkbench")
        .unwrap()
        .args(["advise", "-s", "int,uuid4", "-n", "200k", "--calibrate-rows", "30k", "--quiet", "--out"])
        .arg(&out)
        .assert()
        .success();
    let html = std::fs::read_to_string(out.join("advice.html")).unwrap();
    const VERDICT: &str = r#"<script>
const h=document.querySelector('section.advice h1');const r=h.getBoundingClientRect();
const pre=document.createElement('pre');pre.id='probe';pre.hidden=true;
pre.textContent=JSON.stringify({top:r.top,bottom:r.bottom,height:innerHeight,text:h.textContent,svgs:document.querySelectorAll('figure svg').length,errors:__errors});
document.body.appendChild(pre);
</script>"#;
    let probe = dir.join("advice-probe.html");
    let page = probe_page(&html);
    let page = page.replacen(&page[page.rfind("<script>").unwrap()..page.rfind("</body>").unwrap()], VERDICT, 1);
    std::fs::write(&probe, page).unwrap();
    let shot = dir.join("advice.png");
    let flags = ["--window-size=1280,800".to_string(), format!("--screenshot={}", shot.display()), "--dump-dom".into()];
    let browser = chromium(&probe, &flags);
    assert!(console_messages(&browser.stderr).is_empty(), "{:?}", console_messages(&browser.stderr));
    let seen = probe_result(&browser.stdout);
    assert_eq!(seen["errors"], serde_json::json!([]), "{seen}");
    assert!(
        seen["text"].as_str().unwrap().starts_with("Use ")
            || seen["text"].as_str().unwrap().starts_with("No measurable"),
        "{seen}"
    );
    let (bottom, height) = (seen["bottom"].as_f64().unwrap(), seen["height"].as_f64().unwrap());
    assert!(seen["top"].as_f64().unwrap() >= 0.0 && bottom <= height, "the verdict is not on the first screen: {seen}");
    assert!(seen["svgs"].as_u64().unwrap() > 0, "the forecast's charts are missing: {seen}");
    println!("advice screenshot: {}", shot.display());
}
