use super::logger::paren_name_end;
use super::*;

const DH: &str = "org.apache.kafka.connect.runtime.distributed.DistributedHerder";

fn env(line: &str) -> Envelope<'_> {
    envelope(line).unwrap_or_else(|| panic!("no envelope: {line:?}"))
}

#[test]
fn apache_with_line_numbers_and_worker_prefix() {
    let l = "[2019-08-20 11:00:00,001] INFO [Worker clientId=connect-1, groupId=connect-cluster] Connector a config updated (org.apache.kafka.connect.runtime.distributed.DistributedHerder:1268)";
    let e = env(l);
    assert_eq!(e.ts.unwrap().to_string(), "2019-08-20 11:00:00,001");
    assert_eq!(e.level, Level::Info);
    assert_eq!(e.logger, Some(DH));
    assert_eq!(
        e.worker,
        Some(WorkerCtx {
            client_id: "connect-1",
            group_id: "connect-cluster"
        })
    );
    assert_eq!(e.message, "Connector a config updated");
    assert_eq!(&l[e.msg_start..e.msg_end], e.message);
    assert!(e.mdc.is_none() && e.stream.is_none() && !e.client);
}

#[test]
fn apache_without_line_numbers() {
    let e = env(
        "[2020-08-22 15:15:21,442] INFO [Worker clientId=connect-1, groupId=cp-kafka-connect-1598109267] Starting connectors and tasks using config offset 1 (org.apache.kafka.connect.runtime.distributed.DistributedHerder)",
    );
    assert_eq!(e.logger, Some(DH));
    assert_eq!(
        e.message,
        "Starting connectors and tasks using config offset 1"
    );
}

#[test]
fn mdc_contexts() {
    let e = env(
        "[2024-05-01 10:00:00,123] INFO [my conn.v2|task-12] Creating task my conn.v2-12 (org.apache.kafka.connect.runtime.Worker:523)",
    );
    assert_eq!(
        e.mdc,
        Some(Mdc {
            connector: "my conn.v2",
            scope: MdcScope::Task(12)
        })
    );
    assert_eq!(e.message, "Creating task my conn.v2-12");
    assert_eq!(e.logger, Some("org.apache.kafka.connect.runtime.Worker"));

    let e = env(
        "[2022-03-13 13:56:48,979] INFO [http-sink|worker] Stopping connector http-sink (org.apache.kafka.connect.runtime.Worker:411)",
    );
    assert_eq!(e.mdc.unwrap().scope, MdcScope::Worker);
    assert_eq!(e.message, "Stopping connector http-sink");

    let e = env(
        "[2022-01-18 16:03:44,265] INFO [rep|task-0|offsets] WorkerSourceTask{id=rep-0} Committing offsets (org.apache.kafka.connect.runtime.WorkerSourceTask:478)",
    );
    assert_eq!(e.mdc.unwrap().scope, MdcScope::TaskOffsets(0));
}

#[test]
fn mdc_then_worker_prefix() {
    let e = env(
        "[2024-05-01 10:00:00,101] ERROR [src|worker] [Worker clientId=connect-1, groupId=connect-cluster] Failed to start connector 'src' (org.apache.kafka.connect.runtime.distributed.DistributedHerder:2030)",
    );
    assert_eq!(e.mdc.unwrap().connector, "src");
    assert_eq!(e.worker.unwrap().group_id, "connect-cluster");
    assert_eq!(e.message, "Failed to start connector 'src'");
    assert_eq!(e.level, Level::Error);
}

#[test]
fn client_prefixes_are_marked() {
    let e = env(
        "[2022-03-13 13:56:49,023] INFO [http-sink|task-0] [Consumer clientId=connector-consumer-http-sink-0, groupId=connect-http-sink] Revoke previously assigned partitions http-messages-0 (org.apache.kafka.clients.consumer.internals.ConsumerCoordinator:310)",
    );
    assert!(e.client);
    assert!(e.worker.is_none());
    assert_eq!(
        e.message,
        "Revoke previously assigned partitions http-messages-0"
    );
}

