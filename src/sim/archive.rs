//! Writing simulated logs to disk the way a fleet keeps them: one cluster
//! (`OUT/connect-N.log`), or an archive of several clusters
//! (`OUT/<cluster>/connect-N/connect.log`), each worker's log optionally
//! rotated by size as log4j's RollingFileAppender names the segments
//! (`connect.log` the live one, `connect.log.1` the newest rotated one, …,
//! `connect.log.N` the oldest), rotated segments optionally gzipped
//! (`connect.log.N.gz`).
//!
//! An archive of several clusters holds several Connect group ids, and two
//! clusters (`east-…` and `west-…`) that share one group id (by default
//! `connect-cluster`) but run on different Kafka clusters: they log
//! different `Kafka cluster ID: …` lines, and their connectors have the
//! same names, so an auditor that compared them would see duplicates.
//! Clusters are simulated independently, in parallel; the output depends
//! only on the parameters.

use super::emit::out::{Rotation, Segment};
use super::truth::{self, ArchiveTruth, ClusterTruth, Truth};
use super::{DEFAULT_KAFKA_CLUSTER_ID, Params, Sink, run_cluster, worker_file};
use rayon::prelude::*;
use std::fs;
use std::io::{self, BufReader, BufWriter, Write};
use std::path::{Path, PathBuf};

/// The Kafka cluster id of the second Kafka cluster (`west`).
pub const WEST_KAFKA_CLUSTER_ID: &str = "Wz3pQ8vNRe2Xk5TfYh0bLg";

/// Group ids of the clusters after the two twins.
const GROUPS: [&str; 6] = [
    "connect-billing",
    "connect-analytics",
    "connect-cdc",
    "connect-search",
    "connect-lake",
    "connect-mirror",
];

/// What to write.
#[derive(Debug, Clone)]
pub struct Archive {
    /// The parameters every cluster shares. Its seed is the first
    /// cluster's (the others derive theirs from it); its group is the one
    /// the two twin clusters share.
    pub base: Params,
    /// Clusters (1: one cluster, written flat as `OUT/connect-N.log`).
    pub clusters: usize,
    /// Rotate each worker's log once a segment holds this many bytes.
    pub rotate_bytes: Option<u64>,
    /// Write rotated segments gzipped (`connect.log.N.gz`).
    pub gzip_rotated: bool,
    /// The cluster (0-based) the fault, if any, is injected into.
    pub fault_cluster: usize,
}

/// One cluster of an archive: its directory name and parameters.
#[derive(Debug, Clone)]
pub struct Planned {
    pub name: String,
    pub params: Params,
}

impl Archive {
    /// One cluster, not rotated.
    pub fn single(p: Params) -> Archive {
        Archive {
            base: p,
            clusters: 1,
            rotate_bytes: None,
            gzip_rotated: false,
            fault_cluster: 0,
        }
    }

    /// Checks the combination; the message says what is wrong.
    pub fn validate(&self) -> Result<(), String> {
        if self.clusters == 0 || self.clusters > 64 {
            return Err("--clusters must be between 1 and 64".into());
        }
        if self.rotate_bytes == Some(0) {
            return Err("--rotate-bytes must be at least 1".into());
        }
        if self.gzip_rotated && self.rotate_bytes.is_none() {
            return Err("--gzip-rotated needs --rotate-bytes".into());
        }
        if self.fault_cluster >= self.clusters {
            return Err(format!(
                "--fault-cluster must be below --clusters ({})",
                self.clusters
            ));
        }
        self.base.validate()
    }

    /// The clusters: with one, the base parameters; with several, the two
    /// twins (`east-<group>`, `west-<group>`), then other group ids,
    /// alternately on the east and the west Kafka cluster.
    pub fn plan(&self) -> Vec<Planned> {
        if self.clusters == 1 {
            return vec![Planned {
                name: String::new(),
                params: self.base.clone(),
            }];
        }
        (0..self.clusters)
            .map(|k| {
                let group = if k < 2 {
                    self.base.group.clone()
                } else {
                    let g = GROUPS[(k - 2) % GROUPS.len()];
                    match (k - 2) / GROUPS.len() {
                        0 => g.to_string(),
                        n => format!("{g}-{}", n + 1),
                    }
                };
                let (kafka, id) = if k % 2 == 0 {
                    ("east", DEFAULT_KAFKA_CLUSTER_ID)
                } else {
                    ("west", WEST_KAFKA_CLUSTER_ID)
                };
                let name = format!("{kafka}-{group}");
                let mut p = self.base.clone();
                p.seed = if k == 0 {
                    self.base.seed
                } else {
                    self.base.seed ^ (k as u64).wrapping_mul(0x9E37_79B9_7F4A_7C15)
                };
                p.group = group;
                p.kafka_cluster_id = id.to_string();
                p.host_domain = Some(name.clone());
                if k != self.fault_cluster {
                    p.fault = None;
                    p.fault_at = None;
                }
                Planned { name, params: p }
            })
            .collect()
    }
}

