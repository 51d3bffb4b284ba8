//! The integration tests' one support module: every test file that needs
//! help declares `mod support;` and takes what it needs from here.
//!
//! * [`bin`]: the binary under test, and one run of it with its exit
//!   status, standard output and standard error (no run may panic).
//! * [`files`]: scratch directories, reading and writing files, gzip, the
//!   lines of a text.
//! * [`cases`]: the corpus's traces and their logs, copies of them, and the
//!   in-process audit of paths or bytes.
//! * [`sources`]: the bookkeeping of the tests that convert the corpus into
//!   the envelopes logs are read in (container-runtime files, log-store
//!   exports, hard-wrapped lines) and what must not change.
//! * [`live`]: the binary as a child read line by line as it comes, and a
//!   writer thread that feeds it in steps.
//! * [`watch`]: `herder-audit watch` run as a child, its HTTP endpoint, and
//!   the findings of its JSON-lines output.
//! * [`shared_buf`]: a log written in memory (the simulator's output in
//!   the tests), also the unit tests' (`src/lib.rs` includes this file).
//!
//! Nothing here measures time; every wait is bounded by a deadline that
//! fails the test rather than letting it hang.
#![allow(dead_code, unused_imports)]

pub mod bin;
pub mod cases;
pub mod files;
pub mod live;
pub mod shared_buf;
pub mod sources;
pub mod watch;

pub use bin::{BIN, bin, bin_no_color, check_cmd, run};
pub use cases::{
    CLEAN, K8676, LogFile, audit_bytes, audit_path, audit_paths, cases, copy_dir, copy_log, corpus,
    hand_written_cases, logs,
};
pub use files::{Scratch, gunzip, gzip, lines, lines_of, read, scratch, scratch_removed, write};
pub use shared_buf::SharedBuf;
