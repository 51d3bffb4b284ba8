//! Exit statuses: the one place every subcommand (audit, `check`, `diff`,
//! `explain`, `simulate`, `completions`, `man`, the split-run stages) takes
//! them from. It sits below all of them and imports nothing; what a failed
//! write of the output means for them is the command line's
//! (`cli/output.rs`).

/// No finding at or above `--fail-on` (or: all traces passed, no finding
/// appeared, the output was written).
pub const EXIT_OK: i32 = 0;
/// Findings (a failed or new trace for `check`, a new finding for `diff`).
pub const EXIT_FINDINGS: i32 = 1;
/// A usage or input error, or output that could not be written.
pub const EXIT_ERROR: i32 = 2;
