//! The audit split in two stages gives what one run gives: `herder-audit
//! map` over any split of a run's streams, the outputs in any order
//! (concatenated or as separate files), then `herder-audit reduce`, prints
//! byte for byte what `herder-audit X` prints, in text, JSON and JSON lines,
//! and exits with the same status. Also through `reduce --partial` per
//! connected component of streams (streams linked by the groups their
//! `stream` records name), the way the Spark job (`spark/`) runs it.
//!
//! Streams come from `herder-audit plan` and are never split; every segment
//! is mapped from a copy under another local name with `--segment
//! NAME=COPY`, as an engine maps a local copy of a remote file. Inputs: every
//! corpus trace and directory, the whole corpus, and a simulated archive of
//! four clusters (several groups, two sharing `connect-cluster`) with
//! rotated, gzipped segments. Splits are drawn from fixed seeds.

mod support;

use proptest::prelude::RngExt;
use proptest::test_runner::{RngAlgorithm, TestRng};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use support::{bin, cases, run, scratch};

const FORMATS: [&str; 3] = ["text", "json", "jsonl"];

fn rng(seed: u64) -> TestRng {
    let mut bytes = [0u8; 32];
    bytes[..8].copy_from_slice(&seed.to_le_bytes());
    TestRng::from_seed(RngAlgorithm::ChaCha, &bytes)
}

fn shuffle<T>(v: &mut [T], rng: &mut TestRng) {
    for i in (1..v.len()).rev() {
        let j = rng.random_range(0..=i);
        v.swap(i, j);
    }
}

/// One stream of a plan: its name and its segments' names.
#[derive(Debug, Clone)]
struct Stream {
    name: String,
    segments: Vec<String>,
}

fn plan(input: &str) -> Vec<Stream> {
    let (code, out, err) = run(bin().arg("plan").arg(input));
    assert_eq!(code, 0, "plan {input}: {err}");
    let doc: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(doc["errors"], serde_json::json!([]), "plan {input}");
    doc["streams"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| Stream {
            name: s["stream"].as_str().unwrap().to_string(),
            segments: s["segments"]
                .as_array()
                .unwrap()
                .iter()
                .map(|n| n.as_str().unwrap().to_string())
                .collect(),
        })
        .collect()
}

/// What one run prints: (exit status, standard output) per format.
fn one_machine(input: &str) -> Vec<(i32, String)> {
    FORMATS
        .iter()
        .map(|f| {
            let (code, out, err) = run(bin().args(["--format", f, "--color", "never", input]));
            assert!(code == 0 || code == 1, "herder-audit {input}: {code} {err}");
            (code, out)
        })
        .collect()
}

/// Maps `streams` in one process from copies of their segments in `dir`
/// (named after their place, not their name) and returns the output file.
fn map_copies(streams: &[&Stream], dir: &Path, out: &Path) {
    std::fs::create_dir_all(dir).unwrap();
    let mut c = bin();
    c.arg("map").arg("-o").arg(out);
    let mut n = 0;
    for s in streams {
        for seg in &s.segments {
            let copy = dir.join(format!("copy-{n}"));
            n += 1;
            std::fs::copy(seg, &copy).unwrap_or_else(|e| panic!("{seg}: {e}"));
            c.arg("--segment").arg(format!("{seg}={}", copy.display()));
        }
    }
    let (code, _, err) = run(&mut c);
    assert_eq!(code, 0, "map: {err}");
}

/// Concatenates `files` in their order into `to`.
fn concat(files: &[PathBuf], to: &Path) {
    let mut all = Vec::new();
    for f in files {
        all.extend(std::fs::read(f).unwrap());
    }
    std::fs::write(to, all).unwrap();
}

