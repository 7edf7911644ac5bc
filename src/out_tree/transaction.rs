//! Applying a plan as one transaction, and finishing one that was interrupted.
//!
//! A run writes its journal first, then stages: every new file is written to a temporary name beside its
//! target, and every file it will replace or remove gets a backup hard link beside it (which also proves,
//! before anything changes, that each directory is writable and each file is not immutable). Rewriting the
//! journal's state to `switching` is the commit point; the switch is renames and unlinks only; the backups
//! and the journal are removed last. A failure while staging removes what was staged (the tree never
//! changed); a failure while switching restores every file from its backup. A run killed at any point leaves
//! the journal, and the next run rolls a `staging` run back and completes a `switching` one before it does
//! anything else.
//!
//! A journal on disk is untrusted input: its paths are plain names (checked when it is read), every
//! directory it names must be free of symbolic links, and recovery overwrites or removes only files that a
//! marker of their directory lists (the one on disk or the one the run staged), in a directory owned whole the
//! root's files a run writes, or names the tool reserves.

use std::collections::{BTreeSet, HashMap};
use std::path::{Path, PathBuf};

use super::journal::{JOURNAL, Journal, Op, State};
use super::marker::{self, OWNER_MARKER};
use super::safe_path::{ChainProblem, DirChain, Kind, RESERVED_PREFIX, kind_of};
use super::{Ownership, TreeError};

fn io(action: &'static str, path: PathBuf) -> impl FnOnce(std::io::Error) -> TreeError {
    move |source| TreeError::Io { action, path, source }
}

fn exists(path: &Path) -> Result<bool, TreeError> {
    kind_of(path).map(|k| k != Kind::Absent).map_err(io("inspect", path.to_path_buf()))
}

fn remove_if_present(path: &Path) -> Result<(), TreeError> {
    // Asked first: on a read-only file system, removing a missing file fails with EROFS, not ENOENT.
    if !exists(path)? {
        return Ok(());
    }
    match std::fs::remove_file(path) {
        Err(e) if e.kind() != std::io::ErrorKind::NotFound => {
            Err(TreeError::Io { action: "remove", path: path.to_path_buf(), source: e })
        }
        _ => Ok(()),
    }
}

/// Where a simulated crash may stop a run (tests): called before each step; `true` stops the run on the
/// spot, leaving everything as a killed process would.
pub(super) type CrashPoint<'a> = &'a mut dyn FnMut() -> bool;

/// Runs the transaction of `journal` (state `staging`, not yet written); `contents[i]` is the new content
/// of `journal.ops[i]` when that is a write. `Ok(false)`: stopped by `crash`.
pub(super) fn run(
    root: &Path,
    ownership: Ownership,
    journal: &mut Journal,
    contents: &[Option<&[u8]>],
    parallel: bool,
    crash: CrashPoint,
) -> Result<bool, TreeError> {
    journal.state = State::Staging;
    if crash() {
        return Ok(false);
    }
    if let Err(err) = journal.write(root) {
        let _ = remove_if_present(&root.join(JOURNAL));
        return Err(err);
    }
    match stage(root, journal, contents, parallel, crash) {
        Ok(true) => {}
        Ok(false) => return Ok(false),
        Err(err) => return Err(with_rollback(root, ownership, journal, false, err)),
    }
    if crash() {
        return Ok(false);
    }
    journal.state = State::Switching;
    if let Err(err) = journal.write(root) {
        return Err(with_rollback(root, ownership, journal, false, err));
    }
    for op in &journal.ops {
        if crash() {
            return Ok(false);
        }
        let dir = root.join(op.dir());
        let result = match op {
            Op::Write { name, temp, .. } => {
                std::fs::rename(dir.join(temp), dir.join(name)).map_err(io("replace", dir.join(name)))
            }
            Op::Delete { name, .. } => remove_if_present(&dir.join(name)),
        };
        if let Err(err) = result {
            journal.state = State::RollingBack;
            let _ = journal.write(root);
            return Err(with_rollback(root, ownership, journal, true, err));
        }
    }
    finish(root, journal, crash)
}

fn with_rollback(root: &Path, ownership: Ownership, journal: &Journal, switched: bool, err: TreeError) -> TreeError {
    match roll_back(root, ownership, journal, switched) {
        Ok(()) => err,
        Err(rollback) => TreeError::RollbackIncomplete { first: Box::new(err), rollback: Box::new(rollback) },
    }
}

