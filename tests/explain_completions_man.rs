//! `herder-audit explain`, `completions` and `man`: what a user types and
//! what comes out (exit statuses, the subcommands the scripts know, a man
//! page that groff accepts).

mod support;

use std::io::Write;
use std::process::Command;
use support::{bin, run, scratch, write};

/// Says on stderr, past the test harness's capture, that a check was skipped.
fn skipped(why: &str) {
    let _ = writeln!(std::io::stderr(), "{why}");
}

const KINDS: [&str; 8] = [
    "unnecessary-stop",
    "foreign-start",
    "offset-mismatch-start",
    "stale-config-start",
    "double-start",
    "lost-assignment",
    "zombie",
    "conflicting-assignment",
];

const SUBCOMMANDS: [&str; 5] = ["replay", "simulate", "explain", "completions", "man"];

#[test]
fn explain_every_kind() {
    for k in KINDS {
        let (code, out, err) = run(bin().args(["explain", k]));
        assert_eq!(code, 0, "{k}: {err}");
        assert!(out.starts_with(&format!("{k} (")), "{k}: {out}");
        assert!(out.contains("What to do"), "{k}: {out}");
    }
    let (code, out, _) = run(bin().args(["explain", "stale-config-start"]));
    assert_eq!(code, 0);
    assert!(out.contains("KAFKA-8869"), "{out}");
    let (_, out, _) = run(bin().args(["explain", "zombie"]));
    assert!(out.contains("KAFKA-16056"), "{out}");
}

#[test]
fn explain_without_a_kind_lists_them_all() {
    let (code, out, err) = run(bin().arg("explain"));
    assert_eq!(code, 0, "{err}");
    for k in KINDS {
        assert!(
            out.lines().any(|l| l.trim_start().starts_with(k)),
            "{k}:\n{out}"
        );
    }
}

#[test]
fn explain_an_unknown_kind_is_a_usage_error_naming_the_valid_ones() {
    let (code, out, err) = run(bin().args(["explain", "zombi"]));
    assert_eq!(code, 2);
    assert!(out.is_empty(), "{out}");
    assert!(
        err.starts_with("herder-audit: unknown finding kind `zombi`"),
        "{err}"
    );
    for k in KINDS {
        assert!(err.contains(k), "{k}: {err}");
    }
}

#[test]
fn completion_scripts_know_the_subcommands() {
    for shell in ["bash", "zsh", "fish", "elvish", "powershell"] {
        let (code, out, err) = run(bin().args(["completions", shell]));
        assert_eq!(code, 0, "{shell}: {err}");
        for sub in SUBCOMMANDS {
            assert!(out.contains(sub), "{shell} script lacks `{sub}`");
        }
        assert!(out.contains("fail-on"), "{shell} script lacks --fail-on");
    }
    let (code, _, err) = run(bin().args(["completions", "tcsh"]));
    assert_eq!(code, 2);
    assert!(err.contains("tcsh"), "{err}");
}

/// The bash script must at least be valid bash (when bash is installed).
#[test]
fn the_bash_completion_script_parses() {
    let (_, script, _) = run(bin().args(["completions", "bash"]));
    let file = scratch("completions").join("herder-audit.bash");
    write(&file, &script);
    match Command::new("bash").arg("-n").arg(&file).output() {
        Ok(o) => assert!(
            o.status.success(),
            "bash -n: {}",
            String::from_utf8_lossy(&o.stderr)
        ),
        Err(_) => skipped("bash not found: the syntax check of the bash script is skipped"),
    }
}

#[test]
fn the_man_page_is_roff_with_the_expected_sections() {
    let (code, page, err) = run(bin().arg("man"));
    assert_eq!(code, 0, "{err}");
    let first_macro = page.lines().find(|l| l.starts_with(".TH"));
    assert!(
        first_macro.is_some_and(|l| l.starts_with(".TH herder-audit 1")),
        "{page}"
    );
    let sections: Vec<&str> = page
        .lines()
        .filter_map(|l| l.strip_prefix(".SH "))
        .map(|s| s.trim_matches('"'))
        .collect();
    assert_eq!(
        sections,
        [
            "NAME",
            "SYNOPSIS",
            "DESCRIPTION",
            "OPTIONS",
            "SUBCOMMANDS",
            "FINDING KINDS",
            "EXIT STATUS",
            "SEE ALSO",
            "VERSION"
        ]
    );
    // Every line is a request, a comment or text that cannot be read as one.
    for l in page.lines() {
        if let Some(req) = l.strip_prefix('.') {
            let name = req.split_whitespace().next().unwrap_or("");
            assert!(
                [
                    "TH", "SH", "TP", "PP", "RS", "RE", "IP", "br", "B", "I", "ie", "el"
                ]
                .contains(&name),
                "unexpected request: {l}"
            );
        } else {
            assert!(!l.starts_with('\''), "text line read as a request: {l}");
        }
    }
    for k in KINDS {
        assert!(page.contains(&k.replace('-', "\\-")), "{k} missing");
    }
    for sub in SUBCOMMANDS {
        assert!(
            page.contains(&format!("herder\\-audit {sub}")),
            "{sub} missing"
        );
    }
}

/// groff, where installed, formats the page without a warning.
#[test]
fn groff_formats_the_man_page_cleanly() {
    let (_, page, _) = run(bin().arg("man"));
    let file = scratch("man").join("herder-audit.1");
    write(&file, &page);
    let out = Command::new("groff")
        .args(["-man", "-Tutf8", "-ww"])
        .arg(&file)
        .output();
    let Ok(out) = out else {
        skipped("groff not found: the formatting check of the man page is skipped");
        return;
    };
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        out.status.success() && err.trim().is_empty(),
        "groff: {err}"
    );
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.contains("herder-audit(1)"), "{text}");
}
