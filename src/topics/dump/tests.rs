//! Dump shapes, from lines of real dumps (conformance/topics.sh on a
//! Kafka 2.4.1 and 3.9.1 cluster) and the variants the console consumer
//! prints with other properties.

use super::*;

const STATUS: &str =
    r#"{"state":"RUNNING","trace":null,"worker_id":"127.0.0.1:18083","generation":6}"#;

fn one(text: &str) -> RawRecord {
    let d = read(SourceId(0), text.as_bytes());
    assert!(d.skipped.is_empty(), "{:?}", d.skipped);
    assert_eq!(d.records.len(), 1, "{text}");
    d.records.into_iter().next().unwrap()
}

#[test]
fn console_consumer_with_every_field() {
    let line =
        format!("CreateTime:1796535611642\tPartition:0\tOffset:10\tstatus-task-c-0\t{STATUS}\n");
    assert_eq!(shape_of(line.as_bytes()), Some(Shape::Console));
    let r = one(&line);
    assert_eq!(r.at.partition, Some(0));
    assert_eq!(r.at.offset, Some(10));
    assert_eq!(r.at.topic, None);
    assert_eq!(r.timestamp, Some(1796535611642));
    assert_eq!(r.key.as_deref(), Some("status-task-c-0"));
    assert_eq!(r.value.as_deref(), Some(STATUS));
    assert_eq!(r.line.line, 1);
    assert_eq!(r.line.message(), format!("status-task-c-0\t{STATUS}"));
    // a tombstone
    let r = one("CreateTime:1796535605990\tPartition:0\tOffset:5\tconnector-c\tnull\n");
    assert_eq!((r.key.as_deref(), r.value), (Some("connector-c"), None));
}

