//! Expectation files: one expected finding per line, `#` comments, parsed
//! with small nom parsers and written back unchanged where nothing changed.
//!
//! ```text
//! # header: what the trace shows (kept by --bless)
//! # why the next finding is expected (belongs to it)
//! 60 unnecessary-stop task:clicks-sink-0
//! 62 unnecessary-stop task:clicks-sink-1 generation=7   # a trailing note
//! connect.log:11 zombie connector:"s3 archive" worker=connect.log
//! ```
//!
//! An entry is `<location> <kind> <resource>` and optional qualifiers:
//! * location: `<line>` (single-file traces: the trace's file) or
//!   `<file>:<line>` (a file of the trace, relative to the trace's
//!   directory);
//! * kind: a finding kind (`unnecessary-stop`, …);
//! * resource: `connector:<name>`, `task:<connector>-<n>` or `-` (none:
//!   `offset-mismatch-start`, an offset `conflicting-assignment`);
//! * `worker=<w>`: the worker label relative to the trace's directory
//!   (`docker-compose.log#connect-1`) or its REST URL;
//! * `generation=<n>`: the finding's generation.
//!
//! Names, files and worker values holding blanks, `"` or a leading `#` are
//! written as JSON strings (`connector:"s3 archive"`). A `#` after a blank
//! ends the entry: the rest of the line is its trailing comment.

use crate::finding::Kind;
use nom::branch::alt;
use nom::bytes::complete::{tag, take_while, take_while1};
use nom::character::complete::{char, digit1, space0, space1};
use nom::combinator::{all_consuming, map, map_res, opt, recognize, rest};
use nom::multi::many0;
use nom::sequence::{delimited, preceded};
use nom::{IResult, Parser};
use std::fmt;

/// One expected finding.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Entry {
    /// The file the trigger line is in, relative to the trace's directory
    /// (for `<line>` locations: the trace's own file).
    pub file: String,
    /// The location named the file (`<file>:<line>`).
    pub explicit_file: bool,
    pub line: u64,
    pub kind: Kind,
    /// `connector:<name>`, `task:<connector>-<n>` or `-`, unquoted.
    pub resource: String,
    pub worker: Option<String>,
    pub generation: Option<i32>,
    /// The trailing `# …` comment, without the `#`.
    pub comment: Option<String>,
    /// The line as written (without its line ending).
    pub raw: String,
    /// 1-based line number in the expectation file (0: not from a file).
    pub at: usize,
}

impl Entry {
    /// A new entry for a finding, rendered the way `--bless` writes it.
    pub fn new(
        file: &str,
        default_file: Option<&str>,
        line: u64,
        kind: Kind,
        resource: &str,
    ) -> Entry {
        let explicit_file = default_file != Some(file);
        let mut e = Entry {
            file: file.to_string(),
            explicit_file,
            line,
            kind,
            resource: resource.to_string(),
            worker: None,
            generation: None,
            comment: None,
            raw: String::new(),
            at: 0,
        };
        e.raw = e.render();
        e
    }

    /// The entry in the file's syntax (qualifiers and comment included).
    pub fn render(&self) -> String {
        let mut s = String::new();
        if self.explicit_file {
            s.push_str(&quote(&self.file));
            s.push(':');
        }
        s.push_str(&format!("{} {} ", self.line, self.kind));
        s.push_str(&render_resource(&self.resource));
        if let Some(w) = &self.worker {
            s.push_str(" worker=");
            s.push_str(&quote(w));
        }
        if let Some(g) = self.generation {
            s.push_str(&format!(" generation={g}"));
        }
        if let Some(c) = &self.comment {
            s.push_str("  #");
            s.push_str(c);
        }
        s
    }

    /// `file:line kind resource`, for messages.
    pub fn key(&self) -> String {
        format!(
            "{}:{} {} {}",
            self.file, self.line, self.kind, self.resource
        )
    }
}

impl fmt::Display for Entry {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.raw)
    }
}

