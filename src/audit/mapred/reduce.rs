//! `herder-audit reduce`: map outputs and partial reduces in; one report,
//! or one partial, out.
//!
//! Every file has its own source ids and stream ranks; they are tied
//! together by name: the run's inputs are all the files' inputs in
//! canonical order (as one run over all of them would list them), its
//! streams are ranked by their first input. The items of all map outputs
//! are merged in key order through the cross-worker stage; the findings
//! it makes and those of partials are put in the order of the run.

use super::{
    MAP_SCHEMA_VERSION, Record, StreamRecord, Tool, remap_fact, remap_finding, remap_worker,
    write_record,
};
use crate::audit::merge::Reducer;
use crate::audit::sink::{Names, Sink, SourceTable};
use crate::audit::{InputError, InputReport, Report};
use crate::finding::Finding;
use crate::input::Input;
use crate::model::{Key, SourceId};
use crate::stream::Item;
use std::collections::{BTreeSet, HashMap, HashSet};
use std::io::{self, BufRead, Write};
use std::path::PathBuf;

/// What one file holds, in its own ids.
#[derive(Debug, Default)]
struct Part {
    partial: bool,
    inputs: Vec<InputReport>,
    items: Vec<Item>,
    unordered: Vec<(SourceId, u64)>,
    streams: Vec<StreamRecord>,
    findings: Vec<((Key, Key), Finding)>,
    same_worker: Vec<(String, String)>,
    errors: Vec<InputError>,
    isolation: Option<crate::interruptions::Isolation>,
}

/// Reads one file (one output, or several concatenated); the error says
/// what was wrong and where.
fn read_parts(input: &Input) -> Result<Vec<Part>, String> {
    let (reader, _) = crate::input::open(input).map_err(|e| crate::input::describe(&e))?;
    let reader = io::BufReader::new(reader);
    let mut parts: Vec<Part> = Vec::new();
    // Inside a part: between its header and its end record.
    let mut open = false;
    for (i, line) in reader.lines().enumerate() {
        let n = i + 1;
        let line = line.map_err(|e| format!("line {n}: {}", crate::input::describe(&e)))?;
        if line.trim().is_empty() {
            continue;
        }
        let rec: Record = serde_json::from_str(&line).map_err(|e| {
            if parts.is_empty() {
                format!("not herder-audit map or partial output ({e})")
            } else {
                format!("line {n}: {e}")
            }
        })?;
        if let Record::Map { schema_version, .. } | Record::Partial { schema_version, .. } = &rec {
            if open {
                return Err(format!(
                    "line {n}: a header before the end of the previous output"
                ));
            }
            if *schema_version != MAP_SCHEMA_VERSION {
                return Err(format!(
                    "schema version {schema_version} is not supported (this herder-audit reads {MAP_SCHEMA_VERSION})"
                ));
            }
            parts.push(Part {
                partial: matches!(rec, Record::Partial { .. }),
                ..Part::default()
            });
            open = true;
            continue;
        }
        let Some(part) = parts.last_mut().filter(|_| open) else {
            return Err(if parts.is_empty() {
                "not herder-audit map or partial output (no header line)".into()
            } else {
                format!("line {n}: text after the end record")
            });
        };
        match rec {
            Record::Map { .. } | Record::Partial { .. } => {}
            Record::Input(r) => part.inputs.push(r),
            Record::Item(_) if part.partial => {
                return Err(format!("line {n}: an item in a partial"));
            }
            Record::Item(it) => part.items.push(it),
            Record::Unordered { .. } if part.partial => {
                return Err(format!("line {n}: unordered lines in a partial"));
            }
            Record::Unordered { lines } => part.unordered.extend(lines),
            Record::Stream(s) => part.streams.push(s),
            Record::Finding { order, finding } => part.findings.push((order, *finding)),
            Record::SameWorker { a, b } => part.same_worker.push((a, b)),
            Record::Error(e) => part.errors.push(e),
            Record::Isolation(i) => part.isolation = Some(*i),
            Record::End { items, findings } => {
                if items != part.items.len() as u64 || findings != part.findings.len() as u64 {
                    return Err(format!(
                        "line {n}: the end record counts {items} item(s) and {findings} finding(s), the output holds {} and {}",
                        part.items.len(),
                        part.findings.len()
                    ));
                }
                open = false;
            }
        }
    }
    if parts.is_empty() {
        return Err("empty: not herder-audit map or partial output".into());
    }
    if open {
        return Err("truncated (no end record)".into());
    }
    Ok(parts)
}

