//! The test-runner view: one line per trace, then each failure's missing
//! and unexpected findings (the unexpected ones as full diagnostics), the
//! new traces, and a final `N passed, M failed` line.

use super::{Outcome, Status, Totals};
use anstyle::{AnsiColor, Style};
use std::io::{self, Write};

const OK: Style = AnsiColor::Green.on_default();
const BAD: Style = AnsiColor::Red.on_default().bold();
const NEW: Style = AnsiColor::Yellow.on_default().bold();
const BLESSED: Style = AnsiColor::Cyan.on_default();
const BOLD: Style = Style::new().bold();
const DIM: Style = Style::new().dimmed();

fn style(s: Status) -> Style {
    match s {
        Status::Ok => OK,
        Status::Failed | Status::Error => BAD,
        Status::New => NEW,
        Status::Blessed => BLESSED,
    }
}

/// `ok`, `FAILED`, … with what `--bless` did.
fn verdict(o: &Outcome) -> String {
    let mut v = o.status.as_str().to_string();
    if let (Status::Blessed, Some(c)) = (o.status, o.bless) {
        if c.is_empty() {
            v.push_str(&format!(" (new, {} finding(s))", o.found));
        } else {
            v.push_str(&format!(
                " ({} added, {} removed, {} moved)",
                c.added, c.removed, c.moved
            ));
        }
    }
    v
}

/// The whole run.
pub fn write(outcomes: &[Outcome], out: &mut dyn Write) -> io::Result<()> {
    for o in outcomes {
        let s = style(o.status);
        writeln!(out, "trace {} ... {s}{}{s:#}", o.trace.name, verdict(o))?;
    }
    let failed: Vec<&Outcome> = outcomes
        .iter()
        .filter(|o| matches!(o.status, Status::Failed | Status::Error))
        .collect();
    writeln!(out)?;
    if !failed.is_empty() {
        writeln!(out, "{BOLD}failures:{BOLD:#}\n")?;
    }
    for o in failed {
        write_failure(o, out)?;
    }
    let new: Vec<&Outcome> = outcomes
        .iter()
        .filter(|o| o.status == Status::New)
        .collect();
    if !new.is_empty() {
        writeln!(
            out,
            "{BOLD}new traces{BOLD:#} (no expectation file; `herder-audit check --bless` writes it):"
        )?;
        for o in new {
            writeln!(
                out,
                "  {} -> {} would hold {} finding(s)",
                o.trace.name,
                o.trace.expect.display(),
                o.found
            )?;
            for u in &o.unexpected {
                writeln!(out, "    {}", u.entry)?;
            }
        }
        writeln!(out)?;
    }
    write_totals(&Totals::of(outcomes), out)
}

fn write_failure(o: &Outcome, out: &mut dyn Write) -> io::Result<()> {
    writeln!(out, "{BOLD}---- {} ----{BOLD:#}", o.trace.name)?;
    if let Some(e) = &o.error {
        return writeln!(out, "{BAD}error{BAD:#}: could not check: {e}\n");
    }
    writeln!(
        out,
        "{DIM}expectations {}: {} expected, {} found{DIM:#}",
        o.trace.expect.display(),
        o.expected,
        o.found
    )?;
    if !o.missing.is_empty() {
        writeln!(out, "missing (expected, not found):")?;
        for e in &o.missing {
            writeln!(
                out,
                "  {}:{}: {}",
                o.trace.expect.display(),
                e.at,
                e.raw.trim()
            )?;
        }
    }
    if !o.unexpected.is_empty() {
        writeln!(out, "unexpected (found, not expected):")?;
        for u in &o.unexpected {
            writeln!(out, "  {}", u.entry)?;
        }
        writeln!(out)?;
        if let Some(report) = &o.report {
            for (_, f) in o.unexpected_findings() {
                // Each diagnostic ends with a blank line.
                crate::report::text::write_finding(report, f, out)?;
            }
        }
        return Ok(());
    }
    writeln!(out)
}

fn write_totals(t: &Totals, out: &mut dyn Write) -> io::Result<()> {
    let mut detail = Vec::new();
    if t.failed > 0 {
        detail.push(format!("{} with other findings than expected", t.failed));
    }
    if t.new > 0 {
        detail.push(format!("{} new", t.new));
    }
    if t.errors > 0 {
        detail.push(format!("{} not checkable", t.errors));
    }
    if t.blessed > 0 {
        detail.push(format!("{} expectation file(s) written", t.blessed));
    }
    if !detail.is_empty() {
        writeln!(out, "{}", detail.join(", "))?;
    }
    let s = if t.not_passed() > 0 { BAD } else { OK };
    writeln!(
        out,
        "{s}{} passed, {} failed{s:#}",
        t.passed,
        t.not_passed()
    )
}