/// Where one cluster's files go.
struct Place<'a> {
    root: &'a Path,
    /// Its directory under the root (empty: the root itself, flat).
    name: &'a str,
    rotate_bytes: Option<u64>,
    gzip: bool,
}

impl Place<'_> {
    /// Worker `w`'s directory (relative to the root) and log file name.
    fn worker(&self, w: usize) -> (String, String) {
        if self.name.is_empty() {
            (String::new(), worker_file(w))
        } else {
            (
                format!("{}/connect-{}", self.name, w + 1),
                "connect.log".to_string(),
            )
        }
    }

    /// The final name of segment `k` of `n` (log4j's: the live file, then
    /// `.1` the newest rotated one); whether it is gzipped.
    fn segment_name(&self, base: &str, k: usize, n: usize) -> (String, bool) {
        match n - 1 - k {
            0 => (base.to_string(), false),
            i if self.gzip => (format!("{base}.{i}.gz"), true),
            i => (format!("{base}.{i}"), false),
        }
    }
}

fn rel(dir: &str, file: &str) -> String {
    if dir.is_empty() {
        file.to_string()
    } else {
        format!("{dir}/{file}")
    }
}

fn part_name(base: &str, k: usize) -> String {
    format!(".{base}.part{k}")
}

/// Simulates one cluster into its place; the truth names files relative
/// to the root.
fn write_cluster(place: &Place, p: &Params) -> io::Result<Truth> {
    let mut sinks = Vec::with_capacity(p.workers);
    let mut dirs = Vec::with_capacity(p.workers);
    for w in 0..p.workers {
        let (dir, base) = place.worker(w);
        let abs = place.root.join(&dir);
        fs::create_dir_all(&abs)?;
        sinks.push(match place.rotate_bytes {
            None => Sink::One(Box::new(fs::File::create(abs.join(&base))?)),
            Some(limit) => {
                let (abs, base) = (abs.clone(), base.clone());
                Sink::Rotated(Rotation {
                    limit,
                    open: Box::new(move |k| {
                        let f = fs::File::create(abs.join(part_name(&base, k)))?;
                        Ok(Box::new(f) as Box<dyn Write>)
                    }),
                })
            }
        });
        dirs.push((dir, base));
    }
    let (mut truth, segments) = run_cluster(p, sinks, false)?;
    // Name the segments; gzip the rotated ones if asked.
    let names: Vec<Vec<(String, bool)>> = segments
        .iter()
        .zip(&dirs)
        .map(|(segs, (_, base))| {
            (0..segs.len())
                .map(|k| place.segment_name(base, k, segs.len()))
                .collect()
        })
        .collect();
    if place.rotate_bytes.is_some() {
        let jobs: Vec<(PathBuf, PathBuf, bool)> = names
            .iter()
            .zip(&dirs)
            .flat_map(|(segs, (dir, base))| {
                let abs = place.root.join(dir);
                segs.iter()
                    .enumerate()
                    .map(move |(k, (name, gz))| (abs.join(part_name(base, k)), abs.join(name), *gz))
            })
            .collect();
        jobs.into_par_iter()
            .map(|(from, to, gz)| finish_segment(&from, &to, gz))
            .collect::<io::Result<Vec<()>>>()?;
    }
    let cluster = (!place.name.is_empty()).then(|| place.name.to_string());
    // Files, segment by segment.
    let old = std::mem::take(&mut truth.files);
    for (w, f) in old.into_iter().enumerate() {
        for (seg, (name, gz)) in segments[w].iter().zip(&names[w]) {
            truth.files.push(truth::FileInfo {
                cluster: cluster.clone(),
                file: rel(&dirs[w].0, name),
                lines: seg.lines,
                bytes: seg.bytes,
                gzip: *gz,
                ..f.clone()
            });
        }
    }
    // Findings and the fault: on their segment's line.
    let locate = |w: usize, line: u64| -> (String, u64) {
        let segs = &segments[w];
        let k = segs.iter().rposition(|s| s.first_line <= line).unwrap_or(0);
        (
            rel(&dirs[w].0, &names[w][k].0),
            line + 1 - segs.get(k).map_or(1, |s: &Segment| s.first_line),
        )
    };
    for e in &mut truth.expected {
        (e.file, e.line) = locate(e.worker, e.line);
        e.cluster = cluster.clone();
    }
    truth.expected.sort_unstable();
    if let Some(f) = &mut truth.fault
        && let (Some(w), Some(line)) = (f.worker_index, f.line)
    {
        let (file, line) = locate(w, line);
        f.file = Some(file);
        f.line = Some(line);
    }
    Ok(truth)
}

