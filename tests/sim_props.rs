//! Property tests of the auditor against the simulator: a correct simulated
//! cluster must audit clean, and a cluster with one injected fault must
//! produce exactly the findings the simulator's ground truth lists (same
//! file, line, kind and resource). Scenarios are drawn from a seeded loop
//! (shrinking is not needed: every scenario is small and reproducible from
//! the seed printed on failure with `herder-audit simulate`).
//!
//! The logs of a scenario are audited together, in memory, through the whole
//! pipeline (`herder_audit::audit` on `Input::Bytes`, cross-worker checks on);
//! cross-worker findings (`scope: cluster`) are compared when `CROSS_WORKER`
//! is on.

mod support;
use herder_audit::Input;
use herder_audit::testing::harness;
use herder_audit::testing::sim::{
    self, ALL_FAULTS, FaultKind, Layout, Params, Proto, Scope, Truth, Version,
};
use herder_audit::{Options, audit};
use std::collections::{BTreeMap, BTreeSet};
use std::io::Write;
use support::SharedBuf as Buf;

/// Compare the cross-worker findings too.
const CROSS_WORKER: bool = true;

/// A finding as compared: (file, line, kind, resource).
type Key = (String, u64, String, String);

struct Run {
    truth: Truth,
    logs: Vec<Vec<u8>>,
}

fn run(p: &Params) -> Run {
    let bufs: Vec<Buf> = (0..p.workers).map(|_| Buf::default()).collect();
    let outs: Vec<Box<dyn Write>> = bufs
        .iter()
        .map(|b| Box::new(b.clone()) as Box<dyn Write>)
        .collect();
    let truth = sim::simulate(p, outs, true).unwrap_or_else(|e| panic!("simulate {}: {e}", cmd(p)));
    let logs = bufs.iter().map(|b| b.0.lock().unwrap().clone()).collect();
    Run { truth, logs }
}

/// Records which lines produced a lifecycle event.
fn unread(text: &[u8], lifecycle: &[u64]) -> Vec<u64> {
    let hit = harness::event_lines(text);
    lifecycle
        .iter()
        .copied()
        .filter(|l| !hit.contains(l))
        .collect()
}

/// All findings of the scenario's logs, audited together.
fn audit_all(r: &Run) -> BTreeSet<Key> {
    let inputs: Vec<Input> = r
        .truth
        .files
        .iter()
        .zip(&r.logs)
        .map(|(f, log)| Input::bytes(f.file.clone(), log.clone()))
        .collect();
    let opts = Options {
        keep_generations: false,
        jobs: Some(1),
        cross: true,
        progress: false,
        live: None,
        timeline: false,
        witness: None,
    };
    let report = audit(&inputs, &opts);
    assert!(report.errors.is_empty(), "{:?}", report.errors);
    report
        .findings()
        .map(|f| {
            let resource = f
                .resource
                .as_ref()
                .map_or_else(|| "-".to_string(), |r| r.id());
            (
                report.source_name(f.trigger.source).to_string(),
                f.trigger.line,
                f.kind.as_str().to_string(),
                resource,
            )
        })
        .collect()
}

fn cmd(p: &Params) -> String {
    let mut s = format!(
        "herder-audit simulate --workers {} --connectors {} --events {} --seed {} --protocol {} --kafka-version {} --layout {} --noise {} --max-tasks {} --rebalance-delay-ms {}",
        p.workers,
        p.connectors,
        p.events,
        p.seed,
        p.protocol.config_name(),
        p.version.name(),
        p.layout.name(),
        p.noise,
        p.max_tasks,
        p.delay_ms
    );
    if let Some(f) = p.fault {
        s.push_str(&format!(" --fault {f} --fault-at {}", p.fault_event()));
    }
    s.push_str(&format!(" --fail-rate {} --out /tmp/sim", p.fail_rate));
    s
}

#[derive(Debug, Default)]
struct Outcome {
    /// In the truth, not reported.
    missing: Vec<Key>,
    /// Reported, not in the truth.
    extra: Vec<Key>,
    missed_lines: Vec<(String, u64)>,
    expected: usize,
    injected: bool,
    /// Expected findings the auditor reported.
    matched: usize,
}

