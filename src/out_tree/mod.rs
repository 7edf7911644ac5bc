//! The files of a generated tree: what should be on disk, what is, and applying the difference as one
//! transaction, touching only directories the tool owns and only paths inside the output directory.
//!
//! Guarantee: a run that fails (a full disk, a read-only or immutable directory, a refused permission)
//! leaves the tree exactly as it was; a run killed at any point leaves a journal, and the next run (which
//! holds the directory's lock first) rolls it back or completes it before doing anything else, so every run
//! starts from the old tree or the new one, never a mix. What one rename cannot give: the output directory
//! also holds the user's files (and usually `.git`), so the whole tree cannot be swapped in one rename without
//! copying those into the new tree and replacing the directory under the user's shell and editor. So between
//! a kill during the switch (a few milliseconds of renames) and the next run, a person looking at the tree
//! can see part of it switched; `render --fleet --check` reports such an unfinished run. Files are not
//! `fsync`ed: the guarantee covers a process that dies or fails, not a machine that loses power.

mod journal;
mod lock;
mod marker;
mod safe_path;
mod transaction;

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

pub use journal::State as JournalState;
pub use lock::OutDirLock;
pub use marker::OWNER_MARKER;
pub use safe_path::RESERVED_PREFIX;
pub use transaction::Recovery;

use journal::{JOURNAL, Journal, Op};
use safe_path::{ChainProblem, DirChain, Kind, kind_of};

/// Errors planning or writing a tree.
#[derive(Debug, thiserror::Error)]
pub enum TreeError {
    /// The output directory is not a directory.
    #[error("output directory `{0}` exists and is not a directory")]
    NotADirectory(PathBuf),
    /// A file the tool must write exists in a directory the tool does not own.
    #[error(
        "`{0}` exists and was not written by kubectl-capz (its directory has no {OWNER_MARKER}); move it away or choose another --out-dir"
    )]
    NotOwned(PathBuf),
    /// A path the tool must create as a directory is a file.
    #[error("`{0}` is a file, but kubectl-capz needs a directory there")]
    FileInTheWay(PathBuf),
    /// A symbolic link on the way to a path the tool would create, change or remove.
    #[error(
        "`{0}` is a symbolic link; kubectl-capz does not write or remove anything through a symbolic link inside the output directory"
    )]
    Symlink(PathBuf),
    /// A marker entry that is not a plain file name of its own directory.
    #[error(
        "{}:{line}: `{entry}` {reason}; an ownership marker lists only file names of its own directory, so nothing was changed",
        marker.display()
    )]
    BadMarker { marker: PathBuf, line: usize, entry: String, reason: &'static str },
    /// A journal that is not one this tool wrote, or asks for something recovery must not do.
    #[error("{}:{line}: not a journal of an interrupted kubectl-capz run: {reason}", journal.display())]
    BadJournal { journal: PathBuf, line: usize, reason: String },
    /// A path of the desired tree that is not a relative path of plain names (a bug in the caller).
    #[error("kubectl-capz would write `{}`, which {reason}; nothing was changed", path.display())]
    BadPath { path: PathBuf, reason: String },
    /// Another run holds the output directory.
    #[error("another kubectl-capz run is writing `{0}`; run again when it has finished")]
    Busy(PathBuf),
    /// A failed run whose rollback failed too: the journal stays for the next run.
    #[error(
        "{}; restoring the previous tree failed too ({}); the next run finishes restoring it",
        with_causes(first),
        with_causes(rollback)
    )]
    RollbackIncomplete { first: Box<TreeError>, rollback: Box<TreeError> },
    /// An I/O error on a path.
    #[error("cannot {action} `{path}`")]
    Io {
        action: &'static str,
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
}

/// An error and its causes on one line.
fn with_causes(err: &TreeError) -> String {
    let mut text = err.to_string();
    let mut source = std::error::Error::source(err);
    while let Some(cause) = source {
        text.push_str(&format!(": {cause}"));
        source = cause.source();
    }
    text
}

