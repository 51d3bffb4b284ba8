//! The stages of a split audit: `plan` (which files form one stream),
//! `map` (the per-stream stage), `reduce` (the cross-worker stage and the
//! report). `herder-audit map X | herder-audit reduce` prints what
//! `herder-audit X` prints.

use super::flags::{MapArgs, PlanArgs, ReduceArgs};
use super::output::{self, Dest};
use super::report;
use crate::audit::mapred::{self, MapWriter};
use crate::audit::{self, Options};
use crate::exit::{EXIT_ERROR, EXIT_OK};
use crate::input::{self, Input, rotation};
use serde_json::json;
use std::io::{self, BufRead};
use std::path::PathBuf;

/// Standard output, or the file of `-o`, as it is (JSON lines).
fn dest(file: &Option<PathBuf>) -> Dest<'_> {
    Dest {
        file: file.as_deref(),
        color: None,
    }
}

pub(super) fn plan(args: &PlanArgs) -> i32 {
    let (mut inputs, mut errors) = match &args.names {
        Some(f) => {
            let text = if f.as_os_str() == "-" {
                io::stdin()
                    .lock()
                    .lines()
                    .collect::<io::Result<Vec<String>>>()
            } else {
                std::fs::File::open(f).and_then(|h| io::BufReader::new(h).lines().collect())
            };
            match text {
                Ok(lines) => (
                    lines
                        .iter()
                        .map(|l| l.trim_end_matches('\r'))
                        .filter(|l| !l.trim().is_empty())
                        .map(|l| Input::File(PathBuf::from(l)))
                        .collect::<Vec<_>>(),
                    Vec::new(),
                ),
                Err(e) => {
                    eprintln!("herder-audit: {}: {}", f.display(), input::describe(&e));
                    return EXIT_ERROR;
                }
            }
        }
        None => input::expand(&args.paths),
    };
    inputs.sort_by(input::canonical_order);
    inputs.dedup();
    errors.sort_unstable();
    let mut fams = rotation::group(&inputs);
    let none = vec![None; inputs.len()];
    let streams: Vec<_> = fams
        .iter_mut()
        .map(|f| {
            rotation::order_segments(&inputs, f, &none);
            let name = rotation::stream_name(&inputs, f);
            json!({
                "stream": name,
                "segments": f.segments.iter().map(|&i| inputs[i].display()).collect::<Vec<_>>(),
            })
        })
        .collect();
    let doc = json!({
        "schema_version": mapred::MAP_SCHEMA_VERSION,
        "tool": {"name": "herder-audit", "version": env!("CARGO_PKG_VERSION")},
        "streams": streams,
        "errors": errors.iter().map(|(i, m)| json!({"input": i, "message": m})).collect::<Vec<_>>(),
    });
    for (i, m) in &errors {
        eprintln!("herder-audit: {i}: {m}");
    }
    if let Some(code) = output::print("herder-audit", Dest::plain(), |out| {
        serde_json::to_writer_pretty(&mut *out, &doc)?;
        writeln!(out)
    }) {
        return code;
    }
    if errors.is_empty() {
        EXIT_OK
    } else {
        EXIT_ERROR
    }
}

pub(super) fn map(args: &MapArgs) -> i32 {
    let mut inputs = Vec::new();
    for s in &args.segments {
        match s.split_once('=') {
            Some((name, path)) if !name.is_empty() && !path.is_empty() => {
                inputs.push(Input::Named {
                    name: name.to_string(),
                    path: PathBuf::from(path),
                })
            }
            _ => {
                eprintln!("herder-audit: --segment {s:?}: expected NAME=PATH");
                return EXIT_ERROR;
            }
        }
    }
    let paths = if args.paths.is_empty() && args.segments.is_empty() {
        vec![PathBuf::from("-")]
    } else {
        args.paths.clone()
    };
    let (found, mut walk_errors) = input::expand(&paths);
    inputs.extend(found);
    inputs.sort_by(input::canonical_order);
    inputs.dedup();
    walk_errors.sort_unstable();
    let opts = Options {
        jobs: args.jobs,
        timeline: args.timeline,
        ..Options::default()
    };
    let mut out = match output::open_or_say("herder-audit", dest(&args.output)) {
        Ok(o) => o,
        Err(code) => return code,
    };
    let mut errors = 0;
    let r = (|| {
        let mut w = MapWriter::new(&mut *out)?;
        let stream_errors = audit::map_to(&inputs, &opts, &mut w)?;
        for e in &stream_errors {
            eprintln!("herder-audit: {}: {}", e.input, e.message);
        }
        for (i, m) in &walk_errors {
            eprintln!("herder-audit: {i}: {m}");
        }
        errors = stream_errors.len() + walk_errors.len();
        w.errors(
            walk_errors
                .into_iter()
                .map(|(input, message)| audit::InputError { input, message })
                .collect(),
        )?;
        w.finish()
    })();
    if let Some(code) = output::failed("herder-audit", r) {
        return code;
    }
    if errors == 0 { EXIT_OK } else { EXIT_ERROR }
}

pub(super) fn reduce(args: &ReduceArgs) -> i32 {
    let files: Vec<Input> = if args.files.is_empty() {
        vec![Input::Stdin]
    } else {
        args.files
            .iter()
            .map(|p| {
                if p.as_os_str() == "-" {
                    Input::Stdin
                } else {
                    Input::File(p.clone())
                }
            })
            .collect()
    };
    if args.partial && args.topics.given() {
        eprintln!(
            "herder-audit reduce: --partial does not take the internal topics; give them to the last reduce"
        );
        return EXIT_ERROR;
    }
    if args.partial {
        let mut out = match output::open_or_say("herder-audit", dest(&args.out.output)) {
            Ok(o) => o,
            Err(code) => return code,
        };
        return match mapred::reduce_partial(&files, &mut *out) {
            Ok(errors) => {
                for e in &errors {
                    eprintln!("herder-audit: {}: {}", e.input, e.message);
                }
                if errors.is_empty() {
                    EXIT_OK
                } else {
                    EXIT_ERROR
                }
            }
            Err(e) => output::failed("herder-audit", Err(e)).unwrap_or(EXIT_ERROR),
        };
    }
    let mut prepare = |first: u32, names: &[String]| {
        let p = super::topics::prepare(&args.topics, first, names);
        (p.witness, p.errors)
    };
    let topics: Option<mapred::Topics<'_>> = args.topics.given().then_some(&mut prepare as _);
    report::run(
        &args.out,
        false,
        Box::new(|sink: &mut dyn audit::Sink| mapred::reduce_to(&files, topics, sink)),
    )
}