/// A parsed expectation file, in the shape `--bless` rewrites: the header,
/// each entry with the comment and blank lines between it and the previous
/// entry, and the lines after the last entry (the trailer). The header is
/// the lines before the first entry up to the last blank line among them;
/// with no blank line there, all of them.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct ExpectFile {
    pub header: Vec<String>,
    pub items: Vec<Item>,
    pub trailer: Vec<String>,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Item {
    /// Comment and blank lines above the entry (after the previous one).
    pub before: Vec<String>,
    pub entry: Entry,
}

impl ExpectFile {
    pub fn entries(&self) -> impl Iterator<Item = &Entry> {
        self.items.iter().map(|i| &i.entry)
    }

    /// The file's text.
    pub fn render(&self) -> String {
        let mut out = String::new();
        let mut push = |l: &str| {
            out.push_str(l);
            out.push('\n');
        };
        self.header.iter().for_each(|l| push(l));
        for item in &self.items {
            item.before.iter().for_each(|l| push(l));
            push(&item.entry.raw);
        }
        self.trailer.iter().for_each(|l| push(l));
        out
    }
}

/// A syntax error, with the 1-based line of the expectation file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ParseError {
    pub line: usize,
    pub message: String,
}

impl fmt::Display for ParseError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "line {}: {}", self.line, self.message)
    }
}

/// Parses an expectation file. `default_file` is what a bare `<line>`
/// location refers to (`None` in directory traces, where every location
/// must name its file).
pub fn parse(text: &str, default_file: Option<&str>) -> Result<ExpectFile, ParseError> {
    let mut file = ExpectFile::default();
    let mut pending: Vec<String> = Vec::new();
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    for (i, raw) in text.lines().enumerate() {
        let raw = raw.strip_suffix('\r').unwrap_or(raw);
        let trimmed = raw.trim();
        if trimmed.is_empty() || trimmed.starts_with('#') {
            pending.push(raw.to_string());
            continue;
        }
        let entry = parse_entry(raw, default_file).map_err(|message| ParseError {
            line: i + 1,
            message,
        })?;
        let before = std::mem::take(&mut pending);
        let entry = Entry { at: i + 1, ..entry };
        if file.items.is_empty() {
            // Up to the last blank line: the header; comments right above
            // the first entry are its own.
            let split = before
                .iter()
                .rposition(|l| l.trim().is_empty())
                .map_or(before.len(), |k| k + 1);
            let mut header = before;
            let own = header.split_off(split);
            file.header = header;
            file.items.push(Item { before: own, entry });
        } else {
            file.items.push(Item { before, entry });
        }
    }
    if file.items.is_empty() {
        file.header = pending;
    } else {
        file.trailer = pending;
    }
    Ok(file)
}

/// The parts of an entry line, before resolving the location.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Parts {
    file: Option<String>,
    line: u64,
    kind: String,
    resource: String,
    qualifiers: Vec<Qualifier>,
    comment: Option<String>,
}

#[derive(Debug, Clone, PartialEq, Eq)]
enum Qualifier {
    Worker(String),
    Generation(i32),
}

/// Parses one entry line.
pub fn parse_entry(raw: &str, default_file: Option<&str>) -> Result<Entry, String> {
    let parts = match all_consuming(entry_parts).parse(raw.trim()) {
        Ok((_, p)) => p,
        Err(_) => return Err(diagnose(raw.trim())),
    };
    let kind = Kind::parse(&parts.kind).ok_or_else(|| {
        let all: Vec<&str> = Kind::ALL.iter().map(|k| k.as_str()).collect();
        format!(
            "unknown finding kind `{}` (one of: {})",
            parts.kind,
            all.join(", ")
        )
    })?;
    let (file, explicit_file) = match (parts.file, default_file) {
        (Some(f), _) => (f, true),
        (None, Some(d)) => (d.to_string(), false),
        (None, None) => {
            return Err(format!(
                "`{}`: a directory trace's locations are `<file>:<line>`",
                parts.line
            ));
        }
    };
    let mut worker = None;
    let mut generation = None;
    for q in parts.qualifiers {
        match q {
            Qualifier::Worker(w) if worker.is_none() => worker = Some(w),
            Qualifier::Generation(g) if generation.is_none() => generation = Some(g),
            Qualifier::Worker(_) => return Err("`worker=` given twice".to_string()),
            Qualifier::Generation(_) => return Err("`generation=` given twice".to_string()),
        }
    }
    Ok(Entry {
        file,
        explicit_file,
        line: parts.line,
        kind,
        resource: parts.resource,
        worker,
        generation,
        comment: parts.comment,
        raw: raw.to_string(),
        at: 0,
    })
}

