//! A git revision of the repository as a directory of its own: the files of the revision's tree below the path
//! under review, written from git's object store (`git ls-tree`, `git cat-file --batch`), so that neither the
//! user's working tree nor the index changes, no checkout runs (no hooks, no filters, no `.gitattributes`
//! rewriting), and nothing is fetched.

use std::collections::HashSet;
use std::io::{BufRead, BufReader, Read, Write};
use std::path::{Component, Path, PathBuf};
use std::process::{Command, Stdio};

/// Why a revision could not be read.
#[derive(Debug, thiserror::Error)]
pub enum SnapshotError {
    #[error("`{path}` is not inside a git repository ({detail}): give --base a directory instead of a revision")]
    NotARepository { path: String, detail: String },
    #[error("`{revision}` is no commit of the repository at `{path}`: {detail}")]
    UnknownRevision { revision: String, path: String, detail: String },
    #[error("cannot run git: {0}")]
    Git(#[source] std::io::Error),
    #[error("git {what} failed: {detail}")]
    GitFailed { what: String, detail: String },
    #[error("cannot write the base revision's file `{path}`: {source}")]
    Write {
        path: String,
        #[source]
        source: std::io::Error,
    },
    #[error("the revision's file list names `{0}`, which is not a path inside the repository")]
    BadPath(String),
}

/// A revision written out: `root` is where the path under review lies in it (removed when dropped).
#[derive(Debug)]
pub struct Snapshot {
    dir: tempfile::TempDir,
    /// The path under review's directory inside the snapshot.
    pub root: PathBuf,
    /// The commit the revision names (full hash).
    pub commit: String,
    /// How many files were written.
    pub files: usize,
}

impl Snapshot {
    /// The temporary directory holding the snapshot.
    pub fn dir(&self) -> &Path {
        self.dir.path()
    }
}

/// A git command that runs nothing of the repository's and reaches no network: no pager, no prompt, no fsmonitor
/// hook, no lazy fetch of missing objects (partial clones), no transport at all.
fn git(cwd: &Path) -> Command {
    let mut command = Command::new("git");
    command
        .current_dir(cwd)
        .args(["-c", "core.fsmonitor=false", "-c", "protocol.allow=never", "-c", "core.hooksPath=/dev/null"])
        .arg("--no-pager")
        .env("GIT_TERMINAL_PROMPT", "0")
        .env("GIT_NO_LAZY_FETCH", "1")
        .env("GIT_OPTIONAL_LOCKS", "0")
        .env_remove("GIT_DIR")
        .env_remove("GIT_WORK_TREE")
        .env_remove("GIT_INDEX_FILE")
        .stdin(Stdio::null());
    command
}

fn output(mut command: Command, what: &str) -> Result<String, (String, String)> {
    match command.stderr(Stdio::piped()).stdout(Stdio::piped()).output() {
        Ok(out) if out.status.success() => Ok(String::from_utf8_lossy(&out.stdout).trim_end().to_string()),
        Ok(out) => Err((what.to_string(), String::from_utf8_lossy(&out.stderr).trim().to_string())),
        Err(err) => Err((what.to_string(), err.to_string())),
    }
}

/// Writes `revision` of the git repository holding `path` (a directory) into a temporary directory.
pub fn materialise(path: &Path, revision: &str) -> Result<Snapshot, SnapshotError> {
    let shown = path.display().to_string();
    let mut prefix_command = git(path);
    prefix_command.args(["rev-parse", "--show-prefix"]);
    let prefix = output(prefix_command, "rev-parse")
        .map_err(|(_, detail)| SnapshotError::NotARepository { path: shown.clone(), detail })?;
    if revision.starts_with('-') {
        return Err(SnapshotError::UnknownRevision {
            revision: revision.to_string(),
            path: shown,
            detail: "a revision cannot start with `-`".to_string(),
        });
    }
    let mut verify = git(path);
    verify.args(["rev-parse", "--verify", "--quiet", "--end-of-options"]).arg(format!("{revision}^{{commit}}"));
    let commit = output(verify, "rev-parse").map_err(|(_, detail)| SnapshotError::UnknownRevision {
        revision: revision.to_string(),
        path: shown.clone(),
        detail: if detail.is_empty() { "git does not know it".to_string() } else { detail },
    })?;
    let dir = tempfile::Builder::new()
        .prefix("kubectl-capz-base-")
        .tempdir()
        .map_err(|source| SnapshotError::Write { path: std::env::temp_dir().display().to_string(), source })?;
    let mut toplevel_command = git(path);
    toplevel_command.args(["rev-parse", "--show-toplevel"]);
    let toplevel = output(toplevel_command, "rev-parse")
        .map_err(|(_, detail)| SnapshotError::NotARepository { path: shown.clone(), detail })?;
    let entries = tree_entries(path, &commit, &prefix)?;
    let toplevel = Path::new(&toplevel);
    // The files the working tree holds as they are linked; only the others are read from git and written.
    let mut inside = Inside::new(toplevel);
    let mut dirs = HashSet::new();
    let mut rest = Vec::new();
    for entry in entries.iter() {
        let relative = safe_relative(&entry.path).ok_or_else(|| SnapshotError::BadPath(entry.path.clone()))?;
        let current = toplevel.join(&relative);
        let linked = entry.mode != "120000"
            && inside.holds(&current)
            && super::blob::holds_blob(&current, &entry.object, entry.size)
            && make_parent(&dir.path().join(&relative), &mut dirs).is_ok()
            && std::fs::hard_link(&current, dir.path().join(&relative)).is_ok();
        if !linked {
            rest.push(entry);
        }
    }
    write_entries(path, dir.path(), &rest, &mut dirs)?;
    let files = entries.len();
    let prefix = prefix.trim_end_matches('/');
    let root = if prefix.is_empty() { dir.path().to_path_buf() } else { dir.path().join(prefix) };
    std::fs::create_dir_all(&root)
        .map_err(|source| SnapshotError::Write { path: root.display().to_string(), source })?;
    Ok(Snapshot { dir, root, commit, files })
}

/// Whether a working-tree file's directory really lies inside the repository (no directory on its way below the
/// top is a symlink): only such files are linked into the snapshot. One `lstat` per directory, cached.
struct Inside {
    top: PathBuf,
    dirs: std::collections::HashMap<PathBuf, bool>,
}

impl Inside {
    fn new(toplevel: &Path) -> Inside {
        Inside { top: toplevel.to_path_buf(), dirs: std::collections::HashMap::new() }
    }

