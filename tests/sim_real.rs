//! The simulator against real Kafka: for each simulated version whose exact
//! release has real captures in `corpus/real-kafka/<release>/`, the lines
//! herder-audit parses into events are reduced to message templates (names,
//! numbers, ids, URLs and lists masked) with their level and logger, and the
//! simulator's output of comparable scenarios (the release's default
//! protocol, its shipped layout, failed starts and every event kind) must
//! print each kind of event the real workers printed with one of the real
//! templates, at the real level, from the real logger. Templates of event
//! kinds no real capture of the release shows are listed, not judged (the
//! real scenarios do not exercise everything the simulator does). A line
//! whose kind and logger the release's captures never show together (4.4.0
//! ran our counting test connector as both source and sink: no sink task
//! lines) is judged against the nearest release of its line that shows them
//! (4.0.0 for 4.4.0).

mod support;
use flate2::read::GzDecoder;
use herder_audit::testing::parse::{Envelope, Level, envelope};
use herder_audit::testing::parse::{Event, LoggerKind, parse_message};
use herder_audit::testing::sim::{self, Params, Proto, Version};
use std::collections::{BTreeMap, BTreeSet};
use std::io::{Read, Write};
use std::path::{Path, PathBuf};
use support::SharedBuf as Buf;

/// One line as compared: level, logger (simple class name), template.
type Shape = (String, String, String);
/// Event kind -> the shapes that printed it.
type Shapes = BTreeMap<String, BTreeSet<Shape>>;

fn real_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("corpus/real-kafka")
}

fn files_under(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(rd) = std::fs::read_dir(dir) else {
        return;
    };
    let mut entries: Vec<PathBuf> = rd.filter_map(|e| e.ok().map(|e| e.path())).collect();
    entries.sort();
    for p in entries {
        if p.is_dir() {
            files_under(&p, out);
        } else if p
            .parent()
            .and_then(|d| d.file_name())
            .and_then(|n| n.to_str())
            .is_some_and(|n| n.starts_with('w'))
        {
            out.push(p);
        }
    }
}

fn read_text(p: &Path) -> String {
    let bytes = std::fs::read(p).unwrap_or_else(|e| panic!("{}: {e}", p.display()));
    if p.extension().is_some_and(|e| e == "gz") {
        let mut s = Vec::new();
        GzDecoder::new(&bytes[..])
            .read_to_end(&mut s)
            .unwrap_or_else(|e| panic!("{}: {e}", p.display()));
        String::from_utf8_lossy(&s).into_owned()
    } else {
        String::from_utf8_lossy(&bytes).into_owned()
    }
}

/// The event kind: the variant's name (with a unit payload's name, e.g.
/// `Milestone(HerderStarted)`).
fn kind_of(debug: &str) -> String {
    let what = if debug.contains("Task(") {
        "/task"
    } else if debug.contains("Connector(") {
        "/connector"
    } else {
        ""
    };
    kind_variant(debug) + what
}

fn kind_variant(debug: &str) -> String {
    let end = debug.find([' ', '{']).unwrap_or(debug.len());
    let head = &debug[..end];
    match head.split_once('(') {
        Some((v, inner)) if inner.chars().all(|c| c.is_alphanumeric() || c == ')') => {
            format!("{v}({}", inner.trim_end_matches(')')) + ")"
        }
        Some((v, _)) => v.to_string(),
        None => head.to_string(),
    }
}

fn is_word(c: char) -> bool {
    c.is_ascii_alphanumeric() || c == '_' || c == '.'
}

/// The quoted strings of an event's `Debug` text: connector names, groups,
/// member ids, URLs the line carries.
fn names_of(debug: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut rest = debug;
    while let Some(i) = rest.find('"') {
        let after = &rest[i + 1..];
        let Some(j) = after.find('"') else { break };
        let s = &after[..j];
        if !s.is_empty() {
            out.push(s.to_string());
        }
        rest = &after[j + 1..];
    }
    out.sort_by_key(|s| std::cmp::Reverse(s.len()));
    out.dedup();
    out
}

