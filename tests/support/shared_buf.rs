//! A log written in memory and shared by its clones: one clone is handed
//! to a writer that takes a `Box<dyn Write>` (the simulator writes one log
//! per worker), the other reads what was written. The integration tests
//! and the crate's unit tests (`src/lib.rs` includes this file) share it.

use std::io::{self, Write};
use std::sync::{Arc, Mutex};

/// A log written in memory, shared by its clones.
#[derive(Clone, Default)]
pub struct SharedBuf(pub Arc<Mutex<Vec<u8>>>);

impl SharedBuf {
    /// What was written so far.
    pub fn contents(&self) -> Vec<u8> {
        self.0.lock().expect("not poisoned").clone()
    }
}

impl Write for SharedBuf {
    fn write(&mut self, b: &[u8]) -> io::Result<usize> {
        self.0
            .lock()
            .map_err(|_| io::Error::other("poisoned"))?
            .extend_from_slice(b);
        Ok(b.len())
    }
    fn flush(&mut self) -> io::Result<()> {
        Ok(())
    }
}