#[test]
fn decorations_before_the_record() {
    for prefix in ["# ", "\t\t", "  ", "#\t"] {
        let l = format!(
            "{prefix}[2018-11-02 17:48:41,332] INFO Starting connectors and tasks using config offset -1 (org.apache.kafka.connect.runtime.distributed.DistributedHerder)"
        );
        let e = env(&l);
        assert_eq!(e.stream, None, "{prefix:?}");
        assert_eq!(
            e.message,
            "Starting connectors and tasks using config offset -1"
        );
    }
}

#[test]
fn crlf_is_tolerated() {
    let e = env(
        "[2020-08-22 15:15:21,352] WARN [Worker clientId=connect-1, groupId=g] Catching up to assignment's config offset. (org.apache.kafka.connect.runtime.distributed.DistributedHerder)\r",
    );
    assert_eq!(e.message, "Catching up to assignment's config offset.");
    assert_eq!(e.logger, Some(DH));
    assert_eq!(e.level, Level::Warn);
}

#[test]
fn compose_prefix_names_the_stream() {
    let e = env(
        "kafka-connect-2  | [2024-08-11 19:33:56,043] INFO [Worker clientId=connect-1, groupId=exam-cluster] Starting task cdc-exam-0 (org.apache.kafka.connect.runtime.distributed.DistributedHerder)",
    );
    assert_eq!(e.stream, Some("kafka-connect-2"));
    assert_eq!(e.message, "Starting task cdc-exam-0");
    let e = env(
        "connect-1 | [2024-08-11 19:33:56,043] INFO Kafka Connect stopped (org.apache.kafka.connect.runtime.Connect)",
    );
    assert_eq!(e.stream, Some("connect-1"));
}

#[test]
fn kubectl_prefix_and_timestamps() {
    let e = env(
        "[pod/connect-0/connect] [2024-05-01 10:00:00,123] INFO Kafka Connect starting (org.apache.kafka.connect.runtime.Connect:50)",
    );
    assert_eq!(e.stream, Some("pod/connect-0/connect"));
    assert_eq!(e.message, "Kafka Connect starting");

    let e = env(
        "2024-05-01T10:00:00.123456789Z [2024-05-01 10:00:00,123] INFO Kafka Connect starting (org.apache.kafka.connect.runtime.Connect:50)",
    );
    assert_eq!(e.stream, None);
    assert_eq!(e.ts.unwrap().to_string(), "2024-05-01 10:00:00,123");

    let e = env(
        "[pod/connect-1/connect] 2024-05-01T10:00:00.123456789Z [2024-05-01 10:00:00,123] INFO Herder starting (org.apache.kafka.connect.runtime.distributed.DistributedHerder:370)",
    );
    assert_eq!(
        e.stream,
        Some("pod/connect-1/connect"),
        "a stamp after the pod prefix does not hide the stream name"
    );
}

#[test]
fn debezium_layout() {
    let e = env(
        "2022-01-21 07:21:15,022 INFO   ||  Joined group and got assignment: Assignment{error=0, leader='connect-1-4d60', leaderUrl='http://172.17.0.7:9092/', offset=-1, connectorIds=[], taskIds=[]}   [org.apache.kafka.connect.runtime.distributed.DistributedHerder]",
    );
    assert_eq!(e.logger, Some(DH));
    assert!(
        e.message
            .starts_with("Joined group and got assignment: Assignment{")
    );
    assert!(e.message.ends_with("taskIds=[]}"));

    let e = env(
        "2026-03-02 16:43:11 2026-03-02 11:13:11,311 INFO   ||  [Worker clientId=connect-1, groupId=debezium-connect] Rebalance started   [org.apache.kafka.connect.runtime.distributed.WorkerCoordinator]",
    );
    assert_eq!(e.ts.unwrap().to_string(), "2026-03-02 11:13:11,311");
    assert_eq!(e.worker.unwrap().group_id, "debezium-connect");
    assert_eq!(e.message, "Rebalance started");
    assert_eq!(
        e.logger,
        Some("org.apache.kafka.connect.runtime.distributed.WorkerCoordinator")
    );

    let e = env(
        "2024-05-01 10:00:00,123 INFO   mysql|dbserver1|task  Starting task inventory-connector-0   [org.apache.kafka.connect.runtime.distributed.DistributedHerder]",
    );
    assert_eq!(e.message, "Starting task inventory-connector-0");
}

