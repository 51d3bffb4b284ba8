//! The regression workflow through the binary: `check` (passing, failing,
//! new and broken traces; text, JSON and JUnit output), the `--bless`
//! round trip, and traces named on the command line.

mod support;

use herder_audit::testing::check;
use quick_xml::events::Event;
use serde_json::Value;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use support::*;

#[test]
fn the_corpus_passes_through_the_binary() {
    let (traces, errors) = check::discover::discover(&[PathBuf::from("corpus")]);
    assert!(errors.is_empty(), "{errors:?}");
    let (code, out, err) = check_cmd(&[], &[Path::new("corpus/")]);
    assert_eq!(code, 0, "{out}{err}");
    assert_eq!(out.matches(" ... ok\n").count(), traces.len(), "{out}");
    assert_eq!(
        out.lines().last(),
        Some(format!("{} passed, 0 failed", traces.len()).as_str())
    );
}

#[test]
fn a_failing_trace_lists_missing_and_unexpected_findings() {
    let d = scratch("failing");
    copy_log(K8676, &d);
    copy_log(CLEAN, &d);
    write(&d.join(format!("{CLEAN}.expect")), "# clean\n");
    write(
        &d.join(format!("{K8676}.expect")),
        "# KAFKA-8676\n61 unnecessary-stop task:clicks-sink-0  # off by one\n70 zombie task:x-0\n",
    );
    let (code, out, err) = check_cmd(&[], &[&d]);
    assert_eq!(code, 1, "{out}{err}");
    let name = d.join(format!("{K8676}.log")).display().to_string();
    assert!(out.contains(&format!("trace {name} ... FAILED\n")), "{out}");
    let clean = d.join(format!("{CLEAN}.log")).display().to_string();
    assert!(out.contains(&format!("trace {clean} ... ok\n")), "{out}");
    let expect = d.join(format!("{K8676}.expect")).display().to_string();
    assert!(
        out.contains(&format!(
            "missing (expected, not found):\n  {expect}:2: 61 unnecessary-stop task:clicks-sink-0  # off by one\n  {expect}:3: 70 zombie task:x-0\n"
        )),
        "{out}"
    );
    assert!(
        out.contains(
            "unexpected (found, not expected):\n  60 unnecessary-stop task:clicks-sink-0\n  62 unnecessary-stop task:clicks-sink-1\n"
        ),
        "{out}"
    );
    // Each unexpected finding is rendered as the normal diagnostic.
    assert_eq!(
        out.matches("error[unnecessary-stop]: task clicks-sink-")
            .count(),
        2,
        "{out}"
    );
    assert!(out.contains(&format!("--> {name}:62\n")), "{out}");
    assert!(out.ends_with("1 passed, 1 failed\n"), "{out}");
}

/// The 8676 trace edited: two unrelated lines near the top (every line
/// number moves by two) and the stop of clicks-sink-1 removed (that finding
/// goes, a double start of it appears).
fn edit_8676(log: &Path) {
    let text = read(log);
    let mut lines: Vec<&str> = text.lines().collect();
    let stop = lines
        .iter()
        .position(|l| l.contains("INFO Stopping task clicks-sink-1 "))
        .unwrap();
    assert_eq!(stop + 1, 62);
    lines.remove(stop);
    lines.insert(
        9,
        "[2019-08-20 10:41:00,000] INFO an unrelated line (org.example.Chatter)",
    );
    lines.insert(
        10,
        "[2019-08-20 10:41:00,001] INFO another one (org.example.Chatter)",
    );
    write(log, &(lines.join("\n") + "\n"));
}

