//! The lock that serialises runs on one output directory: an advisory `flock` on the directory itself (no
//! lock file is left in the user's tree); the kernel releases it when the process ends, however it ends.

use std::fs::{File, TryLockError};
use std::path::Path;

use super::TreeError;

/// A held lock on an output directory; released when dropped.
#[derive(Debug)]
pub struct OutDirLock {
    _dir: File,
}

/// Takes the lock of `root` without waiting: exclusive for a run that writes, shared for `--check`. Another
/// run holding it is an error ([`TreeError::Busy`]): concurrent runs are refused, not queued.
pub fn lock(root: &Path, exclusive: bool) -> Result<OutDirLock, TreeError> {
    let dir = File::open(root).map_err(|source| TreeError::Io { action: "open", path: root.to_path_buf(), source })?;
    let taken = if exclusive { dir.try_lock() } else { dir.try_lock_shared() };
    match taken {
        Ok(()) => Ok(OutDirLock { _dir: dir }),
        Err(TryLockError::WouldBlock) => Err(TreeError::Busy(root.to_path_buf())),
        Err(TryLockError::Error(source)) => Err(TreeError::Io { action: "lock", path: root.to_path_buf(), source }),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn second_writer_is_refused_until_the_first_is_done() {
        let dir = tempfile::tempdir().unwrap();
        let first = lock(dir.path(), true).unwrap();
        assert!(matches!(lock(dir.path(), true), Err(TreeError::Busy(_))));
        assert!(matches!(lock(dir.path(), false), Err(TreeError::Busy(_))));
        drop(first);
        let _shared = lock(dir.path(), false).unwrap();
        let _another_reader = lock(dir.path(), false).unwrap();
        assert!(matches!(lock(dir.path(), true), Err(TreeError::Busy(_))));
    }
}
