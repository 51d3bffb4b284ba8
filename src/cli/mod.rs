//! Command line: flags → options → run → exit code. Every flag, the shell
//! completions and the manual page are in [`flags`]; every command writes
//! through [`output`]. The audit commands (`herder-audit`, `replay`,
//! `reduce`) share one printing path ([`report`]); the stages of a split
//! run (`plan`, `map`, `reduce`) are in [`stages`]; `check` and `diff` in
//! [`check`]; `explain`, `completions` and `man` in [`docs`]; `simulate`
//! in [`simulate`]; the internal topics as a witness in [`topics`].

mod check;
mod docs;
mod flags;
mod output;
mod report;
mod simulate;
mod stages;
pub(crate) mod topics;

use crate::audit::{self, Live, Options};
use crate::exit::EXIT_ERROR;
use crate::input::{self, Input};
use flags::{AuditArgs, Command, Format};
use std::path::PathBuf;
use std::time::Duration;

/// Runs the command line; returns the exit status.
pub fn run() -> i32 {
    crate::guard::install_hook();
    let cli = match flags::parse() {
        Ok(c) => c,
        Err(code) => return code,
    };
    match cli.command {
        Some(Command::Simulate(a)) => simulate::simulate(&a),
        Some(Command::Explain(a)) => docs::explain(&a),
        Some(Command::Completions(a)) => docs::completions(&a),
        Some(Command::Man) => docs::man(),
        Some(Command::Check(a)) => check::check(&a),
        Some(Command::Diff(a)) => check::diff_reports(&a),
        Some(Command::Plan(a)) => stages::plan(&a),
        Some(Command::Map(a)) => stages::map(&a),
        Some(Command::Reduce(a)) => stages::reduce(&a),
        Some(Command::Watch(a)) => crate::watch::run(&a.options()),
        Some(Command::Replay(a)) => audit_command(&a, true),
        None => audit_command(&cli.audit, false),
    }
}

/// Live input: stdin is read as it comes; `--follow` keeps files open.
/// SIGINT and SIGTERM end the run cleanly (a second SIGINT kills it).
fn live_options(args: &AuditArgs, inputs: &[Input]) -> Option<Live> {
    if !args.follow && (!inputs.contains(&Input::Stdin) || stdin_is_file()) {
        return None;
    }
    let secs = if args.idle_timeout.is_finite() && args.idle_timeout >= 0.0 {
        args.idle_timeout.min(86_400.0)
    } else {
        3.0
    };
    let mut live = Live::new(Duration::from_secs_f64(secs));
    live.follow = args.follow;
    live.roots = args.paths.iter().filter(|p| p.is_dir()).cloned().collect();
    for sig in [signal_hook::consts::SIGINT, signal_hook::consts::SIGTERM] {
        // A second signal while the first is handled ends the process.
        let _ = signal_hook::flag::register_conditional_shutdown(sig, 130, live.stop.clone());
        let _ = signal_hook::flag::register(sig, live.stop.clone());
    }
    Some(live)
}

/// Standard input redirected from a file (`< FILE`): finite, read like a
/// file argument.
fn stdin_is_file() -> bool {
    cfg!(unix) && std::fs::metadata("/dev/stdin").is_ok_and(|m| m.is_file())
}

fn audit_command(args: &AuditArgs, replay: bool) -> i32 {
    let topics = args.topics.given();
    if topics && args.follow {
        eprintln!(
            "herder-audit: --follow does not read the internal topics (--topics, --bootstrap) yet; `herder-audit watch` reads them live"
        );
        return EXIT_ERROR;
    }
    let paths = if args.paths.is_empty() && !topics {
        vec![PathBuf::from("-")]
    } else {
        // the topics alone: standard input is not read
        args.paths.clone()
    };
    let (inputs, mut walk_errors) = input::expand(&paths);
    walk_errors.sort_unstable();
    let mut opts = Options {
        keep_generations: replay,
        jobs: args.jobs,
        cross: true,
        progress: true,
        live: live_options(args, &inputs),
        timeline: args.out.format == Format::Html,
        witness: None,
    };
    let mut topic_errors = Vec::new();
    if topics {
        let names: Vec<String> = inputs.iter().map(Input::display).collect();
        let p = topics::prepare(&args.topics, inputs.len() as u32, &names);
        opts.witness = Some(p.witness);
        topic_errors = p.errors;
    }
    report::run(
        &args.out,
        replay,
        Box::new(|sink: &mut dyn audit::Sink| {
            let mut r = audit::audit_to(&inputs, &opts, sink)?;
            for (input, message) in walk_errors {
                r.errors.push(audit::InputError { input, message });
            }
            r.errors.extend(topic_errors);
            Ok(r)
        }),
    )
}