#[test]
fn bless_round_trip() {
    let d = scratch("bless");
    let log = copy_log(K8676, &d);
    copy_log(CLEAN, &d);
    // A directory trace starts with an empty expect file.
    let dir = d.join("moved");
    copy_dir("multi-restart-moved-task", &dir, str::to_string);
    write(&dir.join("expect"), "");
    let expect = d.join(format!("{K8676}.expect"));

    // Without expectation files: new (not passed), nothing written.
    let (code, out, _) = check_cmd(&[], &[&d]);
    assert_eq!(code, 1, "{out}");
    assert_eq!(out.matches(" ... new\n").count(), 2, "{out}");
    assert!(
        out.contains(&format!("trace {} ... FAILED", dir.display())),
        "{out}"
    );
    assert!(
        out.contains("    60 unnecessary-stop task:clicks-sink-0\n"),
        "{out}"
    );
    assert!(!expect.exists());

    // --bless writes them; then check passes.
    let (code, out, err) = check_cmd(&["--bless"], &[&d]);
    assert_eq!(code, 0, "{out}{err}");
    assert!(out.contains("3 expectation file(s) written"), "{out}");
    assert_eq!(
        read(&expect),
        "60 unnecessary-stop task:clicks-sink-0\n62 unnecessary-stop task:clicks-sink-1\n"
    );
    assert_eq!(read(&d.join(format!("{CLEAN}.expect"))), "");
    assert_eq!(
        read(&dir.join("expect")),
        "connect-east-1.log:68 foreign-start task:es-sink-1\nconnect-east-2.log:63 zombie task:es-sink-1\n"
    );
    let (code, out, _) = check_cmd(&[], &[&d]);
    assert_eq!(code, 0, "{out}");
    assert!(out.ends_with("3 passed, 0 failed\n"), "{out}");

    // Say why each finding is expected, then edit the trace: check fails
    // with exactly the right lines.
    write(
        &expect,
        "# KAFKA-8676 on 2.3.0\n\n# clicks-sink shows no config change of its own\n60 unnecessary-stop task:clicks-sink-0  # the first one\n# the second task\n62 unnecessary-stop task:clicks-sink-1\n# end\n",
    );
    edit_8676(&log);
    let (code, out, _) = check_cmd(&[], &[&log]);
    assert_eq!(code, 1, "{out}");
    let e = expect.display();
    assert!(
        out.contains(&format!(
            "missing (expected, not found):\n  {e}:4: 60 unnecessary-stop task:clicks-sink-0  # the first one\n  {e}:6: 62 unnecessary-stop task:clicks-sink-1\n"
        )),
        "{out}"
    );
    assert!(
        out.contains(
            "unexpected (found, not expected):\n  62 unnecessary-stop task:clicks-sink-0\n  78 double-start task:clicks-sink-1\n"
        ),
        "{out}"
    );
    assert!(out.contains("warning[double-start]"), "{out}");

    // Bless again: the moved finding keeps its comments, the gone one
    // loses its own, the new one is added; the header and trailer stay.
    let (code, out, _) = check_cmd(&["--bless"], &[&log]);
    assert_eq!(code, 0, "{out}");
    assert!(
        out.contains("blessed (1 added, 1 removed, 1 moved)"),
        "{out}"
    );
    assert_eq!(
        read(&expect),
        "# KAFKA-8676 on 2.3.0\n\n# clicks-sink shows no config change of its own\n62 unnecessary-stop task:clicks-sink-0  # the first one\n78 double-start task:clicks-sink-1\n# end\n"
    );
    let (code, out, _) = check_cmd(&[], &[&d]);
    assert_eq!(code, 0, "{out}");
    // Blessing what matches changes nothing.
    let before = read(&expect);
    let (code, out, _) = check_cmd(&["--bless"], &[&d]);
    assert_eq!(code, 0);
    assert!(!out.contains("blessed"), "{out}");
    assert_eq!(read(&expect), before);
}

#[test]
fn gzipped_and_qualified_traces() {
    let d = scratch("gzip");
    let plain = read(Path::new(&format!("corpus/{K8676}.log")));
    let gz = d.join(format!("{K8676}.log.gz"));
    let mut enc = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
    std::io::Write::write_all(&mut enc, plain.as_bytes()).unwrap();
    std::fs::write(&gz, enc.finish().unwrap()).unwrap();
    let expect = d.join(format!("{K8676}.expect"));
    // Qualifiers must hold: the worker (its label, relative to the
    // directory: a single file is labelled by its name) and generation.
    let worker = format!("{K8676}.log.gz");
    write(
        &expect,
        format!(
            "60 unnecessary-stop task:clicks-sink-0 worker={worker} generation=7\n62 unnecessary-stop task:clicks-sink-1 generation=7\n"
        ),
    );
    let (code, out, err) = check_cmd(&[], &[&d]);
    assert_eq!(code, 0, "{out}{err}");
    write(
        &expect,
        "60 unnecessary-stop task:clicks-sink-0 generation=8\n62 unnecessary-stop task:clicks-sink-1\n",
    );
    let (code, out, _) = check_cmd(&[], &[&gz]);
    assert_eq!(code, 1, "{out}");
    assert!(
        out.contains(
            "unexpected (found, not expected):\n  60 unnecessary-stop task:clicks-sink-0\n"
        ),
        "{out}"
    );
}