fn stage(
    root: &Path,
    journal: &Journal,
    contents: &[Option<&[u8]>],
    parallel: bool,
    crash: CrashPoint,
) -> Result<bool, TreeError> {
    for dir in &journal.mkdirs {
        if crash() {
            return Ok(false);
        }
        let abs = root.join(dir);
        std::fs::create_dir(&abs).map_err(io("create directory", abs))?;
    }
    let stage_one = |op: &Op, content: Option<&[u8]>| -> Result<(), TreeError> {
        let dir = root.join(op.dir());
        if let (Op::Write { temp, name, .. }, Some(content)) = (op, content) {
            write_new(&dir.join(temp), &dir.join(name), content)?;
        }
        if let Some(backup) = op.backup() {
            let (original, link) = (dir.join(op.name()), dir.join(backup));
            std::fs::hard_link(&original, &link).map_err(io("keep a backup of", original))?;
        }
        Ok(())
    };
    let steps: Vec<(&Op, Option<&[u8]>)> = journal.ops.iter().zip(contents.iter().copied()).collect();
    if !parallel {
        for (op, content) in steps {
            if crash() {
                return Ok(false);
            }
            stage_one(op, content)?;
        }
        return Ok(true);
    }
    // Creating and writing files is what the kernel does on every core.
    let threads =
        if steps.len() < 64 { 1 } else { std::thread::available_parallelism().map_or(1, |n| n.get()).clamp(1, 8) };
    let chunk = steps.len().div_ceil(threads).max(1);
    let results: Vec<Result<(), TreeError>> = std::thread::scope(|scope| {
        let workers: Vec<_> = steps
            .chunks(chunk)
            .map(|part| scope.spawn(|| part.iter().try_for_each(|(op, content)| stage_one(op, *content))))
            .collect();
        workers.into_iter().map(|w| w.join().unwrap_or_else(|panic| std::panic::resume_unwind(panic))).collect()
    });
    results.into_iter().collect::<Result<(), TreeError>>()?;
    Ok(true)
}

/// A new file at `path` (the temporary name of `target`, which errors name) with `content`, readable like
/// any other file of a repository.
fn write_new(path: &Path, target: &Path, content: &[u8]) -> Result<(), TreeError> {
    use std::io::Write;
    let mut options = std::fs::OpenOptions::new();
    options.write(true).create_new(true);
    #[cfg(unix)]
    std::os::unix::fs::OpenOptionsExt::mode(&mut options, 0o644);
    let mut file = options.open(path).map_err(io("create a temporary file for", target.to_path_buf()))?;
    file.write_all(content).map_err(io("write", target.to_path_buf()))
}

/// Removes the backups, the directories the run emptied, then the journal.
fn finish(root: &Path, journal: &Journal, crash: CrashPoint) -> Result<bool, TreeError> {
    for op in &journal.ops {
        if let Some(backup) = op.backup() {
            if crash() {
                return Ok(false);
            }
            remove_if_present(&root.join(op.dir()).join(backup))?;
        }
    }
    for dir in &journal.prune {
        // The directory and its now-empty parents, never one that still holds a user's file.
        let mut current = root.join(dir);
        while current != root && std::fs::remove_dir(&current).is_ok() {
            if !current.pop() {
                break;
            }
        }
    }
    if crash() {
        return Ok(false);
    }
    remove_if_present(&root.join(JOURNAL))?;
    Ok(true)
}

/// Which files of a directory recovery may overwrite or remove: those a marker lists, on disk or staged; in a
/// directory owned whole, the files of the root a run writes.
struct Owned<'j> {
    root: &'j Path,
    ownership: Ownership,
    journal: &'j Journal,
    cache: HashMap<PathBuf, BTreeSet<String>>,
}

impl<'j> Owned<'j> {
    fn new(root: &'j Path, ownership: Ownership, journal: &'j Journal) -> Self {
        Owned { root, ownership, journal, cache: HashMap::new() }
    }

    /// Checks that `name` in `dir` may be changed by recovery.
    fn check(&mut self, dir: &Path, name: &str) -> Result<(), TreeError> {
        if name.starts_with(RESERVED_PREFIX) {
            return Ok(());
        }
        if let Ownership::Whole { is_ours } = self.ownership {
            if dir.as_os_str().is_empty() && is_ours(name) {
                return Ok(());
            }
            return Err(self.refused(dir, name, "which is not a file kubectl-capz writes there"));
        }
        if !self.cache.contains_key(dir) {
            let abs = self.root.join(dir);
            let mut names = marker::read(&abs)?.unwrap_or_default();
            let staged = self.journal.ops.iter().find_map(|op| match op {
                Op::Write { dir: d, name, temp, .. } if d == dir && name == OWNER_MARKER => Some(temp),
                _ => None,
            });
            if let Some(temp) = staged
                && let Some(listed) = marker::read_file(&abs.join(temp))?
            {
                names.extend(listed);
            }
            self.cache.insert(dir.to_path_buf(), names);
        }
        if self.cache[dir].contains(name) {
            return Ok(());
        }
        Err(self.refused(dir, name, &format!("which no {OWNER_MARKER} lists")))
    }