/// Says which part of a malformed entry is wrong.
fn diagnose(line: &str) -> String {
    let mut words = line.split_whitespace();
    let loc = words.next().unwrap_or("");
    if location(loc).is_err() {
        return format!("expected `<line>` or `<file>:<line>`, found `{loc}`");
    }
    match words.next() {
        None => "expected `<location> <kind> <resource>`, found only a location".to_string(),
        Some(_) => match words.next() {
            None => "missing resource (`connector:<name>`, `task:<name>-<n>` or `-`)".to_string(),
            Some(r) => format!(
                "expected `<location> <kind> <resource> [worker=<w>] [generation=<n>] [# comment]`; \
                 check the resource `{r}` (`connector:<name>`, `task:<name>-<n>` or `-`; quote names \
                 with blanks: connector:\"my name\") and what follows it"
            ),
        },
    }
}

type Res<'a, T> = IResult<&'a str, T>;

/// A JSON string literal, unescaped.
fn quoted(i: &str) -> Res<'_, String> {
    map_res(
        recognize(delimited(
            char('"'),
            many0(alt((
                recognize(preceded(char('\\'), nom::character::complete::anychar)),
                take_while1(|c| c != '"' && c != '\\'),
            ))),
            char('"'),
        )),
        serde_json::from_str::<String>,
    )
    .parse(i)
}

/// A run of non-blank characters not starting with `"` or `#`.
fn bare(i: &str) -> Res<'_, &str> {
    recognize((
        nom::character::complete::satisfy(|c| !c.is_whitespace() && c != '"' && c != '#'),
        take_while(|c: char| !c.is_whitespace()),
    ))
    .parse(i)
}

/// A value: JSON string or bare word.
fn value(i: &str) -> Res<'_, String> {
    alt((quoted, map(bare, str::to_string))).parse(i)
}

/// `<line>`, `<file>:<line>` or `"<file>":<line>`.
fn location(i: &str) -> Res<'_, (Option<String>, u64)> {
    let line_no = |i| map_res(digit1, str::parse::<u64>).parse(i);
    let quoted_file = map((quoted, char(':'), line_no), |(f, _, n)| (Some(f), n));
    let bare_loc = map_res(bare, |w: &str| match w.rsplit_once(':') {
        Some((f, n)) if !f.is_empty() && !n.is_empty() && n.bytes().all(|b| b.is_ascii_digit()) => {
            n.parse().map(|n| (Some(f.to_string()), n)).map_err(|_| ())
        }
        None if w.bytes().all(|b| b.is_ascii_digit()) => {
            w.parse().map(|n| (None, n)).map_err(|_| ())
        }
        _ => Err(()),
    });
    alt((quoted_file, bare_loc)).parse(i)
}

/// `unnecessary-stop`, … (checked against the kinds afterwards).
fn kind(i: &str) -> Res<'_, &str> {
    take_while1(|c: char| c.is_ascii_lowercase() || c == '-').parse(i)
}

/// `-`, `connector:<name>`, `task:<name>-<n>`.
fn resource(i: &str) -> Res<'_, String> {
    alt((
        map((tag("connector:"), value), |(t, n)| format!("{t}{n}")),
        map((tag("task:"), value), |(t, n)| format!("{t}{n}")),
        map(tag("-"), str::to_string),
    ))
    .parse(i)
}

