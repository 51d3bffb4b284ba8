//! The HTML report in a real browser: headless Chromium loads the report of
//! corpus traces (a clean one, a single-worker fault, a multi-worker fault
//! directory, and a trace whose connector name is an HTML injection) and
//! the test checks, after the page's script ran, that nothing was logged to
//! the console, that the DOM holds exactly one finding marker per finding
//! and one lane per worker, and that a screenshot can be taken. On a real
//! capture (2.3.0, one connector's config updated while two others run,
//! KAFKA-8676) it checks the downtime bands (one per interruption of the
//! JSON document, one row per interrupted connector or task) and that a
//! click on a change shows its blast radius: exactly the other connectors'
//! interruptions the document lays at that change.
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
/// stderr).
fn chromium(browser: &Path, work: &Path, page: &Path, extra: &[String]) -> (String, String) {
    chromium_url(browser, work, &format!("file://{}", page.display()), extra)
}

/// Runs headless Chromium on `url` with `extra` flags; returns (stdout,
/// stderr). Each run gets a fresh profile; a hung browser is killed.
fn chromium_url(browser: &Path, work: &Path, url: &str, extra: &[String]) -> (String, String) {
    let profile = work.join("profile");
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
        .arg(url)
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
            panic!("chromium did not finish on {url} in 180 s");
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    let _ = std::fs::remove_dir_all(&profile);
    (
        std::fs::read_to_string(out).unwrap_or_default(),
        std::fs::read_to_string(err).unwrap_or_default(),
    )
}

/// The DOM of `url` after the page's script ran (`extra`: more flags),
/// checked: nothing logged to the console, the script finished, no
/// script error recorded, no injected script ran.
fn rendered_dom(browser: &Path, work: &Path, url: &str, extra: &[String]) -> String {
    let mut flags = vec!["--dump-dom".to_string()];
    flags.extend_from_slice(extra);
    let (dom, log) = chromium_url(browser, work, url, &flags);
    let console: Vec<&str> = log.lines().filter(|l| l.contains(":CONSOLE")).collect();
    assert!(
        console.is_empty(),
        "{url}: console messages:\n{}",
        console.join("\n")
    );
    let root = dom.split('>').find(|t| t.contains("<html")).unwrap_or("");
    assert!(
        root.contains("data-rendered=\"1\""),
        "{url}: the script did not finish: {root}"
    );
    assert!(!root.contains("data-js-errors"), "{url}: {root}");
    assert!(!root.contains("data-pwned"), "{url}: injected script ran");
    dom
}

/// The browser, or `None` (the test is skipped, with a message) unless
/// `HERDER_AUDIT_REQUIRE_BROWSER=1`, which makes a missing one a failure.
fn browser_or_skip() -> Option<PathBuf> {
    let found = browser();
    if found.is_none() {
        if std::env::var("HERDER_AUDIT_REQUIRE_BROWSER").as_deref() == Ok("1") {
            panic!(
                "HERDER_AUDIT_REQUIRE_BROWSER=1 but no Chromium was found (install Debian's `chromium` package or set HERDER_AUDIT_CHROMIUM)"
            );
        }
        eprintln!(
            "html_browser: SKIPPED: no Chromium found (install Debian's `chromium` package or set HERDER_AUDIT_CHROMIUM; HERDER_AUDIT_REQUIRE_BROWSER=1 makes this a failure)"
        );
    }
    found
}

/// The document `--format json` prints for `input`.
fn json_doc(input: &Path) -> serde_json::Value {
    let out = bin()
        .arg(input)
        .args(["--format", "json"])
        .output()
        .unwrap();
    serde_json::from_slice(&out.stdout).expect("json")
}

/// Writes the HTML report of `input` to `page`; returns the exit code.
fn write_page(input: &Path, page: &Path) -> Option<i32> {
    bin()
        .arg(input)
        .args(["--format", "html", "--output"])
        .arg(page)
        .status()
        .unwrap()
        .code()
}

/// (findings, workers) as `--format json` reports them.
fn counts(input: &Path) -> (usize, usize) {
    let doc = json_doc(input);
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
    let Some(browser) = browser_or_skip() else {
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
        let (findings, workers) = counts(input);
        total_findings += findings;
        let page = work.join(format!("{name}.html"));
        let status = write_page(input, &page);
        assert!(matches!(status, Some(0 | 1)), "{name}: exit {status:?}");
        let dom = rendered_dom(&browser, &work, &format!("file://{}", page.display()), &[]);
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

/// The start tags in `dom` that begin with `open` (e.g. `<rect class="band`).
fn tags<'a>(dom: &'a str, open: &str) -> Vec<&'a str> {
    dom.match_indices(open)
        .map(|(i, _)| &dom[i..i + dom[i..].find('>').unwrap_or(dom.len() - i)])
        .collect()
}

/// The value of attribute `name` in a start tag.
fn attr<'a>(tag: &'a str, name: &str) -> Option<&'a str> {
    let key = format!(" {name}=\"");
    let at = tag.find(&key)? + key.len();
    Some(&tag[at..at + tag[at..].find('"')?])
}

