//! herder-audit: replays Kafka Connect distributed-worker logs and proves
//! whether every connector/task start and stop was justified.
//!
//! The library is what the `herder-audit` command runs, behind a small
//! surface:
//!
//! * **inputs:** [`Input`] (a file, standard input, bytes in memory) and
//!   [`expand`] (paths and directories to inputs, in the canonical order);
//! * **the audit:** [`audit`] (findings kept in the [`Report`]) or
//!   [`audit_to`] (each finding handed to a [`Sink`] the moment it becomes
//!   final, as a live audit needs), with [`Options`];
//! * **findings:** [`Finding`], its [`Kind`] and [`Severity`], the lines
//!   that prove it ([`Evidence`], [`SourceLine`]) and its identity across
//!   runs ([`Fingerprint`]);
//! * **the report's printers:** [`print::text`] and [`print::json`];
//! * **the two stages apart** (`herder-audit map | herder-audit reduce`):
//!   [`map_to`] writes a stream's [`Item`]s (its facts, keyed by log time:
//!   [`Key`]), [`reduce_to`] merges any number of map outputs into the
//!   report of the one-machine run;
//! * **the internal topics** as a second witness: [`internal_topics`]
//!   (dumps and live topics, read into [`internal_topics::RawRecord`]s).
//!
//! Everything else is the crate's own. `docs/design.md` describes the
//! pipeline behind these names.
//!
//! # Example
//!
//! ```
//! use herder_audit::{Input, Kind, Options, audit};
//!
//! // One worker of a cooperative group: it joins at generation 5 with
//! // `sink-a` assigned, starts it, then starts `sink-b`, which no
//! // assignment gave it.
//! let log = "\
//! [2024-05-01 10:00:00,000] INFO [Worker clientId=connect-1, groupId=connect-cluster] Joined group at generation 5 with protocol version 2 and got assignment: Assignment{error=0, leader='connect-1-a', leaderUrl='http://w1:8083/', offset=7, connectorIds=[sink-a], taskIds=[], revokedConnectorIds=[], revokedTaskIds=[], delay=0} with rebalance delay: 0 (org.apache.kafka.connect.runtime.distributed.DistributedHerder:2580)
//! [2024-05-01 10:00:00,010] INFO [Worker clientId=connect-1, groupId=connect-cluster] Starting connectors and tasks using config offset 7 (org.apache.kafka.connect.runtime.distributed.DistributedHerder:1828)
//! [2024-05-01 10:00:00,020] INFO [Worker clientId=connect-1, groupId=connect-cluster] Starting connector sink-a (org.apache.kafka.connect.runtime.distributed.DistributedHerder:1935)
//! [2024-05-01 10:00:00,030] INFO [Worker clientId=connect-1, groupId=connect-cluster] Starting connector sink-b (org.apache.kafka.connect.runtime.distributed.DistributedHerder:1935)
//! [2024-05-01 10:00:00,040] INFO [Worker clientId=connect-1, groupId=connect-cluster] Finished starting connectors and tasks (org.apache.kafka.connect.runtime.distributed.DistributedHerder:1856)
//! ";
//! let report = audit(&[Input::bytes("connect.log", log)], &Options::default());
//!
//! let kinds: Vec<Kind> = report.findings().map(|f| f.kind).collect();
//! assert_eq!(kinds, [Kind::ForeignStart]);
//!
//! let mut text = Vec::new();
//! herder_audit::print::text::write_report(&report, &mut text).unwrap();
//! assert!(String::from_utf8(text).unwrap().contains("foreign-start"));
//! ```

mod audit;
mod baseline;
mod check;
mod cli;
mod cluster;
mod event;
mod exit;
mod explain;
mod finding;
mod guard;
mod harness;
mod input;
mod interruptions;
mod layout;
mod model;
mod replay;
mod report;
mod rules;
mod sim;
mod state;
mod stream;
mod time;
mod topics;
mod watch;