fn qualifier(i: &str) -> Res<'_, Qualifier> {
    alt((
        map(preceded(tag("worker="), value), Qualifier::Worker),
        map(
            preceded(
                tag("generation="),
                map_res(recognize((opt(char('-')), digit1)), str::parse::<i32>),
            ),
            Qualifier::Generation,
        ),
    ))
    .parse(i)
}

/// `# …` to the end of the line (the text after `#`, trailing blanks cut).
fn trailing_comment(i: &str) -> Res<'_, String> {
    map(preceded(char('#'), rest), |c: &str| {
        c.trim_end().to_string()
    })
    .parse(i)
}

fn entry_parts(i: &str) -> Res<'_, Parts> {
    let (i, (file, line)) = location(i)?;
    let (i, kind) = preceded(space1, kind).parse(i)?;
    let (i, resource) = preceded(space1, resource).parse(i)?;
    let (i, qualifiers) = many0(preceded(space1, qualifier)).parse(i)?;
    let (i, comment) = opt(preceded(space1, trailing_comment)).parse(i)?;
    let (i, _) = space0(i)?;
    Ok((
        i,
        Parts {
            file,
            line,
            kind: kind.to_string(),
            resource,
            qualifiers,
            comment,
        },
    ))
}

/// A value as the file writes it: bare when that reads back the same.
pub fn quote(s: &str) -> String {
    let plain = !s.is_empty()
        && !s.starts_with(['"', '#'])
        && !s.chars().any(|c| c.is_whitespace() || c.is_control());
    if plain {
        s.to_string()
    } else {
        serde_json::to_string(s).unwrap_or_else(|_| format!("{s:?}"))
    }
}

