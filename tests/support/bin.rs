//! The binary under test: a [`Command`] for it, and a run of it to its end
//! with its exit status and its output as text. No run may panic.

use std::path::Path;
use std::process::Command;

/// The binary's path.
pub const BIN: &str = env!("CARGO_BIN_EXE_herder-audit");

/// The binary, with `NO_COLOR` taken out of its environment (so that
/// `--color` decides alone).
pub fn bin() -> Command {
    let mut c = Command::new(BIN);
    c.env_remove("NO_COLOR");
    c
}

/// The binary with `--color never`: plain text whatever the terminal.
pub fn bin_no_color() -> Command {
    let mut c = bin();
    c.args(["--color", "never"]);
    c
}

/// Runs a command to its end: exit status (-1 when a signal ended it),
/// standard output, standard error. Fails the test if it panicked.
pub fn run(c: &mut Command) -> (i32, String, String) {
    let out = c.output().expect("runs");
    let (o, e) = (
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    );
    assert!(
        !e.contains("panicked") && !e.contains("RUST_BACKTRACE"),
        "{e}"
    );
    (out.status.code().unwrap_or(-1), o, e)
}

/// `herder-audit check --color never ARGS PATHS`, run.
pub fn check_cmd(args: &[&str], paths: &[&Path]) -> (i32, String, String) {
    run(bin()
        .arg("check")
        .args(["--color", "never"])
        .args(args)
        .args(paths))
}