fn io_err<'a>(action: &'static str, path: &'a Path) -> impl FnOnce(std::io::Error) -> TreeError + 'a {
    move |source| TreeError::Io { action, path: path.to_path_buf(), source }
}

fn chain_error(problem: ChainProblem) -> TreeError {
    match problem {
        ChainProblem::Symlink(path) => TreeError::Symlink(path),
        ChainProblem::NotADirectory(path) => TreeError::FileInTheWay(path),
        ChainProblem::Io(path, source) => TreeError::Io { action: "inspect", path, source },
    }
}

/// The desired content of a tree: relative file path -> bytes. Every file's directory becomes owned.
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub struct DesiredTree {
    files: BTreeMap<PathBuf, Vec<u8>>,
}

impl DesiredTree {
    /// Adds a file at a path relative to the tree root.
    pub fn insert(&mut self, path: impl Into<PathBuf>, content: impl Into<Vec<u8>>) {
        self.files.insert(path.into(), content.into());
    }
    /// Number of files.
    pub fn len(&self) -> usize {
        self.files.len()
    }
    /// Whether the tree has no files.
    pub fn is_empty(&self) -> bool {
        self.files.is_empty()
    }
    /// The content of a file, if the tree has it.
    pub fn get(&self, path: &Path) -> Option<&Vec<u8>> {
        self.files.get(path)
    }
    /// The files, sorted by path.
    pub fn files(&self) -> impl Iterator<Item = (&PathBuf, &Vec<u8>)> {
        self.files.iter()
    }
    /// The directories and the file names in each; every path must be relative, of plain names, none of
    /// them reserved.
    fn owned_dirs(&self) -> Result<BTreeMap<PathBuf, BTreeSet<String>>, TreeError> {
        let mut dirs: BTreeMap<PathBuf, BTreeSet<String>> = BTreeMap::new();
        for path in self.files.keys() {
            let bad = |reason: String| TreeError::BadPath { path: path.clone(), reason };
            if let Some(problem) = safe_path::relative_path_problem(path) {
                return Err(bad(problem));
            }
            let (Some(dir), Some(name)) = (path.parent(), path.file_name().and_then(|n| n.to_str())) else {
                return Err(bad("is not a file path".into()));
            };
            if path.iter().any(|part| part.to_string_lossy().starts_with(RESERVED_PREFIX)) {
                return Err(bad(format!("uses a name kubectl-capz reserves ({RESERVED_PREFIX}*)")));
            }
            dirs.entry(dir.to_path_buf()).or_default().insert(name.to_string());
        }
        Ok(dirs)
    }
}

/// One change to the tree on disk.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
pub enum Change {
    /// A new file.
    Create(PathBuf),
    /// A file whose content changes.
    Update(PathBuf),
    /// A file the tool wrote before and no longer produces.
    Delete(PathBuf),
}

impl Change {
    /// The relative path the change is about.
    pub fn path(&self) -> &Path {
        match self {
            Change::Create(p) | Change::Update(p) | Change::Delete(p) => p,
        }
    }
    /// `create`, `update` or `delete`.
    pub fn verb(&self) -> &'static str {
        match self {
            Change::Create(_) => "create",
            Change::Update(_) => "update",
            Change::Delete(_) => "delete",
        }
    }
}

/// What a walk of the output directory found: the owned directories with their markers' entries, and
/// files with reserved names left behind by an interrupted run.
#[derive(Default)]
struct Scan {
    owned: BTreeMap<PathBuf, BTreeSet<String>>,
    leftovers: Vec<PathBuf>,
}

