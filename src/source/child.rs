//! The two things a tool process needs that std's `Command` and `Child` do not offer: a memory limit that holds
//! from the child's first instruction (set between fork and exec), and the child's exit with its resource usage
//! (`wait4`), whose peak resident memory the run's budget records.
//!
//! This is the crate's second use of `unsafe` (the first is src/cluster/name_service.rs): `pre_exec` is unsafe
//! because its closure runs in the forked child, where only async-signal-safe work is allowed, and `wait4` is a
//! libc call. Both are as small as they can be and say why they are sound.
#![allow(unsafe_code)]

use std::io;
use std::os::unix::process::{CommandExt, ExitStatusExt};
use std::process::{Child, Command, ExitStatus};

/// Limits the data segment (heap and private writable mappings: what a process allocates, `RLIMIT_DATA`) of the
/// process `command` starts, and of what it starts, to `bytes`. Past it an allocation fails: a Go tool such as helm
/// stops with "fatal error: runtime: out of memory". `RLIMIT_AS` would count address space Go only reserves
/// (helm reserves ~800 MiB before its first allocation), so the data segment is the limit that measures memory.
pub fn limit_memory(command: &mut Command, bytes: u64) {
    use rustix::process::{Resource, Rlimit, getrlimit, setrlimit};
    // Never above the limit this process has itself (a child may not raise its hard limit).
    let bytes = getrlimit(Resource::Data).maximum.map_or(bytes, |hard| hard.min(bytes));
    let limit = Rlimit { current: Some(bytes), maximum: Some(bytes) };
    // SAFETY: the closure runs in the child between fork and exec. It makes one system call (rustix calls the
    // kernel directly: no allocation, no lock, no libc state) and touches nothing else of the parent's memory but
    // its own copy of `limit`, so it is async-signal-safe as `pre_exec` requires.
    unsafe {
        command.pre_exec(move || setrlimit(Resource::Data, limit).map_err(io::Error::from));
    }
}

/// How a child ended, and the most memory it held.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Exited {
    pub status: ExitStatus,
    /// Its peak resident memory (`ru_maxrss`), bytes: the tool's own, or this process's resident size when it
    /// forked the child, if that was larger (the kernel counts the child from the fork, before its exec).
    pub peak_rss: u64,
}

/// The child's exit if it has ended (reaping it), without waiting. Once it returned `Some`, the child is gone:
/// neither kill it nor wait for it again.
pub fn try_wait(child: &Child) -> io::Result<Option<Exited>> {
    wait4(child, libc::WNOHANG)
}

/// Waits for the child's exit (reaping it); see [`try_wait`].
pub fn wait(child: &Child) -> io::Result<Exited> {
    match wait4(child, 0)? {
        Some(exited) => Ok(exited),
        None => Err(io::Error::other("wait4 returned without the child's exit")),
    }
}

fn wait4(child: &Child, options: libc::c_int) -> io::Result<Option<Exited>> {
    let pid = libc::pid_t::try_from(child.id()).map_err(io::Error::other)?;
    let mut status: libc::c_int = 0;
    // SAFETY: `rusage` is a plain C struct of integers, for which all zero bytes are a valid value.
    let mut usage: libc::rusage = unsafe { std::mem::zeroed() };
    loop {
        // SAFETY: both pointers are to live locals, valid for writes of their types; `pid` is a child of this
        // process that nothing else reaps (the caller owns its `Child` and does not wait for it through std).
        let reaped = unsafe { libc::wait4(pid, &mut status, options, &mut usage) };
        match reaped {
            0 => return Ok(None),
            -1 => {
                let error = io::Error::last_os_error();
                if error.kind() == io::ErrorKind::Interrupted {
                    continue;
                }
                return Err(error);
            }
            _ => {
                // Linux counts ru_maxrss in KiB.
                let peak_rss = u64::try_from(usage.ru_maxrss).unwrap_or(0).saturating_mul(1024);
                return Ok(Some(Exited { status: ExitStatus::from_raw(status), peak_rss }));
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    // Reaped by `wait` (wait4), which clippy does not know of.
    #[allow(clippy::zombie_processes)]
    fn the_limit_holds_in_the_child_and_its_usage_is_read() {
        let mut command = Command::new("sh");
        command.args(["-c", "ulimit -d; exit 3"]).stdout(std::process::Stdio::piped());
        limit_memory(&mut command, 256 << 20);
        let mut child = command.spawn().unwrap();
        let mut printed = String::new();
        io::Read::read_to_string(child.stdout.as_mut().unwrap(), &mut printed).unwrap();
        let exited = wait(&child).unwrap();
        // `ulimit -d` prints KiB.
        assert_eq!(printed.trim(), (256 << 10).to_string());
        assert_eq!(exited.status.code(), Some(3));
        // The child's peak counts what it held between fork and exec too: this process's own pages then.
        assert!(exited.peak_rss > 0, "{}", exited.peak_rss);
    }
}
