//! `herder-audit simulate`: the archive the flags ask for written with its
//! truth (`truth.json`), and a one-line account of it on standard error.

use super::flags::SimArgs;
use crate::sim;
use std::fs;
use std::io::{self, Write};
use std::time::Instant;

fn write_json<T: serde::Serialize>(path: &std::path::Path, value: &T) -> io::Result<()> {
    let f = fs::File::create(path)?;
    let mut w = io::BufWriter::new(f);
    serde_json::to_writer_pretty(&mut w, value).map_err(io::Error::other)?;
    w.write_all(b"\n")?;
    w.flush()
}

/// `herder-audit simulate …`; returns the exit status.
pub(super) fn simulate(args: &SimArgs) -> i32 {
    let a = match args.archive() {
        Ok(a) => a,
        Err(e) => {
            eprintln!("herder-audit simulate: {e}");
            return crate::exit::EXIT_ERROR;
        }
    };
    if std::env::var_os("SIM_DEBUG").is_some() {
        eprintln!("{a:?}");
    }
    let t0 = Instant::now();
    let path = args.out.join("truth.json");
    // (files, lines, bytes, generations, expected, fault note)
    let summary = if a.clusters == 1 {
        sim::write_cluster_flat(&a, &args.out).and_then(|t| {
            write_json(&path, &t)?;
            Ok((
                t.files.len(),
                t.stats.lines,
                t.stats.bytes,
                t.stats.generations.to_string(),
                t.expected.len(),
                fault_note(t.fault.as_ref()),
            ))
        })
    } else {
        sim::write_archive(&a, &args.out).and_then(|t| {
            write_json(&path, &t)?;
            let gens: Vec<String> = t
                .clusters
                .iter()
                .map(|c| c.stats.generations.to_string())
                .collect();
            let faults: String = t
                .clusters
                .iter()
                .filter(|c| c.fault.is_some())
                .map(|c| format!("{} in {}", fault_note(c.fault.as_ref()), c.name))
                .collect();
            Ok((
                t.files.len(),
                t.archive.lines,
                t.archive.bytes,
                format!("{} clusters, {}", t.clusters.len(), gens.join("+")),
                t.expected.len(),
                faults,
            ))
        })
    };
    let (files, lines, bytes, gens, expected, fault) = match summary {
        Ok(s) => s,
        Err(e) => {
            eprintln!("herder-audit simulate: {}: {e}", args.out.display());
            return crate::exit::EXIT_ERROR;
        }
    };
    let secs = t0.elapsed().as_secs_f64();
    let mb = bytes as f64 / 1e6;
    eprintln!(
        "herder-audit simulate: {files} log file(s), {lines} lines, {mb:.1} MB in {secs:.2} s ({:.0} MB/s); {gens} generations; {expected} expected finding(s){fault}",
        if secs > 0.0 { mb / secs } else { 0.0 },
    );
    crate::exit::EXIT_OK
}

fn fault_note(f: Option<&sim::truth::FaultInfo>) -> String {
    match f {
        Some(f) if f.injected => format!("; fault {} injected", f.kind),
        Some(f) => format!("; fault {} found no opportunity", f.kind),
        None => String::new(),
    }
}
