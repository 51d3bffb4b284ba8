use super::*;

fn read(data: &str) -> (String, Decoded) {
    let head = data.as_bytes();
    let lines: Vec<&[u8]> = head
        .split(|&b| b == b'\n')
        .filter(|l| !l.trim_ascii().is_empty())
        .collect();
    let kind = detect(head, &lines).unwrap_or_else(|| panic!("no kind: {data}"));
    let (mut r, d) = reader(std::io::Cursor::new(data.as_bytes().to_vec()), kind);
    let mut s = String::new();
    r.read_to_string(&mut s).unwrap();
    (s, d.unwrap())
}

#[test]
fn detects_each_kind() {
    let cases: [(&str, Kind); 9] = [
        (
            r#"{"__CURSOR":"s=1;i=1","__REALTIME_TIMESTAMP":"1709547300000000","MESSAGE":"x"}"#,
            Kind::JournaldJson,
        ),
        (
            "__CURSOR=s=1;i=1\n__REALTIME_TIMESTAMP=1\nMESSAGE=x\n",
            Kind::JournaldExport,
        ),
        (
            r#"{"labels":{"pod":"a"},"line":"x","timestamp":"2025-03-04T10:15:00.1Z"}"#,
            Kind::LokiJsonl,
        ),
        (r#"2025-03-04T10:15:00.1Z {pod="a"} x"#, Kind::LokiDefault),
        (
            r#"{"_index":"i","_id":"1","_source":{"@timestamp":"2025-03-04T10:15:00.1Z","message":"x"}}"#,
            Kind::Elastic,
        ),
        (
            r#"{"file":"/f","host":"h","message":"x","source_type":"file","timestamp":"2025-03-04T10:15:00.1Z"}"#,
            Kind::Vector,
        ),
        (r#"{"date":1709547300.1,"log":"x"}"#, Kind::FluentBit),
        (
            "{\n  \"events\": [\n    {\"logStreamName\": \"s\", \"timestamp\": 1709547300100, \"message\": \"x\"}\n  ]\n}\n",
            Kind::CloudWatchJson,
        ),
        (
            "2025-03-04T10:15:00.100000+00:00 s [2025-03-04 10:15:00,100] INFO x (a.B)",
            Kind::CloudWatchTail,
        ),
    ];
    for (data, kind) in cases {
        let lines: Vec<&[u8]> = data
            .as_bytes()
            .split(|&b| b == b'\n')
            .filter(|l| !l.is_empty())
            .collect();
        assert_eq!(detect(data.as_bytes(), &lines), Some(kind), "{data}");
    }
}

#[test]
fn a_search_response_over_many_lines() {
    let data = "{\n  \"took\": 1,\n  \"hits\": {\n    \"hits\": [\n      {\"_source\": {\"@timestamp\": \"2025-03-04T10:15:00.002Z\", \"message\": \"b\", \"log\": {\"offset\": 20}}},\n      {\"_source\": {\"@timestamp\": \"2025-03-04T10:15:00.002Z\", \"message\": \"a\", \"log\": {\"offset\": 10}}}\n    ]\n  }\n}\n";
    let (s, d) = read(data);
    assert_eq!(s, "a\nb\n");
    assert_eq!(d.lines.unwrap().0, vec![6, 5]);
    assert!(d.unordered.lines.is_empty());
}

#[test]
fn several_sources_get_prefixes_and_ties_are_unordered() {
    let data = "{\"logStreamName\":\"w1\",\"timestamp\":1709547300100,\"message\":\"one\"}\n\
                {\"logStreamName\":\"w2\",\"timestamp\":1709547300100,\"message\":\"two\"}\n\
                {\"logStreamName\":\"w1\",\"timestamp\":1709547300100,\"message\":\"three\"}\n";
    let (s, d) = read(data);
    // A source's lines of one time stamp stay together.
    assert_eq!(s, "[stream/w1] one\n[stream/w1] three\n[stream/w2] two\n");
    assert_eq!(d.unordered.lines, vec![1, 2]);
    assert_eq!(d.lines.unwrap().0, vec![1, 3, 2]);
    assert_eq!(
        d.unordered.streams,
        vec![(Some("stream/w1".to_string()), 1)]
    );
}

#[test]
fn multi_line_messages_keep_their_line() {
    let data = "{\"date\":1709547300.1,\"log\":\"[2025-03-04 10:15:00,100] ERROR x (a.B)\\n\\tat y\\n\"}\n{\"date\":1709547300.2,\"log\":\"z\"}\n";
    let (s, d) = read(data);
    assert_eq!(s, "[2025-03-04 10:15:00,100] ERROR x (a.B)\n\tat y\nz\n");
    assert_eq!(d.lines.unwrap().0, vec![1, 1, 2]);
}

#[test]
fn a_classic_log_that_quotes_export_keys_is_no_export() {
    // A worker's own log whose head quotes an Elasticsearch sink's
    // settings: its first line is a record head, not the start of a JSON
    // document, so the keys further down do not make it an export.
    let log = "[2024-05-02 12:26:40,683] INFO Kafka version: 3.6.2 (org.apache.kafka.common.utils.AppInfoParser:119)\n\
               [2024-05-02 12:26:41,002] INFO mapping {\"hits\": 1, \"_source\": {\"@timestamp\": \"t\"}} (com.example.Sink:40)\n";
    let lines: Vec<&[u8]> = log
        .as_bytes()
        .split(|&b| b == b'\n')
        .filter(|l| !l.is_empty())
        .collect();
    assert_eq!(detect(log.as_bytes(), &lines), None);
    // A search response over many lines still is one: its first line
    // parsed alone ends early.
    let doc = "{\n  \"hits\": {\"hits\": [\n    {\"_source\": {\"@timestamp\": \"2025-03-04T10:15:00.1Z\", \"message\": \"x\"}}\n  ]}\n}\n";
    let lines: Vec<&[u8]> = doc
        .as_bytes()
        .split(|&b| b == b'\n')
        .filter(|l| !l.is_empty())
        .collect();
    assert_eq!(detect(doc.as_bytes(), &lines), Some(Kind::Elastic));
}