#[test]
fn strimzi_thread_suffix() {
    let e = env(
        "2024-05-01 10:00:00,123 INFO [Worker clientId=connect-1, groupId=connect-cluster] Starting task a-0 (org.apache.kafka.connect.runtime.distributed.DistributedHerder) [DistributedHerder-connect-1-1]",
    );
    assert_eq!(e.logger, Some(DH));
    assert_eq!(e.message, "Starting task a-0");
    let e = env(
        "2024-05-01 10:00:00,123 INFO Connector x config updated (org.apache.kafka.connect.runtime.distributed.DistributedHerder) [KafkaBasedLog Work Thread - connect-configs]",
    );
    assert_eq!(e.message, "Connector x config updated");
    assert_eq!(e.logger, Some(DH));
}

#[test]
fn message_parentheses_are_not_the_logger() {
    let e = env(
        "[2019-11-05 10:00:00,101] INFO [Worker clientId=connect-1, groupId=connect-cluster] Member connect-1-3a9d sending LeaveGroup request to coordinator kafka1:9092 (id: 2147483646 rack: null) (org.apache.kafka.clients.consumer.internals.AbstractCoordinator:979)",
    );
    assert_eq!(
        e.message,
        "Member connect-1-3a9d sending LeaveGroup request to coordinator kafka1:9092 (id: 2147483646 rack: null)"
    );
    // No logger at all: the parenthesised tail is part of the message.
    let e = env("[2019-11-05 10:00:00,101] INFO Something (id: 2147483646 rack: null)");
    assert_eq!(e.logger, None);
    // An exception's simple name ends the message of a logger-less layout.
    let e = env(
        "2024-05-21 09:00:06,322 INFO [Worker clientId=connect-1, groupId=g] Request joining group due to: rebalance failed due to 'The group member needs to have a valid member id before actually entering a consumer group.' (MemberIdRequiredException)",
    );
    assert_eq!(e.logger, None);
    assert!(
        e.message.ends_with("(MemberIdRequiredException)"),
        "{}",
        e.message
    );
    // A short logger name (`%c{1}`) still is one.
    let e = env("2024-05-21 09:00:06,322 INFO Stopping task s-0 (Worker)");
    assert_eq!(e.logger, Some("Worker"));
}

#[test]
fn multi_line_message_head_has_no_logger() {
    let e = env("[2021-07-17 15:59:46,130] INFO DistributedConfig values: ");
    assert_eq!(e.logger, None);
    assert_eq!(e.message, "DistributedConfig values:");
}

#[test]
fn continuation_lines_have_no_envelope() {
    for l in [
        "\tat org.apache.kafka.connect.runtime.Worker.startTask(Worker.java:427)",
        "# \tat org.apache.kafka.connect.runtime.distributed.DistributedHerder.halt(DistributedHerder.java:676)",
        "org.apache.kafka.connect.errors.ConnectException: Task already exists in this worker: src-2",
        "\tconnect.protocol = sessioned",
        " (org.apache.kafka.connect.runtime.distributed.DistributedConfig)",
        "Jul 17, 2021 3:59:48 PM org.glassfish.jersey.internal.inject.Providers checkProviderRuntime",
        "WARNING: A provider registered in SERVER runtime",
        "",
        "[main] INFO org.apache.kafka.clients.admin.AdminClientConfig - AdminClientConfig values: ",
        "2024-05-01 10:00:00 no millis here INFO x",
    ] {
        assert!(envelope(l).is_none(), "{l:?}");
    }
}

#[test]
fn levels() {
    for (w, l) in [
        ("TRACE", Level::Trace),
        ("DEBUG", Level::Debug),
        ("INFO", Level::Info),
        ("WARN", Level::Warn),
        ("ERROR", Level::Error),
        ("FATAL", Level::Fatal),
    ] {
        let line = format!("[2024-01-01 00:00:00,000] {w} x (a.B)");
        assert_eq!(env(&line).level, l);
    }
    assert!(envelope("[2024-01-01 00:00:00,000] NOTICE x (a.B)").is_none());
}