/// Replaces each whole-token occurrence of `name` (not inside a longer word;
/// `name-0` is a task of it) with `<n>`.
fn mask_name(msg: &str, name: &str) -> String {
    let mut out = String::with_capacity(msg.len());
    let mut i = 0;
    while let Some(off) = msg[i..].find(name) {
        let at = i + off;
        let end = at + name.len();
        let before_ok = msg[..at]
            .chars()
            .next_back()
            .is_none_or(|c| !is_word(c) && c != '-');
        let after_ok = msg[end..].chars().next().is_none_or(|c| !is_word(c));
        out.push_str(&msg[i..at]);
        if before_ok && after_ok {
            out.push_str("<n>");
        } else {
            out.push_str(name);
        }
        i = end;
    }
    out.push_str(&msg[i..]);
    out
}

/// A message reduced to its wording: URLs, UUID-like ids, hosts, numbers,
/// names and the contents of lists masked.
fn template(msg: &str, names: &[String]) -> String {
    let mut m = msg.to_string();
    // URLs first (they hold hosts and ports of every shape)
    let mut out = String::new();
    let mut rest = m.as_str();
    while let Some(i) = rest.find("http://") {
        out.push_str(&rest[..i]);
        out.push_str("<url>");
        let tail = &rest[i..];
        let end = tail
            .find(|c: char| c.is_whitespace() || matches!(c, ',' | '\'' | '}' | ')' | ']'))
            .unwrap_or(tail.len());
        rest = &tail[end..];
    }
    out.push_str(rest);
    m = out;
    for n in names {
        if n.starts_with("http://") {
            continue;
        }
        m = mask_name(&m, n);
    }
    // member ids and other UUID-like runs of hex and dashes
    let mut out = String::new();
    let mut chars = m.char_indices().peekable();
    let bytes = m.as_bytes();
    while let Some((i, c)) = chars.next() {
        if c.is_ascii_hexdigit() && (i == 0 || !is_word(bytes[i - 1] as char)) {
            let run: String = m[i..]
                .chars()
                .take_while(|c| c.is_ascii_hexdigit() || *c == '-')
                .collect();
            if run.len() >= 32 && run.matches('-').count() == 4 {
                out.push_str("<uuid>");
                for _ in 1..run.chars().count() {
                    chars.next();
                }
                continue;
            }
        }
        out.push(c);
    }
    m = out;
    // numbers
    let mut out = String::new();
    let mut prev_digit = false;
    for c in m.chars() {
        if c.is_ascii_digit() {
            if !prev_digit {
                out.push('#');
            }
            prev_digit = true;
        } else {
            prev_digit = false;
            out.push(c);
        }
    }
    m = out;
    // class names, versions, hosts
    let words: Vec<&str> = m.split(' ').collect();
    m = words
        .iter()
        .enumerate()
        .map(|(k, w)| {
            // a plugin's version may be a bare number (`with version 1`)
            let after_version =
                k > 0 && words[k - 1] == "version" && words.get(k + 1) == Some(&"of");
            let w = *w;
            let core = w.trim_end_matches([',', ')', '\'']);
            let tail = &w[core.len()..];
            let letters = core.chars().filter(|c| c.is_ascii_alphabetic()).count();
            if let Some(h) = core.strip_suffix(":#")
                && !h.is_empty()
                && !h.contains(['=', '{', '('])
            {
                format!("<host>:#{tail}")
            } else if core.starts_with('#') && core.contains("#.#") || after_version && core == "#"
            {
                format!("<version>{tail}")
            } else if core.matches('.').count() >= 2 && letters > 4 && !core.contains(['/', '=']) {
                format!("<class>{tail}")
            } else if core == "-#" {
                format!("#{tail}")
            } else {
                w.to_string()
            }
        })
        .collect::<Vec<_>>()
        .join(" ");
    // a target state is a value of the sentence
    for st in ["PAUSED", "STARTED", "STOPPED"] {
        m = m.replace(st, "<state>");
    }
    // the contents of `[…]` lists
    let mut out = String::new();
    let mut depth = 0;
    for c in m.chars() {
        match c {
            '[' => {
                if depth == 0 {
                    out.push_str("[…]");
                }
                depth += 1;
            }
            ']' if depth > 0 => depth -= 1,
            _ if depth > 0 => {}
            _ => out.push(c),
        }
    }
    out
}

