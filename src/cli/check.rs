//! The commands that test Connect itself: `check` (every trace against its
//! expectation file, printed like a test run) and `diff` (two JSON
//! reports).

use super::flags::{CheckArgs, CheckFormat, DiffArgs, DiffFormat};
use super::output::{self, Dest};
use crate::baseline::diff::{self, diff};
use crate::baseline::load::read_report;
use crate::check::{self, CheckOptions};
use crate::exit::{EXIT_ERROR, EXIT_FINDINGS, EXIT_OK};
use std::path::PathBuf;

/// `herder-audit check`; returns the exit status.
pub(super) fn check(args: &CheckArgs) -> i32 {
    let opts = CheckOptions {
        bless: args.bless,
        ..CheckOptions::default()
    };
    let (outcomes, errors) = check::check_paths(&args.paths, opts, args.jobs);
    for (path, message) in &errors {
        eprintln!("herder-audit check: {path}: {message}");
    }
    if outcomes.is_empty() && errors.is_empty() {
        let paths: Vec<String> = args.paths.iter().map(|p| p.display().to_string()).collect();
        eprintln!(
            "herder-audit check: no trace found under {} (a trace is a .log file, or a directory with an `expect` file)",
            paths.join(", ")
        );
    }
    let dest = Dest::colored(args.color.choice());
    if let Some(code) = output::print("herder-audit check", dest, |out| match args.format {
        CheckFormat::Text => check::text::write(&outcomes, out),
        CheckFormat::Json => check::json::write(&outcomes, &errors, out),
        CheckFormat::Junit => check::junit::write(&outcomes, &errors, out),
    }) {
        return code;
    }
    check::exit_status(&outcomes, errors.len())
}

/// `herder-audit diff`: 0 when no finding appeared, 1 when some did, 2
/// when a report cannot be read.
pub(super) fn diff_reports(args: &DiffArgs) -> i32 {
    let load = |p: &PathBuf| {
        read_report(p).map_err(|e| {
            eprintln!("herder-audit diff: {e}");
        })
    };
    let (Ok(old), Ok(new)) = (load(&args.old), load(&args.new)) else {
        return EXIT_ERROR;
    };
    let d = diff(&old, &new);
    let dest = Dest::colored(args.color.choice());
    if let Some(code) = output::print("herder-audit diff", dest, |out| match args.format {
        DiffFormat::Text => diff::write_text(&d, out),
        DiffFormat::Json => {
            serde_json::to_writer_pretty(&mut *out, &diff::document(&d))?;
            writeln!(out)
        }
    }) {
        return code;
    }
    if d.appeared.is_empty() {
        EXIT_OK
    } else {
        EXIT_FINDINGS
    }
}