#[test]
fn broken_inputs_are_errors_naming_them() {
    let d = scratch("broken");
    copy_log(K8676, &d);
    write(
        &d.join(format!("{K8676}.expect")),
        "# x\n60 unnecessary-stop\n",
    );
    write(&d.join("orphan.expect"), "");
    let (code, out, err) = check_cmd(&[], &[&d]);
    assert_eq!(code, 2, "{out}{err}");
    let expect = d.join(format!("{K8676}.expect")).display().to_string();
    assert!(
        out.contains(&format!(
            "error: could not check: {expect}:2: missing resource"
        )),
        "{out}"
    );
    assert!(
        err.contains(&format!(
            "herder-audit check: {}: expectation file without a log beside it",
            d.join("orphan.expect").display()
        )),
        "{err}"
    );
    // A directory trace without any log.
    let nolog = scratch("nolog");
    write(&nolog.join("expect"), "");
    let (code, out, _) = check_cmd(&[], &[&nolog]);
    assert_eq!(code, 2);
    assert!(out.contains("no log file in this trace"), "{out}");
    let empty = scratch("empty");
    let (code, _, err) = check_cmd(&[], &[&empty]);
    assert_eq!(code, 2);
    assert!(err.contains("no trace found"), "{err}");
    let (code, _, err) = check_cmd(&[], &[Path::new("no/such/dir")]);
    assert_eq!(code, 2);
    assert!(
        err.contains("no/such/dir: no such file or directory"),
        "{err}"
    );
}

/// Elements of an XML document: (name, attributes, text inside), in order.
fn xml_elements(xml: &str) -> Vec<(String, BTreeMap<String, String>, String)> {
    let mut reader = quick_xml::Reader::from_str(xml);
    let mut out: Vec<(String, BTreeMap<String, String>, String)> = Vec::new();
    let mut open: Vec<usize> = Vec::new();
    loop {
        let ev = reader.read_event().expect("well-formed XML");
        match ev {
            Event::Start(ref e) | Event::Empty(ref e) => {
                let name = e.name().0.to_string();
                let attrs = e
                    .attributes()
                    .map(|a| {
                        let a = a.expect("well-formed attribute");
                        (
                            a.key.0.to_string(),
                            a.normalized_value(quick_xml::XmlVersion::Implicit1_0)
                                .expect("escaped value")
                                .to_string(),
                        )
                    })
                    .collect();
                out.push((name, attrs, String::new()));
                if matches!(ev, Event::Start(_)) {
                    open.push(out.len() - 1);
                }
            }
            Event::Text(t) => {
                if let Some(&i) = open.last() {
                    out[i].2.push_str(&t.xml10_content());
                }
            }
            Event::GeneralRef(r) => {
                if let Some(&i) = open.last() {
                    let name: &str = &r;
                    let c = match name {
                        "lt" => "<",
                        "gt" => ">",
                        "amp" => "&",
                        "apos" => "'",
                        "quot" => "\"",
                        other => panic!("unexpected entity {other}"),
                    };
                    out[i].2.push_str(c);
                }
            }
            Event::End(_) => {
                open.pop();
            }
            Event::Eof => break,
            _ => {}
        }
    }
    assert!(open.is_empty());
    out
}