/// The canonical place of an input name (see [`crate::input::canonical_order`]).
fn name_key(name: &str) -> (bool, PathBuf) {
    (name != "<stdin>", PathBuf::from(name))
}

/// All files read and tied together in the run's ids.
struct Combined {
    /// Inputs in canonical order (ids = places).
    inputs: Vec<InputReport>,
    /// Streams in rank order, with their map-side findings' counts.
    streams: Vec<StreamRecord>,
    /// Findings with their place in the run's order, sorted.
    findings: Vec<((Key, Key), Finding)>,
    same_worker: BTreeSet<(String, String)>,
    /// Inputs that could not be listed (from map), then files that could
    /// not be read.
    errors: Vec<InputError>,
    /// What the internal topics witnessed, when read beside the map
    /// outputs.
    topics: Option<crate::topics::cross::Summary>,
    /// The interruptions over the items (none in a partial's combine).
    isolation: crate::interruptions::Isolation,
}

/// Reads the internal topics for a reduce: their inputs numbered from the
/// first id given (after the logs'), the logs' input names for quoting;
/// the witness and the topics' input errors.
pub type Topics<'a> = &'a mut dyn FnMut(u32, &[String]) -> (crate::audit::Witness, Vec<InputError>);

/// Reads `files` and reduces them: map outputs merged through the
/// cross-worker stage together, partials added.
fn combine(files: &[Input], topics: Option<Topics<'_>>) -> Combined {
    let (mut parts, mut bad) = read_all(files);
    let claimed = claim_streams(&mut parts, &mut bad);
    let mut run = RunIds::new(claimed.names, claimed.input_reports);
    let mut streams = rank_streams(&mut parts, &claimed.locals, &run);
    let mut gathered = gather(parts, &claimed.locals, &run, &streams);
    let witness = topics.map(|prepare| {
        let (w, errors) = prepare(run.inputs.len() as u32, &run.input_names);
        run.input_names
            .extend(w.inputs.iter().map(|i| i.name.clone()));
        bad.extend(errors);
        w
    });
    // The cross-worker stage over the map outputs' items (and the
    // topics' records).
    let mut topics = None;
    if !gathered.items.is_empty() || witness.is_some() {
        topics = cross_worker(&mut gathered, &run, &mut streams, witness.as_ref());
    }
    if let Some(w) = witness {
        run.inputs.extend(w.inputs);
    }
    let mut findings = gathered.findings;
    findings.sort_by_key(|(o, _)| *o);
    let mut errors = gathered.walk_errors;
    errors.sort_by(|a, b| (&a.input, &a.message).cmp(&(&b.input, &b.message)));
    errors.extend(bad);
    Combined {
        inputs: run.inputs,
        streams,
        findings,
        same_worker: gathered.same_worker,
        errors,
        topics,
        isolation: {
            let mut parts = gathered.isolation_parts;
            parts.push(gathered.isolation);
            crate::interruptions::Isolation::merge(parts)
        },
    }
}

/// The parts of every file, and the files that could not be read.
fn read_all(files: &[Input]) -> (Vec<Part>, Vec<InputError>) {
    let mut bad = Vec::new();
    let mut parts = Vec::new();
    for f in files {
        match read_parts(f) {
            Ok(p) => parts.extend(p),
            Err(message) => bad.push(InputError {
                input: f.display(),
                message,
            }),
        }
    }
    (parts, bad)
}

