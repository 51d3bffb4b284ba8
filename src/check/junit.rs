//! `check --format junit`: JUnit XML for CI systems, written with
//! quick-xml. One `<testcase>` per trace (classname: the directory it is
//! in, name: its file or directory name); a mismatch is a `<failure>` whose
//! text lists the missing and unexpected findings and renders the
//! unexpected ones as diagnostics; a new trace is a `<failure
//! type="new">`; a trace that could not be checked, and a path that could
//! not be searched, an `<error>`.

use super::{Outcome, Status, Totals};
use quick_xml::Writer;
use quick_xml::events::{BytesDecl, BytesText, Event};
use std::io::{self, Write};
use std::path::Path;

/// Text without the characters XML 1.0 cannot hold (control characters
/// other than tab and line ends, U+FFFE, U+FFFF), which become U+FFFD.
fn xml_safe(s: &str) -> String {
    s.chars()
        .map(|c| match c {
            '\t' | '\n' | '\r' => c,
            c if (c as u32) < 0x20 || c == '\u{FFFE}' || c == '\u{FFFF}' => '\u{FFFD}',
            c => c,
        })
        .collect()
}

fn seconds(d: std::time::Duration) -> String {
    format!("{:.3}", d.as_secs_f64())
}

/// (classname, name) of a trace.
fn names(o: &Outcome) -> (String, String) {
    let p = Path::new(&o.trace.name);
    let name = p
        .file_name()
        .map(|n| n.to_string_lossy().to_string())
        .unwrap_or_else(|| o.trace.name.clone());
    let class = p
        .parent()
        .map(|d| d.display().to_string())
        .filter(|d| !d.is_empty())
        .unwrap_or_else(|| ".".to_string());
    (class, name)
}

/// The failure text of a mismatch.
fn failure_text(o: &Outcome) -> String {
    let mut s = format!(
        "expectations {}: {} expected, {} found\n",
        o.trace.expect.display(),
        o.expected,
        o.found
    );
    if !o.missing.is_empty() {
        s.push_str("missing (expected, not found):\n");
        for e in &o.missing {
            s.push_str(&format!(
                "  {}:{}: {}\n",
                o.trace.expect.display(),
                e.at,
                e.raw.trim()
            ));
        }
    }
    if !o.unexpected.is_empty() {
        s.push_str("unexpected (found, not expected):\n");
        for u in &o.unexpected {
            s.push_str(&format!("  {}\n", u.entry));
        }
        if let Some(report) = &o.report {
            for (_, f) in o.unexpected_findings() {
                s.push('\n');
                s.push_str(&super::plain_diagnostic(report, f));
            }
        }
    }
    s
}

fn failure_message(o: &Outcome) -> String {
    format!(
        "{} expected finding(s) missing, {} unexpected finding(s)",
        o.missing.len(),
        o.unexpected.len()
    )
}

/// What goes inside a test case: (element, type, message, text).
fn problem(o: &Outcome) -> Option<(&'static str, &'static str, String, String)> {
    match o.status {
        Status::Ok | Status::Blessed => None,
        Status::Failed => Some(("failure", "mismatch", failure_message(o), failure_text(o))),
        Status::New => {
            let lines: Vec<String> = o.unexpected.iter().map(|u| u.entry.raw.clone()).collect();
            Some((
                "failure",
                "new",
                format!(
                    "new trace: no expectation file {} (herder-audit check --bless writes it)",
                    o.trace.expect.display()
                ),
                format!(
                    "{} finding(s):\n{}",
                    o.found,
                    lines.iter().map(|l| format!("  {l}\n")).collect::<String>()
                ),
            ))
        }
        Status::Error => {
            let msg = o.error.clone().unwrap_or_default();
            Some(("error", "error", msg.clone(), msg))
        }
    }
}

pub fn write(
    outcomes: &[Outcome],
    errors: &[(String, String)],
    out: &mut dyn Write,
) -> io::Result<()> {
    let t = Totals::of(outcomes);
    let tests = (outcomes.len() + errors.len()).to_string();
    let failures = (t.failed + t.new).to_string();
    let errs = (t.errors + errors.len()).to_string();
    let time = seconds(outcomes.iter().map(|o| o.elapsed).sum());
    let mut w = Writer::new_with_indent(out, b' ', 2);
    w.write_event(Event::Decl(BytesDecl::new("1.0", Some("UTF-8"), None)))?;
    let totals = [
        ("name", "herder-audit check"),
        ("tests", tests.as_str()),
        ("failures", failures.as_str()),
        ("errors", errs.as_str()),
        ("time", time.as_str()),
    ];
    w.create_element("testsuites")
        .with_attributes(totals)
        .write_inner_content(|w| {
            w.create_element("testsuite")
                .with_attributes(totals)
                .with_attribute(("skipped", "0"))
                .write_inner_content(|w| {
                    for o in outcomes {
                        let (class, name) = names(o);
                        let (class, name) = (xml_safe(&class), xml_safe(&name));
                        let time = seconds(o.elapsed);
                        let case = w.create_element("testcase").with_attributes([
                            ("name", name.as_str()),
                            ("classname", class.as_str()),
                            ("time", time.as_str()),
                        ]);
                        match problem(o) {
                            None => {
                                case.write_empty()?;
                            }
                            Some((element, kind, message, text)) => {
                                let message = xml_safe(&message);
                                let text = xml_safe(&text);
                                case.write_inner_content(|w| {
                                    w.create_element(element)
                                        .with_attributes([
                                            ("message", message.as_str()),
                                            ("type", kind),
                                        ])
                                        .write_text_content(BytesText::new(&text))?;
                                    Ok(())
                                })?;
                            }
                        }
                    }
                    for (path, message) in errors {
                        let (path, message) = (xml_safe(path), xml_safe(message));
                        w.create_element("testcase")
                            .with_attributes([
                                ("name", path.as_str()),
                                ("classname", "herder-audit.search"),
                                ("time", "0.000"),
                            ])
                            .write_inner_content(|w| {
                                w.create_element("error")
                                    .with_attributes([
                                        ("message", message.as_str()),
                                        ("type", "search"),
                                    ])
                                    .write_empty()?;
                                Ok(())
                            })?;
                    }
                    Ok(())
                })?;
            Ok(())
        })?;
    writeln!(w.get_mut())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn strips_what_xml_cannot_hold() {
        assert_eq!(
            xml_safe("a\tb\nc\u{1b}[1md\u{0}"),
            "a\tb\nc\u{FFFD}[1md\u{FFFD}"
        );
        assert_eq!(xml_safe("é <&>"), "é <&>");
    }
}
