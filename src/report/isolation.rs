//! The isolation sections (issue 26): interruptions, rebalances, changes
//! and each connector's downtime, as the text summary's isolation section
//! (short, or full with `--isolation full`); as JSON in
//! [`super::isolation_json`].

use crate::interruptions::{Change, Clock, Cost, Interruption, Isolation, Rebalance};
use crate::model::{Resource, SourceLine};
use std::io::{self, Write};

/// How much of the isolation section the text summary prints.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Detail {
    /// Per connector, and the changes that interrupted other connectors.
    #[default]
    Short,
    /// Everything: each interruption, rebalance and change.
    Full,
}

pub(crate) fn secs(ms: i64) -> String {
    format!("{:.1} s", ms as f64 / 1000.0)
}

fn when(l: &SourceLine) -> String {
    l.ts.map_or_else(|| format!("line {}", l.line), |t| t.to_string())
}

fn res(r: &Resource) -> String {
    match r {
        Resource::Connector(n) => format!("connector {n}"),
        Resource::Task(t) => format!("task {t}"),
    }
}

/// One change and its blast radius, as a sentence.
pub fn change_sentence(c: &Change) -> String {
    let mut s = format!(
        "connector {} {} at {} ({})",
        c.connector,
        c.kind.as_str(),
        when(&c.line),
        c.worker
    );
    if c.others.interruptions == 0 {
        s.push_str(" → no other connector interrupted");
    } else {
        s.push_str(&format!(
            " → {} task(s) of {} other connector(s) stopped, {} of task downtime",
            c.others.tasks,
            c.other_connectors.len(),
            secs(c.others.ms)
        ));
        if c.others.still_down > 0 {
            s.push_str(&format!(", {} still down", c.others.still_down));
        }
        if let Some(u) = &c.upstream {
            s.push_str(&format!(" ({u})"));
        }
    }
    s
}

/// A rebalance's effect, as a sentence.
pub fn rebalance_sentence(r: &Rebalance) -> String {
    let mut s = format!(
        "generation {}: {} of {} kept running",
        r.generation, r.retained, r.running_before
    );
    for (n, what) in [
        (r.moved, "moved"),
        (r.restarted, "restarted in place"),
        (r.started, "started"),
        (r.stopped, "stopped"),
    ] {
        if n > 0 {
            s.push_str(&format!(", {n} {what}"));
        }
    }
    if r.moved + r.restarted > 0 {
        s.push_str(&format!(" ({} of downtime)", secs(r.downtime_ms)));
    }
    let t = &r.trigger;
    s.push_str(&format!("; set off by {}", t.kind));
    if let Some(h) = &t.how {
        s.push_str(&format!(" ({h})"));
    }
    if let Some(w) = &t.worker {
        s.push_str(&format!(" {w}"));
    }
    if let Some(c) = &t.connector {
        s.push_str(&format!(" of {c}"));
    }
    if let Some(reason) = &t.reason {
        s.push_str(&format!(", reason: {reason}"));
    }
    s
}

fn interruption_sentence(i: &Interruption) -> String {
    let len = match (&i.to, i.ms) {
        (None, _) => "still down".to_string(),
        (Some(_), Some(ms)) => match i.clock {
            Clock::OneWorker => secs(ms),
            Clock::TwoWorkers { generation, .. } => {
                format!(
                    "{} (two workers' clocks, aligned at generation {generation})",
                    secs(ms)
                )
            }
            Clock::Unanchored => format!("{} (two workers' clocks, not aligned)", secs(ms)),
        },
        (Some(_), None) => "length unknown".to_string(),
    };
    let mut cause = i.cause.kind.as_str().to_string();
    if let Some(c) = &i.cause.connector
        && i.by_others()
    {
        cause.push_str(&format!(" {c}"));
    }
    if let Some(w) = &i.cause.worker {
        cause.push_str(&format!(" {w}"));
    }
    if let Some(v) = &i.cause.via {
        cause.push_str(&format!(", via {v}"));
    }
    if let Some(u) = &i.cause.upstream {
        cause.push_str(&format!(" ({u})"));
    }
    let moved = match &i.to {
        Some(t) if t.worker != i.from.worker => format!(" → {}", t.worker),
        _ => String::new(),
    };
    format!(
        "{} at {} on {}{moved}: {len}; {cause}",
        res(&i.resource),
        when(&i.from.line),
        i.from.worker
    )
}

/// The text summary's isolation section.
pub fn write_text(iso: &Isolation, detail: Detail, out: &mut dyn Write) -> io::Result<()> {
    if iso.interruptions.is_empty() && detail == Detail::Short {
        return Ok(());
    }
    let total: Cost = iso.connectors.iter().fold(Cost::default(), |mut a, d| {
        a.interruptions += d.total.interruptions;
        a.tasks += d.total.tasks;
        a.ms += d.total.ms;
        a.still_down += d.total.still_down;
        a
    });
    writeln!(out)?;
    writeln!(
        out,
        "isolation: {} interruption(s), {} of downtime, {} still down",
        total.interruptions,
        secs(total.ms),
        total.still_down
    )?;
    for d in &iso.connectors {
        let causes: Vec<String> = d
            .by_cause
            .iter()
            .map(|(k, c)| format!("{} {}×/{}", k.as_str(), c.interruptions, secs(c.ms)))
            .collect();
        writeln!(
            out,
            "  connector {}: {} interruption(s), {} total, longest {}; caused by others {}×/{}; by cause: {}",
            d.connector,
            d.total.interruptions,
            secs(d.total.ms),
            secs(d.longest_ms),
            d.by_others.interruptions,
            secs(d.by_others.ms),
            causes.join(", ")
        )?;
    }
    for c in iso
        .changes
        .iter()
        .filter(|c| detail == Detail::Full || c.others.interruptions > 0)
    {
        writeln!(out, "  change: {}", change_sentence(c))?;
    }
    if detail == Detail::Short {
        return Ok(());
    }
    for r in &iso.rebalances {
        writeln!(out, "  rebalance: {}", rebalance_sentence(r))?;
    }
    for i in &iso.interruptions {
        writeln!(out, "  interruption: {}", interruption_sentence(i))?;
    }
    Ok(())
}