#[test]
fn junit_xml_has_what_the_schema_requires() {
    let d = scratch("junit");
    copy_log(K8676, &d);
    copy_log(CLEAN, &d);
    std::fs::copy(
        format!("corpus/{CLEAN}.expect"),
        d.join(format!("{CLEAN}.expect")),
    )
    .unwrap();
    write(
        &d.join(format!("{K8676}.expect")),
        "60 unnecessary-stop task:clicks-sink-0\n",
    );
    copy_log("fault-kafka-17105-3.8.0", &d); // new
    copy_log("fault-kafka-9851-2.5.0", &d);
    write(
        &d.join("fault-kafka-9851-2.5.0.expect"),
        "48 lost-assignment\n",
    ); // broken
    write(&d.join("orphan.expect"), "");
    let (code, xml, _) = check_cmd(&["--format", "junit"], &[&d]);
    assert_eq!(code, 2);
    let els = xml_elements(&xml);
    let of = |n: &'static str| els.iter().filter(move |e| e.0 == n);
    let root = &els[0];
    assert_eq!(root.0, "testsuites");
    let suites: Vec<_> = of("testsuite").collect();
    assert_eq!(suites.len(), 1);
    for (_, attrs, _) in [root].into_iter().chain(suites.iter().copied()) {
        for a in ["name", "tests", "failures", "errors"] {
            assert!(attrs.contains_key(a), "{a} missing in {attrs:?}");
        }
        assert_eq!(attrs["tests"], "5");
        assert_eq!(attrs["failures"], "2");
        assert_eq!(attrs["errors"], "2");
    }
    let cases: Vec<_> = of("testcase").collect();
    assert_eq!(cases.len(), 5);
    for (_, attrs, _) in &cases {
        assert!(
            attrs.contains_key("name") && attrs.contains_key("classname"),
            "{attrs:?}"
        );
    }
    let names: Vec<&str> = cases.iter().map(|c| c.1["name"].as_str()).collect();
    assert!(names.contains(&"fault-kafka-8676-2.3.0.log"), "{names:?}");
    for (tag, n) in [("failure", 2), ("error", 2)] {
        let v: Vec<_> = of(tag).collect();
        assert_eq!(v.len(), n, "{tag}");
        for (_, attrs, _) in &v {
            assert!(!attrs["message"].is_empty(), "{attrs:?}");
        }
    }
    let mismatch = of("failure").find(|f| f.1["type"] == "mismatch").unwrap();
    assert_eq!(
        mismatch.1["message"],
        "0 expected finding(s) missing, 1 unexpected finding(s)"
    );
    assert!(
        mismatch
            .2
            .contains("  62 unnecessary-stop task:clicks-sink-1\n"),
        "{}",
        mismatch.2
    );
    assert!(
        mismatch
            .2
            .contains("error[unnecessary-stop]: task clicks-sink-1"),
        "{}",
        mismatch.2
    );
    assert!(
        mismatch.2.contains("other connectors' tasks"),
        "{}",
        mismatch.2
    );
    assert!(of("failure").any(|f| f.1["type"] == "new"));
    assert!(of("error").any(|e| e.1["message"].contains("missing resource")));
}

#[test]
fn json_output_reports_every_trace() {
    let d = scratch("json");
    copy_log(K8676, &d);
    write(
        &d.join(format!("{K8676}.expect")),
        "62 unnecessary-stop task:clicks-sink-1  # kept\n61 zombie -\n",
    );
    let (code, out, _) = check_cmd(&["--format", "json"], &[&d]);
    assert_eq!(code, 1);
    let v: Value = serde_json::from_str(&out).unwrap();
    assert_eq!(v["summary"]["failed"], 1);
    let t = &v["traces"][0];
    assert_eq!(t["status"], "failed");
    assert_eq!(t["missing"][0]["text"], "61 zombie -");
    assert_eq!(t["missing"][0]["expectation_line"], 2);
    assert_eq!(
        t["unexpected"][0]["expectation"],
        "60 unnecessary-stop task:clicks-sink-0"
    );
    assert_eq!(t["unexpected"][0]["finding"]["trigger"]["line"], 60);
    assert!(
        t["unexpected"][0]["diagnostic"]
            .as_str()
            .unwrap()
            .starts_with("error[unnecessary-stop]")
    );
}

#[test]
fn traces_named_on_the_command_line() {
    use check::discover::{TraceKind, discover};
    let d = scratch("named");
    let log = copy_log(K8676, &d);
    let dir = d.join("moved");
    copy_dir("multi-restart-moved-task", &dir, str::to_string);
    let expect = d.join(format!("{K8676}.expect"));
    write(&expect, "");
    let one = |p: PathBuf| {
        let (t, errors) = discover(&[p]);
        assert!(errors.is_empty(), "{errors:?}");
        assert_eq!(t.len(), 1, "{t:?}");
        (t[0].kind, t[0].name.clone(), t[0].files.len())
    };
    let file_trace = (TraceKind::File, log.display().to_string(), 1);
    assert_eq!(one(log.clone()), file_trace);
    assert_eq!(one(expect.clone()), file_trace);
    let dir_trace = (TraceKind::Directory, dir.display().to_string(), 2);
    assert_eq!(one(dir.clone()), dir_trace);
    assert_eq!(one(dir.join("expect")), dir_trace);
    // A log of a directory trace stands for the directory's trace.
    assert_eq!(one(dir.join("connect-east-2.log")), dir_trace);
    // Both, and the directory holding them: each trace once.
    let (all, _) = discover(&[d.clone(), log, dir]);
    assert_eq!(all.len(), 2);
}
