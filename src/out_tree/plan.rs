//! Comparing the desired tree with the output directory (what to create, update, delete), and applying the
//! difference as one transaction.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

use super::journal::{self, Journal, Op};
use super::marker::{self, OWNER_MARKER};
use super::safe_path::{DirChain, Kind, RESERVED_PREFIX, kind_of};
use super::{DesiredTree, JournalState, TreeError, chain_error, io_err, transaction};

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
    pub(super) fn apply_with(&self, parallel: bool, crash: transaction::CrashPoint) -> Result<bool, TreeError> {
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