#[test]
fn split_stream_for_continuations() {
    assert_eq!(
        split_stream("connect-1  | \tat org.apache.Foo.bar(Foo.java:1)"),
        (Some("connect-1"), "\tat org.apache.Foo.bar(Foo.java:1)")
    );
    assert_eq!(split_stream("\tat x"), (None, "\tat x"));
}

#[test]
fn never_panics_on_odd_text() {
    for l in [
        "[",
        "[2",
        "[2024-01-01 00:00:00,000]",
        "[2024-01-01 00:00:00,000] INFO",
        "[2024-01-01 00:00:00,000] INFO ",
        "[2024-01-01 00:00:00,000] INFO [",
        "[2024-01-01 00:00:00,000] INFO [a|",
        "[2024-01-01 00:00:00,000] INFO [Worker clientId=",
        "[2024-01-01 00:00:00,000] INFO (",
        "[2024-01-01 00:00:00,000] INFO ()",
        "2024-01-01 00:00:00,000 INFO ||",
        "2024-01-01 00:00:00,000 INFO || [",
        "é[2024-01-01 00:00:00,000] INFO ü (ä)",
        "[9999-99-99 99:99:99,999] INFO x (a.B)",
    ] {
        let _ = envelope(l);
    }
    let e = env("[9999-99-99 99:99:99,999] INFO x (a.B)");
    assert_eq!(e.ts, None, "out-of-range fields give no timestamp");
}

#[test]
fn trailing_loggers() {
    for (l, want) in [
        ("[2024] INFO x (org.a.B:12)", Some("org.a.B")),
        ("[2024] INFO x (org.a.B)\r", Some("org.a.B")),
        ("[2024] INFO x (org.a.B) [pool-1-thread-2]", Some("org.a.B")),
        (
            "[2024] INFO x (org.a.B) [KafkaBasedLog Work Thread - c]",
            Some("org.a.B"),
        ),
        ("2024 INFO ||  x   [org.a.B]  ", Some("org.a.B")),
        ("\tat org.a.B.run(B.java:189)", Some("B.java")),
        ("[2024] INFO x (id: 1 rack: null)", None),
        ("[2024] INFO DistributedConfig values: ", None),
        ("{\"logger\":\"org.a.B\"}", None),
        ("", None),
        (")", None),
        ("(", None),
        ("[", None),
        ("x (a.B:) ", Some("a.B")),
        ("2024 INFO x due to 'y' (MemberIdRequiredException)", None),
        ("2024 INFO x (org.a.SomeError)", None),
    ] {
        assert_eq!(trailing_logger(l.as_bytes()), want, "{l:?}");
        assert_eq!(trailing_logger_text(l), want, "{l:?}");
    }
    // Non-ASCII text round a name: the decoded line's answer is the raw one.
    for l in [
        "2024 INFO é (org.a.B:1)",
        "2024 INFO x (org.é.B)",
        "2024 INFO x   [a.b.C] [thréad]",
        "2024 INFO x (a.B) [é]",
    ] {
        assert_eq!(
            trailing_logger_text(l),
            trailing_logger(l.as_bytes()),
            "{l:?}"
        );
    }
}

/// Test strings: each of `names` followed by each of `tails`.
fn names_and_tails() -> Vec<String> {
    let names = [
        "",
        "x",
        "a.B",
        "org.apache.kafka.connect.runtime.Worker",
        "org.apache.kafka.connect.runtime.WorkerSourceTask",
        "org.apache.kafka.connect.runtime.distributed.DistributedHerder",
        "org.apache.kafka.connect.runtime.distributed.DistributedHerder",
        "com.example.My$Inner_1",
    ];
    let tails = [
        "", ":12", ":?", ":", ":1x", ")", "Task", "$x", " x", "\tx", "é", "(x)", ":12 ", "a:1",
    ];
    let mut out = Vec::new();
    for n in names {
        for t in tails {
            out.push(format!("{n}{t}"));
        }
    }
    out.push("y".repeat(200));
    out
}