/// Renames a written segment to its final name, or gzips it there.
fn finish_segment(from: &Path, to: &Path, gz: bool) -> io::Result<()> {
    if !gz {
        return fs::rename(from, to);
    }
    let mut r = BufReader::new(fs::File::open(from)?);
    let mut w = flate2::write::GzEncoder::new(
        BufWriter::new(fs::File::create(to)?),
        flate2::Compression::fast(),
    );
    io::copy(&mut r, &mut w)?;
    w.finish()?.flush()?;
    fs::remove_file(from)
}

/// Writes one cluster under `out` (flat: `OUT/connect-N.log`, rotated
/// segments beside it).
pub fn write_cluster_flat(a: &Archive, out: &Path) -> io::Result<Truth> {
    a.validate()
        .map_err(|e| io::Error::new(io::ErrorKind::InvalidInput, e))?;
    let place = Place {
        root: out,
        name: "",
        rotate_bytes: a.rotate_bytes,
        gzip: a.gzip_rotated,
    };
    write_cluster(&place, &a.base)
}

/// Writes an archive of `a.clusters` clusters under `out`
/// (`OUT/<cluster>/connect-N/connect.log…`; one cluster is written flat),
/// the clusters in parallel.
pub fn write_archive(a: &Archive, out: &Path) -> io::Result<ArchiveTruth> {
    a.validate()
        .map_err(|e| io::Error::new(io::ErrorKind::InvalidInput, e))?;
    write_plan(a, &a.plan(), out)
}

