//! `--format html`: one self-contained page, made from the sources in
//! `html/`. The template (`html/report.html`, minijinja, HTML
//! auto-escaping) lays out the run and worker summaries and embeds, as JSON
//! inside `<script type="application/json">` elements, the same document
//! `--format json` prints ([`super::json::document`]) and the timeline
//! ([`super::html_timeline::timeline_json`]); the inline script
//! (`html/*.js`) draws the swim lanes, markers, filters, the downtime bands
//! and the changes' blast radius, and the findings table from them. Nothing is loaded from the network.

use super::{html_timeline, json};
use crate::audit::Report;
use minijinja::value::Serde;
use minijinja::{Environment, Value, context};
use serde_json::Value as Json;
use std::error::Error as _;
use std::io::{self, Write};

const TEMPLATE: &str = include_str!("../../html/report.html");
pub const CSS: &str = include_str!("../../html/report.css");
/// The page's scripts, in order (they share one namespace).
pub const SCRIPTS: [&str; 4] = [
    include_str!("../../html/common.js"),
    include_str!("../../html/downtime.js"),
    include_str!("../../html/timeline.js"),
    include_str!("../../html/report.js"),
];

/// One group of the page: its name and the document's worker entries.
fn groups(doc: &Json, tl: &html_timeline::TimelineDoc) -> Vec<Json> {
    let workers = doc["workers"].as_array().map(Vec::as_slice).unwrap_or(&[]);
    tl.groups
        .iter()
        .enumerate()
        .map(|(gi, g)| {
            let findings = tl
                .findings
                .iter()
                .filter(|f| tl.lanes.get(f.0).is_some_and(|l| l.group == gi))
                .count();
            serde_json::json!({
                "index": gi,
                "name": g.name,
                "kafka_cluster": g.kafka_cluster,
                "findings": findings,
                "workers": g.lanes.iter().filter_map(|&i| workers.get(i)).map(with_counts).collect::<Vec<_>>(),
            })
        })
        .collect()
}

/// `12 (rebalance 10, restart 2)`, as the text summary writes counts.
fn counts(m: &Json) -> String {
    let Some(m) = m.as_object() else {
        return "0".to_string();
    };
    let total: u64 = m.values().filter_map(Json::as_u64).sum();
    if total == 0 {
        return "0".to_string();
    }
    let parts: Vec<String> = m
        .iter()
        .map(|(k, n)| format!("{k} {}", n.as_u64().unwrap_or(0)))
        .collect();
    format!("{total} ({})", parts.join(", "))
}

/// A worker entry of the document with its counts written out.
fn with_counts(w: &Json) -> Json {
    let mut w = w.clone();
    w["counts"] = serde_json::json!({
        "starts": counts(&w["starts"]),
        "stops": counts(&w["stops"]),
        "findings": counts(&w["findings"]),
    });
    w
}

/// Writes the whole report as one HTML page.
pub fn write_html(report: &Report, out: &mut dyn Write) -> io::Result<()> {
    let doc = json::document(report);
    let tl = html_timeline::timeline_doc(report);
    let mut env = Environment::new();
    env.add_template("report.html", TEMPLATE)
        .map_err(io::Error::other)?;
    let tmpl = env.get_template("report.html").map_err(io::Error::other)?;
    let ctx = context! {
        tool_version => env!("CARGO_PKG_VERSION"),
        summary => Value::from(Serde(&doc["summary"])),
        bytes => super::text::human_bytes(doc["summary"]["bytes"].as_u64().unwrap_or(0)),
        inputs => Value::from(Serde(&doc["inputs"])),
        errors => Value::from(Serde(&doc["errors"])),
        groups => Value::from(Serde(groups(&doc, &tl))),
        css => Value::from_safe_string(CSS.to_string()),
        scripts => SCRIPTS.iter().map(|s| Value::from_safe_string(s.to_string())).collect::<Vec<_>>(),
        report => Value::from(Serde(&doc)),
        timeline => Value::from(Serde(&tl)),
    };
    tmpl.render_captured_to(ctx, &mut *out).map_err(|e| {
        match e.source().and_then(|s| s.downcast_ref::<io::Error>()) {
            Some(io) => io::Error::new(io.kind(), io.to_string()),
            None => io::Error::other(e),
        }
    })?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::audit::{self, Options};
    use crate::input::Input;

    fn render(inputs: &[Input]) -> (Report, String) {
        let opts = Options {
            jobs: Some(1),
            timeline: true,
            ..Options::default()
        };
        let report = audit::audit(inputs, &opts);
        let mut out = Vec::new();
        write_html(&report, &mut out).unwrap();
        (report, String::from_utf8(out).unwrap())
    }

    /// The text of the element `<script type="application/json" id=ID>`.
    fn embedded<'a>(page: &'a str, id: &str) -> &'a str {
        let open = format!("<script type=\"application/json\" id=\"{id}\">");
        let start = page.find(&open).unwrap() + open.len();
        let len = page[start..].find("</script>").unwrap();
        &page[start..start + len]
    }

    /// Log text that is markup stays data: the page holds exactly its own
    /// script elements, and the embedded document is the one
    /// `--format json` prints.
    #[test]
    fn log_text_cannot_break_out_and_the_data_is_the_json_document() {
        let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("corpus");
        let text = std::fs::read_to_string(dir.join("fault-kafka-8676-2.3.0.log")).unwrap();
        let evil = "x</script><script>alert(1)</script><!--<b>";
        let hostile = text.replace("clicks-sink", evil);
        let (report, page) = render(&[Input::bytes("hostile.log", hostile.into_bytes())]);
        assert!(report.findings().count() >= 2);
        assert_eq!(page.matches("<script").count(), 2 + SCRIPTS.len());
        assert_eq!(page.matches("</script>").count(), 2 + SCRIPTS.len());
        assert!(!page.contains("<!--"));
        let doc: Json = serde_json::from_str(embedded(&page, "report-data")).unwrap();
        assert_eq!(doc, json::document(&report));
        assert!(doc.to_string().contains(evil));
        let tl: Json = serde_json::from_str(embedded(&page, "timeline-data")).unwrap();
        assert_eq!(tl, html_timeline::timeline_json(&report));
    }

    #[test]
    fn an_input_without_workers_renders() {
        let (report, page) = render(&[Input::bytes("empty.log", b"no lifecycle line\n".to_vec())]);
        assert!(report.workers.is_empty());
        assert!(page.contains("No worker's lifecycle lines were found"));
        let tl: Json = serde_json::from_str(embedded(&page, "timeline-data")).unwrap();
        assert_eq!(tl["groups"], serde_json::json!([]));
    }

    /// The assets are inlined as trusted text: they must not end their
    /// own element early.
    #[test]
    fn assets_do_not_close_their_elements() {
        for js in SCRIPTS {
            assert!(!js.to_ascii_lowercase().contains("</script"));
            assert!(!js.contains("<!--"));
        }
        assert!(!CSS.to_ascii_lowercase().contains("</style"));
    }
}