#[test]
fn name_runs_read_as_every_byte_would() {
    let plain = |b: &[u8]| {
        b.iter()
            .position(|&c| !super::LOGGER_BYTES[usize::from(c)])
            .unwrap_or(b.len())
    };
    // Twice: the second round meets every run kept by the first.
    for round in 0..2 {
        for s in names_and_tails() {
            let b = s.as_bytes();
            assert_eq!(super::name_run(b), plain(b), "{s:?} round {round}");
        }
    }
}

#[test]
fn logger_spans_read_as_the_plain_rule_would() {
    let plain = |b: &[u8]| {
        let name_end = b.iter().position(|&c| c == b':').unwrap_or(b.len());
        let (name, line_no) = b.split_at(name_end);
        let ok = !name.is_empty()
            && !name.iter().any(|&c| c == b' ' || c == b'\t')
            && (line_no.is_empty()
                || line_no[1..].iter().all(u8::is_ascii_digit)
                || line_no == b":?");
        ok.then_some((0, name_end))
    };
    for round in 0..2 {
        for s in names_and_tails() {
            let b = s.as_bytes();
            // Runs kept from reading the names.
            let _ = super::name_run(b);
            assert_eq!(super::logger_span(b), plain(b), "{s:?} round {round}");
        }
    }
}

/// The stream prefixes as nom combinators (what the hand-written ones
/// replaced).
/// A prefix read: the rest of the line and the stream's name.
type Prefix<'a> = Option<(&'a str, &'a str)>;

fn nom_prefixes(i: &str) -> (Prefix<'_>, Prefix<'_>) {
    use nom::bytes::complete::take_while1;
    use nom::character::complete::char;
    use nom::combinator::{opt, recognize};
    use nom::{IResult, Parser};
    let name = |c: char| c.is_ascii_alphanumeric() || matches!(c, '.' | '_' | '-');
    let compose = |i| -> IResult<&str, &str> {
        let (i, n) = take_while1(name)(i)?;
        let (i, _) = take_while1(|c| c == ' ')(i)?;
        let (i, _) = char('|')(i)?;
        let (i, _) = opt(char(' ')).parse(i)?;
        Ok((i, n))
    };
    let kubectl = |i| -> IResult<&str, &str> {
        let (i, _) = char('[')(i)?;
        let (i, n) = recognize((
            take_while1(name),
            char('/'),
            take_while1(|c: char| c != ']' && c != ' '),
        ))
        .parse(i)?;
        let (i, _) = char(']')(i)?;
        let (i, _) = opt(char(' ')).parse(i)?;
        Ok((i, n))
    };
    (compose(i).ok(), kubectl(i).ok())
}

/// Every string of up to `n` of `parts`, the empty one first.
fn words(parts: &[&str], n: usize) -> Vec<String> {
    let mut cases = vec![String::new()];
    let mut frontier = vec![String::new()];
    for _ in 0..n {
        let next: Vec<String> = frontier
            .iter()
            .flat_map(|p| parts.iter().map(move |c| format!("{p}{c}")))
            .collect();
        cases.extend(next.iter().cloned());
        frontier = next;
    }
    cases
}

#[test]
fn stream_prefixes_read_as_nom_reads_them() {
    let parts = ["[", "]", "/", " ", "|", "a", "-", "é", "\t"];
    let mut cases = words(&parts, 5);
    cases.push("[pod/connect-0/connect] [2024-05-02 10:28:17,775] INFO x".into());
    cases.push("kafka-connect-1  | [2024-05-02 10:28:17,775] INFO x".into());
    for c in &cases {
        let got = (
            super::prefix::compose_prefix(c).ok(),
            super::prefix::kubectl_prefix(c).ok(),
        );
        assert_eq!(got, nom_prefixes(c), "{c:?}");
    }
}

#[test]
fn worker_prefix_closed_at_reads_as_the_parser() {
    let parts = [
        "[Worker clientId=",
        ", groupId=",
        "a",
        ",",
        "]",
        " ",
        "[",
        "é",
    ];
    let cases = words(&parts, 5);
    for c in &cases {
        let Some(close) = c.find(']') else {
            continue;
        };
        let want = super::worker_ctx(c).ok();
        assert_eq!(super::worker_ctx_closed_at(c, close), want, "{c:?}");
    }
}

