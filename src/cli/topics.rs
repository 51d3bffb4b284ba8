//! `--topics DUMP...` and `--bootstrap HOST:PORT --config-topic T
//! --status-topic T`: the internal topics as a witness (docs/topics.md).
//! With no log path the topics are the whole run: their records read,
//! typed, checked, and their findings printed like the logs' (each record
//! an input line); with logs, the topics' findings join the logs' findings
//! in the one report (the cross-checks between the two come later).

use super::flags::TopicsArgs;
use crate::audit::{InputError, InputReport, Report, Sink, sink::SourceTable};
use crate::finding::Finding;
use crate::input::{self, Input};
use crate::model::SourceId;
use crate::topics::live::{self, Connection, LiveReader, Security};
use crate::topics::{Shape, Skipped, check, dump, record};
use std::io;

/// The records of every dump and live topic of the run, typed, with what
/// could not be read.
struct Read {
    inputs: Vec<InputReport>,
    errors: Vec<InputError>,
    records: Vec<record::Record>,
    skipped: Vec<Skipped>,
}

/// The environment variable of a client property
/// (`sasl.username` → `HERDER_AUDIT_KAFKA_SASL_USERNAME`).
fn env_name(property: &str) -> String {
    format!(
        "HERDER_AUDIT_KAFKA_{}",
        property.replace('.', "_").to_ascii_uppercase()
    )
}

fn connection(a: &TopicsArgs, bootstrap: &str) -> Result<Connection, String> {
    let file = match &a.kafka_config {
        Some(p) => {
            let text = std::fs::read_to_string(p)
                .map_err(|e| format!("{}: {}", p.display(), input::describe(&e)))?;
            live::read_properties(&text)
        }
        None => Default::default(),
    };
    let security = Security::from_properties(|k| {
        std::env::var(env_name(k))
            .ok()
            .or_else(|| file.get(k).cloned())
    })
    .map_err(|e| match &a.kafka_config {
        Some(p) => format!("{}: {e}", p.display()),
        None => e,
    })?;
    Ok(Connection {
        bootstrap: bootstrap
            .split(',')
            .map(str::trim)
            .filter(|s| !s.is_empty())
            .map(str::to_string)
            .collect(),
        security,
    })
}

/// Reads the dumps and the live topics, numbering their inputs from
/// `first`.
fn read_all(a: &TopicsArgs, first: u32) -> Read {
    let mut r = Read {
        inputs: Vec::new(),
        errors: Vec::new(),
        records: Vec::new(),
        skipped: Vec::new(),
    };
    let (inputs, walk_errors) = input::expand(&a.dumps);
    for (input, message) in walk_errors {
        r.errors.push(InputError { input, message });
    }
    let mut raws = Vec::new();
    for input in inputs.iter().filter(|i| !matches!(i, Input::Stdin)) {
        let id = SourceId(first + r.inputs.len() as u32);
        let name = input.display();
        let mut rep = InputReport::empty(id, name.clone());
        match dump::read_input(id, input) {
            Ok(mut d) => {
                rep.gzip = d.gzip;
                rep.bytes = d.bytes;
                rep.lines = d.lines;
                rep.candidates = d.records.len() as u64;
                if d.shape == Some(Shape::Console) {
                    name_console_topic(&name, &mut d);
                }
                raws.push((rep.id, d.records));
                r.skipped.append(&mut d.skipped);
            }
            Err(e) => r.errors.push(InputError {
                input: name,
                message: input::describe(&e),
            }),
        }
        r.inputs.push(rep);
    }
    if let Some(b) = &a.bootstrap {
        read_live(a, b, first, &mut r, &mut raws);
    }
    for (id, recs) in raws {
        let mut typed = 0;
        for raw in recs {
            match record::classify(raw) {
                Ok(rec) => {
                    typed += 1;
                    r.records.push(rec);
                }
                Err(skipped) => r.skipped.push(skipped),
            }
        }
        r.inputs[(id.0 - first) as usize].events = typed;
    }
    r
}

