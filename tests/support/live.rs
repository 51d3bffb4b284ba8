//! Helpers of the live tests: the binary run as a child whose output is
//! read line by line as it comes, a writer thread that feeds input in
//! steps and waits at marked points until the test lets it go on, and
//! what the batch run of a trace finds (the oracle: `tests/corpus.rs`
//! checks it against the hand-written expectations).
//!
//! Nothing here measures time: every wait is for an event (a line read, a
//! step reached), bounded by a deadline that fails the test rather than
//! letting it hang.

use super::bin::BIN;
use super::files::lines_of;
use serde_json::Value;
use std::io::{BufRead, BufReader, Read, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStdin, Command, ExitStatus, Stdio};
use std::sync::mpsc::{Receiver, RecvTimeoutError, SyncSender, channel, sync_channel};
use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

/// How long any one awaited event may take before the test fails (the
/// machine may be loaded; this is a guard against hanging, not a timing).
pub const DEADLINE: Duration = Duration::from_secs(120);

/// Lines `from..to` (0-based, end excluded) joined.
pub fn join(lines: &[Vec<u8>], from: usize, to: usize) -> Vec<u8> {
    lines[from..to].concat()
}

/// A finding as the output names it.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
pub struct Found {
    pub kind: String,
    /// The trigger line's source (`<stdin>`, a path).
    pub source: String,
    pub line: u64,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Format {
    Text,
    Jsonl,
}

/// Reads findings out of output lines as they come (text diagnostics:
/// the `kind[…]:` head, then the first `--> source:line` line).
#[derive(Debug, Default)]
struct Parser {
    head: Option<String>,
}

impl Parser {
    fn line(&mut self, format: Format, l: &str) -> Option<Found> {
        match format {
            Format::Jsonl => {
                let v: Value = serde_json::from_str(l)
                    .unwrap_or_else(|e| panic!("not a JSON line ({e}): {l}"));
                if v["type"] != "finding" {
                    return None;
                }
                Some(Found {
                    kind: v["kind"].as_str().unwrap().to_string(),
                    source: v["trigger"]["source"].as_str().unwrap().to_string(),
                    line: v["trigger"]["line"].as_u64().unwrap(),
                })
            }
            Format::Text => {
                for sev in ["error[", "warning["] {
                    if let Some(rest) = l.strip_prefix(sev) {
                        let kind = rest.split(']').next().unwrap().to_string();
                        self.head = Some(kind);
                        return None;
                    }
                }
                let at = l.trim_start().strip_prefix("--> ")?;
                let kind = self.head.take()?;
                let (source, line) = at.rsplit_once(':').unwrap();
                Some(Found {
                    kind,
                    source: source.to_string(),
                    line: line.parse().unwrap(),
                })
            }
        }
    }
}

/// The findings in output lines.
pub fn found_in(lines: &[String], jsonl: bool) -> Vec<Found> {
    let format = if jsonl { Format::Jsonl } else { Format::Text };
    let mut p = Parser::default();
    lines.iter().filter_map(|l| p.line(format, l)).collect()
}

/// A run of the binary, its standard output read as it comes.
pub struct Audit {
    child: Child,
    format: Format,
    out: Receiver<String>,
    parser: Parser,
    /// Every output line read so far.
    pub lines: Vec<String>,
    /// Every finding read so far, in order.
    pub found: Vec<Found>,
    err: Arc<Mutex<String>>,
    err_thread: Option<JoinHandle<()>>,
}

impl Audit {
    /// Starts `herder-audit ARGS` with standard input a pipe (`stdin`) or
    /// empty.
    pub fn start(args: &[&str], stdin: bool) -> Audit {
        let format = if args.windows(2).any(|w| w == ["--format", "jsonl"]) {
            Format::Jsonl
        } else {
            Format::Text
        };
        let mut child = Command::new(BIN)
            .args(args)
            .stdin(if stdin { Stdio::piped() } else { Stdio::null() })
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        let (tx, out) = channel();
        let stdout = child.stdout.take().unwrap();
        std::thread::spawn(move || {
            for l in BufReader::new(stdout).lines() {
                let Ok(l) = l else { break };
                if tx.send(l).is_err() {
                    break;
                }
            }
        });
        let err = Arc::new(Mutex::new(String::new()));
        let mut stderr = child.stderr.take().unwrap();
        let e = err.clone();
        let err_thread = std::thread::spawn(move || {
            let mut buf = [0u8; 4096];
            while let Ok(n) = stderr.read(&mut buf) {
                if n == 0 {
                    break;
                }
                e.lock()
                    .unwrap()
                    .push_str(&String::from_utf8_lossy(&buf[..n]));
            }
        });
        Audit {
            child,
            format,
            out,
            parser: Parser::default(),
            lines: Vec::new(),
            found: Vec::new(),
            err,
            err_thread: Some(err_thread),
        }
    }

