//! The HTML report in a real browser: headless Chromium loads the report of
//! corpus traces (a clean one, a single-worker fault, a multi-worker fault
//! directory, and a trace whose connector name is an HTML injection) and
//! the test checks, after the page's script ran, that nothing was logged to
//! the console, that the DOM holds exactly one finding marker per finding
//! and one lane per worker, and that a screenshot can be taken.
//!
//! Without a browser (Debian's `chromium`; or `HERDER_AUDIT_CHROMIUM=path`)
//! the test is skipped with a message, unless
//! `HERDER_AUDIT_REQUIRE_BROWSER=1`, which makes a missing browser a failure.

mod support;

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};
use support::{bin, scratch};

fn browser() -> Option<PathBuf> {
    if let Some(p) = std::env::var_os("HERDER_AUDIT_CHROMIUM") {
        return Some(PathBuf::from(p)).filter(|p| p.is_file());
    }
    let path = std::env::var_os("PATH")?;
    for dir in std::env::split_paths(&path) {
        for name in [
            "chromium",
            "chromium-browser",
            "google-chrome",
            "google-chrome-stable",
        ] {
            let p = dir.join(name);
            if p.is_file() {
                return Some(p);
            }
        }
    }
    None
}

/// Runs headless Chromium on `page` with `extra` flags; returns (stdout,
/// stderr). Each run gets a fresh profile; a hung browser is killed.
fn chromium(browser: &Path, work: &Path, page: &Path, extra: &[String]) -> (String, String) {
    let profile = work.join(format!(
        "profile-{}",
        page.file_stem().unwrap().to_string_lossy()
    ));
    let _ = std::fs::remove_dir_all(&profile);
    let out = work.join("chromium.out");
    let err = work.join("chromium.err");
    let mut child = Command::new(browser)
        .args([
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--disable-background-networking",
            "--disable-component-update",
            "--disable-sync",
            "--no-first-run",
            "--hide-scrollbars",
            "--enable-logging=stderr",
            "--v=0",
            "--virtual-time-budget=10000",
        ])
        .arg(format!("--user-data-dir={}", profile.display()))
        .args(extra)
        .arg(format!("file://{}", page.display()))
        .stdin(Stdio::null())
        .stdout(std::fs::File::create(&out).unwrap())
        .stderr(std::fs::File::create(&err).unwrap())
        .spawn()
        .expect("chromium starts");
    let started = Instant::now();
    loop {
        if child.try_wait().expect("wait").is_some() {
            break;
        }
        if started.elapsed() > Duration::from_secs(180) {
            let _ = child.kill();
            let _ = child.wait();
            panic!("chromium did not finish on {} in 180 s", page.display());
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    let _ = std::fs::remove_dir_all(&profile);
    (
        std::fs::read_to_string(out).unwrap_or_default(),
        std::fs::read_to_string(err).unwrap_or_default(),
    )
}

/// (findings, workers) as `--format json` reports them.
fn counts(inputs: &[&Path]) -> (usize, usize) {
    let out = bin()
        .args(inputs)
        .args(["--format", "json"])
        .output()
        .unwrap();
    let doc: serde_json::Value = serde_json::from_slice(&out.stdout).expect("json");
    (
        doc["findings"].as_array().unwrap().len(),
        doc["workers"].as_array().unwrap().len(),
    )
}

fn occurrences(hay: &str, needle: &str) -> usize {
    hay.matches(needle).count()
}

/// A copy of a faulty trace whose connector is named with markup that
/// would run if the page embedded it unescaped.
fn hostile_trace(work: &Path) -> PathBuf {
    let text = std::fs::read_to_string("corpus/fault-kafka-8676-2.3.0.log").unwrap();
    let evil = "evil</script><script>document.documentElement.setAttribute('data-pwned','1')</script><!---sink";
    let p = work.join("hostile.log");
    std::fs::write(&p, text.replace("clicks-sink", evil)).unwrap();
    p
}

#[test]
fn html_reports_render_in_headless_chromium() {
    let Some(browser) = browser() else {
        if std::env::var("HERDER_AUDIT_REQUIRE_BROWSER").as_deref() == Ok("1") {
            panic!(
                "HERDER_AUDIT_REQUIRE_BROWSER=1 but no Chromium was found (install Debian's `chromium` package or set HERDER_AUDIT_CHROMIUM)"
            );
        }
        eprintln!(
            "html_browser: SKIPPED: no Chromium found (install Debian's `chromium` package or set HERDER_AUDIT_CHROMIUM; HERDER_AUDIT_REQUIRE_BROWSER=1 makes this a failure)"
        );
        return;
    };
    let work = scratch("html-browser").canonicalize().unwrap();
    let hostile = hostile_trace(&work);
    let cases: Vec<(&str, PathBuf)> = vec![
        (
            "clean",
            PathBuf::from("corpus/clean-coop-3.6-worker-joins.log"),
        ),
        (
            "single-fault",
            PathBuf::from("corpus/fault-kafka-8676-2.3.0.log"),
        ),
        (
            "multi-fault",
            PathBuf::from("corpus/multi-restart-moved-task"),
        ),
        ("hostile", hostile),
    ];
    let mut total_findings = 0;
    for (name, input) in &cases {
        let (findings, workers) = counts(&[input]);
        total_findings += findings;
        let page = work.join(format!("{name}.html"));
        let status = bin()
            .arg(input)
            .args(["--format", "html", "--output"])
            .arg(&page)
            .status()
            .unwrap();
        assert!(
            matches!(status.code(), Some(0 | 1)),
            "{name}: exit {status:?}"
        );
        let (dom, log) = chromium(&browser, &work, &page, &["--dump-dom".to_string()]);
        let console: Vec<&str> = log.lines().filter(|l| l.contains(":CONSOLE")).collect();
        assert!(
            console.is_empty(),
            "{name}: console messages:\n{}",
            console.join("\n")
        );
        let root = dom.split('>').find(|t| t.contains("<html")).unwrap_or("");
        assert!(
            root.contains("data-rendered=\"1\""),
            "{name}: the script did not finish: {root}"
        );
        assert!(!root.contains("data-js-errors"), "{name}: {root}");
        assert!(!root.contains("data-pwned"), "{name}: injected script ran");
        assert_eq!(
            occurrences(&dom, "class=\"finding-marker"),
            findings,
            "{name}: finding markers"
        );
        assert_eq!(
            occurrences(&dom, "<g class=\"lane\"") + occurrences(&dom, "<g class=\"lane "),
            workers,
            "{name}: lanes"
        );
        let shot = work.join(format!("{name}.png"));
        chromium(
            &browser,
            &work,
            &page,
            &[
                format!("--screenshot={}", shot.display()),
                "--window-size=1400,1000".to_string(),
            ],
        );
        let png = std::fs::read(&shot).unwrap_or_else(|e| panic!("{name}: screenshot: {e}"));
        assert!(png.starts_with(b"\x89PNG\r\n\x1a\n"), "{name}: not a PNG");
        assert!(
            png.len() > 20_000,
            "{name}: screenshot of {} bytes",
            png.len()
        );
    }
    assert!(total_findings >= 6, "{total_findings}");
}

/// `--output` takes any format; a file that cannot be created is named.
#[test]
fn output_goes_to_the_named_file() {
    let work = scratch("html-output");
    let trace = "corpus/fault-kafka-8676-2.3.0.log";
    let stdout = bin().args([trace, "--format", "json"]).output().unwrap();
    let file = work.join("out.json");
    let run = bin()
        .args([trace, "--format", "json", "--output"])
        .arg(&file)
        .output()
        .unwrap();
    assert_eq!(run.status.code(), Some(1));
    assert!(run.stdout.is_empty());
    assert_eq!(std::fs::read(&file).unwrap(), stdout.stdout);
    let page = bin()
        .args([trace, "--format", "html", "-o"])
        .arg(work.join("out.html"))
        .status()
        .unwrap();
    assert_eq!(page.code(), Some(1));
    let html = std::fs::read_to_string(work.join("out.html")).unwrap();
    assert!(html.starts_with("<!DOCTYPE html>"));
    assert!(html.trim_end().ends_with("</html>"));
    let missing = work.join("no/such/dir/out.html");
    let bad = bin()
        .args([trace, "--format", "html", "--output"])
        .arg(&missing)
        .output()
        .unwrap();
    assert_eq!(bad.status.code(), Some(2));
    let err = String::from_utf8_lossy(&bad.stderr);
    assert!(
        err.contains(&missing.display().to_string()) && err.contains("no such file or directory"),
        "{err}"
    );
}