    fn holds(&mut self, file: &Path) -> bool {
        file.parent().is_some_and(|parent| self.directory_inside(parent))
    }

    fn directory_inside(&mut self, dir: &Path) -> bool {
        if dir == self.top {
            return true;
        }
        if let Some(&known) = self.dirs.get(dir) {
            return known;
        }
        let inside = dir.starts_with(&self.top)
            && dir.parent().is_some_and(|parent| self.directory_inside(parent))
            && std::fs::symlink_metadata(dir).is_ok_and(|meta| meta.file_type().is_dir());
        self.dirs.insert(dir.to_path_buf(), inside);
        inside
    }
}

#[derive(Debug, PartialEq, Eq)]
struct Entry {
    mode: String,
    object: String,
    /// Bytes.
    size: u64,
    path: String,
}

/// The blobs of `commit`'s tree below `prefix` (submodules left out: Flux and Argo CD do not read them either).
fn tree_entries(path: &Path, commit: &str, prefix: &str) -> Result<Vec<Entry>, SnapshotError> {
    let mut command = git(path);
    command.args(["ls-tree", "-r", "-l", "-z", "--full-tree", commit]);
    if !prefix.is_empty() {
        command.arg("--").arg(prefix);
    }
    let out = command.stderr(Stdio::piped()).stdout(Stdio::piped()).output().map_err(SnapshotError::Git)?;
    if !out.status.success() {
        return Err(SnapshotError::GitFailed {
            what: "ls-tree".to_string(),
            detail: String::from_utf8_lossy(&out.stderr).trim().to_string(),
        });
    }
    Ok(parse_tree(&out.stdout))
}

/// `git ls-tree -r -l -z` output: `MODE TYPE OBJECT SIZE\tPATH\0` per entry (the size padded); blobs only.
fn parse_tree(listing: &[u8]) -> Vec<Entry> {
    listing
        .split(|&b| b == 0)
        .filter_map(|record| {
            let record = std::str::from_utf8(record).ok()?;
            let (meta, path) = record.split_once('\t')?;
            let mut fields = meta.split_whitespace();
            let (mode, kind, object) = (fields.next()?, fields.next()?, fields.next()?);
            let size = fields.next()?.parse().ok()?;
            (kind == "blob").then(|| Entry {
                mode: mode.to_string(),
                object: object.to_string(),
                size,
                path: path.to_string(),
            })
        })
        .collect()
}

/// Whether `path` (from git's listing) stays inside the snapshot: relative, no `..`, no root.
fn safe_relative(path: &str) -> Option<PathBuf> {
    let relative = Path::new(path);
    let normal = relative.components().all(|c| matches!(c, Component::Normal(_)));
    (normal && !path.is_empty()).then(|| relative.to_path_buf())
}

/// Writes every entry's content, read through one `git cat-file --batch` (the files the working tree does not hold
/// as they are: [`super::blob`] found the others, and they were linked).
fn write_entries(
    path: &Path,
    into: &Path,
    entries: &[&Entry],
    dirs: &mut HashSet<PathBuf>,
) -> Result<(), SnapshotError> {
    if entries.is_empty() {
        return Ok(());
    }
    let mut command = git(path);
    command.args(["cat-file", "--batch"]).stdin(Stdio::piped()).stdout(Stdio::piped()).stderr(Stdio::piped());
    let mut child = command.spawn().map_err(SnapshotError::Git)?;
    let mut stdin = child.stdin.take().expect("piped stdin");
    let ids: Vec<String> = entries.iter().map(|entry| format!("{}\n", entry.object)).collect();
    // The ids go in from a thread of their own: git answers while it reads, and a full pipe would stop both.
    let feeder = std::thread::spawn(move || {
        for id in ids {
            if stdin.write_all(id.as_bytes()).is_err() {
                break;
            }
        }
    });
    let mut reader = BufReader::new(child.stdout.take().expect("piped stdout"));
    let failed = |detail: String| SnapshotError::GitFailed { what: "cat-file".to_string(), detail };
    for entry in entries {
        let mut header = String::new();
        reader.read_line(&mut header).map_err(SnapshotError::Git)?;
        let size: usize = header
            .trim_end()
            .rsplit(' ')
            .next()
            .and_then(|size| size.parse().ok())
            .ok_or_else(|| failed(format!("unexpected answer `{}` for {}", header.trim_end(), entry.path)))?;
        let mut content = vec![0; size];
        reader.read_exact(&mut content).map_err(SnapshotError::Git)?;
        let mut newline = [0u8; 1];
        reader.read_exact(&mut newline).map_err(SnapshotError::Git)?;
        let relative = safe_relative(&entry.path).ok_or_else(|| SnapshotError::BadPath(entry.path.clone()))?;
        let target = into.join(&relative);
        make_parent(&target, dirs)
            .map_err(|source| SnapshotError::Write { path: target.display().to_string(), source })?;
        write_entry(&target, &entry.mode, &content)?;
    }
    let _ = feeder.join();
    let status = child.wait().map_err(SnapshotError::Git)?;
    if !status.success() {
        return Err(failed(format!("exited with {status}")));
    }
    Ok(())
}

/// Makes the parent directory of `target` unless an earlier file made it (`dirs`: the directories made).
fn make_parent(target: &Path, dirs: &mut HashSet<PathBuf>) -> std::io::Result<()> {
    let Some(parent) = target.parent() else { return Ok(()) };
    if !dirs.contains(parent) {
        std::fs::create_dir_all(parent)?;
        dirs.insert(parent.to_path_buf());
    }
    Ok(())
}

/// One file (or symlink: repository mode judges where it points, as it does in the working tree).
fn write_entry(target: &Path, mode: &str, content: &[u8]) -> Result<(), SnapshotError> {
    let error = |source| SnapshotError::Write { path: target.display().to_string(), source };
    if mode == "120000" {
        let link = String::from_utf8_lossy(content).into_owned();
        return std::os::unix::fs::symlink(link, target).map_err(error);
    }
    std::fs::write(target, content).map_err(error)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_tree_listing_keeps_blobs_and_their_modes() {
        let listing =
            b"100644 blob aaa     12\tclusters/a.yaml\x00160000 commit bbb       -\tvendor/sub\x00120000 blob ccc 7\tlink\x00";
        assert_eq!(
            parse_tree(listing),
            vec![
                Entry { mode: "100644".into(), object: "aaa".into(), size: 12, path: "clusters/a.yaml".into() },
                Entry { mode: "120000".into(), object: "ccc".into(), size: 7, path: "link".into() },
            ]
        );
    }

    #[test]
    fn paths_leaving_the_snapshot_are_refused() {
        assert!(safe_relative("a/b.yaml").is_some());
        for bad in ["../x", "/etc/passwd", "a/../../x", ""] {
            assert!(safe_relative(bad).is_none(), "{bad}");
        }
    }

    #[test]
    fn files_below_a_symlinked_directory_are_not_inside() {
        let outside = tempfile::tempdir().unwrap();
        std::fs::write(outside.path().join("secret.yaml"), "x").unwrap();
        let top = tempfile::tempdir().unwrap();
        std::fs::create_dir_all(top.path().join("clusters/a")).unwrap();
        std::os::unix::fs::symlink(outside.path(), top.path().join("clusters/out")).unwrap();
        let mut inside = Inside::new(top.path());
        assert!(inside.holds(&top.path().join("clusters/a/x.yaml")));
        assert!(inside.holds(&top.path().join("top.yaml")));
        assert!(!inside.holds(&top.path().join("clusters/out/secret.yaml")));
        assert!(!inside.holds(&outside.path().join("secret.yaml")));
        assert!(!inside.holds(&top.path().join("clusters/missing/x.yaml")));
    }
}
