//! `--topics DUMP...` and `--bootstrap HOST:PORT --config-topic T
//! --status-topic T`: the internal topics as a witness (docs/topics.md).
//! The records are read and typed here and handed to the audit
//! ([`crate::audit::Witness`]), whose item stream they join keyed by their
//! time stamps; with no log path they are the whole run.

use super::flags::TopicsArgs;
use crate::audit::{InputError, InputReport, sink::SourceTable};
use crate::input::{self, Input};
use crate::model::SourceId;
use crate::topics::live::{self, Connection, LiveReader};
use crate::topics::{Shape, Skipped, dump, record};

/// The records of every dump and live topic of the run, typed, with what
/// could not be read.
struct Read {
    inputs: Vec<InputReport>,
    errors: Vec<InputError>,
    records: Vec<record::Record>,
    skipped: Vec<Skipped>,
}

fn connection(a: &TopicsArgs, bootstrap: &str) -> Result<Connection, String> {
    live::connect_to(bootstrap, a.live.kafka_config.as_deref())
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
    if let Some(b) = &a.live.bootstrap {
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
    let topics: Vec<&String> = [&a.live.config_topic, &a.live.status_topic]
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

/// The topics read for a run: the witness handed to the audit, and what
/// could not be read.
pub struct Prepared {
    pub witness: crate::audit::Witness,
    pub errors: Vec<InputError>,
}

/// Reads the topics, numbering their inputs from `first` (after the
/// logs'); says on standard error which records were skipped.
pub fn prepare(a: &TopicsArgs, first: u32, log_names: &[String]) -> Prepared {
    let r = read_all(a, first);
    let mut names = log_names.to_vec();
    names.extend(r.inputs.iter().map(|i| i.name.clone()));
    tell_skipped(&r.skipped, &SourceTable(names));
    let records = crate::topics::cross::Witness::new(r.records, &r.skipped);
    Prepared {
        witness: crate::audit::Witness {
            records: std::sync::Arc::new(records),
            inputs: r.inputs,
        },
        errors: r.errors,
    }
}

/// Says on standard error which records were skipped and why.
fn tell_skipped(skipped: &[Skipped], names: &SourceTable) {
    use crate::audit::Names;
    for s in skipped {
        let at = if s.line == 0 {
            names.source_name(s.source).to_string()
        } else {
            format!("{}:{}", names.source_name(s.source), s.line)
        };
        eprintln!("herder-audit: {at}: warning: record skipped: {}", s.message);
    }
}