fn level_name(l: Level) -> &'static str {
    match l {
        Level::Trace => "TRACE",
        Level::Debug => "DEBUG",
        Level::Info => "INFO",
        Level::Warn => "WARN",
        Level::Error => "ERROR",
        Level::Fatal => "FATAL",
    }
}

/// Every line of `text` that parses into an event: its envelope, logger
/// and event.
fn events(text: &str) -> impl Iterator<Item = (Envelope<'_>, &str, Event)> {
    text.lines().filter_map(|line| {
        let env = envelope(line)?;
        let logger = env.logger?;
        let ev = parse_message(LoggerKind::classify(logger)?, env.message)?;
        Some((env, logger, ev))
    })
}

/// The shapes of every line of `text` that parses into an event.
fn shapes(text: &str, into: &mut Shapes) {
    for (env, logger, ev) in events(text) {
        let debug = format!("{ev:?}");
        let names = names_of(&debug);
        let mdc = env.mdc.map(|m| template(&format!("{m:?}"), &names));
        let simple = logger.rsplit('.').next().unwrap_or(logger).to_string();
        let t = template(env.message, &names);
        let t = match mdc {
            Some(m) => format!("{{mdc {m}}} {t}"),
            None => t,
        };
        into.entry(kind_of(&debug)).or_default().insert((
            level_name(env.level).to_string(),
            simple,
            t,
        ));
    }
}

fn real_shapes(release: &str) -> Option<Shapes> {
    let dir = real_root().join(release);
    if !dir.is_dir() {
        return None;
    }
    let mut files = Vec::new();
    files_under(&dir, &mut files);
    let mut s = Shapes::new();
    for f in files {
        shapes(&read_text(&f), &mut s);
    }
    Some(s)
}

/// The default protocol a release's workers run (`connect.protocol` unset).
fn default_proto(v: Version) -> Proto {
    match v {
        Version::V2_0 | Version::V2_2 => Proto::Eager,
        Version::V2_3 => Proto::Compatible,
        _ => Proto::Sessioned,
    }
}

fn sim_shapes(v: Version) -> Shapes {
    let mut s = Shapes::new();
    for seed in 1..=8u64 {
        let mut p = Params::new(seed, v, default_proto(v));
        p.events = 60;
        p.fail_rate = 0.05;
        p.delay_ms = 10_000;
        let bufs: Vec<Buf> = (0..p.workers).map(|_| Buf::default()).collect();
        let outs: Vec<Box<dyn Write>> = bufs
            .iter()
            .map(|b| Box::new(b.clone()) as Box<dyn Write>)
            .collect();
        sim::simulate(&p, outs, true).unwrap_or_else(|e| panic!("simulate {v:?} seed {seed}: {e}"));
        for b in &bufs {
            let bytes = b.0.lock().unwrap().clone();
            shapes(&String::from_utf8_lossy(&bytes), &mut s);
        }
    }
    s
}

