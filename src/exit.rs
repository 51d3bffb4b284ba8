//! Exit statuses, and what a failed write of the output means for them:
//! the one place every subcommand (audit, `check`, `diff`, `explain`,
//! `completions`, `man`, the split-run stages) takes them from. It sits
//! below all of them and imports none of them: only the input's words
//! for an I/O error ([`crate::input::describe`]).

/// No finding at or above `--fail-on` (or: all traces passed, no finding
/// appeared, the output was written).
pub const EXIT_OK: i32 = 0;
/// Findings (a failed or new trace for `check`, a new finding for `diff`).
pub const EXIT_FINDINGS: i32 = 1;
/// A usage or input error, or output that could not be written.
pub const EXIT_ERROR: i32 = 2;

/// What a failed write of the output means for the run: `None` when it
/// succeeded; a closed pipe (`| head`) ends the run quietly; any other
/// error is reported, naming the command (`herder-audit check`), and the
/// run exits with [`EXIT_ERROR`].
pub fn output_failed(command: &str, written: std::io::Result<()>) -> Option<i32> {
    match written {
        Ok(()) => None,
        Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => Some(EXIT_OK),
        Err(e) => {
            eprintln!("{command}: writing output: {}", crate::input::describe(&e));
            Some(EXIT_ERROR)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::{Error, ErrorKind};

    #[test]
    fn a_closed_pipe_is_quiet_other_errors_fail() {
        assert_eq!(output_failed("t", Ok(())), None);
        assert_eq!(
            output_failed("t", Err(Error::from(ErrorKind::BrokenPipe))),
            Some(EXIT_OK)
        );
        assert_eq!(
            output_failed("t", Err(Error::from(ErrorKind::PermissionDenied))),
            Some(EXIT_ERROR)
        );
    }
}
