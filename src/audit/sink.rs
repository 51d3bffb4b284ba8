//! Where findings go as they become final: a printer that writes each one
//! at once (text, JSON lines), or [`Collect`], which keeps them for printers
//! that need the whole run (one JSON document, HTML) and for library users.

use crate::finding::Finding;
use crate::model::{Key, SourceId};
use std::io;

/// Names of the run's sources, for quoting lines.
pub trait Names {
    fn source_name(&self, id: SourceId) -> &str;
}

/// The names of the inputs, by [`SourceId`].
#[derive(Debug, Clone, Default)]
pub struct SourceTable(pub Vec<String>);

impl Names for SourceTable {
    fn source_name(&self, id: SourceId) -> &str {
        self.0
            .get(id.0 as usize)
            .map_or("<unknown>", String::as_str)
    }
}

/// Receives the run's findings in the order they become final.
pub trait Sink: Send {
    /// One final finding. An error (a closed pipe) ends the run.
    fn finding(&mut self, names: &dyn Names, finding: Finding) -> io::Result<()>;

    /// The same with the finding's place in the run's order (see
    /// `cluster::Emitted::order`); only sinks that combine parts
    /// of a run need it.
    fn finding_at(
        &mut self,
        names: &dyn Names,
        finding: Finding,
        order: (Key, Key),
    ) -> io::Result<()> {
        let _ = order;
        self.finding(names, finding)
    }

    /// The end of a batch of findings (what the reducer hands on at
    /// once, and the end of the run): a printer that keeps its lines
    /// writes and flushes them here, so that a live audit shows them.
    fn batch_end(&mut self) -> io::Result<()> {
        Ok(())
    }

    /// The kept findings, if this sink keeps them; they end up in
    /// [`super::Report::findings`].
    fn take_kept(&mut self) -> Vec<Finding> {
        Vec::new()
    }
}

/// Keeps every finding.
#[derive(Debug, Default)]
pub struct Collect {
    pub findings: Vec<Finding>,
}

impl Sink for Collect {
    fn finding(&mut self, _: &dyn Names, finding: Finding) -> io::Result<()> {
        self.findings.push(finding);
        Ok(())
    }

    fn take_kept(&mut self) -> Vec<Finding> {
        std::mem::take(&mut self.findings)
    }
}
