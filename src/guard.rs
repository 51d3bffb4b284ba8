//! Containment of internal errors: a bug met while reading one input must
//! not lose the rest of the run. [`guarded`] runs a piece of work and turns a
//! panic into an error message; [`install_hook`] makes panics print one line
//! (no backtrace) when nothing contains them.

use std::cell::{Cell, RefCell};
use std::panic::{self, AssertUnwindSafe};

thread_local! {
    static GUARDED: Cell<bool> = const { Cell::new(false) };
    static LAST: RefCell<Option<String>> = const { RefCell::new(None) };
}

fn message(info: &panic::PanicHookInfo<'_>) -> String {
    let payload = info
        .payload()
        .downcast_ref::<&str>()
        .map(|s| s.to_string())
        .or_else(|| info.payload().downcast_ref::<String>().cloned())
        .unwrap_or_else(|| "unknown cause".to_string());
    match info.location() {
        Some(l) => format!("{payload} ({}:{})", l.file(), l.line()),
        None => payload,
    }
}

/// Replaces the panic hook: inside [`guarded`] the message is kept for the
/// caller; elsewhere it is printed as one line.
pub fn install_hook() {
    panic::set_hook(Box::new(|info| {
        let msg = message(info);
        if GUARDED.with(Cell::get) {
            LAST.with(|l| *l.borrow_mut() = Some(msg));
        } else {
            eprintln!("herder-audit: internal error: {msg} (please report this)");
        }
    }));
}

/// Runs `f`; a panic becomes `Err(message)`.
pub fn guarded<T>(f: impl FnOnce() -> T) -> Result<T, String> {
    let was = GUARDED.with(|g| g.replace(true));
    let r = panic::catch_unwind(AssertUnwindSafe(f));
    GUARDED.with(|g| g.set(was));
    r.map_err(|_| {
        LAST.with(|l| l.borrow_mut().take())
            .unwrap_or_else(|| "internal error".to_string())
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn contains_panics() {
        assert_eq!(guarded(|| 7), Ok(7));
        let e = guarded(|| -> u8 { panic!("boom") });
        assert!(e.is_err());
    }
}
