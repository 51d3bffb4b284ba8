//! Live input through a pipe: findings come out while the pipe is still
//! open, as soon as the line that proves them has been written; piped input
//! prints what the file prints; SIGINT and SIGTERM end a live run with its
//! summary and the usual exit status. (Following files: `live_follow.rs`.)
//!
//! Every check is about order (a finding is read before the writer goes on
//! past the line that proves it), never about time.

mod support;

use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};
use support::live::*;
use support::{BIN, corpus, lines_of, scratch};

/// The single-stream faulty traces: every single-worker trace of the
/// corpus, and a compose file interleaving two workers (cross-worker
/// findings within one stream).
fn faulty_traces() -> Vec<PathBuf> {
    let mut v: Vec<PathBuf> = std::fs::read_dir(corpus(""))
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| {
            let n = p.file_name().unwrap().to_string_lossy();
            n.starts_with("fault-") && n.ends_with(".log")
        })
        .collect();
    v.sort();
    v.push(corpus("multi-compose-interleaved/docker-compose.log"));
    assert!(v.len() > 10, "{v:?}");
    v
}

/// Feeds `trace` into the run's standard input in pieces of `chunk` bytes
/// (cutting lines anywhere), pausing right after each line that makes a
/// finding provable until every finding provable so far has been read,
/// with the pipe still open; then closes it and checks the whole output.
fn pipe_trace(trace: &Path, args: &[&str], chunk: usize) {
    let want = expected(trace, "<stdin>");
    assert!(!want.is_empty(), "{}: no finding", trace.display());
    let mut stops: Vec<u64> = want.iter().map(|e| e.provable).collect();
    stops.sort();
    stops.dedup();
    let lines = lines_of(trace);
    let mut audit = Audit::start(args, true);
    let pipe = Arc::new(Mutex::new(audit.take_stdin()));
    let mut script = Vec::new();
    let mut at = 0;
    for &stop in &stops {
        let data = join(&lines, at, stop as usize);
        script.extend(in_chunks(&data, chunk, |c| write_pipe(&pipe, c)));
        script.push(Step::Pause(format!("line {stop}")));
        at = stop as usize;
    }
    let rest = join(&lines, at, lines.len());
    script.extend(in_chunks(&rest, chunk, |c| write_pipe(&pipe, c)));
    let writer = Writer::start(script);
    for &stop in &stops {
        writer.reached(&format!("line {stop}"));
        let now: Vec<Found> = want
            .iter()
            .filter(|e| e.provable <= stop)
            .map(|e| e.found.clone())
            .collect();
        audit.await_found(&now);
        assert_eq!(
            audit.found.len(),
            now.len(),
            "{}: after line {stop}: read {:?}, provable so far {now:?}",
            trace.display(),
            audit.found
        );
        writer.resume();
    }
    writer.join();
    drop(pipe);
    let (status, out, err) = audit.wait();
    assert!(err.is_empty(), "{err}");
    let file = std::process::Command::new(BIN).arg(trace).output().unwrap();
    assert_eq!(status.code(), file.status.code(), "{}", trace.display());
    // The run finds what the batch run of the file finds and ends with the
    // same summary. (Its findings come in the order they became provable,
    // which the pauses may change for one that waits, like a
    // `foreign-start`; they may quote less evidence: those the pauses made
    // final before an amending line came.)
    let batch = batch_output(&args[..args.len() - 1], trace, "<stdin>");
    let mut found: Vec<Found> = want.iter().map(|e| e.found.clone()).collect();
    let mut live = audit_found(&out, args);
    found.sort();
    live.sort();
    assert_eq!(live, found, "{}", trace.display());
    assert_eq!(
        summary(&out.join("\n")),
        summary(&batch),
        "{}",
        trace.display()
    );
}

/// The findings of a finished run's output.
fn audit_found(out: &[String], args: &[&str]) -> Vec<Found> {
    found_in(out, args.contains(&"jsonl"))
}

/// The summary: the text after the `summary` line, or the last JSON line.
fn summary(out: &str) -> String {
    match out.find("\nsummary\n") {
        Some(i) => out[i..].trim_end().to_string(),
        None => out.trim_end().lines().last().unwrap_or("").to_string(),
    }
}

#[test]
fn text_findings_arrive_while_the_pipe_is_open() {
    for trace in faulty_traces() {
        pipe_trace(&trace, &["-"], 97);
    }
}

#[test]
fn jsonl_findings_arrive_while_the_pipe_is_open() {
    // A short idle timeout: a `foreign-start` waits (for its owner's
    // assignment line) until log time moves on or the stream is idle.
    for trace in faulty_traces() {
        pipe_trace(
            &trace,
            &["--format", "jsonl", "--idle-timeout", "0.5", "-"],
            4096,
        );
    }
}

/// All `.log` traces of the corpus that are one worker's log.
fn single_traces() -> Vec<PathBuf> {
    let mut v: Vec<PathBuf> = std::fs::read_dir(corpus(""))
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|x| x == "log"))
        .collect();
    v.sort();
    assert!(v.len() > 20, "{v:?}");
    v
}

