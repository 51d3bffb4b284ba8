//! `herder-audit watch --bootstrap`: a broker that is not there never ends
//! the watcher (it says so, counts it and keeps serving); security settings
//! it cannot use end it at the start, naming them and no secret. The reading
//! of a real broker is `conformance/topics-live.sh`'s.

mod support;

use std::ffi::OsStr;
use support::bin;
use support::watch::Watcher;

/// A local port nothing listens on.
fn closed_port() -> u16 {
    let l = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    l.local_addr().unwrap().port()
}

#[test]
fn a_broker_that_is_down_is_said_counted_and_tried_again() {
    let bootstrap = format!("127.0.0.1:{}", closed_port());
    let args: Vec<&OsStr> = [
        "--bootstrap",
        &bootstrap,
        "--status-topic",
        "connect-status",
    ]
    .into_iter()
    .map(OsStr::new)
    .collect();
    let w = Watcher::start(&args);
    w.until(60, "the failed attempt counted", |w| {
        w.metric("herder_audit_input_errors_total{reason=\"kafka\"}")
            .is_some_and(|v| v >= 1.0)
    });
    assert_eq!(
        w.metric("herder_audit_topics_up{topic=\"connect-status\"}"),
        Some(0.0)
    );
    assert_eq!(w.get("/healthz").0, 200, "it keeps running");
    // Not ready while the topics were never read to their end (the logs:
    // none); the body says why. Ready once read: src/watch/topics.rs's test.
    let (status, why) = w.get("/readyz");
    assert_eq!(status, 503, "{why}");
    assert!(
        why.contains("the topics (connect-status) not yet read to their end")
            && why.contains("the last try: "),
        "{why}"
    );
    assert_eq!(w.metric("herder_audit_ready"), Some(0.0));
    let said = w.stderr.lock().unwrap().clone();
    assert!(said.contains("cannot read the topics"), "{said}");
    assert!(said.contains("trying again"), "{said}");
    assert!(w.stop().success());
}

#[test]
fn unusable_security_settings_end_it_at_the_start() {
    let out = bin()
        .args(["watch", "--bootstrap", "127.0.0.1:9", "--config-topic", "c"])
        .args(["--listen", "127.0.0.1:0"])
        .env("HERDER_AUDIT_KAFKA_SECURITY_PROTOCOL", "SASL_PLAINTEXT")
        .env("HERDER_AUDIT_KAFKA_SASL_MECHANISM", "GSSAPI")
        .env("HERDER_AUDIT_KAFKA_SASL_PASSWORD", "hunter2")
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(
        err.contains("sasl.mechanism GSSAPI is not supported"),
        "{err}"
    );
    assert!(!err.contains("hunter2"), "{err}");
}