/// Walks `root` without following symbolic links.
fn scan(root: &Path) -> Result<Scan, TreeError> {
    let mut found = Scan::default();
    let mut stack = vec![PathBuf::new()];
    while let Some(rel) = stack.pop() {
        let dir = root.join(&rel);
        if let Some(files) = marker::read(&dir)? {
            found.owned.insert(rel.clone(), files);
        }
        let entries = std::fs::read_dir(&dir).map_err(io_err("list", &dir))?;
        for entry in entries {
            let entry = entry.map_err(io_err("list", &dir))?;
            let file_type = entry.file_type().map_err(io_err("inspect", &entry.path()))?;
            let name = entry.file_name();
            if file_type.is_dir() {
                stack.push(rel.join(name));
            } else if name.to_string_lossy().starts_with(RESERVED_PREFIX) && name != OWNER_MARKER {
                found.leftovers.push(rel.join(name));
            }
        }
    }
    found.leftovers.sort();
    Ok(found)
}

/// A computed set of changes, ready to check or apply.
#[derive(Debug)]
pub struct Plan {
    root: PathBuf,
    changes: Vec<Change>,
    /// Directories to create, parents first.
    mkdirs: Vec<PathBuf>,
    /// Files to write (relative path -> content, whether a file is there now); markers included.
    writes: BTreeMap<PathBuf, (Vec<u8>, bool)>,
    /// Files to remove (relative paths); markers of dropped directories included.
    deletes: Vec<PathBuf>,
    /// Owned directories that end up empty of our files: removed when nothing else is in them.
    prune: Vec<PathBuf>,
    /// Reserved-name files of an interrupted run, removed by `apply`.
    leftovers: Vec<PathBuf>,
}

impl Plan {
    /// Changes to the user-visible files (markers are not listed), sorted by path.
    pub fn changes(&self) -> &[Change] {
        &self.changes
    }

    /// Files (relative paths) with names kubectl-capz reserves that an interrupted run left behind.
    pub fn leftovers(&self) -> &[PathBuf] {
        &self.leftovers
    }

    /// Compares `desired` with what is under `root`. Reads only; fails when a file would land in a
    /// directory the tool does not own, when a marker lists anything but plain names of its directory, and
    /// when a symbolic link is on the way to any path it would write or remove.
    pub fn compute(root: &Path, desired: &DesiredTree) -> Result<Plan, TreeError> {
        let exists = match std::fs::metadata(root) {
            Ok(meta) if meta.is_dir() => true,
            Ok(_) => return Err(TreeError::NotADirectory(root.to_path_buf())),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => false,
            Err(e) => return Err(TreeError::Io { action: "inspect", path: root.to_path_buf(), source: e }),
        };
        let on_disk = if exists { scan(root)? } else { Scan::default() };
        let wanted = desired.owned_dirs()?;
        let mut plan = Plan {
            root: root.to_path_buf(),
            changes: Vec::new(),
            mkdirs: Vec::new(),
            writes: BTreeMap::new(),
            deletes: Vec::new(),
            prune: Vec::new(),
            leftovers: on_disk.leftovers,
        };
        let mut chain = DirChain::new(root);
        let mut mkdirs = BTreeSet::new();
        let kind = |path: &Path| kind_of(path).map_err(io_err("inspect", path));
        for (dir, names) in &wanted {
            let missing = chain.missing(dir).map_err(chain_error)?;
            if !missing.is_empty() {
                // A new directory: every file is created, nothing to read or compare.
                mkdirs.extend(missing);
                for name in names {
                    let rel = dir.join(name);
                    plan.changes.push(Change::Create(rel.clone()));
                    plan.writes.insert(rel.clone(), (desired.files[&rel].clone(), false));
                }
                plan.writes.insert(dir.join(OWNER_MARKER), (marker::content(names), false));
                continue;
            }
            let abs_dir = root.join(dir);
            let owned = on_disk.owned.get(dir);
            for name in names {
                let rel = dir.join(name);
                let abs = root.join(&rel);
                let content = &desired.files[&rel];
                match kind(&abs)? {
                    Kind::Absent => {
                        plan.changes.push(Change::Create(rel.clone()));
                        plan.writes.insert(rel, (content.clone(), false));
                    }
                    Kind::File => {
                        if owned.is_none_or(|files| !files.contains(name)) {
                            return Err(TreeError::NotOwned(abs));
                        }
                        let current = std::fs::read(&abs).map_err(io_err("read", &abs))?;
                        if &current != content {
                            plan.changes.push(Change::Update(rel.clone()));
                            plan.writes.insert(rel, (content.clone(), true));
                        }
                    }
                    Kind::Symlink => return Err(TreeError::Symlink(abs)),
                    Kind::Dir | Kind::Other => return Err(TreeError::FileInTheWay(abs)),
                }
            }
            if let Some(previous) = owned {
                for stale in previous.difference(names) {
                    // A listed name that is now a directory is not ours any more: left alone.
                    if matches!(kind(&abs_dir.join(stale))?, Kind::File | Kind::Symlink) {
                        plan.changes.push(Change::Delete(dir.join(stale)));
                        plan.deletes.push(dir.join(stale));
                    }
                }
            }
            let marker_path = abs_dir.join(OWNER_MARKER);
            let marker = marker::content(names);
            match kind(&marker_path)? {
                Kind::Absent => {
                    plan.writes.insert(dir.join(OWNER_MARKER), (marker, false));
                }
                Kind::File => {
                    if std::fs::read(&marker_path).ok().as_deref() != Some(marker.as_slice()) {
                        plan.writes.insert(dir.join(OWNER_MARKER), (marker, true));
                    }
                }
                Kind::Symlink => return Err(TreeError::Symlink(marker_path)),
                Kind::Dir | Kind::Other => return Err(TreeError::FileInTheWay(marker_path)),
            }
        }
        for (dir, previous) in &on_disk.owned {
            if wanted.contains_key(dir) {
                continue;
            }
            chain.missing(dir).map_err(chain_error)?;
            for stale in previous {
                if matches!(kind(&root.join(dir).join(stale))?, Kind::File | Kind::Symlink) {
                    plan.changes.push(Change::Delete(dir.join(stale)));
                    plan.deletes.push(dir.join(stale));
                }
            }
            plan.deletes.push(dir.join(OWNER_MARKER));
            plan.prune.push(dir.clone());
        }
        plan.mkdirs = mkdirs.into_iter().collect();
        plan.changes.sort_by(|a, b| a.path().cmp(b.path()));
        Ok(plan)
    }

