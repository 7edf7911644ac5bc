//! Comparing the desired tree with the output directory (what to create, update, delete), and applying the
//! difference as one transaction.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

use super::journal::{self, Journal, Op};
use super::marker::{self, OWNER_MARKER};
use super::safe_path::{DirChain, Kind, RESERVED_PREFIX, existing_root, kind_of};
use super::{DesiredTree, JournalState, Ownership, TreeError, chain_error, io_err, legacy, transaction};

/// What is at `path`, for a plan.
fn kind(path: &Path) -> Result<Kind, TreeError> {
    kind_of(path).map_err(io_err("inspect", path))
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

/// What a walk of the output directory found: the owned directories with the names of their files that are
/// ours, and files with reserved names left behind by an interrupted run.
#[derive(Default)]
struct Scan {
    owned: BTreeMap<PathBuf, BTreeSet<String>>,
    leftovers: Vec<PathBuf>,
}

/// Walks `root` without following symbolic links: the directories with a marker, and leftovers.
fn scan_marked(root: &Path) -> Result<Scan, TreeError> {
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

/// Lists a `root` owned whole: its regular files `is_ours` accepts are the root's owned files, reserved names
/// (but a marker, which says the directory is shared) are leftovers; the first other entry, by name, is
/// [`TreeError::Foreign`].
fn scan_whole(root: &Path, is_ours: fn(&str) -> bool) -> Result<Scan, TreeError> {
    let mut entries = Vec::new();
    for entry in std::fs::read_dir(root).map_err(io_err("list", root))? {
        let entry = entry.map_err(io_err("list", root))?;
        let is_file = entry.file_type().map_err(io_err("inspect", &entry.path()))?.is_file();
        entries.push((entry.file_name().to_string_lossy().into_owned(), is_file));
    }
    entries.sort();
    let mut found = Scan::default();
    let mut ours = BTreeSet::new();
    for (name, is_file) in entries {
        if is_file && name.starts_with(RESERVED_PREFIX) && name != OWNER_MARKER {
            found.leftovers.push(PathBuf::from(name));
        } else if is_file && is_ours(&name) {
            ours.insert(name);
        } else {
            return Err(TreeError::Foreign { dir: root.to_path_buf(), name });
        }
    }
    found.owned.insert(PathBuf::new(), ours);
    Ok(found)
}

/// A computed set of changes, ready to check or apply.
#[derive(Debug)]
pub struct Plan {
    root: PathBuf,
    ownership: Ownership,
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
    /// Staging directories an interrupted run of an earlier version left beside the root, removed by `apply`.
    staged_beside: Vec<PathBuf>,
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

    /// Compares `desired` with what is under `root`, whose files are owned as `ownership` says. Reads only; fails
    /// when a file would land where a file that is not ours is (in a directory the tool does not own, or not listed
    /// by its marker), when a directory owned whole holds anything else, when a marker lists anything but plain
    /// names of its directory, and when a symbolic link is on the way to any path it would write or remove.
    pub fn compute(root: &Path, desired: &DesiredTree, ownership: Ownership) -> Result<Plan, TreeError> {
        let exists = existing_root(root)?;
        let mut wanted = desired.owned_dirs()?;
        let on_disk = match ownership {
            _ if !exists => Scan::default(),
            Ownership::Marked => scan_marked(root)?,
            Ownership::Whole { is_ours } => scan_whole(root, is_ours)?,
        };
        let staged_beside = match ownership {
            Ownership::Marked => Vec::new(),
            Ownership::Whole { is_ours } => legacy::exchange_leftovers(root, is_ours)?,
        };
        if !ownership.is_marked() {
            if let Some((path, _)) = desired.files().find(|(path, _)| path.parent() != Some(Path::new(""))) {
                let reason = "is not directly in an output directory kubectl-capz owns whole".into();
                return Err(TreeError::BadPath { path: path.clone(), reason });
            }
            wanted.entry(PathBuf::new()).or_default();
        }
        let mut plan = Plan {
            root: root.to_path_buf(),
            ownership,
            changes: Vec::new(),
            mkdirs: Vec::new(),
            writes: BTreeMap::new(),
            deletes: Vec::new(),
            prune: Vec::new(),
            leftovers: on_disk.leftovers,
            staged_beside,
        };
        let mut chain = DirChain::new(root);
        let mut mkdirs = BTreeSet::new();
        for (dir, names) in &wanted {
            let missing = chain.missing(dir).map_err(chain_error)?;
            if missing.is_empty() {
                plan.existing_dir(dir, names, on_disk.owned.get(dir), desired)?;
            } else {
                mkdirs.extend(missing);
                plan.new_dir(dir, names, desired);
            }
        }
        for (dir, previous) in &on_disk.owned {
            if !wanted.contains_key(dir) {
                chain.missing(dir).map_err(chain_error)?;
                plan.dropped_dir(dir, previous)?;
            }
        }
        plan.mkdirs = mkdirs.into_iter().collect();
        plan.changes.sort_by(|a, b| a.path().cmp(b.path()));
        Ok(plan)
    }

    /// A new directory: every file is created, nothing to read or compare.
    fn new_dir(&mut self, dir: &Path, names: &BTreeSet<String>, desired: &DesiredTree) {
        for name in names {
            let rel = dir.join(name);
            self.changes.push(Change::Create(rel.clone()));
            self.writes.insert(rel.clone(), (desired.files[&rel].clone(), false));
        }
        if self.ownership.is_marked() {
            self.writes.insert(dir.join(OWNER_MARKER), (marker::content(names), false));
        }
    }

    /// A directory that exists: each desired file created, or updated when it is ours and differs; the files of
    /// ours it no longer holds deleted; its marker written when it changes.
    fn existing_dir(
        &mut self,
        dir: &Path,
        names: &BTreeSet<String>,
        owned: Option<&BTreeSet<String>>,
        desired: &DesiredTree,
    ) -> Result<(), TreeError> {
        for name in names {
            let rel = dir.join(name);
            let abs = self.root.join(&rel);
            let content = &desired.files[&rel];
            match kind(&abs)? {
                Kind::Absent => {
                    self.changes.push(Change::Create(rel.clone()));
                    self.writes.insert(rel, (content.clone(), false));
                }
                Kind::File => {
                    if owned.is_none_or(|files| !files.contains(name)) {
                        return Err(TreeError::NotOwned(abs));
                    }
                    let current = std::fs::read(&abs).map_err(io_err("read", &abs))?;
                    if &current != content {
                        self.changes.push(Change::Update(rel.clone()));
                        self.writes.insert(rel, (content.clone(), true));
                    }
                }
                Kind::Symlink => return Err(TreeError::Symlink(abs)),
                Kind::Dir | Kind::Other => return Err(TreeError::FileInTheWay(abs)),
            }
        }
        if let Some(previous) = owned {
            for stale in previous.difference(names) {
                // A listed name that is now a directory is not ours any more: left alone.
                if matches!(kind(&self.root.join(dir).join(stale))?, Kind::File | Kind::Symlink) {
                    self.changes.push(Change::Delete(dir.join(stale)));
                    self.deletes.push(dir.join(stale));
                }
            }
        }
        if self.ownership.is_marked() {
            self.marker(dir, names)?;
        }
        Ok(())
    }

    /// The marker of an existing directory, written when it is missing or lists other files.
    fn marker(&mut self, dir: &Path, names: &BTreeSet<String>) -> Result<(), TreeError> {
        let marker_path = self.root.join(dir).join(OWNER_MARKER);
        let marker = marker::content(names);
        match kind(&marker_path)? {
            Kind::Absent => {
                self.writes.insert(dir.join(OWNER_MARKER), (marker, false));
            }
            Kind::File => {
                if std::fs::read(&marker_path).ok().as_deref() != Some(marker.as_slice()) {
                    self.writes.insert(dir.join(OWNER_MARKER), (marker, true));
                }
            }
            Kind::Symlink => return Err(TreeError::Symlink(marker_path)),
            Kind::Dir | Kind::Other => return Err(TreeError::FileInTheWay(marker_path)),
        }
        Ok(())
    }

    /// An owned directory the desired tree no longer has: its files of ours and its marker deleted, the directory
    /// removed when nothing else is left in it.
    fn dropped_dir(&mut self, dir: &Path, previous: &BTreeSet<String>) -> Result<(), TreeError> {
        for stale in previous {
            if matches!(kind(&self.root.join(dir).join(stale))?, Kind::File | Kind::Symlink) {
                self.changes.push(Change::Delete(dir.join(stale)));
                self.deletes.push(dir.join(stale));
            }
        }
        self.deletes.push(dir.join(OWNER_MARKER));
        self.prune.push(dir.to_path_buf());
        Ok(())
    }

    /// Whether applying would change anything a user sees (leftovers of an interrupted run included).
    pub fn is_up_to_date(&self) -> bool {
        self.changes.is_empty() && self.leftovers.is_empty() && self.staged_beside.is_empty()
    }

    /// Writes the plan as one transaction (see the module documentation): on any failure the tree is as
    /// it was. Leftovers of an interrupted run are removed first.
    pub fn apply(&self) -> Result<(), TreeError> {
        self.apply_with(true, &mut || false).map(|_| ())
    }

    /// `apply`, with a point where tests stop the run as a kill would (`Ok(false)`).
    pub(super) fn apply_with(&self, parallel: bool, crash: transaction::CrashPoint) -> Result<bool, TreeError> {
        legacy::remove(&self.staged_beside)?;
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
        transaction::run(&self.root, self.ownership, &mut journal, &contents, parallel, crash)
    }
}

/// A run id: the process id and the time, in hex.
fn run_id() -> String {
    let nanos = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map_or(0, |d| d.as_nanos());
    format!("{:x}{:x}", std::process::id(), nanos)
}
