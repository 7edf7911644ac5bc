//! The render record of an output directory: per unit, a digest of everything its files and verdict depend on
//! and the digests of those files, so that a re-run takes an unchanged unit's files from the tree instead of
//! rendering and validating it again.
//!
//! What makes reuse safe: a record entry says "inputs with digest D render (and validate without errors) to files
//! with digests H", a fact that does not depend on the tree. A unit is reused only when its digest is D and every
//! file the tree holds for it has its digest in H; the bytes taken are then exactly the ones a full render would
//! produce. Anything else (another build of the tool, a changed input, a changed or missing file, a record that
//! does not parse or was written for another directory) is a full render of that unit. The record lives in the
//! user's cache directory, not in the tree: a record committed to Git could vouch for files it never rendered.

use std::collections::BTreeMap;
use std::io::Write as _;
use std::path::{Component, Path, PathBuf};

use sha2::{Digest as _, Sha256};

/// A SHA-256 digest.
pub type Digest = [u8; 32];

/// The first line of every record (its format).
const FORMAT: &str = "kubectl-capz render record v1";

/// What one unit (a cluster or a ClusterClass) rendered: the digest of its inputs and its files' digests.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct UnitRecord {
    /// Digest of everything the unit's files and verdict depend on ([`InputDigest`]).
    pub inputs: Digest,
    /// The unit's files (relative to the tree) with the digests of their content.
    pub files: Vec<(PathBuf, Digest)>,
}

impl UnitRecord {
    /// The record of a unit with these inputs that rendered `files`.
    pub fn of(inputs: Digest, files: &[(PathBuf, Vec<u8>)]) -> UnitRecord {
        UnitRecord { inputs, files: files.iter().map(|(path, content)| (path.clone(), digest(content))).collect() }
    }
}

/// The units an earlier run rendered into one output directory, by unit key (its directory in the tree).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RenderRecord {
    /// The build of the tool that rendered them ([`tool_build`]).
    tool: String,
    /// The output directory (absolute).
    out_dir: PathBuf,
    units: BTreeMap<String, UnitRecord>,
}

impl RenderRecord {
    /// An empty record of `out_dir` for this build of the tool.
    pub fn new(tool: &str, out_dir: &Path) -> RenderRecord {
        RenderRecord { tool: tool.to_string(), out_dir: out_dir.to_path_buf(), units: BTreeMap::new() }
    }

    /// The record at `file` if it is one this build wrote for `out_dir`; otherwise (missing, unreadable,
    /// corrupt, foreign) an empty one: every unit is rendered.
    pub fn load(file: &Path, tool: &str, out_dir: &Path) -> RenderRecord {
        std::fs::read_to_string(file)
            .ok()
            .and_then(|text| RenderRecord::parse(&text, tool, out_dir))
            .unwrap_or_else(|| RenderRecord::new(tool, out_dir))
    }

    /// The output directory whose units are recorded.
    pub fn out_dir(&self) -> &Path {
        &self.out_dir
    }

    /// Number of units recorded.
    pub fn len(&self) -> usize {
        self.units.len()
    }

    /// Whether no unit is recorded.
    pub fn is_empty(&self) -> bool {
        self.units.is_empty()
    }

    /// Records a unit.
    pub fn insert(&mut self, key: String, unit: UnitRecord) {
        self.units.insert(key, unit);
    }

    /// The recorded unit `key`.
    pub fn get(&self, key: &str) -> Option<&UnitRecord> {
        self.units.get(key)
    }

    /// The files of unit `key` read from the tree at `root`, when the unit was recorded with these `inputs`
    /// and every file there has the recorded digest; `None` (render it) otherwise.
    pub fn reuse(&self, key: &str, inputs: &Digest, root: &Path) -> Option<Vec<(PathBuf, Vec<u8>)>> {
        let unit = self.units.get(key).filter(|unit| &unit.inputs == inputs)?;
        let mut files = Vec::with_capacity(unit.files.len());
        for (path, expected) in &unit.files {
            if !is_plain_relative(path) {
                return None;
            }
            let content = std::fs::read(root.join(path)).ok()?;
            if &digest(&content) != expected {
                return None;
            }
            files.push((path.clone(), content));
        }
        Some(files)
    }

    /// The record as text: a header, one `unit` line per unit followed by its `file` lines, and an `end` line
    /// with the digest of everything before it.
    pub fn to_text(&self) -> String {
        let mut text = format!("{FORMAT}\ntool\t{}\nout\t{}\n", self.tool, self.out_dir.display());
        for (key, unit) in &self.units {
            text.push_str(&format!("unit\t{key}\t{}\n", hex(&unit.inputs)));
            for (path, file_digest) in &unit.files {
                text.push_str(&format!("file\t{}\t{}\n", path.display(), hex(file_digest)));
            }
        }
        let seal = hex(&digest(text.as_bytes()));
        text.push_str(&format!("end\t{seal}\n"));
        text
    }