    /// Whether applying would change anything a user sees (leftovers of an interrupted run included).
    pub fn is_up_to_date(&self) -> bool {
        self.changes.is_empty() && self.leftovers.is_empty()
    }

    /// Writes the plan as one transaction (see the module documentation): on any failure the tree is as
    /// it was. Leftovers of an interrupted run are removed first.
    pub fn apply(&self) -> Result<(), TreeError> {
        self.apply_with(true, &mut || false).map(|_| ())
    }

    /// `apply`, with a point where tests stop the run as a kill would (`Ok(false)`).
    fn apply_with(&self, parallel: bool, crash: transaction::CrashPoint) -> Result<bool, TreeError> {
        for leftover in &self.leftovers {
            let path = self.root.join(leftover);
            match std::fs::remove_file(&path) {
                Err(e) if e.kind() != std::io::ErrorKind::NotFound => return Err(io_err("remove", &path)(e)),
                _ => {}
            }
        }
        if self.writes.is_empty() && self.deletes.is_empty() && self.prune.is_empty() {
            return Ok(true);
        }
        std::fs::create_dir_all(&self.root).map_err(io_err("create directory", &self.root))?;
        let run = run_id();
        let mut ops = Vec::with_capacity(self.writes.len() + self.deletes.len());
        let mut contents = Vec::with_capacity(ops.capacity());
        let split = |path: &Path| {
            let dir = path.parent().map(Path::to_path_buf).unwrap_or_default();
            let name = path.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
            (dir, name)
        };
        // The switch's order: content files, stale files, then the markers, so that at every point of an
        // interrupted switch the marker on disk still lists every file still to be replaced or removed.
        let is_marker = |path: &Path| path.file_name().is_some_and(|n| n == OWNER_MARKER);
        for markers in [false, true] {
            for (path, (content, exists)) in self.writes.iter().filter(|(p, _)| is_marker(p) == markers) {
                let (dir, name) = split(path);
                let index = ops.len();
                let backup = exists.then(|| journal::backup_name(&run, index));
                ops.push(Op::Write { dir, name, temp: journal::temp_name(&run, index), backup });
                contents.push(Some(content.as_slice()));
            }
            for path in self.deletes.iter().filter(|p| is_marker(p) == markers) {
                let (dir, name) = split(path);
                let backup = journal::backup_name(&run, ops.len());
                ops.push(Op::Delete { dir, name, backup });
                contents.push(None);
            }
        }
        let mut journal =
            Journal { run, state: JournalState::Staging, mkdirs: self.mkdirs.clone(), ops, prune: self.prune.clone() };
        transaction::run(&self.root, &mut journal, &contents, parallel, crash)
    }
}

