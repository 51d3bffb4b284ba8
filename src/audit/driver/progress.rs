//! The run's progress on a terminal.

use super::Slot;
use crate::input::Input;
use std::time::{Duration, Instant};

/// A progress bar (finite input) or a status line (live input) on stderr,
/// on a terminal only.
pub(super) struct Progress {
    bar: Option<indicatif::ProgressBar>,
    started: Instant,
    live: bool,
}

impl Progress {
    pub(super) fn new(enabled: bool, inputs: &[Input], live: bool) -> Progress {
        use std::io::IsTerminal;
        let bar = (enabled && std::io::stderr().is_terminal()).then(|| {
            let total: u64 = inputs
                .iter()
                .filter_map(|i| match i {
                    Input::File(p) | Input::Named { path: p, .. } => {
                        std::fs::metadata(p).ok().map(|m| m.len())
                    }
                    Input::Stdin => None,
                    Input::Bytes { data, .. } => Some(data.len() as u64),
                })
                .sum();
            let (len, template) = if live {
                (None, "{spinner} {msg} [{elapsed_precise}]")
            } else {
                (
                    Some(total),
                    "{spinner} {bytes}/{total_bytes} ({bytes_per_sec}) {msg} [{elapsed_precise}, ETA {eta}]",
                )
            };
            let bar =
                indicatif::ProgressBar::with_draw_target(len, indicatif::ProgressDrawTarget::hidden());
            bar.set_style(
                indicatif::ProgressStyle::with_template(template)
                    .unwrap_or_else(|_| indicatif::ProgressStyle::default_bar()),
            );
            bar.set_message(format!("{} file(s)", inputs.len()));
            bar
        });
        Progress {
            bar,
            started: Instant::now(),
            live,
        }
    }

    pub(super) fn update(&self, slots: &[Slot], findings: u64) {
        let Some(bar) = &self.bar else { return };
        if bar.is_hidden() && (self.live || self.started.elapsed() > Duration::from_secs(1)) {
            bar.set_draw_target(indicatif::ProgressDrawTarget::stderr());
        }
        let total: u64 = slots.iter().map(|s| s.read_before).sum();
        bar.set_position(total);
        if self.live {
            let lines: u64 = slots.iter().map(|s| s.proc.lines_read()).sum();
            let generation = slots
                .iter()
                .filter_map(|s| s.proc.generation())
                .max()
                .map_or_else(|| "-".to_string(), |g| g.to_string());
            bar.set_message(format!(
                "{} stream(s), generation {generation}, {lines} lines, {findings} finding(s)",
                slots.len()
            ));
            bar.tick();
        } else {
            let done = slots.iter().filter(|s| s.end.is_some()).count();
            bar.set_message(format!("{done}/{} stream(s) done", slots.len()));
        }
    }

    pub(super) fn finish(&self) {
        if let Some(bar) = &self.bar {
            bar.finish_and_clear();
        }
    }
}