    pub fn pid(&self) -> u32 {
        self.child.id()
    }

    pub fn take_stdin(&mut self) -> ChildStdin {
        self.child.stdin.take().unwrap()
    }

    fn context(&self) -> String {
        format!(
            "output so far:\n{}\nstderr so far:\n{}",
            self.lines.join("\n"),
            self.err.lock().unwrap()
        )
    }

    /// Reads output until `done` holds for what was read; fails the test
    /// when the output ends first or the deadline passes.
    pub fn until(&mut self, what: &str, mut done: impl FnMut(&Audit) -> bool) {
        let deadline = Instant::now() + DEADLINE;
        while !done(self) {
            let left = deadline.saturating_duration_since(Instant::now());
            match self.out.recv_timeout(left) {
                Ok(l) => {
                    if let Some(f) = self.parser.line(self.format, &l) {
                        self.found.push(f);
                    }
                    self.lines.push(l);
                }
                Err(RecvTimeoutError::Timeout) => {
                    panic!("waited {DEADLINE:?} for {what}; {}", self.context())
                }
                Err(RecvTimeoutError::Disconnected) => {
                    panic!("output ended before {what}; {}", self.context())
                }
            }
        }
    }

    /// Waits until the findings read hold every one of `want` (as a
    /// multiset).
    pub fn await_found(&mut self, want: &[Found]) {
        let what = format!("the findings {want:?}");
        self.until(&what, |a| contains_all(&a.found, want));
    }

    /// Sends a signal (`INT`, `TERM`) to the run.
    pub fn signal(&self, sig: &str) {
        let ok = Command::new("kill")
            .arg(format!("-{sig}"))
            .arg(self.pid().to_string())
            .status()
            .unwrap()
            .success();
        assert!(ok, "kill -{sig} failed");
    }