/// A run id: the process id and the time, in hex.
fn run_id() -> String {
    let nanos = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map_or(0, |d| d.as_nanos());
    format!("{:x}{:x}", std::process::id(), nanos)
}

/// An output directory held by a run: created when missing, locked against other runs, and any run
/// interrupted there finished first.
#[derive(Debug)]
pub struct OutDir {
    root: PathBuf,
    created: bool,
    recovery: Option<Recovery>,
    _lock: OutDirLock,
}

impl OutDir {
    /// Opens `root` for writing: creates it when missing, takes its lock (another run holding it is
    /// [`TreeError::Busy`]), then rolls back or completes an interrupted run found there.
    pub fn open(root: &Path) -> Result<OutDir, TreeError> {
        let created = match std::fs::metadata(root) {
            Ok(meta) if meta.is_dir() => false,
            Ok(_) => return Err(TreeError::NotADirectory(root.to_path_buf())),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
                std::fs::create_dir_all(root).map_err(io_err("create directory", root))?;
                true
            }
            Err(e) => return Err(TreeError::Io { action: "inspect", path: root.to_path_buf(), source: e }),
        };
        let lock = lock::lock(root, true)?;
        let recovery = transaction::recover(root)?;
        Ok(OutDir { root: root.to_path_buf(), created, recovery, _lock: lock })
    }

    /// What was done about an interrupted run found in the directory.
    pub fn recovery(&self) -> Option<Recovery> {
        self.recovery
    }

    /// After a run that wrote nothing (it failed): removes the output directory again if this run created
    /// it and it is still empty.
    pub fn discard_if_created(self) {
        if self.created {
            let _ = std::fs::remove_dir(&self.root);
        }
    }
}

/// For `--check`: takes the shared lock of an existing `root` (another run writing it is
/// [`TreeError::Busy`]) and tells whether an interrupted run's journal is there, and in which state.
pub fn inspect(root: &Path) -> Result<(Option<OutDirLock>, Option<JournalState>), TreeError> {
    match std::fs::metadata(root) {
        Ok(meta) if meta.is_dir() => {}
        Ok(_) => return Err(TreeError::NotADirectory(root.to_path_buf())),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok((None, None)),
        Err(e) => return Err(TreeError::Io { action: "inspect", path: root.to_path_buf(), source: e }),
    }
    let lock = lock::lock(root, false)?;
    let state = Journal::read(root)?.map(|journal| journal.state);
    Ok((Some(lock), state))
}

/// The journal's file name (for messages).
pub const JOURNAL_NAME: &str = JOURNAL;

#[cfg(test)]
mod tests {
    use super::*;

    fn tree(files: &[(&str, &str)]) -> DesiredTree {
        let mut t = DesiredTree::default();
        for (p, c) in files {
            t.insert(*p, c.as_bytes());
        }
        t
    }

