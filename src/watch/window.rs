//! The page `/` serves: the HTML timeline (`--format html`) of a recent
//! window of the logs being followed. The logs on disk are read again, per
//! stream (a log with its rotated segments, in time order), and only the
//! lines of the last `window` of each stream's log time are kept and
//! audited: what ran before the window is unknown, as for any log that
//! starts mid-life. Nothing is kept between requests; one page is made at
//! a time. Standard input is not on disk: it is not in the page.

use crate::audit::{self, Options, plan};
use crate::input::{self, Input};
use std::io::{self, BufRead, BufReader};
use std::path::PathBuf;

/// The most bytes kept per stream for the page: a window past this keeps
/// its latest lines.
const MAX_STREAM_BYTES: usize = 64 << 20;

/// Parses `30m`, `1h`, `2d`, `900s` or a number of seconds.
pub fn parse_window(s: &str) -> Option<std::time::Duration> {
    let s = s.trim();
    let (num, unit) = match s.find(|c: char| !c.is_ascii_digit() && c != '.') {
        Some(i) => (&s[..i], &s[i..]),
        None => (s, "s"),
    };
    let n: f64 = num.parse().ok()?;
    let secs = match unit {
        "s" => n,
        "m" => n * 60.0,
        "h" => n * 3600.0,
        "d" => n * 86_400.0,
        _ => return None,
    };
    (secs.is_finite() && secs > 0.0 && secs <= 366.0 * 86_400.0)
        .then(|| std::time::Duration::from_secs_f64(secs))
}

/// The lines of one stream's last `window_ms` of log time.
fn recent(inputs: &[Input], segments: &[usize], window_ms: i64) -> io::Result<Vec<u8>> {
    let mut lines: std::collections::VecDeque<(Option<i64>, Vec<u8>)> = Default::default();
    let mut bytes = 0usize;
    let mut latest = i64::MIN;
    for &i in segments {
        let (reader, _) = input::open(&inputs[i])?;
        let mut r = BufReader::new(input::sources::decoded_head(reader));
        let mut line = Vec::new();
        loop {
            line.clear();
            if r.read_until(b'\n', &mut line)? == 0 {
                break;
            }
            if line.len() > input::scan::MAX_LINE {
                continue;
            }
            let ts = crate::input::sources::timestamp_of(String::from_utf8_lossy(&line).trim_end())
                .map(|t| t.0);
            if let Some(t) = ts {
                latest = latest.max(t);
            }
            bytes += line.len();
            lines.push_back((ts, std::mem::take(&mut line)));
            // Drop what is older than the window (and past the byte cap).
            let cutoff = latest.saturating_sub(window_ms);
            while let Some((t, l)) = lines.front() {
                let old = t.is_some_and(|t| t < cutoff);
                if !old && bytes <= MAX_STREAM_BYTES {
                    break;
                }
                bytes -= l.len();
                lines.pop_front();
            }
            // A continuation line before the first line kept goes too.
            while lines.front().is_some_and(|(t, _)| t.is_none()) {
                if let Some((_, l)) = lines.pop_front() {
                    bytes -= l.len();
                }
            }
        }
    }
    Ok(lines.into_iter().flat_map(|(_, l)| l).collect())
}

/// The HTML page of the last `window` of the logs under `paths`.
pub fn render(paths: &[PathBuf], window: std::time::Duration) -> io::Result<Vec<u8>> {
    let files: Vec<PathBuf> = paths
        .iter()
        .filter(|p| p.as_os_str() != "-")
        .cloned()
        .collect();
    let (inputs, _) = input::expand(&files);
    let window_ms = window.as_millis().min(i64::MAX as u128) as i64;
    let mut texts = Vec::new();
    for s in plan::streams(&inputs, false) {
        // A file gone since the walk, or unreadable: left out of the page.
        if let Ok(text) = recent(&inputs, &s.segments, window_ms)
            && !text.is_empty()
        {
            texts.push(Input::bytes(s.name, text));
        }
    }
    let opts = Options {
        jobs: Some(1),
        timeline: true,
        ..Options::default()
    };
    let report = audit::audit(&texts, &opts);
    let mut out = Vec::new();
    crate::report::html::write_html(&report, &mut out)?;
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn windows_parse() {
        assert_eq!(
            parse_window("1h"),
            Some(std::time::Duration::from_secs(3600))
        );
        assert_eq!(parse_window("90"), Some(std::time::Duration::from_secs(90)));
        assert_eq!(
            parse_window("30m"),
            Some(std::time::Duration::from_secs(1800))
        );
        assert_eq!(parse_window("0"), None);
        assert_eq!(parse_window("1y"), None);
        assert_eq!(parse_window("x"), None);
    }

    #[test]
    fn only_the_window_is_kept() {
        let d = std::env::temp_dir().join(format!("herder-watch-window-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&d);
        std::fs::create_dir_all(&d).unwrap();
        std::fs::write(
            d.join("w.log"),
            "[2024-01-01 10:00:00,000] INFO old (a.B)\n\
             [2024-01-01 11:30:00,000] INFO recent (a.B)\n\
             \tat continuation\n\
             [2024-01-01 12:00:00,000] INFO newest (a.B)\n",
        )
        .unwrap();
        let inputs = vec![Input::File(d.join("w.log"))];
        let text = recent(&inputs, &[0], 3600 * 1000).unwrap();
        let text = String::from_utf8(text).unwrap();
        assert!(!text.contains("old") && text.contains("recent") && text.contains("continuation"));
        let page = render(
            std::slice::from_ref(&d),
            std::time::Duration::from_secs(3600),
        )
        .unwrap();
        assert!(String::from_utf8(page).unwrap().contains("<html"));
        let _ = std::fs::remove_dir_all(&d);
    }
}