/// Per part: its local ids → names, its local ranks → stream names.
type Locals = Vec<(HashMap<SourceId, String>, HashMap<u32, String>)>;

/// What [`claim_streams`] found.
struct Claimed {
    /// The inputs' names (sort keys).
    names: BTreeSet<(bool, PathBuf)>,
    /// Each input's report, from the first part that has it.
    input_reports: HashMap<String, InputReport>,
    locals: Locals,
}

/// Streams by name: the first file that holds one wins (a second copy is
/// dropped from its part, and said so).
fn claim_streams(parts: &mut [Part], bad: &mut Vec<InputError>) -> Claimed {
    let mut kept: HashSet<String> = HashSet::new();
    let mut names: BTreeSet<(bool, PathBuf)> = BTreeSet::new();
    let mut input_reports: HashMap<String, InputReport> = HashMap::new();
    let mut locals: Locals = Vec::new();
    for p in parts {
        let ids: HashMap<SourceId, String> =
            p.inputs.iter().map(|i| (i.id, i.name.clone())).collect();
        let mut ranks = HashMap::new();
        let mut streams = Vec::new();
        for s in std::mem::take(&mut p.streams) {
            if !kept.insert(s.name.clone()) {
                bad.push(InputError {
                    input: s.name.clone(),
                    message: "this stream is in two map outputs; the second copy was ignored"
                        .to_string(),
                });
                continue;
            }
            ranks.insert(s.rank, s.name.clone());
            for id in &s.segments {
                if let Some(n) = ids.get(id) {
                    names.insert(name_key(n));
                    if let Some(r) = p.inputs.iter().find(|i| i.id == *id) {
                        input_reports.entry(n.clone()).or_insert_with(|| r.clone());
                    }
                }
            }
            streams.push(s);
        }
        p.streams = streams;
        locals.push((ids, ranks));
    }
    Claimed {
        names,
        input_reports,
        locals,
    }
}

/// The inputs of the run, by name: their ids and reports.
struct RunIds {
    input_names: Vec<String>,
    input_id: HashMap<String, u32>,
    inputs: Vec<InputReport>,
}

impl RunIds {
    fn new(
        names: BTreeSet<(bool, PathBuf)>,
        mut input_reports: HashMap<String, InputReport>,
    ) -> RunIds {
        let input_names: Vec<String> = names
            .into_iter()
            .map(|(_, p)| p.to_string_lossy().into_owned())
            .collect();
        let input_id: HashMap<String, u32> = input_names
            .iter()
            .enumerate()
            .map(|(i, n)| (n.clone(), i as u32))
            .collect();
        let inputs: Vec<InputReport> = input_names
            .iter()
            .enumerate()
            .map(|(i, n)| {
                let mut r = input_reports
                    .remove(n)
                    .unwrap_or_else(|| InputReport::empty(SourceId(i as u32), n.clone()));
                r.id = SourceId(i as u32);
                r
            })
            .collect();
        RunIds {
            input_names,
            input_id,
            inputs,
        }
    }
}

/// The parts' streams ranked by their first input, in the run's ids.
fn rank_streams(parts: &mut [Part], locals: &Locals, run: &RunIds) -> Vec<StreamRecord> {
    let input_id = &run.input_id;
    let mut streams: Vec<(u32, StreamRecord, usize)> = Vec::new();
    for (pi, p) in parts.iter_mut().enumerate() {
        let ids = &locals[pi].0;
        for mut s in std::mem::take(&mut p.streams) {
            s.segments = s
                .segments
                .iter()
                .filter_map(|id| ids.get(id).and_then(|n| input_id.get(n)))
                .map(|&g| SourceId(g))
                .collect();
            let first = s.segments.iter().map(|id| id.0).min().unwrap_or(u32::MAX);
            streams.push((first, s, pi));
        }
    }
    streams.sort_by(|a, b| (a.0, &a.1.name).cmp(&(b.0, &b.1.name)));
    streams
        .into_iter()
        .enumerate()
        .map(|(r, (_, mut s, pi))| {
            s.rank = r as u32;
            let ids = &locals[pi].0;
            let source = |id: SourceId| global(ids, input_id, id);
            for w in &mut s.workers {
                remap_worker(w, &source);
            }
            s
        })
        .collect()
}