    #[test]
    fn first_write_then_up_to_date() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().join("out");
        let desired = tree(&[("clusters/a/x.yaml", "x"), ("clusters/b/y.yaml", "y")]);
        let plan = Plan::compute(&root, &desired).unwrap();
        assert_eq!(plan.changes().len(), 2);
        plan.apply().unwrap();
        assert_eq!(std::fs::read_to_string(root.join("clusters/a/x.yaml")).unwrap(), "x");
        assert!(Plan::compute(&root, &desired).unwrap().is_up_to_date());
    }

    #[test]
    fn stale_files_removed_but_user_files_kept() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        Plan::compute(root, &tree(&[("c/a/x.yaml", "x"), ("c/a/old.yaml", "o"), ("c/b/y.yaml", "y")]))
            .unwrap()
            .apply()
            .unwrap();
        std::fs::write(root.join("c/a/mine.txt"), "user").unwrap();
        std::fs::write(root.join("c/b/notes.md"), "user").unwrap();
        let plan = Plan::compute(root, &tree(&[("c/a/x.yaml", "x2")])).unwrap();
        assert_eq!(
            plan.changes(),
            &[
                Change::Delete("c/a/old.yaml".into()),
                Change::Update("c/a/x.yaml".into()),
                Change::Delete("c/b/y.yaml".into())
            ]
        );
        plan.apply().unwrap();
        assert!(root.join("c/a/mine.txt").exists());
        assert!(root.join("c/b/notes.md").exists(), "user file in a dropped directory survives");
        assert!(!root.join("c/b/y.yaml").exists());
        assert!(!root.join("c/a/old.yaml").exists());
    }

    #[test]
    fn refuses_to_overwrite_unowned_files() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        std::fs::create_dir_all(root.join("c/a")).unwrap();
        std::fs::write(root.join("c/a/x.yaml"), "user").unwrap();
        let err = Plan::compute(root, &tree(&[("c/a/x.yaml", "x")])).unwrap_err();
        assert!(matches!(err, TreeError::NotOwned(_)), "{err}");
        assert_eq!(std::fs::read_to_string(root.join("c/a/x.yaml")).unwrap(), "user");
    }

    #[test]
    fn out_dir_that_is_a_file_is_an_error() {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("f");
        std::fs::write(&file, "x").unwrap();
        assert!(matches!(Plan::compute(&file, &tree(&[("a/b", "c")])), Err(TreeError::NotADirectory(_))));
        std::fs::create_dir_all(dir.path().join("d")).unwrap();
        std::fs::write(dir.path().join("d/a"), "x").unwrap();
        assert!(matches!(
            Plan::compute(&dir.path().join("d"), &tree(&[("a/b", "c")])),
            Err(TreeError::FileInTheWay(_))
        ));
    }
}

#[cfg(test)]
mod safety_tests {
    use super::*;

    fn tree(files: &[(&str, &str)]) -> DesiredTree {
        let mut t = DesiredTree::default();
        for (p, c) in files {
            t.insert(*p, c.as_bytes());
        }
        t
    }

    /// Every file below `dir` (not following links) with its bytes.
    fn snapshot(dir: &Path) -> BTreeMap<PathBuf, Vec<u8>> {
        let mut files = BTreeMap::new();
        let mut stack = vec![dir.to_path_buf()];
        while let Some(current) = stack.pop() {
            for entry in std::fs::read_dir(&current).unwrap() {
                let entry = entry.unwrap();
                let path = entry.path();
                if entry.file_type().unwrap().is_dir() {
                    stack.push(path);
                } else {
                    files.insert(path.strip_prefix(dir).unwrap().to_path_buf(), std::fs::read(&path).unwrap());
                }
            }
        }
        files
    }

    #[test]
    fn hostile_marker_entries_delete_nothing() {
        let work = tempfile::tempdir().unwrap();
        let root = work.path().join("out");
        let victim = work.path().join("victim");
        std::fs::write(&victim, "precious").unwrap();
        Plan::compute(&root, &tree(&[("c/a/x.yaml", "x")])).unwrap().apply().unwrap();
        for entry in ["../../victim", victim.to_str().unwrap()] {
            std::fs::write(root.join("c/a").join(OWNER_MARKER), format!("# ours\nx.yaml\n{entry}\n")).unwrap();
            let err = Plan::compute(&root, &tree(&[("c/b/y.yaml", "y")])).unwrap_err();
            let message = err.to_string();
            assert!(matches!(err, TreeError::BadMarker { line: 3, .. }), "{message}");
            assert!(message.contains(&format!("c/a/{OWNER_MARKER}:3: `{entry}`")), "{message}");
            assert_eq!(std::fs::read_to_string(&victim).unwrap(), "precious");
            assert_eq!(std::fs::read_to_string(root.join("c/a/x.yaml")).unwrap(), "x");
        }
    }