fn check(p: &Params) -> (Outcome, Run) {
    let r = run(p);
    let mut out = Outcome {
        injected: r.truth.fault.as_ref().is_some_and(|f| f.injected),
        ..Outcome::default()
    };
    let mut want: BTreeSet<Key> = BTreeSet::new();
    for e in &r.truth.expected {
        if e.scope == Scope::Worker || CROSS_WORKER {
            want.insert((
                e.file.clone(),
                e.line,
                e.kind.to_string(),
                e.resource.clone(),
            ));
        }
    }
    out.expected = want.len();
    let got = audit_all(&r);
    for (i, f) in r.truth.files.iter().enumerate() {
        let missed = unread(&r.logs[i], &r.truth.lifecycle_lines[i]);
        out.missed_lines
            .extend(missed.into_iter().map(|l| (f.file.clone(), l)));
    }
    out.matched = want.intersection(&got).count();
    out.missing = want.difference(&got).cloned().collect();
    out.extra = got.difference(&want).cloned().collect();
    (out, r)
}

fn line_of(r: &Run, file: &str, line: u64) -> String {
    let i = r
        .truth
        .files
        .iter()
        .position(|f| f.file == file)
        .unwrap_or(0);
    let text = String::from_utf8_lossy(&r.logs[i]);
    text.lines()
        .nth(line as usize - 1)
        .unwrap_or("")
        .chars()
        .take(400)
        .collect()
}

fn describe(p: &Params, o: &Outcome, r: &Run) -> String {
    let mut s = format!("{}\n", cmd(p));
    for k in &o.missing {
        s.push_str(&format!("  missing {k:?}\n    {}\n", line_of(r, &k.0, k.1)));
    }
    for k in &o.extra {
        s.push_str(&format!("  extra   {k:?}\n    {}\n", line_of(r, &k.0, k.1)));
    }
    for (f, l) in o.missed_lines.iter().take(5) {
        s.push_str(&format!(
            "  unread lifecycle line {f}:{l}\n    {}\n",
            line_of(r, f, *l)
        ));
    }
    s
}

/// Scenario parameters drawn from a seed.
fn scenario(seed: u64, fault: Option<FaultKind>, big: bool) -> Params {
    let mut x = seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) ^ 0xA5A5_5A5A;
    let mut next = |n: u64| {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        x % n
    };
    let versions = sim::version::ALL;
    let coop_only = fault.is_some_and(FaultKind::cooperative_only);
    let version = loop {
        let v = versions[next(versions.len() as u64) as usize];
        let exists = fault.is_none_or(|f| f.exists_in(v).is_ok());
        if !(coop_only && v.eager_only()) && exists {
            break v;
        }
    };
    let eager = version.eager_only() || (!coop_only && next(3) == 0);
    let protocol = if eager {
        Proto::Eager
    } else if version >= Version::V2_4 && next(3) != 0 {
        Proto::Sessioned
    } else {
        Proto::Compatible
    };
    let mut p = Params::new(seed, version, protocol);
    p.layout = [
        Layout::Apache,
        Layout::ApacheMdc,
        Layout::Debezium,
        Layout::Strimzi,
    ][next(4) as usize];
    p.workers = 1 + next(if big { 6 } else { 4 }) as usize;
    p.connectors = 1 + next(if big { 6 } else { 4 }) as usize;
    p.events = 5 + next(if big { 120 } else { 35 }) as usize;
    p.max_tasks = 1 + next(4) as u16;
    p.noise = [0.0, 0.3, 0.6][next(3) as usize];
    p.delay_ms = [0, 30_000, 300_000][next(3) as usize];
    p.fault = fault;
    // Failed starts: normal behaviour the auditor must not report.
    p.fail_rate = [0.0, 0.02, 0.05, 0.15][next(4) as usize];
    if matches!(
        fault,
        Some(FaultKind::RestartMovedTask | FaultKind::PollTimeoutLeave)
    ) {
        // A task can only move with a second worker.
        p.workers = p.workers.max(2);
    }
    p
}

#[derive(Debug, Default, Clone, Copy)]
struct Count {
    scenarios: usize,
    injected: usize,
    expected: usize,
    matched: usize,
    /// Cross-worker truth entries (compared only with `CROSS_WORKER`).
    cluster: usize,
}