/// The parts' items, findings and the rest, in the run's ids and ranks.
#[derive(Default)]
struct Gathered {
    items: Vec<Item>,
    findings: Vec<((Key, Key), Finding)>,
    same_worker: BTreeSet<(String, String)>,
    walk_errors: Vec<InputError>,
    unordered: Vec<(SourceId, u64)>,
    isolation: crate::interruptions::Isolation,
    /// The partials' own.
    isolation_parts: Vec<crate::interruptions::Isolation>,
}

fn gather(parts: Vec<Part>, locals: &Locals, run: &RunIds, streams: &[StreamRecord]) -> Gathered {
    let input_id = &run.input_id;
    let stream_rank: HashMap<String, u32> =
        streams.iter().map(|s| (s.name.clone(), s.rank)).collect();
    let mut g = Gathered::default();
    for (pi, p) in parts.into_iter().enumerate() {
        let (ids, ranks) = &locals[pi];
        let source = |id: SourceId| global(ids, input_id, id);
        let rank = |r: u32| ranks.get(&r).and_then(|n| stream_rank.get(n)).copied();
        for mut it in p.items {
            // Items of a stream ignored as a second copy are dropped.
            let Some(r) = rank(it.key.stream) else {
                continue;
            };
            it.key.stream = r;
            remap_fact(&mut it.fact, &source);
            g.items.push(it);
        }
        g.unordered
            .extend(p.unordered.into_iter().map(|(id, n)| (source(id), n)));
        let key = |k: Key| match rank(k.stream) {
            // seq 0: a point in log time between items, of no stream.
            Some(r) if k.seq > 0 => Key { stream: r, ..k },
            _ => k,
        };
        for ((a, b), mut f) in p.findings {
            let order = if a.seq == 0 { (a, key(b)) } else { (key(a), b) };
            remap_finding(&mut f, &source);
            g.findings.push((order, f));
        }
        g.same_worker.extend(p.same_worker);
        g.walk_errors.extend(p.errors);
        if let Some(mut iso) = p.isolation {
            iso.lines_mut(&mut |l| l.source = source(l.source));
            g.isolation_parts.push(iso);
        }
    }
    g
}

/// The cross-worker stage over the map outputs' items: its findings, and
/// its counts and notes in the workers' summaries.
fn cross_worker(
    g: &mut Gathered,
    run: &RunIds,
    streams: &mut [StreamRecord],
    witness: Option<&crate::audit::Witness>,
) -> Option<crate::topics::cross::Summary> {
    let mut items = std::mem::take(&mut g.items);
    let mut reducer = Reducer::new();
    if let Some(w) = witness {
        items.extend(crate::audit::witness_items(w));
        reducer.witness = Some(crate::topics::cross::Cross::new(w.records.clone()));
    }
    items.sort_unstable_by_key(|i| i.key);
    let names = SourceTable(run.input_names.clone());
    reducer.withhold(std::mem::take(&mut g.unordered));
    let mut made = Ordered::default();
    for it in items {
        // The ordered sink cannot fail.
        let _ = reducer.push(it, &names, &mut made);
    }
    let _ = reducer.finish(&names, &mut made);
    for s in streams.iter_mut() {
        for w in &mut s.workers {
            if let Some(c) = reducer.cross_counts.get(&w.summary.worker) {
                for (k, n) in c {
                    *w.summary.findings.entry(*k).or_default() += n;
                }
            }
            if let Some(c) = reducer.withheld.get(&w.summary.worker) {
                crate::audit::report::withheld_note(w, c);
            }
        }
    }
    g.findings.extend(made.0);
    g.same_worker.extend(reducer.same_worker());
    g.isolation = reducer.isolation.finish();
    let x = reducer.witness.as_ref()?;
    let rest: Vec<&str> = streams
        .iter()
        .flat_map(|s| &s.workers)
        .filter_map(|w| w.summary.rest_url.as_deref())
        .collect();
    Some(x.summary(!streams.is_empty(), &crate::audit::ids_of(rest)))
}