/// Writes the clusters `plan` (as [`Archive::plan`] gives them, possibly
/// changed) with `a`'s rotation under `out`.
pub fn write_plan(a: &Archive, plan: &[Planned], out: &Path) -> io::Result<ArchiveTruth> {
    fs::create_dir_all(out)?;
    let truths: Vec<Truth> = plan
        .par_iter()
        .map(|c| {
            let place = Place {
                root: out,
                name: &c.name,
                rotate_bytes: a.rotate_bytes,
                gzip: a.gzip_rotated,
            };
            write_cluster(&place, &c.params)
        })
        .collect::<io::Result<_>>()?;
    let mut files = Vec::new();
    let mut expected = Vec::new();
    let mut clusters = Vec::new();
    let (mut bytes, mut lines) = (0, 0);
    for (c, t) in plan.iter().zip(truths) {
        bytes += t.stats.bytes;
        lines += t.stats.lines;
        files.extend(t.files);
        expected.extend(t.expected);
        clusters.push(ClusterTruth {
            name: c.name.clone(),
            group: c.params.group.clone(),
            kafka_cluster_id: c.params.kafka_cluster_id.clone(),
            scenario: t.scenario,
            fault: t.fault,
            stats: t.stats,
        });
    }
    expected.sort_unstable();
    Ok(ArchiveTruth {
        schema: truth::ARCHIVE_SCHEMA,
        archive: truth::ArchiveInfo {
            clusters: clusters.len(),
            rotate_bytes: a.rotate_bytes,
            gzip_rotated: a.gzip_rotated,
            bytes,
            lines,
        },
        clusters,
        files,
        expected,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::shared_buf::SharedBuf as Buf;
    use crate::sim::{FaultKind, Proto, Version, simulate};
    use std::collections::BTreeSet;

    fn read(path: &Path) -> Vec<u8> {
        let raw = fs::read(path).unwrap();
        if path.extension().is_some_and(|e| e == "gz") {
            let mut out = Vec::new();
            io::Read::read_to_end(&mut flate2::read::GzDecoder::new(&raw[..]), &mut out).unwrap();
            out
        } else {
            raw
        }
    }

    fn line(text: &[u8], n: u64) -> String {
        let s = String::from_utf8_lossy(text);
        s.lines().nth(n as usize - 1).unwrap_or("").to_string()
    }

    #[test]
    fn rotation_only_cuts_the_same_bytes_into_named_segments() {
        let mut p = Params::new(3, Version::V3_6, Proto::Sessioned);
        p.events = 30;
        p.fault = Some(FaultKind::DoubleStart);
        let bufs: Vec<Buf> = (0..p.workers).map(|_| Buf::default()).collect();
        let outs = bufs
            .iter()
            .map(|b| Box::new(b.clone()) as Box<dyn Write>)
            .collect();
        let plain = simulate(&p, outs, false).unwrap();
        let dir = std::env::temp_dir().join(format!("herder-audit-rot-{}", std::process::id()));
        let _ = fs::remove_dir_all(&dir);
        let mut a = Archive::single(p);
        a.rotate_bytes = Some(50_000);
        a.gzip_rotated = true;
        let rotated = write_cluster_flat(&a, &dir).unwrap();
        assert!(rotated.files.len() > 2 * plain.files.len());
        for (w, buf) in bufs.iter().enumerate() {
            let whole = buf.0.lock().unwrap().clone();
            let base = worker_file(w);
            // Oldest first: connect-1.log.N.gz … connect-1.log.1.gz, connect-1.log.
            let segs: Vec<&truth::FileInfo> = rotated
                .files
                .iter()
                .filter(|f| f.file == base || f.file.starts_with(&format!("{base}.")))
                .collect();
            let n = segs.len();
            let mut joined = Vec::new();
            for k in (0..n).rev() {
                let name = if k == 0 {
                    base.clone()
                } else {
                    format!("{base}.{k}.gz")
                };
                let f = segs.iter().find(|f| f.file == name).unwrap();
                let bytes = read(&dir.join(&name));
                assert_eq!(bytes.len() as u64, f.bytes, "{name}");
                assert_eq!(f.gzip, k > 0);
                if k > 0 {
                    assert!(f.bytes >= 50_000, "{name}: {}", f.bytes);
                }
                joined.extend(bytes);
            }
            assert!(joined == whole, "worker {w}: the segments are not the log");
        }
        // Each expected finding names the same line, in its segment.
        assert!(!plain.expected.is_empty());
        assert_eq!(plain.expected.len(), rotated.expected.len());
        for e in &rotated.expected {
            let p = plain
                .expected
                .iter()
                .find(|x| x.kind == e.kind && x.resource == e.resource && x.worker == e.worker)
                .unwrap();
            let whole = bufs[e.worker].0.lock().unwrap().clone();
            assert_eq!(
                line(&read(&dir.join(&e.file)), e.line),
                line(&whole, p.line)
            );
        }
        let f = rotated.fault.as_ref().unwrap();
        let seg = read(&dir.join(f.file.as_ref().unwrap()));
        assert!(line(&seg, f.line.unwrap()).contains("Starting task"));
        let _ = fs::remove_dir_all(&dir);
    }

    #[test]
    fn an_archive_plan_has_twins_and_other_groups() {
        let mut a = Archive::single(Params::new(5, Version::V3_0, Proto::Sessioned));
        a.clusters = 10;
        a.fault_cluster = 3;
        a.base.fault = Some(FaultKind::SkipStart);
        assert!(a.validate().is_ok());
        let plan = a.plan();
        let names: BTreeSet<&str> = plan.iter().map(|c| c.name.as_str()).collect();
        assert_eq!(names.len(), 10);
        assert_eq!(plan[0].params.group, plan[1].params.group);
        assert_ne!(
            plan[0].params.kafka_cluster_id,
            plan[1].params.kafka_cluster_id
        );
        assert_eq!(plan[0].params.seed, 5);
        let seeds: BTreeSet<u64> = plan.iter().map(|c| c.params.seed).collect();
        assert_eq!(seeds.len(), 10);
        assert!(
            plan.iter()
                .skip(2)
                .all(|c| c.params.group != "connect-cluster")
        );
        assert_eq!(plan[8].params.group, "connect-billing-2");
        let faulty: Vec<usize> = (0..10)
            .filter(|&k| plan[k].params.fault.is_some())
            .collect();
        assert_eq!(faulty, [3]);
        a.fault_cluster = 10;
        assert!(a.validate().is_err());
        a.fault_cluster = 0;
        a.gzip_rotated = true;
        assert!(a.validate().is_err());
    }
}