/// Shapes printed on paths the real scenarios do not take, whose kind the
/// captures show from another path: accepted by name, each with where the
/// release's code prints it.
const OTHER_PATHS: &[(&str, &str, &str)] = &[
    // DistributedHerder.doRestartConnectorAndTasks (3.0+): a task whose
    // start fails; the captures' restarts fail in the task threads, after
    // the herder logged `restart successful` for them.
    ("ERROR", "DistributedHerder", "Task '<n>-#' restart failed"),
    // The same plan's connector start callback: called by
    // Worker.startConnector's catch inside the connector's LoggingContext
    // when the connector cannot be created (3.0.2 to 3.9.0 source, 4.4.0
    // bytecode); no capture's restarted connector failed to start.
    (
        "ERROR",
        "DistributedHerder",
        "{mdc Mdc { connector: \"<n>\", scope: Worker }} Connector '<n>' restart failed",
    ),
    // The same callback on success for a connector whose target state is
    // PAUSED or STOPPED: WorkerConnector's thread calls it, in the
    // connector's LoggingContext, as it takes that state (a STARTED one's is
    // the herder thread's, no MDC, as captured); no capture restarted a
    // paused or stopped connector.
    (
        "INFO",
        "DistributedHerder",
        "{mdc Mdc { connector: \"<n>\", scope: Worker }} Connector '<n>' restart successful",
    ),
    // DistributedHerder's task-starting callable's catch (2.0 to 4.4.0
    // bytecode): herder.startTask threw before the Worker built the task
    // (the connector class not on this worker's plugin path: `not a
    // recognizable type`; or Worker.startTask's `Task already exists in this
    // worker`); the captures' failed task starts fail inside the Worker.
    (
        "ERROR",
        "DistributedHerder",
        "Couldn't instantiate task <n>-# because it has an invalid task configuration. This task will not execute until reconfigured.",
    ),
    // Worker.startConnector's catch and the herder's start callback run in
    // the connector's LoggingContext; the captures' only such line is the
    // herder thread's on halt (`Worker is shutting down`, no MDC).
    (
        "ERROR",
        "DistributedHerder",
        "{mdc Mdc { connector: \"<n>\", scope: Worker }} Failed to start connector '<n>'",
    ),
    (
        "ERROR",
        "Worker",
        "{mdc Mdc { connector: \"<n>\", scope: Worker }} Failed to start connector <n>",
    ),
];

fn on_other_path(s: &Shape) -> bool {
    OTHER_PATHS
        .iter()
        .any(|&(lvl, lg, t)| s.0 == lvl && s.1 == lg && s.2 == t)
}

/// The release whose captures judge the lines of kinds and loggers a
/// simulated release's own captures never show together.
fn fallback(v: Version) -> Option<&'static str> {
    match v {
        Version::V4_4 => Some("4.0.0"),
        _ => None,
    }
}

/// Does `shapes` hold a line of `logger`?
fn shows_logger(shapes: &BTreeSet<Shape>, logger: &str) -> bool {
    shapes.iter().any(|(_, l, _)| l == logger)
}

/// Compares one version; returns the mismatches (kind, sim shape, real shapes).
fn compare(v: Version, real: &Shapes, report: &mut String) -> Vec<String> {
    let sim = sim_shapes(v);
    let nearest = fallback(v).and_then(real_shapes).unwrap_or_default();
    let mut bad = Vec::new();
    for (kind, shapes) in &sim {
        let Some(real_shapes) = real.get(kind) else {
            for s in shapes {
                report.push_str(&format!("  not in any real log: {kind}: {s:?}\n"));
            }
            continue;
        };
        let judged_by_nearest = |s: &Shape| {
            !shows_logger(real_shapes, &s.1) && nearest.get(kind).is_some_and(|n| n.contains(s))
        };
        let missing: Vec<&Shape> = shapes
            .iter()
            .filter(|s| !real_shapes.contains(*s) && !judged_by_nearest(s) && !on_other_path(s))
            .collect();
        if !missing.is_empty() {
            let mut m = format!("{} {kind}:", v.name());
            for s in missing {
                m.push_str(&format!("\n    simulated {s:?}"));
            }
            for r in real_shapes {
                m.push_str(&format!("\n    real      {r:?}"));
            }
            bad.push(m);
        }
    }
    for (kind, shapes) in real {
        if !sim.contains_key(kind) {
            for s in shapes {
                report.push_str(&format!("  never simulated: {kind}: {s:?}\n"));
            }
        }
    }
    bad
}