/// `find_record` as it was first written: every byte of the first 256
/// tried in turn. The `-`-anchored search must find the same place.
fn find_record_every_byte(line: &str) -> Option<(usize, &str)> {
    let limit = line.len().min(256);
    let bytes = line.as_bytes();
    (0..limit).find_map(|pos| {
        let b = bytes[pos];
        let candidate = (b == b'[' && bytes.get(pos + 1).is_some_and(u8::is_ascii_digit))
            || (b.is_ascii_digit() && (pos == 0 || !bytes[pos - 1].is_ascii_digit()));
        if candidate && line.is_char_boundary(pos) {
            record_head(&line[pos..]).ok().map(|(rest, _)| (pos, rest))
        } else {
            None
        }
    })
}

#[test]
fn find_record_tries_the_places_every_byte_would() {
    let ts = "2024-05-02 10:28:17,631";
    let mut lines = vec![
        String::new(),
        format!("[{ts}] INFO x (a.B:1)"),
        format!("{ts} INFO x"),
        format!("[[{ts}] INFO x"),
        format!("1{ts} INFO x"),
        format!("x-{ts} INFO x"),
        format!("-[{ts}] WARN"),
        format!("é-{ts} ERROR é"),
        format!("[2024-05-02 10:28:17] INFO no millis then [{ts}] INFO y"),
        format!("2024-2024-05-02 10:28:17,631 INFO"),
        "\tat org.apache.kafka.Foo.bar(Foo.java:12)".to_string(),
        "\tsasl.kerberos.min.time.before.relogin = 60000".to_string(),
        format!("kafka-connect-1  | [{ts}] INFO x"),
        format!("[pod/connect-0/connect] {ts} INFO x"),
    ];
    // Records starting at every place around the 256-byte limit.
    for pad in 245..262 {
        lines.push(format!("{}{ts} INFO x", "a".repeat(pad)));
        lines.push(format!("{}[{ts}] INFO x", "-".repeat(pad)));
        lines.push(format!("{}1{ts} INFO", "9 ".repeat(pad / 2)));
    }
    for l in &lines {
        let got = find_record(l).map(|(pos, rest, _)| (pos, rest));
        assert_eq!(got, find_record_every_byte(l), "{l:?}");
    }
}

/// The lines [`envelope_with`] is tried on: known loggers with and without
/// line numbers, odd line numbers, blanks and `\r` after the logger, a
/// thread after it, no blank before the `(`, a throwable, Debezium.
fn known_logger_lines() -> Vec<String> {
    let heads = [
        "[2019-08-20 11:00:00,001] INFO ",
        "2019-08-20 11:00:00,001 WARN  ",
        "kafka-connect-1  | [2019-08-20 11:00:00,001] INFO ",
        "[2019-08-20 11:00:00,001] INFO",
    ];
    let bodies = [
        "[Worker clientId=connect-1, groupId=g] Joined group",
        "[a|task-0] msg (x)",
        "||  Started   [org.apache.kafka.connect.runtime.Worker]",
        "",
        "m",
    ];
    let tails = [
        " (org.apache.kafka.connect.runtime.Worker:12)",
        " (org.apache.kafka.connect.runtime.Worker)",
        " (org.apache.kafka.connect.runtime.Worker:?)",
        " (org.apache.kafka.connect.runtime.Worker:)",
        " (org.apache.kafka.connect.runtime.Worker:1a)",
        "(org.apache.kafka.connect.runtime.Worker:12)",
        " (org.apache.kafka.connect.runtime.Worker:12)  \r",
        " (org.apache.kafka.connect.runtime.Worker:12) [task-thread-a-0]",
        " (org.apache.kafka.connect.runtime.Worker:12)\u{b}",
        " (x (org.apache.kafka.connect.runtime.Worker:12)",
        " (org.apache.kafka.connect.runtime.WorkerException)",
        "",
    ];
    let mut lines = Vec::new();
    for h in heads {
        for b in bodies {
            for t in tails {
                lines.push(format!("{h}{b}{t}"));
            }
        }
    }
    lines.push(" (org.apache.kafka.connect.runtime.Worker:12)".to_string());
    lines.push("(org.apache.kafka.connect.runtime.Worker)".to_string());
    lines
}