    /// Parses a record written by [`RenderRecord::to_text`] for this `tool` and `out_dir`; `None` for anything
    /// else.
    pub fn parse(text: &str, tool: &str, out_dir: &Path) -> Option<RenderRecord> {
        let body_end = text.rfind("end\t")?;
        let (body, end) = text.split_at(body_end);
        if end != format!("end\t{}\n", hex(&digest(body.as_bytes()))) {
            return None;
        }
        let mut lines = body.lines();
        if lines.next()? != FORMAT
            || lines.next()?.strip_prefix("tool\t")? != tool
            || Path::new(lines.next()?.strip_prefix("out\t")?) != out_dir
        {
            return None;
        }
        let mut record = RenderRecord::new(tool, out_dir);
        let mut current: Option<(String, UnitRecord)> = None;
        for line in lines {
            let fields: Vec<&str> = line.split('\t').collect();
            match fields.as_slice() {
                ["unit", key, inputs] => {
                    if let Some((key, unit)) = current.take() {
                        record.units.insert(key, unit);
                    }
                    current = Some((key.to_string(), UnitRecord { inputs: unhex(inputs)?, files: Vec::new() }));
                }
                ["file", path, file_digest] => {
                    let path = PathBuf::from(path);
                    if !is_plain_relative(&path) {
                        return None;
                    }
                    current.as_mut()?.1.files.push((path, unhex(file_digest)?));
                }
                _ => return None,
            }
        }
        if let Some((key, unit)) = current {
            record.units.insert(key, unit);
        }
        Some(record)
    }

    /// Writes the record to `file` (a temporary file renamed over it), creating its directory.
    pub fn save(&self, file: &Path) -> std::io::Result<()> {
        let dir = file.parent().unwrap_or(Path::new("."));
        std::fs::create_dir_all(dir)?;
        let mut temp = tempfile::NamedTempFile::new_in(dir)?;
        temp.write_all(self.to_text().as_bytes())?;
        temp.persist(file).map_err(|e| e.error)?;
        Ok(())
    }
}

/// A relative path of plain names (what a tree's file paths are).
fn is_plain_relative(path: &Path) -> bool {
    path.components().next().is_some() && path.components().all(|c| matches!(c, Component::Normal(_)))
}

/// The SHA-256 of `bytes`.
pub fn digest(bytes: &[u8]) -> Digest {
    Sha256::digest(bytes).into()
}

/// Builds the digest of a unit's inputs from delimited parts.
#[derive(Clone, Default)]
pub struct InputDigest(Sha256);

impl InputDigest {
    /// Adds one part (its length first, so parts never run together).
    pub fn part(mut self, bytes: &[u8]) -> InputDigest {
        self.0.update((bytes.len() as u64).to_le_bytes());
        self.0.update(bytes);
        self
    }

    /// The digest of the parts so far.
    pub fn finish(self) -> Digest {
        self.0.finalize().into()
    }
}

/// The digest of every file below `dir` (names and contents, in name order); a directory that cannot be read
/// gives a digest of its own that no readable one has.
pub fn dir_digest(dir: &Path) -> Digest {
    let mut files = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    let mut parts = InputDigest::default();
    while let Some(current) = stack.pop() {
        let Ok(entries) = std::fs::read_dir(&current) else {
            parts = parts.part(b"unreadable directory").part(current.as_os_str().as_encoded_bytes());
            continue;
        };
        for entry in entries.flatten() {
            let path = entry.path();
            if path.is_dir() {
                stack.push(path);
            } else {
                files.push(path);
            }
        }
    }
    files.sort();
    for file in files {
        let content = std::fs::read(&file).unwrap_or_else(|_| b"unreadable file".to_vec());
        parts = parts.part(file.as_os_str().as_encoded_bytes()).part(&content);
    }
    parts.finish()
}

/// This build of the tool: its version and its executable's size, modification time and inode, so a rebuilt
/// or reinstalled binary never reuses what another build recorded. `None` when the executable cannot be found.
pub fn tool_build() -> Option<String> {
    let exe = std::env::current_exe().ok()?;
    let meta = std::fs::metadata(&exe).ok()?;
    let modified = meta.modified().ok()?.duration_since(std::time::UNIX_EPOCH).ok()?.as_nanos();
    #[cfg(unix)]
    let inode = std::os::unix::fs::MetadataExt::ino(&meta);
    #[cfg(not(unix))]
    let inode = 0u64;
    Some(format!("{} {} {} {} {}", env!("CARGO_PKG_VERSION"), exe.display(), meta.len(), modified, inode))
}