/// `reduce` over `files` must print what the one run printed.
fn assert_reduces_to(files: &[PathBuf], want: &[(i32, String)], what: &str) {
    for (f, (code, out)) in FORMATS.iter().zip(want) {
        let (c, o, err) = run(bin()
            .args(["reduce", "--format", f, "--color", "never"])
            .args(files));
        assert_eq!(c, *code, "{what}, {f}: exit status ({err})");
        if o != *out {
            let at = o
                .lines()
                .zip(out.lines())
                .position(|(a, b)| a != b)
                .unwrap_or(o.lines().count().min(out.lines().count()));
            panic!(
                "{what}, {f}: reduce differs from one run at line {}:\n  reduce: {:?}\n  run:    {:?}",
                at + 1,
                o.lines().nth(at),
                out.lines().nth(at)
            );
        }
    }
}

/// Splits the streams of `input` at random into parts, maps each part
/// apart and reduces the outputs in shuffled order: concatenated in one
/// file when `concatenated`, else as separate files.
fn check_split(input: &str, seed: u64, concatenated: bool, want: &[(i32, String)], work: &Path) {
    let streams = plan(input);
    let mut rng = rng(seed);
    // At least two parts where there are two streams.
    let parts = rng.random_range(streams.len().min(2)..=streams.len());
    // Every part gets one stream, the rest go anywhere.
    let mut order: Vec<&Stream> = streams.iter().collect();
    shuffle(&mut order, &mut rng);
    let mut split: Vec<Vec<&Stream>> = vec![Vec::new(); parts];
    for (n, s) in order.into_iter().enumerate() {
        let k = if n < parts {
            n
        } else {
            rng.random_range(0..parts)
        };
        split[k].push(s);
    }
    let dir = work.join(format!("split-{seed}"));
    let mut outs: Vec<PathBuf> = split
        .iter()
        .enumerate()
        .map(|(k, p)| {
            let out = dir.join(format!("part-{k}.map"));
            map_copies(p, &dir.join(format!("part-{k}")), &out);
            out
        })
        .collect();
    shuffle(&mut outs, &mut rng);
    let what = format!(
        "{input}, seed {seed}: {} stream(s) in {} part(s){}",
        streams.len(),
        outs.len(),
        if concatenated { ", concatenated" } else { "" }
    );
    if concatenated {
        let all = dir.join("all.map");
        concat(&outs, &all);
        assert_reduces_to(&[all], want, &what);
    } else {
        assert_reduces_to(&outs, want, &what);
    }
}

/// The names of a map output's `stream` records and the groups they name.
fn streams_of(map_output: &Path) -> (Vec<String>, Vec<String>) {
    let text = std::fs::read_to_string(map_output).unwrap();
    let (mut names, mut groups) = (Vec::new(), Vec::new());
    for line in text.lines() {
        let r: serde_json::Value = serde_json::from_str(line).unwrap();
        if r["type"] == "stream" {
            names.push(r["name"].as_str().unwrap().to_string());
            for g in r["groups"].as_array().unwrap() {
                groups.push(g.as_str().unwrap().to_string());
            }
        }
    }
    (names, groups)
}