pub use audit::mapred::{reduce_partial, reduce_to};
pub use audit::{
    Collect, Item, Live, Names, Options, Report, Sink, Witness, audit, audit_to, map_to,
};
pub use finding::{Evidence, Finding, Fingerprint, Kind, Severity, WorkerIdentity, fingerprint};
pub use input::{Input, expand};
pub use model::{Key, SourceId, SourceLine, Timestamp};
pub use replay::{Identity, WorkerReport, WorkerSummary};
pub use stream::{InputError, InputReport};

/// The command line (`herder-audit …`): reads `std::env::args`, runs the
/// command, and returns its exit status (`docs/guide.md`). The binary is
/// this call.
pub fn run_command_line() -> i32 {
    cli::run()
}

/// The report's printers: each reads a [`Report`] and nothing else.
pub mod print {
    /// rustc-style text: each finding with its evidence lines quoted, the
    /// summary, the replay view.
    pub mod text {
        pub use crate::report::text::{write_finding, write_replay, write_report, write_summary};
    }
    /// One JSON document, JSON lines (one finding per line, then the
    /// summary), the replay view as JSON.
    pub mod json {
        pub use crate::report::json::{
            SCHEMA_VERSION, document, write_json, write_jsonl, write_jsonl_finding,
            write_replay_json,
        };
    }
}

/// Connect's internal topics (config, status, offsets) as a second witness
/// (`docs/topics.md`): a dump file, or the topics read live from a broker.
pub mod internal_topics {
    pub use crate::topics::RawRecord;
    /// A dump of the topics (`kcat`, `kafka-console-consumer`, JSON lines).
    pub mod dump {
        pub use crate::topics::dump::{Dump, read, read_input};
    }
    /// The topics read from a broker.
    pub mod live {
        pub use crate::topics::live::{Connection, LiveReader, Mechanism, Security};
    }
}

/// The seam for the crate's own integration tests, benches and fuzz
/// targets, which reach parts no user of the library needs: the stage-1
/// parsers (benches, the layout and simulator tests), the fuzz harness,
/// the simulator, `check`'s trace discovery and expectations, and a few
/// helpers the tests compare against. Not part of the library's surface:
/// it may change with any commit.
#[doc(hidden)]
pub mod testing {
    /// The fuzz targets' entry points (`fuzz/`, `tests/fuzz_regressions.rs`).
    pub mod harness {
        pub use crate::harness::{event_lines, line, message, pipeline, sources};
    }

    /// The simulator (`herder-audit simulate`).
    pub mod sim {
        pub use crate::sim::{
            ALL_FAULTS, Archive, ArchiveTruth, Expected, FaultKind, Layout, Params, Proto, Scope,
            Truth, Version, simulate, write_archive,
        };
        pub mod version {
            pub use crate::sim::version::ALL;
        }
    }

    /// `herder-audit check`: traces, expectations, outcomes.
    pub mod check {
        pub use crate::check::{CheckOptions, Outcome, Status, check_paths, exit_status};
        pub mod discover {
            pub use crate::check::discover::{TraceKind, discover};
        }
        pub mod expect {
            pub use crate::check::expect::parse;
        }
        pub mod text {
            pub use crate::check::text::write;
        }
    }

    /// Stage 1's parts, for the benches and the layout tests.
    pub mod parse {
        pub use crate::event::{Event, LoggerKind, parse_message};
        pub use crate::input::rotation::rotation_base;
        pub use crate::input::scan::{Delivery, LineHandler, Step, scan};
        pub use crate::input::sources::terminal::detect as detect_terminal;
        pub use crate::input::sources::timestamp_of;
        pub use crate::layout::{Envelope, Level, envelope, starts_record, trailing_logger};
        pub use crate::stream::Decoder;
    }

    pub use crate::baseline::load::parse_report;
    pub use crate::interruptions::compare::{Comparison, compare, quantile};
    pub use crate::watch::metrics::Metrics;
}

/// The in-memory log of the tests, shared with the integration tests'
/// support module.
#[cfg(test)]
#[path = "../tests/support/shared_buf.rs"]
mod shared_buf;