    fn refused(&self, dir: &Path, name: &str, why: &str) -> TreeError {
        TreeError::BadJournal {
            journal: self.root.join(JOURNAL),
            line: 1,
            reason: format!(
                "it would change `{}`, {why}; nothing more was changed",
                self.root.join(dir).join(name).display()
            ),
        }
    }
}

/// Undoes a run: everything staged is removed; when the switch had begun, every switched file is restored
/// from its backup (or removed, when the run created it). Idempotent: a rollback that is itself interrupted
/// is finished by the next one.
fn roll_back(root: &Path, ownership: Ownership, journal: &Journal, switched: bool) -> Result<(), TreeError> {
    let mut owned = Owned::new(root, ownership, journal);
    // In order: content files are undone while the run's marker (which lists them) is still in place.
    for op in &journal.ops {
        let dir = root.join(op.dir());
        let target = dir.join(op.name());
        match op {
            Op::Write { temp, backup, .. } => {
                let temp = dir.join(temp);
                let done = switched && !exists(&temp)?;
                if !done {
                    remove_if_present(&temp)?;
                    if let Some(backup) = backup {
                        remove_if_present(&dir.join(backup))?;
                    }
                } else if let Some(backup) = backup {
                    let backup = dir.join(backup);
                    if exists(&backup)? {
                        owned.check(op.dir(), op.name())?;
                        std::fs::rename(&backup, &target).map_err(io("restore", target.clone()))?;
                    }
                } else if exists(&target)? {
                    owned.check(op.dir(), op.name())?;
                    remove_if_present(&target)?;
                }
            }
            Op::Delete { backup, .. } => {
                let backup = dir.join(backup);
                if exists(&backup)? {
                    if switched && !exists(&target)? {
                        std::fs::rename(&backup, &target).map_err(io("restore", target.clone()))?;
                    } else {
                        remove_if_present(&backup)?;
                    }
                }
            }
        }
    }
    for dir in journal.mkdirs.iter().rev() {
        let _ = std::fs::remove_dir(root.join(dir));
    }
    remove_if_present(&root.join(JOURNAL))
}

/// Completes an interrupted switch: the remaining renames and removals, then the clean-up.
fn roll_forward(root: &Path, ownership: Ownership, journal: &Journal) -> Result<(), TreeError> {
    let mut owned = Owned::new(root, ownership, journal);
    for op in &journal.ops {
        let dir = root.join(op.dir());
        let target = dir.join(op.name());
        match op {
            Op::Write { temp, .. } => {
                let temp = dir.join(temp);
                if exists(&temp)? {
                    if exists(&target)? {
                        owned.check(op.dir(), op.name())?;
                    }
                    std::fs::rename(&temp, &target).map_err(io("replace", target.clone()))?;
                }
            }
            Op::Delete { .. } => {
                if exists(&target)? {
                    owned.check(op.dir(), op.name())?;
                    remove_if_present(&target)?;
                }
            }
        }
    }
    finish(root, journal, &mut || false).map(|_| ())
}

/// What recovery did about an interrupted run.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Recovery {
    /// The interrupted run had not switched: its files were removed, the tree is as before it.
    RolledBack(State),
    /// The interrupted run had begun switching: the switch was completed.
    Completed,
}

/// Finishes an interrupted run of `root`, if its journal is there: rolls back a run that was staging or
/// rolling back, completes one that was switching. Call with the lock held.
pub(super) fn recover(root: &Path, ownership: Ownership) -> Result<Option<Recovery>, TreeError> {
    let Some(journal) = Journal::read(root)? else { return Ok(None) };
    // Every directory the journal names must be below the root through real directories only.
    let mut chain = DirChain::new(root);
    let dirs = journal.mkdirs.iter().chain(&journal.prune).map(PathBuf::as_path).chain(journal.ops.iter().map(Op::dir));
    for dir in dirs {
        chain.missing(dir).map_err(|problem| match problem {
            ChainProblem::Symlink(path) => TreeError::Symlink(path),
            ChainProblem::NotADirectory(path) => TreeError::FileInTheWay(path),
            ChainProblem::Io(path, source) => TreeError::Io { action: "inspect", path, source },
        })?;
    }
    match journal.state {
        State::Staging => {
            roll_back(root, ownership, &journal, false).map(|()| Some(Recovery::RolledBack(State::Staging)))
        }
        State::RollingBack => {
            roll_back(root, ownership, &journal, true).map(|()| Some(Recovery::RolledBack(State::RollingBack)))
        }
        State::Switching => roll_forward(root, ownership, &journal).map(|()| Some(Recovery::Completed)),
    }
}