/// As the Spark job: one map per stream, the streams joined into
/// connected components by the groups they name, `reduce --partial` per
/// component (its map outputs in shuffled order), the partials
/// concatenated in shuffled order and reduced.
fn check_partials(input: &str, seed: u64, want: &[(i32, String)], work: &Path) {
    let streams = plan(input);
    let mut rng = rng(seed);
    let dir = work.join(format!("partials-{seed}"));
    let outs: Vec<PathBuf> = streams
        .iter()
        .enumerate()
        .map(|(k, s)| {
            let out = dir.join(format!("stream-{k}.map"));
            map_copies(&[s], &dir.join(format!("stream-{k}")), &out);
            out
        })
        .collect();
    // Union-find over the streams, linked through their groups.
    let mut parent: Vec<usize> = (0..outs.len()).collect();
    fn find(p: &mut [usize], mut i: usize) -> usize {
        while p[i] != i {
            p[i] = p[p[i]];
            i = p[i];
        }
        i
    }
    let mut first_of_group: BTreeMap<String, usize> = BTreeMap::new();
    for (k, out) in outs.iter().enumerate() {
        let (names, groups) = streams_of(out);
        // The map names the stream as the plan does.
        assert_eq!(names, [streams[k].name.clone()], "{}", out.display());
        for g in groups {
            let other = *first_of_group.entry(g).or_insert(k);
            let (a, b) = (find(&mut parent, k), find(&mut parent, other));
            parent[a] = b;
        }
    }
    let mut components: BTreeMap<usize, Vec<PathBuf>> = BTreeMap::new();
    for (k, out) in outs.iter().enumerate() {
        let root = find(&mut parent, k);
        components.entry(root).or_default().push(out.clone());
    }
    let mut partials: Vec<PathBuf> = Vec::new();
    for (n, mut files) in components.into_values().enumerate() {
        shuffle(&mut files, &mut rng);
        let partial = dir.join(format!("component-{n}.partial"));
        let (code, _, err) = run(bin()
            .args(["reduce", "--partial", "-o"])
            .arg(&partial)
            .args(&files));
        assert_eq!(code, 0, "reduce --partial: {err}");
        partials.push(partial);
    }
    let count = partials.len();
    shuffle(&mut partials, &mut rng);
    let all = dir.join("all.partial");
    concat(&partials, &all);
    let what = format!(
        "{input}, seed {seed}: {} stream(s), {count} component(s), partials",
        streams.len()
    );
    assert_reduces_to(&[all], want, &what);
}

/// Every trace and directory of the corpus, each split at random (a
/// single-stream trace is one part).
#[test]
fn every_corpus_trace_and_directory() {
    let work = scratch("traces");
    let inputs: Vec<String> = cases().iter().map(|p| p.display().to_string()).collect();
    assert!(inputs.len() >= 30, "{inputs:?}");
    for (n, input) in inputs.iter().enumerate() {
        let want = one_machine(input);
        let work = work.join(n.to_string());
        check_split(input, n as u64, n % 2 == 0, &want, &work);
        if Path::new(input).is_dir() {
            check_partials(input, n as u64, &want, &work);
        }
    }
    let _ = std::fs::remove_dir_all(&work);
}

/// The whole corpus as one run (every trace and directory, expectation
/// files included, as `herder-audit corpus` reads them).
#[test]
fn whole_corpus_split() {
    let work = scratch("corpus");
    let want = one_machine("corpus");
    for seed in 0..4 {
        check_split("corpus", seed, seed % 2 == 1, &want, &work);
    }
    check_partials("corpus", 7, &want, &work);
    let _ = std::fs::remove_dir_all(&work);
}

/// A simulated archive of four clusters (three group ids; the two
/// `connect-cluster` twins on different Kafka clusters), each worker's log
/// rotated by size with the rotated segments gzipped, one fault in a twin.
#[test]
fn simulated_archive_split() {
    let work = scratch("archive");
    let archive = work.join("archive");
    let (code, _, err) = run(bin()
        .args([
            "simulate",
            "--clusters",
            "4",
            "--workers",
            "3",
            "--connectors",
            "3",
            "--events",
            "12",
            "--noise",
            "0.3",
            "--seed",
            "5",
            "--rotate-bytes",
            "12K",
            "--gzip-rotated",
            "--fault",
            "restart-moved-task",
            "--fault-cluster",
            "1",
            "--out",
        ])
        .arg(&archive));
    assert_eq!(code, 0, "simulate: {err}");
    let input = archive.display().to_string();
    let streams = plan(&input);
    assert!(
        streams.iter().filter(|s| s.segments.len() > 2).count() >= 8
            && streams
                .iter()
                .flat_map(|s| &s.segments)
                .any(|s| s.ends_with(".gz")),
        "the archive should have rotated, gzipped segments: {streams:?}"
    );
    let want = one_machine(&input);
    assert!(
        want[0].1.contains("connect-billing") && want[0].1.contains("connect-analytics"),
        "several groups expected"
    );
    for seed in 0..4 {
        check_split(&input, 100 + seed, seed % 2 == 0, &want, &work);
    }
    check_partials(&input, 200, &want, &work);
    let _ = std::fs::remove_dir_all(&work);
}