#[test]
fn a_known_trailing_logger_reads_as_the_envelope_finds_it() {
    for line in known_logger_lines() {
        let plain = envelope(&line);
        // The reject's own name, as the sink hands it on (only names with
        // `envelope_with`'s promises: the sink's known loggers).
        if let Some(name) = trailing_logger_text(&line).filter(|n| {
            n.bytes().all(|c| LOGGER_BYTES[usize::from(c)])
                && n.contains('.')
                && !logger::names_a_throwable(n)
        }) {
            assert_eq!(envelope_with(&line, Some(name)), plain, "{line:?}");
        }
        // A name that is not a slice of the line, or not at its end, is
        // ignored.
        let elsewhere = String::from("org.apache.kafka.connect.runtime.Worker");
        assert_eq!(envelope_with(&line, Some(&elsewhere)), plain, "{line:?}");
        if let Some(k) = line.find("org.apache") {
            let early = &line[k..k + "org.apache".len()];
            assert_eq!(envelope_with(&line, Some(early)), plain, "{line:?}");
        }
    }
}

#[test]
fn json_lines_are_told_as_the_prefix_and_quote_tell() {
    let plain = |l: &str| l.contains('"') && split_stream(l).1.trim_start().starts_with('{');
    let heads = [
        "",
        " ",
        "\t",
        "[2024-05-01 10:00:00,000] ",
        "2024-05-01 10:00:00,000 ",
        "kafka-connect-1  | ",
        "kafka-connect-1 |",
        "kafka-connect-1| ",
        "k  x| ",
        "[pod/connect-0/connect] ",
        " [pod/connect-0/connect] ",
        "[pod/connect-0/connect]",
        "[/x] ",
        "[pod] ",
        "[2024/x] ",
        "é ",
        "|",
    ];
    let bodies = [
        "{\"level\":\"INFO\"}",
        "{}",
        " {\"a\":1}",
        "INFO \"x\" {",
        "x",
        "",
        "[Worker clientId=a, groupId=b] {\"x\"",
    ];
    for h in heads {
        for b in bodies {
            let l = format!("{h}{b}");
            assert_eq!(is_json(&l), plain(&l), "{l:?}");
        }
    }
}

#[test]
fn paren_name_ends() {
    for (l, want) in [
        ("x (a.B:12)", Some(6)),
        ("x (a.B:12)  \r", Some(6)),
        ("x (a.B)", Some(6)),
        ("x (a.B:?)", Some(6)),
        ("x (a.B:)", Some(6)),
        ("x (a.B2)", Some(7)),
        ("x (a.B?)", Some(7)),
        ("x (a.B) [t]", None),
        (")", Some(0)),
        ("", None),
        ("  ", None),
    ] {
        assert_eq!(paren_name_end(l.as_bytes()), want, "{l:?}");
    }
}

#[test]
fn record_ts_is_the_envelopes_stamp() {
    // Every line of the bundled corpus, and lines that open records in
    // other places or not at all.
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("corpus");
    let mut lines: Vec<String> = Vec::new();
    for e in std::fs::read_dir(dir).unwrap() {
        let p = e.unwrap().path();
        if p.extension().is_some_and(|x| x == "log") {
            let text = String::from_utf8_lossy(&std::fs::read(p).unwrap()).into_owned();
            lines.extend(text.lines().map(str::to_string));
        }
    }
    lines.extend(
        [
            "",
            "\r",
            "connect-1  | 2024-05-01 10:00:00,123 INFO x (a.B:1)\r",
            "[pod/c-0/connect] [2024-05-01 10:00:00,123] WARN y",
            "\tgroup.id = connect-cluster-2024-05-01",
            "[2024-05-01 10:00:00,123] INFOX z",
            "2024-05-01T10:00:00.123 ERROR",
        ]
        .map(str::to_string),
    );
    assert!(lines.len() > 1000);
    for l in &lines {
        assert_eq!(record_ts(l), envelope(l).map(|e| e.ts), "{l:?}");
    }
}
