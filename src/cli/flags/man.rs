//! The manual page (`herder-audit man`), generated at run time from the
//! clap definition the parser uses, so it can never disagree with the
//! flags; the sections clap knows nothing of (subcommands, finding kinds,
//! exit status, where to read more) are written here.

use crate::finding::Kind;
use clap::Command;
use clap_mangen::Man;
use roff::{Roff, bold, roman};
use std::io::{self, Write};

/// The manual page (section 1) in roff: clap_mangen's title, name,
/// synopsis, description and options; then the subcommands (described here,
/// not as pages of their own), the finding kinds, the exit status, where to
/// read more, and the version.
pub fn man(cmd: Command) -> io::Result<Vec<u8>> {
    type Section = fn(&Man, &mut dyn Write) -> io::Result<()>;
    let page = Man::new(cmd.clone());
    // Every rendered piece starts with roff's apostrophe preamble: keep one.
    let preamble = Roff::new().render();
    let mut out = preamble.clone().into_bytes();
    let mut piece = |render: &dyn Fn(&mut Vec<u8>) -> io::Result<()>| -> io::Result<()> {
        let mut buf = Vec::new();
        render(&mut buf)?;
        let body = buf.strip_prefix(preamble.as_bytes()).unwrap_or(&buf);
        out.extend_from_slice(body);
        Ok(())
    };
    let sections: [Section; 5] = [
        Man::render_title,
        Man::render_name_section,
        Man::render_synopsis_section,
        Man::render_description_section,
        Man::render_options_section,
    ];
    for s in sections {
        piece(&|b| s(&page, b))?;
    }
    piece(&|b| extra_sections(&cmd).to_writer(b))?;
    piece(&|b| page.render_version_section(b))?;
    Ok(out)
}

fn extra_sections(cmd: &Command) -> Roff {
    let mut roff = Roff::new();
    roff.control("SH", ["SUBCOMMANDS"]);
    for sub in cmd.get_subcommands().filter(|s| s.get_name() != "help") {
        roff.control("TP", []);
        roff.text([bold(format!("{} {}", cmd.get_name(), sub.get_name()))]);
        let about = sub.get_about().map(|a| a.to_string()).unwrap_or_default();
        roff.text([roman(about)]);
    }
    roff.control("SH", ["FINDING KINDS"]);
    for k in Kind::ALL {
        roff.control("TP", []);
        roff.text([
            bold(k.as_str()),
            roman(format!(" ({})", k.severity().as_str())),
        ]);
        roff.text([roman(crate::explain::summary(k))]);
    }
    roff.control("PP", []);
    roff.text([
        roman("Run "),
        bold("herder-audit explain KIND"),
        roman(" for what a kind means, the rule behind it and what to do."),
    ]);
    roff.control("SH", ["EXIT STATUS"]);
    for (code, what) in [
        ("0", "no finding at or above the --fail-on severity."),
        ("1", "findings at or above the --fail-on severity."),
        (
            "2",
            "a usage or input error (an unreadable input is named on standard error and the rest is still audited).",
        ),
    ] {
        roff.control("TP", []);
        roff.text([bold(code)]);
        roff.text([roman(what)]);
    }
    roff.control("SH", ["SEE ALSO"]);
    roff.text([
        bold("herder-audit explain"),
        roman(", and the documents in the docs/ directory of the source: guide.md (the user guide), live.md, html-report.md, testing-connect.md, spark.md, simulator.md, json-schema.md, performance.md, real-kafka.md, log-sources.md, design.md, rules.md, log-formats.md, contributing.md."),
    ]);
    roff
}