#[test]
fn simulated_lines_read_like_the_real_ones() {
    let mut bad = Vec::new();
    let mut compared = 0;
    for &v in sim::version::ALL.iter() {
        let Some(real) = real_shapes(v.name()) else {
            continue;
        };
        compared += 1;
        let mut report = String::new();
        bad.extend(compare(v, &real, &mut report));
        eprintln!("{} against its real captures:\n{report}", v.name());
        let _ = std::fs::write(
            Path::new(env!("CARGO_TARGET_TMPDIR")).join(format!("sim-real-{}.txt", v.name())),
            &report,
        );
    }
    assert!(
        compared >= 2,
        "only {compared} simulated release(s) have real captures"
    );
    assert!(
        bad.is_empty(),
        "{} simulated line shape(s) real Kafka never printed:\n{}",
        bad.len(),
        bad.join("\n")
    );
}

#[test]
fn templates_mask_what_varies() {
    let names = vec!["sink".to_string(), "connect-1".to_string()];
    assert_eq!(
        template("Tasks [sink-0, sink-1] configs updated", &names),
        "Tasks […] configs updated"
    );
    assert_eq!(
        template("Starting task sink-12", &names),
        "Starting task <n>-#"
    );
    assert_eq!(
        template(
            "Joined group at generation 7 with protocol version 2 and got assignment: Assignment{error=0, leader='connect-1-9a0f3c2e-11aa-4b7e-8e0e-2f1b6c3d4e5f', leaderUrl='http://127.0.0.1:8083/', offset=5}",
            &names
        ),
        "Joined group at generation # with protocol version # and got assignment: Assignment{error=#, leader='<n>-<uuid>', leaderUrl='<url>', offset=#}"
    );
    assert_eq!(template("sinkhole sink", &names), "sinkhole <n>");
}

/// The start-up lines the auditor reads, in order, up to the first
/// assignment (consecutive repeats as one).
fn startup_order(text: &str) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    for (_, _, ev) in events(text) {
        let k = kind_of(&format!("{ev:?}"));
        if k.starts_with("JoinedGeneration") || k.starts_with("Assignment") {
            break;
        }
        if !k.starts_with("Milestone") && k != "AdvertisedUrl" && k != "KafkaClusterId" {
            continue;
        }
        if out.last() != Some(&k) {
            out.push(k);
        }
    }
    out
}

#[test]
fn startup_lines_come_in_the_real_order() {
    let mut bad = Vec::new();
    for &v in sim::version::ALL.iter() {
        let dir = real_root().join(v.name());
        if !dir.is_dir() {
            continue;
        }
        let mut files = Vec::new();
        files_under(&dir, &mut files);
        let real: BTreeSet<Vec<String>> = files
            .iter()
            .map(|f| startup_order(&read_text(f)))
            .filter(|o| !o.is_empty())
            .collect();
        let p = Params::new(1, v, default_proto(v));
        let bufs: Vec<Buf> = (0..p.workers).map(|_| Buf::default()).collect();
        let outs: Vec<Box<dyn Write>> = bufs
            .iter()
            .map(|b| Box::new(b.clone()) as Box<dyn Write>)
            .collect();
        sim::simulate(&p, outs, true).unwrap_or_else(|e| panic!("simulate {v:?}: {e}"));
        let text = String::from_utf8_lossy(&bufs[0].0.lock().unwrap()).into_owned();
        let simulated = startup_order(&text);
        if !real.contains(&simulated) {
            bad.push(format!(
                "{}: simulated {simulated:?}; real {real:?}",
                v.name()
            ));
        }
    }
    assert!(bad.is_empty(), "{}", bad.join("\n"));
}