    /// Closes its standard input and waits for the run to end; returns
    /// its status, all its output lines and its standard error.
    pub fn wait(mut self) -> (ExitStatus, Vec<String>, String) {
        drop(self.child.stdin.take());
        let deadline = Instant::now() + DEADLINE;
        loop {
            let left = deadline.saturating_duration_since(Instant::now());
            match self.out.recv_timeout(left) {
                Ok(l) => {
                    if let Some(f) = self.parser.line(self.format, &l) {
                        self.found.push(f);
                    }
                    self.lines.push(l);
                }
                Err(RecvTimeoutError::Disconnected) => break,
                Err(RecvTimeoutError::Timeout) => {
                    let _ = self.child.kill();
                    panic!("the run did not end; {}", self.context())
                }
            }
        }
        let status = self.child.wait().unwrap();
        if let Some(t) = self.err_thread.take() {
            t.join().unwrap();
        }
        let err = self.err.lock().unwrap().clone();
        (status, std::mem::take(&mut self.lines), err)
    }
}

impl Drop for Audit {
    fn drop(&mut self) {
        // A failed test must not leave a follower running.
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// Does `have` hold every element of `want`, as many times?
pub fn contains_all(have: &[Found], want: &[Found]) -> bool {
    let mut have = have.to_vec();
    for w in want {
        match have.iter().position(|h| h == w) {
            Some(i) => {
                have.swap_remove(i);
            }
            None => return false,
        }
    }
    true
}

/// One step of a writer's script.
pub enum Step {
    /// Do something (write, rename, truncate).
    Do(Box<dyn FnOnce() + Send>),
    /// Stop here, say so, and wait until told to go on.
    Pause(String),
}

/// A thread that runs a script of steps, waiting at each pause.
pub struct Writer {
    reached: Receiver<String>,
    go: Option<SyncSender<()>>,
    handle: Option<JoinHandle<()>>,
}

impl Writer {
    pub fn start(script: Vec<Step>) -> Writer {
        let (tx, reached) = channel();
        let (go, rx) = sync_channel::<()>(0);
        let handle = std::thread::spawn(move || {
            for step in script {
                match step {
                    Step::Do(f) => f(),
                    Step::Pause(tag) => {
                        if tx.send(tag).is_err() || rx.recv().is_err() {
                            // The test is gone: stop writing.
                            return;
                        }
                    }
                }
            }
        });
        Writer {
            reached,
            go: Some(go),
            handle: Some(handle),
        }
    }

    /// Waits until the writer stops at the pause `tag`.
    pub fn reached(&self, tag: &str) {
        match self.reached.recv_timeout(DEADLINE) {
            Ok(t) => assert_eq!(t, tag, "the writer paused elsewhere"),
            Err(e) => panic!("the writer did not reach {tag}: {e}"),
        }
    }

    /// Lets the writer go on from its pause.
    pub fn resume(&self) {
        self.go.as_ref().unwrap().send(()).unwrap();
    }

    /// Waits for the writer to run its script to the end.
    pub fn join(mut self) {
        drop(self.go.take());
        if let Some(h) = self.handle.take() {
            h.join().expect("the writer failed");
        }
    }
}

/// A step writing `data` to a pipe, flushed.
pub fn write_pipe(pipe: &Arc<Mutex<ChildStdin>>, data: Vec<u8>) -> Step {
    let pipe = pipe.clone();
    Step::Do(Box::new(move || {
        let mut p = pipe.lock().unwrap();
        p.write_all(&data).unwrap();
        p.flush().unwrap();
    }))
}

/// A step appending `data` to a file.
pub fn append(path: &Path, data: Vec<u8>) -> Step {
    let path = path.to_path_buf();
    Step::Do(Box::new(move || {
        let mut f = std::fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(&path)
            .unwrap();
        f.write_all(&data).unwrap();
    }))
}

/// A step running `f`.
pub fn run(f: impl FnOnce() + Send + 'static) -> Step {
    Step::Do(Box::new(f))
}

/// Steps that write `data` in pieces of `chunk` bytes (cutting lines).
pub fn in_chunks(data: &[u8], chunk: usize, write: impl Fn(Vec<u8>) -> Step) -> Vec<Step> {
    data.chunks(chunk).map(|c| write(c.to_vec())).collect()
}

/// A finding of the batch run, with the line from which it is provable:
/// the latest of its trigger and evidence lines in the trigger's file,
/// except evidence that only amends a finding already made (the Worker
/// refusing a double start: [`AMENDS`]); an `offset-mismatch-start` is
/// final when its start phase ends (it quotes the starts of the phase),
/// on the `Finished starting` line.
#[derive(Debug, Clone)]
pub struct Expected {
    pub found: Found,
    pub provable: u64,
}

/// The role of evidence that amends a finding already made. A live run
/// hands such a finding on once the stream has gone quiet after it, with
/// the evidence read by then.
pub const AMENDS: &str = "the Worker refuses: an instance already exists";

/// What `herder-audit --format jsonl PATH` finds, with `source` for the
/// name of the trigger's file (`<stdin>`, or the path it will be followed
/// at).
pub fn expected(path: &Path, source: &str) -> Vec<Expected> {
    let out = Command::new(BIN)
        .args(["--format", "jsonl", "--no-summary"])
        .arg(path)
        .output()
        .unwrap();
    let lines = lines_of(path);
    let name = path.display().to_string();
    String::from_utf8(out.stdout)
        .unwrap()
        .lines()
        .filter_map(|l| {
            let v: Value = serde_json::from_str(l).unwrap();
            (v["type"] == "finding").then_some(v)
        })
        .map(|v| {
            let kind = v["kind"].as_str().unwrap().to_string();
            let trigger = v["trigger"]["line"].as_u64().unwrap();
            assert_eq!(v["trigger"]["source"], name.as_str());
            let mut provable = v["evidence"]
                .as_array()
                .unwrap()
                .iter()
                .filter(|e| e["source"] == name.as_str() && e["role"] != AMENDS)
                .filter_map(|e| e["line"].as_u64())
                .fold(trigger, u64::max);
            if kind == "offset-mismatch-start" {
                provable = (provable as usize..=lines.len())
                    .find(|&n| {
                        String::from_utf8_lossy(&lines[n - 1])
                            .contains("Finished starting connectors and tasks")
                    })
                    .expect("a start phase that ends") as u64;
            }
            Expected {
                found: Found {
                    kind,
                    source: source.to_string(),
                    line: trigger,
                },
                provable,
            }
        })
        .collect()
}

/// The output of a batch run, with the path named as `as_name`.
pub fn batch_output(args: &[&str], path: &Path, as_name: &str) -> String {
    let out = Command::new(BIN).args(args).arg(path).output().unwrap();
    String::from_utf8(out.stdout)
        .unwrap()
        .replace(&path.display().to_string(), as_name)
}