#[test]
fn piped_input_prints_what_the_file_prints() {
    for trace in single_traces() {
        let batch = batch_output(&[], &trace, "<stdin>");
        // Through a pipe (live input: read as it comes). Each trace fits
        // the pipe's buffer: written at once, read at once, so the output
        // is the batch run's to the byte.
        let mut audit = Audit::start(&[], true);
        let data = std::fs::read(&trace).unwrap();
        let mut pipe = audit.take_stdin();
        let writer = std::thread::spawn(move || {
            use std::io::Write;
            pipe.write_all(&data).unwrap();
        });
        writer.join().unwrap();
        let (status, out, err) = audit.wait();
        assert!(err.is_empty(), "{err}");
        assert_eq!(out.join("\n") + "\n", batch, "{}", trace.display());
        let file = std::process::Command::new(BIN)
            .arg(&trace)
            .output()
            .unwrap();
        assert_eq!(status.code(), file.status.code(), "{}", trace.display());
        // Redirected from the file (read like a file).
        let redirected = std::process::Command::new(BIN)
            .stdin(std::fs::File::open(&trace).unwrap())
            .output()
            .unwrap();
        assert_eq!(
            String::from_utf8(redirected.stdout).unwrap(),
            batch,
            "{}",
            trace.display()
        );
    }
}

/// The first `n` lines of a trace, as a file of their own.
fn head_of(trace: &Path, n: usize, dir: &Path) -> PathBuf {
    let p = dir.join(trace.file_name().unwrap());
    std::fs::write(&p, join(&lines_of(trace), 0, n)).unwrap();
    p
}

#[test]
fn sigterm_ends_a_run_on_an_open_pipe_with_the_summary_line() {
    let dir = scratch("sigterm");
    // KAFKA-8676 up to its second finding's line: everything read is in
    // the summary.
    let trace = head_of(&corpus("fault-kafka-8676-2.3.0.log"), 62, &dir);
    let want = expected(&trace, "<stdin>");
    assert_eq!(want.len(), 2);
    let mut audit = Audit::start(&["--format", "jsonl"], true);
    let mut pipe = audit.take_stdin();
    {
        use std::io::Write;
        pipe.write_all(&std::fs::read(&trace).unwrap()).unwrap();
        pipe.flush().unwrap();
    }
    let found: Vec<Found> = want.iter().map(|e| e.found.clone()).collect();
    audit.await_found(&found);
    audit.signal("TERM");
    let (status, out, err) = audit.wait();
    drop(pipe);
    assert!(err.is_empty(), "{err}");
    assert_eq!(status.code(), Some(1));
    let batch = std::process::Command::new(BIN)
        .args(["--format", "jsonl"])
        .stdin(std::fs::File::open(&trace).unwrap())
        .output()
        .unwrap();
    let batch = String::from_utf8(batch.stdout).unwrap();
    assert_eq!(out.last().map(String::as_str), batch.lines().last());
    assert!(out.last().unwrap().contains(r#""type":"summary""#));
}

#[test]
fn sigint_ends_a_follow_run_with_the_summary() {
    let dir = scratch("sigint");
    let trace = head_of(&corpus("fault-kafka-8676-2.3.0.log"), 62, &dir);
    let name = trace.display().to_string();
    let want: Vec<Found> = expected(&trace, &name)
        .into_iter()
        .map(|e| e.found)
        .collect();
    let mut audit = Audit::start(&["-f", &name], false);
    audit.await_found(&want);
    audit.signal("INT");
    let (status, out, err) = audit.wait();
    assert!(err.is_empty(), "{err}");
    assert_eq!(status.code(), Some(1));
    // What was read is all there is: the batch run's output, summary
    // included.
    assert_eq!(out.join("\n") + "\n", batch_output(&[], &trace, &name));
}

#[test]
fn sigint_exit_status_is_0_when_only_warnings_were_printed() {
    let dir = scratch("sigint-warnings");
    // Four double-start warnings (lines 37-40), then the start phase ends.
    let trace = head_of(
        &corpus("fault-double-start-forgotten-running-3.3.2.log"),
        48,
        &dir,
    );
    let name = trace.display().to_string();
    let want: Vec<Found> = expected(&trace, &name)
        .into_iter()
        .map(|e| e.found)
        .collect();
    assert_eq!(want.len(), 4);
    for (fail_on, code) in [("error", 0), ("warning", 1)] {
        let mut audit = Audit::start(&["-f", "--fail-on", fail_on, &name], false);
        audit.await_found(&want);
        audit.signal("INT");
        let (status, out, err) = audit.wait();
        assert!(err.is_empty(), "{err}");
        assert_eq!(status.code(), Some(code), "--fail-on {fail_on}");
        assert!(out.iter().any(|l| l == "summary"), "{out:?}");
    }
}
