// The binary allocates with mimalloc, not the C library's allocator. With
// `-j 2` one thread frees what the other allocated (a round's facts, made
// by the threads reading the streams, are dropped by the cross-worker
// stage): glibc then locks the other thread's arena for each such free and,
// when that thread is allocating too, one of them sleeps on a futex and is
// woken (hundreds of times a run on 16 workers: the idle time that kept
// `-j 2` under 1.85 times `-j 1`). mimalloc hands such a block back to its
// page without a lock, and takes fewer instructions per allocation besides
// (docs/performance.md, "Round 10: the allocator"). The library leaves the
// choice to whoever links it.
#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

/// `mi_option_purge_delay` in mimalloc.h's `mi_option_t` (the enum keeps
/// its retired names so that the numbers stay put; the Rust bindings do
/// not name this one).
const MI_OPTION_PURGE_DELAY: std::ffi::c_int = 15;

/// Freed pages go back to the system after 10 ms, not mimalloc's second:
/// the audit is bounded in memory (64 MiB for one group of 200 workers),
/// and with a second's delay that group peaks 6–8 MiB higher at `-j 2`.
/// Its instructions are the same either way.
const PURGE_DELAY_MS: std::ffi::c_long = 10;

fn main() {
    // SAFETY: sets one of mimalloc's options, read at each purge; no
    // memory is touched.
    unsafe { libmimalloc_sys::mi_option_set(MI_OPTION_PURGE_DELAY, PURGE_DELAY_MS) };
    std::process::exit(herder_audit::run_command_line());
}