/// One scenario: its label, counts and failure descriptions.
fn one(seed: u64, fault: Option<FaultKind>, big: bool) -> (String, Count, Vec<String>) {
    let p = scenario(seed, fault, big);
    let (o, r) = check(&p);
    let label = fault.map_or("none".to_string(), |f| f.name().to_string());
    let mut failures = Vec::new();
    if fault.is_some() && !o.injected {
        failures.push(format!("fault never injected: {}", cmd(&p)));
    }
    // A correct 2.7+ cluster duplicates the work of a worker cut off from
    // the brokers until it revokes it (its session-timeout line says so: the
    // real 3.9.1 and 4.4.0 `partition` runs; 2.8.2 and 3.6.2 `chaos-s*`
    // print the same line): the only findings it implies.
    let cut_off =
        |e: &sim::Expected| e.kind == "zombie" && e.why.contains("was cut off from the brokers");
    if fault.is_none() && !r.truth.expected.iter().all(cut_off) {
        failures.push(format!(
            "correct cluster with expected findings: {}\n{:?}",
            cmd(&p),
            r.truth.expected
        ));
    }
    if !o.missing.is_empty() || !o.extra.is_empty() || !o.missed_lines.is_empty() {
        failures.push(describe(&p, &o, &r));
    }
    let c = Count {
        scenarios: 1,
        injected: usize::from(o.injected),
        expected: o.expected,
        matched: o.matched,
        cluster: r
            .truth
            .expected
            .iter()
            .filter(|e| e.scope == Scope::Cluster)
            .count(),
    };
    (label, c, failures)
}

/// Every fault kind (and none) for each seed, on two threads.
fn sweep(seeds: std::ops::Range<u64>, big: bool) -> BTreeMap<String, Count> {
    let kinds: Vec<Option<FaultKind>> = std::iter::once(None)
        .chain(ALL_FAULTS.iter().copied().map(Some))
        .collect();
    let jobs: Vec<(u64, Option<FaultKind>)> = seeds
        .flat_map(|s| kinds.iter().map(move |&k| (s, k)))
        .collect();
    let threads = std::thread::available_parallelism()
        .map_or(2, |n| n.get())
        .clamp(1, 8);
    let results: Vec<(String, Count, Vec<String>)> = std::thread::scope(|sc| {
        let handles: Vec<_> = (0..threads)
            .map(|t| {
                let jobs = &jobs;
                sc.spawn(move || {
                    jobs.iter()
                        .skip(t)
                        .step_by(threads)
                        .map(|&(seed, fault)| one(seed, fault, big))
                        .collect::<Vec<_>>()
                })
            })
            .collect();
        handles
            .into_iter()
            .flat_map(|h| h.join().unwrap_or_default())
            .collect()
    });
    let mut failures = Vec::new();
    let mut counts: BTreeMap<String, Count> = BTreeMap::new();
    for (label, c, f) in results {
        let e = counts.entry(label).or_default();
        e.scenarios += c.scenarios;
        e.injected += c.injected;
        e.expected += c.expected;
        e.matched += c.matched;
        e.cluster += c.cluster;
        failures.extend(f);
    }
    for (k, c) in &counts {
        eprintln!(
            "{k:>22}: {} scenarios, {} injected, {}/{} expected findings reported; {} cross-worker truth entries{}",
            c.scenarios,
            c.injected,
            c.matched,
            c.expected,
            c.cluster,
            if CROSS_WORKER {
                " compared"
            } else {
                " (not compared yet)"
            }
        );
    }
    let total: usize = counts.values().map(|c| c.scenarios).sum();
    assert!(
        total == jobs.len(),
        "{total} of {} scenarios ran (a worker thread panicked)",
        jobs.len()
    );
    if std::env::var_os("SIM_ALL").is_some() {
        for f in &failures {
            eprintln!("{f}");
        }
    }
    if !failures.is_empty() {
        let n = failures.len();
        failures.truncate(8);
        panic!("{n} disagreement(s):\n{}", failures.join("\n"));
    }
    counts
}

#[test]
fn simulated_clusters_audit_as_the_truth_says() {
    sweep(0..80, false);
}

#[test]
#[ignore = "deeper: more and bigger scenarios (minutes)"]
fn simulated_clusters_audit_as_the_truth_says_deep() {
    sweep(1000..2000, true);
}
