//! The internal topics read live from a real broker with herder-audit's
//! Rust client, compared with the console consumer's dumps of the same
//! records. Needs a broker: `conformance/topics-live.sh` starts one, fills
//! it from a real capture's dumps and runs this test with
//!
//!   HERDER_AUDIT_LIVE_BOOTSTRAP=host:port
//!   HERDER_AUDIT_LIVE_CONFIG=<topic>=<console dump of the config topic>
//!   HERDER_AUDIT_LIVE_STATUS=<topic>=<console dump of the status topic>
//!
//! (`cargo test --test topics_live -- --ignored`); without them it fails.

use herder_audit::SourceId;
use herder_audit::internal_topics::dump;
use herder_audit::internal_topics::live::{Connection, LiveReader};

fn var(name: &str) -> String {
    std::env::var(name)
        .unwrap_or_else(|_| panic!("{name} is not set: run conformance/topics-live.sh"))
}

/// (key, value) of every record, in order.
type Pairs = Vec<(Option<String>, Option<String>)>;

fn check_topic(reader: &mut LiveReader, spec: &str) {
    let (topic, dump_path) = spec.split_once('=').expect("TOPIC=DUMP");
    let data = std::fs::read(dump_path).unwrap();
    let d = dump::read(SourceId(0), &data);
    assert!(d.skipped.is_empty(), "{dump_path}: {:?}", d.skipped);
    assert!(!d.records.is_empty(), "{dump_path} holds no record");
    let live = reader.poll(topic, SourceId(1)).unwrap();
    let pairs = |v: &[herder_audit::internal_topics::RawRecord]| -> Pairs {
        v.iter().map(|r| (r.key.clone(), r.value.clone())).collect()
    };
    assert_eq!(
        pairs(&live),
        pairs(&d.records),
        "{topic} read live != {dump_path}"
    );
    // fresh topic, one partition: offsets 0.., each record's place named
    for (i, r) in live.iter().enumerate() {
        assert_eq!(r.at.topic.as_deref(), Some(topic));
        assert_eq!((r.at.partition, r.at.offset), (Some(0), Some(i as i64)));
        assert!(r.timestamp.is_some());
        assert_eq!(r.line.line, i as u64 + 1);
    }
    assert!(
        live.iter().any(|r| r.value.is_none()) == d.records.iter().any(|r| r.value.is_none()),
        "tombstones read back as tombstones"
    );
    // a second poll reads only what was written since: nothing
    assert!(reader.poll(topic, SourceId(1)).unwrap().is_empty());
}

#[test]
#[ignore = "needs a broker: conformance/topics-live.sh"]
fn live_reads_are_the_dumped_records() {
    let c = Connection {
        bootstrap: vec![var("HERDER_AUDIT_LIVE_BOOTSTRAP")],
        ..Connection::default()
    };
    let mut reader = LiveReader::connect(&c).unwrap();
    check_topic(&mut reader, &var("HERDER_AUDIT_LIVE_CONFIG"));
    check_topic(&mut reader, &var("HERDER_AUDIT_LIVE_STATUS"));
    let e = reader.partitions("no-such-topic").unwrap_err();
    assert!(e.contains("no topic no-such-topic"), "{e}");
}