    #[cfg(unix)]
    #[test]
    fn symlinked_subdirectory_is_not_followed() {
        let work = tempfile::tempdir().unwrap();
        let root = work.path().join("out");
        let elsewhere = work.path().join("elsewhere");
        std::fs::create_dir_all(&elsewhere).unwrap();
        std::fs::create_dir_all(root.join("c")).unwrap();
        std::os::unix::fs::symlink(&elsewhere, root.join("c/a")).unwrap();
        let err = Plan::compute(&root, &tree(&[("c/a/x.yaml", "x")])).unwrap_err();
        assert!(matches!(&err, TreeError::Symlink(p) if p.ends_with("c/a")), "{err}");
        assert_eq!(std::fs::read_dir(&elsewhere).unwrap().count(), 0);
        // An owned directory behind a link is not walked into either: its marker is never read.
        std::fs::write(elsewhere.join(OWNER_MARKER), "victim\n").unwrap();
        std::fs::write(elsewhere.join("victim"), "v").unwrap();
        let plan = Plan::compute(&root, &tree(&[("d/x.yaml", "x")])).unwrap();
        assert!(plan.changes().iter().all(|c| !matches!(c, Change::Delete(_))), "{:?}", plan.changes());
        plan.apply().unwrap();
        assert!(elsewhere.join("victim").exists());
    }

    #[test]
    fn desired_paths_must_stay_inside() {
        for path in ["../escaped/x.yaml", "/abs/x.yaml", "a/.kubectl-capz-owned"] {
            let err = Plan::compute(Path::new("/nonexistent-out"), &tree(&[(path, "x")])).unwrap_err();
            assert!(matches!(err, TreeError::BadPath { .. }), "{path}: {err}");
        }
    }

    /// File contents by path.
    type Files = BTreeMap<PathBuf, Vec<u8>>;

    /// An old tree with user files, a file to update, one to delete, a directory to drop and one to add.
    fn old_and_new(root: &Path) -> (DesiredTree, Files, Files) {
        let old = tree(&[("c/a/x.yaml", "x1"), ("c/a/gone.yaml", "g"), ("c/b/y.yaml", "y"), ("c/k/same.yaml", "s")]);
        Plan::compute(root, &old).unwrap().apply().unwrap();
        std::fs::write(root.join("README.md"), "user").unwrap();
        std::fs::write(root.join("c/a/notes.md"), "user").unwrap();
        let new = tree(&[("c/a/x.yaml", "x2"), ("c/k/same.yaml", "s"), ("d/n/z.yaml", "z")]);
        let before = snapshot(root);
        let copy = tempfile::tempdir().unwrap();
        let copy_root = copy.path().join("out");
        Plan::compute(&copy_root, &old).unwrap().apply().unwrap();
        std::fs::write(copy_root.join("README.md"), "user").unwrap();
        std::fs::write(copy_root.join("c/a/notes.md"), "user").unwrap();
        Plan::compute(&copy_root, &new).unwrap().apply().unwrap();
        (new, before, snapshot(&copy_root))
    }