/// A file's source id in the run's ids.
fn global(
    ids: &HashMap<SourceId, String>,
    input_id: &HashMap<String, u32>,
    id: SourceId,
) -> SourceId {
    ids.get(&id)
        .and_then(|n| input_id.get(n))
        .map_or(SourceId(u32::MAX), |&g| SourceId(g))
}

/// Keeps findings with their place in the run's order.
#[derive(Default)]
struct Ordered(Vec<((Key, Key), Finding)>);

impl Sink for Ordered {
    fn finding(&mut self, _: &dyn Names, finding: Finding) -> io::Result<()> {
        self.0.push(((Key::MAX, Key::MAX), finding));
        Ok(())
    }

    fn finding_at(&mut self, _: &dyn Names, finding: Finding, order: (Key, Key)) -> io::Result<()> {
        self.0.push((order, finding));
        Ok(())
    }
}

/// Reduces `files` (map outputs and partials) to the report of the run;
/// its findings go to `sink` in the run's order. Files that could not be
/// read are input errors of the report.
pub fn reduce_to(
    files: &[Input],
    topics: Option<Topics<'_>>,
    sink: &mut dyn Sink,
) -> io::Result<Report> {
    let c = combine(files, topics);
    let names = SourceTable(c.inputs.iter().map(|i| i.name.clone()).collect());
    let mut report = Report {
        inputs: c.inputs,
        ..Report::default()
    };
    for (_, f) in c.findings {
        *report.counts.entry(f.kind).or_default() += 1;
        sink.finding(&names, f)?;
    }
    for s in c.streams {
        if s.segments.len() > 1 {
            report
                .stitched
                .push((s.name.clone(), s.segments.len(), s.repeats_skipped));
        }
        report.errors.extend(s.errors);
        report.workers.extend(s.workers);
    }
    report.errors.extend(c.errors);
    report.same_worker = c.same_worker.into_iter().collect();
    report.topics = c.topics;
    report.isolation = c.isolation;
    report.findings = sink.take_kept();
    Ok(report)
}

/// Reduces `files` to a partial: the same, written for a later reduce to
/// combine with other parts (`reduce --partial`). Returns the files that
/// could not be read (also written into the partial as errors).
pub fn reduce_partial(files: &[Input], out: &mut dyn Write) -> io::Result<Vec<InputError>> {
    let c = combine(files, None);
    write_record(
        out,
        &Record::Partial {
            schema_version: MAP_SCHEMA_VERSION,
            tool: Tool::this(),
        },
    )?;
    for i in c.inputs {
        write_record(out, &Record::Input(i))?;
    }
    for s in c.streams {
        write_record(out, &Record::Stream(s))?;
    }
    let n = c.findings.len() as u64;
    for (order, f) in c.findings {
        write_record(
            out,
            &Record::Finding {
                order,
                finding: Box::new(f),
            },
        )?;
    }
    for (a, b) in c.same_worker {
        write_record(out, &Record::SameWorker { a, b })?;
    }
    for e in &c.errors {
        write_record(out, &Record::Error(e.clone()))?;
    }
    if !c.isolation.is_empty() {
        write_record(out, &Record::Isolation(Box::new(c.isolation)))?;
    }
    write_record(
        out,
        &Record::End {
            items: 0,
            findings: n,
        },
    )?;
    out.flush()?;
    Ok(c.errors)
}
