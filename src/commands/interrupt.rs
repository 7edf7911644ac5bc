//! Ctrl-C (or a CI job's cancellation) while a command holds temporary files: the first SIGINT or SIGTERM is noted
//! instead of ending the process, so the command stops at its next step and removes what it made on the way out.
//! The tools it runs share its process group and end on a terminal's Ctrl-C themselves. A second signal ends the
//! process at once, as the default action does.
//!
//! The crate's third use of `unsafe` (after src/cluster/name_service.rs and src/source/child.rs): installing a
//! signal handler is a libc call. The handler only stores to an atomic and resets the disposition, both
//! async-signal-safe.
#![allow(unsafe_code)]

use std::sync::atomic::{AtomicBool, Ordering};

/// Whether a signal arrived. Process-wide by nature: a signal is sent to the process, not to a value.
static INTERRUPTED: AtomicBool = AtomicBool::new(false);

extern "C" fn note(signal: libc::c_int) {
    INTERRUPTED.store(true, Ordering::SeqCst);
    // SAFETY: `signal` is async-signal-safe (POSIX); the next such signal gets the default action.
    unsafe {
        libc::signal(signal, libc::SIG_DFL);
    }
}

/// Notes SIGINT and SIGTERM from now on (see the module's comment).
pub(crate) fn install() {
    for signal in [libc::SIGINT, libc::SIGTERM] {
        // SAFETY: `note` is an `extern "C" fn(c_int)` that only does async-signal-safe work.
        unsafe {
            libc::signal(signal, note as *const () as libc::sighandler_t);
        }
    }
}

/// An error when a signal arrived since [`install`]: the command stops here, its temporary files dropped.
pub(crate) fn check(stage: &str) -> anyhow::Result<()> {
    if INTERRUPTED.load(Ordering::SeqCst) {
        anyhow::bail!("interrupted {stage}: stopped, temporary files removed");
    }
    Ok(())
}