    /// A kill at every step of a run, then the next run's recovery: the tree is the old one or the new
    /// one, byte for byte, with nothing left behind.
    #[test]
    fn interrupted_at_every_step_recovers_to_old_or_new() {
        let mut step = 0;
        let mut seen = (0, 0);
        loop {
            let work = tempfile::tempdir().unwrap();
            let root = work.path().join("out");
            let (new, before, after) = old_and_new(&root);
            let plan = Plan::compute(&root, &new).unwrap();
            let mut count = 0;
            let completed = plan
                .apply_with(false, &mut || {
                    count += 1;
                    count > step
                })
                .unwrap();
            if completed {
                assert_eq!(snapshot(&root), after);
                break;
            }
            let journal = Journal::read(&root).unwrap();
            let state = journal.as_ref().map(|j| j.state);
            if matches!(state, None | Some(JournalState::Staging)) {
                let visible: BTreeMap<_, _> = snapshot(&root)
                    .into_iter()
                    .filter(|(p, _)| !p.file_name().unwrap().to_string_lossy().starts_with(".kubectl-capz-new"))
                    .filter(|(p, _)| !p.file_name().unwrap().to_string_lossy().starts_with(".kubectl-capz-old"))
                    .filter(|(p, _)| !p.ends_with(JOURNAL))
                    .collect();
                assert_eq!(visible, before, "step {step}: staging changes nothing a user sees");
            }
            let recovery = transaction::recover(&root).unwrap();
            let result = snapshot(&root);
            if result == before {
                seen.0 += 1;
                assert!(state.is_none() || matches!(recovery, Some(Recovery::RolledBack(_))), "step {step}");
            } else {
                assert_eq!(result, after, "step {step} ({state:?}): neither old nor new");
                seen.1 += 1;
            }
            // And the next run finds nothing to clean.
            let plan = Plan::compute(&root, &new).unwrap();
            assert!(plan.leftovers().is_empty(), "step {step}: {:?}", plan.leftovers());
            step += 1;
        }
        assert!(seen.0 >= 5 && seen.1 >= 5, "crash points on both sides of the switch: {seen:?}");
    }

    #[test]
    fn leftover_temporaries_are_found_and_removed() {
        let work = tempfile::tempdir().unwrap();
        let root = work.path().join("out");
        let desired = tree(&[("c/a/x.yaml", "x")]);
        Plan::compute(&root, &desired).unwrap().apply().unwrap();
        // What the earlier tempfile-based writer left when killed, and a stray of this one.
        std::fs::write(root.join("c/a/.kubectl-capz-Ab3xYz"), "half").unwrap();
        std::fs::create_dir_all(root.join("c/new")).unwrap();
        std::fs::write(root.join("c/new/.kubectl-capz-new.1.0"), "half").unwrap();
        let plan = Plan::compute(&root, &desired).unwrap();
        assert!(!plan.is_up_to_date());
        assert_eq!(
            plan.leftovers(),
            &[PathBuf::from("c/a/.kubectl-capz-Ab3xYz"), "c/new/.kubectl-capz-new.1.0".into()]
        );
        plan.apply().unwrap();
        assert!(Plan::compute(&root, &desired).unwrap().is_up_to_date());
        assert!(!root.join("c/a/.kubectl-capz-Ab3xYz").exists());
    }

    #[test]
    fn forged_journal_changes_nothing_outside_or_unowned() {
        let work = tempfile::tempdir().unwrap();
        let root = work.path().join("out");
        Plan::compute(&root, &tree(&[("c/a/x.yaml", "x")])).unwrap().apply().unwrap();
        std::fs::write(work.path().join("victim"), "v").unwrap();
        std::fs::write(root.join("kubeconfig"), "mine").unwrap();
        for (body, needle) in [
            ("state\tswitching\nrun\tab\ndelete\t..\tvictim\t.kubectl-capz-old.ab.0\nend\n", "contains `..`"),
            ("state\tswitching\nrun\tab\ndelete\t.\tkubeconfig\t.kubectl-capz-old.ab.0\nend\n", "which no"),
        ] {
            std::fs::write(root.join(JOURNAL), body).unwrap();
            let err = OutDir::open(&root).unwrap_err();
            assert!(matches!(err, TreeError::BadJournal { .. }), "{err}");
            assert!(err.to_string().contains(needle), "{err}");
            assert!(work.path().join("victim").exists() && root.join("kubeconfig").exists());
        }
    }
}
