//! A quoted log line as every JSON printer writes it: the findings' trigger
//! and evidence, the replay view's assignment lines, and the isolation
//! sections' edges, causes and changes.

use crate::audit::Names;
use crate::model::SourceLine;
use serde_json::{Value, json};

/// `{"source", "line", "timestamp", "text"}` of one line.
pub(crate) fn line_json(names: &dyn Names, l: &SourceLine) -> Value {
    json!({
        "source": names.source_name(l.source),
        "line": l.line,
        "timestamp": l.ts,
        "text": &*l.text,
    })
}