#[test]
fn console_consumer_variants() {
    // the separator as given (key.separator), headers, no partition
    let r = one(&format!(
        "LogAppendTime:5 : Offset:3 : NO_HEADERS : status-task-c-0 : {STATUS}"
    ));
    assert_eq!(
        (r.timestamp, r.at.partition, r.at.offset),
        (Some(5), None, Some(3))
    );
    assert_eq!(r.key.as_deref(), Some("status-task-c-0"));
    // key and value only, tab-separated (print.key alone)
    let r = one(&format!("status-task-c-0\t{STATUS}"));
    assert_eq!((r.timestamp, r.at.offset), (None, None));
    assert_eq!(r.value.as_deref(), Some(STATUS));
    // key and value only, another separator
    let r = one(r#"commit-my-conn | {"tasks":3}"#);
    assert_eq!(r.key.as_deref(), Some("commit-my-conn"));
    // NO_TIMESTAMP; a key holding the separator's first character
    let r = one("NO_TIMESTAMP,Partition:2,Offset:9,connector-a,b,null");
    assert_eq!((r.key.as_deref(), r.value), (Some("connector-a,b"), None));
    assert_eq!(r.at.partition, Some(2));
    // an offsets-topic record: a JSON key
    let r = one(
        r#"CreateTime:1	Partition:0	Offset:3	["src",{"filename":"/in.txt"}]	{"position":1413}"#,
    );
    assert_eq!(r.key.as_deref(), Some(r#"["src",{"filename":"/in.txt"}]"#));
    assert_eq!(r.value.as_deref(), Some(r#"{"position":1413}"#));
    // CRLF line ends, and the consumer's own closing line
    let d = read(
        SourceId(0),
        format!("status-task-c-0\t{STATUS}\r\nProcessed a total of 1 messages\r\n").as_bytes(),
    );
    assert_eq!((d.records.len(), d.skipped.len()), (1, 0));
}

#[test]
fn a_bad_line_is_named_and_the_rest_read() {
    let text = format!(
        "CreateTime:1\tPartition:0\tOffset:0\tstatus-task-c-0\t{STATUS}\n\
         CreateTime:2\tPartition:0\tOffset:1\tstatus-task-c-0\t{{\"state\":\n\
         [2024-01-01 00:00:00,000] WARN something (org.apache.kafka)\n\
         CreateTime:3\tPartition:0\tOffset:2\tstatus-task-c-0\tnull\n"
    );
    let d = read(SourceId(4), text.as_bytes());
    assert_eq!(d.records.len(), 2);
    assert_eq!(d.records[1].line.line, 4);
    let lines: Vec<u64> = d.skipped.iter().map(|s| s.line).collect();
    assert_eq!(lines, [2, 3]);
    assert!(d.skipped.iter().all(|s| s.source == SourceId(4)));
}

#[test]
fn a_dump_without_keys_is_said_once() {
    let text = format!(
        "CreateTime:1\tPartition:0\tOffset:0\t{STATUS}\nCreateTime:2\tPartition:0\tOffset:1\t{STATUS}\n"
    );
    let d = read(SourceId(0), text.as_bytes());
    assert!(d.records.is_empty());
    assert_eq!(d.skipped.len(), 2, "{:?}", d.skipped);
    assert!(d.skipped[0].message.contains("print.key"));
    assert!(
        d.skipped[1]
            .message
            .starts_with("2 records without their key")
    );
}

#[test]
fn kcat_documented_format() {
    // a value holding a newline and the format's own words: its length says
    // where it ends
    let tricky = "{\"properties\":{\"a\":\"x\nvalue=1:y\"}}";
    let text = format!(
        "topic=connect-configs partition=0 offset=5 timestamp=1796535527981 key=11:connector-c value=-1:\n\
         topic=connect-configs partition=0 offset=7 timestamp=1796535533027 key=11:connector-c value={}:{tricky}\n\
         topic=connect-configs partition=0 offset=8 timestamp=-1 key=-1: value=2:{{}}\n",
        tricky.len()
    );
    assert_eq!(shape_of(text.as_bytes()), Some(Shape::Kcat));
    let d = read(SourceId(0), text.as_bytes());
    assert!(d.skipped.is_empty(), "{:?}", d.skipped);
    assert_eq!(d.records.len(), 3);
    let r = &d.records[0];
    assert_eq!(r.at.topic.as_deref(), Some("connect-configs"));
    assert_eq!((r.at.offset, r.value.as_deref()), (Some(5), None));
    assert_eq!(d.records[1].value.as_deref(), Some(tricky));
    assert_eq!(d.records[1].line.line, 2);
    assert_eq!(
        (d.records[2].line.line, d.records[2].key.as_deref()),
        (4, None)
    );
    assert_eq!(d.records[2].timestamp, None);
}

#[test]
fn kcat_bad_records_are_named_and_skipped() {
    let text = "topic=t partition=0 offset=1 timestamp=1 key=3:abc value=10:short\n\
                topic=t partition=x offset=2 timestamp=1 key=1:a value=1:b\n\
                topic=t partition=0 offset=3 timestamp=1 key=1:a value=2:{}\n";
    let d = read(SourceId(0), text.as_bytes());
    assert_eq!(d.records.len(), 1);
    assert_eq!(d.records[0].at.offset, Some(3));
    assert_eq!(d.skipped.iter().map(|s| s.line).collect::<Vec<_>>(), [1, 2]);
}

#[test]
fn json_lines_ours_and_kcats_envelope() {
    let kcat = r#"{"topic":"connect-status","partition":0,"offset":6,"tstype":"create","ts":1796535528457,"broker":1,"key":"status-task-c-0","payload":null}"#;
    assert_eq!(shape_of(kcat.as_bytes()), Some(Shape::JsonLines));
    let r = one(kcat);
    assert_eq!(
        (r.at.offset, r.timestamp, r.value),
        (Some(6), Some(1796535528457), None)
    );
    let ours = r#"{"topic":"connect-configs","partition":0,"offset":4,"timestamp":17,"key":"commit-c","value":"{\"tasks\":2}"}"#;
    let r = one(ours);
    assert_eq!(r.value.as_deref(), Some(r#"{"tasks":2}"#));
    // a value given as JSON rather than as its text
    let r = one(r#"{"topic":"t","partition":0,"offset":4,"key":"commit-c","value":{"tasks":2}}"#);
    assert_eq!(r.value.as_deref(), Some(r#"{"tasks":2}"#));
    let d = read(
        SourceId(0),
        format!("{ours}\n{{\"topic\":\"t\",\"offset\":1}}\nnot json\n").as_bytes(),
    );
    assert_eq!(d.records.len(), 1);
    assert_eq!(d.skipped.iter().map(|s| s.line).collect::<Vec<_>>(), [2, 3]);
}

#[test]
fn empty_and_blank_dumps_hold_nothing() {
    for text in ["", "\n\n", "   \n"] {
        let d = read(SourceId(0), text.as_bytes());
        assert_eq!(d.shape, None);
        assert!(d.records.is_empty() && d.skipped.is_empty());
    }
}

#[test]
fn gzip_dumps_read_transparently() {
    use std::io::Write;
    let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
    gz.write_all(format!("status-task-c-0\t{STATUS}\n").as_bytes())
        .unwrap();
    let data = gz.finish().unwrap();
    let d = read_input(SourceId(0), &Input::bytes("d.gz", data)).unwrap();
    assert!(d.gzip);
    assert_eq!(d.records.len(), 1);
}
