//! The one output path of every command: where the output goes (standard
//! output or a file; through a colour-aware stream or as it is), and what
//! a failed write means for the exit status.

use crate::exit::EXIT_ERROR;
use crate::input;
use std::io::{self, Write};
use std::path::Path;

/// Where a command writes and how.
#[derive(Debug, Clone, Copy)]
pub(super) struct Dest<'a> {
    /// A file instead of standard output.
    pub file: Option<&'a Path>,
    /// Text that may carry colour goes through a stream that keeps or
    /// strips it as chosen (`--color`, `NO_COLOR`, a terminal or not);
    /// `None` writes the bytes as they are (JSON escapes every control
    /// character: nothing to strip).
    pub color: Option<anstream::ColorChoice>,
}

impl<'a> Dest<'a> {
    /// Standard output, the bytes as they are.
    pub fn plain() -> Dest<'a> {
        Dest {
            file: None,
            color: None,
        }
    }

    /// Standard output, coloured as chosen.
    pub fn colored(choice: anstream::ColorChoice) -> Dest<'a> {
        Dest {
            file: None,
            color: Some(choice),
        }
    }
}

/// Opens the output, buffered; the error names a file that cannot be
/// created.
pub(super) fn open(dest: Dest) -> io::Result<Box<dyn Write + Send>> {
    // The colour-aware stream wraps the file or standard output itself:
    // whether it is a terminal decides `auto`.
    fn buffered<W: Write + Send + 'static>(w: W) -> Box<dyn Write + Send> {
        Box::new(io::BufWriter::new(w))
    }
    let file = match dest.file {
        Some(p) => Some(std::fs::File::create(p).map_err(|e| {
            io::Error::other(format!(
                "cannot create {}: {}",
                p.display(),
                input::describe(&e)
            ))
        })?),
        None => None,
    };
    Ok(match (file, dest.color) {
        (Some(f), Some(choice)) => buffered(anstream::AutoStream::new(f, choice)),
        (Some(f), None) => buffered(f),
        (None, Some(choice)) => buffered(anstream::AutoStream::new(io::stdout(), choice)),
        (None, None) => buffered(io::stdout()),
    })
}

/// Opens the output or says on standard error why it cannot be opened
/// (the error is then the exit status).
pub(super) fn open_or_say(command: &str, dest: Dest) -> Result<Box<dyn Write + Send>, i32> {
    open(dest).map_err(|e| {
        eprintln!("{command}: {e}");
        EXIT_ERROR
    })
}

/// Opens the output, writes `body` to it and flushes it: `None` when all
/// went well, else the exit status ([`failed`]).
pub(super) fn print(
    command: &str,
    dest: Dest,
    body: impl FnOnce(&mut dyn Write) -> io::Result<()>,
) -> Option<i32> {
    let mut out = match open_or_say(command, dest) {
        Ok(o) => o,
        Err(code) => return Some(code),
    };
    failed(command, body(&mut out).and_then(|()| out.flush()))
}

/// What a failed write of the output means for the run: `None` when it
/// succeeded; a closed pipe (`| head`) ends the run quietly; any other
/// error is reported, naming the command (`herder-audit check`), and the
/// run exits with [`EXIT_ERROR`].
pub(super) fn failed(command: &str, written: io::Result<()>) -> Option<i32> {
    match written {
        Ok(()) => None,
        Err(e) if e.kind() == io::ErrorKind::BrokenPipe => Some(crate::exit::EXIT_OK),
        Err(e) => {
            eprintln!("{command}: writing output: {}", input::describe(&e));
            Some(EXIT_ERROR)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::exit::EXIT_OK;
    use std::io::{Error, ErrorKind};

    #[test]
    fn a_closed_pipe_is_quiet_other_errors_fail() {
        assert_eq!(failed("t", Ok(())), None);
        assert_eq!(
            failed("t", Err(Error::from(ErrorKind::BrokenPipe))),
            Some(EXIT_OK)
        );
        assert_eq!(
            failed("t", Err(Error::from(ErrorKind::PermissionDenied))),
            Some(EXIT_ERROR)
        );
    }

    #[test]
    fn a_file_that_cannot_be_created_is_named() {
        let dir = std::env::temp_dir().join(format!("herder-audit-output-{}", std::process::id()));
        let path = dir.join("missing-dir").join("out.txt");
        let err = open(Dest {
            file: Some(&path),
            color: None,
        })
        .err()
        .expect("no such directory");
        assert!(
            err.to_string()
                .starts_with(&format!("cannot create {}: ", path.display())),
            "{err}"
        );
    }
}