fn read_live(
    a: &TopicsArgs,
    bootstrap: &str,
    first: u32,
    r: &mut Read,
    raws: &mut Vec<(SourceId, Vec<crate::topics::RawRecord>)>,
) {
    let topics: Vec<&String> = [&a.config_topic, &a.status_topic]
        .into_iter()
        .flatten()
        .collect();
    if topics.is_empty() {
        r.errors.push(InputError {
            input: bootstrap.to_string(),
            message: "--bootstrap needs --config-topic and/or --status-topic".into(),
        });
        return;
    }
    let reader = connection(a, bootstrap).and_then(|c| LiveReader::connect(&c));
    let mut reader = match reader {
        Ok(x) => x,
        Err(message) => {
            r.errors.push(InputError {
                input: bootstrap.to_string(),
                message,
            });
            return;
        }
    };
    for t in topics {
        let id = SourceId(first + r.inputs.len() as u32);
        let name = format!("kafka://{bootstrap}/{t}");
        let mut rep = InputReport::empty(id, name.clone());
        match reader.poll(t, id) {
            Ok(recs) => {
                rep.lines = recs.len() as u64;
                rep.candidates = recs.len() as u64;
                rep.bytes = recs
                    .iter()
                    .map(|x| {
                        x.key.as_ref().map_or(0, String::len)
                            + x.value.as_ref().map_or(0, String::len)
                    })
                    .sum::<usize>() as u64;
                raws.push((id, recs));
            }
            Err(message) => r.errors.push(InputError {
                input: name,
                message,
            }),
        }
        r.inputs.push(rep);
    }
}

/// A console dump names no topic; the harness's `<topic>.console.txt`
/// (conformance/topics.sh) does.
fn name_console_topic(name: &str, d: &mut dump::Dump) {
    let base = name.rsplit(['/', '\\']).next().unwrap_or(name);
    let base = base.strip_suffix(".gz").unwrap_or(base);
    if let Some(t) = base.strip_suffix(".console.txt").filter(|t| !t.is_empty()) {
        let t: std::sync::Arc<str> = std::sync::Arc::from(t);
        for rec in &mut d.records {
            rec.at.topic = Some(t.clone());
        }
    }
}

/// The findings of the topics, in the order their records made them
/// provable, and what the run read.
pub struct Witness {
    pub inputs: Vec<InputReport>,
    pub errors: Vec<InputError>,
    pub findings: Vec<Finding>,
    pub skipped: Vec<Skipped>,
}

/// Reads and checks the topics, numbering their inputs from `first`.
pub fn witness(a: &TopicsArgs, first: u32) -> Witness {
    let r = read_all(a, first);
    let findings = check::by_cluster(r.records)
        .iter()
        .flat_map(check::check)
        .collect();
    Witness {
        inputs: r.inputs,
        errors: r.errors,
        findings,
        skipped: r.skipped,
    }
}

/// Says on standard error which records were skipped and why.
pub fn tell_skipped(w: &Witness, names: &SourceTable) {
    use crate::audit::Names;
    for s in &w.skipped {
        let at = if s.line == 0 {
            names.source_name(s.source).to_string()
        } else {
            format!("{}:{}", names.source_name(s.source), s.line)
        };
        eprintln!("herder-audit: {at}: warning: record skipped: {}", s.message);
    }
}

/// The run of the topics alone.
pub fn run(a: &TopicsArgs, sink: &mut dyn Sink) -> io::Result<Report> {
    let w = witness(a, 0);
    let names = SourceTable(w.inputs.iter().map(|i| i.name.clone()).collect());
    tell_skipped(&w, &names);
    let mut report = Report {
        inputs: w.inputs,
        errors: w.errors,
        ..Report::default()
    };
    for f in w.findings {
        *report.counts.entry(f.kind).or_default() += 1;
        sink.finding(&names, f)?;
    }
    sink.batch_end()?;
    report.findings = sink.take_kept();
    Ok(report)
}

/// The topics beside the logs: their inputs numbered after the logs', their
/// findings after the logs' findings.
pub fn join(a: &TopicsArgs, report: &mut Report, sink: &mut dyn Sink) -> io::Result<()> {
    let w = witness(a, report.inputs.len() as u32);
    report.inputs.extend(w.inputs.iter().cloned());
    let names = SourceTable(report.inputs.iter().map(|i| i.name.clone()).collect());
    tell_skipped(&w, &names);
    report.errors.extend(w.errors);
    for f in w.findings {
        *report.counts.entry(f.kind).or_default() += 1;
        sink.finding(&names, f)?;
    }
    sink.batch_end()?;
    report.findings.extend(sink.take_kept());
    Ok(())
}
