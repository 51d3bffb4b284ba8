//! The interruptions against what real clusters recorded (issue 26 §4):
//! every capture of `corpus/real-kafka/` with counting sources has a
//! `checker.json` listing each counting task's gaps and handovers; the
//! interruptions herder-audit finds in the capture's logs are compared
//! with them (`src/interruptions/compare.rs`), and the table in
//! docs/real-kafka.md ("Interruptions against the records") must be what
//! this test computes (`HERDER_AUDIT_BLESS=1` rewrites it).

use herder_audit::expand;
use herder_audit::testing::{Comparison, compare, quantile};
use herder_audit::{Options, audit};
use std::path::{Path, PathBuf};

fn captures(root: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let Ok(releases) = std::fs::read_dir(root) else {
        return out;
    };
    for r in releases.flatten() {
        let Ok(scenarios) = std::fs::read_dir(r.path()) else {
            continue;
        };
        for s in scenarios.flatten() {
            let c = s.path().join("checker.json");
            if c.is_file() {
                out.push(s.path());
            }
        }
    }
    out.sort();
    out
}

fn pct(x: Option<f64>) -> String {
    x.map_or("–".to_string(), |x| format!("{:.0} %", x * 100.0))
}

fn ms(x: Option<i64>) -> String {
    x.map_or("–".to_string(), |x| format!("{x} ms"))
}

#[test]
fn interruptions_match_the_records() {
    let root = std::env::var_os("HERDER_AUDIT_CAPTURES")
        .map(PathBuf::from)
        .unwrap_or_else(|| Path::new(env!("CARGO_MANIFEST_DIR")).join("corpus/real-kafka"));
    let mut rows = Vec::new();
    let mut all = Comparison::default();
    for dir in captures(&root) {
        let checker: serde_json::Value =
            serde_json::from_str(&std::fs::read_to_string(dir.join("checker.json")).unwrap())
                .unwrap();
        let with_records = checker["tasks"].as_object().is_some_and(|t| !t.is_empty());
        if !with_records {
            continue;
        }
        let opts = Options {
            jobs: Some(1),
            ..Options::default()
        };
        let (inputs, _) = expand(std::slice::from_ref(&dir));
        let report = audit(&inputs, &opts);
        let c = compare(&report.isolation, &checker);
        let name = dir
            .strip_prefix(&root)
            .unwrap()
            .to_string_lossy()
            .replace('\\', "/");
        rows.push((name, c.clone()));
        all.add(&c);
    }
    let mut table = String::from(
        "| capture | gaps | found | recall | stalls (found) | interruptions | real | precision | median error | p95 error |\n|---|---|---|---|---|---|---|---|---|---|\n",
    );
    for (name, c) in rows
        .iter()
        .chain(std::iter::once(&("all".to_string(), all.clone())))
    {
        table.push_str(&format!(
            "| {name} | {} | {} | {} | {} ({}) | {} | {} | {} | {} | {} |\n",
            c.gaps,
            c.gaps_found,
            pct(c.recall()),
            c.stalls,
            c.stalls_found,
            c.interruptions,
            c.real,
            pct(c.precision()),
            ms(c.error_quantile(0.5)),
            ms(c.error_quantile(0.95)),
        ));
    }
    eprintln!("{table}");
    for (name, c) in &rows {
        for m in &c.missed {
            eprintln!("{name}: missed gap {m:?}");
        }
        for u in &c.unreal {
            eprintln!("{name}: unreal interruption {u:?}");
        }
    }
    if rows.is_empty() {
        eprintln!(
            "no capture with counting sources under {}: skipped",
            root.display()
        );
        return;
    }
    // The targets of issue 26 §4, over every capture.
    assert!(all.recall().unwrap() >= 0.95, "recall {:?}", all.recall());
    assert!(
        all.precision().unwrap() >= 0.95,
        "precision {:?}",
        all.precision()
    );
    assert!(
        quantile(&all.errors_ms, 0.5).unwrap() <= 200,
        "median error {:?}",
        quantile(&all.errors_ms, 0.5)
    );
    // The table in docs/real-kafka.md is this one.
    let doc_path = Path::new(env!("CARGO_MANIFEST_DIR")).join("docs/real-kafka.md");
    let doc = std::fs::read_to_string(&doc_path).unwrap();
    let (open, close) = (
        "<!-- generated: interruptions -->\n",
        "<!-- end: interruptions -->",
    );
    let (Some(a), Some(b)) = (doc.find(open), doc.find(close)) else {
        panic!("docs/real-kafka.md has no {open:?} block");
    };
    let current = &doc[a + open.len()..b];
    if std::env::var_os("HERDER_AUDIT_BLESS").is_some() {
        let new = format!("{}{table}{}", &doc[..a + open.len()], &doc[b..]);
        std::fs::write(&doc_path, new).unwrap();
    } else {
        assert_eq!(
            current, table,
            "docs/real-kafka.md: rerun with HERDER_AUDIT_BLESS=1"
        );
    }
}
