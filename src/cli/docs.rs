//! The commands that print the tool's own documentation: `explain` (a
//! finding kind), `completions` (a shell's script) and `man` (the manual
//! page).

use super::flags::{self, CompletionsArgs, ExplainArgs, complete, man};
use super::output::{self, Dest};
use crate::exit::{EXIT_ERROR, EXIT_OK};

/// Writes the bytes to standard output as they are.
fn emit(bytes: &[u8]) -> i32 {
    output::print("herder-audit", Dest::plain(), |out| out.write_all(bytes)).unwrap_or(EXIT_OK)
}

/// `herder-audit explain`: exit status 0, or 2 for an unknown kind.
pub(super) fn explain(args: &ExplainArgs) -> i32 {
    match crate::explain::render(args.kind.as_deref()) {
        Ok(text) => emit(text.as_bytes()),
        Err(msg) => {
            eprintln!("herder-audit: {msg}");
            EXIT_ERROR
        }
    }
}

/// `herder-audit completions SHELL`.
pub(super) fn completions(args: &CompletionsArgs) -> i32 {
    emit(&complete::completions(args.shell, flags::command()))
}

/// `herder-audit man`.
pub(super) fn man() -> i32 {
    match man::man(flags::command()) {
        Ok(page) => emit(&page),
        Err(e) => output::failed("herder-audit", Err(e)).unwrap_or(EXIT_ERROR),
    }
}