/// `connector:<name>` / `task:<id>` / `-` with the name quoted if needed.
pub fn render_resource(spec: &str) -> String {
    for prefix in ["connector:", "task:"] {
        if let Some(name) = spec.strip_prefix(prefix) {
            return format!("{prefix}{}", quote(name));
        }
    }
    spec.to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn locations() {
        assert_eq!(location("60"), Ok(("", (None, 60))));
        assert_eq!(
            location("connect.log:11"),
            Ok(("", (Some("connect.log".into()), 11)))
        );
        assert_eq!(
            location("host:8083.log:7 x"),
            Ok((" x", (Some("host:8083.log".into()), 7)))
        );
        assert_eq!(
            location("\"my logs/a b.log\":3"),
            Ok(("", (Some("my logs/a b.log".into()), 3)))
        );
        assert!(location("x.log").is_err());
        assert!(location("x.log:").is_err());
        assert!(location(":12").is_err());
        assert!(location("12a").is_err());
    }

    #[test]
    fn resources() {
        assert_eq!(resource("-"), Ok(("", "-".to_string())));
        assert_eq!(
            resource("task:clicks-sink-0 rest"),
            Ok((" rest", "task:clicks-sink-0".to_string()))
        );
        assert_eq!(
            resource("connector:\"s3 archive\""),
            Ok(("", "connector:s3 archive".to_string()))
        );
        assert_eq!(
            resource("connector:\"a \\\"q\\\"\""),
            Ok(("", "connector:a \"q\"".to_string()))
        );
        assert!(resource("job:x").is_err());
        assert!(resource("connector:").is_err());
    }

    #[test]
    fn qualifiers_and_comments() {
        assert_eq!(
            qualifier("worker=a.log#connect-1"),
            Ok(("", Qualifier::Worker("a.log#connect-1".into())))
        );
        assert_eq!(
            qualifier("generation=-1"),
            Ok(("", Qualifier::Generation(-1)))
        );
        assert!(qualifier("gen=3").is_err());
        assert_eq!(
            trailing_comment("# why it is expected  "),
            Ok(("", " why it is expected".to_string()))
        );
    }

    #[test]
    fn entries() {
        let e = parse_entry("60 unnecessary-stop task:clicks-sink-0", Some("t.log")).unwrap();
        assert_eq!(
            (e.file.as_str(), e.line, e.kind, e.resource.as_str()),
            ("t.log", 60, Kind::UnnecessaryStop, "task:clicks-sink-0")
        );
        assert!(!e.explicit_file);
        let e = parse_entry(
            "w2/connect.log:11 zombie connector:\"s3 archive\" generation=7 worker=w2/connect.log # moved   ",
            None,
        )
        .unwrap();
        assert_eq!(e.file, "w2/connect.log");
        assert_eq!(e.resource, "connector:s3 archive");
        assert_eq!(e.generation, Some(7));
        assert_eq!(e.worker.as_deref(), Some("w2/connect.log"));
        assert_eq!(e.comment.as_deref(), Some(" moved"));
        // A `#` inside a bare word is part of it.
        let e = parse_entry("d.log:153 zombie task:t-0 worker=d.log#connect-2", None).unwrap();
        assert_eq!(e.worker.as_deref(), Some("d.log#connect-2"));
        assert_eq!(e.comment, None);
    }

    #[test]
    fn entry_errors_say_what_is_wrong() {
        let err = |l: &str, d: Option<&str>| parse_entry(l, d).unwrap_err();
        assert!(err("sixty zombie -", Some("t")).contains("`<line>` or `<file>:<line>`"));
        assert!(err("60 zombi -", Some("t")).contains("unknown finding kind `zombi`"));
        assert!(err("60 zombie", Some("t")).contains("missing resource"));
        assert!(err("60 zombie job:x", Some("t")).contains("`job:x`"));
        assert!(err("60 zombie -", None).contains("`<file>:<line>`"));
        assert!(err("60 zombie - generation=1 generation=2", Some("t")).contains("twice"));
        assert!(err("60 zombie - flavour=x", Some("t")).contains("what follows"));
    }

    #[test]
    fn render_reads_back() {
        for raw in [
            "60 unnecessary-stop task:clicks-sink-0",
            "a.log:3 zombie connector:\"s3 archive\" worker=\"a b.log\" generation=4  # why",
            "\"odd dir/x.log\":9 offset-mismatch-start -",
        ] {
            let e = parse_entry(raw, Some("t.log")).unwrap();
            assert_eq!(e.render(), raw);
        }
        let e = Entry::new("x.log", Some("x.log"), 5, Kind::Zombie, "task:#odd-0");
        assert_eq!(e.raw, "5 zombie task:\"#odd-0\"");
        assert_eq!(
            parse_entry(&e.raw, Some("x.log")).unwrap().resource,
            "task:#odd-0"
        );
    }

    #[test]
    fn files_keep_header_blocks_and_trailer() {
        let text = "# header\n\n# why one\n1 zombie -\n# why two\n2 zombie -\r\n\n# trailer\n";
        let f = parse(text, Some("t.log")).unwrap();
        assert_eq!(f.header, vec!["# header", ""]);
        assert_eq!(f.items[0].before, vec!["# why one"]);
        assert_eq!(f.items.len(), 2);
        assert_eq!(f.items[0].entry.at, 4);
        assert_eq!(f.items[1].before, vec!["# why two"]);
        assert_eq!(f.trailer, vec!["", "# trailer"]);
        assert_eq!(f.render(), text.replace("\r\n", "\n"));
        let no_blank = parse("# a\n# b\n1 zombie -\n", Some("t")).unwrap();
        assert_eq!(
            (no_blank.header.len(), no_blank.items[0].before.len()),
            (2, 0)
        );
        let only_comments = parse("# clean\n", None).unwrap();
        assert_eq!(only_comments.header, vec!["# clean"]);
        assert_eq!(only_comments.render(), "# clean\n");
        let bom = parse("\u{feff}1 zombie -\n", Some("t")).unwrap();
        assert_eq!(bom.items.len(), 1);
        let err = parse("# x\n1 zombie -\nbad\n", Some("t")).unwrap_err();
        assert_eq!(err.line, 3);
    }
}