/// The record file of `out_dir` (absolute) below the cache directory `cache`.
pub fn record_file(cache: &Path, out_dir: &Path) -> PathBuf {
    let name = hex(&digest(out_dir.as_os_str().as_encoded_bytes()));
    cache.join("fleet").join(format!("{}.record", &name[..32]))
}

/// The cache directory: `$KUBECTL_CAPZ_CACHE_DIR`, else `$XDG_CACHE_HOME/kubectl-capz`, else
/// `$HOME/.cache/kubectl-capz`; `None` when none of them is set.
pub fn cache_dir() -> Option<PathBuf> {
    let set = |name: &str| std::env::var_os(name).filter(|v| !v.is_empty()).map(PathBuf::from);
    set(CACHE_DIR_VAR)
        .or_else(|| set("XDG_CACHE_HOME").map(|dir| dir.join("kubectl-capz")))
        .or_else(|| set("HOME").map(|dir| dir.join(".cache").join("kubectl-capz")))
}

/// The environment variable naming the cache directory.
pub const CACHE_DIR_VAR: &str = "KUBECTL_CAPZ_CACHE_DIR";

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

fn unhex(text: &str) -> Option<Digest> {
    if text.len() != 64 {
        return None;
    }
    let mut out = [0u8; 32];
    for (i, byte) in out.iter_mut().enumerate() {
        *byte = u8::from_str_radix(text.get(2 * i..2 * i + 2)?, 16).ok()?;
    }
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sample(root: &Path) -> RenderRecord {
        std::fs::create_dir_all(root.join("c/a")).unwrap();
        std::fs::write(root.join("c/a/x.yaml"), "x").unwrap();
        std::fs::write(root.join("c/a/k.yaml"), "k").unwrap();
        let mut record = RenderRecord::new("tool 1", root);
        let files = vec![(PathBuf::from("c/a/x.yaml"), b"x".to_vec()), (PathBuf::from("c/a/k.yaml"), b"k".to_vec())];
        record.insert("c/a".into(), UnitRecord::of(digest(b"inputs"), &files));
        record
    }

    #[test]
    fn round_trip_and_reuse() {
        let dir = tempfile::tempdir().unwrap();
        let record = sample(dir.path());
        let file = dir.path().join("cache/fleet/r.record");
        record.save(&file).unwrap();
        let loaded = RenderRecord::load(&file, "tool 1", dir.path());
        assert_eq!(loaded, record);
        let files = loaded.reuse("c/a", &digest(b"inputs"), dir.path()).unwrap();
        assert_eq!(files, vec![("c/a/x.yaml".into(), b"x".to_vec()), ("c/a/k.yaml".into(), b"k".to_vec())]);
    }

    #[test]
    fn changed_inputs_or_files_are_not_reused() {
        let dir = tempfile::tempdir().unwrap();
        let record = sample(dir.path());
        assert!(record.reuse("c/a", &digest(b"other inputs"), dir.path()).is_none());
        assert!(record.reuse("c/b", &digest(b"inputs"), dir.path()).is_none());
        std::fs::write(dir.path().join("c/a/x.yaml"), "edited").unwrap();
        assert!(record.reuse("c/a", &digest(b"inputs"), dir.path()).is_none());
        std::fs::remove_file(dir.path().join("c/a/x.yaml")).unwrap();
        assert!(record.reuse("c/a", &digest(b"inputs"), dir.path()).is_none());
    }

    #[test]
    fn foreign_or_corrupt_records_are_empty() {
        let dir = tempfile::tempdir().unwrap();
        let record = sample(dir.path());
        let text = record.to_text();
        let file = dir.path().join("r.record");
        let load = |body: &str| {
            std::fs::write(&file, body).unwrap();
            RenderRecord::load(&file, "tool 1", dir.path())
        };
        assert_eq!(load(&text), record);
        // Another build, another output directory.
        assert!(RenderRecord::load(&file, "tool 2", dir.path()).is_empty());
        assert!(RenderRecord::load(&file, "tool 1", &dir.path().join("other")).is_empty());
        // Truncated, edited, garbage.
        assert!(load(&text[..text.len() / 2]).is_empty());
        assert!(load(&text.replace("x.yaml", "y.yaml")).is_empty());
        assert!(load("not a record\n").is_empty());
        assert!(load("").is_empty());
        // A well-sealed record with a path leaving the tree is refused as a whole.
        let mut hostile = RenderRecord::new("tool 1", dir.path());
        hostile.insert("c/a".into(), UnitRecord { inputs: digest(b"inputs"), files: vec![("../x".into(), [0; 32])] });
        assert!(load(&hostile.to_text()).is_empty());
    }

    #[test]
    fn input_parts_are_delimited() {
        let ab_c = InputDigest::default().part(b"ab").part(b"c").finish();
        let a_bc = InputDigest::default().part(b"a").part(b"bc").finish();
        assert_ne!(ab_c, a_bc);
    }
}