/// The `data-interruption` indices of the tags.
fn indices(tags: &[&str]) -> std::collections::BTreeSet<u64> {
    tags.iter()
        .filter_map(|t| attr(t, "data-interruption"))
        .map(|v| v.parse().unwrap())
        .collect()
}

#[test]
fn downtime_bands_and_a_change_blast_radius_in_headless_chromium() {
    let Some(browser) = browser_or_skip() else {
        return;
    };
    let work = scratch("html-downtime").canonicalize().unwrap();
    let input = Path::new("corpus/real-kafka/2.3.0/isolation");
    let doc = json_doc(input);
    let interruptions = doc["interruptions"].as_array().unwrap();
    let changes = doc["changes"].as_array().unwrap();
    let resources: std::collections::BTreeSet<String> = interruptions
        .iter()
        .map(|i| i["resource"]["id"].to_string())
        .collect();
    // The capture: a, b, c with two tasks each; a's config updated three
    // times, each stopping the other two connectors' tasks (KAFKA-8676).
    assert_eq!(
        (interruptions.len(), changes.len(), resources.len()),
        (47, 6, 9)
    );
    let page = work.join("isolation.html");
    assert_eq!(write_page(input, &page), Some(1));
    let size = "--window-size=1400,1000".to_string();
    let dump = |hash: &str| {
        let url = format!("file://{}{hash}", page.display());
        rendered_dom(&browser, &work, &url, std::slice::from_ref(&size))
    };

    // The whole log: a band per interruption, a row per resource, a
    // focusable marker per change; nothing selected.
    let dom = dump("");
    let bands = tags(&dom, "<rect class=\"band ");
    let all: std::collections::BTreeSet<u64> = (0..interruptions.len() as u64).collect();
    assert_eq!(indices(&bands), all, "bands");
    assert_eq!(bands.len(), interruptions.len(), "one band each");
    for t in &bands {
        let i = &interruptions[attr(t, "data-interruption")
            .unwrap()
            .parse::<usize>()
            .unwrap()];
        let still = i["still_down"].as_bool().unwrap();
        assert_eq!(attr(t, "class").unwrap().contains(" still"), still, "{t}");
    }
    let by_others = bands.iter().filter(|t| t.contains("c-other")).count();
    let expected = interruptions
        .iter()
        .filter(|i| i["cause"]["kind"] == "other-connector")
        .count();
    assert_eq!(by_others, expected);
    assert!(by_others >= 12, "{by_others}");
    assert_eq!(
        tags(&dom, "<text class=\"down-label\"").len(),
        resources.len(),
        "rows"
    );
    let markers = tags(&dom, "<path class=\"change-marker");
    assert_eq!(markers.len(), changes.len());
    assert!(
        markers
            .iter()
            .all(|m| attr(m, "tabindex") == Some("0") && attr(m, "role") == Some("button"))
    );
    assert!(!dom.contains(" hit\""), "nothing selected yet");

    // Change 4 (a's first config update), as a click on its marker: the
    // panel lists exactly the other connectors' interruptions it caused,
    // and those bands (with a's own) are highlighted.
    let ci = 3;
    let change = &changes[ci];
    assert_eq!(
        (change["connector"].as_str(), change["kind"].as_str()),
        (Some("a"), Some("config-update"))
    );
    let caused = |others: bool| -> std::collections::BTreeSet<u64> {
        interruptions
            .iter()
            .enumerate()
            .filter(|(_, i)| i["change"] == ci && (!others || i["by_others"] == true))
            .map(|(n, _)| n as u64)
            .collect()
    };
    assert_eq!(caused(true).len(), 4, "b-0, b-1, c-0, c-1");
    let dom = dump(&format!("#change-{}", ci + 1));
    let panel = &dom[dom.find("data-role=\"blast\"").expect("panel")..];
    let panel = &panel[..panel.find("data-role=\"detail\"").unwrap()];
    assert!(
        !panel[..60].contains("hidden"),
        "panel shown: {}",
        &panel[..60]
    );
    assert!(
        panel.contains("4 task(s) of 2 other connector(s) stopped"),
        "{panel}"
    );
    assert!(panel.contains("(KAFKA-8676)"));
    assert_eq!(indices(&tags(panel, "<tr data-interruption")), caused(true));
    for id in ["b-0", "b-1", "c-0", "c-1"] {
        assert!(panel.contains(&format!("<code>task {id}</code>")), "{id}");
    }
    let hit: Vec<&str> = tags(&dom, "<rect class=\"band ")
        .into_iter()
        .filter(|t| attr(t, "class").unwrap().ends_with(" hit"))
        .collect();
    assert_eq!(indices(&hit), caused(false));
    let marker = tags(&dom, "<path class=\"change-marker")
        .into_iter()
        .find(|m| attr(m, "data-change") == Some("3"))
        .unwrap();
    assert!(
        attr(marker, "class").unwrap().contains("selected"),
        "{marker}"
    );

    let shot = work.join("isolation.png");
    chromium_url(
        &browser,
        &work,
        &format!("file://{}#change-{}", page.display(), ci + 1),
        &[format!("--screenshot={}", shot.display()), size.clone()],
    );
    let png = std::fs::read(&shot).expect("screenshot");
    assert!(png.starts_with(b"\x89PNG\r\n\x1a\n"));
}
