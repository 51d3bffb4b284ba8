//! Micro-benchmarks of the per-line work: the prefilter scan over a buffer,
//! the raw-bytes logger test, the envelope, and the message parsers.

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use herder_audit::SourceId;
use herder_audit::testing::parse::Decoder;
use herder_audit::testing::parse::{Delivery, LineHandler, Step, scan};
use herder_audit::testing::parse::{LoggerKind, parse_message};
use herder_audit::testing::parse::{envelope, trailing_logger};
use std::hint::black_box;

const DH_LINE: &str = "[2024-05-01 10:00:00,101] INFO [Worker clientId=connect-1, groupId=connect-cluster] Joined group at generation 12 with protocol version 2 and got assignment: Assignment{error=0, leader='connect-1-3a9d', leaderUrl='http://w1:8083/', offset=57, connectorIds=[src], taskIds=[src-0, src-1, sink-3], revokedConnectorIds=[], revokedTaskIds=[], delay=0} with rebalance delay: 0 (org.apache.kafka.connect.runtime.distributed.DistributedHerder:1549)";
const W_LINE: &str = "[2024-05-01 10:00:00,123] INFO [my-conn|task-0] Stopping task my-conn-0 (org.apache.kafka.connect.runtime.Worker:873)";
const NOISE_RUNTIME: &str = "[2024-05-01 10:00:00,123] INFO [src|task-0|offsets] WorkerSourceTask{id=src-0} Committing offsets (org.apache.kafka.connect.runtime.WorkerSourceTask:486)";
const NOISE_PLUGIN: &str = "[2021-07-17 15:59:46,021] INFO Added plugin 'org.apache.kafka.connect.transforms.Cast$Key' (org.apache.kafka.connect.runtime.isolation.DelegatingClassLoader)";
const NOISE_CLIENT: &str = "[2024-05-01 10:00:00,123] INFO [sink|task-0] [Consumer clientId=connector-consumer-sink-0, groupId=connect-sink] Seeking to offset 1234 for partition topic-0 (org.apache.kafka.clients.consumer.KafkaConsumer:1619)";

struct Count(u64);
impl LineHandler for Count {
    fn line(&mut self, _: u64, line: &[u8], _: Delivery) -> Step {
        self.0 += line.len() as u64;
        Step::Next(0)
    }
    fn too_long(&mut self, _: u64, _: u64) {}
}

fn bench(c: &mut Criterion) {
    let mut buf = String::new();
    for i in 0..20_000 {
        buf.push_str(match i % 50 {
            0 => DH_LINE,
            1 => W_LINE,
            2 | 3 => NOISE_RUNTIME,
            _ => NOISE_CLIENT,
        });
        buf.push('\n');
    }
    let mut g = c.benchmark_group("scan");
    g.throughput(Throughput::Bytes(buf.len() as u64));
    g.bench_function("prefilter 20k lines", |b| {
        b.iter(|| {
            let mut s = Count(0);
            scan(buf.as_bytes(), &mut s);
            black_box(s.0)
        })
    });
    g.finish();

    let mut g = c.benchmark_group("sink");
    let rest = "[2024-05-02 14:02:15,999] INFO 10.0.4.215 - - [02/May/2024:14:02:15 +0000] \"GET / HTTP/1.1\" 200 79 \"-\" \"Prometheus/2.45.0\" 9 (org.apache.kafka.connect.runtime.rest.RestServer:62)";
    let mut sink = Decoder::new(SourceId(0), "bench".into(), false);
    g.bench_function("reject offset commit line", |b| {
        b.iter(|| sink.line(1, black_box(NOISE_RUNTIME.as_bytes()), Delivery::Candidate))
    });
    g.bench_function("reject REST access line", |b| {
        b.iter(|| sink.line(1, black_box(rest.as_bytes()), Delivery::Candidate))
    });
    g.bench_function("reject plugin line", |b| {
        b.iter(|| sink.line(1, black_box(NOISE_PLUGIN.as_bytes()), Delivery::Candidate))
    });
    g.bench_function("accept stopping task", |b| {
        b.iter(|| sink.line(1, black_box(W_LINE.as_bytes()), Delivery::Candidate))
    });
    g.finish();

    let mut g = c.benchmark_group("line");
    g.bench_function("trailing_logger noise", |b| {
        b.iter(|| trailing_logger(black_box(NOISE_PLUGIN.as_bytes())))
    });
    g.bench_function("envelope herder", |b| {
        b.iter(|| envelope(black_box(DH_LINE)))
    });
    g.bench_function("envelope worker+mdc", |b| {
        b.iter(|| envelope(black_box(W_LINE)))
    });
    let dh = envelope(DH_LINE).unwrap().message;
    let w = envelope(W_LINE).unwrap().message;
    let noise = envelope(NOISE_RUNTIME).unwrap().message;
    // The parser keeps recent assignment lists (a worker repeats its
    // lists): the same line again is a memo hit, 256 lines whose lists all
    // differ are parsed afresh each time.
    g.bench_function("parse assignment (lists seen before)", |b| {
        b.iter(|| parse_message(LoggerKind::Herder, black_box(dh)))
    });
    let fresh: Vec<String> = (0..256)
        .map(|i| dh.replace("sink-3", &format!("sink-{i}")))
        .collect();
    let mut k = 0;
    g.bench_function("parse assignment (new lists)", |b| {
        b.iter(|| {
            k = (k + 1) % fresh.len();
            parse_message(LoggerKind::Herder, black_box(&fresh[k]))
        })
    });
    g.bench_function("parse stopping task", |b| {
        b.iter(|| parse_message(LoggerKind::Worker, black_box(w)))
    });
    g.bench_function("reject offset commit", |b| {
        b.iter(|| parse_message(LoggerKind::WorkerTask, black_box(noise)))
    });
    g.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
